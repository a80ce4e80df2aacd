"""Heatmaps of attention weights: `show_heatmaps` (matplotlib) and `heatmaps_svg` (fast SVG for live widgets).

Vocabulary: R rows and C columns of panels, each panel a (Q, K) matrix: queries down, keys across.
`show_heatmaps` never clips silently: its one colour scale is [0, 1] when every value lies there (attention
weights) and the data's range otherwise (scores, positional encodings), unless `vmin`/`vmax` are given.
Both draw masked cells (`mask=`, True = may attend) and NaN in one grey, `SVG_MASKED`, outside the colour scale.
"""

from __future__ import annotations

import base64
import functools
import html
import re
import struct
import zlib
from collections.abc import Sequence

import numpy as np
import torch
from matplotlib import colormaps
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ._validate import boolean, describe, has_values, positive_int, real, real_valued, text

__all__ = [
    "DEFAULT_CMAP",
    "SVG_MASKED",
    "WHITE_INK",
    "Heatmaps",
    "as_panels",
    "colour_limits",
    "heatmap_cell_colours",
    "heatmaps_svg",
    "lecture_mode",
    "show_heatmaps",
    "static_png",
]

# Settings that `lecture_mode()` changes; read at draw time so one call affects every later picture.
_STYLE = {"scale": 1.0, "cmap": None, "fontsize": None}
DEFAULT_CMAP = "Reds"


def _lecture_cmap(cmap: str | Colormap) -> str | Colormap:
    # Lecture mode swaps the default weights map only: a map chosen on purpose (a diverging one for signed values,
    # say) keeps its meaning.
    return _STYLE["cmap"] if _STYLE["cmap"] and isinstance(cmap, str) and cmap == DEFAULT_CMAP else cmap


def as_panels(matrices: object, name: str = "matrices") -> np.ndarray:
    """Tensor (any device, with or without grad) or array of shape (R, C, Q, K) -> float64 numpy array."""
    if isinstance(matrices, torch.Tensor):
        array = real_valued(name, has_values(name, matrices)).detach().to("cpu", torch.float64).numpy()
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


def _limit(name: str, value: object) -> float | None:
    """A colour limit: None (from the data) or a finite real number (a numpy or 0-d tensor scalar is read too)."""
    if value is None:
        return None
    if isinstance(value, np.number) or (isinstance(value, torch.Tensor) and value.dim() == 0):
        value = value.item()
    return real(name, value)


def colour_limits(panels: np.ndarray, vmin: object = None, vmax: object = None) -> tuple[float, float]:
    """The colour scale of `show_heatmaps`: [0, 1] when every value lies in [0, 1], else the data's range
    (NaN ignored; a constant outside [0, 1] gets +-0.5 around it); a given vmin or vmax replaces its end."""
    if not isinstance(panels, np.ndarray) or not np.issubdtype(panels.dtype, np.floating):
        raise TypeError(f"panels must be a float numpy array (what as_panels returns), got {describe(panels)}")
    vmin, vmax = _limit("vmin", vmin), _limit("vmax", vmax)
    finite = panels[np.isfinite(panels)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if 0.0 <= low and high <= 1.0:
        low, high = 0.0, 1.0
    elif low == high:
        low, high = low - 0.5, high + 0.5
    low, high = low if vmin is None else vmin, high if vmax is None else vmax
    if not low < high:
        given = " and ".join(f"{n}={v:g}" for n, v in (("vmin", vmin), ("vmax", vmax)) if v is not None)
        raise ValueError(
            f"vmin must be smaller than vmax, got vmin={low:g}, vmax={high:g} ({given} given, the rest from the "
            f"data); give both"
        )
    return low, high


def _figsize(value: object) -> tuple[float, float]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"figsize must be a (width, height) pair in inches, got {describe(value)}")
    return (
        real("figsize[0] (width)", value[0], low=0.0, low_open=True),
        real("figsize[1] (height)", value[1], low=0.0, low_open=True),
    )


