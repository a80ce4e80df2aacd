"""Small SVG pictures: a query among keys in the plane and a curve through points (notebook 0), points turning on
circles and one output's row of weights beside all of them (notebook 5), the date translator's alignment of output
over input characters (notebooks 0, 2, 3, 6), the online softmax's weights and running statistics block by block
(notebook 8), query heads sharing key/value heads and a query and a key as arrows in the plane of one feature pair
(notebook 9).

Text and lines use `currentColor`, so the pictures follow the notebook's theme (light or dark); only data is
coloured. Each function returns one `<svg>` string, a few kilobytes, fast enough to draw every explorer frame.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence

import torch

from .. import _validate as check
from .svg import PALETTE

__all__ = [
    "FIT_COLOUR",
    "KEY_COLOUR",
    "QUERY_COLOUR",
    "alignment_svg",
    "chosen_row_svg",
    "curve_svg",
    "grouped_heads_svg",
    "online_softmax_svg",
    "pair_arrows_svg",
    "query_svg",
    "rotation_svg",
    "side_by_side",
]

KEY_COLOUR = "#d62728"  # keys and their weights
QUERY_COLOUR = "#1f77b4"  # the query
FIT_COLOUR = "#1f77b4"  # a fitted curve


def _vector(value: object, name: str, length: int | None = None, like: str = "") -> list[float]:
    want = (f"({length},)" if length is not None else "(n,)") + (f", one per entry of {like}" if like else "")
    check.tensor(name, value, shape=want)
    if value.dim() != 1 or (length is not None and value.shape[0] != length):
        raise ValueError(f"{name} must have shape {want}, got {tuple(value.shape)}")
    _finite_numbers(name, value)
    return [float(v) for v in value.detach().cpu().double().tolist()]


def _finite_numbers(name: str, value: torch.Tensor) -> None:
    """Real numbers without NaN or infinity: a picture cannot place them."""
    if value.dtype == torch.bool or value.is_complex():
        raise TypeError(f"{name} must hold real numbers, got dtype {value.dtype}")
    check.finite(name, value)


_MAX_PIXELS = 100_000  # no picture is wider or taller: a size past it is a mistake (and 10**400 overflows a float)


def _text_size(name: str, value: object) -> int:
    value = check.positive_int(name, value)  # pixels
    if value > _MAX_PIXELS:
        raise ValueError(f"{name} must be at most {_MAX_PIXELS} pixels, got {value}")
    return value


def query_svg(
    query: torch.Tensor,
    keys: torch.Tensor,
    weights: torch.Tensor,
    labels: Sequence[str] | None = None,
    *,
    extent: float = 3.0,
    size: int = 260,
) -> str:
    """Query (2,), keys (K, 2), weights (K,) -> the keys as discs whose area is their weight, the query as an arrow."""
    q = _vector(query, "query", 2)
    check.tensor("keys", keys, shape="(K, 2)")
    if keys.dim() != 2 or keys.shape[1] != 2:
        raise ValueError(f"keys must be a tensor of shape (K, 2), got {tuple(keys.shape)}")
    _finite_numbers("keys", keys)
    K = keys.shape[0]  # keys
    w = _vector(weights, "weights", K, "keys")
    if labels is not None and (isinstance(labels, str) or not isinstance(labels, Sequence)):
        raise TypeError(f"labels must be a list of {K} labels, one per key, got {check.describe(labels)}")
    names = [f"k{i + 1}" for i in range(K)] if labels is None else [str(label) for label in labels]
    if len(names) != K:
        raise ValueError(f"labels must hold one label per key ({K}), got {len(names)}")
    extent = check.real("extent", extent, low=0.0, low_open=True)
    size = _text_size("size", size)
    half = size / 2
    to_x = lambda x: half + x / extent * (half - 14)  # noqa: E731
    to_y = lambda y: half - y / extent * (half - 14)  # noqa: E731
    alt = f"query ({q[0]:.2f}, {q[1]:.2f}) and {K} keys, disc area = weight: " + ", ".join(
        f"{name} {weight:.2f}" for name, weight in zip(names, w, strict=True)
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" font-family="sans-serif" '
        f'font-size="11" fill="currentColor" stroke="none" role="img" aria-label="{html.escape(alt, quote=True)}">',
        f'<g stroke="currentColor" stroke-opacity="0.35"><line x1="0" y1="{half}" x2="{size}" y2="{half}"/>'
        f'<line x1="{half}" y1="0" x2="{half}" y2="{size}"/></g>',
    ]
    max_radius = 0.16 * size
    for (kx, ky), weight, name in zip(keys.detach().cpu().double().tolist(), w, names, strict=True):
        x, y = to_x(kx), to_y(ky)
        radius = max_radius * max(weight, 0.0) ** 0.5  # area proportional to the weight
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}" fill="{KEY_COLOUR}" fill-opacity="0.45"/>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{KEY_COLOUR}"/>'
            f'<text x="{x + 6:.1f}" y="{y - 6:.1f}">{html.escape(name)} {weight:.2f}</text>'
        )
    tip_x, tip_y = to_x(q[0]), to_y(q[1])
    length = max(((tip_x - half) ** 2 + (tip_y - half) ** 2) ** 0.5, 1e-9)
    ux, uy = (tip_x - half) / length, (tip_y - half) / length  # unit vector along the arrow (screen coordinates)
    head = [
        (tip_x, tip_y),
        (tip_x - 9 * ux - 4.5 * uy, tip_y - 9 * uy + 4.5 * ux),
        (tip_x - 9 * ux + 4.5 * uy, tip_y - 9 * uy - 4.5 * ux),
    ]
    parts.append(
        f'<line x1="{half}" y1="{half}" x2="{tip_x - 8 * ux:.1f}" y2="{tip_y - 8 * uy:.1f}" stroke="{QUERY_COLOUR}" '
        'stroke-width="2.5"/>'
        f'<polygon points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in head)}" fill="{QUERY_COLOUR}"/>'
        f'<text x="{tip_x + 6:.1f}" y="{tip_y + 14:.1f}" fill="{QUERY_COLOUR}">q</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def curve_svg(
    points_x: torch.Tensor,
    points_y: torch.Tensor,
    curve_x: torch.Tensor,
    curves: dict[str, torch.Tensor],
    *,
    title: str = "",
    width: int = 320,
    height: int = 220,
) -> str:
    """Points (n,) as dots and named curves over curve_x (m,) as lines; the first curve solid, the others dashed."""
    px = _vector(points_x, "points_x")
    py = _vector(points_y, "points_y", len(px), "points_x")
    cx = _vector(curve_x, "curve_x")
    if not isinstance(curves, dict):
        raise TypeError(f"curves must be a dict name -> values (m,) over curve_x, got {check.describe(curves)}")
    if not curves:
        raise ValueError("curves must name at least one curve")
    for name in curves:
        check.text("curves' names", name)
    check.text("title", title)
    width, height = _text_size("width", width), _text_size("height", height)
    if not px and not cx:
        raise ValueError("points_x and curve_x are both empty: nothing to draw")
    lines = {name: _vector(y, f"curves[{name!r}]", len(cx), "curve_x") for name, y in curves.items()}
    every_y = py + [v for ys in lines.values() for v in ys]
    every_x = px + cx
    x0, x1 = min(every_x), max(every_x)
    y0, y1 = min(every_y), max(every_y)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    left, right, top, bottom = 34, 8, 22 if title else 8, 22
    to_x = lambda x: left + (x - x0) / (x1 - x0) * (width - left - right)  # noqa: E731
    to_y = lambda y: height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom)  # noqa: E731
    alt = f"{title + ': ' if title else ''}{len(px)} points, x from {x0:.3g} to {x1:.3g}; " + "; ".join(
        f"{name}: from {ys[0]:.3g} to {ys[-1]:.3g}, between {min(ys):.3g} and {max(ys):.3g}"
        for name, ys in lines.items()
        if ys
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="11" fill="currentColor" role="img" aria-label="{html.escape(alt, quote=True)}">',
        f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" fill="none" '
        'stroke="currentColor" stroke-opacity="0.5"/>',
        f'<text x="{left - 4}" y="{to_y(y1) + 4:.1f}" text-anchor="end">{y1:.1f}</text>'
        f'<text x="{left - 4}" y="{to_y(y0):.1f}" text-anchor="end">{y0:.1f}</text>'
        f'<text x="{left}" y="{height - 6}">{x0:g}</text>'
        f'<text x="{width - right}" y="{height - 6}" text-anchor="end">{x1:g}</text>',
    ]
    if title:
        parts.append(f'<text x="{left}" y="14">{html.escape(title)}</text>')
    for x, y in zip(px, py, strict=True):
        parts.append(f'<circle cx="{to_x(x):.1f}" cy="{to_y(y):.1f}" r="2.2" fill="{KEY_COLOUR}"/>')
    for i, (name, ys) in enumerate(lines.items()):
        path = " ".join(f"{to_x(x):.1f},{to_y(y):.1f}" for x, y in zip(cx, ys, strict=True))
        style = f'stroke="{FIT_COLOUR}" stroke-width="2"' if i == 0 else 'stroke="currentColor" stroke-dasharray="4 3"'
        parts.append(f'<polyline points="{path}" fill="none" {style}/>')
        parts.append(
            f'<text x="{width - right - 4}" y="{top + 14 + 13 * i}" text-anchor="end">'
            f"{'━' if i == 0 else '┅'} {html.escape(name)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


_LABEL = re.compile(r'^<svg[^>]*?\saria-label="([^"]*)"')
_OPENING = re.compile(r"^<svg\s[^>]*>")  # the opening tag (attribute values escape ">", so none holds one)
_LENGTH = {name: re.compile(rf'\s{name}="(\d+(?:\.\d+)?)"') for name in ("width", "height")}  # in any order


def side_by_side(*svgs: str, gap: int = 12, columns: int | None = None) -> str:
    """Several `<svg>` strings (each with width and height) -> one SVG with them in a row, tops aligned; with
    `columns`, in rows of that many (a strip of four as 2 x 2, for a narrow page)."""
    if not svgs:
        raise ValueError("side_by_side needs at least one SVG string")
    gap = check.int_at_least("gap", gap, 0)
    if gap > _MAX_PIXELS:
        raise ValueError(f"gap must be at most {_MAX_PIXELS} pixels, got {gap}")
    sizes = []
    for i, svg in enumerate(svgs):
        if not isinstance(svg, str):
            raise TypeError(f"svgs[{i}] must be an <svg ...> string, got {check.describe(svg)}")
        opening = _OPENING.match(svg)
        found = [_LENGTH[name].search(opening[0]) if opening else None for name in ("width", "height")]
        if None in found:
            raise ValueError(f"svgs[{i}] must be an <svg ...> string with width and height, got {svg[:40]!r}")
        sizes.append((float(found[0][1]), float(found[1][1])))
    columns = len(svgs) if columns is None else check.positive_int("columns", columns)
    places, y, width = [], 0.0, 0.0  # each picture's (x, y): rows of `columns`, tops aligned in a row
    for start in range(0, len(svgs), columns):
        row, x = sizes[start : start + columns], 0.0
        for w, _ in row:
            places.append((x, y))
            x += w + gap
        width = max(width, x - gap)
        y += max(h for _, h in row) + gap
    height = y - gap
    labels = [html.unescape(m[1]) for svg in svgs if (m := _LABEL.match(svg))]
    alt = f' role="img" aria-label="{html.escape("; ".join(labels), quote=True)}"' if labels else ""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" fill="currentColor"{alt}>']
    for svg, (x, y) in zip(svgs, places, strict=True):
        opening = _OPENING.match(svg)[0]  # placed at (x, y): any x or y of its own gives way
        placed = re.sub(r'\s(?:x|y)="[^"]*"', "", opening).replace("<svg", f'<svg x="{x:g}" y="{y:g}"', 1)
        parts.append(placed + svg[len(opening) :])
    parts.append("</svg>")
    return "".join(parts)


def _arc(mx: float, my: float, scale: float, size: int) -> str:
    """The unit circle's arc inside a size x size window centred on (mx, my), scale pixels per unit: a polyline."""
    half = size / 2 / scale  # the window's half-width, in units
    alpha = math.atan2(my, mx)  # the direction of the window's centre
    delta = min(math.pi, 2 * half / max(math.hypot(mx, my), 1e-9))  # enough of the circle to cross the window
    points = []
    for i in range(61):
        angle = alpha - delta + 2 * delta * i / 60
        x, y = size / 2 + (math.cos(angle) - mx) * scale, size / 2 - (math.sin(angle) - my) * scale
        if 0 <= x <= size and 0 <= y <= size:
            points.append(f"{x:.1f},{y:.1f}")
    return f'<polyline points="{" ".join(points)}" fill="none" stroke="currentColor" stroke-opacity="0.35"/>'


