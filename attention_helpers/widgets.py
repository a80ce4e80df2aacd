"""Interactive explorers (ipywidgets): every control switches pictures drawn in advance, in the browser alone.

This module gathers the public names; the machinery lives in `attention_helpers.explore` (model, view, SVG):
- `HeatmapExplorer(compute, controls)`: heatmaps of attention weights for every combination of control values;
- `explore_valid_lens` / `explore_masked_softmax`: one `valid_lens` slider per batch row;
- `PictureExplorer(draw, controls)`: any SVG picture;
- `instrument(True)`: opt-in hooks for the browser test and benchmark (instance registry, timings).
Tests drive the explorers without a browser: set `explorer.controls[name].value`, read `explorer.svg`.
"""

from __future__ import annotations

from .explore import MAX_FRAMES, Explorer, PictureExplorer, instrument
from .explore.heatmap import HeatmapExplorer
from .explore.valid_lens import current_valid_lens, explore_masked_softmax, explore_valid_lens, valid_lens_sliders

__all__ = [
    "MAX_FRAMES",
    "Explorer",
    "HeatmapExplorer",
    "PictureExplorer",
    "current_valid_lens",
    "explore_masked_softmax",
    "explore_valid_lens",
    "instrument",
    "valid_lens_sliders",
]
