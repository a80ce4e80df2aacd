"""An explorer's controls: the values each can take, and the browser-side attribute that picks a pre-drawn frame.

A `Stack` shows child number `selected_index`, and `jsdlink` copies a control's attribute into it unchanged, so
the attribute must be a small int: a selection's `index`, or an `IntSlider`'s own `value` (children indexed by
value, unreachable values sharing one placeholder). A control whose value cannot index a stack (a `FloatSlider`,
a `Checkbox`) is shown through a stand-in that can (a `SelectionSlider`, `ToggleButtons`), kept in step with it
in the kernel; `controls[name]` stays the caller's widget.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets

from .. import _validate as check

__all__ = [
    "BOOLEANS",
    "MAX_SLOTS",
    "SELECTIONS",
    "SLIDERS",
    "SLIDER_TRACK",
    "Axis",
    "check_axes",
    "check_controls",
    "option_values",
    "slider_width",
]

MAX_SLOTS = 1024  # an IntSlider going higher, or with sparse positions, is shown through a stand-in SelectionSlider
SELECTIONS = (widgets.ToggleButtons, widgets.Dropdown, widgets.RadioButtons, widgets.Select, widgets.SelectionSlider)
BOOLEANS = (widgets.Checkbox, widgets.ToggleButton)
SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)
SLIDER_TRACK = 200  # px: the least track a slider keeps beside its description and readout in narrow windows


def check_controls(controls: object, name: str = "controls") -> dict[str, widgets.ValueWidget]:
    """A dict name -> ipywidgets value widget, or a clear TypeError."""
    check.text("name", name)
    if not isinstance(controls, Mapping):
        raise TypeError(
            f"{name} must be a dict of name -> ipywidgets value widget (IntSlider, ToggleButtons, ...), "
            f"got {type(controls).__name__}"
        )
    for key, control in controls.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"{name} keys must be non-empty strings, got {key!r}")
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(
                f"{name}[{key!r}] must be an ipywidgets value widget (IntSlider, FloatSlider, ToggleButtons, "
                f"Dropdown, Checkbox, ...), got {type(control).__name__}: {control!r}"
            )
    return dict(controls)


def option_values(options: Sequence[object]) -> list[object]:
    """The values of a selection widget's options, as ipywidgets reads them: values, or (label, value) pairs."""
    if isinstance(options, (str, bytes, Mapping)) or not hasattr(options, "__iter__"):
        raise TypeError(f"options must be a list of values or of (label, value) pairs, got {check.describe(options)}")
    items = tuple(options)
    if items and all(isinstance(o, (list, tuple)) and len(o) == 2 for o in items):
        return [value for _, value in items]
    return list(items)


def slider_width(control: widgets.Widget) -> None:
    """Give a horizontal slider the width that leaves its track >= 200 px beside its description (at its natural
    width) and readout, unless the caller chose one; `max_width: 100%` lets a narrower window shrink it, and the
    explorer's style (view.STYLE) then wraps the description or readout onto their own line while the track keeps its
    200 px. Measured in Chromium: description and readout take about 100 px plus 7.5 px per description character."""
    if not isinstance(control, widgets.Widget):
        raise TypeError(f"control must be an ipywidgets widget, got {check.describe(control)}")
    if isinstance(control, (*SLIDERS, widgets.SelectionSlider)) and control.orientation == "horizontal":
        if control.layout.width is None and control.layout.min_width is None:
            control.layout.width = f"{SLIDER_TRACK + 100 + math.ceil(7.5 * len(control.description))}px"
            control.layout.max_width = "100%"
        if not control.style.description_width:
            control.style.description_width = "initial"


def _slider_positions(control: widgets.Widget) -> tuple[list[object], list[str]]:
    """Every position of a slider, min to max by step, and its readout label."""
    if isinstance(control, widgets.IntSlider):
        values = list(range(control.min, control.max + 1, control.step))
        return values, [str(v) for v in values]
    count = math.floor((control.max - control.min) / control.step + 1e-9) + 1
    exponents = [round(control.min + i * control.step, 12) for i in range(count)]
    if isinstance(control, widgets.FloatLogSlider):
        values = [control.base**e for e in exponents]
    else:
        values = exponents
    fmt = control.readout_format or ".3g"
    return values, [format(v, fmt) for v in values]


