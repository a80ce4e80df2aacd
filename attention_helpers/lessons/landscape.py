"""Notebook 2's explorer: the additive score landscape over a plane of 2-D keys, beside the dot product's plane.

`additive_landscape` scores one query against every key of a grid, `w_vᵀ tanh(W_q q + W_k k)`; `dot_plane` does the
same for `q · k`; `landscape_svg` draws both as small pictures (each a pixel image inside the SVG, so a frame stays
about 2-3 KB), with the query as an arrow and a few marked keys.
"""

from __future__ import annotations

import base64
import html
import io
import math

import numpy as np
import torch
from matplotlib import colormaps
from PIL import Image

from .. import _validate as check

__all__ = [
    "additive_landscape",
    "dot_plane",
    "key_grid",
    "landscape_svg",
    "pixel_image",
    "score_spreads",
    "spread_parts",
    "weight_ratio",
]


def _vector(x: object, name: str, size: int | None = None) -> torch.Tensor:
    check.floating_tensor(name, x, shape=f"({size},)" if size is not None else "(n,)")
    if x.dim() != 1 or (size is not None and x.shape[0] != size):
        wanted = f"({size},)" if size is not None else "1-D"
        raise ValueError(f"{name} must have shape {wanted}, got {tuple(x.shape)}")
    return check.has_values(name, x)


def key_grid(limit: float = 3.0, size: int = 15) -> torch.Tensor:
    """A square grid of 2-D keys over [-limit, limit]², row by row from the top (y = +limit) -> (size, size, 2)."""
    limit = check.real("limit", limit, low=0.0, low_open=True)
    check.int_at_least("size", size, 2)
    axis = torch.from_numpy(np.linspace(-limit, limit, size)).float()  # (G,): numpy's, so the middle key is exactly 0
    # (torch.linspace's vectorised kernel puts it at ±1e-7 on some processors, and a pixel's colour flips)
    y, x = torch.meshgrid(axis.flip(0), axis, indexing="ij")  # (G, G) each: top row is y = +limit
    return torch.stack([x, y], dim=-1)  # (G, G, 2)


def additive_landscape(
    query: torch.Tensor, keys: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor, w_v: torch.Tensor
) -> torch.Tensor:
    """Query (d_q,), keys (..., d_k), W_q (h, d_q), W_k (h, d_k), w_v (h,) -> scores w_vᵀ tanh(W_q q + W_k k) (...)."""
    _vector(query, "query")
    _vector(w_v, "w_v")
    check.floating_tensor("keys", keys, shape="(..., d_k)")
    if keys.dim() < 1:
        raise ValueError("keys must have shape (..., d_k), got a 0-D tensor")
    check.has_values("keys", keys)
    h = w_v.shape[0]
    for name, W, d, what in (("W_q", W_q, query.shape[0], "query"), ("W_k", W_k, keys.shape[-1], "keys")):
        check.floating_tensor(name, W, shape=f"(h, {d}) = ({h}, {d})")
        if tuple(W.shape) != (h, d):
            raise ValueError(
                f"{name} must be a tensor of shape (h, d) = ({h}, {d}) to match w_v (h,) = ({h},) and {what} "
                f"(..., d) = {tuple(query.shape if what == 'query' else keys.shape)}, got {tuple(W.shape)}"
            )
        check.has_values(name, W)
    q, k, Wq, Wk, wv = (t.detach().cpu().double().numpy() for t in (query, keys, W_q, W_k, w_v))  # numpy: ~20x
    hidden = Wq @ q + k @ Wk.T  # (h,) + (..., h) -> (..., h)                             faster on tiny tensors
    return torch.from_numpy(np.tanh(hidden) @ wv).to(keys.dtype)  # (..., h) @ (h,) -> (...)


