"""The lecture decks in a real browser, offline: `pytest -m browser -n 0 tests/browser/test_slides.py`.

Builds every deck from the committed notebooks (`python -m attention_helpers.tools.slides`) into a temporary
folder, serves it on 127.0.0.1 and opens each deck in headless Chromium at 1280 x 720 (a projector's size), with
every request outside the local server blocked and counted. Then it walks every slide with the keyboard (Space and
ArrowRight in turn) and, on each slide:
- nothing is cut off at the slide's edge: every box of every element shown lies inside the slide, the slide is no
  taller than 720, and no element inside it scrolls (a scrollbar);
- every explorer on the slide is live: each control (slider by keyboard, toggle buttons, drop-downs, checkboxes)
  changes its picture, with no kernel, and moving a slider with the arrow keys does not change the slide;
- no raw TeX is left (math is typeset);
- the pictures can be read from the back of a room (issue 36): the slide's main picture (an explorer's pictures
  together, or a figure) takes at least half the slide's width, or half its height where it is taller than the
  slide's shape; no text in a picture is drawn under 16 px (the slide's pixels at 1280 x 720; a matplotlib PNG's
  smallest text is known from its `data-text-px`, in the PNG's pixels, scaled to the width drawn); no two labels of
  a picture overlap.
The deck fails on any outside request, page error, console error or failed request. Screenshots of each slide go
to artifacts/slides/. The last tests show that these checks fail for broken decks (a slide too tall, one too wide,
a scrollbar, a picture from a CDN).
"""

from __future__ import annotations

import base64
import contextlib
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

import jlab
import nbformat
import pytest
from controls import exercise, wait_for_change
from explorer_page import script

from attention_helpers.tools.slides import (
    build,
    deck_notebook,
    first_reading,
    lesson_notebooks,
    shown_cells,
    slide_count,
)
from attention_helpers.tools.widget_state import VIEW_MIME

pytestmark = pytest.mark.browser
ARTIFACTS = jlab.ROOT / "artifacts" / "slides"
VIEWPORT = {"width": 1280, "height": 720}
DECKS = [p.stem for p in lesson_notebooks()]

READY_JS = """() => window.Reveal && Reveal.isReady()
    && [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
       .every(s => { const area = s.previousElementSibling;
                     return area && area.classList.contains('widget-subarea') && area.children.length > 0; })
    && window.MathJax && MathJax.startup && MathJax.startup.promise"""
TYPESET_JS = "async () => { await MathJax.startup.promise; return true; }"
FITTED_JS = "() => Reveal.getCurrentSlide() && Reveal.getCurrentSlide().dataset.ahFit === 'done'"
# What is cut off on the slide shown: element boxes (each line of an inline element) outside the slide, a slide
# taller than the deck's height, elements that scroll. 2 px of slack for borders and antialiasing.
CUT_JS = """() => {
  const slide = Reveal.getCurrentSlide(), frame = document.querySelector('.reveal .slides').getBoundingClientRect();
  const name = el => el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
                     ? '.' + String(el.className).trim().split(/\\s+/).slice(0, 2).join('.') : '')
                     + ' "' + (el.textContent || '').trim().slice(0, 30) + '"';
  const cut = [];
  if (slide.scrollHeight > Reveal.getConfig().height + 1) cut.push(`slide ${slide.scrollHeight} px tall`);
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('aside.notes') || (el.parentElement && el.parentElement.closest('svg'))) continue;
    if (!el.checkVisibility()) continue;
    const s = getComputedStyle(el);
    if (s.position === 'absolute' && s.clip !== 'auto') continue;  // visually hidden text (screen readers only)
    for (const r of el.getClientRects()) {
      if (r.width === 0 && r.height === 0) continue;
      if (r.left < frame.left - 2 || r.top < frame.top - 2 || r.right > frame.right + 2 || r.bottom > frame.bottom + 2) {
        cut.push(`outside the slide: ${name(el)} at ${[r.left, r.top, r.right, r.bottom].map(Math.round)}`
                 + ` (slide ${[frame.left, frame.top, frame.right, frame.bottom].map(Math.round)})`);
        break;
      }
    }
    const scrollsX = /(auto|scroll)/.test(s.overflowX) && el.scrollWidth > el.clientWidth + 1;
    const scrollsY = /(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight + 1;
    if (scrollsX || scrollsY) cut.push(`scrollbar: ${name(el)}`);
  }
  return cut;
}"""
# An explorer's picture as shown, without the sizes deck.js sets
SIGNATURE_JS = """(e) => [...e.querySelectorAll('.ah-view')].filter(v => v.checkVisibility())
    .map(v => v.innerHTML.replace(/ (style|data-ah-[wh])="[^"]*"/g, '')).join('|')"""
