"""Notebook 4's claims: what more heads cost in memory (a sweep of shapes), and what trained heads learn (414 seeds).

4.10.1 measures the peak memory of one `MultiHeadAttention` call at L = 128, h = 64 for H = 1, 2, 4, 8: it grows by two
float32 L x L matrices per extra head (a head's scores and weights, alive together in `masked_softmax`). That moment
is the call's peak only when the L x L matrices outweigh the (B, L, h) tensors of the other steps: at every shape
of the sweep with L >= h it grows by exactly two, at every one with L < h by something else. The sweep: B = 1, 2;
h = 16, 32, 64; H = 2, 4, 8; L = h, h + 5, 2h (54 shapes), and L = h / 4 + 1, h / 2, h - 3 (54 more).

4.7 shows the heads of notebook 10's trained model (2 layers of 2 heads, attention only) on held-out sequences, and
says what its heads learn over 414 training seeds (the two claims its first reading quotes); 4.10.7 prints what the 414
seeds have in common and quotes the rest. Those claims read notebook 10's per-seed records
(`data/records/induction_seed<N>.json`, `induction_claims`): each seed's previous-token and induction scores per
head, and its accuracy with each head switched off, all on the same 256 held-out sequences.
"""

from __future__ import annotations

import functools
import itertools
import math

import torch

from ..layers import MultiHeadAttention
from .claims import claim, record
from .cost import peak_memory
from .induction_claims import SEEDS

__all__ = [
    "LONG",
    "SHORT",
    "costlier_head",
    "extra_per_head",
    "head_peak",
    "lopsided",
    "previous_head",
]

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


# What trained heads learn: notebook 10's model over its 414 seeds (`induction_claims.SEEDS`), read from its records (4.7).


def lopsided(rec: dict, layer: int) -> float:
    """How much more accuracy switching off one head of `layer` costs than switching off the other (0: the two heads
    are interchangeable, as far as the model's accuracy can tell)."""
    return abs(rec["ablated"][f"{layer}.0"] - rec["ablated"][f"{layer}.1"])


def costlier_head(rec: dict, layer: int) -> float:
    """The accuracy lost by switching off the one head of `layer` that costs more."""
    return rec["accuracy"] - min(rec["ablated"][f"{layer}.0"], rec["ablated"][f"{layer}.1"])


def previous_head(rec: dict) -> int:
    """The layer-0 head with the higher previous-token score (0 or 1)."""
    return rec["previous_head"]


def _rec(seed: int) -> dict:
    return record("induction", seed)


_TRAINED = {"notebook": "04", "section": "4.7", "source": "seeds", "family": "induction", "seeds": SEEDS}
_TRAINED["n"] = len(SEEDS)
_FURTHER = {**_TRAINED, "section": "4.10.7"}  # quoted only in Going further, beside the seeds' summary

claim(
    **_TRAINED,
    words="in all but the slowest seed a layer-0 head puts most of its weight on the previous token",
    measure=lambda s: _rec(s)["previous_score"],
    holds=lambda v: v > 0.5,
    rate=413 / 414,
    wrong_story="all heads learn the same pattern (that head's weight on the token after the earlier copy)",
    wrong=lambda s: _rec(s)["layer0_induction"][previous_head(_rec(s))],
    quote=lambda r: (
        f"in {r.count} of the {r.n} seeds a layer-0 head puts more than half of its weight on the previous token "
        f"({r.low:.2f} to {r.high:.2f})"
    ),
)
claim(
    **_FURTHER,
    every=True,
    words="in every seed both layer-1 heads look at the token after the earlier copy, which no layer-0 head does",
    measure=lambda s: min(_rec(s)["induction_at"]["150"]),
    holds=lambda v: v > 0.5,
    rate=1.0,
    wrong_story="the two layers learn the same job (the layer-0 heads' weight on that token)",
    wrong=lambda s: max(_rec(s)["layer0_induction"]),
    quote=lambda r: (
        f"both layer-1 heads put at least {r.low:.2f} of theirs on the token after the earlier copy, where no layer-0 "
        f"head puts as much as {math.ceil(100 * max(max(_rec(s)['layer0_induction']) for s in SEEDS)) / 100:.2f}"
    ),
)
claim(
    **_TRAINED,
    words="which layer-0 head becomes the previous-token head is up to the seed",
    measure=lambda s: previous_head(_rec(s)),
    holds=lambda v: v == 1,
    rate=201 / 414,
    wrong_story="head 0 is always the previous-token head, as in the run shown",
    wrong=lambda s: 0,
    quote=lambda r: f"head 1 in {r.count} of the {r.n} seeds, head 0 in the other {r.n - r.count}",
)
claim(
    **_FURTHER,
    words="the two layer-0 heads are not interchangeable: switching off one costs more than 0.1 more than the other",
    measure=lambda s: lopsided(_rec(s), 0),
    holds=lambda v: v > 0.1,
    rate=366 / 414,
    wrong_story="the two heads of a layer are interchangeable, as the two layer-1 heads are (the same measure there)",
    wrong=lambda s: lopsided(_rec(s), 1),
    quote=lambda r: f"In {r.count} of the {r.n} seeds, switching off one layer-0 head costs more than 0.1",
)
claim(
    **_FURTHER,
    every=True,
    words="the two layer-1 heads do the same job: switching off either one costs little, as the other still does it",
    measure=lambda s: costlier_head(_rec(s), 1),
    holds=lambda v: v < 0.3,
    rate=1.0,
    wrong_story="each head does a job no other head does (switching off one costs what switching off both does)",
    wrong=lambda s: _rec(s)["accuracy"] - _rec(s)["ablated_layer1"],
    quote=lambda r: f"switching off either costs at most {r.high:.2f}",
)
claim(
    **_FURTHER,
    every=True,
    words="switching off both layer-1 heads leaves 0.1 or less (chance: 1/32)",
    measure=lambda s: _rec(s)["ablated_layer1"],
    holds=lambda v: v < 0.1,
    rate=1.0,
    wrong_story="the model can do without one layer's heads (switch off only the layer-1 head that costs more)",
    wrong=lambda s: _rec(s)["accuracy"] - costlier_head(_rec(s), 1),
    quote=lambda r: f"switching off both leaves {r.low:.2f} to {r.high:.2f}",
)