def _cmap(value: object, allow_object: bool = False) -> str | Colormap:
    """A matplotlib colour map name (or, where `allow_object`, a Colormap)."""
    if allow_object and isinstance(value, Colormap):
        return value
    if not isinstance(value, str):
        raise TypeError(f"cmap must be a matplotlib colour map name such as 'Reds', got {describe(value)}")
    if value not in colormaps:
        raise ValueError(f"cmap must be a matplotlib colour map name such as 'Reds' or 'Blues', got {value!r}")
    return value


class Heatmaps:
    """What `show_heatmaps` returns: the Figure, its (R, C) array of axes, the images and the shared colorbar."""

    def __init__(self, fig: Figure, axes: np.ndarray, images: np.ndarray, colorbar: Colorbar):
        if not isinstance(fig, Figure):
            raise TypeError(f"fig must be a matplotlib Figure, got {describe(fig)}")
        for name, grid in (("axes", axes), ("images", images)):
            if not isinstance(grid, np.ndarray) or grid.ndim != 2:
                raise TypeError(
                    f"{name} must be a 2-D numpy array (rows, cols) of matplotlib objects, got {describe(grid)}"
                )
        if axes.shape != images.shape:
            raise ValueError(f"axes and images must have one shape (rows, cols), got {axes.shape} and {images.shape}")
        if not isinstance(colorbar, Colorbar):
            raise TypeError(f"colorbar must be a matplotlib Colorbar, got {describe(colorbar)}")
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


def _masked_grey(cmap: str | Colormap) -> Colormap:
    """The colour map with masked and NaN cells ("bad" values) drawn in `SVG_MASKED`, as `heatmaps_svg` draws them."""
    return (colormaps[cmap] if isinstance(cmap, str) else cmap).with_extremes(bad=SVG_MASKED)


def _hatch(ax: object, hidden: np.ndarray) -> None:
    """One white diagonal across each hidden cell (Q, K) of an imshow panel: grey reads as "no weight", not "small"."""
    from matplotlib.collections import LineCollection

    qs, ks = np.nonzero(hidden)
    if qs.size:  # bottom-left to top-right of each cell, as heatmaps_svg draws it
        segments = [((k - 0.5, q + 0.5), (k + 0.5, q - 0.5)) for q, k in zip(qs.tolist(), ks.tolist(), strict=True)]
        ax.add_collection(LineCollection(segments, colors="white", alpha=0.8, linewidths=0.8), autolim=False)


def _short(value: float) -> str:
    return f"{value:.3g}"


def _describe_figure(fig: Figure, limit: int = 900) -> str:
    """A matplotlib figure in words, for its text alternative: each panel's title, axes, ranges and data (lines with
    their range and last point, bars with their heights, images with their shape and value range, scatter points);
    at most `limit` characters."""
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {describe(fig)}")
    positive_int("limit", limit)
    from matplotlib.container import BarContainer

    panels = []
    for ax in fig.axes:
        words = [ax.get_title()] if ax.get_title() else []
        xlabel, ylabel = ax.get_xlabel(), ax.get_ylabel()
        if xlabel or ylabel:
            words.append(f"{ylabel or 'y'} against {xlabel or 'x'}")
        for image in ax.get_images():
            data = np.ma.masked_invalid(np.asarray(image.get_array(), dtype=float))
            if data.count():
                words.append(f"image {data.shape[0]}×{data.shape[1]}, {_short(data.min())} to {_short(data.max())}")
        for line in ax.get_lines():
            x, y = np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)
            keep = np.isfinite(x) & np.isfinite(y)
            if keep.sum() < 2:
                continue
            x, y = x[keep], y[keep]
            name = line.get_label() if not line.get_label().startswith("_") else "line"
            words.append(f"{name}: {_short(y.min())} to {_short(y.max())}, last {_short(y[-1])} at {_short(x[-1])}")
        for container in ax.containers:
            if isinstance(container, BarContainer):
                heights = [_short(bar.get_height()) for bar in container.patches]
                words.append(f"bars {' '.join(heights)}")
        points = sum(len(c.get_offsets()) for c in ax.collections if hasattr(c, "get_offsets"))
        if points and not ax.get_images():
            words.append(f"{points} points")
        if len(words) > (1 if ax.get_title() else 0):
            panels.append(", ".join(words))
    text = "; ".join(panels) or "an empty figure"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _smallest_text_px(fig: Figure) -> float | int | None:
    """The smallest visible text of a drawn figure (its tick labels exist once drawn: `_with_alt_text` calls it after
    the PNG is made), in the pixels of its PNG (points x dpi / 72; IPython's inline backend saves at the figure's
    dpi), or None if it has none. The decks and the book scale it by the picture's drawn width
    over its PNG width: the size a reader sees (issue 36)."""
    from matplotlib.text import Text

    sizes, artists = [], [fig]
    while artists:  # an artist hidden hides its children (a hidden panel's tick labels)
        artist = artists.pop()
        if not artist.get_visible():
            continue
        if isinstance(artist, Text) and artist.get_text().strip():
            sizes.append(artist.get_fontsize())
        artists.extend(artist.get_children())
    if not sizes:
        return None
    px = round(min(sizes) * fig.dpi / 72, 2)
    return (
        int(px) if px == int(px) else px
    )  # 25, not 25.0: JupyterLab writes JSON numbers so, and saves must not differ