def rotation_svg(
    before: torch.Tensor,
    after: torch.Tensor,
    titles: Sequence[str],
    *,
    size: int = 150,
    zoom: Sequence[float] | None = None,
) -> str:
    """Points before (C, n, 2) and after (C, n, 2) a move, one unit circle per panel: hollow grey before, filled
    after, a chord from each point to where it went (equal chords: the same rotation for every point).

    `zoom`: one magnification >= 1 per panel (default 1); a zoomed panel is centred on the mean of its `before`
    points, so that points a small turn apart can be told apart, and shows the circle's arc through them."""
    for name, value in (("before", before), ("after", after)):
        check.tensor(name, value, shape="(C, n, 2)")
        if value.dim() != 3 or value.shape[-1] != 2:
            raise ValueError(f"{name} must be a tensor of shape (C, n, 2), got {tuple(value.shape)}")
        _finite_numbers(name, value)
    if before.shape != after.shape:
        raise ValueError(f"after must have the shape of before {tuple(before.shape)}, got {tuple(after.shape)}")
    C = before.shape[0]  # circles (panels)
    if isinstance(titles, str) or not isinstance(titles, Sequence):
        raise TypeError(f"titles must be a list of {C} titles, one per circle, got {check.describe(titles)}")
    if len(titles) != C:
        raise ValueError(f"titles must hold one title per circle ({C}), got {titles!r}")
    size = _text_size("size", size)
    zooms = [1.0] * C if zoom is None else check.reals("zoom", zoom)
    if len(zooms) != C:
        raise ValueError(f"zoom must hold one magnification per circle ({C}), got {len(zooms)}")
    if any(z < 1 for z in zooms):
        raise ValueError(f"zoom must hold magnifications >= 1, got {zooms}")
    radius, top = size / 2 - 12, 18
    turns = []
    for c in range(C if before.shape[1] else 0):
        (bx, by), (ax, ay) = before[c, 0].tolist(), after[c, 0].tolist()
        turn = (math.degrees(math.atan2(ay, ax) - math.atan2(by, bx)) + 180) % 360 - 180
        turns.append(f"{titles[c]}: {before.shape[1]} points turned by {turn:.0f} degrees")
    alt = "points on a unit circle before (hollow) and after (filled) a move; " + "; ".join(turns)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{C * size}" height="{size + top}" font-family="sans-serif" '
        f'font-size="11" fill="currentColor" role="img" aria-label="{html.escape(alt, quote=True)}">'
    ]
    for c in range(C):
        cx, cy = c * size + size / 2, top + size / 2
        parts.append(f'<text x="{cx:.1f}" y="13" text-anchor="middle">{html.escape(str(titles[c]))}</text>')
        scale, (mx, my) = radius, (0.0, 0.0)  # pixels per unit; the point drawn at the panel's centre
        if zooms[c] != 1:  # a window of the plane around the points, clipped to the panel by a nested <svg>
            scale, (mx, my) = radius * zooms[c], before[c].double().mean(dim=0).tolist()
            parts.append(f'<svg x="{c * size}" y="{top}" width="{size}" height="{size}">')
            cx, cy = size / 2, size / 2
        if zooms[c] == 1:
            parts.append(
                f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" fill="none" stroke="currentColor" '
                'stroke-opacity="0.35"/>'
            )
        else:  # only the arc inside the window: a whole circle this large would reach far outside the picture
            parts.append(_arc(mx, my, scale, size))
        pairs = zip(before[c].tolist(), after[c].tolist(), strict=True)
        for (bx, by), (ax, ay) in pairs:
            x0, y0 = cx + (bx - mx) * scale, cy - (by - my) * scale
            x1, y1 = cx + (ax - mx) * scale, cy - (ay - my) * scale
            parts.append(
                f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{QUERY_COLOUR}" '
                'stroke-opacity="0.6"/>'
                f'<circle cx="{x0:.1f}" cy="{y0:.1f}" r="3.5" fill="none" stroke="currentColor" stroke-opacity="0.6"/>'
                f'<circle cx="{x1:.1f}" cy="{y1:.1f}" r="3" fill="{QUERY_COLOUR}"/>'
            )
        if zooms[c] != 1:
            parts.append("</svg>")
    parts.append("</svg>")
    return "".join(parts)


