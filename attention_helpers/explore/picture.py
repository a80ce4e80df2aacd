"""PictureExplorer: any picture (an SVG string) for every combination of control values, switched in the browser."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets

from .. import _validate as check
from .base import Explorer
from .model import MAX_FRAMES, Region
from .view import _SVG_TAG, labelled

__all__ = ["LabelledSVG", "PictureExplorer"]

_OWN_LABEL = re.compile(r'\saria-label="([^"]*)"')


def _svg_bundle(svg: str, alt: str) -> dict[str, str]:
    """A labelled SVG as a notebook output, for every place a notebook is read: `image/svg+xml` inline (GitHub,
    nbviewer, the book, which keep its `aria-label`), and `text/html`, an `<img>` of it whose `alt` is its text
    alternative: what JupyterLab shows in an untrusted notebook (a fresh clone), where it renders no raw SVG. In the
    `<img>` the picture's `currentColor` cannot follow the theme, so there it gets a white background of its own
    (readable in a dark theme too)."""
    tag = _SVG_TAG.match(svg)
    on_white = f'<svg style="background-color:#fff"{svg[4:]}' if tag and "style=" not in tag.group(0) else svg
    data = base64.b64encode(on_white.encode()).decode("ascii")
    return {
        "image/svg+xml": svg,
        "text/html": f'<img alt="{html.escape(alt, quote=True)}" src="data:image/svg+xml;base64,{data}">',
    }


class LabelledSVG:
    """A picture (an SVG string) shown with its text alternative wherever the notebook is read (`_svg_bundle`): use
    it in place of `IPython.display.SVG`, whose output an untrusted JupyterLab notebook shows as
    `<IPython.core.display.SVG object>`. `description` (optional) is put before the SVG's own `aria-label` (as
    `heatmaps_svg` writes one, with every number drawn), e.g. what outlines or arrows in the picture mean; the two
    together are the text alternative, `.alt`, also its plain-text output. A picture with neither is refused."""

    def __init__(self, svg: str, description: str = ""):
        svg, description = check.text("svg", svg), check.text("description", description)
        tag = _SVG_TAG.match(svg.lstrip())
        if tag is None:
            raise ValueError(f"svg must be an SVG string starting with '<svg', got {svg[:60]!r}")
        svg = svg.lstrip()
        own = _OWN_LABEL.search(tag.group(0))
        own_text = html.unescape(own.group(1)) if own else ""
        alt = " ".join(part.strip() for part in (description, own_text) if part.strip())
        if not alt:
            raise ValueError(
                "LabelledSVG needs a text alternative: pass description='what the picture shows, with its numbers', "
                "or an SVG whose outer element has an aria-label"
            )
        if own:  # the description goes before the SVG's own label, in place
            start, end = own.span(1)
            svg = svg[:start] + html.escape(alt, quote=True) + svg[end:]
            if not re.search(r"\srole=", tag.group(0)):
                svg = f'<svg role="img"{svg[4:]}'
        else:
            svg = labelled(svg, alt)
        self.svg, self.alt = svg, alt

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, str]:
        return _svg_bundle(self.svg, self.alt) | {"text/plain": self.alt}

    def __repr__(self) -> str:
        return self.alt


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
            own = _OWN_LABEL.search(_SVG_TAG.match(svg).group(0))  # without a caption: the SVG's own label
            alt = self.caption_text or (html.unescape(own.group(1)) if own else bundle["text/plain"])
            bundle |= _svg_bundle(svg, alt)
        return bundle
