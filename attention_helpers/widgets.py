"""Interactive explorers: sliders (ipywidgets) that redraw attention heatmaps live.

Each explorer builds its widgets once. A change of any control recomputes the weights and sends one small SVG
string to the browser (about a millisecond of kernel time; no matplotlib re-plot), so dragging a slider never
builds a queue of stale redraws and the last position always wins. Tests drive the explorers without a
browser: set `explorer.sliders[i].value` and read `explorer.weights`.
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

from .masking import masked_softmax
from .plotting import heatmaps_svg, static_png

__all__ = [
    "HeatmapExplorer",
    "current_valid_lens",
    "explore_masked_softmax",
    "explore_valid_lens",
    "valid_lens_sliders",
]


def _to_panels(weights: object, titles: Sequence[str] | None) -> tuple[np.ndarray, list[str] | None]:
    """(B, Q, K) -> one row of B panels titled 'batch b'; (B, H, Q, K) -> B rows of H panels titled 'head h'."""
    array = weights.detach().cpu().double().numpy() if isinstance(weights, torch.Tensor) else np.asarray(weights)
    if array.ndim == 3:
        return array[None], list(titles) if titles is not None else [f"batch {b}" for b in range(array.shape[0])]
    if array.ndim == 4:
        return array, list(titles) if titles is not None else [f"head {h}" for h in range(array.shape[1])]
    raise ValueError(f"the compute function must return weights of shape (B, Q, K) or (B, H, Q, K), got {array.shape}")


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
        **plot_kwargs: object,
    ):
        if not callable(compute):
            raise TypeError(f"compute must be a function returning weights, got {type(compute).__name__}")
        self.compute = compute
        self.controls = dict(controls)
        self.xlabel, self.ylabel, self.titles, self.plot_kwargs = xlabel, ylabel, titles, plot_kwargs
        self.view = widgets.HTML()
        self.view.add_class("ah-view")  # the heatmaps; browser tests and the benchmark find explorers by class
        self.weights: object = None  # the weights now shown, as `compute` returned them
        self.last_error: BaseException | None = None  # the last exception a control change raised, if any
        self.updates = 0  # how many redraws so far
        self.update_seconds: list[float] = []  # kernel-side time of each redraw (compute + SVG), for the benchmark
        box = layout if layout is not None else widgets.VBox(list(self.controls.values()))
        self.widget = widgets.VBox([box, self.view])
        self.widget.add_class("ah-explorer")
        HeatmapExplorer.instances.append(weakref.ref(self))
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.update()

    @property
    def sliders(self) -> list[widgets.ValueWidget]:
        """The slider controls, in order (other controls, such as toggles, are in `controls`)."""
        return [c for c in self.controls.values() if isinstance(c, (widgets.IntSlider, widgets.FloatSlider))]

    def values(self) -> dict[str, object]:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, change: dict) -> None:
        self.update()

    def update(self) -> None:
        """Recompute the weights from the controls and redraw; an error is shown in place and kept in `last_error`."""
        start = time.perf_counter()
        try:
            weights = self.compute(**self.values())
            panels, titles = _to_panels(weights, self.titles)
            svg = heatmaps_svg(panels, self.xlabel, self.ylabel, titles, **self.plot_kwargs)
        except Exception as error:  # shown to the learner instead of vanishing into the log console
            self.last_error = error
            message = "".join(traceback.format_exception_only(type(error), error))
            self.view.value = f'<pre style="color:#b00">{html.escape(message)}</pre>'
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
    explorer = HeatmapExplorer(run, {**sliders, **extra}, layout=layout, **kwargs)
    explorer.valid_lens_shape = shape
    return explorer


def explore_masked_softmax(
    scores: torch.Tensor, valid_lens: torch.Tensor | None = None, per_query: bool = False, **kwargs: object
) -> HeatmapExplorer:
    """Sliders for `valid_lens` over fixed scores (B, Q, K): watch `masked_softmax(scores, valid_lens)` change."""
    if not isinstance(scores, torch.Tensor) or scores.dim() != 3:
        raise ValueError(f"scores must be a tensor of shape (B, Q, K), got {getattr(scores, 'shape', type(scores))}")
    B, Q, K = scores.shape  # batch, queries, keys
    if valid_lens is not None:
        masked_softmax(scores, valid_lens)  # validates the starting lengths with the usual clear errors
        per_query = valid_lens.dim() == 2
    scores = scores.detach().clone()  # the explorer keeps its own copy; the caller's tensor is never touched
    return explore_valid_lens(lambda lens: masked_softmax(scores, lens), B, Q, K, per_query, valid_lens, **kwargs)


def current_valid_lens(explorer: HeatmapExplorer) -> torch.Tensor:
    """The lengths the sliders of an `explore_valid_lens` explorer now hold."""
    return _lens_from(explorer.values(), explorer.valid_lens_shape)
