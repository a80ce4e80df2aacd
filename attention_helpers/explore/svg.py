"""Small SVG charts for explorers: lines, scatter points and bars, built as strings in about a millisecond.

Every text, axis and frame line uses `currentColor`, so a picture reads in light and dark themes alike; only data
marks carry colours. Each helper returns one `<svg ...>...</svg>` string, ready for `PictureExplorer`'s `draw`.
`heatmap_svg` is `attention_helpers.plotting.heatmaps_svg` (matrices (R, C, Q, K) -> SVG).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

from .. import _validate as check

__all__ = ["PALETTE", "bar_chart_svg", "heatmap_svg", "heatmaps_svg", "line_chart_svg", "nice_ticks", "scatter_svg"]

# Colour-blind-safe categorical colours (Okabe & Ito, 2008), readable on white and on near-black.
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442")
_FONT = 11


def heatmaps_svg(*args: object, **kwargs: object) -> str:
    """Matrices (R, C, Q, K) -> SVG heatmap grid; see `attention_helpers.plotting.heatmaps_svg`."""
    from ..plotting import heatmaps_svg as draw  # matplotlib's colour maps load only when a heatmap is drawn

    return draw(*args, **kwargs)


heatmap_svg = heatmaps_svg


def _numbers(values: object, name: str) -> list[float]:
    """A non-empty sequence of reals; NaN and infinity allowed (a chart leaves such points out)."""
    return check.reals(name, values, finite=False)


def _size(value: object, name: str, least: int = 60) -> int:
    return check.int_at_least(name, value, least)  # pixels


def _texts(values: object, name: str, length: int | None = None, like: str = "x") -> list[str]:
    """A sequence of labels (str or numbers, shown with str()), of `length` items if given."""
    values = check.sequence(name, values, "labels")
    if length is not None and len(values) != length:
        raise ValueError(f"{name} must hold {length} labels, one per entry of {like}, got {len(values)}")
    return [str(v) for v in values]


def _colours(colours: object, name: str = "colours") -> list[str]:
    if colours is None:
        return list(PALETTE)
    if isinstance(colours, str) or not isinstance(colours, Sequence) or not colours:
        raise TypeError(
            f"{name} must be a non-empty list of CSS colours such as '#0072b2', got {check.describe(colours)}"
        )
    return [check.text(f"{name}[{i}]", c) for i, c in enumerate(colours)]


def _words(**texts: object) -> None:
    for name, value in texts.items():
        check.text(name, value)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round tick values (1, 2, 5 x 10^n steps) covering [low, high] (just [low] when high == low)."""
    low, high = check.real("low", low), check.real("high", high)
    check.positive_int("count", count)
    if high < low:
        raise ValueError(f"high must be >= low, got low={low} and high={high}")
    if high == low:
        return [low]
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks, value = [], first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


def _label(value: float) -> str:
    return f"{value:.4g}"