MIN_SHARE, MIN_TEXT = 0.5, 16  # issue 36: half the slide, and reveal.js's own small print (px at 1280 x 720)
TEX_JS = """() => { const t = Reveal.getCurrentSlide().innerText;
                   return /\\$\\$|\\$[^$\\s][^$]*\\\\[a-z]+[^$]*\\$|\\\\\\(|\\\\\\[/.test(t) ? t.slice(0, 200) : ''; }"""


@dataclass
class Report:
    """What walking one deck found: slides seen, explorers exercised, and every problem."""

    total: int = 0
    visited: list = field(default_factory=list)
    explorers: int = 0
    noted: int = 0  # slides whose speaker notes reveal.js finds (what its speaker view, S, shows)
    problems: list = field(default_factory=list)


def walk(context, url: str, shots: str | None = None) -> Report:
    """Open a deck at 1280 x 720, walk every slide with the keyboard and check each; returns what it found."""
    report = Report()
    page = context.new_page()
    page.on("pageerror", lambda error: report.problems.append(f"page error: {error}"))
    page.on("console", lambda m: report.problems.append(f"console.error: {m.text}") if m.type == "error" else None)
    page.on("requestfailed", lambda r: report.problems.append(f"request failed: {r.url} {r.failure}"))
    page.on("response", lambda r: report.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    try:
        page.goto(url + "?transition=none", wait_until="load")
        page.wait_for_function(READY_JS, timeout=30_000)
        page.evaluate(TYPESET_JS)
        report.total = page.evaluate("Reveal.getTotalSlides()")
        for step in range(report.total):
            page.wait_for_function(FITTED_JS, timeout=10_000)
            where = page.evaluate("() => { const i = Reveal.getIndices(); return `${i.h}/${i.v}`; }")
            report.visited.append(where)
            report.noted += bool(page.evaluate("() => Reveal.getSlideNotes().trim()"))
            report.problems += [f"slide {where}: {c}" for c in page.evaluate(CUT_JS)]
            report.problems += [f"slide {where}: {p}" for p in legibility(page.evaluate(script("legibility"), "slide"))]
            tex = page.evaluate(TEX_JS)
            if tex:
                report.problems.append(f"slide {where}: raw TeX: {tex!r}")
            if shots:
                page.screenshot(path=str(ARTIFACTS / f"{shots}__{step:02d}.png"))
            explorers = page.locator(".reveal .slides section.present:not(.stack) .ah-explorer")
            for e in range(explorers.count()):
                report.explorers += 1
                # arrows first: they must reach the slider, not reveal.js
                keys = ["ArrowRight", "ArrowLeft", "End", "Home", "ArrowRight"]
                report.problems += exercise(page, explorers.nth(e), f"slide {where} explorer {e}", keys, SIGNATURE_JS)
                if page.evaluate("() => { const i = Reveal.getIndices(); return `${i.h}/${i.v}`; }") != where:
                    report.problems.append(f"slide {where}: moving explorer {e} changed the slide")
                    page.evaluate("([h, v]) => Reveal.slide(h, v)", [int(x) for x in where.split("/")])
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            page.evaluate("() => { window.ahPast = Reveal.getSlidePastCount(); }")
            page.keyboard.press("Space" if step % 2 == 0 else "ArrowRight")
            if step + 1 < report.total:
                page.wait_for_function("() => Reveal.getSlidePastCount() === window.ahPast + 1", timeout=5_000)
        if not page.evaluate("Reveal.isLastSlide()"):
            report.problems.append("the keyboard walk did not reach the last slide")
    finally:
        page.close()
    return report


def legibility(seen: dict | None) -> list[str]:
    """What keeps the slide's pictures from being read from the back of a room (`tests/support/js/legibility.js`)."""
    if seen is None:
        return []
    problems, tall = [], seen["height"] >= seen["width"] * 720 / 1280  # taller than the slide's shape
    share = seen["height"] / 720 if tall else seen["width"] / 1280
    if share < MIN_SHARE:
        side = "height" if tall else "width"
        problems.append(f"main picture {seen['width']} x {seen['height']} px takes {share:.0%} of the slide's {side}")
    small = min(seen["texts"], key=lambda t: t["size"], default=None)
    if small is not None and small["size"] < MIN_TEXT:
        problems.append(f"text {small['size']:g} px (under {MIN_TEXT}) in a picture: {small['text']!r}")
    problems += [f"labels overlap: {pair}" for pair in seen["overlaps"][:3]]
    return problems


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A served folder for decks, and a 1280 x 720 Chromium context whose outside requests are refused and listed."""
    jlab.require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = tmp_path_factory.mktemp("slides")
    with jlab.serve(out) as base, jlab.chromium() as shared:
        context = shared.browser.new_context(viewport=VIEWPORT)
        outside = jlab.refuse_outside(context, base)
        try:
            yield out, base, context, outside
        finally:
            context.close()


@pytest.mark.parametrize("name", DECKS)
def test_deck_fits_the_slides_and_its_explorers_are_live(browser, name):
    out, base, context, outside = browser
    outside.clear()
    (deck,) = build(out, [jlab.ROOT / "notebooks" / f"{name}.ipynb"])  # the shared files are copied again: 0.1 s
    report = walk(context, base + deck.path.name, shots=name)
    assert report.total == deck.slides, f"reveal.js counts {report.total} slides, the metadata {deck.slides}"
    assert len(set(report.visited)) == report.total, f"the keyboard reached {len(set(report.visited))} slides"
    assert report.problems == [], "\n".join(report.problems)
    assert outside == [], f"requests outside the deck: {outside}"
    if deck.state_bytes:
        assert report.explorers >= 1, "the notebook stores widgets, but no slide shows an explorer"
    nb = nbformat.read(jlab.ROOT / "notebooks" / f"{name}.ipynb", as_version=4)
    assert report.noted == _slides_with_notes(first_reading(nb)), "speaker notes reveal.js does not find"


def _slides_with_notes(nb) -> int:
    """How many slides (and subslides) have at least one `notes` cell, as the notebook's metadata says."""
    current, noted = -1, set()
    for cell in nb.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind == "notes" and current >= 0:
            noted.add(current)
        elif kind not in ("skip", "notes") and (current < 0 or kind in ("slide", "subslide")):
            current += 1
    return len(noted)


# --- the checks fail for broken decks -------------------------------------------------------------------------------


def _deck(out, name: str, cells: list[str]) -> str:
    """A deck of one-cell slides made of the given markdown/HTML; returns its file name."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A test deck", metadata={"slideshow": {"slide_type": "slide"}})]
    nb.cells += [nbformat.v4.new_markdown_cell(c, metadata={"slideshow": {"slide_type": "slide"}}) for c in cells]
    path = out / f"{name}.ipynb"
    nbformat.write(nb, path)
    (deck,) = build(out, [path])
    assert deck.slides == slide_count(deck_notebook(nb)) == len(cells) + 1
    return deck.path.name


def test_a_deck_that_fits_passes(browser):
    out, base, context, outside = browser
    outside.clear()
    report = walk(context, base + _deck(out, "fits", ["Some text, $x^2$ typeset.", "- a\n- list"]))
    assert (report.total, report.problems, outside) == (3, [], [])


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("\n".join(f"line {i}\n" for i in range(40)), "px tall"),
        ('<div style="width: 2400px; background: #eee">far too wide</div>', "outside the slide"),
        ('<div style="height: 200px; overflow: auto"><div style="height: 900px">long</div></div>', "scrollbar"),
    ],
    ids=["too tall", "too wide", "scrollbar"],
)
def test_a_slide_cut_off_fails(browser, cell, expected):
    out, base, context, outside = browser
    report = walk(context, base + _deck(out, f"broken_{expected.split()[-1]}", ["fine", cell]))
    assert any(expected in p for p in report.problems), report.problems


def _svg(width: int, height: int, body: str, inline: bool = True) -> str:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-size="10">{body}</svg>'
    if inline:
        return svg
    return f'<img src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}" alt="a picture">'


def _png(width: int, height: int, text_px: float) -> str:
    """A plain PNG of `width` x `height` pixels, as the decks show a matplotlib figure, whose smallest text is
    `text_px` of its pixels."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\xff\xff" * width for _ in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    data = base64.b64encode(png).decode()
    return f'<img alt="a figure" data-text-px="{text_px}" src="data:image/png;base64,{data}">'


LONG_TEXT = "\n\n".join(f"A paragraph of text, line {i}, that leaves the picture little room." for i in range(9))


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        # a picture squeezed under a page of text
        (LONG_TEXT + "\n\n" + _svg(200, 100, '<rect width="200" height="100" fill="#c00"/>', inline=False), "takes"),
        # tiny text in an SVG shown as an <img>, which the deck cannot restyle
        (_svg(1200, 600, '<text x="10" y="300" font-size="3">tiny</text>', inline=False), "(under 16)"),
        # a matplotlib PNG whose smallest text is 3 of its pixels, drawn at most the slide's width: under 4 px
        (_png(1200, 600, 3), "(under 16)"),
        # two labels on top of each other
        (
            _svg(
                600,
                300,
                '<text x="10" y="150" font-size="40">left</text><text x="30" y="150" font-size="40">right</text>',
            ),
            "labels overlap",
        ),
    ],
    ids=["small picture", "small text", "small text in a PNG", "overlapping labels"],
)
def test_an_illegible_picture_fails(browser, cell, expected):
    out, base, context, outside = browser
    report = walk(context, base + _deck(out, f"illegible_{len(expected)}", [cell]))
    assert any(expected in p for p in report.problems), report.problems