def _with_alt_text(fig: Figure | None = None, alt: str | None = None) -> None:
    """Have IPython display every figure's PNG with the output metadata `{"alt": ..., "text_px": ...}` (the book
    shows `alt` as the image's text alternative; `text_px` is `_smallest_text_px`): `alt` if given for this figure
    (kept on it), `_describe_figure` otherwise. The PNG formatter for figures is wrapped once per formatter (pyplot's
    inline backend installs its own when it loads)."""
    if fig is not None and alt is not None:
        fig._ah_alt = alt  # type: ignore[attr-defined]
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    shell = get_ipython()
    if shell is None:
        return
    png = shell.display_formatter.formatters["image/png"]
    try:
        current = png.lookup_by_type(Figure)
    except KeyError:
        return
    if getattr(current, "_ah_alt", False):
        return

    def with_alt(figure: Figure) -> object:
        data = current(figure)
        if data is None:
            return None
        try:
            alt_text = getattr(figure, "_ah_alt", None) or _describe_figure(figure)
            text_px = _smallest_text_px(figure)
        except Exception:  # noqa: BLE001 - a text alternative must never stop a figure from showing
            return data
        return data, {"alt": alt_text} | ({} if text_px is None else {"text_px": text_px})

    with_alt._ah_alt = True  # type: ignore[attr-defined]
    png.for_type(Figure, with_alt)


def _watch_figures() -> None:
    """Wrap the PNG formatter now and before every cell (pyplot may be imported, installing its own, later)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return
    shell = get_ipython()
    if shell is None or getattr(shell, "_ah_watching_figures", False):
        return
    shell._ah_watching_figures = True
    shell.events.register("post_execute", lambda: _with_alt_text())
    _with_alt_text()


def _row_label(ax: object, label: str, fontsize: int | None) -> None:
    """A bold label left of a panel row, beside the y axis's tick labels and title: upright along the row where it
    fits the panel's height (as `heatmaps_svg` draws it), across otherwise (a row of one query is short)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width = TextToPath().get_text_width_height_descent(label, FontProperties(weight="bold", size=fontsize), False)[0]
    ax.apply_aspect()  # the panel's drawn box: imshow keeps square cells
    height = ax.get_position().height * ax.figure.get_figheight() * 72  # points
    ax.annotate(
        label,
        xy=(0.0, 0.5),
        xycoords=lambda renderer: ax.yaxis.get_tightbbox(renderer),  # the y label and ticks, drawn or not yet
        xytext=(-4, 0),
        textcoords="offset points",
        rotation=90 if width <= height else 0,
        ha="right",
        va="center",
        fontweight="bold",
        fontsize=fontsize,
    )


