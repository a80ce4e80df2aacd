"""efficient_claims: a trained induction head read block by block (seed 0's record is the committed model; the
wrong stories fail: shuffled scores do not jump, tiles without a common max change predictions); the count of scores
a causal window computes in whole tiles, against the tiles block_plan marks and against what tiled_attention hands
partial_softmax in a run; the rule of thumb L·(w + b) it replaces fails."""

import math
from unittest import mock

import pytest
import torch

from attention_helpers.lessons import efficient
from attention_helpers.lessons import efficient_claims as ec
from attention_helpers.lessons.claims import load_records, rounded
from attention_helpers.lessons.efficient_claims import LENGTH, WINDOW_SWEEP, window_scores, window_scores_formula
from attention_helpers.lessons.induction import make_induction_data, trained_model


@pytest.fixture(scope="module")
def seed0():
    model, data = trained_model(0), make_induction_data(256, seed=1234)
    scores, values, logits = ec.head_scores_values(model, data)
    return model, data, scores, values, logits


def test_seed_0s_record_is_the_committed_model(seed0):
    model, data, scores, values, logits = seed0
    record = load_records("efficient")[0]
    head = record["head"]
    assert rounded(ec.measure_blocks(scores[:, head], values[:, head], data)) == record["trained"]
    assert rounded(ec.measure_blocks(ec.shuffled_rows(scores[:, head]), values[:, head], data)) == record["shuffled"]


def test_the_jump_is_the_trained_heads_and_shuffled_scores_do_not_make_it(seed0):
    """8.3's wrong story (the output converges gradually, as for random scores) fails on the measure."""
    _, data, scores, values, _ = seed0
    right = ec.measure_blocks(scores[:, 1], values[:, 1], data)
    wrong = ec.measure_blocks(ec.shuffled_rows(scores[:, 1]), values[:, 1], data)
    assert right["settles_at_target"] >= 0.75 > 0.5 > wrong["settles_at_target"]
    assert right["max_at_target"] >= 0.8 > 0.5 > wrong["max_at_target"]


def test_shuffled_rows_keep_each_rows_scores_and_its_mask():
    scores = torch.randn(3, 6, 6).masked_fill(~torch.ones(6, 6, dtype=torch.bool).tril(), -torch.inf)  # causal
    shuffled = ec.shuffled_rows(scores)
    assert torch.equal(shuffled.isneginf(), scores.isneginf())
    torch.testing.assert_close(shuffled.sort(-1).values, scores.sort(-1).values)
    assert not torch.equal(shuffled, scores)


def test_tiles_leave_the_predictions_and_stale_tiles_do_not(seed0):
    """8.3's tiled-model claim and its wrong story (tiles added without a common max)."""
    model, data, _, _, logits = seed0
    measured = ec.measure_tiled(model, data, logits)
    assert measured["tiled"]["same_predictions"] == 1.0 and measured["tiled"]["max_logit_difference"] < 1e-4
    assert measured["stale"]["same_predictions"] < 0.5


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


@pytest.mark.parametrize(
    ("length", "block", "window"), [(512, 64, 514), (512, 64, 578), (512, 64, 1024), (256, 16, 5120)]
)
def test_a_window_past_the_first_key_is_the_whole_causal_mask(length, block, window):
    # the fresh reader's cases (issue 35): T uncapped undercounts from w > L + 1, gives 0 at w = 2L and then negative
    n = length // block
    whole = block * block * n * (n + 1) // 2
    assert window_scores(length, block, window) == window_scores_formula(length, block, window) == whole
    assert window_scores(length, block, window) == scores_in_a_run(length, block, window)
    tiles = math.ceil((window - 1) / block) + 1  # uncapped: more tiles than query blocks
    assert block * block * (n * tiles - tiles * (tiles - 1) // 2) < whole


def test_the_formula_sweep_reaches_past_the_first_key():
    assert any(w > length + 1 for length, _, w in ec.FORMULA_SWEEP) and len(ec.FORMULA_SWEEP) > 300


def test_the_sweep_includes_windows_that_are_not_multiples_of_the_block():
    assert len(WINDOW_SWEEP) >= 50 and any(w % b for b, w in WINDOW_SWEEP) and any(w % b == 0 for b, w in WINDOW_SWEEP)
    assert all(w <= LENGTH // 8 for _, w in WINDOW_SWEEP)


def test_the_rule_of_thumb_is_nearly_double_just_past_a_multiple():
    assert round(window_scores(4096, 64, 2) / (4096 * (2 + 64)), 2) == 1.92  # two tiles per query block for 2 keys
    assert window_scores(4096, 64, 2) != window_scores_formula(4096, 64, 1)


def test_merged_random_rows_are_the_softmax_and_stale_merges_are_not():
    """8.7.1's draws: any cut, any order, within 1e-5 of float64 maths; partials added as they are fail."""
    assert ec.merge_difference(0) < 1e-5
    assert ec.merge_difference(0, ec.stale_merge) > 1e-2


def test_float16_tiles_need_float32_statistics():
    """8.7.4's draws: float32 statistics keep float16 tiles within 2e-3; float16 statistics do not."""
    assert ec.float16_difference(0) < 2e-3
    assert ec.float16_difference(0, torch.float16) > 2e-3


def test_the_bound_2b_over_b_plus_2_holds_for_blocks_of_2_and_fails_for_blocks_of_1():
    assert all(ec._bound_ratio(i) < 1 for i in range(len(ec.BOUND_SWEEP)))
    assert min(b for b, _, _ in ec.BOUND_SWEEP) == 2
    L, w = 64, 7  # blocks of 1: the count tends to L·w, above 2/3 of L·(w + 1)
    assert window_scores(L, 1, w) / (L * (w + 1)) > 2 / 3


@pytest.mark.parametrize(("length", "block", "window", "times"), [(385, 128, 2, 2.29), (129, 128, 2, 2.93)])
def test_a_partial_last_block_can_take_the_count_above_the_bound(length, block, window, times):
    # fresh readers' (issue 35): 2b/(b + 2) bounds the count at lengths n·b only
    count = ec.window_scores(length, block, window)
    assert count == ec.window_scores_formula(length, block, window)  # the formula still counts it
    assert round(count / (length * (window + block)), 2) == times > 2 * block / (block + 2)


def test_with_a_partial_block_and_l_above_b_the_count_stays_under_twice_l_b_t_and_three_times_l_w_b():
    # notebook 8, 8.7.6: "under twice L·b·T whenever L > b" (n = ceil(L/b) < 2L/b) and "to nearly 3 times L·(w + b)"
    worst_lbt = worst_rule = 0.0
    for b in (2, 3, 5, 16, 64, 128):
        for length in range(b + 1, 6 * b):
            for window in range(1, min(length, 3 * b) + 1):
                count = ec.window_scores_formula(length, b, window)
                tiles = min(math.ceil((window - 1) / b) + 1, -(-length // b))
                worst_lbt = max(worst_lbt, count / (length * b * tiles))
                worst_rule = max(worst_rule, count / (length * (window + b)))
    assert 1.98 < worst_lbt < 2 and 2.9 < worst_rule < 3
    assert round(ec.window_scores(65, 64, 1) / (65 * 64), 2) == 1.97  # the example the text gives
    assert ec.window_scores(6, 64, 1) / (6 * 64) > 10  # L < b: far more
    assert 0.5 < ec.window_scores(4096, 64, 4096) / (4096 * 64 * 64) < 0.51  # T = n: about half of L·b·T
