"""The additive score landscape of notebook 2's explorer, against the layer itself and the dot product."""

import math

import pytest
import torch

from attention_helpers import AdditiveAttention
from attention_helpers.landscape import additive_landscape, dot_plane, key_grid, landscape_svg, weight_ratio


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