def show_heatmaps(
    matrices: object,
    xlabel: str,
    ylabel: str,
    titles: Sequence[str] | None = None,
    figsize: tuple[float, float] = (2.5, 2.5),
    cmap: str | Colormap = "Reds",
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
    mask: object = None,
    rowlabels: Sequence[str] | None = None,
) -> Heatmaps:
    """Draw matrices (R, C, Q, K) as an R x C grid sharing one colour scale and one colorbar.

    The scale is [0, 1] when every value lies in [0, 1], the data's range otherwise; `vmin`/`vmax` replace an end.
    `mask` (boolean, broadcastable to (R, C, Q, K), True = may attend, as `valid_lens_to_mask` gives it and
    `heatmaps_svg` takes it) and NaN cells are drawn grey (`SVG_MASKED`) with a white diagonal, outside the colour
    scale. `rowlabels`: one label per panel row (e.g. "sequence 0"), drawn at the left of the row.
    """
    import matplotlib.pyplot as plt

    panels = as_panels(matrices)
    rows, cols, Q, K = panels.shape  # panel rows, panel columns, queries, keys
    xlabel, ylabel = text("xlabel", xlabel), text("ylabel", ylabel)
    titles = _svg_labels(titles, cols, "titles", "titles, one per column")
    xticklabels = _svg_labels(xticklabels, K, "xticklabels")
    yticklabels = _svg_labels(yticklabels, Q, "yticklabels")
    rowlabels = _svg_labels(rowlabels, rows, "rowlabels", "labels, one per row")
    hidden = np.isnan(panels)  # (R, C, Q, K): True where masked (or NaN)
    if mask is not None:
        hidden = hidden | _svg_hidden(mask, panels.shape)
    vmin, vmax = colour_limits(np.where(hidden, np.nan, panels), vmin, vmax)  # masked cells take no part
    figsize = _figsize(figsize)
    cmap = _cmap(cmap, allow_object=True)
    scale, fontsize = _STYLE["scale"], _STYLE["fontsize"]
    cmap = _masked_grey(_lecture_cmap(cmap))
    fig, axes = plt.subplots(
        rows, cols, figsize=(figsize[0] * scale, figsize[1] * scale), sharex=True, sharey=True, squeeze=False
    )
    images = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            ax = axes[i, j]
            shown = np.ma.masked_array(panels[i, j], hidden[i, j]) if hidden[i, j].any() else panels[i, j]
            images[i, j] = ax.imshow(shown, cmap=cmap, vmin=vmin, vmax=vmax)
            _hatch(ax, hidden[i, j])
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
    for i, label in enumerate(rowlabels or []):  # once the colorbar has taken its room: the panels' final size
        _row_label(axes[i, 0], label, fontsize)
    if fontsize:
        colorbar.ax.tick_params(labelsize=fontsize)
    yticks = yticklabels or [str(q) for q in range(Q)]
    xticks = xticklabels or [str(k) for k in range(K)]
    label = _describe(panels, hidden, xlabel, ylabel, titles, rowlabels, yticks, xticks)
    _with_alt_text(fig, f"{label}, colour scale {vmin:.2g} to {vmax:.2g}")
    _watch_figures()
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
WHITE_INK = ' fill="#fff"'  # numbers on dark cells
SVG_MASKED = "#c8c8c8"  # masked and NaN cells in heatmaps_svg and show_heatmaps: a grey no weight map gives a value


@functools.lru_cache(maxsize=16)
def _colour_table(cmap: str) -> tuple[np.ndarray, np.ndarray]:
    """A colour map's 256 entries as '#rrggbb' strings and their luminance (matplotlib rebuilds its table per copy)."""
    rgba = colormaps[cmap](np.arange(256))  # (256, 4) floats in [0, 1]
    rgb = np.round(rgba[:, :3] * 255).astype(int)  # (256, 3)
    hexes = np.array(["#" + "".join(_HEX[c] for c in colour) for colour in rgb])
    return hexes, rgba[:, :3] @ np.array([0.299, 0.587, 0.114])


def _hex_colours(values: np.ndarray, cmap: str, vmin: float, vmax: float) -> tuple[np.ndarray, np.ndarray]:
    """Values of any shape -> ('#rrggbb' strings, luminance in [0, 1]), both of the same shape; NaN -> grey."""
    missing = np.isnan(values)
    scaled = np.clip((np.where(missing, vmin, values) - vmin) / (vmax - vmin), 0.0, 1.0)
    index = np.minimum((scaled * 256).astype(int), 255)  # matplotlib's own binning of [0, 1] into 256 colours
    hexes, luminance = _colour_table(cmap)
    return np.where(missing, SVG_MASKED, hexes[index]), np.where(missing, 0.78, luminance[index])


