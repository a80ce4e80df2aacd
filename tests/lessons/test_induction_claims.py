"""Notebook 10's per-seed measurements (attention_helpers.lessons.induction_claims): copies at a distance are laid
out as described, an untrained model finds none of them, and bad input gets a named error."""

from __future__ import annotations

import pytest
import torch

from attention_helpers.lessons import induction_claims as ic
from attention_helpers.lessons.claims import load_records
from attention_helpers.lessons.induction import AttentionOnlyTransformer


@pytest.mark.parametrize("distance", [4, 9, 16])
def test_gapped_data_copies_the_segment_distance_positions_later(distance):
    tokens, scored = ic.gapped_data(64, distance, n=4, seed=3)
    assert tokens.shape == scored.shape == (64, 24)
    assert (scored.sum(1) == 3).all()  # n - 1 positions whose next token follows from the copy
    for row, marks in zip(tokens, scored, strict=True):
        first = int(marks.nonzero()[0])  # the copy's first position
        torch.testing.assert_close(row[first : first + 4], row[first - distance : first - distance + 4])


def test_an_untrained_model_finds_no_copy_at_any_distance():
    untrained = AttentionOnlyTransformer(seed=0)
    assert all(ic.copy_distance_accuracy(untrained, d, num=128) < 0.15 for d in (4, 8, 16))


def test_the_records_hold_every_distance_for_414_seeds():
    records = load_records("induction")
    seeds = [
        *range(50),
        *range(100, 130),
        *range(200, 240),
        *range(250, 255),
        *range(305, 313),
        *range(320, 401),
        *range(410, 510),
        *range(700, 800),
    ]
    assert sorted(records) == list(ic.SEEDS) == seeds
    assert all(set(r["copy_distance"]) == {str(d) for d in ic.DISTANCES} for r in records.values())


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: ic.gapped_data(8, 3, n=4), ValueError, "distance must lie in n=4"),
        (lambda: ic.gapped_data(8, 30), ValueError, "distance must lie in"),
        (lambda: ic.gapped_data(8, 4, n=1), ValueError, "n must be >= 2"),
        (lambda: ic.gapped_data(8, True), TypeError, "distance"),
        (lambda: ic.gapped_data(0, 4), ValueError, "num"),
        (lambda: ic.copy_distance_accuracy("model", 8), TypeError, "model must be an AttentionOnlyTransformer"),
        (lambda: load_records(3), TypeError, "name must be a family's name"),
        (lambda: load_records("dats"), ValueError, "one of"),
    ],
)
def test_bad_input_is_named(call, error, words):
    with pytest.raises(error, match=words):
        call()
