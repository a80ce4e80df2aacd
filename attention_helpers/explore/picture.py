"""PictureExplorer: any picture (an SVG string) for every combination of control values, switched in the browser."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets

from .base import Explorer
from .model import MAX_FRAMES, Region
from .view import labelled

__all__ = ["PictureExplorer"]


def _check_svg(svg: object, name: str) -> str:
    if not isinstance(svg, str) or "<svg" not in svg:
        shown = svg if not isinstance(svg, str) else svg[:60]
        raise TypeError(f"{name} must return an SVG string ('<svg ...>...</svg>'), got {type(svg).__name__}: {shown!r}")
    return svg


class PictureExplorer(Explorer):
    """Controls + a picture `draw(**values) -> SVG string`, drawn in advance for every combination of values.

    `controls`: name -> ipywidgets value widget (IntSlider, FloatSlider, ToggleButtons, Dropdown, Checkbox, ...).
    `caption(**values) -> str` (optional): a short plain-text line under the picture, drawn in advance too.
    `max_frames`: how many combinations may be drawn (ValueError beyond); `kernel_controls`: names of controls
    redrawn by the kernel instead (disabled, with a note, where no kernel runs). Text in the SVG should use
    `currentColor` so that it reads in dark themes (see `attention_helpers.explore.svg`).
    """

    def __init__(
        self,
        draw: Callable[..., str],
        controls: Mapping[str, widgets.ValueWidget],
        *,
        layout: widgets.Widget | None = None,
        max_frames: int = MAX_FRAMES,
        caption: Callable[..., str] | None = None,
        kernel_controls: Sequence[str] | None = None,
    ):
        if not callable(draw):
            raise TypeError(f"draw must be a function returning an SVG string, got {type(draw).__name__}")
        if caption is not None and not callable(caption):
            raise TypeError(f"caption must be a function returning a short text, or None, got {type(caption).__name__}")
        self.draw, self.caption = draw, caption
        super().__init__(controls, layout=layout, max_frames=max_frames, kernel_controls=kernel_controls)
        self._build()

    def _regions(self) -> list[Region]:
        return [Region("all", list(self.axes.values()), self._draw_picture)]

    def _draw_picture(self, values: dict[str, object]) -> tuple[str, str]:
        svg = _check_svg(self.draw(**values), "draw")
        text = ""
        if self.caption is not None:
            line = self.caption(**values)
            if not isinstance(line, str):
                raise TypeError(f"caption must return a str, got {type(line).__name__}: {line!r}")
            text = html.escape(line)
        return svg, text

    @property
    def caption_text(self) -> str:
        """The caption now shown under the picture ("" without one)."""
        region = self.model.regions[0]
        return html.unescape(self._shown(region)[1])

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, object]:
        # The live widget, a deterministic text/plain, and the picture now shown for renderers without widgets:
        # as SVG (GitHub, nbviewer, the static site), and as an <img> of that SVG in text/html, which JupyterLab
        # shows in an untrusted notebook (a fresh clone), where it renders neither the widget nor raw SVG.
        bundle = super()._repr_mimebundle_(**kwargs)
        if self.svg.startswith("<svg"):
            # the caption is the picture's text alternative, as on the explorer's own frames (`Explorer` labels them)
            svg = labelled(self.svg, self.caption_text)
            bundle["image/svg+xml"] = svg
            data = base64.b64encode(svg.encode()).decode("ascii")
            alt = html.escape(self.caption_text or bundle["text/plain"], quote=True)
            bundle["text/html"] = f'<img alt="{alt}" src="data:image/svg+xml;base64,{data}">'
        return bundle
