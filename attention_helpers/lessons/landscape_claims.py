"""Notebook 2's claims: about random additive layers, checked on 1,000 layers (seeds 0-999: fresh layers 1000-1049
gave 35 of 50 for the cancellation that 0-49 gave 40 of 50, and the next reader's 7000-7999 gave 715 of 1,000 where
0-99 gave 79 of 100), and about the trained date translator, read from notebook 6's 71 training seeds (the `dates`
records).

2.1: what the translator gets right without attention and with additive attention (held-out exact match).

2.4: where the trained translator's digits put their largest weight, per field (`alignment_report(by="argmax")`).

2.8.1: why an untrained layer prefers one key only mildly. For each layer of the demo's size (query 20, key 2,
`h = 8`) and a random query, 1,000 draws of six keys (standard deviation 3): the median spread of the scores, the
same with every unit's share of one sign (`aligned`), and the bound `2 Σ|w_v|` (`landscape.spread_parts`). Small
feature differences take the factor bound / aligned, cancellation aligned / spread.

2.8.5: whether a longer query flattens the additive landscape of a 2-D layer (`h = 8`): its score's range over the
plane of keys, at length 8 against length 0.5, at the explorer's 8 angles (on 5,000 layers).

2.8.6: the trained date translator's `Σ|w_v|` against fresh layers of its width (`h = 32`).
"""

from __future__ import annotations

import functools
import math

import torch

# under private names: the module only registers claims, and exports nothing (tests/test_exports.py)
from ..layers import AdditiveAttention as _AdditiveAttention
from . import landscape as _landscape
from .claims import claim as _claim
from .claims import percent_floor as _percent_floor
from .claims import record as _record
from .dates_claims import SEEDS as _DATES_SEEDS

__all__: list[str] = []

_LAYERS = 1000
_PLANE_LAYERS = 5000  # 2.8.5's planes are cheap (5,000 layers in 3 s): two fresh readers' 3,000 layers gave 67.6 % and
# 88.0 % where layers 0-999 gave 697 and 904 of 1000


def _layer(seed: int, query_size: int, key_size: int, h: int) -> _AdditiveAttention:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return _AdditiveAttention(key_size=key_size, query_size=query_size, num_hiddens=h, dropout=0.0).eval()


@functools.cache
def _factors(seed: int, scale: float = 3.0, signs: str = "random") -> tuple[float, float]:
    """(cancellation, features) of layer `seed` over 1,000 draws of six keys of standard deviation `scale`:
    median aligned / median spread, and bound / median aligned. signs="agree": the layer rebuilt so that no share can
    cancel (W_k's rows all along one direction, w_v all positive: every unit's feature moves the same way)."""
    layer = _layer(seed, 20, 2, 8)
    g = torch.Generator().manual_seed(seed)
    query = torch.randn(20, generator=g)  # (d_q,)
    keys = scale * torch.randn(1000, 6, 2, generator=g)  # (N, 6, d_k)
    W_k, w_v = layer.W_k.weight.detach(), layer.w_v.weight.detach()[0]  # (h, d_k), (h,)
    if signs == "agree":
        W_k, w_v = W_k[:, :1].abs() * W_k[0] / W_k[0].norm(), w_v.abs()  # (h, 1) * (d_k,) -> (h, d_k)
    with torch.no_grad():
        features = torch.tanh(layer.W_q(query) + keys @ W_k.T)  # (h,) + (N, 6, h) -> (N, 6, h)
    spread, aligned, bound = _landscape.score_spreads(features, w_v)  # (N,), (N,), float
    return (aligned.median() / spread.median()).item(), bound / aligned.median().item()


_ANGLES = torch.arange(0, 360, 45, dtype=torch.float64) * math.pi / 180  # the explorer's 8 angles
_PLANE = _landscape.key_grid(3.0, 21).reshape(-1, 2).double()  # (P, 2): the explorer's plane of keys


