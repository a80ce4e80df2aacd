"""cost_claims: the fused kernel computes our output (an unscaled one would not); additive attention's peak is
(2 + 1/Q + 1/K)·h + 1 times its (B, Q, K) weights, exactly; the rule of thumb 2h is off most for a single query."""

import pytest
import torch

from attention_helpers.lessons import cost_claims as cc
from attention_helpers.lessons.cost_claims import ADDITIVE_SHAPES, additive_peak, additive_peak_formula, sdpa_difference


@pytest.mark.parametrize("shape", [(1, 1, 16, 8), (2, 3, 16, 64), (1, 16, 256, 8)])
def test_the_formula_is_the_measured_peak(shape):
    assert additive_peak(*shape) == additive_peak_formula(*shape)


def test_two_h_is_far_off_for_a_single_query():
    B, Q, K, h = 1, 1, 256, 64
    assert additive_peak(B, Q, K, h) / (2 * h * B * Q * K * 4) > 1.5


def test_the_sweep_covers_a_single_query_and_many():
    assert len(ADDITIVE_SHAPES) >= 50 and {1, 256} <= {Q for _, Q, _, _, _ in ADDITIVE_SHAPES}
    assert {16, 64, 128} <= {d for *_, d in ADDITIVE_SHAPES} and all(
        cc.intermediate_outweighs_inputs(*s) for s in ADDITIVE_SHAPES
    )


def test_the_fused_kernel_matches_ours_and_an_unscaled_one_does_not():
    assert sdpa_difference(0) < 1e-5  # one draw: the harness checks 50
    assert sdpa_difference(0, scale=1.0) > 1e-2  # the wrong story, no 1/√d, fails on it


def test_with_one_hidden_unit_the_formula_falls_short_and_with_two_it_is_exact():
    assert additive_peak(1, 4, 16, 1) > additive_peak_formula(1, 4, 16, 1)
    assert additive_peak(1, 4, 16, 2) == additive_peak_formula(1, 4, 16, 2)


@pytest.mark.parametrize(
    ("shape", "short"), [((1, 1, 16, 2, 64), 1.42), ((1, 1, 16, 2, 128), 1.98), ((1, 8, 16, 2, 32), 1.19)]
)
def test_with_wide_queries_and_keys_the_formula_falls_short(shape, short):
    # a fresh reader's shapes (issue 35): the (B, Q + K, d) inputs outweigh the intermediate, and the peak is elsewhere
    assert not cc.intermediate_outweighs_inputs(*shape)
    assert round(cc._peak_over_formula(shape), 2) == short


def test_where_the_intermediate_is_narrow_the_formula_is_never_above_the_peak():
    ratios = [cc._peak_over_formula(s) for s in cc.NARROW_INTERMEDIATE]
    assert min(ratios) > 1 - 1e-9 and sum(r > 1 + 1e-9 for r in ratios) == cc.NARROW_SHORT


@pytest.mark.parametrize("shape", [(2, 221, 25, 3, 64), (1, 307, 59, 2, 96)])
def test_just_above_once_over_the_formula_can_fall_short(shape):
    # a fresh reader's random shapes (issue 35): the intermediate outweighs the queries and keys, but not twice over,
    # and the peak is 8 % and 12 % above the formula: why the condition is "twice over"
    assert cc.intermediate_outweighs_inputs(*shape, times=1) and not cc.intermediate_outweighs_inputs(*shape)
    assert cc._peak_over_formula(shape) > 1.05


def test_the_random_shapes_lie_between_two_and_eight_times_over():
    shapes = cc._random_shapes(600)
    assert shapes == cc.ADDITIVE_SHAPES[-600:] and len(set(shapes)) > 590
    assert all(
        cc.intermediate_outweighs_inputs(*s) and not cc.intermediate_outweighs_inputs(*s, times=8.01) for s in shapes
    )


@pytest.mark.parametrize(("shape", "short"), [((1, 256, 16, 2, 512), 7.0), ((1, 256, 16, 1, 128), 3.6)])
def test_wider_queries_and_keys_take_the_formula_further_short(shape, short):
    # a fresh reader's (issue 35): the sweep's "up to 2.4 times" and "0.4 % to 33 %" hold at its widths only
    assert round(cc._peak_over_formula(shape), 1) == short


def test_at_short_lengths_the_fused_kernels_buffers_per_thread_outweigh_one_l_by_l_matrix():
    # notebook 7, 7.2: "at each of these lengths (256 to 2048) its peak is below a single head's L × L matrix (at
    # shorter ones its fixed buffers, one set per thread, can outweigh one)": a fresh reader's L = 64 and 100 (issue 35)
    import torch.nn.functional as F

    from attention_helpers.lessons.cost import peak_memory

    def fused_peak(L: int, threads: int) -> int:
        q = torch.zeros(1, 4, L, 16)  # (B, H, L, d): the notebook's heads and width
        before = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            return peak_memory(lambda: F.scaled_dot_product_attention(q, q, q))
        finally:
            torch.set_num_threads(before)

    assert fused_peak(64, 1) > 64 * 64 * 4 and fused_peak(100, 1) > 100 * 100 * 4
    assert fused_peak(128, 1) < 128 * 128 * 4 < fused_peak(128, 2)  # a second thread, a second set of buffers
    assert fused_peak(256, 2) < 256 * 256 * 4