def _rgb(hexes: np.ndarray) -> np.ndarray:
    """'#rrggbb' strings (Q, K) -> uint8 (Q, K, 3)."""
    flat = bytes.fromhex("".join(h[1:] for h in hexes.reshape(-1).tolist()))
    return np.frombuffer(flat, dtype=np.uint8).reshape(*hexes.shape, 3)


def _png(rgb: np.ndarray) -> bytes:
    """uint8 (H, W, 3) -> PNG bytes (8-bit RGB, no filter): a few hundred bytes for a heatmap panel."""
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + row.tobytes() for row in rgb)  # filter type 0 before each row

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def heatmap_cell_colours(svg: str) -> list[list[str]]:
    """The cell colours ('#rrggbb', row-major) of every panel of a `heatmaps_svg` picture, rects or image."""
    text("svg", svg)
    panels = []
    for body in re.findall(r'<g class="panel"[^>]*>(.*?)</g>', svg):
        image = re.search(r'href="data:image/png;base64,([^"]+)"', body)
        if image is None:
            panels.append(re.findall(r'fill="(#[0-9a-f]{6})"', body))
            continue
        data = base64.b64decode(image.group(1))
        width, height = struct.unpack(">II", data[16:24])
        start = data.index(b"IDAT") + 4
        length = struct.unpack(">I", data[start - 8 : start - 4])[0]
        raw = zlib.decompress(data[start : start + length])
        rows = [raw[1 + y * (3 * width + 1) : (y + 1) * (3 * width + 1)] for y in range(height)]
        panels.append([f"#{row[3 * x : 3 * x + 3].hex()}" for row in rows for x in range(width)])
    return panels


def _svg_labels(labels: object, length: int, name: str, what: str = "labels") -> list[str] | None:
    if labels is None:
        return None
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__") or not hasattr(labels, "__iter__"):
        raise TypeError(f"{name} must be a sequence of {length} {what}, got {type(labels).__name__}: {labels!r}")
    if len(labels) != length:
        raise ValueError(f"{name} must be a sequence of {length} {what}, got {len(labels)}: {list(labels)!r}")
    return [str(label) for label in labels]


def _svg_limits(vmin: object, vmax: object) -> tuple[float, float]:
    vmin, vmax = real("vmin", _limit("vmin", vmin)), real("vmax", _limit("vmax", vmax))
    if not vmin < vmax:
        raise ValueError(f"vmin must be smaller than vmax, got vmin={vmin:g}, vmax={vmax:g}")
    return vmin, vmax


def _svg_hidden(mask: object, shape: tuple[int, ...]) -> np.ndarray:
    """`mask` (True = may attend, as `valid_lens_to_mask` and `show_heatmaps` take it) -> True where hidden."""
    if isinstance(mask, torch.Tensor):
        mask = has_values("mask", mask).detach().cpu().numpy()
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_:
        raise TypeError(
            f"mask must be a boolean tensor or array, True where a query may attend, got {type(mask).__name__}"
            + (f" of dtype {mask.dtype}" if hasattr(mask, "dtype") else "")
        )
    try:
        return ~np.broadcast_to(mask, shape)
    except ValueError:
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to the matrices' shape {shape}") from None


_DASHED = ' stroke-dasharray="6 4"'  # an outline's dashes (heatmaps_svg's `outlines`)


def _span(labels: list[str], first: int, last: int) -> str:
    return labels[first] if first == last else f"{labels[first]} to {labels[last]}"