def dot_plane(query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """Query (d,), keys (..., d) -> dot products q · k (...): a plane through 0 that tilts towards q. Summed in
    float64, so that a float32 product's last bit (FMA or not, by processor) cannot change a pixel's colour."""
    _vector(query, "query")
    check.floating_tensor("keys", keys, shape=f"(..., {query.shape[0]})")
    if keys.shape[-1:] != query.shape:
        raise ValueError(f"keys must be a tensor (..., d) with query's d = {query.shape[0]}, got {tuple(keys.shape)}")
    check.same_device_and_dtype([("query", query), ("keys", keys)])
    q, k = (t.detach().cpu().double().numpy() for t in (query, keys))  # float64: the same colours on every processor
    return torch.from_numpy(k @ q).to(keys.dtype)  # (..., d) @ (d,) -> (...)


def weight_ratio(scores: torch.Tensor) -> float:
    """Scores (K,) -> softmax's largest weight over its smallest, exp(max - min)."""
    _vector(scores, "scores")
    if scores.numel() == 0:
        raise ValueError("scores must hold at least one score")
    check.finite("scores", scores)
    spread = (scores.double().max() - scores.double().min()).item()
    return math.exp(spread) if spread < 709.78 else math.inf  # beyond: the smallest weight is 0 even in float64


def spread_parts(features: torch.Tensor, w_v: torch.Tensor) -> tuple[float, float, float]:
    """tanh features (K, h) of K >= 2 keys, w_v (h,) -> (spread, aligned, bound) of the scores features @ w_v.

    spread = top score - bottom score = Σ_i w_v[i] (t_top[i] - t_bottom[i]); aligned = the same sum of absolute
    values, the spread had every unit's share one sign (spread / aligned: how much the signs cancel); bound =
    2 Σ|w_v|, the spread had every unit's features also gone from -1 to +1 (aligned / bound: how far the two keys'
    features are from that). In float64."""
    check.floating_tensor("features", features, dims=2, shape="(K, h) with K >= 2")
    if features.shape[0] < 2 or features.shape[1] < 1:
        raise ValueError(f"features must have shape (K, h) with K >= 2 keys and h >= 1, got {tuple(features.shape)}")
    spread, aligned, bound = score_spreads(features, w_v)
    return spread.item(), aligned.item(), bound


def score_spreads(
    features: torch.Tensor, w_v: torch.Tensor, valid: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor, float]:
    """`spread_parts` for many rows of keys at once: tanh features (..., K, h), w_v (h,), valid (..., K) bool (True:
    a key of that row; None: every key) -> (spread (...), aligned (...), bound), each row over its valid keys
    (at least 2), in float64."""
    check.floating_tensor("features", features, shape="(..., K, h) with K >= 2")
    if features.dim() < 2 or features.shape[-2] < 2 or features.shape[-1] < 1:
        raise ValueError(
            f"features must have shape (..., K, h) with K >= 2 keys and h >= 1, got {tuple(features.shape)}"
        )
    check.finite("features", features)
    _vector(w_v, "w_v", features.shape[-1])
    check.finite("w_v", w_v)
    if valid is None:
        valid = torch.ones(features.shape[:-1], dtype=torch.bool)
    else:
        check.tensor("valid", valid, shape=f"{tuple(features.shape[:-1])} of bool")
        if valid.dtype != torch.bool:
            raise TypeError(f"valid must be a bool tensor (True: a key of the row), got dtype {valid.dtype}")
        if valid.shape != features.shape[:-1]:
            raise ValueError(
                f"valid must have the features' shape without h, {tuple(features.shape[:-1])}, got {tuple(valid.shape)}"
            )
        if bool((valid.sum(-1) < 2).any()):
            raise ValueError("valid must leave at least 2 keys in every row: a spread needs two scores")
    t = features.detach().cpu().double()  # (..., K, h)
    w = w_v.detach().cpu().double()  # (h,)
    keep = valid.detach().cpu()  # (..., K)
    scores = t @ w  # (..., K, h) @ (h,) -> (..., K)
    top = scores.masked_fill(~keep, -math.inf).argmax(-1)  # (...,): the favourite key of each row
    bottom = scores.masked_fill(~keep, math.inf).argmin(-1)  # (...,): the least favoured

    def row(index: torch.Tensor) -> torch.Tensor:  # (...,) -> that key's features (..., h)
        return t.gather(-2, index[..., None, None].expand(*index.shape, 1, t.shape[-1])).squeeze(-2)

    shares = w * (row(top) - row(bottom))  # (..., h): each unit's part of top - bottom
    return shares.sum(-1), shares.abs().sum(-1), 2 * w.abs().sum().item()


_LUTS: dict[str, np.ndarray] = {}


def pixel_image(levels: np.ndarray, cmap: str, x: float, y: float, width: float, height: float) -> str:
    """Levels (R, C) in [0, 1] -> an SVG <image> of R x C coloured pixels (a PNG of a few hundred bytes, drawn
    without smoothing), placed at (x, y) and stretched to width x height."""
    check.text("cmap", cmap)
    if cmap not in colormaps:
        raise ValueError(f"cmap must be a matplotlib colour map name such as 'Reds', got {cmap!r}")
    for name, value in (("x", x), ("y", y)):
        check.real(name, value)
    for name, value in (("width", width), ("height", height)):
        check.real(name, value, low=0.0, low_open=True)
    if isinstance(levels, torch.Tensor):  # float16 and bfloat16 (which numpy lacks) widen losslessly to float64
        levels = check.has_values("levels", levels).detach().cpu()
        levels = levels.double() if levels.is_floating_point() else levels
    array = np.asarray(levels)
    check.real_valued("levels", array)
    if array.ndim != 2 or 0 in array.shape or not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"levels must be a 2-D array (R, C) of numbers in [0, 1], got {check.describe(levels)}")
    if np.isnan(array.astype(float)).any():
        raise ValueError("levels must not hold NaN: its pixel's colour would be arbitrary")
    if cmap not in _LUTS:
        _LUTS[cmap] = np.round(colormaps[cmap](np.linspace(0.0, 1.0, 255))[:, :3] * 255).astype(np.uint8)  # (255, 3)
    # 255 colours, an odd number: level 0.5 (a diverging map's 0) is exactly colour 127, not a tie between 127 and
    # 128 that a value's last bit would break one way or the other
    index = np.round(np.clip(array.astype(float), 0.0, 1.0) * 254).astype(int)  # (R, C) in 0..254
    buffer = io.BytesIO()
    Image.fromarray(_LUTS[cmap][index], "RGB").save(buffer, format="PNG")  # (R, C, 3)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (
        f'<image x="{x}" y="{y}" width="{width}" height="{height}" preserveAspectRatio="none" '
        f'style="image-rendering:pixelated" href="data:image/png;base64,{data}"/>'
    )


