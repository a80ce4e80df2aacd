"""efficient_claims: the count of scores a causal window computes in whole tiles, against the tiles block_plan marks
and against what tiled_attention hands partial_softmax in a run; the rule of thumb L·(w + b) it replaces fails."""

from unittest import mock

import pytest
import torch

from attention_helpers.lessons import efficient
from attention_helpers.lessons.efficient_claims import LENGTH, WINDOW_SWEEP, window_scores, window_scores_formula


def scores_in_a_run(length: int, block: int, window: int) -> int:
    handed, original = [], efficient.partial_softmax

    def counting(scores, values, keep=None):
        handed.append(scores.shape[-2] * scores.shape[-1])
        return original(scores, values, keep)

    x = torch.zeros(1, length, 1)  # (B, L, d): only the shapes matter
    with mock.patch.object(efficient, "partial_softmax", counting):
        efficient.tiled_attention(x, x, x, causal=True, window=window, block_q=block, block_k=block)
    return sum(handed)


@pytest.mark.parametrize(("length", "block", "window"), [(256, 16, 1), (256, 16, 2), (256, 16, 17), (512, 64, 66)])
def test_the_formula_is_what_a_run_computes(length, block, window):
    assert window_scores(length, block, window) == window_scores_formula(length, block, window)
    assert window_scores(length, block, window) == scores_in_a_run(length, block, window)


def test_the_sweep_includes_windows_that_are_not_multiples_of_the_block():
    assert len(WINDOW_SWEEP) >= 50 and any(w % b for b, w in WINDOW_SWEEP) and any(w % b == 0 for b, w in WINDOW_SWEEP)
    assert all(w <= LENGTH // 8 for _, w in WINDOW_SWEEP)


def test_the_rule_of_thumb_is_nearly_double_just_past_a_multiple():
    assert round(window_scores(4096, 64, 2) / (4096 * (2 + 64)), 2) == 1.92  # two tiles per query block for 2 keys
    assert window_scores(4096, 64, 2) != window_scores_formula(4096, 64, 1)