def alignment_svg(weights: object, text: str, output: str, title: str = "") -> str:
    """Weights (T, L) of one translation -> an SVG heatmap: a row per output character (T = len(output)), a column
    per input character (the first len(text) <= L columns; a space drawn as ␣). Weights are rounded to 2 decimals
    first, so that a last-bit difference between processors cannot change a colour."""
    from ..plotting import heatmaps_svg  # matplotlib's colour maps load only when a picture is drawn

    text, output, title = check.text("text", text), check.text("output", output), check.text("title", title)
    weights = check.tensor("weights", weights, dims=2, shape="(T, L)", floating=True)
    T, L = weights.shape  # output characters, input positions
    if not output:
        raise ValueError("output must hold at least one character (one row of the picture), got ''")
    if T != len(output) or not 1 <= len(text) <= L:
        raise ValueError(
            f"weights must have shape (T, L) with T = len(output) = {len(output)} and L >= len(text) = {len(text)} "
            f"(at least 1), got {tuple(weights.shape)}"
        )
    _finite_numbers("weights", weights)
    rounded = (weights.detach()[:, : len(text)].float() * 100).round() / 100  # (T, len(text)), as float32
    return heatmaps_svg(
        rounded[None, None], "input character", "output character", [title], cells="image", show_values=False,
        xticklabels=[c if c != " " else "␣" for c in text], yticklabels=list(output), cell=18,
    )  # fmt: skip


