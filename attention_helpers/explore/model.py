"""The explorer's model, plain Python: control values -> one picture per combination, drawn in advance, errors kept.

A picture is split into regions (the whole picture, or one per batch row when rows do not interact). Each region
depends on some pre-drawn controls, its axes; it is drawn once for every combination of their positions, the
kernel-driven controls held at their current values. Nothing here touches a browser.
"""

from __future__ import annotations

import html
import itertools
import math
import traceback
from collections.abc import Callable, Mapping, Sequence

from .. import _validate as check
from .controls import Axis, check_axes

__all__ = ["MAX_FRAMES", "FrameModel", "Region", "count_frames", "error_html"]

MAX_FRAMES = 1024  # pictures drawn in advance per explorer, by default: about a second of kernel time and, at a
# few KB each, the page's widget-state budget (400 KB) is the tighter limit: prefer few positions


def error_html(error: BaseException, values: Mapping[str, object]) -> str:
    """An error shown where its picture would be: the exception and the control values that raised it."""
    if not isinstance(error, BaseException):
        raise TypeError(f"error must be an exception, got {check.describe(error)}")
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a dict of control name -> value, got {check.describe(values)}")
    message = "".join(traceback.format_exception_only(type(error), error)).strip()
    where = ", ".join(f"{k}={v!r}" for k, v in values.items())
    return (
        f'<pre class="ah-error" style="color:#d62728;white-space:pre-wrap;margin:4px 0">{html.escape(message)}'
        f"\n(drawing {html.escape(where)})</pre>"
    )


class Region:
    """Part of the picture: `key` ("all" or a batch row), the axes it depends on (outermost first), and
    `draw(values) -> (svg, caption)` for one combination of all control values."""

    def __init__(self, key: str, axes: Sequence[Axis], draw: Callable[[dict[str, object]], tuple[str, str]]):
        check.text("key", key)
        check_axes(axes)
        check.callable_("draw", draw)
        self.key, self.axes, self.draw = key, list(axes), draw

    def combinations(self) -> list[tuple[int, ...]]:
        return list(itertools.product(*(range(len(a)) for a in self.axes)))

    def values_at(self, combination: tuple[int, ...], values: Mapping[str, object]) -> dict[str, object]:
        return {**values, **{a.name: a.values[i] for a, i in zip(self.axes, combination, strict=True)}}

    def position(self) -> tuple[int, ...] | None:
        """The combination the controls show now (None if one of them sits where nothing was drawn)."""
        positions = tuple(a.position() for a in self.axes)
        return None if None in positions else positions


def _regions(regions: object) -> list[Region]:
    """A list of Region (not one Region, not a str)."""
    return check.sequence_of("regions", regions, Region, "Region", "a Region")


def count_frames(regions: Sequence[Region]) -> int:
    """How many pictures the regions draw in advance: per region, the product of its axes' positions."""
    return sum(math.prod(len(a) for a in r.axes) for r in _regions(regions))


class FrameModel:
    """Every region's pictures: `frames[key][combination] = (svg, caption)`, an error's text in place of a
    failed one (`errors[(key, combination)]` keeps the exception)."""

    def __init__(self, regions: Sequence[Region], max_frames: int):
        self.regions = _regions(regions)
        check.positive_int("max_frames", max_frames)
        count = count_frames(self.regions)
        if count > max_frames:
            names = list({a.name: None for r in self.regions for a in r.axes})
            detail = " + ".join(" x ".join(f"{a.name} ({len(a)})" for a in r.axes) or "1" for r in self.regions)
            raise ValueError(
                f"the controls {names} make {count} pictures to draw in advance ({detail}), more than "
                f"max_frames={max_frames}; use fewer positions (a larger step, fewer options), raise max_frames=, "
                f"or pass kernel_controls=[...] to redraw some controls in the kernel"
            )
        self.count = count
        self.frames: dict[str, dict[tuple[int, ...], tuple[str, str]]] = {}
        self.errors: dict[tuple[str, tuple[int, ...]], BaseException] = {}

    def draw(self, values: Mapping[str, object]) -> None:
        """Draw every combination of every region (the kernel-driven controls at `values`)."""
        self.errors = {}
        for region in self.regions:
            drawn = {}
            for combination in region.combinations():
                drawn[combination] = self.draw_one(region, region.values_at(combination, values), combination)
            self.frames[region.key] = drawn

    def draw_one(
        self, region: Region, values: dict[str, object], combination: tuple[int, ...] | None = None
    ) -> tuple[str, str]:
        try:
            svg, caption = region.draw(values)
        except Exception as error:  # shown in its frame and kept: never a blank picture
            if combination is not None:
                self.errors[(region.key, combination)] = error
            return error_html(error, values), ""
        return svg, caption

    @property
    def last_error(self) -> BaseException | None:
        """The last error met while drawing, or None when every picture drew."""
        return next(reversed(self.errors.values()), None)