class Axis:
    """One pre-drawn control: `values` (every position, in order), and `source`, the (widget, attribute) pair whose
    browser-side value is the stack child to show; `slot(i)` is that child's number for position i."""

    def __init__(self, name: str, control: widgets.ValueWidget):
        check.text("name", name)
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(
                f"control must be an ipywidgets value widget (IntSlider, ...), got {check.describe(control)}"
            )
        self.name, self.control = name, control
        self.proxy: widgets.ValueWidget | None = None  # the stand-in shown instead of control, if any
        self._handlers: list[tuple[widgets.Widget, Callable]] = []
        if isinstance(control, widgets.IntSlider) and (control.value - control.min) % control.step:
            raise ValueError(
                f"{name!r} starts at {control.value}, which its slider cannot reach (min {control.min}, step "
                f"{control.step}); start it at min + k * step"
            )
        if isinstance(control, widgets.IntSlider) and control.min >= 0 and control.max < MAX_SLOTS:
            values = list(range(control.min, control.max + 1, control.step))
            if control.max + 1 <= 2 * len(values):  # children indexed by value, at most half of them placeholders
                self.values: list[object] = values
                self.source, self.slots = (control, "value"), control.max + 1
                return
            # sparse positions (e.g. 0 to 315 by 45: 308 of 316 children placeholders, stored in every stack of the
            # notebook and the page): shown through a stand-in SelectionSlider, one child per position
        if isinstance(control, SELECTIONS):
            self.values = option_values(control.options)
            if not self.values:
                raise ValueError(f"{name!r} has no options to draw")
            self.source, self.slots = (control, "index"), len(self.values)
            return
        if isinstance(control, BOOLEANS):
            self.values = [False, True]
            self.proxy = widgets.ToggleButtons(
                options=[("off", False), ("on", True)],
                value=bool(control.value),
                description=control.description,
                style={"description_width": "initial", "button_width": "auto"},
            )
        elif isinstance(control, SLIDERS):
            self.values, labels = _slider_positions(control)
            self.proxy = widgets.SelectionSlider(
                options=list(zip(labels, self.values, strict=True)),
                value=self.values[self.nearest(control.value)],
                description=control.description,
                continuous_update=control.continuous_update,
                readout=control.readout,
                orientation=control.orientation,
            )
            slider_width(self.proxy)
        else:
            raise ValueError(
                f"{name!r} is a {type(control).__name__}, whose values cannot all be drawn in advance; use a slider "
                f"or a selection widget, or pass kernel_controls=[{name!r}] to redraw it in the kernel"
            )
        self.source, self.slots = (self.proxy, "index"), len(self.values)
        self._follow(control, self._to_proxy)
        self._follow(self.proxy, self._from_proxy)

    @property
    def shown(self) -> widgets.ValueWidget:
        """The widget the learner moves: the control itself, or its stand-in."""
        return self.proxy if self.proxy is not None else self.control

    def __len__(self) -> int:
        return len(self.values)

    def slot(self, position: int) -> int:
        """The stack child showing position `position` (an index into `values`)."""
        return self.values[position] if self.source[1] == "value" else position

    def nearest(self, value: object) -> int:
        """The position of `value`; a number between positions goes to the nearest one."""
        for i, v in enumerate(self.values):
            if v is value or v == value:
                return i
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return min(range(len(self.values)), key=lambda i: abs(self.values[i] - value))
        raise ValueError(f"{self.name!r} has value {value!r}, which is none of its positions {self.values!r}")

    def position(self) -> int | None:
        """The position the control shows now, or None when no drawn picture matches it (an unreachable value)."""
        value = self.control.value
        if self.source[1] == "value":
            return self.values.index(value) if value in self.values else None
        if self.proxy is None:
            return self.control.index
        return self.nearest(value)

    def current_slot(self) -> int | None:
        if self.source[1] == "value":
            return self.control.value if 0 <= self.control.value < self.slots else None
        return self.source[0].index

    def _follow(self, widget: widgets.Widget, handler: Callable) -> None:
        widget.observe(handler, names="value")
        self._handlers.append((widget, handler))

    def _to_proxy(self, change: dict) -> None:
        self.proxy.value = self.values[self.nearest(change["new"])]

    def _from_proxy(self, change: dict) -> None:
        if self.control.value != change["new"]:
            self.control.value = change["new"]

    def close(self) -> None:
        """Stop keeping the stand-in in step and close it."""
        for widget, handler in self._handlers:
            widget.unobserve(handler, names="value")
        self._handlers.clear()
        if self.proxy is not None:
            self.proxy.close()


def check_axes(axes: object) -> list[Axis]:
    """A list of Axis (the pre-drawn controls a region or a frame tree depends on), or a clear error."""
    return check.sequence_of("axes", axes, Axis, "Axis", "an Axis")
