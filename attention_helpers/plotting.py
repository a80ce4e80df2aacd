"""Heatmaps of attention weights: `show_heatmaps` (matplotlib) and `heatmaps_svg` (fast SVG for live widgets).

Vocabulary: R rows and C columns of panels, each panel a (Q, K) matrix: queries down, keys across.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import matplotlib
import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = ["Heatmaps", "as_panels", "heatmaps_svg", "lecture_mode", "show_heatmaps"]

# Settings that `lecture_mode()` changes; read at draw time so one call affects every later picture.
_STYLE = {"scale": 1.0, "cmap": None, "fontsize": None}
DEFAULT_CMAP = "Reds"


def _lecture_cmap(cmap: str) -> str:
    # Lecture mode swaps the default weights map only: a map chosen on purpose (a diverging one for signed values,
    # say) keeps its meaning.
    return _STYLE["cmap"] if _STYLE["cmap"] and cmap == DEFAULT_CMAP else cmap


def as_panels(matrices: object, name: str = "matrices") -> np.ndarray:
    """Tensor (any device, with or without grad) or array of shape (R, C, Q, K) -> float64 numpy array."""
    if isinstance(matrices, torch.Tensor):
        array = matrices.detach().to("cpu", torch.float64).numpy()
    elif isinstance(matrices, np.ndarray):
        array = matrices
    else:
        raise TypeError(
            f"{name} must be a torch.Tensor or numpy array of shape (rows, cols, Q, K), got {type(matrices).__name__}"
        )
    if array.ndim != 4:
        raise ValueError(
            f"{name} must be 4-D (rows, cols, Q, K), got shape {tuple(array.shape)}; "
            f"e.g. weights.reshape(1, 1, Q, K) for one (Q, K) matrix"
        )
    if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if 0 in array.shape:
        raise ValueError(f"{name} must not be empty, got shape {tuple(array.shape)}")
    return np.asarray(array, dtype=np.float64)


def _check_labels(labels: Sequence[str] | None, length: int, name: str) -> list[str] | None:
    if labels is None:
        return None
    if isinstance(labels, str) or len(labels) != length:
        raise ValueError(f"{name} must be a sequence of {length} labels, got {labels!r}")
    return [str(label) for label in labels]


def _check_titles(titles: Sequence[str] | None, cols: int) -> list[str] | None:
    if titles is None:
        return None
    if isinstance(titles, str) or len(titles) != cols:
        raise ValueError(f"titles must be a sequence with one title per column ({cols}), got {titles!r}")
    return [str(title) for title in titles]


class Heatmaps:
    """What `show_heatmaps` returns: the Figure, its (R, C) array of axes, the images and the shared colorbar."""

    def __init__(self, fig: Figure, axes: np.ndarray, images: np.ndarray, colorbar: matplotlib.colorbar.Colorbar):
        self.fig, self.axes, self.images, self.colorbar = fig, axes, images, colorbar

    def __repr__(self) -> str:
        rows, cols = self.axes.shape
        return f"Heatmaps({rows}x{cols} panels)"

    def _ipython_display_(self) -> None:
        # The inline backend shows an open pyplot figure once, at the end of the cell that made it; show it
        # ourselves only when that has already happened (the object is displayed in a later cell).
        import matplotlib.pyplot as plt
        from IPython.display import display

        if not plt.fignum_exists(self.fig.number):
            display(self.fig)


def show_heatmaps(
    matrices: object,
    xlabel: str,
    ylabel: str,
    titles: Sequence[str] | None = None,
    figsize: tuple[float, float] = (2.5, 2.5),
    cmap: str = "Reds",
    *,
    vmin: float = 0.0,
    vmax: float = 1.0,
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
) -> Heatmaps:
    """Draw matrices (R, C, Q, K) as an R x C grid sharing one colour scale [vmin, vmax] and one colorbar."""
    import matplotlib.pyplot as plt

    panels = as_panels(matrices)
    rows, cols, Q, K = panels.shape  # panel rows, panel columns, queries, keys
    titles = _check_titles(titles, cols)
    xticklabels = _check_labels(xticklabels, K, "xticklabels")
    yticklabels = _check_labels(yticklabels, Q, "yticklabels")
    if not vmin < vmax:
        raise ValueError(f"vmin must be smaller than vmax, got vmin={vmin}, vmax={vmax}")
    scale, fontsize = _STYLE["scale"], _STYLE["fontsize"]
    cmap = _lecture_cmap(cmap)
    fig, axes = plt.subplots(
        rows, cols, figsize=(figsize[0] * scale, figsize[1] * scale), sharex=True, sharey=True, squeeze=False
    )
    images = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            ax = axes[i, j]
            images[i, j] = ax.imshow(panels[i, j], cmap=cmap, vmin=vmin, vmax=vmax)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # positions are whole numbers
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            if i == rows - 1:
                ax.set_xlabel(xlabel, fontsize=fontsize)
            if j == 0:
                ax.set_ylabel(ylabel, fontsize=fontsize)
            if titles:
                ax.set_title(titles[j], fontsize=fontsize)
            if xticklabels:
                ax.set_xticks(range(K), xticklabels, rotation=90, fontsize=fontsize)
            if yticklabels:
                ax.set_yticks(range(Q), yticklabels, fontsize=fontsize)
            if fontsize:
                ax.tick_params(labelsize=fontsize)
    colorbar = fig.colorbar(images[0, 0], ax=axes, shrink=0.6)
    if fontsize:
        colorbar.ax.tick_params(labelsize=fontsize)
    return Heatmaps(fig, axes, images, colorbar)


def static_png(
    matrices: object, xlabel: str, ylabel: str, titles: Sequence[str] | None = None, **kwargs: object
) -> bytes:
    """The same picture as `show_heatmaps`, rendered to PNG bytes without touching pyplot (nothing is shown)."""
    import io

    import matplotlib.pyplot as plt

    rows, cols, Q, K = as_panels(matrices).shape  # panel rows, panel columns, queries, keys
    figsize = (1.0 + cols * (0.6 + 0.35 * K), 0.6 + rows * (0.6 + 0.35 * Q))  # ~0.35 inch per cell
    heatmaps = show_heatmaps(matrices, xlabel, ylabel, titles, figsize, **kwargs)
    buffer = io.BytesIO()
    heatmaps.fig.savefig(buffer, format="png", dpi=72, bbox_inches="tight")
    plt.close(heatmaps.fig)
    return buffer.getvalue()


_HEX = np.array([f"{v:02x}" for v in range(256)])


def _hex_colours(values: np.ndarray, cmap: str, vmin: float, vmax: float) -> tuple[np.ndarray, np.ndarray]:
    """Values of any shape -> ('#rrggbb' strings, luminance in [0, 1]), both of the same shape."""
    rgba = colormaps[cmap](np.clip((values - vmin) / (vmax - vmin), 0.0, 1.0))  # (..., 4) floats in [0, 1]
    rgb = np.round(rgba[..., :3] * 255).astype(int)  # (..., 3)
    hexes = np.char.add(np.char.add(np.char.add("#", _HEX[rgb[..., 0]]), _HEX[rgb[..., 1]]), _HEX[rgb[..., 2]])
    return hexes, rgba[..., :3] @ np.array([0.299, 0.587, 0.114])


def heatmaps_svg(
    matrices: object,
    xlabel: str,
    ylabel: str,
    titles: Sequence[str] | None = None,
    cmap: str = "Reds",
    *,
    vmin: float = 0.0,
    vmax: float = 1.0,
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    cell: int | None = None,
    show_values: bool | None = None,
    colorbar: bool = True,
    only_colorbar: bool = False,
) -> str:
    """Matrices (R, C, Q, K) -> one SVG string: the same grid as `show_heatmaps`, built in about a millisecond."""
    panels = as_panels(matrices)
    rows, cols, Q, K = panels.shape  # panel rows, panel columns, queries, keys
    titles = _check_titles(titles, cols)
    xticks = _check_labels(xticklabels, K, "xticklabels") or [str(k) for k in range(K)]
    yticks = _check_labels(yticklabels, Q, "yticklabels") or [str(q) for q in range(Q)]
    cmap = _lecture_cmap(cmap)
    scale = _STYLE["scale"]
    if cell is None:
        cell = int(max(8, min(40, 240 // max(Q, K))) * scale)
    font = int(11 * scale)
    if show_values is None:
        show_values = cell >= 26
    left = int(font * 0.62 * max(len(t) for t in yticks)) + 2 * font + 8  # room for the y label and y ticks
    top = 2 * font if titles else font // 2
    upright = max(len(t) for t in xticks) * font * 0.62 <= cell  # short tick labels fit side by side
    tick_extent = font if upright else int(font * 0.62 * max(len(t) for t in xticks))
    bottom = tick_extent + 2 * font + 6
    panel_w, panel_h, gap = K * cell, Q * cell, font
    bar_w = 12
    if only_colorbar:  # just the colour scale, as tall as the panels would be
        left, cols, colorbar = 0, 0, True
    width = left + cols * (panel_w + gap) + (bar_w + 5 * font if colorbar else 0)
    height = top + rows * (panel_h + gap) + bottom
    colours, luminance = _hex_colours(panels, cmap, vmin, vmax)  # (R, C, Q, K) each
    esc = html.escape
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="{font}" shape-rendering="crispEdges">'
    ]
    for i in range(rows if cols else 0):
        y0 = top + i * (panel_h + gap)
        parts.append(
            f'<text transform="translate({font},{y0 + panel_h / 2}) rotate(-90)" text-anchor="middle">{esc(ylabel)}</text>'
        )
        for q, label in enumerate(yticks):
            parts.append(
                f'<text x="{left - 4}" y="{y0 + (q + 0.5) * cell + font * 0.35:.1f}" text-anchor="end">{esc(label)}</text>'
            )
        for j in range(cols):
            x0 = left + j * (panel_w + gap)
            if titles and i == 0:
                parts.append(
                    f'<text x="{x0 + panel_w / 2}" y="{font * 1.4:.1f}" text-anchor="middle">{esc(titles[j])}</text>'
                )
            parts.append(f'<g class="panel" data-row="{i}" data-col="{j}">')
            for q in range(Q):
                for k in range(K):
                    parts.append(
                        f'<rect x="{x0 + k * cell}" y="{y0 + q * cell}" width="{cell}" height="{cell}" '
                        f'fill="{colours[i, j, q, k]}"/>'
                    )
            parts.append("</g>")
            parts.append(f'<rect x="{x0}" y="{y0}" width="{panel_w}" height="{panel_h}" fill="none" stroke="#444"/>')
            if show_values:
                for q in range(Q):
                    for k in range(K):
                        value = panels[i, j, q, k]
                        ink = "#fff" if luminance[i, j, q, k] < 0.5 else "#222"
                        parts.append(
                            f'<text x="{x0 + (k + 0.5) * cell}" y="{y0 + (q + 0.5) * cell + font * 0.35:.1f}" '
                            f'text-anchor="middle" fill="{ink}" font-size="{int(font * 0.85)}">{value:.2f}</text>'
                        )
            if i == rows - 1:
                yb = y0 + panel_h + 4
                for k, label in enumerate(xticks):
                    xk = x0 + (k + 0.5) * cell
                    if upright:
                        parts.append(f'<text x="{xk}" y="{yb + font}" text-anchor="middle">{esc(label)}</text>')
                    else:
                        parts.append(
                            f'<text transform="translate({xk + font * 0.35:.1f},{yb}) rotate(-90)" text-anchor="end">'
                            f"{esc(label)}</text>"
                        )
                parts.append(
                    f'<text x="{x0 + panel_w / 2}" y="{yb + tick_extent + font * 1.5:.1f}" text-anchor="middle">{esc(xlabel)}</text>'
                )
    if not colorbar:
        parts.append("</svg>")
        return "".join(parts)
    # One colorbar for all panels: the scale is shared.
    bar_x, bar_h = left + cols * (panel_w + gap), rows * (panel_h + gap) - gap
    steps = 32
    parts.append('<g class="colorbar">')
    ramp, _ = _hex_colours(np.linspace(vmax, vmin, steps), cmap, vmin, vmax)
    for s, colour in enumerate(ramp):
        parts.append(
            f'<rect x="{bar_x}" y="{top + s * bar_h / steps:.1f}" width="{bar_w}" height="{bar_h / steps + 0.5:.1f}" fill="{colour}"/>'
        )
    parts.append("</g>")
    parts.append(f'<rect x="{bar_x}" y="{top}" width="{bar_w}" height="{bar_h}" fill="none" stroke="#444"/>')
    for value, y in ((vmax, top + font * 0.7), (vmin, top + bar_h)):
        parts.append(f'<text x="{bar_x + bar_w + 3}" y="{y:.1f}">{value:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def lecture_mode(on: bool = True, scale: float = 1.8, cmap: str = "inferno") -> None:
    """Bigger figures and fonts and a high-contrast colour map (in place of the default "Reds" only) for projecting;
    `lecture_mode(False)` restores."""
    if not isinstance(on, bool):
        raise TypeError(f"on must be True or False, got {on!r}")
    if on and not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale!r}")
    if on and cmap not in colormaps:
        raise ValueError(f"cmap must be a matplotlib colour map name, got {cmap!r}")
    _STYLE.update(scale=scale, cmap=cmap, fontsize=int(10 * scale)) if on else _STYLE.update(
        scale=1.0, cmap=None, fontsize=None
    )