class _Frame:
    """Plot area, scales and the shared SVG scaffolding (title, axes, ticks, labels) of one chart."""

    def __init__(
        self,
        width: int,
        height: int,
        xlim: tuple[float, float],
        ylim: tuple[float, float],
        *,
        logx: bool = False,
        logy: bool = False,
        title: str = "",
        xlabel: str = "",
        ylabel: str = "",
        legend_width: int = 0,
    ):
        self.width, self.height, self.logx, self.logy = width, height, logx, logy
        self.left, self.right = 3 * _FONT + 26, 8 + legend_width
        self.top, self.bottom = (2 * _FONT if title else _FONT), 3 * _FONT + 8
        self.title, self.xlabel, self.ylabel = str(title), str(xlabel), str(ylabel)
        self.x0, self.x1 = self._span(xlim, logx, "xlim")
        self.y0, self.y1 = self._span(ylim, logy, "ylim")

    @staticmethod
    def _span(lim: tuple[float, float], log: bool, name: str) -> tuple[float, float]:
        low, high = lim
        if log:
            if low <= 0:
                raise ValueError(f"{name} must be > 0 on a log axis, got {lim!r}")
            low, high = math.log10(low), math.log10(high)
        if high == low:  # one value: widen so that it sits in the middle (by more where 0.5 would round away)
            half = max(0.5, abs(low) * 1e-9)
            low, high = low - half, high + half
        if high < low:
            raise ValueError(f"{name} must be (low, high) with low < high, got {lim!r}")
        return low, high

    def x(self, value: float) -> float:
        value = math.log10(value) if self.logx else value
        span = self.width - self.left - self.right
        return self.left + (value - self.x0) / (self.x1 - self.x0) * span

    def y(self, value: float) -> float:
        value = math.log10(value) if self.logy else value
        span = self.height - self.top - self.bottom
        return self.height - self.bottom - (value - self.y0) / (self.y1 - self.y0) * span

    def _ticks(self, low: float, high: float, log: bool) -> list[float]:
        if log:
            powers = range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1)
            return [10.0**p for p in powers] or [10**low]
        return nice_ticks(low, high)

    def open(self, label: str, xticks: bool = True) -> list[str]:
        """The chart's opening: its <svg> (with `label` as its text alternative), title, axes and ticks."""
        esc = html.escape
        w, h, left, bottom = self.width, self.height, self.left, self.height - self.bottom
        right = w - self.right
        parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
            f'font-size="{_FONT}" fill="currentColor" role="img" aria-label="{esc(label, quote=True)}">'
        ]
        if self.title:
            parts.append(
                f'<text x="{(left + right) / 2:.1f}" y="{_FONT * 1.2:.1f}" text-anchor="middle">{esc(self.title)}</text>'
            )
        ticks = []
        for value in self._ticks(self.x0, self.x1, self.logx) if xticks else []:
            x = self.x(value)
            ticks.append(f"M{x:.1f} {bottom}v4")
            parts.append(f'<text x="{x:.1f}" y="{bottom + 4 + _FONT}" text-anchor="middle">{_label(value)}</text>')
        for value in self._ticks(self.y0, self.y1, self.logy):
            y = self.y(value)
            ticks.append(f"M{left} {y:.1f}h-4")
            parts.append(f'<text x="{left - 6}" y="{y + _FONT * 0.35:.1f}" text-anchor="end">{_label(value)}</text>')
        parts.append(
            f'<path d="M{left} {self.top}V{bottom}H{right} {" ".join(ticks)}" fill="none" stroke="currentColor"/>'
        )
        if self.xlabel:
            parts.append(
                f'<text x="{(left + right) / 2:.1f}" y="{h - 6}" text-anchor="middle">{esc(self.xlabel)}</text>'
            )
        if self.ylabel:
            parts.append(
                f'<text transform="translate({_FONT},{(self.top + bottom) / 2:.1f}) rotate(-90)" '
                f'text-anchor="middle">{esc(self.ylabel)}</text>'
            )
        return parts

    def legend(self, names: Sequence[str], colours: Sequence[str], marker: str = "line") -> list[str]:
        x, parts = self.width - self.right + 10, []
        for i, (name, colour) in enumerate(zip(names, colours, strict=True)):
            y = self.top + 4 + i * (_FONT + 6)
            if marker == "line":
                parts.append(f'<path d="M{x} {y}h16" stroke="{colour}" stroke-width="2"/>')
            else:
                parts.append(f'<circle cx="{x + 8}" cy="{y}" r="4" fill="{colour}"/>')
            parts.append(f'<text x="{x + 20}" y="{y + _FONT * 0.35:.1f}">{html.escape(str(name))}</text>')
        return parts


def _what(kind: str, title: str, xlabel: str, ylabel: str) -> str:
    """The start of a chart's text alternative: "line chart: Title, loss against step"."""
    axes = f"{ylabel or 'y'} against {xlabel or 'x'}"
    return f"{kind}{': ' + title if title else ''}, {axes}"


def _num(value: float) -> str:
    return f"{value:.3g}" if math.isfinite(value) else "none"


def _limits(values: list[float], lim: tuple[float, float] | None, log: bool, name: str, pad: float = 0.05):
    if lim is not None:
        if not isinstance(lim, (tuple, list)) or len(lim) != 2:
            raise TypeError(f"{name} must be a pair (low, high), got {check.describe(lim)}")
        return check.real(f"{name}[0]", lim[0]), check.real(f"{name}[1]", lim[1])
    finite = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not finite:
        return (1.0, 10.0) if log else (0.0, 1.0)
    low, high = min(finite), max(finite)
    if log:
        return low, high
    margin = (high - low) * pad
    return low - margin, high + margin


def _series(x: object, ys: object) -> tuple[list[float], dict[str, list[float]]]:
    xs = _numbers(x, "x")
    if isinstance(ys, Mapping):
        named = {str(k): _numbers(v, f"ys[{k!r}]") for k, v in ys.items()}
    else:
        named = {"": _numbers(ys, "ys")}
    if not named:
        raise ValueError("ys must hold at least one series")
    for key, values in named.items():
        if len(values) != len(xs):
            raise ValueError(f"series {key or 'ys'!r} has {len(values)} values but x has {len(xs)}")
    return xs, named


