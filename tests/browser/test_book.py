"""The book in a real browser, offline: `pytest -m browser -n 0 tests/browser/test_book.py`.

Builds the book from the committed notebooks (`python -m attention_helpers.tools.book`) into a temporary folder, serves
it on 127.0.0.1 and opens every page in headless Chromium, in the theme's light and dark modes, with every request
outside the local server blocked and counted (there must be none), and no failed request, page error or console
error. Then, on every page and in both modes:
- axe-core (axe-playwright-python) with the tags wcag2a, wcag2aa, wcag21a and wcag21aa reports no violation;
- every picture (image, SVG, explorer frame) has a text alternative holding at least one number;
- every control of every explorer (sliders, toggle buttons, drop-downs, checkboxes) has an accessible name and
  changes its picture, with no kernel anywhere, and the explorer's live region then holds the new caption.
With JavaScript off, every explorer's stored picture shows. Screenshots go to artifacts/book/.
"""

from __future__ import annotations

import re

import jlab
import pytest
from axe_playwright_python.sync_playwright import Axe
from controls import exercise
from explorer_page import script

from attention_helpers.tools.book import build, report
from attention_helpers.tools.refresh import all_notebooks

pytestmark = pytest.mark.browser
ARTIFACTS = jlab.ROOT / "artifacts" / "book"
MODES = ["light", "dark"]
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
PAGES = [
    "index.html",
    *(str(p.relative_to(jlab.ROOT / "notebooks").with_suffix(".html")) for p in all_notebooks()),
]
RENDERED_JS = """() => [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
    .every(s => { const area = s.previousElementSibling;
                  return area && area.classList.contains('widget-subarea') && area.children.length > 0; })
    && [...document.querySelectorAll('.ah-explorer')].every(e => e.dataset.ahA11y)"""
# Every picture in the article (outputs and explorers, not the theme's icons) and its text alternative: an <img>'s
# alt (not its file name, which docutils puts there when it has none), an <svg>'s aria-label or <title> (outermost
# SVGs only).
PICTURES_JS = """() => [...document.querySelectorAll('article img, article svg')]
    .filter(p => p.tagName.toLowerCase() === 'img' || !p.parentElement.closest('svg'))
    .filter(p => p.closest('.cell_output, .ah-widget, .ah-explorer') && !p.closest('mjx-container'))
    .filter(p => p.checkVisibility())
    .map(p => ({tag: p.tagName.toLowerCase(),
                text: p.tagName.toLowerCase() === 'img'
                      ? (p.getAttribute('alt') === p.getAttribute('src') ? '' : p.getAttribute('alt') || '')
                      : (p.getAttribute('aria-label') || (p.querySelector(':scope > title') || {}).textContent || '')}))"""


# The explorer's HTML text (labels, readouts, captions) against the first opaque background behind it: axe skips
# some of it (text over an element it cannot see through), so it is measured here too.
LABEL_CONTRAST_JS = """e => {
  const rgb = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const back = el => { for (let n = el; n; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor);
                         if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3); } return [255, 255, 255]; };
  return [...e.querySelectorAll('.widget-label, .widget-readout, .ah-caption')].filter(t => t.checkVisibility() && t.textContent.trim())
    .map(t => { const a = lum(rgb(getComputedStyle(t).color)), b = lum(back(t));
                return {text: t.textContent.trim().slice(0, 40), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)}; })
    .filter(r => r.ratio < 3);
}"""
UNNAMED_JS = """e => [...e.querySelectorAll('.noUi-handle, select, .widget-toggle-buttons, input')]
    .filter(c => !(c.getAttribute('aria-label') || '').trim() && !c.labels?.length).map(c => c.outerHTML.slice(0, 80))"""