def chosen_row_svg(
    weights: torch.Tensor,
    position: int,
    tokens: Sequence[str],
    causal: bool = False,
    titles: Sequence[str] = ("every output", "the chosen output"),
) -> str:
    """Weights (n, n) of one head, queries by keys -> one SVG: every output's row (left) and output `position`'s row
    alone with its numbers (right); with `causal`, the keys after each output drawn masked (grey, crossed out)."""
    from .svg import heatmaps_svg  # matplotlib's colour maps load only when a picture is drawn

    weights = check.tensor("weights", weights, dims=2, shape="(n, n)", floating=True)
    n = weights.shape[0]  # positions
    if weights.shape[1] != n or n == 0:
        raise ValueError(f"weights must have shape (n, n), queries by keys, with n >= 1, got {tuple(weights.shape)}")
    _finite_numbers("weights", weights)
    position = check.int_at_least("position", position, 0)
    if position >= n:
        raise ValueError(f"position must be < n = {n} (weights' rows), got {position}")
    tokens = [check.text(f"tokens[{i}]", t) for i, t in enumerate(check.sequence("tokens", tokens, "str"))]
    if len(tokens) != n:
        raise ValueError(f"tokens must hold {n} labels, one per row of weights, got {len(tokens)}")
    causal = check.boolean("causal", causal)
    titles = [check.text(f"titles[{i}]", t) for i, t in enumerate(check.sequence("titles", titles, "str"))]
    if len(titles) != 2:
        raise ValueError(f"titles must hold 2 titles, one per panel, got {len(titles)}")
    weights = weights.detach()[None, None]  # (1, 1, n, n): one panel
    keep = torch.ones(1, 1, n, n, dtype=torch.bool)  # True = may attend
    if causal:
        keep = keep.tril()  # output i sees keys 0 .. i
    every = heatmaps_svg(
        weights, "Inputs (keys)", "Outputs (queries)", [titles[0]], mask=keep, xticklabels=tokens, yticklabels=tokens,
        colorbar=False, cells="image",
    )  # fmt: skip
    row = slice(position, position + 1)  # the chosen output only: (1, n)
    chosen = heatmaps_svg(
        weights[..., row, :], "Inputs (keys)", "", [titles[1]], mask=keep[..., row, :], xticklabels=tokens,
        yticklabels=[tokens[position]], show_values=True,
    )  # fmt: skip
    return side_by_side(every, chosen)