def test_a_deck_loading_from_a_cdn_fails(browser):
    out, base, context, outside = browser
    outside.clear()
    url = "https://cdn.jsdelivr.net/npm/reveal.js@6.0.2/dist/theme/white.css"
    name = _deck(out, "cdn", [f'<link rel="stylesheet" href="{url}">\n\nstyled from a CDN'])
    report = walk(context, base + name)
    assert outside == [url]
    assert any("request failed" in p and url in p for p in report.problems), report.problems


# --- live: the notebook in JupyterLab with jupyterlab-rise ---------------------------------------------------------

RISE_NOTEBOOK = "02_additive_attention.ipynb"  # two explorers, one driven by toggle buttons and sliders
RISE_EXTENSION = jlab.ROOT / "jupyter-config" / "labextensions" / "attention-helpers-rise" / "static" / "remoteEntry.js"
# In RISE's panel (an iframe of the same origin): its innermost <section>s (a horizontal slide with subslides is a
# <section> of <section>s), its pictures, its explorers, its text.
RISE_JS = """(what) => {
  const frame = document.querySelector('iframe[src*="rise/"]'), doc = frame && frame.contentDocument;
  if (!doc) return null;
  if (what === 'slides') return [...doc.querySelectorAll('.reveal .slides section')].filter(s => !s.querySelector('section')).length;
  if (what === 'outputs') return doc.querySelectorAll('.jp-OutputArea-output').length;
  if (what === 'explorers') return doc.querySelectorAll('.ah-explorer').length;
  if (what === 'text') { const s = doc.querySelector('.reveal .slides'); return s ? s.textContent : ''; }
}"""
ON_SLIDE_JS = """(e) => e.closest('section.present') !== null
    && e.checkVisibility({visibilityProperty: true, opacityProperty: true})"""
