"""Interactive explorers: sliders (ipywidgets) that redraw attention heatmaps live.

Two ways to redraw, chosen per slider:
- *Frames* (instant): when a slider's every position can be drawn in advance, the explorer renders one small
  SVG per position into an `ipywidgets.Stack` and links the slider to the stack in the browser (`jslink`), so a
  key press or a drag switches pictures without a round trip to the kernel. Used for `valid_lens[b]` sliders
  (batch rows do not interact, so row b's panels depend only on `valid_lens[b]`) and for `frames_slider`.
  Other controls (toggles, per-query lengths) re-render the frames in the kernel.
- *Kernel* redraw: any other change recomputes the weights and sends one SVG string (about a millisecond of
  kernel time, no matplotlib re-plot), so dragging never builds a queue of stale redraws and the last position
  always wins.
Tests drive the explorers without a browser: set `explorer.sliders[i].value`, read `explorer.weights` and
`explorer.svg` (the picture now shown).
"""

from __future__ import annotations

import base64
import html
import time
import traceback
import weakref
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import numpy as np
import torch

from .explore import MAX_FRAMES, PictureExplorer, instrument
from .masking import masked_softmax
from .plotting import heatmaps_svg, static_png

__all__ = [
    "MAX_FRAMES",
    "HeatmapExplorer",
    "PictureExplorer",
    "current_valid_lens",
    "explore_masked_softmax",
    "explore_valid_lens",
    "instrument",
    "valid_lens_sliders",
]


def _as_array(weights: object) -> np.ndarray:
    array = weights.detach().cpu().double().numpy() if isinstance(weights, torch.Tensor) else np.asarray(weights)
    if array.ndim not in (3, 4):
        raise ValueError(
            f"the compute function must return weights of shape (B, Q, K) or (B, H, Q, K), got {array.shape}"
        )
    return array


def _to_panels(weights: object, titles: Sequence[str] | None) -> tuple[np.ndarray, list[str] | None]:
    """(B, Q, K) -> one row of B panels titled 'batch b'; (B, H, Q, K) -> B rows of H panels titled 'head h'."""
    array = _as_array(weights)
    if array.ndim == 3:
        return array[None], list(titles) if titles is not None else [f"batch {b}" for b in range(array.shape[0])]
    return array, list(titles) if titles is not None else [f"head {h}" for h in range(array.shape[1])]


class _Region:
    """One slider drawn in frames: the panels it controls, one pre-rendered SVG per slider position.

    `jslink` copies the slider's value into the stack's `selected_index` unchanged, so the stack has one child
    per value 0..max; values the slider cannot take (below `min`, between steps) share one empty placeholder.
    """

    MAX_POSITIONS = 512  # drawing more pictures in advance would make the cell slow to run

    def __init__(self, name: str, slider: widgets.IntSlider, batch: int | None):
        self.name, self.slider, self.batch = name, slider, batch  # batch None: the whole picture
        self.positions = list(range(slider.min, slider.max + 1, slider.step))  # the values the slider can take
        placeholder = widgets.HTML()
        self.frames = [placeholder] * (slider.max + 1)  # indexed by slider value
        for position in self.positions:
            frame = self.frames[position] = widgets.HTML()
            frame.add_class("ah-view")
            frame.add_class("ah-region-all" if batch is None else f"ah-region-{batch}")
        self.stack = widgets.Stack(self.frames, selected_index=slider.value)
        # In the browser the slider switches frames by itself, and jslink sends the kernel the new index.
        self.link = widgets.jslink((slider, "value"), (self.stack, "selected_index"))

    def values_for(self, position: int, values: dict[str, object], region_names: Sequence[str]) -> dict[str, object]:
        # Row b's panels depend only on valid_lens[b]: give every frame-drawn length the same value, so that one
        # compute call per position serves all rows.
        if self.batch is None:
            return {**values, self.name: position}
        return {**values, **{name: position for name in region_names}}


