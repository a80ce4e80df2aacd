"""Heatmap explorers: controls over attention weights, every combination drawn in advance as an SVG heatmap.

`HeatmapExplorer(compute, controls)` draws `compute(**values)` (weights (B, Q, K) or (B, H, Q, K)) for every
combination of control values. With `row_sliders` (one IntSlider per batch row, row b's weights depending only
on slider b, as for `valid_lens`), each row is a region of its own: frames = sum over rows of that row's
positions, times the combinations of the other controls, instead of their product.
"""

from __future__ import annotations

import base64
import html
import re
import time
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import numpy as np
import torch

from .. import _validate as check
from ..plotting import heatmaps_svg, static_png
from .base import Explorer, control_names
from .controls import check_controls
from .model import MAX_FRAMES, Region

__all__ = ["PLOT_KEYWORDS", "HeatmapExplorer", "as_weights"]

_ARIA_LABEL = re.compile(r'aria-label="([^"]*)"')  # the first: the heatmaps' own, before any colour bar
PLOT_KEYWORDS = ("cmap", "vmin", "vmax", "xticklabels", "yticklabels", "cell", "show_values", "cells")


def as_weights(weights: object) -> np.ndarray:
    """What `compute` returned -> float64 array (B, Q, K) or (B, H, Q, K), or a clear error."""
    if isinstance(weights, torch.Tensor):
        stored_only = weights.dtype not in check.COMPUTABLE_DTYPES  # float8 ...: PyTorch stores them, no more
        if weights.is_meta or weights.is_complex() or weights.dtype == torch.bool or stored_only:
            raise TypeError(
                f"the compute function must return real weights that hold values, got {check.describe(weights)}"
            )
        array = weights.detach().to("cpu", torch.float64).numpy()
    elif isinstance(weights, np.ndarray):
        if not (np.issubdtype(weights.dtype, np.integer) or np.issubdtype(weights.dtype, np.floating)):  # bool too
            raise TypeError(
                f"the compute function must return real weights (integers or floats), got a numpy array of dtype "
                f"{weights.dtype}"
            )
        array = weights.astype(np.float64)
    else:
        raise TypeError(
            f"the compute function must return a tensor of weights (B, Q, K) or (B, H, Q, K), "
            f"got {type(weights).__name__}"
        )
    if array.ndim not in (3, 4) or 0 in array.shape:
        raise ValueError(
            f"the compute function must return weights of shape (B, Q, K) or (B, H, Q, K), got {tuple(array.shape)}"
        )
    return array


def _keep(mask: object, shape: tuple[int, ...]) -> np.ndarray:
    """A keep-mask (True = may attend) broadcast to the weights' shape; a 3-D one gets a head axis for 4-D weights."""
    if isinstance(mask, torch.Tensor):
        mask = mask.detach().cpu().numpy()
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        raise TypeError(f"mask must return a boolean tensor (True = may attend), got {type(mask).__name__}")
    if mask.ndim == 3 and len(shape) == 4:
        mask = mask[:, None]  # (B, 1, Q|1, K)
    return np.broadcast_to(mask, shape)