FOCUSED_JS = "() => document.activeElement && document.activeElement.className"
# where RISE's slides stand: the slide (in the URL) and how many fragments are shown
WHERE_JS = "() => location.hash + ' ' + document.querySelectorAll('.reveal .fragment.visible').length"
# reveal.js's "next slide" arrow, clicked from the page's script (the focus stays where it was)
NEXT_JS = """() => document.querySelector('.reveal .controls .enabled.navigate-right, .reveal .controls .enabled.navigate-down')
    .click()"""
# the last slide, its fragments all shown: reveal.js's "next" controls are off
LAST_JS = """() => !document.querySelector('.reveal .controls .enabled.navigate-right, .reveal .controls .enabled.navigate-down')
    && !document.querySelector('.reveal .slides section.present .fragment:not(.visible)')"""


def _explorer_views(nb) -> int:
    """How many widget outputs (explorers) the slides of a notebook show."""
    return sum(1 for c in shown_cells(nb) for o in c.get("outputs", []) if VIEW_MIME in o.get("data", {}))


@pytest.fixture(scope="module")
def rise_lab(browser, tmp_path_factory):
    """JupyterLab serving copies of the lesson notebooks, trusted (as the README tells a lecturer) in a trust database
    of its own, and a browser context whose outside requests are refused. Yields the URL, the context, the outside
    requests and the console errors seen (both lists are the test's to clear)."""
    root = tmp_path_factory.mktemp("rise")
    for path in lesson_notebooks():
        (root / path.name).write_bytes(path.read_bytes())
    env = {"JUPYTER_DATA_DIR": str(tmp_path_factory.mktemp("rise-data"))}
    trust = [sys.executable, "-m", "jupyter", "trust", *(str(root / p.name) for p in lesson_notebooks())]
    subprocess.run(trust, check=True, capture_output=True, env={**os.environ, **env})
    lab = browser[2].browser.new_context(viewport={"width": 1400, "height": 1000})  # the decks' Chromium
    with jlab.jupyterlab(root, env=env) as url, contextlib.closing(lab) as context:
        outside = jlab.refuse_outside(context, url)
        errors: list[str] = []
        context.on("console", lambda m: errors.append(m.text.splitlines()[0]) if m.type == "error" else None)
        yield url, context, outside, errors