def _svg_outlines(outlines: object, Q: int, K: int) -> list[tuple[int, int, int, int, str]]:
    """heatmaps_svg's `outlines`, checked: (first query, last query, first key, last key, style) per rectangle."""
    if outlines is None:
        return []
    what = "(queries, keys, style) triples, e.g. [(range(5), range(5), 'dashed')]"
    if isinstance(outlines, (str, bytes)) or not isinstance(outlines, Sequence):
        raise TypeError(f"outlines must be a sequence of {what}, got {type(outlines).__name__}: {outlines!r}")
    boxes = []
    for i, box in enumerate(outlines):
        if isinstance(box, (str, bytes)) or not isinstance(box, Sequence) or len(box) != 3:
            raise TypeError(f"outlines[{i}] must be a (queries, keys, style) triple, got {box!r}")
        spans = []
        for name, index, size in (("queries", box[0], Q), ("keys", box[1], K)):
            if isinstance(index, (str, bytes)) or not isinstance(index, Sequence) or not index:
                raise TypeError(f"outlines[{i}] {name} must be a non-empty sequence of ints, got {index!r}")
            index = list(index)
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in index):
                raise TypeError(f"outlines[{i}] {name} must be ints, got {index!r}")
            if index != list(range(index[0], index[0] + len(index))) or not 0 <= index[0] <= index[-1] < size:
                raise ValueError(f"outlines[{i}] {name} must be consecutive indices in 0 .. {size - 1}, got {index!r}")
            spans += [index[0], index[-1]]
        if box[2] not in ("dashed", "solid"):
            raise ValueError(f"outlines[{i}] style must be 'dashed' or 'solid', got {box[2]!r}")
        boxes.append((*spans, box[2]))
    return boxes


