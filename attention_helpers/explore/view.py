"""The explorer's view, a thin layer of ipywidgets: lays out controls and pictures, and lets the browser switch
pre-drawn frames by itself (nested `Stack`s, one level per control, each `jsdlink`ed to that control).

Rows wrap (`flex_flow: row wrap`) so that narrow windows stack controls and pictures instead of scrolling them.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle

from .. import _validate as check
from .controls import Axis, check_axes

__all__ = [
    "ACCESSIBILITY_JS",
    "STYLE",
    "labelled",
    "WRAP",
    "Frames",
    "KernelNote",
    "frame_tree",
    "scalable",
    "style_widget",
    "swap_widgets",
    "wrap_row",
]

WRAP = {"display": "flex", "flex_flow": "row wrap", "align_items": "flex-start"}

# One <style> per explorer (it applies wherever the widgets render: JupyterLab, Notebook 7, a static page). In a
# narrow window: a slider's description and readout wrap onto their own lines while its track keeps 200 px, toggle
# buttons wrap, boxes may shrink below their content's width, and pictures scale down to the width they are given
# (frames carry a viewBox, see `scalable`) instead of being cut off or scrolled.
STYLE = (
    ".ah-explorer .widget-slider{flex-wrap:wrap;height:auto;max-width:100%}"
    ".ah-explorer .widget-slider .slider-container{min-width:200px}"
    # room for the handle, which overhangs the track's end by a few pixels at a slider's last position
    ".ah-explorer .widget-hslider{box-sizing:border-box;padding-right:8px}"
    ".ah-explorer .widget-box,.ah-explorer .widget-html,.ah-explorer .widget-html-content,"
    ".ah-explorer .widget-toggle-buttons,.ah-explorer .widget-dropdown{min-width:0;max-width:100%}"
    ".ah-explorer .widget-dropdown{flex-wrap:wrap;height:auto}"
    ".ah-explorer .widget-dropdown select{min-width:0;max-width:100%}"
    ".ah-explorer .widget-toggle-buttons{flex-wrap:wrap;height:auto}"
    ".ah-explorer .widget-toggle-buttons>div{display:flex;flex-wrap:wrap}"
    # a gap between controls side by side, so that one's label never runs into the next one's
    ".ah-explorer .widget-box:has(>.widget-toggle-buttons,>.widget-slider,>.widget-dropdown){column-gap:16px}"
    ".ah-explorer .ah-view svg{max-width:100%;height:auto}"
    # the live region that reads the new caption out (visually hidden, as screen-reader-only text is)
    ".ah-explorer .ah-live{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);"
    "white-space:nowrap;border:0;padding:0}"
    # an explorer needs no kernel: no red "disconnected" icon on its widgets when a committed notebook is opened
    ".ah-explorer.jupyter-widgets-disconnected::before,.ah-explorer .jupyter-widgets-disconnected::before"
    "{content:none!important;display:none!important}"
)

# A few lines of JavaScript, run wherever the explorer's widgets render (JupyterLab, Notebook 7, a static page: a
# <script> in a widget's HTML would not run, an <img>'s onerror does). Once the explorer is on the page it gives
# every slider handle, drop-down and group of toggle buttons its description as accessible name, and keeps a
# polite live region holding the caption (or the picture's text alternative) now shown, so that a screen reader
# announces the new one after each move.
ACCESSIBILITY_JS = """(function (img) {
  var tries = 0;
  function start() {
    var root = img.closest('.ah-explorer');
    if (!root) { if (tries++ < 400) setTimeout(start, 50); return; }
    if (root.dataset.ahA11y) return;
    root.dataset.ahA11y = '1';
    var live = document.createElement('div');
    live.className = 'ah-live'; live.setAttribute('role', 'status'); live.setAttribute('aria-live', 'polite');
    root.appendChild(live);
    var last = '', pending = false;
    function name(w) { var l = w.querySelector('.widget-label'); return l ? l.textContent.trim() : ''; }
    function label() {
      root.querySelectorAll('.widget-slider, .widget-dropdown, .widget-toggle-buttons').forEach(function (w) {
        var n = name(w); if (!n) return;
        w.querySelectorAll('.noUi-handle, select').forEach(function (c) {
          if (c.getAttribute('aria-label') !== n) c.setAttribute('aria-label', n);
        });
        if (w.classList.contains('widget-toggle-buttons') && w.getAttribute('aria-label') !== n) {
          w.setAttribute('role', 'group'); w.setAttribute('aria-label', n);
        }
      });
    }
    function shown() {
      var parts = [];
      root.querySelectorAll('.ah-view').forEach(function (v) {
        if (v.checkVisibility && !v.checkVisibility()) return;
        var c = v.querySelector('.ah-caption'), s = v.querySelector('svg[aria-label]');
        var t = c ? c.textContent : (s ? s.getAttribute('aria-label') : '');
        if (t) parts.push(t.trim());
      });
      return parts.join('; ');
    }
    function update() {
      pending = false; label();
      var t = shown();
      if (t && t !== last) { if (last) live.textContent = t; last = t; }
    }
    new MutationObserver(function (changes) {
      if (changes.every(function (m) { return live.contains(m.target); })) return;
      if (!pending) { pending = true; requestAnimationFrame(update); }
    }).observe(root, {subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'style']});
    update();
  }
  start();
})(this)"""

_SVG_TAG = re.compile(r"<svg\b[^>]*>")


def style_widget() -> widgets.HTML:
    """The explorer's <style> and its accessibility script (`ACCESSIBILITY_JS`), in a widget that takes no room."""
    script = html.escape(" ".join(line.strip() for line in ACCESSIBILITY_JS.splitlines()), quote=True)
    style = widgets.HTML(
        f'<style>{STYLE}</style><img alt="" hidden src="data:," onerror="{script}">',
        layout=widgets.Layout(display="none"),
    )
    style.add_class("ah-style")
    return style