@contextlib.contextmanager
def rise_slides(rise_lab, name: str):
    """Notebook `name` opened in JupyterLab (kernel started) and shown by jupyterlab-rise's "Render as slideshow"
    panel (command RISE:preview); yields the notebook, the page and RISE's frame; closes the page and shuts its
    kernel down."""
    url, context, outside, errors = rise_lab
    nb = nbformat.read(jlab.ROOT / "notebooks" / name, as_version=4)
    page = jlab.open_notebook(context, url, name)
    try:
        page.evaluate("() => window.jupyterapp.commands.execute('RISE:preview')")
        page.wait_for_function(f"() => ({RISE_JS})('slides') >= {slide_count(nb)}", timeout=90_000)
        page.wait_for_function(f"() => ({RISE_JS})('outputs') > 0", timeout=60_000)
        with contextlib.suppress(Exception):  # the test says what is missing
            page.wait_for_function(f"() => ({RISE_JS})('explorers') >= {_explorer_views(nb)}", timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / f"rise_{name.removesuffix('.ipynb')}.png"))
        yield nb, page, page.query_selector('iframe[src*="rise/"]').content_frame()
    finally:
        with contextlib.suppress(Exception):
            page.evaluate("() => window.jupyterapp.serviceManager.sessions.shutdownAll()")
        page.close()