def _sharing_diagram(groups: int, centres: list[float], width: float) -> str:
    """Query heads (circles) above the key/value heads (squares) they use, one colour per group, 70 px tall."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="70" font-family="sans-serif" font-size="12">'
    ]
    size = len(centres) // groups  # query heads per group
    for h, x in enumerate(centres):
        g = h // size
        kv_x = sum(centres[g * size : (g + 1) * size]) / size  # below the middle of its group
        parts.append(f'<line x1="{x:.0f}" y1="16" x2="{kv_x:.0f}" y2="48" stroke="{PALETTE[g]}" stroke-width="2"/>')
        parts.append(f'<circle cx="{x:.0f}" cy="12" r="9" fill="{PALETTE[g]}"/>')
        parts.append(f'<text x="{x + 13:.0f}" y="16" fill="currentColor">q {h}</text>')
        if h % size == 0:
            parts.append(f'<rect x="{kv_x - 10:.0f}" y="46" width="20" height="18" fill="{PALETTE[g]}"/>')
            parts.append(f'<text x="{kv_x + 14:.0f}" y="60" fill="currentColor">K/V {g}</text>')
    return "".join(parts) + "</svg>"


def grouped_heads_svg(weights: torch.Tensor, keys: torch.Tensor, groups: int) -> str:
    """Weights (H, L, L) and the keys (H, L, d) each query head uses, with `groups` key/value heads (G divides H)
    -> one SVG: a diagram of which query head (circle) uses which key/value head (square, one colour per group)
    above each head's weights, and each head's keys below (scaled so the largest is ±1)."""
    from .svg import heatmaps_svg  # matplotlib's colour maps load only when a picture is drawn

    weights = check.tensor("weights", weights, dims=3, shape="(H, L, L)", floating=True)
    keys = check.tensor("keys", keys, dims=3, shape="(H, L, d)", floating=True)
    H, L = weights.shape[:2]  # query heads, positions
    if H == 0 or L == 0 or weights.shape[2] != L:
        raise ValueError(
            f"weights must have shape (H, L, L), queries by keys, with H >= 1 and L >= 1, got {tuple(weights.shape)}"
        )
    if keys.shape[0] != H or keys.shape[1] != L or keys.shape[2] == 0:
        raise ValueError(
            f"keys must have shape (H, L, d) = ({H}, {L}, d >= 1), the heads and positions of weights, got "
            f"{tuple(keys.shape)}"
        )
    groups = check.int_at_least("groups", groups, 1)
    if H % groups or groups > len(PALETTE):
        raise ValueError(f"groups must divide H = {H} and be at most {len(PALETTE)} (one colour each), got {groups}")
    _finite_numbers("weights", weights)
    _finite_numbers("keys", keys)
    weights, keys = weights.detach().cpu(), keys.detach().cpu()
    if weights.dtype in (torch.float16, torch.bfloat16):  # numpy has no bfloat16: widen (losslessly) to float32
        weights, keys = weights.float(), keys.float()
    size = H // groups  # query heads per group
    titles = [f"q {h} → K/V {h // size}" for h in range(H)]
    top = heatmaps_svg(weights[None].numpy(), "key position", "query position", titles, cell=18)  # 0 to 1
    largest = keys.abs().max()
    bottom = heatmaps_svg(
        (keys / (largest if largest > 0 else 1))[None].numpy(), "feature", "token", [f"keys of q {h}" for h in range(H)],
        "RdBu_r", vmin=-1, vmax=1, cell=18,
    )  # fmt: skip
    sizes = [[int(svg.split(f'{a}="')[1].split('"')[0]) for a in ("width", "height")] for svg in (top, bottom)]
    width = max(w for w, _ in sizes)
    # the top row's panels (nested <svg x= width=>), read from the SVG, so that the diagram's circles sit above them
    panels_at = re.findall(r'<svg x="([\d.]+)" y="[\d.]+" width="([\d.]+)"[^>]*><g class="panel" data-row="0"', top)
    centres = [float(x) + float(w) / 2 for x, w in panels_at]  # the middle of each panel
    top = top.replace("<svg ", '<svg y="70" ', 1)  # below the diagram
    bottom = bottom.replace("<svg ", f'<svg y="{70 + sizes[0][1]}" ', 1)  # below the weights
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{70 + sizes[0][1] + sizes[1][1]}">'
        f"{_sharing_diagram(groups, centres, width)}{top}{bottom}</svg>"
    )


def online_softmax_svg(weights: torch.Tensor, history: Mapping[str, torch.Tensor], blocks: int) -> str:
    """The weights (Q, K) known after `blocks` key blocks (NaN, drawn grey: keys not read yet) beside one line chart
    per entry of `history` (title -> (N, Q): a value per block read and query, N blocks in all), each drawn up to
    `blocks` with that block marked; the charts' scales fit all N blocks, so they stay put as the blocks arrive."""
    from .svg import heatmaps_svg, line_chart_svg  # matplotlib's colour maps load only when a picture is drawn

    weights = check.has_values("weights", check.tensor("weights", weights, dims=2, shape="(Q, K)", floating=True))
    if not isinstance(history, Mapping) or not history:
        raise TypeError(
            f"history must be a non-empty mapping of titles to (N, Q) tensors, got {check.describe(history)}"
        )
    Q = weights.shape[0]  # queries
    n_blocks = None
    for title, values in history.items():
        if not isinstance(title, str):
            raise TypeError(f"history's titles must be strings, got {check.describe(title)}")
        values = check.tensor(f"history[{title!r}]", values, dims=2, shape="(N, Q)", floating=True)
        if values.shape[1] != Q or (n_blocks is not None and values.shape[0] != n_blocks):
            want = f"N = {n_blocks}, " if n_blocks is not None else ""
            raise ValueError(
                f"history[{title!r}] must have shape (N, Q) with {want}Q = {Q} (weights' queries), got {tuple(values.shape)}"
            )
        _finite_numbers(f"history[{title!r}]", values)
        n_blocks = values.shape[0]
    blocks = check.int_at_least("blocks", blocks, 1)
    if blocks > n_blocks:
        raise ValueError(f"blocks must be at most N = {n_blocks} (history's blocks), got {blocks}")
    heat = heatmaps_svg(weights.detach().cpu()[None, None].numpy(), "Keys", "Queries",
                        [f"weights after {blocks} of {n_blocks} blocks"], colorbar=False, show_values=False, cell=12)  # fmt: skip
    charts = []
    for title, values in history.items():
        values = values.detach().cpu()
        shown = values.clone()  # (N, Q)
        shown[blocks:] = float("nan")  # the blocks not read yet
        low, high = values.min().item(), values.max().item()
        pad = 0.05 * (high - low)
        charts.append(line_chart_svg(
            list(range(1, n_blocks + 1)), {f"query {q}": shown[:, q].tolist() for q in range(Q)},
            title=title, xlabel="blocks read", width=230, height=180, ylim=(low - pad, high + pad),
            xlim=(1, n_blocks), markers=True, highlight=blocks,
        ))  # fmt: skip
    return side_by_side(heat, *charts, columns=2)  # one SVG, 2 x 2 (a valid image file for renderers without widgets)