class HeatmapExplorer:
    """Controls + live heatmaps of `compute(**values)`, which returns weights (B, Q, K) or (B, H, Q, K)."""

    instances: list[weakref.ref] = []  # every explorer made in this kernel, for the benchmark's kernel-side figures

    def __init__(
        self,
        compute: Callable[..., object],
        controls: Mapping[str, widgets.ValueWidget],
        *,
        xlabel: str = "Keys",
        ylabel: str = "Queries",
        titles: Sequence[str] | None = None,
        layout: widgets.Widget | None = None,
        frames_slider: str | None = None,
        row_sliders: Sequence[str] | None = None,
        **plot_kwargs: object,
    ):
        """`frames_slider`: an IntSlider (min >= 0, any step) whose positions are drawn in advance as whole pictures.
        `row_sliders`: IntSliders (min >= 0), the b-th controlling batch row b only, drawn in advance."""
        if not callable(compute):
            raise TypeError(f"compute must be a function returning weights, got {type(compute).__name__}")
        self.compute = compute
        self.controls = dict(controls)
        for name in [frames_slider] * (frames_slider is not None) + list(row_sliders or []):
            control = self.controls.get(name)
            if not isinstance(control, widgets.IntSlider) or control.min < 0:
                raise ValueError(f"{name!r} must name an IntSlider with min >= 0 among the controls, got {control!r}")
            if (control.value - control.min) % control.step:
                raise ValueError(
                    f"{name!r} starts at {control.value}, which its slider cannot reach (min {control.min}, "
                    f"step {control.step}); start it at min + k * step"
                )
            positions = len(range(control.min, control.max + 1, control.step))
            if control.max + 1 > _Region.MAX_POSITIONS:
                raise ValueError(
                    f"{name!r} goes up to {control.max}: at most {_Region.MAX_POSITIONS - 1} for pictures drawn in "
                    f"advance ({positions} positions); leave it out of frames_slider/row_sliders to redraw in the kernel"
                )
        self.xlabel, self.ylabel, self.titles, self.plot_kwargs = xlabel, ylabel, titles, plot_kwargs
        self.view = widgets.HTML()  # kernel-drawn picture (also where errors are shown)
        self.view.add_class("ah-view")
        self.weights: object = None  # the weights now shown, as `compute` returned them
        self.last_error: BaseException | None = None  # the last exception a control change raised, if any
        self.updates = 0  # how many times the weights were recomputed
        self.update_seconds: list[float] = []  # kernel-side time of each update, for the benchmark
        self.render_seconds: list[float] = []  # kernel-side time of each redraw of every frame, for the benchmark
        if frames_slider is not None:
            self.regions = [_Region(frames_slider, self.controls[frames_slider], None)]
        else:
            self.regions = [_Region(n, self.controls[n], b) for b, n in enumerate(row_sliders or [])]
        self._region_names = [r.name for r in self.regions]
        self.colorbar = widgets.HTML()
        box = layout if layout is not None else widgets.VBox(list(self.controls.values()))
        if self.regions:
            stacks = [r.stack for r in self.regions]
            self._weights_ndim = _as_array(compute(**self.values())).ndim
            pictures = widgets.VBox(stacks) if self._weights_ndim == 4 or frames_slider else widgets.HBox(stacks)
            picture = widgets.HBox([pictures, self.colorbar], layout=widgets.Layout(align_items="flex-start"))
            self.widget = widgets.VBox([box, picture, self.view])
        else:
            self.widget = widgets.VBox([box, self.view])
        self.widget.add_class("ah-explorer")
        self.widget.add_class(f"ah-explorer-{len(HeatmapExplorer.instances)}")  # tests find its kernel side by it
        HeatmapExplorer.instances.append(weakref.ref(self))
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self._render_frames()
        self.update()

    @property
    def sliders(self) -> list[widgets.ValueWidget]:
        """The slider controls, in order (other controls, such as toggles, are in `controls`)."""
        return [c for c in self.controls.values() if isinstance(c, (widgets.IntSlider, widgets.FloatSlider))]

    @property
    def svg(self) -> str:
        """The picture now shown: the selected frame of each frame-drawn region, or the kernel-drawn SVG."""
        if not self.regions:
            return self.view.value
        return "".join(r.frames[r.slider.value].value for r in self.regions) + self.view.value

    def values(self) -> dict[str, object]:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, change: dict) -> None:
        owner = change["owner"]
        name = next(n for n, c in self.controls.items() if c is owner)
        if name not in self._region_names:
            self._render_frames()  # another control changed what every frame shows
        elif "value" not in owner._property_lock:
            # Moved by code in the kernel: move its frame here too (the browser's jslink follows the slider).
            # Moved in the browser, the value is locked while we run: jslink has already switched the frame there and
            # sends the kernel that index itself. Setting it here as well would send the browser a stale index in the
            # middle of a drag, and the two-way jslink would move the slider back to it.
            for region in self.regions:
                if region.slider is owner:
                    region.stack.selected_index = owner.value
        self.update()

    def _show_error(self, error: Exception) -> None:
        self.last_error = error
        message = "".join(traceback.format_exception_only(type(error), error))
        self.view.value = f'<pre style="color:#b00">{html.escape(message)}</pre>'

    def _render_frames(self) -> None:
        """Draw every position of every frame-drawn slider (given the other controls) into its stack."""
        if not self.regions:
            return
        start = time.perf_counter()
        values, cache = self.values(), {}
        kwargs = dict(self.plot_kwargs)
        shown = [(r, r.slider.value) for r in self.regions if r.slider.value in r.positions]
        rest = [(r, p) for r in self.regions for p in r.positions if p != r.slider.value]
        try:
            for region, position in shown + rest:  # the frames on screen first: they reach the browser first
                frame = region.frames[position]
                call = region.values_for(position, values, self._region_names)
                key = tuple(sorted((k, repr(v)) for k, v in call.items()))
                if key not in cache:
                    cache[key] = _as_array(self.compute(**call))
                frame.value = self._region_svg(cache[key], region.batch, kwargs)
            shape = next(iter(cache.values())).shape  # (B, Q, K) or (B, H, Q, K)
            self.colorbar.value = heatmaps_svg(
                np.zeros((1, 1, *shape[-2:])), "", "", [""], only_colorbar=True, **kwargs
            )
            self.render_seconds.append(time.perf_counter() - start)
        except Exception as error:
            self._show_error(error)

    def expected_svgs(self) -> dict[str, str]:
        """What the browser must show for the controls now, drawn afresh from `weights`: each frame-drawn region's
        picture (keyed "all" or the batch row, as its `ah-region-...` class), or the kernel-drawn one ("kernel").
        Tests compare the picture on screen with these."""
        if not self.regions:
            return {"kernel": self._kernel_svg(self.weights)}
        weights = _as_array(self.weights)
        kwargs = dict(self.plot_kwargs)
        return {
            "all" if r.batch is None else str(r.batch): self._region_svg(weights, r.batch, kwargs) for r in self.regions
        }

    def _kernel_svg(self, weights: object) -> str:
        """The whole picture with its colorbar, as an explorer without frames draws it on every change."""
        panels, titles = _to_panels(weights, self.titles)
        return heatmaps_svg(panels, self.xlabel, self.ylabel, titles, **self.plot_kwargs)

    def _region_svg(self, weights: np.ndarray, batch: int | None, kwargs: dict[str, object]) -> str:
        if batch is None:
            panels, titles = _to_panels(weights, self.titles)
            return heatmaps_svg(panels, self.xlabel, self.ylabel, titles, colorbar=False, **kwargs)
        if weights.ndim == 3:  # (B, Q, K): this row is one panel
            title = [self.titles[batch]] if self.titles is not None else [f"batch {batch}"]
            ylabel = self.ylabel if batch == 0 else ""
            return heatmaps_svg(weights[None, batch : batch + 1], self.xlabel, ylabel, title, colorbar=False, **kwargs)
        titles = list(self.titles) if self.titles is not None else [f"head {h}" for h in range(weights.shape[1])]
        ylabel = f"{self.ylabel} (batch {batch})"
        return heatmaps_svg(weights[batch : batch + 1], self.xlabel, ylabel, titles, colorbar=False, **kwargs)

    def update(self) -> None:
        """Recompute the weights from the controls (and redraw what is not frame-drawn); errors are shown in place."""
        start = time.perf_counter()
        try:
            weights = self.compute(**self.values())
            svg = "" if self.regions else self._kernel_svg(weights)
        except Exception as error:  # shown to the learner instead of vanishing into the log console
            self._show_error(error)
            return
        self.weights, self.last_error = weights, None
        self.view.value = svg
        self.updates += 1
        self.update_seconds.append(time.perf_counter() - start)

    def static_png(self) -> bytes:
        """The heatmaps now shown, as a PNG drawn with matplotlib (for readers without a kernel)."""
        panels, titles = _to_panels(self.weights, self.titles)
        return static_png(panels, self.xlabel, self.ylabel, titles, **self._png_kwargs())

    def _png_kwargs(self) -> dict[str, object]:
        keep = ("cmap", "vmin", "vmax", "xticklabels", "yticklabels")
        return {k: v for k, v in self.plot_kwargs.items() if k in keep}

    def __repr__(self) -> str:
        names = ", ".join(self.controls)
        return f"{type(self).__name__}(controls: {names}); run the notebook to move them"

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, object]:
        # The live widget for JupyterLab, plus a PNG of the same heatmaps that static renderers (nbconvert, GitHub)
        # show instead, and a deterministic text/plain.
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        if self.weights is not None:
            bundle["image/png"] = base64.b64encode(self.static_png()).decode("ascii")
        return bundle