def line_chart_svg(
    x: Sequence[float],
    ys: Sequence[float] | Mapping[str, Sequence[float]],
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    width: int = 360,
    height: int = 220,
    xlim: tuple[float, float] | None = None,
    ylim: tuple[float, float] | None = None,
    logx: bool = False,
    logy: bool = False,
    markers: bool = False,
    colours: Sequence[str] | None = None,
    highlight: float | None = None,
) -> str:
    """Lines y(x): one sequence `ys`, or a dict name -> sequence (one line each, with a legend), sharing `x`.

    `highlight`: an x value marked by a dashed vertical line (e.g. the slider's position). Non-finite points break
    the line."""
    xs, named = _series(x, ys)
    width, height = _size(width, "width"), _size(height, "height")
    _words(title=title, xlabel=xlabel, ylabel=ylabel)
    for name, flag in (("logx", logx), ("logy", logy), ("markers", markers)):
        check.boolean(name, flag)
    colours = _colours(colours)
    if highlight is not None:
        highlight = check.real("highlight", highlight)
    all_y = [v for values in named.values() for v in values]
    labelled = [k for k in named if k]
    legend_width = (max(len(k) for k in labelled) * 7 + 34) if labelled else 0
    frame = _Frame(
        width,
        height,
        _limits(xs, xlim, logx, "xlim", pad=0.0),
        _limits(all_y, ylim, logy, "ylim"),
        logx=logx,
        logy=logy,
        title=title,
        xlabel=xlabel,
        ylabel=ylabel,
        legend_width=legend_width,
    )
    summaries = []
    for name, values in named.items():
        points = [(xv, yv) for xv, yv in zip(xs, values, strict=True) if math.isfinite(yv)]
        if points:
            top = max(points, key=lambda p: p[1])
            summaries.append(
                f"{name or 'line'}: {_num(points[0][1])} at {_num(points[0][0])} to {_num(points[-1][1])} at "
                f"{_num(points[-1][0])}, largest {_num(top[1])} at {_num(top[0])}"
            )
    parts = frame.open("; ".join([_what("line chart", title, xlabel, ylabel), *summaries]))
    for i, values in enumerate(named.values()):
        colour, path, pen_down = colours[i % len(colours)], [], False
        for xv, yv in zip(xs, values, strict=True):
            ok = math.isfinite(xv) and math.isfinite(yv) and (xv > 0 or not logx) and (yv > 0 or not logy)
            if ok:
                path.append(f"{'L' if pen_down else 'M'}{frame.x(xv):.1f} {frame.y(yv):.1f}")
            pen_down = ok
        parts.append(f'<path d="{"".join(path)}" fill="none" stroke="{colour}" stroke-width="2"/>')
        if markers:
            parts.extend(
                f'<circle cx="{frame.x(xv):.1f}" cy="{frame.y(yv):.1f}" r="3" fill="{colour}"/>'
                for xv, yv in zip(xs, values, strict=True)
                if math.isfinite(xv) and math.isfinite(yv)
            )
    if highlight is not None:
        hx = frame.x(highlight)
        parts.append(
            f'<path d="M{hx:.1f} {frame.top}V{height - frame.bottom}" stroke="currentColor" stroke-dasharray="4 3"/>'
        )
    if labelled:
        parts.extend(frame.legend(list(named), [colours[i % len(colours)] for i in range(len(named))]))
    parts.append("</svg>")
    return "".join(parts)


def scatter_svg(
    x: Sequence[float],
    y: Sequence[float],
    *,
    labels: Sequence[str] | None = None,
    groups: Sequence[int] | None = None,
    group_names: Sequence[str] | None = None,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    width: int = 300,
    height: int = 300,
    xlim: tuple[float, float] | None = None,
    ylim: tuple[float, float] | None = None,
    radius: float = 4.0,
    colours: Sequence[str] | None = None,
) -> str:
    """Points (x[i], y[i]), each optionally labelled (`labels`, drawn beside it) and coloured by `groups` (ints
    indexing `colours`; `group_names` adds a legend)."""
    xs, ys = _numbers(x, "x"), _numbers(y, "y")
    if len(xs) != len(ys):
        raise ValueError(f"x and y must have the same length, got {len(xs)} and {len(ys)}")
    if labels is not None:
        labels = _texts(labels, "labels", len(xs))
    if groups is not None:
        if isinstance(groups, str) or not isinstance(groups, Sequence):
            raise TypeError(f"groups must be a list of {len(xs)} ints, got {check.describe(groups)}")
        if len(groups) != len(xs):
            raise ValueError(f"groups must hold {len(xs)} ints, one per point, got {len(groups)}")
        groups = [check.int_at_least(f"groups[{i}]", g, 0) for i, g in enumerate(groups)]
    width, height = _size(width, "width"), _size(height, "height")
    _words(title=title, xlabel=xlabel, ylabel=ylabel)
    radius = check.real("radius", radius, low=0.0, low_open=True)
    colours = _colours(colours)
    names = _texts(group_names, "group_names") if group_names is not None else []
    legend_width = (max(len(n) for n in names) * 7 + 34) if names else 0
    frame = _Frame(
        width,
        height,
        _limits(xs, xlim, False, "xlim"),
        _limits(ys, ylim, False, "ylim"),
        title=title,
        xlabel=xlabel,
        ylabel=ylabel,
        legend_width=legend_width,
    )
    shown = [(xv, yv) for xv, yv in zip(xs, ys, strict=True) if math.isfinite(xv) and math.isfinite(yv)]
    spread = (
        f"x from {_num(min(p[0] for p in shown))} to {_num(max(p[0] for p in shown))}, "
        f"y from {_num(min(p[1] for p in shown))} to {_num(max(p[1] for p in shown))}"
        if shown
        else "no finite point"
    )
    parts = frame.open(f"{_what('scatter plot', title, xlabel, ylabel)}; {len(shown)} points, {spread}")
    for i, (xv, yv) in enumerate(zip(xs, ys, strict=True)):
        if not (math.isfinite(xv) and math.isfinite(yv)):
            continue
        colour = colours[(int(groups[i]) if groups is not None else 0) % len(colours)]
        cx, cy = frame.x(xv), frame.y(yv)
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:g}" fill="{colour}"/>')
        if labels is not None:
            parts.append(f'<text x="{cx + radius + 2:.1f}" y="{cy - radius:.1f}">{html.escape(str(labels[i]))}</text>')
    if names:
        parts.extend(frame.legend(names, [colours[i % len(colours)] for i in range(len(names))], marker="dot"))
    parts.append("</svg>")
    return "".join(parts)