def scalable(svg: str) -> str:
    """The SVG with a viewBox on its outer element (if it has a width and height but no viewBox), so that CSS can
    scale it down in a narrow window; the picture is unchanged at its own size."""
    tag = _SVG_TAG.match(check.text("svg", svg))
    if tag is None or "viewBox" in tag.group(0):
        return svg
    size = [re.search(rf'\s{name}="(\d+(?:\.\d+)?)"', tag.group(0)) for name in ("width", "height")]
    if not all(size):
        return svg
    return f'<svg viewBox="0 0 {size[0].group(1)} {size[1].group(1)}"{svg[4:]}'


_ROLE = re.compile(r"\srole=|\saria-label=")


def labelled(svg: str, label: str) -> str:
    """The SVG with `role="img"` and `aria-label` (its text alternative) on its outer element, unless it already
    carries a role, a label or a <title>; an empty label leaves it as it is."""
    tag = _SVG_TAG.match(check.text("svg", svg))
    label = check.text("label", label)
    if tag is None or not label.strip() or _ROLE.search(tag.group(0)) or svg[tag.end() :].startswith("<title"):
        return svg
    return f'<svg role="img" aria-label="{html.escape(label, quote=True)}"{svg[4:]}'


def wrap_row(children: Sequence[widgets.Widget], **layout: str) -> widgets.Box:
    """A row that wraps below the width it needs (controls side by side, then one per line)."""
    _widgets("children", children)
    return widgets.Box(list(children), layout=widgets.Layout(**{**WRAP, **layout}))


def _widgets(name: str, value: object, kind: type = widgets.Widget) -> list:
    """A list of ipywidgets widgets (of `kind`)."""
    return check.sequence_of(name, value, kind, "ipywidgets widgets", f"an ipywidgets {kind.__name__}")


def _names(name: str, value: object) -> list[str]:
    """A list of str (not one str, whose letters would each count)."""
    return [check.text(f"{name}[{i}]", item) for i, item in enumerate(check.sequence(name, value, "str"))]


class Frames:
    """Makes the frame widgets of one explorer: one HTML per distinct picture; frames and stacks share one layout
    and one style (each model's state is stored in the notebook and the page: about 1 KB saved per stack)."""

    def __init__(self, made: list[widgets.Widget]):
        if not isinstance(made, list):
            raise TypeError(
                f"made must be the explorer's list of widgets (Frames appends what it makes, to close them later), "
                f"got {check.describe(made)}"
            )
        self.made = made
        self.layout, self.style = widgets.Layout(), HTMLStyle()
        self.placeholder = self.html('<div class="ah-unreachable"></div>', ())  # values no slider position reaches
        made.extend([self.layout, self.style])

    def html(self, value: str, classes: Sequence[str]) -> widgets.HTML:
        """A frame showing `value` (HTML or SVG), with the CSS `classes`."""
        frame = widgets.HTML(check.text("value", value), layout=self.layout, style=self.style)
        for name in _names("classes", classes):
            frame.add_class(name)
        self.made.append(frame)
        return frame


