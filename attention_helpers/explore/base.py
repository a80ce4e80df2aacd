"""What every explorer shares: controls -> model (pictures drawn in advance) -> view (widgets switching them)."""

from __future__ import annotations

import contextlib
import html
import re
import sys
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence

import ipywidgets as widgets

from .. import _validate as check
from . import instrument
from .controls import Axis, check_controls, slider_width
from .model import MAX_FRAMES, FrameModel, Region
from .view import Frames, KernelNote, frame_tree, labelled, scalable, style_widget, swap_widgets, wrap_row

__all__ = ["Explorer", "control_names"]


def _weak(method: Callable[[dict], None]) -> Callable[[dict], None]:
    """An observer that does not keep its explorer alive (explorers dropped in a loop are garbage-collected)."""
    ref = weakref.WeakMethod(method)

    def handler(change: dict) -> None:
        bound = ref()
        if bound is not None:
            bound(change)

    return handler


def control_names(name: str, value: object, controls: Mapping[str, object]) -> list[str]:
    """None or a list of names among the controls (not one str, whose letters would each count)."""
    check.text("name", name)
    if not isinstance(controls, Mapping):
        raise TypeError(f"controls must be a dict of name -> widget, got {check.describe(controls)}")
    if value is None:
        return []
    value = check.sequence(name, value, "control names")
    if any(not isinstance(n, str) or n not in controls for n in value):
        raise ValueError(f"{name} must list names among the controls {list(controls)}, got {value!r}")
    return list(value)


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Run torch on one thread while drawing: for the tiny tensors of a frame, waking a thread pool costs more than
    the work (measured 0.4 ms vs 2-5 ms per masked_softmax on a busy 2-core machine). Restored afterwards."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Explorer:
    """Base class: subclasses say which regions the picture has (`_regions`) and may add widgets beside it."""

    instances: list[weakref.ref] = []  # explorers made while instrumented (`instrument(True)`), for tests/benchmark

    def __init__(
        self,
        controls: Mapping[str, widgets.ValueWidget],
        *,
        layout: widgets.Widget | None = None,
        max_frames: int = MAX_FRAMES,
        kernel_controls: Sequence[str] | None = None,
    ):
        self.controls = check_controls(controls)
        self.max_frames = check.positive_int("max_frames", max_frames)
        if layout is not None and not isinstance(layout, widgets.Widget):
            raise TypeError(f"layout must be an ipywidgets widget holding the controls, got {check.describe(layout)}")
        kernel = control_names("kernel_controls", kernel_controls, self.controls)
        self.kernel_controls = kernel
        self.last_error: BaseException | None = None
        self._made: list[widgets.Widget] = []  # every widget this explorer made, closed by close()
        self._observers: list[tuple[widgets.Widget, Callable]] = []
        self._instrumented = instrument.enabled()
        if self._instrumented:
            self.render_seconds: list[float] = []  # kernel time of each full pre-draw
            self.update_seconds: list[float] = []  # kernel time of each recomputation of what is shown
        self.axes: dict[str, Axis] = {}
        try:
            for name, control in self.controls.items():
                if name not in kernel:
                    self.axes[name] = Axis(name, control)
        except Exception:
            self._close_axes()
            raise
        shown = {id(a.control): a.proxy for a in self.axes.values() if a.proxy is not None}
        for control in self.controls.values():
            slider_width(control)
        if layout is None:
            self.controls_box = wrap_row([a.shown for a in self.axes.values()] + [self.controls[n] for n in kernel])
            self.controls_box.layout.align_items = "center"
            self._made.append(self.controls_box)
        else:
            swap_widgets(layout, shown)
            self.controls_box = layout
        self.note = None
        if kernel:
            note = KernelNote(kernel, [self.controls[n] for n in kernel], self._made)
            self.note = note
            for name in kernel:
                self._observe(self.controls[name], _weak(self._on_kernel_control))
        self.picture = wrap_row([])
        style = style_widget()
        self.widget = widgets.VBox([style, self.controls_box, *([self.note.note] if self.note else []), self.picture])
        self.widget.add_class("ah-explorer")
        self._made.extend([style, self.picture, self.widget])
        self._frames = Frames(self._made)
        self._tree_widgets: list[widgets.Widget] = []
        if self._instrumented:
            self.widget.add_class(f"ah-explorer-{len(Explorer.instances)}")  # tests find its kernel side by it
            Explorer.instances.append(weakref.ref(self))

    # --- what subclasses provide -------------------------------------------------------------------------------
    def _regions(self) -> list[Region]:
        raise NotImplementedError

    def _beside(self) -> list[widgets.Widget]:
        """Widgets drawn after the regions in the picture row (e.g. a colour bar)."""
        return []

    def _region_box(self, regions: list[widgets.Widget]) -> list[widgets.Widget]:
        return regions

    # --- model and view ---------------------------------------------------------------------------------------
    def _build(self) -> None:
        """Order the axes, check the frame budget, draw every picture, and put the frames on screen."""
        regions = self._regions()
        for region in regions:  # fewest positions outermost: fewest stacks and links
            region.axes.sort(key=lambda a: a.slots)
        self.model = FrameModel(regions, self.max_frames)  # raises past the budget, naming the controls
        self._draw()

    def _draw(self) -> None:
        start = time.perf_counter()
        with _one_thread():
            self.model.draw(self.values())
        self.last_error = self.model.last_error
        old = self._tree_widgets
        made_before = len(self._frames.made)
        trees = [
            frame_tree(
                region.axes,
                lambda c, key=region.key: self._frame_html(*self.model.frames[key][c]),
                ["ah-view", f"ah-region-{region.key}"],
                self._frames,
            )
            for region in self.model.regions
        ]
        self.picture.children = [*self._region_box(trees), *self._beside()]
        self._tree_widgets = self._frames.made[made_before:]  # frames, stacks, links and boxes of this drawing
        if old:  # a redraw (a kernel-driven control moved) replaces the frames
            for widget in old:
                widget.close()
            gone = {id(w) for w in old}
            self._made[:] = [w for w in self._made if id(w) not in gone]
        if self._instrumented:
            self.render_seconds.append(time.perf_counter() - start)

    @staticmethod
    def _frame_html(svg: str, caption: str) -> str:
        svg = labelled(scalable(svg), html.unescape(re.sub(r"<[^>]+>", "", caption)) if caption else "")
        if not caption:
            return svg
        return f'{svg}<div class="ah-caption" style="font-size:12px;margin:2px 0 4px">{caption}</div>'

    def _observe(self, widget: widgets.Widget, handler: Callable) -> None:
        widget.observe(handler, names="value")
        self._observers.append((widget, handler))

    def _on_kernel_control(self, change: dict) -> None:
        self._draw()

    # --- reading it --------------------------------------------------------------------------------------------
    def values(self) -> dict[str, object]:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _shown(self, region: Region) -> tuple[str, str]:
        combination = region.position()
        if combination is None:
            return "", ""
        return self.model.frames[region.key][combination]

    @property
    def svg(self) -> str:
        """The picture now shown (every region's, in order), as the browser shows it for the current values."""
        return "".join(self._shown(r)[0] for r in self.model.regions)

    def expected_svgs(self) -> dict[str, str]:
        """What each region must show for the current values, drawn afresh (not read from the stored frames):
        region key ("all" or the batch row, as in its `ah-region-<key>` class) -> frame HTML."""
        values = self.values()
        return {r.key: self._frame_html(*self.model.draw_one(r, dict(values))) for r in self.model.regions}

    # --- the end of it -------------------------------------------------------------------------------------------
    def _close_axes(self) -> None:
        for axis in self.axes.values():
            axis.close()

    def close(self) -> None:
        """Close every widget this explorer made and stop observing the controls (the controls stay open)."""
        for widget, handler in self._observers:
            widget.unobserve(handler, names="value")
        self._observers.clear()
        if self.note is not None:
            self.note.close()
        self._close_axes()
        for widget in self._made:
            widget.close()
        self._made.clear()

    def __repr__(self) -> str:
        names = ", ".join(self.controls)
        return f"{type(self).__name__}(controls: {names}); run the notebook to move them"

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, object]:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle
