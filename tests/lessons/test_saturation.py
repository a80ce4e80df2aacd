"""Nested-prefix weights and row statistics of notebook 3's explorer, against torch.softmax; section 3.7.1's
per-query measurement; the measures that notebook 3's claims (`saturation_claims`) repeat over many draws."""

import math

import pytest
import torch

from attention_helpers.lessons.saturation import nested_weights, row_stats, saturation_per_query, weights_svg
from attention_helpers.lessons.saturation_claims import _explorer_means, _steady_steps


def vectors(seed=0, D=64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(5, D, generator=g), torch.randn(7, D, generator=g)


@pytest.mark.parametrize("d, tau, scaled", [(1, 1.0, False), (16, 0.5, True), (64, 4.0, False), (64, 2.0, True)])
def test_nested_weights_match_softmax_on_prefixes(d, tau, scaled):
    q, k = vectors()
    scale = tau * math.sqrt(d) if scaled else tau
    expected = torch.softmax(q[:, :d] @ k[:, :d].T / scale, dim=-1)  # (Q, K)
    torch.testing.assert_close(nested_weights(q, k, d, tau, scaled), expected)


def test_unscaled_at_tau_sqrt_d_is_scaled_and_inputs_untouched():
    q, k = vectors()
    before = q.clone(), k.clone()
    torch.testing.assert_close(nested_weights(q, k, 16, 4.0, False), nested_weights(q, k, 16, 1.0, True))
    assert torch.equal(q, before[0]) and torch.equal(k, before[1])


def test_row_stats_one_hot_and_uniform():
    weights = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25]])
    top, entropy = row_stats(weights)
    torch.testing.assert_close(top, torch.tensor([1.0, 0.25], dtype=top.dtype))
    torch.testing.assert_close(entropy, torch.tensor([0.0, math.log(4)], dtype=entropy.dtype))


def test_entropy_rises_with_temperature():
    q, k = vectors(1)
    entropies = [row_stats(nested_weights(q, k, 32, tau, False))[1] for tau in (0.25, 1.0, 4.0)]
    assert all((a < b).all() for a, b in zip(entropies, entropies[1:], strict=False))


def test_svg_prints_every_row_and_uses_current_colour():
    q, k = vectors()
    weights = nested_weights(q, k, 8, 1.0, False)
    svg = weights_svg([("unscaled", weights)])
    top, entropy = row_stats(weights)
    assert "currentColor" in svg and all(f"{v:.2f}" in svg for v in top.tolist() + entropy.tolist())
    assert len(svg) < 6000


def test_saturation_per_query_tells_a_saturated_softmax_from_a_soft_one():
    def run(d, scale):
        return saturation_per_query(d, scale, torch.Generator().manual_seed(0), B=4, Q=25, K=16)

    top, entropy, score_grad, query_grad, gap = run(256, 1.0)
    assert all(x.shape == (100,) for x in (top, entropy, score_grad, query_grad, gap))
    assert ((top >= 1 / 16) & (top <= 1)).all() and (entropy <= math.log(16) + 1e-6).all() and (gap >= 0).all()
    assert all(
        torch.equal(a, b) for a, b in zip(run(256, 1.0), (top, entropy, score_grad, query_grad, gap), strict=True)
    )
    scaled = run(256, 1 / 16)
    assert (top > 0.99).float().mean() > 0.5 > (scaled[0] > 0.99).float().mean()  # unscaled rows saturate
    assert query_grad.median() < scaled[3].median() / 10  # the median query's gradient vanishes unscaled


def test_steady_steps_counts_the_steps_that_follow_the_trend():
    rising = tuple((0.2 * i, 2.0 - 0.4 * i) for i in range(5))  # max weight up, entropy down at every step
    assert _steady_steps(rising) == 8
    wobbly = ((0.3, 1.7), (0.35, 1.6), (0.33, 1.65), (0.4, 1.5), (0.38, 1.55))  # two steps back in each
    assert _steady_steps(wobbly) == 4
    # the explorer's own draw (draw 0): steady unscaled, not scaled (the claim's wrong story)
    assert _steady_steps(_explorer_means(0, False)) == 8 > _steady_steps(_explorer_means(0, True))


@pytest.mark.parametrize(
    "args, error, words",
    [
        ((torch.ones(5), torch.ones(7, 4), 2, 1.0, False), ValueError, "queries must be 2-D"),
        ((torch.ones(5, 3), torch.ones(7, 4), 2, 1.0, False), ValueError, "same size"),
        ((torch.ones(5, 4), torch.ones(7, 4), 5, 1.0, False), ValueError, "d must be"),
        ((torch.ones(5, 4), torch.ones(7, 4), 2, 0.0, False), ValueError, "tau"),
    ],
)
def test_bad_input_names_the_argument(args, error, words):
    with pytest.raises(error, match=words):
        nested_weights(*args)