def _arrows_panel(q: list[float], k: list[float], title: str, x0: int) -> str:
    """One 180 x 200 panel at x0: axes, the unit circle, q and k as arrows from the centre (1 unit = 35 px)."""
    cx, cy, scale = x0 + 90, 110, 35
    parts = [
        f'<text x="{cx}" y="14" text-anchor="middle" fill="currentColor">{html.escape(title)}</text>',
        f'<circle cx="{cx}" cy="{cy}" r="{scale}" fill="none" stroke="currentColor" stroke-opacity="0.3"/>',
        f'<line x1="{cx - 85}" y1="{cy}" x2="{cx + 85}" y2="{cy}" stroke="currentColor" stroke-opacity="0.3"/>',
        f'<line x1="{cx}" y1="{cy - 85}" x2="{cx}" y2="{cy + 85}" stroke="currentColor" stroke-opacity="0.3"/>',
    ]
    for vector, name, colour in ((q, "q", PALETTE[0]), (k, "k", PALETTE[5])):
        x, y = cx + scale * vector[0], cy - scale * vector[1]
        parts.append(f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="{colour}" stroke-width="3"/>')
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}"/>')
        parts.append(f'<text x="{x + 6:.1f}" y="{y - 6:.1f}" fill="{colour}">{name}</text>')
    return "".join(parts)


