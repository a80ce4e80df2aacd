"""Notebook 0's claim about the committed date translator's alignment, over the 2,000 held-out dates.

Notebook 0 opens with one held-out date (the first of `make_dates(2000, "held_out", seed=0)`, notebook 6's held-out
set) and checks that every digit its input writes puts more than half of its weight on its own field. Each held-out
date is a random draw of a date and a format: this says on how many of the 2,000 the same check passes.
"""

from __future__ import annotations

import functools

import torch

# under private names: the module only registers claims, and exports nothing (tests/test_exports.py)
from . import dates_train as _dt
from .claims import claim as _claim
from .dates import make_dates as _make_dates

__all__: list[str] = []


@functools.cache
def _weights() -> tuple[object, torch.Tensor]:
    """(the held-out dates, the committed additive model's weights on them (N, 10, L)): translated once."""
    dates = _make_dates(_dt.HELD_OUT_SIZE, "held_out", seed=0)
    _, weights = _dt.translate(_dt.load_translator("additive"), list(dates.inputs), warn=False)
    return dates, weights


@functools.cache
def _least_mass(shuffled: bool) -> torch.Tensor:
    """(N,): each date's smallest weight that a digit its input writes puts on its own field. shuffled: the same
    weights with each date's columns in a random order (as sharp, in the wrong places), as notebook 6's control."""
    dates, weights = _weights()
    if shuffled:
        g = torch.Generator().manual_seed(0)
        weights = weights.clone()
        for i, text in enumerate(dates.inputs):
            weights[i, :, : len(text)] = weights[i, :, torch.randperm(len(text), generator=g)]
    masses = torch.cat(list(_dt.field_mass(weights, dates).values()), dim=1)  # (N, 8): NaN where unwritten
    return masses.nan_to_num(nan=1.0).amin(-1)


_claim(
    notebook="00",
    section="0",
    source="draws",
    n=_dt.HELD_OUT_SIZE,
    words="every output digit that the input writes puts more than half of its weight on its own field, as in the date shown",
    measure=lambda i: _least_mass(False)[i].item(),
    holds=lambda v: v > 0.5,
    rate=1703 / 2000,
    wrong_story="the weights are as sharp but fall anywhere in the text (each date's columns shuffled)",
    wrong=lambda i: _least_mass(True)[i].item(),
    quote=lambda r: f"on {r.count:,} of the {r.n:,} dates it never saw ({round(100 * r.share)} %)",
)
