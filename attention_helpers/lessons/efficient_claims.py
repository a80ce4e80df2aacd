"""Notebook 8's count of the scores a causal sliding window computes in tiles, checked on a sweep (issue 35's standard).

`tiled_attention` computes the (b x b) tiles that `block_plan` marks. With a causal window w, a block of b queries
starting at q0 needs the key blocks from the one holding key q0 - w + 1 to its own diagonal block:
T = ceil((w - 1) / b) + 1 tiles (the first T - 1 query blocks fewer: there are no keys before 0). For L = n·b that
is b²·(n·T - T(T - 1)/2) scores. The rule of thumb it replaces, L·(w + b), was sampled only at windows that are
multiples of b; just past a multiple the count is nearly twice it. The sweep: L = 4096; b = 16, 32, 64, 128;
w = 1, 2, 3, 5, b/2 + 1, b - 1, b, b + 1, b + 2, 2b + 1, 3b - 5, 100, 300, 512 (56 points, w <= L / 8).
"""

from __future__ import annotations

import math

from .claims import claim
from .efficient import block_plan

__all__ = ["LENGTH", "WINDOW_SWEEP", "window_scores", "window_scores_formula"]

LENGTH = 4096
WINDOW_SWEEP = [
    (b, w)
    for b in (16, 32, 64, 128)
    for w in (1, 2, 3, 5, b // 2 + 1, b - 1, b, b + 1, b + 2, 2 * b + 1, 3 * b - 5, 100, 300, 512)
]  # (block size b, causal window w)


def window_scores(length: int, block: int, window: int) -> int:
    """The scores tiled_attention computes for a causal window: the tiles block_plan marks, block² each."""
    return int(block_plan(length, length, block, block, causal=True, window=window).sum()) * block * block


def window_scores_formula(length: int, block: int, window: int) -> int:
    """b²·(n·T - T(T - 1)/2), n = L / b query blocks, T = ceil((w - 1) / b) + 1 tiles per query block (T <= n)."""
    n, tiles = length // block, math.ceil((window - 1) / block) + 1
    return block * block * (n * tiles - tiles * (tiles - 1) // 2)


def _rule_of_thumb(i: int) -> float:
    b, w = WINDOW_SWEEP[i]
    return window_scores(LENGTH, b, w) / (LENGTH * (w + b))


claim(
    notebook="08",
    section="8.7.3",
    source="draws",
    n=len(WINDOW_SWEEP),
    words="a causal window w in tiles of b computes b²·(n·T - T(T - 1)/2) scores, T = ceil((w - 1)/b) + 1",
    measure=lambda i: window_scores(LENGTH, *WINDOW_SWEEP[i]) / window_scores_formula(LENGTH, *WINDOW_SWEEP[i]),
    holds=lambda v: v == 1.0,
    rate=1.0,
    wrong_story="about L·(w + b) scores (the rule of thumb sampled at multiples of b)",
    wrong=_rule_of_thumb,
    quote=lambda r: f"exact at each of {r.count} points",
)
claim(
    notebook="08",
    section="8.7.3",
    source="draws",
    n=len(WINDOW_SWEEP),
    words="the count lies between 0.9 and 1.95 times L·(w + b)",
    measure=_rule_of_thumb,
    holds=lambda v: 0.9 <= v <= 1.95,
    rate=1.0,
    wrong_story="about L·w scores (the window alone, no tiles)",
    wrong=lambda i: window_scores(LENGTH, *WINDOW_SWEEP[i]) / (LENGTH * WINDOW_SWEEP[i][1]),
    quote=lambda r: f"between {r.low:.2f} and {r.high:.2f} times `L · (w + b)`",
)
