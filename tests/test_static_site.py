"""The static site in a real browser, offline: `pytest -m browser -n 0 tests/test_static_site.py`.

Builds the site from the committed notebooks (`python -m attention_helpers.site`) into a temporary folder, serves
it on 127.0.0.1 and opens every page in headless Chromium with every request outside the local server blocked and
counted (there must be none), and no failed request, page error or console error. Markdown shows no raw `$...$`.
In every explorer, every control (sliders, selection sliders, toggle buttons, drop-downs, checkboxes) is changed
and the picture of that output area must change, with no kernel anywhere. With JavaScript off, every explorer's
stored picture shows. Screenshots go to artifacts/static_site/.
"""

from __future__ import annotations

import time

import jlab
import pytest

from attention_helpers.refresh import all_notebooks
from attention_helpers.site import render, report
from attention_helpers.site.mathml import MATH

pytestmark = pytest.mark.browser
ARTIFACTS = jlab.ROOT / "artifacts" / "static_site"
PAGES = [
    "index.html",
    *(str(p.relative_to(jlab.ROOT / "notebooks").with_suffix(".html")) for p in all_notebooks()),
]
SIGNATURE_JS = """(e) => [...e.querySelectorAll('.ah-view')].filter(v => v.checkVisibility())
    .map(v => v.innerHTML).join('|')"""
RENDERED_JS = """() => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
    .every(s => { const area = s.previousElementSibling;
                  return area && area.classList.contains('widget-subarea') && area.children.length > 0; })"""


