"""multihead_claims: the peak of a MultiHeadAttention call grows by exactly two float32 (B, L, L) matrices per extra
head when L >= h, and by another amount when L < h (the peak is then at another step of the call); and what notebook
10's trained heads learn over 414 seeds (4.7), each claim's measure failing for its wrong story."""

import torch

from attention_helpers.lessons.claims import CLAIMS, load_records
from attention_helpers.lessons.multihead_claims import (
    LONG,
    SHORT,
    costlier_head,
    extra_per_head,
    head_peak,
    lopsided,
    previous_head,
)


def test_two_matrices_per_extra_head_when_the_sequence_is_at_least_as_long_as_the_width():
    assert extra_per_head(1, 32, 32, 2) == 2.0 and extra_per_head(2, 37, 32, 4) == 2.0


def test_another_amount_when_it_is_shorter():
    assert extra_per_head(1, 16, 32, 2) != 2.0


def test_the_sweep_splits_at_l_equals_h_and_leaves_the_random_numbers_alone():
    assert len(LONG) >= 50 and len(SHORT) >= 50
    assert all(L >= h for _, L, h, _ in LONG) and all(L < h for _, L, h, _ in SHORT)
    state = torch.random.get_rng_state()
    head_peak.__wrapped__(1, 8, 16, 2)
    assert torch.equal(torch.random.get_rng_state(), state)


# What trained heads learn (4.7 and 4.10.7): notebook 10's model over 414 seeds, read from its records.

LEARNED = [c for c in CLAIMS if c.notebook == "04" and c.section in ("4.7", "4.10.7")]


def _record(ablated: dict, accuracy: float = 0.87, head: int = 0) -> dict:
    return {"ablated": ablated, "accuracy": accuracy, "previous_head": head}


def test_lopsided_tells_a_head_that_carries_the_job_from_two_interchangeable_ones():
    one_carries = _record({"0.0": 0.26, "0.1": 0.87, "1.0": 0.82, "1.1": 0.82})
    assert lopsided(one_carries, 0) > 0.1  # the right story: switching off head 0 costs far more
    assert lopsided(one_carries, 1) < 0.1  # the wrong one: twins cost the same
    assert costlier_head(one_carries, 1) < 0.2 and costlier_head(one_carries, 0) > 0.6


def test_every_claim_about_the_learned_heads_holds_and_its_wrong_story_does_not():
    assert len(LEARNED) == 6
    for made in LEARNED:
        result = made.run()
        assert result.n == 414 and made.passes(result), made.words
        assert sum(result.wrong_held) / result.n < made.rate, made.wrong_story


def test_head_0_is_not_always_the_previous_token_head_nor_are_layer_0s_heads_twins():
    records = load_records("induction")
    heads = [previous_head(r) for r in records.values()]
    assert 0 < heads.count(0) < len(heads)  # "head 0 is always the previous-token head" fails
    layer0 = sum(lopsided(r, 0) > 0.1 for r in records.values())
    layer1 = sum(lopsided(r, 1) > 0.1 for r in records.values())
    assert layer0 >= 366 > 35 >= layer1  # "the two heads of a layer are interchangeable" fails for layer 0 only
