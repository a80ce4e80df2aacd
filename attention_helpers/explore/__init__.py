"""Explorers: controls (ipywidgets) over pictures drawn in advance, switched in the browser without a kernel.

The public names, also importable from `attention_helpers` itself:
- `HeatmapExplorer(compute, controls)`: heatmaps of attention weights for every combination of control values;
- `explore_valid_lens` / `explore_masked_softmax`: one `valid_lens` slider per batch row;
- `PictureExplorer(draw, controls)`: any SVG picture;
- `LabelledSVG(svg, description)`: one SVG picture shown with its text alternative wherever a notebook is read;
- `instrument(True)`: opt-in hooks for the browser test and benchmark (instance registry, timings).
Tests drive the explorers without a browser: set `explorer.controls[name].value`, read `explorer.svg`.

The modules:
- `model`: control values -> one picture per combination (plain Python, errors kept);
- `view`: nested `Stack`s linked to the controls with `jsdlink`, rows that wrap in narrow windows;
- `controls`: which values each control takes, and the stand-ins for controls a stack cannot follow;
- `picture`, `heatmap`, `valid_lens`: the explorers above;
- `svg`, `pictures`: the SVG drawing they use (heatmaps, curves, points in the plane, circles);
- `instrument`: opt-in hooks for the browser test and benchmark.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base import Explorer
from .instrument import enabled, instrument
from .model import MAX_FRAMES
from .picture import LabelledSVG, PictureExplorer

if TYPE_CHECKING:
    from .heatmap import HeatmapExplorer
    from .valid_lens import current_valid_lens, explore_masked_softmax, explore_valid_lens, valid_lens_sliders

# heatmaps load matplotlib's colour maps: imported on first use (PEP 562), so a PictureExplorer does not pay for it
_LAZY = {"HeatmapExplorer": "heatmap"} | dict.fromkeys(
    ["current_valid_lens", "explore_masked_softmax", "explore_valid_lens", "valid_lens_sliders"], "valid_lens"
)

__all__ = [
    "MAX_FRAMES",
    "Explorer",
    "HeatmapExplorer",
    "LabelledSVG",
    "PictureExplorer",
    "current_valid_lens",
    "enabled",
    "explore_masked_softmax",
    "explore_valid_lens",
    "instrument",
    "valid_lens_sliders",
]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
