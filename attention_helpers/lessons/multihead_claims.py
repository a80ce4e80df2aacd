"""Notebook 4's claim about what more heads cost in memory, checked on a sweep of shapes (issue 35's standard).

4.5 measures the peak memory of one `MultiHeadAttention` call at L = 128, h = 64 for H = 1, 2, 4, 8: it grows by two
float32 L x L matrices per extra head (a head's scores and weights, alive together in `masked_softmax`). That moment
is the call's peak only when the L x L matrices outweigh the (B, L, h) tensors of the other steps: at every shape
of the sweep with L >= h it grows by exactly two, at every one with L < h by something else. The sweep: B = 1, 2;
h = 16, 32, 64; H = 2, 4, 8; L = h, h + 5, 2h (54 shapes), and L = h / 4 + 1, h / 2, h - 3 (54 more).
"""

from __future__ import annotations

import functools
import itertools

import torch

from ..layers import MultiHeadAttention
from .claims import claim
from .cost import peak_memory

__all__ = ["LONG", "SHORT", "extra_per_head", "head_peak"]

_GRID = list(itertools.product((1, 2), (16, 32, 64), (2, 4, 8)))  # (B, h, H)
LONG = [(B, L, h, H) for B, h, H in _GRID for L in (h, h + 5, 2 * h)]  # (B, L, h, H) with L >= h
SHORT = [(B, L, h, H) for B, h, H in _GRID for L in (h // 4 + 1, h // 2, h - 3)]  # the same with L < h


@functools.cache
def head_peak(B: int, L: int, h: int, H: int) -> int:
    """Bytes: the peak memory of one self-attention call of MultiHeadAttention(h, H) on (B, L, h) inputs."""
    with torch.random.fork_rng():  # the layer's initial weights do not move the caller's random numbers
        layer = MultiHeadAttention(h, h, h, num_hiddens=h, num_heads=H, dropout=0.0).eval()
    x = torch.zeros(B, L, h)  # (B, L, h): only the shapes matter
    with torch.no_grad():
        return peak_memory(lambda: layer(x, x, x))


def extra_per_head(B: int, L: int, h: int, H: int) -> float:
    """How much the peak grows per extra head, going from 1 to H heads, in float32 (B, L, L) matrices."""
    return (head_peak(B, L, h, H) - head_peak(B, L, h, 1)) / ((H - 1) * B * L * L * 4)


claim(
    notebook="04",
    section="4.10.1",
    source="draws",
    n=len(LONG),
    words="with L ≥ h the peak grows by exactly two float32 L × L matrices per extra head",
    measure=lambda i: extra_per_head(*LONG[i]),
    holds=lambda v: v == 2.0,
    rate=1.0,
    wrong_story="two per extra head at any length (the same B, h and H with L < h)",
    wrong=lambda i: extra_per_head(*SHORT[i]),
    quote=lambda r: f"at each of {r.count} shapes with `L ≥ h`",
)
claim(
    notebook="04",
    section="4.10.1",
    source="draws",
    n=len(SHORT),
    words="with h / 4 < L < h the peak grows by another amount per extra head, 1.6 to 4.8 L × L matrices",
    measure=lambda i: extra_per_head(*SHORT[i]),
    holds=lambda v: v != 2.0,
    rate=1.0,
    wrong_story="the condition L ≥ h changes nothing (the same B, h and H with L ≥ h)",
    wrong=lambda i: extra_per_head(*LONG[i]),
    quote=lambda r: f"by {r.low:.1f} to {r.high:.1f} of them at each of {r.count} shapes with `h/4 < L < h`",
)