def landscape_svg(
    panels: list[tuple[str, torch.Tensor, float]],
    query: torch.Tensor,
    marked: torch.Tensor,
    limit: float = 3.0,
    size: int = 170,
) -> str:
    """Panels [(title, scores (G, G) over key_grid(limit), colour limit)] side by side, each with the query's arrow,
    the marked keys (M, 2) as rings and its own colour bar (±limit; an end the scores pass reads ≤ or ≥) -> one
    SVG string; text and lines in currentColor."""
    _vector(query, "query", 2)
    check.finite("query", query)
    check.floating_tensor("marked", marked, shape="(M, 2)")
    if marked.dim() != 2 or marked.shape[1] != 2:
        raise ValueError(f"marked must be a tensor of shape (M, 2), got {tuple(marked.shape)}")
    check.finite("marked", marked)
    limit = check.real("limit", limit, low=0.0, low_open=True)
    check.positive_int("size", size)
    if isinstance(panels, (str, bytes)) or not isinstance(panels, (list, tuple)) or not panels:
        raise TypeError(
            f"panels must be a non-empty list of (title, scores (G, G), vmax), got {check.describe(panels)}"
        )
    for i, panel in enumerate(panels):
        if not isinstance(panel, (list, tuple)) or len(panel) != 3:
            raise TypeError(f"panels[{i}] must be a triple (title, scores (G, G), vmax), got {check.describe(panel)}")
        check.text(f"panels[{i}] title", panel[0])
        scores = check.floating_tensor(f"panels[{i}] scores", panel[1], dims=2, shape="(G, G)")
        check.finite(f"panels[{i}] scores", scores)
        check.real(f"panels[{i}] vmax", panel[2], low=0.0, low_open=True)
    gap, top, bottom = 14, 18, 30  # below each panel: its colour bar and the bar's three labels
    width, height = len(panels) * (size + gap), top + size + bottom
    bar = np.linspace(0.0, 1.0, 64)[None]  # (1, 64) levels, float64: the colour bar, -vmax -> +vmax

    def px(x: float, x0: float) -> float:  # key coordinate -> pixel
        return x0 + (x + limit) / (2 * limit) * size

    def py(y: float) -> float:
        return top + (limit - y) / (2 * limit) * size

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="11">',
        '<defs><marker id="ah-arrow" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="6" markerHeight="6" '
        'orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="currentColor"/></marker></defs>',
    ]
    for i, (title, scores, vmax) in enumerate(panels):
        x0 = i * (size + gap)
        values = scores.detach().cpu().double().numpy()  # (G, G), float64: the same colours on every processor
        levels = values / (2 * vmax) + 0.5  # (G, G): -vmax -> 0, 0 -> 0.5, vmax -> 1
        parts.append(
            f'<text x="{x0 + size / 2}" y="12" text-anchor="middle" fill="currentColor">{html.escape(title)}</text>'
        )
        parts.append(pixel_image(levels, "RdBu_r", x0, top, size, size))
        parts.append(f'<rect x="{x0}" y="{top}" width="{size}" height="{size}" fill="none" stroke="currentColor"/>')
        rings = "".join(f'<circle cx="{px(kx, x0):.1f}" cy="{py(ky):.1f}" r="3.5"/>' for kx, ky in marked.tolist())
        parts.append(f'<g fill="none" stroke="currentColor" stroke-width="1.5">{rings}</g>')
        length = query.norm().item()
        qx, qy = (query * min(1.0, 0.95 * limit / length)).tolist() if length > 0 else (0.0, 0.0)  # kept inside
        parts.append(
            f'<line x1="{px(0, x0):.1f}" y1="{py(0):.1f}" x2="{px(qx, x0):.1f}" y2="{py(qy):.1f}" '
            f'stroke="currentColor" stroke-width="2" marker-end="url(#ah-arrow)"/>'
        )
        y_bar = top + size + 4
        parts.append(pixel_image(bar, "RdBu_r", x0, y_bar, size, 7))
        low = f"≤ −{vmax:g}" if values.min() < -vmax else f"−{vmax:g}"  # a clipped end says so
        high = f"≥ {vmax:g}" if values.max() > vmax else f"{vmax:g}"
        for x, anchor, label in ((x0, "start", low), (x0 + size / 2, "middle", "0"), (x0 + size, "end", high)):
            parts.append(
                f'<text x="{x}" y="{y_bar + 18}" text-anchor="{anchor}" fill="currentColor" font-size="10">'
                f"{label}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)