@pytest.mark.parametrize("name", DECKS)
def test_jupyterlab_rise_shows_the_notebook_as_slides_with_live_explorers(rise_lab, name):
    """In RISE's slides: every slide and the notebook's first line; no request outside the server (RISE's default
    theme loads Google's fonts); every explorer live (attention-helpers-rise loads the widget manager) and operated
    as on the offline decks: reached with Page Down, every control changes the picture from the keyboard, the keys a
    focused control takes leave the slide where it is, Esc takes the focus off it, Page Down moves on from it (Page
    Up back, on the last slide)."""
    url, context, outside, errors = rise_lab
    outside.clear(), errors.clear()
    with rise_slides(rise_lab, f"{name}.ipynb") as (nb, page, frame):
        assert page.evaluate(RISE_JS, "slides") == slide_count(nb)
        first_line = shown_cells(nb)[0].source.strip().splitlines()[0].lstrip("#* ").strip()[:40]
        assert first_line in page.evaluate(RISE_JS, "text")
        assert not [e for e in errors if "@jupyterlab/console" in e], errors
        # (the console's "widget model not found", while the manager restores the stored state, is transient)
        assert "Error displaying widget" not in frame.evaluate("() => document.body.innerText")
        explorers = frame.locator(".ah-explorer")
        assert explorers.count() == _explorer_views(nb), "RISE's slides do not show every explorer live"
        frame.locator(".reveal").first.click(position={"x": 5, "y": 5})  # the keys go to the slides
        for e in range(explorers.count()):
            explorer = explorers.nth(e)
            for _ in range(3 * slide_count(nb)):  # fragments included
                if explorer.evaluate(ON_SLIDE_JS):
                    break
                page.keyboard.press("PageDown")
                time.sleep(0.2)
            assert explorer.evaluate(ON_SLIDE_JS), f"Page Down never reached explorer {e}"
            time.sleep(1)  # RISE's slide transition
            keys = ["ArrowRight", "ArrowLeft", "End", "Home", "ArrowRight"]
            dead = exercise(page, explorer, f"RISE explorer {e}", keys)
            assert dead == [], f"controls that change nothing (or lost their keys to the slides): {dead}"
            assert explorer.evaluate(ON_SLIDE_JS), f"operating explorer {e} with its keys changed the slide"
            where = frame.evaluate(WHERE_JS)
            handles = explorer.locator(".noUi-handle")
            if handles.count():  # each key a slider takes moves it, and not the slides
                handle = handles.first
                handle.focus()
                page.keyboard.press("Home")
                for key in ("End", "ArrowLeft", "Home", "ArrowRight"):
                    value = handle.get_attribute("aria-valuenow")
                    page.keyboard.press(key)
                    assert handle.get_attribute("aria-valuenow") != value, f"{key} did not move explorer {e}'s slider"
                    assert frame.evaluate(WHERE_JS) == where, f"{key} on explorer {e}'s slider changed the slide"
            buttons = explorer.locator(".widget-toggle-buttons button:not(.mod-active)")
            if buttons.count():  # Space presses a focused toggle button, and leaves the slides alone
                buttons.first.focus()
                pressed = buttons.first.get_attribute("data-value")
                page.keyboard.press("Space")
                active = explorer.locator(".widget-toggle-buttons button.mod-active")
                assert pressed in [active.nth(b).get_attribute("data-value") for b in range(active.count())]
                assert frame.evaluate(WHERE_JS) == where, f"Space on explorer {e}'s toggle button changed the slide"
            if handles.count():
                handle.focus()
                page.keyboard.press("Escape")
                assert "noUi-handle" not in (frame.evaluate(FOCUSED_JS) or ""), "Esc left the focus on the slider"
                assert frame.evaluate(WHERE_JS) == where, "Esc changed the slide"
                # Page Down (Page Up on the last slide) changes slide, without moving the slider (a big step)
                key, back = ("PageUp", "PageDown") if frame.evaluate(LAST_JS) else ("PageDown", "PageUp")
                handle.focus()
                value = handle.get_attribute("aria-valuenow")
                page.keyboard.press(key)
                time.sleep(0.5)
                assert frame.evaluate(WHERE_JS) != where, f"{key} on a focused slider did not change the slide"
                assert handle.get_attribute("aria-valuenow") == value, f"{key} moved explorer {e}'s slider"
                assert "noUi-handle" not in (frame.evaluate(FOCUSED_JS) or ""), "the slider kept the focus"
                page.keyboard.press(back)
                time.sleep(0.5)
                assert frame.evaluate(WHERE_JS) == where, f"{back} did not come back to explorer {e}"
        last = explorers.nth(explorers.count() - 1).locator(".noUi-handle") if explorers.count() else None
        if last is not None and last.count() and not frame.evaluate(LAST_JS):
            last.first.focus()  # reveal.js's own arrow (clicked without taking the focus) changes slide ...
            frame.evaluate(NEXT_JS)
            time.sleep(0.5)
            # ... and the slider left behind loses the focus, so that the arrow keys go to the slides again
            assert "noUi-handle" not in (frame.evaluate(FOCUSED_JS) or ""), "a slider left behind kept the focus"
        assert outside == [], f"requests outside the server: {outside}"