def valid_lens_sliders(
    batch_size: int, num_queries: int, num_keys: int, per_query: bool = False, valid_lens: torch.Tensor | None = None
) -> dict[str, widgets.IntSlider]:
    """One IntSlider 0..K per batch row (`valid_lens[b]`), or per (row, query) when `per_query` (`valid_lens[b, q]`)."""
    for name, value in (("batch_size", batch_size), ("num_queries", num_queries), ("num_keys", num_keys)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    shape = (batch_size, num_queries) if per_query else (batch_size,)
    if valid_lens is None:
        start = torch.full(shape, num_keys)
    else:
        if not isinstance(valid_lens, torch.Tensor) or tuple(valid_lens.shape) != shape:
            raise ValueError(
                f"valid_lens must be a tensor of shape {shape} to start the sliders from, got {valid_lens!r}"
            )
        start = valid_lens.clamp(0, num_keys)
    sliders = {}
    for index in np.ndindex(*shape):
        label = ", ".join(map(str, index))
        sliders[f"valid_lens[{label}]"] = widgets.IntSlider(
            value=int(start[index]),
            min=0,
            max=num_keys,
            description=f"valid_lens[{label}]",
            continuous_update=True,
            style={"description_width": "initial"},
        )
    return sliders


def _lens_from(values: Mapping[str, object], shape: tuple[int, ...]) -> torch.Tensor:
    lens = [v for k, v in values.items() if k.startswith("valid_lens[")]
    return torch.tensor(lens, dtype=torch.long).reshape(shape)


def explore_valid_lens(
    compute: Callable[..., object],
    batch_size: int,
    num_queries: int,
    num_keys: int,
    per_query: bool = False,
    valid_lens: torch.Tensor | None = None,
    extra_controls: Mapping[str, widgets.ValueWidget] | None = None,
    **kwargs: object,
) -> HeatmapExplorer:
    """Sliders for `valid_lens` (plus `extra_controls`) driving `compute(valid_lens, **extra_values)` -> weights."""
    sliders = valid_lens_sliders(batch_size, num_queries, num_keys, per_query, valid_lens)
    extra = dict(extra_controls or {})
    shape = (batch_size, num_queries) if per_query else (batch_size,)

    def run(**values: object) -> object:
        lens = _lens_from(values, shape)
        return compute(lens, **{k: v for k, v in values.items() if k in extra})

    rows = (
        [widgets.HBox(list(sliders.values())[b * num_queries : (b + 1) * num_queries]) for b in range(batch_size)]
        if per_query
        else [widgets.HBox(list(sliders.values()))]
    )
    layout = widgets.VBox(rows + list(extra.values()))
    row_sliders = (
        None if per_query else list(sliders)
    )  # 1-D lengths: each row drawn in advance, switched in the browser
    explorer = HeatmapExplorer(run, {**sliders, **extra}, layout=layout, row_sliders=row_sliders, **kwargs)
    explorer.valid_lens_shape = shape
    return explorer


def explore_masked_softmax(
    scores: torch.Tensor, valid_lens: torch.Tensor | None = None, per_query: bool | None = None, **kwargs: object
) -> HeatmapExplorer:
    """Sliders for `valid_lens` over fixed scores (B, Q, K): watch `masked_softmax(scores, valid_lens)` change.

    `per_query`: one slider per (row, query) rather than per row. By default it follows `valid_lens` (2-D: per query);
    `per_query=True` with 1-D lengths starts every query of row b at `valid_lens[b]`."""
    if not isinstance(scores, torch.Tensor) or scores.dim() != 3:
        raise ValueError(f"scores must be a tensor of shape (B, Q, K), got {getattr(scores, 'shape', type(scores))}")
    if per_query is not None and not isinstance(per_query, bool):
        raise TypeError(f"per_query must be True, False or None, got {per_query!r}")
    B, Q, K = scores.shape  # batch, queries, keys
    if valid_lens is not None:
        masked_softmax(scores, valid_lens)  # validates the starting lengths with the usual clear errors
        if per_query is False and valid_lens.dim() == 2:
            raise ValueError(
                f"per_query=False needs one length per batch row, shape ({B},), but valid_lens has shape "
                f"{tuple(valid_lens.shape)} (one per query); leave per_query out or pass valid_lens[:, 0]"
            )
        if per_query and valid_lens.dim() == 1:
            valid_lens = valid_lens[:, None].expand(B, Q)  # every query of row b starts at row b's length
        per_query = valid_lens.dim() == 2
    scores = scores.detach().clone()  # the explorer keeps its own copy; the caller's tensor is never touched
    return explore_valid_lens(lambda lens: masked_softmax(scores, lens), B, Q, K, bool(per_query), valid_lens, **kwargs)


def current_valid_lens(explorer: HeatmapExplorer) -> torch.Tensor:
    """The lengths the sliders of an `explore_valid_lens` explorer now hold."""
    return _lens_from(explorer.values(), explorer.valid_lens_shape)