def bar_chart_svg(
    values: Sequence[float],
    labels: Sequence[str] | None = None,
    *,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    width: int | None = None,
    height: int = 200,
    ylim: tuple[float, float] | None = None,
    colour: str = PALETTE[0],
    highlight: Sequence[int] | int | None = None,
    highlight_colour: str = PALETTE[5],
    show_values: bool = True,
) -> str:
    """Vertical bars, one per value, with category `labels` under them (default 0, 1, ...); bars listed in
    `highlight` (an index or indices) are drawn in `highlight_colour`. Bars start at 0 (or ylim's low end)."""
    heights = _numbers(values, "values")
    names = (
        [str(i) for i in range(len(heights))] if labels is None else _texts(labels, "labels", len(heights), "values")
    )
    if highlight is None:
        marked: set[int] = set()
    elif isinstance(highlight, int) and not isinstance(highlight, bool):
        marked = {check.int_at_least("highlight", highlight, 0)}
    elif isinstance(highlight, Sequence) and not isinstance(highlight, str):
        marked = {check.int_at_least(f"highlight[{i}]", h, 0) for i, h in enumerate(highlight)}
    else:
        raise TypeError(f"highlight must be a bar's index or a list of indices, got {check.describe(highlight)}")
    if any(i >= len(heights) for i in marked):
        raise ValueError(f"highlight must index the {len(heights)} bars (0..{len(heights) - 1}), got {sorted(marked)}")
    _words(title=title, xlabel=xlabel, ylabel=ylabel, colour=colour, highlight_colour=highlight_colour)
    check.boolean("show_values", show_values)
    if ylim is not None:
        ylim = _limits([], ylim, False, "ylim")
    bar = 28 if max(len(n) for n in names) <= 4 else 40
    width = _size(width if width is not None else 70 + len(heights) * bar, "width")
    height = _size(height, "height")
    finite = [v for v in heights if math.isfinite(v)]
    low, high = ylim if ylim is not None else (min([0.0, *finite]), max([0.0, *finite]) or 1.0)
    frame = _Frame(width, height, (0, len(heights)), (low, high), title=title, xlabel=xlabel, ylabel=ylabel)
    bars = ", ".join(f"{name} {_num(value)}" for name, value in zip(names, heights, strict=True))
    parts = frame.open(f"{_what('bar chart', title, xlabel, ylabel)}; {bars}", xticks=False)  # category labels
    step = (width - frame.left - frame.right) / len(heights)
    base = frame.y(max(low, 0.0) if low < 0 < high or low >= 0 else high)
    for i, (name, value) in enumerate(zip(names, heights, strict=True)):
        x = frame.left + i * step + step * 0.15
        fill = highlight_colour if i in marked else colour
        if math.isfinite(value):
            top = frame.y(min(max(value, low), high))
            y, h = min(top, base), abs(base - top)
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" fill="{fill}"/>')
            if show_values:
                parts.append(
                    f'<text x="{x + step * 0.35:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
                    f'font-size="{_FONT - 1}">{_label(value)}</text>'
                )
        parts.append(
            f'<text x="{x + step * 0.35:.1f}" y="{height - frame.bottom + 4 + _FONT}" '
            f'text-anchor="middle">{html.escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