def _describe(
    panels: np.ndarray,
    hidden: np.ndarray,
    xlabel: str,
    ylabel: str,
    titles: list[str] | None,
    rowlabels: list[str] | None,
    yticks: list[str],
    xticks: list[str],
) -> str:
    """A heatmap grid (R, C, Q, K) in words, for screen readers: its shape, then each row's values (to 2 decimals,
    "masked" for a hidden cell), or, past 8 columns, each row's largest value and where it is."""
    rows, cols, Q, K = panels.shape
    count = rows * cols
    words = [
        f"heatmap{'s' if count > 1 else ''}, {Q} {ylabel} × {K} {xlabel}" + (f", {count} panels" if count > 1 else "")
    ]
    for i in range(rows):
        for j in range(cols):
            name = ", ".join(n for n in ((rowlabels or [""] * rows)[i], (titles or [""] * cols)[j]) if n)
            lines = []
            for q in range(Q):
                row, gone = panels[i, j, q], hidden[i, j, q]
                if K <= 8:
                    cells = " ".join(
                        "masked" if g else f"{v:.2f}" for v, g in zip(row.tolist(), gone.tolist(), strict=True)
                    )
                elif gone.all():
                    cells = "all masked"
                else:
                    k = int(np.nanargmax(np.where(gone, -np.inf, row)))
                    cells = f"largest {row[k]:.2f} at {xticks[k]}" + (
                        f", {int(gone.sum())} masked" if gone.any() else ""
                    )
                lines.append(f"row {yticks[q]}: {cells}")
            words.append((f"{name}: " if name else "") + "; ".join(lines))
    return ". ".join(words)


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
    mask: object = None,
    rowlabels: Sequence[str] | None = None,
    cells: str = "rects",
    outlines: Sequence[tuple[Sequence[int], Sequence[int], str]] | None = None,
) -> str:
    """Matrices (R, C, Q, K) -> one SVG string: the same grid as `show_heatmaps`, built in about a millisecond.

    `mask` (boolean, broadcastable to (R, C, Q, K), True = may attend, as `show_heatmaps` takes it) and NaN cells
    are drawn grey and hatched, with no number. `rowlabels`: one label per panel row (e.g. "sequence 0"), drawn at
    the left. Text, axes and frames use `currentColor` (readable in light and dark themes); each cell is one
    `<rect>` (one unit square, in a nested `<svg>` per panel) in its panel's `<g class="panel">`, row-major; with
    `cells="image"`, each panel's cells are one pixelated PNG `<image>` instead (for explorers that store many
    frames); `heatmap_cell_colours(svg)` reads the colours back from either. `outlines`: (queries, keys, style)
    triples, each drawing a thick rectangle, "dashed" or "solid", round that block of every panel (queries and keys:
    consecutive indices, e.g. `range(5)`); the text alternative says which blocks are outlined, and how."""
    panels = as_panels(matrices)
    rows, cols, Q, K = panels.shape  # panel rows, panel columns, queries, keys
    boxes = _svg_outlines(outlines, Q, K)
    xlabel, ylabel = text("xlabel", xlabel), text("ylabel", ylabel)
    titles = _svg_labels(titles, cols, "titles", "titles, one per column")
    xticks = _svg_labels(xticklabels, K, "xticklabels") or [str(k) for k in range(K)]
    yticks = _svg_labels(yticklabels, Q, "yticklabels") or [str(q) for q in range(Q)]
    rowlabels = _svg_labels(rowlabels, rows, "rowlabels", "labels, one per row")
    vmin, vmax = _svg_limits(vmin, vmax)
    cmap = _cmap(cmap)
    for name, flag in (("show_values", show_values), ("colorbar", colorbar), ("only_colorbar", only_colorbar)):
        if flag is not None:
            boolean(name, flag)
    if cell is not None:
        positive_int("cell (pixels per cell)", cell)
    if cells not in ("rects", "image"):
        raise ValueError(f"cells must be 'rects' or 'image', got {cells!r}")
    hidden = np.isnan(panels)  # (R, C, Q, K)
    if mask is not None:
        hidden = hidden | _svg_hidden(mask, panels.shape)
    cmap = _lecture_cmap(cmap)
    scale = _STYLE["scale"]
    if cell is None:
        cell = int(max(8, min(40, 240 // max(Q, K))) * scale)
    font = int(11 * scale)
    if show_values is None:
        show_values = cell >= 26
    row_w = int(font * 1.6) if rowlabels else 0  # room for the row labels, left of everything
    left = row_w + int(font * 0.62 * max(len(t) for t in yticks)) + 2 * font + 8  # y label and y ticks
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
    colours, luminance = _hex_colours(np.where(hidden, np.nan, panels), cmap, vmin, vmax)  # (R, C, Q, K) each
    fills, light, numbers, blank = colours.tolist(), (luminance < 0.5).tolist(), panels.tolist(), hidden.tolist()
    esc = html.escape
    label = (
        "colour scale"
        if only_colorbar
        else _describe(panels, hidden, xlabel, ylabel, titles, rowlabels, yticks, xticks)
    )
    for q0, q1, k0, k1, style in boxes:
        label += (
            f"; outlined ({style}) in every panel: {ylabel} {_span(yticks, q0, q1)} × {xlabel} {_span(xticks, k0, k1)}"
        )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="{font}" fill="currentColor" shape-rendering="crispEdges" role="img" '
        f'aria-label="{esc(label + f", colour scale {vmin:g} to {vmax:g}" if colorbar else label)}">'
    ]
    for i in range(rows if cols else 0):
        y0 = top + i * (panel_h + gap)
        if rowlabels:
            parts.append(
                f'<text transform="translate({font},{y0 + panel_h / 2}) rotate(-90)" text-anchor="middle" '
                f'font-weight="bold" class="rowlabel">{esc(rowlabels[i])}</text>'
            )
        parts.append(
            f'<text transform="translate({row_w + font},{y0 + panel_h / 2}) rotate(-90)" text-anchor="middle">'
            f"{esc(ylabel)}</text>"
        )
        parts.append('<g text-anchor="end">')
        parts.extend(
            f'<text x="{left - 4}" y="{y0 + (q + 0.5) * cell + font * 0.35:.1f}">{esc(label)}</text>'
            for q, label in enumerate(yticks)
        )
        parts.append("</g>")
        for j in range(cols):
            x0 = left + j * (panel_w + gap)
            if titles and i == 0:
                parts.append(
                    f'<text x="{x0 + panel_w / 2}" y="{font * 1.4:.1f}" text-anchor="middle">{esc(titles[j])}</text>'
                )
            # cells in a nested SVG with one unit per cell: short coordinates keep many frames small
            parts.append(
                f'<svg x="{x0}" y="{y0}" width="{panel_w}" height="{panel_h}" viewBox="0 0 {K} {Q}">'
                f'<g class="panel" data-row="{i}" data-col="{j}">'
            )
            if cells == "image":  # one pixel per cell, scaled up without smoothing: ~10x fewer bytes than rects
                png = base64.b64encode(_png(_rgb(colours[i, j]))).decode("ascii")
                parts.append(
                    f'<image width="{K}" height="{Q}" preserveAspectRatio="none" '
                    f'style="image-rendering:pixelated" href="data:image/png;base64,{png}"/>'
                )
            else:
                parts.extend(
                    f'<rect x="{k}" y="{q}" width="1" height="1" fill="{fills[i][j][q][k]}"/>'
                    for q in range(Q)
                    for k in range(K)
                )
            parts.append("</g>")
            if hidden[i, j].any():  # a light hatch over masked cells: grey reads as "no weight", not "small"
                qs, ks = np.nonzero(hidden[i, j])
                strokes = "".join(f"M{k} {q + 1}l1-1" for q, k in zip(qs.tolist(), ks.tolist(), strict=True))
                parts.append(
                    f'<path class="masked" d="{strokes}" stroke="#fff" stroke-opacity="0.8" fill="none" '
                    f'vector-effect="non-scaling-stroke" shape-rendering="auto"/>'
                )
            parts.append("</svg>")
            parts.append(
                f'<rect x="{x0}" y="{y0}" width="{panel_w}" height="{panel_h}" fill="none" stroke="currentColor"/>'
            )
            parts.extend(
                f'<rect class="outline" x="{x0 + k0 * cell:g}" y="{y0 + q0 * cell:g}" width="{(k1 - k0 + 1) * cell:g}" '
                f'height="{(q1 - q0 + 1) * cell:g}" fill="none" stroke="currentColor" stroke-width="3"'
                f"{_DASHED if style == 'dashed' else ''}/>"
                for q0, q1, k0, k1, style in boxes
            )
            if show_values:
                parts.append(
                    f'<g class="values" text-anchor="middle" font-size="{max(10, int(font * 0.85))}" fill="#222">'
                )
                parts.extend(
                    f'<text x="{x0 + (k + 0.5) * cell:g}" y="{y0 + (q + 0.5) * cell + font * 0.35:.0f}"'
                    f"{WHITE_INK if light[i][j][q][k] else ''}>{numbers[i][j][q][k]:.2f}</text>"
                    for q in range(Q)
                    for k in range(K)
                    if not blank[i][j][q][k]
                )
                parts.append("</g>")
            if i == rows - 1:
                yb = y0 + panel_h + 4
                parts.append(f'<g text-anchor="{"middle" if upright else "end"}">')
                for k, label in enumerate(xticks):
                    xk = x0 + (k + 0.5) * cell
                    if upright:
                        parts.append(f'<text x="{xk:g}" y="{yb + font}">{esc(label)}</text>')
                    else:
                        parts.append(
                            f'<text transform="translate({xk + font * 0.35:.1f},{yb}) rotate(-90)">{esc(label)}</text>'
                        )
                parts.append("</g>")
                parts.append(
                    f'<text x="{x0 + panel_w / 2}" y="{yb + tick_extent + font * 1.5:.1f}" text-anchor="middle">'
                    f"{esc(xlabel)}</text>"
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
            f'<rect x="{bar_x}" y="{top + s * bar_h / steps:.1f}" width="{bar_w}" height="{bar_h / steps + 0.5:.1f}" '
            f'fill="{colour}"/>'
        )
    parts.append("</g>")
    parts.append(f'<rect x="{bar_x}" y="{top}" width="{bar_w}" height="{bar_h}" fill="none" stroke="currentColor"/>')
    for value, y in ((vmax, top + font * 0.7), (vmin, top + bar_h)):
        parts.append(f'<text x="{bar_x + bar_w + 3}" y="{y:.1f}">{value:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def lecture_mode(on: bool = True, scale: float = 1.8, cmap: str = "inferno") -> None:
    """Bigger figures and fonts and a high-contrast colour map (in place of the default "Reds" only) for projecting;
    `lecture_mode(False)` restores."""
    boolean("on", on)
    scale = real("scale", scale, low=0.0, low_open=True)
    cmap = _cmap(cmap)
    _STYLE.update(scale=scale, cmap=cmap, fontsize=int(10 * scale)) if on else _STYLE.update(
        scale=1.0, cmap=None, fontsize=None
    )


_watch_figures()  # every figure shown in a kernel that loaded this module gets a text alternative
