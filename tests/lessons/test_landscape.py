"""The additive score landscape of notebook 2's explorer, against the layer itself and the dot product."""

import math

import numpy as np
import pytest
import torch

from attention_helpers import AdditiveAttention
from attention_helpers.lessons.landscape import (
    additive_landscape,
    dot_plane,
    key_grid,
    landscape_svg,
    score_spreads,
    spread_parts,
    weight_ratio,
)


def layer_weights(seed=0):
    torch.manual_seed(seed)
    layer = AdditiveAttention(key_size=2, query_size=2, num_hiddens=8, dropout=0.0).eval()
    return layer, layer.W_q.weight.detach(), layer.W_k.weight.detach(), layer.w_v.weight.detach()[0]


def test_grid_corners_and_order():
    grid = key_grid(3.0, 5)  # (5, 5, 2)
    assert grid.shape == (5, 5, 2)
    assert grid[0, 0].tolist() == [-3.0, 3.0] and grid[-1, -1].tolist() == [3.0, -3.0]  # top-left, bottom-right


def test_landscape_matches_the_layer_scores():
    layer, W_q, W_k, w_v = layer_weights()
    grid = key_grid(3.0, 7)
    query = torch.tensor([0.6, -1.3])
    keys = grid.reshape(1, -1, 2)  # (B=1, K=49, 2)
    with torch.no_grad():
        hidden = layer.W_q(query.view(1, 1, 2)).unsqueeze(2) + layer.W_k(keys).unsqueeze(1)  # (1, 1, K, h)
        expected = layer.w_v(torch.tanh(hidden)).reshape(7, 7)
    torch.testing.assert_close(additive_landscape(query, grid, W_q, W_k, w_v), expected)
    torch.testing.assert_close(dot_plane(query, grid), (grid * query).sum(-1))


def test_scaling_w_v_scales_scores_and_powers_the_ratio():
    _, W_q, W_k, w_v = layer_weights()
    keys = torch.tensor([[2.0, 1.0], [-1.5, 2.0], [-2.0, -1.0], [0.5, 0.5]])
    query = torch.tensor([1.0, 1.0])
    base = additive_landscape(query, keys, W_q, W_k, w_v)
    torch.testing.assert_close(additive_landscape(query, keys, W_q, W_k, 4 * w_v), 4 * base)
    assert math.isclose(weight_ratio(4 * base), weight_ratio(base) ** 4, rel_tol=1e-5)
    weights = torch.softmax(base, -1)
    assert math.isclose(weight_ratio(base), (weights.max() / weights.min()).item(), rel_tol=1e-5)


def test_svg_uses_current_colour_and_stays_small():
    _, W_q, W_k, w_v = layer_weights()
    grid, query = key_grid(), torch.tensor([2.0, 0.5])
    svg = landscape_svg(
        [("additive", additive_landscape(query, grid, W_q, W_k, w_v), 3.0), ("q · k", dot_plane(query, grid), 3.0)],
        query,
        torch.tensor([[1.0, 1.0]]),
    )
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "currentColor" in svg and "black" not in svg
    assert len(svg) < 6000


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda W_q, W_k, w_v: additive_landscape([1.0, 2.0], key_grid(), W_q, W_k, w_v), TypeError, "query"),
        (lambda W_q, W_k, w_v: additive_landscape(torch.ones(3), key_grid(), W_q, W_k, w_v), ValueError, "W_q"),
        (lambda W_q, W_k, w_v: additive_landscape(torch.ones(2), torch.ones(4, 3), W_q, W_k, w_v), ValueError, "W_k"),
        (lambda W_q, W_k, w_v: dot_plane(torch.ones(2), torch.ones(4, 3)), ValueError, "keys"),
        (lambda W_q, W_k, w_v: key_grid(0.0), ValueError, "limit"),
        (lambda W_q, W_k, w_v: key_grid(3.0, 1), ValueError, "size"),
        (lambda W_q, W_k, w_v: weight_ratio(torch.ones(2, 2)), ValueError, "scores"),
    ],
)
def test_bad_input_names_the_argument(call, error, words):
    _, W_q, W_k, w_v = layer_weights()
    with pytest.raises(error, match=words):
        call(W_q, W_k, w_v)