def frame_tree(
    axes: Sequence[Axis],
    frame_at: Callable[[tuple[int, ...]], str],
    classes: Sequence[str],
    frames: Frames,
) -> widgets.Widget:
    """Nested stacks over `axes` (outermost first) with one HTML frame per combination at the leaves; the browser
    shows the combination the controls hold, with no message to the kernel. Identical pictures share one frame."""
    check_axes(axes)
    check.callable_("frame_at", frame_at)
    _names("classes", classes)
    if not isinstance(frames, Frames):
        raise TypeError(f"frames must be the explorer's Frames, got {check.describe(frames)}")
    shared: dict[str, widgets.HTML] = {}

    def leaf(combination: tuple[int, ...]) -> widgets.HTML:
        value = frame_at(combination)
        if value not in shared:
            shared[value] = frames.html(value, classes)
        return shared[value]

    def level(depth: int, combination: tuple[int, ...]) -> widgets.Widget:
        if depth == len(axes):
            return leaf(combination)
        axis = axes[depth]
        children: list[widgets.Widget] = [frames.placeholder] * axis.slots
        for position in range(len(axis)):
            children[axis.slot(position)] = level(depth + 1, (*combination, position))
        stack = widgets.Stack(children, selected_index=axis.current_slot(), layout=frames.layout)
        frames.made.extend([stack, widgets.jsdlink(axis.source, (stack, "selected_index"))])
        return stack

    return level(0, ())


def swap_widgets(root: widgets.Widget, swaps: Mapping[int, widgets.Widget]) -> None:
    """Replace, anywhere among root's descendants (`children`), each widget whose id is in swaps by its swap."""
    if not isinstance(root, widgets.Widget):
        raise TypeError(f"root must be an ipywidgets widget, got {check.describe(root)}")
    if not isinstance(swaps, Mapping):
        raise TypeError(f"swaps must be a dict id(widget) -> widget, got {check.describe(swaps)}")
    children = getattr(root, "children", None)
    if children is None:
        return
    if any(id(child) in swaps for child in children):
        root.children = [swaps.get(id(child), child) for child in children]
    for child in root.children:
        swap_widgets(child, swaps)


class KernelNote:
    """Kernel-driven controls, visibly disabled with a one-line note until a live kernel answers.

    Two directional links run wherever the widgets load (JupyterLab, a static page, a reopened notebook): one
    disables the controls, one copies a marker into the note's `placeholder`. Only a live kernel hears the latter
    (a page without a kernel has no one to send it to); it then enables the controls and hides the note. A page
    without a kernel therefore keeps the note and the disabled controls."""

    MARK = "kernel"

    def __init__(self, names: Sequence[str], controls: Sequence[widgets.ValueWidget], made: list[widgets.Widget]):
        names = _names("names", names)
        controls = _widgets("controls", controls, widgets.ValueWidget)
        if len(names) != len(controls) or not names:
            raise ValueError(f"names must name each of the {len(controls)} controls, got {names!r}")
        if not isinstance(made, list):
            raise TypeError(f"made must be the explorer's list of widgets, got {check.describe(made)}")
        self.controls = list(controls)
        listed = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
        self.note = widgets.HTML(
            f'<span class="ah-kernel-note">&#9208; {html.escape(listed)}: move{"s" if len(names) == 1 else ""} only '
            "with a running kernel (run the notebook)</span>"
        )
        self.note.add_class("ah-kernel-note")
        marker = widgets.HTML(self.MARK)  # never displayed: a value for the link to copy
        lock = widgets.Checkbox(value=True)  # never displayed: disables the controls on every fresh load
        for control in self.controls:
            control.disabled = True
        made.extend([self.note, marker, lock, widgets.jsdlink((marker, "value"), (self.note, "placeholder"))])
        made.extend(widgets.jsdlink((lock, "value"), (control, "disabled")) for control in self.controls)
        self.note.observe(self._on_answer, names="placeholder")

    def _on_answer(self, change: dict) -> None:
        if change["new"] == self.MARK:  # the browser runs the link, and this kernel received it: it is live
            for control in self.controls:
                control.disabled = False
            self.note.layout.display = "none"

    def close(self) -> None:
        self.note.unobserve(self._on_answer, names="placeholder")