class HeatmapExplorer(Explorer):
    """Controls + heatmaps of `compute(**values)`, which returns weights (B, Q, K) or (B, H, Q, K).

    Every combination of control values is drawn in advance and switched in the browser (see `Explorer`).
    `row_sliders`: IntSliders (min >= 0), the b-th controlling batch row b only, each row drawn apart.
    `frames_slider`: kept for older calls (every control is drawn in advance now); it must name an IntSlider.
    `mask(**values)` (optional): boolean (B, Q|1, K), True = may attend (a head axis is added for 4-D weights);
    cells it hides whose weight is exactly 0 are drawn grey, as are NaN weights. `valid_lens_shape`: set by `explore_valid_lens`.
    `rowlabels`: one label per row of panels of (B, H, Q, K) weights ("layer 0", ...), in place of "sequence b".
    Other keywords (cmap, vmin, vmax, xticklabels, yticklabels, cell, show_values, cells) go to `heatmaps_svg`;
    `cells="image"` by default (each panel's cells one PNG: about 40 % fewer bytes per frame than rects).
    """

    def __init__(
        self,
        compute: Callable[..., object],
        controls: Mapping[str, widgets.ValueWidget],
        *,
        xlabel: str = "Keys",
        ylabel: str = "Queries",
        titles: Sequence[str] | None = None,
        rowlabels: Sequence[str] | None = None,
        layout: widgets.Widget | None = None,
        frames_slider: str | None = None,
        row_sliders: Sequence[str] | None = None,
        kernel_controls: Sequence[str] | None = None,
        max_frames: int = MAX_FRAMES,
        mask: Callable[..., object] | None = None,
        valid_lens_shape: tuple[int, ...] | None = None,
        **plot_kwargs: object,
    ):
        if not callable(compute):
            raise TypeError(f"compute must be a function returning weights, got {type(compute).__name__}")
        if mask is not None and not callable(mask):
            raise TypeError(f"mask must be a function of the control values, or None, got {type(mask).__name__}")
        controls = check_controls(controls)
        unknown = sorted(set(plot_kwargs) - set(PLOT_KEYWORDS))
        if unknown:
            raise TypeError(f"unexpected keyword(s) {unknown}; heatmap options are {list(PLOT_KEYWORDS)}")
        for name, text in (("xlabel", xlabel), ("ylabel", ylabel)):
            if not isinstance(text, str):
                raise TypeError(f"{name} must be a str, got {type(text).__name__}: {text!r}")
        if titles is not None and (isinstance(titles, str) or not isinstance(titles, Sequence)):
            raise TypeError(f"titles must be a sequence of str, got {type(titles).__name__}: {titles!r}")
        self.row_sliders = control_names("row_sliders", row_sliders, controls)
        kernel = control_names("kernel_controls", kernel_controls, controls)
        if frames_slider is not None:
            check.text("frames_slider", frames_slider)
        for what, name in [("frames_slider", frames_slider)] * (frames_slider is not None) + [
            ("row_sliders", n) for n in self.row_sliders
        ]:
            control = controls.get(name)
            if not isinstance(control, widgets.IntSlider) or control.min < 0:
                raise ValueError(
                    f"{what} must name an IntSlider with min >= 0 among the controls, got {name!r}: {control!r}"
                )
            if name in kernel and name in self.row_sliders:
                raise ValueError(f"{name!r} is a row slider: it cannot also be in kernel_controls")
        if valid_lens_shape is not None and (
            not isinstance(valid_lens_shape, tuple)
            or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in valid_lens_shape)
        ):
            raise TypeError(
                f"valid_lens_shape must be a tuple of sizes or None, got {check.describe(valid_lens_shape)}"
            )
        self.compute, self.mask = compute, mask
        self.xlabel, self.ylabel = xlabel, ylabel
        self.titles = list(titles) if titles is not None else None
        if rowlabels is not None:
            rowlabels = [
                check.text(f"rowlabels[{i}]", r) for i, r in enumerate(check.sequence("rowlabels", rowlabels, "str"))
            ]
        self.rowlabels = rowlabels
        self.plot_kwargs = {"cells": "image", **plot_kwargs}  # cells as one small PNG per panel: many frames fit
        self.valid_lens_shape = valid_lens_shape
        self._cache: dict[tuple, tuple[np.ndarray, np.ndarray | None]] = {}
        self._weights_key: tuple | None = None
        self._weights: object = None
        super().__init__(controls, layout=layout, max_frames=max_frames, kernel_controls=kernel_controls)
        try:
            first = as_weights(self.compute(**self.values()))
            self._check_shape(first)
        except Exception:
            self.close()
            raise
        self._ndim = first.ndim
        # one colour scale for every frame: drawn once, beside them
        bar = heatmaps_svg(np.zeros((1, 1, *first.shape[-2:])), "", "", only_colorbar=True, **self.plot_kwargs)
        self.colorbar = widgets.HTML(bar)
        self._made.append(self.colorbar)
        self._build()

    # --- checks ----------------------------------------------------------------------------------------------
    def _check_shape(self, weights: np.ndarray) -> None:
        B = weights.shape[0]
        if self.row_sliders and len(self.row_sliders) != B:
            raise ValueError(f"row_sliders has {len(self.row_sliders)} sliders but the weights have B={B} rows")
        if self.titles is not None:
            want, what = (B, "batch row (B)") if weights.ndim == 3 else (weights.shape[1], "head (H)")
            if len(self.titles) != want:
                raise ValueError(
                    f"titles must have one title per {what}: {want}, got {len(self.titles)}: {self.titles!r}"
                )
        if self.rowlabels is not None and (weights.ndim != 4 or len(self.rowlabels) != B):
            raise ValueError(
                f"rowlabels must hold a label per row of panels of (B, H, Q, K) weights, B = {B}, got "
                f"{len(self.rowlabels)} for weights of shape {weights.shape}"
            )
        heatmaps_svg(np.zeros((1, 1, *weights.shape[-2:])), "", "", **self.plot_kwargs)  # checks plot_kwargs

    # --- the model's regions ---------------------------------------------------------------------------------
    def _regions(self) -> list[Region]:
        if not self.row_sliders:
            return [Region("all", list(self.axes.values()), self._draw_all)]
        others = [a for n, a in self.axes.items() if n not in self.row_sliders]
        return [
            Region(str(b), [*others, self.axes[name]], lambda values, b=b: self._draw_row(values, b))
            for b, name in enumerate(self.row_sliders)
        ]

    def _weights_at(self, values: dict[str, object]) -> tuple[np.ndarray, np.ndarray | None]:
        """Weights for these values and the cells to draw as masked (None: none known), cached while drawing."""
        key = tuple((k, repr(v)) for k, v in values.items())
        if key not in self._cache:
            weights = as_weights(self.compute(**values))
            hidden = None
            if self.mask is not None:
                hidden = ~_keep(self.mask(**values), weights.shape) & (weights == 0)
            self._cache[key] = (weights, hidden)
        return self._cache[key]

    def _rowlabels(self, rows: int) -> list[str]:
        """A label per row of panels: `rowlabels` (checked against the weights' rows), or "sequence b"."""
        return [f"sequence {b}" for b in range(rows)] if self.rowlabels is None else self.rowlabels[:rows]

    def _svg_kwargs(self, hidden: np.ndarray | None) -> dict[str, object]:
        return {**self.plot_kwargs, "colorbar": False, **({"mask": ~hidden} if hidden is not None else {})}

    def _draw_all(self, values: dict[str, object]) -> tuple[str, str]:
        weights, hidden = self._weights_at(values)
        if weights.ndim == 3:  # one row of B panels
            titles = self.titles or [f"sequence {b}" for b in range(weights.shape[0])]
            hidden = hidden[None] if hidden is not None else None
            return heatmaps_svg(weights[None], self.xlabel, self.ylabel, titles, **self._svg_kwargs(hidden)), ""
        titles = self.titles or [f"head {h}" for h in range(weights.shape[1])]
        rows = self._rowlabels(weights.shape[0]) if weights.shape[0] > 1 else None  # grids only
        svg = heatmaps_svg(weights, self.xlabel, self.ylabel, titles, rowlabels=rows, **self._svg_kwargs(hidden))
        return svg, ""

    def _draw_row(self, values: dict[str, object], b: int) -> tuple[str, str]:
        """Batch row b alone: every row slider set to row b's value, so one compute call serves every row."""
        call = {**values, **dict.fromkeys(self.row_sliders, values[self.row_sliders[b]])}
        weights, hidden = self._weights_at(call)
        row = weights[b : b + 1]  # (1, Q, K) or (1, H, Q, K)
        hidden = hidden[b : b + 1] if hidden is not None else None
        if weights.ndim == 3:
            title = [self.titles[b]] if self.titles else [f"sequence {b}"]
            svg = heatmaps_svg(row[None], self.xlabel, self.ylabel, title, **self._svg_kwargs(hidden))
            return svg, ""
        titles = self.titles or [f"head {h}" for h in range(weights.shape[1])]
        svg = heatmaps_svg(
            row, self.xlabel, self.ylabel, titles, rowlabels=[self._rowlabels(b + 1)[b]], **self._svg_kwargs(hidden)
        )
        return svg, ""

    def _draw(self) -> None:
        self._cache = {}
        try:
            super()._draw()
        finally:
            self._cache = {}

    def expected_svgs(self) -> dict[str, str]:
        self._cache = {}  # drawn afresh: nothing from an earlier call
        try:
            return super().expected_svgs()
        finally:
            self._cache = {}

    def _region_box(self, regions: list[widgets.Widget]) -> list[widgets.Widget]:
        if self._ndim == 4 and len(regions) > 1:  # rows of heads: one under another
            box = widgets.VBox(regions)
            self._frames.made.append(box)
            return [box]
        return regions

    def _beside(self) -> list[widgets.Widget]:
        return [self.colorbar]

    # --- reading it --------------------------------------------------------------------------------------------
    @property
    def sliders(self) -> list[widgets.ValueWidget]:
        """The slider controls, in order (other controls, such as toggles, are in `controls`)."""
        return [c for c in self.controls.values() if isinstance(c, (widgets.IntSlider, widgets.FloatSlider))]

    @property
    def weights(self) -> object:
        """The weights for the current values, as `compute` returns them (computed when read; None if it failed,
        with the error in `last_error`)."""
        key = tuple((k, repr(v)) for k, v in self.values().items())
        if key != self._weights_key:
            start = time.perf_counter()
            try:
                self._weights = self.compute(**self.values())
            except Exception as error:
                self.last_error, self._weights = error, None
            self._weights_key = key
            if self._instrumented:
                self.update_seconds.append(time.perf_counter() - start)
        return self._weights

    def update(self) -> None:
        """Redraw every frame for the current values (the controls drawn in advance need no update)."""
        self._weights_key = None
        self._draw()

    def static_png(self) -> bytes:
        """The heatmaps now shown, as a PNG drawn with matplotlib (for readers without a kernel): masked and NaN
        cells grey, as in the live frames."""
        weights = as_weights(self.weights)
        hidden = None if self.mask is None else ~_keep(self.mask(**self.values()), weights.shape) & (weights == 0)
        rows = None
        if weights.ndim == 3:
            panels, titles = weights[None], self.titles or [f"sequence {b}" for b in range(weights.shape[0])]
            hidden = hidden[None] if hidden is not None else None
        else:
            panels, titles = weights, self.titles or [f"head {h}" for h in range(weights.shape[1])]
            rows = self._rowlabels(weights.shape[0]) if weights.shape[0] > 1 else None
        keep = ("cmap", "vmin", "vmax", "xticklabels", "yticklabels")
        kwargs = {k: v for k, v in self.plot_kwargs.items() if k in keep}
        if hidden is not None:
            kwargs["mask"] = ~hidden
        return static_png(panels, self.xlabel, self.ylabel, titles, rowlabels=rows, **kwargs)

    def static_alt(self) -> str:
        """The text alternative of `static_png`: the heatmaps now shown in words, each row's weights ("masked" for a
        hidden cell), as the live frames' own labels say them."""
        values = self.values()
        self._cache = {}
        try:
            svgs = [region.draw(values)[0] for region in self._regions()]
        finally:
            self._cache = {}
        labels = (_ARIA_LABEL.search(svg) for svg in svgs)
        return ". ".join(html.unescape(found.group(1)) for found in labels if found)  # one sentence per region

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, object]:
        # The live widget for JupyterLab, plus a PNG of the same heatmaps that static renderers (nbconvert, GitHub)
        # show instead, as an <img> whose alt carries the weights (text/html: what JupyterLab shows untrusted and
        # nbconvert writes), and a deterministic text/plain.
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.weights is not None:
            png = base64.b64encode(self.static_png()).decode("ascii")
            bundle["image/png"] = png
            alt = html.escape(self.static_alt() or bundle["text/plain"], quote=True)
            bundle["text/html"] = f'<img alt="{alt}" src="data:image/png;base64,{png}">'
        return bundle
