"""landscape_claims measures notebook 2's random layers: its batched plane ranges are additive_landscape's, and its
two factors of 2.4 multiply to bound / spread."""

import math

import torch

from attention_helpers.lessons import landscape_claims as lc
from attention_helpers.lessons.landscape import additive_landscape, key_grid


def test_the_batched_ranges_are_additive_landscapes():
    layer = lc._layer(3, 2, 2, 8)
    W_q, W_k, w_v = layer.W_q.weight.detach(), layer.W_k.weight.detach(), layer.w_v.weight.detach()[0]
    plane = key_grid(3.0, 21)
    for length, ranges in zip((0.5, 8.0), lc._ranges(3), strict=True):
        for angle, got in zip(range(0, 360, 45), ranges, strict=True):
            q = length * torch.tensor([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
            scores = additive_landscape(q, plane, W_q, W_k, w_v)
            assert math.isclose(got, (scores.max() - scores.min()).item(), rel_tol=1e-5, abs_tol=1e-6)


def test_no_share_cancels_in_the_layer_built_to_line_the_signs_up():
    assert math.isclose(lc._factors(0, signs="agree")[0], 1.0, rel_tol=1e-9)
    cancellation, features = lc._factors(0)
    assert cancellation >= 1 and features >= 1
