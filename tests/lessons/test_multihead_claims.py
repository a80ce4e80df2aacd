"""multihead_claims: the peak of a MultiHeadAttention call grows by exactly two float32 (B, L, L) matrices per extra
head when L >= h, and by another amount when L < h (the peak is then at another step of the call)."""

import torch

from attention_helpers.lessons.multihead_claims import LONG, SHORT, extra_per_head, head_peak


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
