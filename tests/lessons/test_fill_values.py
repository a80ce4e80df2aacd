"""Notebook 1's fill-value explorer: each dtype x fill x empty row gives what PyTorch itself gives."""

import pytest
import torch

from attention_helpers import masked_softmax
from attention_helpers.lessons.fill_values import DTYPES, FILLS, fill_outcome, outcome_caption, outcome_svg

SCORES = torch.tensor([[[0.1, 0.2, 0.3, 0.4]], [[0.4, 0.3, 0.2, 0.1]]])  # (B=2, Q=1, K=4)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_empty_row_outcomes(dtype):
    empty = torch.tensor([3, 0])
    for fill in FILLS:
        outcome = fill_outcome(SCORES, empty, dtype, fill, zero_masked=False)
        if dtype == "float16" and fill in ("-1e6", "-1e9"):
            assert outcome.error is not None and "overflow" in outcome.error and outcome.weights is None
            assert "does not fit" in outcome_caption(outcome)
        elif fill == "-inf":
            assert outcome.weights[1].isnan().all() and not outcome.grad_finite
            assert "NaN" in outcome_caption(outcome)
        else:  # a finite fill: the empty row is uniform over padding, gradients finite
            torch.testing.assert_close(outcome.weights[1], torch.full((1, 4), 0.25))
            assert outcome.grad_finite and "padding only" in outcome_caption(outcome)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_finfo_min_and_zeroing_is_masked_softmax(dtype):
    for lens in (torch.tensor([3, 0]), torch.tensor([3, 2])):
        outcome = fill_outcome(SCORES, lens, dtype, "finfo.min", zero_masked=True)
        expected = masked_softmax(SCORES.to(DTYPES[dtype]), lens).float()
        torch.testing.assert_close(outcome.weights, expected)
        assert outcome.grad_finite and "as with masked_softmax" in outcome_caption(outcome)


def test_svg_shows_nan_and_errors_in_current_colour():
    nan = outcome_svg(fill_outcome(SCORES, torch.tensor([3, 0]), "float32", "-inf", False), title="float32, -inf")
    assert "NaN" in nan and "currentColor" in nan and len(nan) < 6000 and "float32, -inf" in nan
    error = outcome_svg(fill_outcome(SCORES, torch.tensor([3, 0]), "float16", "-1e6", False))
    assert "masked_fill raises RuntimeError" in error


def test_scores_untouched_and_bad_input():
    before = SCORES.clone()
    fill_outcome(SCORES, torch.tensor([3, 0]), "float16", "finfo.min", False)
    assert torch.equal(SCORES, before)
    with pytest.raises(ValueError, match="dtype must be one of"):
        fill_outcome(SCORES, torch.tensor([3, 0]), "float64", "-inf", False)
    with pytest.raises(ValueError, match="fill must be one of"):
        fill_outcome(SCORES, torch.tensor([3, 0]), "float32", "-1e3", False)
    with pytest.raises(ValueError, match="scores must be"):
        fill_outcome(SCORES[0], torch.tensor([3, 0]), "float32", "-inf", False)