def test_each_panel_has_a_colour_bar_whose_clipped_ends_say_so():
    inside = torch.tensor([[-0.5, 0.0], [0.25, 1.0]])  # within ±1
    beyond = torch.tensor([[-0.5, 0.0], [0.25, 2.0]])  # above +1 only
    svg = landscape_svg([("a", inside, 1.0), ("b", beyond, 1.0)], torch.tensor([1.0, 0.0]), torch.ones(1, 2))
    labels = [text.split(">")[-1] for text in svg.split("</text>")[:-1]]  # every text's content, in order
    assert labels == ["a", "−1", "0", "1", "b", "−1", "0", "≥ 1"]  # titles, then each bar's three labels
    assert svg.count("<image") == 4  # per panel: the landscape and its colour bar
    assert svg.count('<circle cx="') == 2  # the marked key, once per panel


def test_grid_is_numpys_linspace_so_every_processor_draws_the_same():
    grid = key_grid(3.0, 21)
    expected = torch.from_numpy(np.linspace(-3.0, 3.0, 21)).float()  # float64, then rounded once
    assert torch.equal(grid[0, :, 0], expected) and torch.equal(grid[:, 0, 1], expected.flip(0))


def cancels(spread, aligned, bound):  # notebook 2's first cause: the signs of w_v cancel
    return aligned > 3 * spread


def features_differ_little(spread, aligned, bound):  # its second: the two keys' features differ far less than 2
    return bound > 2.5 * aligned


def test_spread_parts_add_up_and_match_the_scores():
    g = torch.Generator().manual_seed(0)
    features, w_v = torch.tanh(2 * torch.randn(6, 8, generator=g)), torch.randn(8, generator=g)
    spread, aligned, bound = spread_parts(features, w_v)
    scores = features @ w_v
    assert math.isclose(spread, (scores.max() - scores.min()).item(), rel_tol=1e-5)
    assert spread <= aligned + 1e-12 <= bound + 1e-12 and math.isclose(bound, 2 * w_v.abs().sum().item(), rel_tol=1e-6)


def test_score_spreads_is_spread_parts_row_by_row_over_the_valid_keys():
    g = torch.Generator().manual_seed(1)
    features, w_v = torch.tanh(2 * torch.randn(3, 4, 6, 8, generator=g)), torch.randn(8, generator=g)  # (3, 4, K=6, h)
    valid = torch.rand(3, 4, 6, generator=g) < 0.6
    valid[..., :2] = True  # at least 2 keys a row
    spread, aligned, bound = score_spreads(features, w_v, valid)  # (3, 4) each
    assert spread.shape == aligned.shape == (3, 4) and spread.dtype == torch.float64
    for i in range(3):
        for j in range(4):
            expected = spread_parts(features[i, j][valid[i, j]], w_v)  # only that row's valid keys
            assert math.isclose(spread[i, j], expected[0], abs_tol=1e-12) and math.isclose(
                aligned[i, j], expected[1], abs_tol=1e-12
            )
            assert bound == expected[2]
    # A key outside the valid ones, however high it would score, changes nothing.
    loud = features.clone()
    loud[..., 5, :] = w_v.sign()  # the highest score any key can have
    far = valid.clone()
    far[..., 5] = False
    torch.testing.assert_close(score_spreads(loud, w_v, far)[:2], score_spreads(features, w_v, far)[:2])


def test_each_cause_of_a_mild_preference_is_rejected_where_it_is_absent():
    w_v = torch.tensor([1.0, -1.0, 1.0, -1.0])
    # Signs aligned with the features, and small differences: no cancellation, only the second cause.
    aligned_signs = torch.stack([0.3 * w_v.sign(), -0.3 * w_v.sign(), torch.zeros(4)])  # (K=3, h): top, bottom, middle
    parts = spread_parts(aligned_signs, w_v)
    assert math.isclose(parts[0], parts[1]) and not cancels(*parts) and features_differ_little(*parts)
    # Features at -1 / +1 (the bound's whole swing), signs mixed: only cancellation.
    swing = torch.tensor([[1.0, 1.0, 1.0, -1.0], [-1.0, -1.0, -1.0, 1.0]])  # shares 2, -2, 2, 2
    parts = spread_parts(swing, torch.tensor([1.0, -1.0, 0.1, 1.0]))
    assert math.isclose(parts[1], parts[2]) and not features_differ_little(*parts)
    # Both causes, as in notebook 2: mixed signs and small differences.
    both = torch.tensor([[0.3, -0.25, 0.3, -0.25], [0.0, 0.0, 0.0, 0.0]])  # shares 0.3, -0.25, 0.3, -0.25
    parts = spread_parts(both, torch.ones(4))
    assert cancels(*parts) and features_differ_little(*parts)
