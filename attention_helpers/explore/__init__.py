"""Explorers: controls (ipywidgets) over pictures drawn in advance, switched in the browser without a kernel.

- `model`: control values -> one picture per combination (plain Python, errors kept);
- `view`: nested `Stack`s linked to the controls with `jsdlink`, rows that wrap in narrow windows;
- `controls`: which values each control takes, and the stand-ins for controls a stack cannot follow;
- `picture`: `PictureExplorer(draw, controls)` for any SVG picture;
- `heatmap`, `valid_lens`: `HeatmapExplorer`, `explore_valid_lens`, `explore_masked_softmax` (imported from
  `attention_helpers.widgets`, which gathers the public names);
- `instrument`: opt-in hooks for the browser test and benchmark.
"""

from __future__ import annotations

from .base import Explorer
from .instrument import enabled, instrument
from .model import MAX_FRAMES
from .picture import PictureExplorer

__all__ = ["MAX_FRAMES", "Explorer", "PictureExplorer", "enabled", "instrument"]
