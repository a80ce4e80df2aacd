"""Explorers: controls (ipywidgets) over pictures drawn in advance, switched in the browser without a kernel.

- `model`: control values -> one picture per combination (plain Python, errors kept);
- `view`: nested `Stack`s linked to the controls with `jsdlink`, rows that wrap in narrow windows;
- `picture`: `PictureExplorer(draw, controls)` for any SVG picture;
- `instrument`: opt-in hooks for the browser test and benchmark.
Heatmap explorers (`HeatmapExplorer`, `explore_valid_lens`, ...) are in `attention_helpers.widgets`.
"""

from __future__ import annotations

from .base import Explorer
from .instrument import enabled, instrument
from .model import MAX_FRAMES
from .picture import PictureExplorer

__all__ = ["MAX_FRAMES", "Explorer", "PictureExplorer", "enabled", "instrument"]