SHOWN_JS = """fs => fs.filter(f => {
    if (!f.checkVisibility()) return true;
    const img = f.querySelector('img'), svg = f.querySelector('svg'), pre = f.querySelector('pre');
    if (img) return !(img.complete && img.naturalWidth > 0);
    if (svg) return !(svg.getBoundingClientRect().width > 0 && svg.getBoundingClientRect().height > 0);
    return !(pre && pre.textContent.trim());
  }).map(f => f.dataset.repr)"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    jlab.require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = tmp_path_factory.mktemp("site")
    pages = build(out)
    print("\n" + "\n".join(report(pages)))
    out = out / "html"
    with jlab.serve(out) as base, jlab.chromium() as context:
        outside = jlab.refuse_outside(context, base)
        yield base, context, outside


class Watch:
    """What a page did wrong: page errors, console errors, failed or refused requests."""

    def __init__(self, page) -> None:
        self.problems: list[str] = []
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", lambda m: self.problems.append(f"console.error: {m.text}") if m.type == "error" else None)
        page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url} {r.failure}"))
        page.on("response", lambda r: self.problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)


def numberless(page) -> list[str]:
    """The pictures shown whose text alternative holds no number."""
    return [f"{p['tag']}: {p['text'][:80]!r}" for p in page.evaluate(PICTURES_JS) if not re.search(r"\d", p["text"])]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("rel", PAGES)
def test_page_works_offline_and_is_accessible(site, rel, mode):
    base, context, outside = site
    page = context.new_page()
    page.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}')")
    watch = Watch(page)
    try:
        page.goto(base + rel, wait_until="load")
        assert page.evaluate("document.documentElement.dataset.theme") == mode
        if rel == "index.html":
            links = page.locator("nav.bd-links a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
            assert links == PAGES[1:], "the sidebar must list every notebook, then the solutions"
            assert "Reading guide" in page.inner_text("article")
        else:
            assert page.locator("a.btn[href$='.ipynb'], a[href$='.ipynb'].btn").count() >= 1, "no download link"
            assert page.locator(".prev-next-area a").count() >= 1, "no previous / next link"
        page.wait_for_function(RENDERED_JS, timeout=30_000)
        text = page.inner_text("article")
        assert "$$" not in text and not re.search(r"\$[^$\s][^$]*\\[a-z]+[^$]*\$", text), "raw TeX left on the page"
        expected = page.locator(".ah-fallback[data-repr*='Explorer(']").count()
        explorers = page.locator(".ah-explorer")
        assert explorers.count() == expected, f"{explorers.count()} explorers drawn, {expected} stored"
        visible = page.locator(".ah-fallback").evaluate_all("fs => fs.filter(f => f.checkVisibility()).length")
        assert visible == 0, "a stored picture still shows beside its live widget"
        assert numberless(page) == [], "pictures without a text alternative holding a number"
        problems = list(watch.problems)
        watch.problems.clear()  # axe fetches stylesheets itself (and resolves their @imports against the page)
        violations = Axe().run(page, options=AXE_OPTIONS).response["violations"]
        found = [f"{v['id']}: {[n['target'] for n in v['nodes'][:3]]} ({len(v['nodes'])})" for v in violations]
        assert found == [], f"axe: {found}"
        dead = []
        for e in range(explorers.count()):
            explorer = explorers.nth(e)
            explorer.scroll_into_view_if_needed()
            unnamed = explorer.evaluate(UNNAMED_JS)
            assert unnamed == [], f"explorer {e}: controls without an accessible name: {unnamed}"
            low = [r for r in explorer.evaluate(script("text_contrast")) if r["ratio"] < 3]
            low += explorer.evaluate(LABEL_CONTRAST_JS)
            assert low == [], f"explorer {e}: text hard to read on its background (contrast < 3): {low[:5]}"
            dead += exercise(page, explorer, f"{rel} explorer {e}", ["End", "Home", "End", "ArrowLeft"])
            live = explorer.locator(".ah-live")
            assert live.count() == 1 and live.inner_text().strip(), f"explorer {e}: its live region never spoke"
            explorer.screenshot(path=str(ARTIFACTS / f"{rel.replace('/', '__')}__{mode}__explorer{e}.png"))
        assert dead == [], f"controls whose change did not change the picture: {dead}"
        assert numberless(page) == [], "pictures without a text alternative holding a number, after the moves"
        assert problems == [], problems
        assert outside == [], f"requests outside the site: {outside}"
    finally:
        page.close()


@pytest.mark.parametrize("rel", PAGES)
def test_pictures_are_legible_at_1280_px(site, rel):
    """At 1280 px (issue 36), every picture's text is drawn at 10 px or more, no two of its labels overlap, and no
    explorer label runs into the next one (`tests/support/js/legibility.js`)."""
    base, context, outside = site
    narrow = context.browser.new_context(viewport={"width": 1280, "height": 900})
    jlab.refuse_outside(narrow, base)
    page = narrow.new_page()
    try:
        page.goto(base + rel, wait_until="load")
        page.wait_for_function(RENDERED_JS, timeout=30_000)
        seen = page.evaluate(script("legibility"), "page")
        small = [t for t in seen["texts"] if t["size"] < 10]
        assert small == [], f"text under 10 px: {small[:5]}"
        assert seen["overlaps"] == [], f"labels that overlap: {seen['overlaps'][:5]}"
        assert seen["together"] == [], f"labels that run together: {seen['together'][:5]}"
    finally:
        narrow.close()


def test_the_legibility_check_finds_small_overlapping_and_run_together_labels(site):
    """The check above fails for a page that breaks each of its rules."""
    base, context, outside = site
    page = context.new_page()
    try:
        page.set_content(
            '<article><svg xmlns="http://www.w3.org/2000/svg" width="300" height="100" aria-label="a 1">'
            '<text x="5" y="20" font-size="6">tiny</text>'
            '<text x="5" y="70" font-size="30">left</text><text x="20" y="70" font-size="30">right</text></svg>'
            '<div class="ah-explorer" style="display: flex"><span class="widget-label">sequence 1 has no real key</span>'
            '<span class="widget-label">dtype</span></div></article>'
        )
        seen = page.evaluate(script("legibility"), "page")
        assert [t["text"] for t in seen["texts"] if t["size"] < 10] == ["tiny"]
        assert seen["overlaps"] == ['"left" and "right" (a 1)']
        assert seen["together"] == ['"sequence 1 has no real key" then "dtype"']
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
            assert page.locator(".ah-explorer").count() == 0
            if fallbacks.count():
                fallbacks.first.scroll_into_view_if_needed()
                fallbacks.first.screenshot(path=str(ARTIFACTS / f"{rel.replace('/', '__')}__no_js.png"))
            page.close()
    finally:
        quiet.close()