def pair_arrows_svg(panels: Sequence[tuple[str, torch.Tensor, torch.Tensor]]) -> str:
    """Panels of (title, q (2,), k (2,)): one pair of features of a query and a key -> one SVG, a 180-pixel panel
    each, side by side: the axes, the unit circle, and q and k as arrows from the centre (1 unit = 35 px)."""
    panels = check.sequence("panels", panels, "(title, q, k) tuples")
    if not panels:
        raise ValueError("panels must be a non-empty sequence of (title, q, k) tuples, got an empty one")
    drawn, alts = [], []
    for i, panel in enumerate(panels):
        if not isinstance(panel, tuple) or len(panel) != 3:
            raise TypeError(f"panels[{i}] must be a (title, q, k) tuple, got {check.describe(panel)}")
        title, q, k = panel
        title = check.text(f"panels[{i}] title", title)
        q, k = _vector(q, f"panels[{i}] q", 2), _vector(k, f"panels[{i}] k", 2)
        drawn.append(_arrows_panel(q, k, title, 190 * i))
        (qx, qy), (kx, ky) = q, k
        alts.append(f"{title}: q ({qx:.2f}, {qy:.2f}), k ({kx:.2f}, {ky:.2f}), q·k {qx * kx + qy * ky:.2f}")
    width = 190 * len(panels) - 10
    alt = "a query q and a key k as arrows in the plane of one feature pair; " + "; ".join(alts)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="205" font-family="sans-serif" font-size="12" '
        f'role="img" aria-label="{html.escape(alt, quote=True)}">' + "".join(drawn) + "</svg>"
    )
