"""Notebook 0's claims about kernel regression (0.3), checked on 50 draws of its data (seeds 0-49).

Each draw is the notebook's data with another seed: 20 training inputs uniform on [0, 5], sorted, and their
targets `2 sin x + x^0.8` plus noise of standard deviation 0.5. The notebook shows seed 0; these say how often what
it shows holds for the others.
"""

from __future__ import annotations

import functools

import torch

# under private names: the module only registers claims, and exports nothing (tests/test_exports.py)
from . import kernel_regression as _kr
from .claims import claim as _claim

__all__: list[str] = []

_DRAWS = 50
_BANDWIDTHS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)  # the notebook's table


def _truth(x: torch.Tensor) -> torch.Tensor:
    return 2 * torch.sin(x) + x**0.8


@functools.cache
def _data(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(x_train (20,), y_train (20,)): the notebook's cell, with `seed`."""
    g = torch.Generator().manual_seed(seed)
    x_train = torch.sort(torch.rand(20, generator=g) * 5).values  # (n,)
    y_train = _truth(x_train) + 0.5 * torch.randn(20, generator=g)  # (n,)
    return x_train, y_train


def _miss(seed: int, bandwidth: float = 0.05) -> float:
    """How far the fit misses the training values at most, over the largest noise."""
    x, y = _data(seed)
    return ((_kr.nadaraya_watson(x, x, y, bandwidth) - y).abs().max() / (y - _truth(x)).abs().max()).item()


def _nearest_weight(seed: int, bandwidth: float = 0.05) -> float:
    """The smallest weight, over the notebook's 10 queries, that a query gives its nearest training point."""
    x, _ = _data(seed)
    queries = torch.linspace(0, 5, 10)  # (Q,)
    nearest = (queries[:, None] - x).abs().argmin(-1)  # (Q,)
    return _kr.nadaraya_watson_weights(queries, x, bandwidth).gather(1, nearest[:, None]).min().item()


def _neighbour(seed: int, point: str, bandwidth: float = 0.05) -> float:
    """How far (in bandwidths) the nearest other training point lies from the worst-fitted ("miss") or the noisiest
    ("noise") training point."""
    x, y = _data(seed)
    gaps = (x[:, None] - x).abs() + torch.eye(len(x)) * 1e9  # (n, n), a point is not its own neighbour
    if point == "miss":
        i = (_kr.nadaraya_watson(x, x, y, bandwidth) - y).abs().argmax()
    else:
        i = (y - _truth(x)).abs().argmax()
    return (gaps[i].min() / bandwidth).item()


def _best_bandwidth(seed: int, against: str = "truth") -> float:
    """The table's bandwidth with the smallest error against the true function (or against the training values)."""
    x, y = _data(seed)
    if against == "truth":
        grid = torch.linspace(0, 5, 51)
        errors = [(_kr.nadaraya_watson(grid, x, y, s) - _truth(grid)).pow(2).mean().item() for s in _BANDWIDTHS]
    else:
        errors = [(_kr.nadaraya_watson(x, x, y, s) - y).pow(2).mean().item() for s in _BANDWIDTHS]
    return _BANDWIDTHS[errors.index(min(errors))]


_claim(
    notebook="00",
    section="0.3",
    source="draws",
    n=_DRAWS,
    words="with σ = 0.05 the fit misses the training values by less than half of the largest noise",
    measure=_miss,
    holds=lambda v: v < 0.5,
    rate=29 / 50,
    wrong_story="any small σ follows the points as closely (σ = 0.1)",
    wrong=lambda i: _miss(i, 0.1),
    quote=lambda r: f"as in {r.count} of {r.n} draws of the data; in all",
)

_claim(
    notebook="00",
    section="0.3",
    source="draws",
    n=_DRAWS,
    every=True,
    words="the fit's largest miss is at a training point with a neighbour closer than 2σ (it averages the two)",
    measure=lambda i: _neighbour(i, "miss"),
    holds=lambda v: v < 2,
    rate=1.0,
    wrong_story="the largest miss is where the noise is largest",
    wrong=lambda i: _neighbour(i, "noise"),
    quote=lambda r: f"in all {r.n}, its largest miss is at a point with a neighbour closer than `2σ`",
)

_claim(
    notebook="00",
    section="0.3",
    source="draws",
    n=500,  # cheap (1 s for all): enough draws to see the rare ones that fall outside
    words="the error against the true function is smallest in between, at σ from 0.1 to 0.5",
    measure=_best_bandwidth,
    holds=lambda v: 0.1 <= v <= 0.5,
    rate=497 / 500,
    wrong_story="the fit closest to the training values (the sharpest) is closest to the truth",
    wrong=lambda i: _best_bandwidth(i, "training values"),
    quote=lambda r: f"in {r.count} of {r.n} draws of the data, at `σ` from 0.1 to 0.5",
)

_claim(
    notebook="00",
    section="0.3",
    source="draws",
    n=_DRAWS,
    words="at σ = 0.05 each query gives more than half of its weight to its nearest training point",
    measure=_nearest_weight,
    holds=lambda v: v > 0.5,
    rate=35 / 50,
    wrong_story="σ = 0.1 is as sharp",
    wrong=lambda i: _nearest_weight(i, 0.1),
    quote=lambda r: f"more than half of it in {r.count} of {r.n} draws of the data",
)