SHOWN_JS = """fs => fs.filter(f => {
    if (!f.checkVisibility()) return true;
    const img = f.querySelector('img'), svg = f.querySelector('svg'), pre = f.querySelector('pre');
    if (img) return !(img.complete && img.naturalWidth > 0);
    if (svg) return !(svg.getBoundingClientRect().width > 0 && svg.getBoundingClientRect().height > 0);
    return !(pre && pre.textContent.trim());
  }).map(f => f.getAttribute('aria-label'))"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    jlab.require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = tmp_path_factory.mktemp("site")
    pages = render(out)
    print("\n" + "\n".join(report(pages)))
    outside: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith(base) or url.startswith(("data:", "blob:")):
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    with jlab.serve(out) as base, jlab.chromium() as context:
        context.route("**/*", route)
        yield base, context, outside


class Watch:
    """What a page did wrong: page errors, console errors, failed or refused requests."""

    def __init__(self, page) -> None:
        self.problems: list[str] = []
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", lambda m: self.problems.append(f"console.error: {m.text}") if m.type == "error" else None)
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url} {r.failure}"))
        page.on("response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)


def wait_for_change(explorer, before: str, timeout_s: float = 5) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if explorer.evaluate(SIGNATURE_JS) != before:
            return True
        time.sleep(0.03)
    return False


def try_changes(explorer, attempts: list) -> bool:
    """Make each change in turn until the picture changes; True if one did."""
    for change in attempts:
        before = explorer.evaluate(SIGNATURE_JS)
        if change() is False:  # the control was already there
            continue
        if wait_for_change(explorer, before):
            return True
    return False


def slider_changes(page, handle) -> list:
    def key(name: str):
        def press() -> bool:
            old = handle.get_attribute("aria-valuenow")
            handle.focus()
            page.keyboard.press(name)
            return handle.get_attribute("aria-valuenow") != old

        return press

    return [key("End"), key("Home"), key("End"), key("ArrowLeft")]


def click_unless_active(button):
    def click() -> bool:
        if "mod-active" in (button.get_attribute("class") or ""):
            return False
        button.click()
        return True

    return click


def choose(select, index: int):
    def pick() -> bool:
        if select.evaluate("s => s.selectedIndex") == index:
            return False
        select.select_option(index=index)
        return True

    return pick


def exercise(page, explorer, name: str) -> list[str]:
    """Change every control of one explorer; returns a description of each control whose change showed nothing."""
    dead, checked = [], 0
    note = explorer.locator(".ah-kernel-note")
    handles = explorer.locator(".noUi-handle")
    for i in range(handles.count()):
        handle = handles.nth(i)
        label = f"{name} slider {i}"
        if handle.get_attribute("disabled") is not None or handle.evaluate("h => h.closest('[disabled]') !== null"):
            assert note.count() and note.first.is_visible(), f"{label} is disabled without the kernel note"
            continue
        checked += 1
        if not try_changes(explorer, slider_changes(page, handle)):
            dead.append(label)
    groups = explorer.locator(".widget-toggle-buttons")
    for g in range(groups.count()):
        buttons = groups.nth(g).locator("button")
        label = f"{name} toggle buttons {g}"
        if buttons.first.is_disabled():
            assert note.count() and note.first.is_visible(), f"{label} is disabled without the kernel note"
            continue
        checked += 1
        if not try_changes(explorer, [click_unless_active(buttons.nth(k)) for k in range(buttons.count())]):
            dead.append(label)
    selects = explorer.locator(".widget-dropdown select")
    for s in range(selects.count()):
        select = selects.nth(s)
        if select.is_disabled():
            assert note.count() and note.first.is_visible(), f"{name} drop-down {s} is disabled without the note"
            continue
        checked += 1
        options = select.locator("option").count()
        if not try_changes(explorer, [choose(select, k) for k in range(options)]):
            dead.append(f"{name} drop-down {s}")
    boxes = explorer.locator(".widget-checkbox input[type=checkbox]")
    for c in range(boxes.count()):
        box = boxes.nth(c)
        if box.is_disabled():
            assert note.count() and note.first.is_visible(), f"{name} checkbox {c} is disabled without the note"
            continue
        checked += 1
        if not try_changes(explorer, [box.click, box.click]):
            dead.append(f"{name} checkbox {c}")
    assert checked or note.count(), f"{name}: no control found"
    return dead


@pytest.mark.parametrize("rel", PAGES)
def test_page_works_offline(site, rel):
    base, context, outside = site
    page = context.new_page()
    watch = Watch(page)
    try:
        page.goto(base + rel, wait_until="load")
        if rel == "index.html":
            links = page.locator("a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
            assert links == PAGES[1:], "the index must list every notebook, then the solutions"
            assert "no install" in page.inner_text("body")
        page.wait_for_function(RENDERED_JS, timeout=30_000)
        text = "\n".join(page.locator(".jp-MarkdownOutput").all_inner_texts())
        assert not MATH.search(text), f"raw TeX left in the markdown: {MATH.search(text)[0]!r}"
        expected = page.locator(".ah-fallback[aria-label*='Explorer(']").count()
        explorers = page.locator(".ah-explorer")
        assert explorers.count() == expected, f"{explorers.count()} explorers drawn, {expected} stored"
        visible = page.locator(".ah-fallback").evaluate_all("fs => fs.filter(f => f.checkVisibility()).length")
        assert visible == 0, "a stored picture still shows beside its live widget"
        dead = []
        for e in range(explorers.count()):
            explorer = explorers.nth(e)
            explorer.scroll_into_view_if_needed()
            dead += exercise(page, explorer, f"{rel} explorer {e}")
            explorer.screenshot(path=str(ARTIFACTS / f"{rel.replace('/', '__')}__explorer{e}.png"))
        assert dead == [], f"controls whose change did not change the picture: {dead}"
        assert watch.problems == [], watch.problems
        assert outside == [], f"requests outside the site: {outside}"
    finally:
        page.close()


def test_pictures_show_without_javascript(site):
    base, context, outside = site
    quiet = context.browser.new_context(java_script_enabled=False, viewport={"width": 1200, "height": 900})
    quiet.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
    try:
        for rel in PAGES[1:]:
            page = quiet.new_page()
            page.goto(base + rel, wait_until="load")
            fallbacks = page.locator(".ah-fallback")  # every widget's: a picture, or a text (a progress bar's)
            hidden = fallbacks.evaluate_all(SHOWN_JS)
            assert hidden == [], f"{rel}: stored pictures or texts that do not show: {hidden}"
            pictures = page.locator(".ah-fallback[role=img]").count()
            assert pictures == page.locator(".ah-fallback[aria-label*='Explorer(']").count()  # each explorer's
            assert page.locator(".ah-explorer").count() == 0
            if fallbacks.count():
                fallbacks.first.scroll_into_view_if_needed()
                fallbacks.first.screenshot(path=str(ARTIFACTS / f"{rel.replace('/', '__')}__no_js.png"))
            page.close()
    finally:
        quiet.close()