EXTENSION_JS = """async (source) => {
  // the loader's side of the container interface, twice: a scope like RISE's (no @jupyterlab/console) and a scope
  // like JupyterLab's (its own @jupyterlab/console)
  class Token { constructor(name) { this.name = name; } }
  const coreutils = {'2.0.0': {get: () => Promise.resolve(() => ({Token}))}};
  const theirs = {get: () => Promise.resolve(() => ({mine: false}))};
  const rise = {'@lumino/coreutils': coreutils}, lab = {'@lumino/coreutils': coreutils, '@jupyterlab/console': {'4.6.6': theirs}};
  window._JUPYTERLAB = {};
  (0, eval)(source);
  const container = window._JUPYTERLAB['attention-helpers-rise'];
  await container.init(rise);
  await container.init(lab);
  const entry = rise['@jupyterlab/console'] && rise['@jupyterlab/console']['4.0.0'];
  const module = entry ? (await entry.get())() : {};
  const extension = (await container.get('./extension'))();
  return {
    riseVersions: Object.keys(rise['@jupyterlab/console'] || {}),
    tracker: module.IConsoleTracker instanceof Token ? module.IConsoleTracker.name : null,
    panelIsClass: typeof module.ConsolePanel === 'function',
    labVersions: Object.keys(lab['@jupyterlab/console']), labKept: lab['@jupyterlab/console']['4.6.6'] === theirs,
    plugins: extension.default.map(p => [p.id, p.autoStart, typeof p.activate]),
  };
}"""


def test_the_rise_extension_stands_in_for_the_console_only_where_it_is_missing(browser):
    """attention-helpers-rise's init adds @jupyterlab/console at version 4.0.0 to a shared scope without one, with a
    real Token from the scope's @lumino/coreutils (the widget manager asks for ^4.6.2 as a singleton without a strict
    version: the loader takes 4.0.0, with a warning); a scope with its own console (JupyterLab itself, whose console
    must keep working) is left as it was; the extension is one auto-started plugin."""
    out, base, context, outside = browser
    page = context.new_page()
    try:
        found = page.evaluate(EXTENSION_JS, RISE_EXTENSION.read_text())
    finally:
        page.close()
    assert found == {
        "riseVersions": ["4.0.0"],
        "tracker": "@jupyterlab/console:IConsoleTracker",
        "panelIsClass": True,
        "labVersions": ["4.6.6"],
        "labKept": True,
        "plugins": [["attention-helpers-rise:explorer-keys", True, "function"]],
    }


