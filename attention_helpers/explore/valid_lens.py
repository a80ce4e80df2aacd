"""`valid_lens` explorers: one slider per batch row (or per row and query) driving masked attention weights."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import ipywidgets as widgets
import numpy as np
import torch

from .. import _validate as check
from ..masking import masked_softmax
from .controls import check_controls, slider_width
from .heatmap import HeatmapExplorer
from .view import wrap_row

__all__ = ["current_valid_lens", "explore_masked_softmax", "explore_valid_lens", "valid_lens_sliders"]


def _as_lens(valid_lens: object, shape: str) -> torch.Tensor:
    """Starting lengths given as a tensor, array or (nested) list -> a CPU tensor, or a clear TypeError."""
    if isinstance(valid_lens, torch.Tensor):
        return check.has_values("valid_lens", valid_lens).detach().cpu()
    if isinstance(valid_lens, (list, tuple, np.ndarray)):
        try:
            return torch.as_tensor(np.asarray(valid_lens))
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(f"valid_lens must hold whole numbers in the shape {shape}, got {valid_lens!r}") from None
    raise TypeError(f"valid_lens must be a tensor (or list) of shape {shape}, got {check.describe(valid_lens)}")


def _starting_lens(valid_lens: object, shape: tuple[int, ...], num_keys: int) -> torch.Tensor:
    """The sliders' starting lengths: whole numbers in [0, num_keys] of the given shape, never clamped."""
    lens = _as_lens(valid_lens, str(shape))
    if lens.dtype == torch.bool or lens.is_floating_point() or lens.is_complex():
        raise ValueError(f"valid_lens must hold whole numbers (an integer dtype), got {lens.dtype}: {lens.tolist()}")
    if tuple(lens.shape) != shape:
        per = "one per row and query (per_query=True)" if len(shape) == 2 else "one per row"
        raise ValueError(
            f"valid_lens must have shape {shape}, {per}, to start the sliders from, got {tuple(lens.shape)}"
        )
    if lens.numel() and (lens.min() < 0 or lens.max() > num_keys):
        raise ValueError(f"valid_lens must lie in [0, num_keys={num_keys}], got {lens.tolist()}")
    return lens


def valid_lens_sliders(
    batch_size: int, num_queries: int, num_keys: int, per_query: bool = False, valid_lens: object = None
) -> dict[str, widgets.IntSlider]:
    """One IntSlider 0..K per batch row (`valid_lens[b]`), or per (row, query) when `per_query` (`valid_lens[b, q]`)."""
    batch_size, num_queries = (
        check.positive_int("batch_size", batch_size),
        check.positive_int("num_queries", num_queries),
    )
    num_keys = check.positive_int("num_keys", num_keys)
    check.boolean("per_query", per_query)
    shape = (batch_size, num_queries) if per_query else (batch_size,)
    start = torch.full(shape, num_keys) if valid_lens is None else _starting_lens(valid_lens, shape, num_keys)
    sliders = {}
    for index in np.ndindex(*shape):
        label = ", ".join(map(str, index))
        sliders[f"valid_lens[{label}]"] = slider = widgets.IntSlider(
            value=int(start[index]), min=0, max=num_keys, description=f"valid_lens[{label}]", continuous_update=True
        )
        slider_width(slider)
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
    valid_lens: object = None,
    extra_controls: Mapping[str, widgets.ValueWidget] | None = None,
    **kwargs: object,
) -> HeatmapExplorer:
    """Sliders for `valid_lens` (plus `extra_controls`) driving `compute(valid_lens, **extra_values)` -> weights.

    Keys at or past a row's length whose weight is exactly 0 are drawn grey (masked). With one length per row,
    every slider and extra control is drawn in advance; per-query sliders (`per_query=True`) redraw in the kernel."""
    if not callable(compute):
        raise TypeError(
            f"compute must be a function compute(valid_lens, **extra_values) -> weights, got {check.describe(compute)}"
        )
    sliders = valid_lens_sliders(batch_size, num_queries, num_keys, per_query, valid_lens)
    extra = check_controls(extra_controls or {}, "extra_controls")
    clash = sorted(set(extra) & set(sliders))
    if clash:
        raise ValueError(f"extra_controls must not reuse the slider names {clash}")
    shape = (batch_size, num_queries) if per_query else (batch_size,)
    keys = torch.arange(num_keys)

    def run(**values: object) -> object:
        return compute(_lens_from(values, shape), **{k: v for k, v in values.items() if k in extra})

    def keep(**values: object) -> torch.Tensor:
        """True where a key lies within its row's length: (B, 1, K) for one length per row, (B, Q, K) per query."""
        lens = _lens_from(values, shape)
        return keys < (lens[:, None, None] if not per_query else lens[..., None])  # (B, 1, K) or (B, Q, K)

    names = list(sliders)
    rows = [wrap_row(names_row) for names_row in _rows(sliders, batch_size, num_queries, per_query)]
    layout = widgets.VBox(rows + ([wrap_row(list(extra.values()))] if extra else []))
    return HeatmapExplorer(
        run,
        {**sliders, **extra},
        layout=layout,
        row_sliders=None if per_query else names,  # 1-D lengths: each row drawn apart, switched in the browser
        kernel_controls=names if per_query else None,  # per query: too many combinations, redrawn in the kernel
        mask=keep,
        valid_lens_shape=shape,
        **kwargs,
    )


def _rows(sliders: dict[str, widgets.IntSlider], batch_size: int, num_queries: int, per_query: bool) -> list[list]:
    widgets_ = list(sliders.values())
    if not per_query:
        return [widgets_]
    return [widgets_[b * num_queries : (b + 1) * num_queries] for b in range(batch_size)]


def explore_masked_softmax(
    scores: torch.Tensor, valid_lens: object = None, per_query: bool | None = None, **kwargs: object
) -> HeatmapExplorer:
    """Sliders for `valid_lens` over fixed scores (B, Q, K): watch `masked_softmax(scores, valid_lens)` change.

    `per_query`: one slider per (row, query) rather than per row. By default it follows `valid_lens` (2-D: per query);
    `per_query=True` with 1-D lengths starts every query of row b at `valid_lens[b]`."""
    check.floating_tensor("scores", scores, dims=3, shape="(B, Q, K)")
    check.has_values("scores", scores)
    if per_query is not None:
        check.boolean("per_query", per_query)
    B, Q, K = scores.shape  # batch, queries, keys
    if valid_lens is not None:
        lens = _as_lens(valid_lens, f"(B,) = ({B},) or (B, Q) = ({B}, {Q})")
        valid_lens = _starting_lens(lens, tuple(lens.shape), K)
        masked_softmax(scores, valid_lens)  # validates the starting lengths against the scores with the usual errors
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
    if not isinstance(explorer, HeatmapExplorer) or explorer.valid_lens_shape is None:
        raise TypeError(
            f"explorer must be what explore_valid_lens or explore_masked_softmax returned, got {check.describe(explorer)}"
        )
    return _lens_from(explorer.values(), explorer.valid_lens_shape)