@functools.cache
def _ranges(seed: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The additive score's range over the plane of keys at each of the 8 angles: at length 0.5, and at length 8."""
    layer = _layer(seed, 2, 2, 8)
    W_q, W_k, w_v = (p.detach().double() for p in (layer.W_q.weight, layer.W_k.weight, layer.w_v.weight[0]))
    directions = torch.stack([_ANGLES.cos(), _ANGLES.sin()], dim=-1)  # (A, 2)
    out = []
    for length in (0.5, 8.0):
        hidden = (length * directions @ W_q.T)[:, None, :] + (_PLANE @ W_k.T)[None]  # (A, 1, h) + (1, P, h)
        scores = torch.tanh(hidden) @ w_v  # (A, P)
        out.append(tuple((scores.amax(-1) - scores.amin(-1)).tolist()))
    return out[0], out[1]


def _shrink_every_angle(seed: int, longer: bool = True) -> float:
    """The largest ratio, over the angles, of the plane's range at length 8 to that at 0.5 (< 1: it shrinks at every
    angle). longer=False: the ratio the other way round (< 1: it grows at every angle)."""
    short, long = _ranges(seed)
    return max(b / a if longer else a / b for a, b in zip(short, long, strict=True))


def _shrink_on_average(seed: int, longer: bool = True) -> float:
    """The plane's range at length 8 over that at 0.5, each averaged over the angles (or the other way round)."""
    short, long = (sum(r) for r in _ranges(seed))
    return long / short if longer else short / long


@functools.cache
def _translator_sum(trained: bool) -> float:
    """Σ|w_v| of the committed date translator (h = 32): trained, or at step 0 (its first checkpoint)."""
    from .dates_train import load_checkpoints, load_translator

    model = load_translator("additive") if trained else load_checkpoints([0])[0]
    return model.attention.w_v.weight.abs().sum().item()


@functools.cache
def _fresh_sum(seed: int) -> float:
    """Σ|w_v| of a fresh layer of the translator's size (query and key 64, h = 32)."""
    return _layer(seed, 64, 64, 32).w_v.weight.abs().sum().item()


def _growth(seed: int, trained: bool = True) -> float:
    """The trained translator's Σ|w_v| over that of fresh layer `seed` of its width; trained=False: its untrained
    state's (the step-0 checkpoint) in place of the trained one."""
    return _translator_sum(trained) / _fresh_sum(seed)


_claim(
    notebook="02",
    section="2.8.1",
    source="draws",
    n=_LAYERS,
    every=True,
    words="small feature differences keep the median spread below the bound, by a factor of more than 1.05",
    measure=lambda i: _factors(i)[1],
    holds=lambda v: v > 1.05,
    rate=1.0,
    wrong_story="keys spread widely enough (standard deviation 30) swing every unit the whole way, as the bound assumes",
    wrong=lambda i: _factors(i, scale=30.0)[1],
    quote=lambda r: (
        f"small feature differences take a factor of more than 1.05 in every one ({r.median:.1f} in the median layer, "
        f"{r.middle()[0]:.1f} to {r.middle()[1]:.1f} in 9 layers of 10)"
    ),
)

_claim(
    notebook="02",
    section="2.8.1",
    source="draws",
    n=_LAYERS,
    words="the units' shares cancel, by a factor of more than 1.5 in most layers: nothing lines up w_v's signs "
    "with those of the feature differences",
    measure=lambda i: _factors(i)[0],
    holds=lambda v: v > 1.5,
    rate=698 / 1000,
    wrong_story="the signs line up (a layer whose W_k rows point one way and whose w_v is positive)",
    wrong=lambda i: _factors(i, signs="agree")[0],
    quote=lambda r: (
        f"cancellation one of {r.median:.1f} ({r.middle()[0]:.1f} to {r.middle()[1]:.1f} in 9 of 10), more than 1.5 "
        f"in {r.count} of {r.n} layers"
    ),
)

_claim(
    notebook="02",
    section="2.8.5",
    source="draws",
    n=_PLANE_LAYERS,
    words="a longer query (8 against 0.5) shrinks the additive score's range over the plane at every angle",
    measure=_shrink_every_angle,
    holds=lambda v: v < 1,
    rate=3390 / 5000,
    wrong_story="a longer query steepens the additive landscape, as it steepens the dot product's",
    wrong=lambda i: _shrink_every_angle(i, longer=False),
    quote=lambda r: f"the range over the plane shrinks at every angle in {r.count:,} of {r.n:,}",
)

_claim(
    notebook="02",
    section="2.8.5",
    source="draws",
    n=_PLANE_LAYERS,
    words="a longer query shrinks the additive score's range over the plane on average over the angles",
    measure=_shrink_on_average,
    holds=lambda v: v < 1,
    rate=4424 / 5000,
    wrong_story="a longer query steepens the additive landscape, as it steepens the dot product's",
    wrong=lambda i: _shrink_on_average(i, longer=False),
    quote=lambda r: f"on average over the angles in {r.count:,} of {r.n:,}",
)

_claim(
    notebook="02",
    section="2.8.6",
    source="draws",
    n=_LAYERS,
    every=True,
    words="training grew Σ|w_v| more than 4.5-fold: the trained layer's against fresh layers of its width (h = 32)",
    measure=_growth,
    holds=lambda v: v > 4.5,
    rate=1.0,
    wrong_story="the trained Σ|w_v| is only what a layer of its width starts with (as its own step 0 is)",
    wrong=lambda i: _growth(i, trained=False),
    quote=lambda r: (
        f"more than 4.5 times that of each of {r.n} fresh layers of its width ({r.median:.1f} times in the median"
    ),
)


# --- the trained translator, over notebook 6's training seeds (records: data/records/dates_seed<N>.json) ---------

_DATES = {"source": "seeds", "family": "dates", "seeds": _DATES_SEEDS, "n": len(_DATES_SEEDS)}


def _exact(seed: int, model: str) -> float:
    """Held-out exact match of the translator trained with `seed`: "none" (no attention) or "additive"."""
    return _record("dates", seed)[model]["exact_match"]


def _field_low(seed: int, measure: str = "argmax") -> float:
    """The weakest field's share of held-out dates whose digits put their largest weight on it (or, measure=
    "shuffled_argmax", the same for the weights with each date's columns shuffled: as sharp, in the wrong places)."""
    values = _record("dates", seed)["additive"][measure]
    return min(values.values()) if measure == "argmax" else max(values.values())


_claim(
    notebook="02",
    section="2.1",
    **_DATES,
    words="without attention the translator writes fewer than half of the held-out dates exactly right",
    measure=lambda s: _exact(s, "none"),
    holds=lambda v: v < 0.5,
    rate=1.0,
    wrong_story="one summary vector of the input serves as well (the additive model's accuracy)",
    wrong=lambda s: _exact(s, "additive"),
    quote=lambda r: f"without attention it writes {round(r.low * 100)} % to {round(r.high * 100)} % exactly right",
)

_claim(
    notebook="02",
    section="2.1",
    **_DATES,
    every=True,
    words="with additive attention the translator writes 99.5 % or more of the held-out dates exactly right",
    measure=lambda s: _exact(s, "additive"),
    holds=lambda v: v >= 0.995,
    rate=1.0,
    wrong_story="attention makes no difference at this budget (the model without it)",
    wrong=lambda s: _exact(s, "none"),
    quote=lambda r: f"with it {math.floor(round(r.low * 1000, 6)) / 10} % or more",
)

_claim(
    notebook="02",
    section="2.4",
    **_DATES,
    every=True,
    words="in each seed, each field's digits put their largest weight on the field for 72 % or more of the dates (76 % until fresh seed 52: 72.8 %)",
    measure=_field_low,
    holds=lambda v: v >= 0.72,
    rate=1.0,
    wrong_story="any weights as sharp would score as high (each date's columns shuffled)",
    wrong=lambda s: _field_low(s, "shuffled_argmax"),
    quote=lambda r: (
        f"{_percent_floor(r.low)} % or more of the held-out dates, per field, in each of the {r.n} training seeds"
    ),
)