# --- keys: a focused explorer control keeps its keys ---------------------------------------------------------------

INDICES_JS = "() => { const i = Reveal.getIndices(); return `${i.h}/${i.v}`; }"


def test_a_focused_slider_keeps_the_arrow_keys_until_esc_or_page_down(browser):
    """Tab reaches a slider; with it focused, the arrow keys move it and not the slides; Space presses a focused toggle
    button; Esc hands the keys back to reveal.js (the control loses focus); Page Down, a clicker's key, changes slide
    from a focused slider."""
    out, base, context, outside = browser
    (deck,) = build(out, [jlab.ROOT / "notebooks" / RISE_NOTEBOOK])
    page = context.new_page()
    try:
        page.goto(base + deck.path.name + "?transition=none", wait_until="load")
        page.wait_for_function(READY_JS, timeout=30_000)
        where = page.evaluate(
            "() => { const s = document.querySelector('.noUi-handle').closest('section');"
            " const i = Reveal.getIndices(s); Reveal.slide(i.h, i.v); return `${i.h}/${i.v}`; }"
        )
        page.wait_for_function(FITTED_JS, timeout=10_000)
        handle = page.locator(".reveal .slides section.present:not(.stack) .noUi-handle").first
        on_handle = "() => document.activeElement && document.activeElement.classList.contains('noUi-handle')"
        for _ in range(40):  # Tab from the page reaches the slide's slider
            page.keyboard.press("Tab")
            if page.evaluate(on_handle):
                break
        assert page.evaluate(on_handle), "Tab never reached the slider"
        page.evaluate("() => document.activeElement.blur()")
        handle.focus()
        for key in ("Home", "ArrowRight", "ArrowRight", "ArrowLeft", "End"):
            value = handle.get_attribute("aria-valuenow")
            page.keyboard.press(key)
            assert handle.get_attribute("aria-valuenow") != value, f"{key} did not move the slider"
            assert page.evaluate(INDICES_JS) == where, f"{key} on a focused slider changed the slide"
        buttons = page.locator(".reveal .slides section.present:not(.stack) .ah-explorer .widget-toggle-buttons button")
        explorer = page.locator(".reveal .slides section.present:not(.stack) .ah-explorer").first
        for k in range(buttons.count()):  # Space presses a focused toggle button, and does not change slide
            if "mod-active" not in (buttons.nth(k).get_attribute("class") or ""):
                before = explorer.evaluate(SIGNATURE_JS)
                buttons.nth(k).focus()
                page.keyboard.press("Space")
                assert "mod-active" in (buttons.nth(k).get_attribute("class") or ""), "Space did not press the button"
                assert wait_for_change(explorer, before, SIGNATURE_JS), (
                    "the toggle button pressed with Space changed nothing"
                )
                assert page.evaluate(INDICES_JS) == where, "Space on a focused toggle button changed the slide"
                break
        else:
            pytest.fail(f"{RISE_NOTEBOOK}'s first explorer has no toggle buttons to press")
        handle.focus()
        page.keyboard.press("Escape")
        assert not page.evaluate(on_handle), "Esc left the focus on the slider"
        assert page.evaluate("Reveal.isOverview()") is False and page.evaluate(INDICES_JS) == where
        page.keyboard.press("ArrowRight")  # now the slides' key again
        assert page.evaluate(INDICES_JS) != where
        page.evaluate("([h, v]) => Reveal.slide(h, v)", [int(x) for x in where.split("/")])
        past = page.evaluate("Reveal.getSlidePastCount()")
        handle.focus()
        page.keyboard.press("PageDown")
        assert page.evaluate("Reveal.getSlidePastCount()") == past + 1, "Page Down on a focused slider"
        assert not page.evaluate(on_handle), "the slider kept the focus on the next slide"
    finally:
        page.close()
