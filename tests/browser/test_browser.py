"""End to end, as a learner sees it: every notebook in JupyterLab in headless Chromium.

For every notebook: run all cells from a clean copy (outputs cleared), assert no error output, and find as many
explorers as the committed notebook displays. Then, for every explorer and every control (sliders, toggle buttons,
drop-downs), move it as a learner would (keys, clicks, a choice) and assert that the picture on screen becomes the
one the kernel draws afresh for the new values (every region, compared tag by tag), and that the kernel holds the
new value. A fast burst of slider keys (a drag's worth) must end on the last position's picture and stay there.
The pictures' text must stand out from the background (contrast >= 3:1), in the Light theme here and in the Dark
theme in `test_dark_theme`; `test_narrow_window` checks an 800 px window with the file browser open.
Screenshots go to artifacts/browser/. Run with `pytest -m browser -n 0 tests/browser/test_browser.py` (needs Debian's
chromium; in CI a missing browser is a failure, not a skip).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import jlab
import pytest
from explorer_page import Explorer, ExplorerPage, committed_explorers

from attention_helpers.tools.refresh import NOTEBOOKS, all_notebooks

pytestmark = pytest.mark.browser
ARTIFACTS = jlab.ROOT / "artifacts" / "browser"
INSTRUMENT = {"ATTENTION_HELPERS_INSTRUMENT": "1"}  # explorers register themselves for the kernel-side checks
DARK = {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}
MIN_CONTRAST = 3.0  # WCAG's least contrast for large text and graphics
NOTEBOOKS_WITH_EXPLORERS = [p for p in all_notebooks() if committed_explorers(p)]


def rel(path: Path) -> str:
    return str(path.relative_to(NOTEBOOKS))


@pytest.fixture(scope="module")
def notebooks_dir():
    jlab.require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ah-notebooks-") as tmp:
        jlab.clean_copy(Path(tmp))
        yield Path(tmp)


@pytest.fixture(scope="module")
def browser():
    if not jlab.chromium_available():
        pytest.skip("no Chromium")
    with jlab.chromium() as context:
        yield context


@pytest.fixture(scope="module")
def lab(notebooks_dir, browser):
    with jlab.jupyterlab(notebooks_dir, env=INSTRUMENT) as url:
        yield url, browser


def open_and_run(context: object, url: str, path: Path) -> tuple[ExplorerPage, list[Explorer]]:
    page = ExplorerPage(jlab.open_notebook(context, url, rel(path)))
    state = page.run_all()
    assert state["errors"] == [], f"error outputs: {state['errors']}"
    expected = committed_explorers(path)
    explorers = page.explorers(expected)
    assert len(explorers) == expected, f"{len(explorers)} explorers on screen, the committed notebook shows {expected}"
    return page, explorers


def check_every_control(explorer: Explorer) -> int:
    """Move every control to each of its targets; the picture must follow. Returns the number of moves checked."""
    state = explorer.kernel_state()
    assert state["error"] is None, f"explorer {explorer.number}: {state['error']}"
    controls = explorer.controls()
    assert controls, f"explorer {explorer.number} has no control on screen"
    moves = 0
    for control in controls:
        assert not control.disabled, f"{control.name} is disabled although the kernel runs"
        for target in control.moves():
            before = explorer.kernel_state()
            explorer.move(explorer.control(control), target)
            explorer.wait_until_shows_expected(control, before)
            moves += 1
    return moves


def check_drag(explorer: Explorer) -> None:
    """A drag's worth of slider keys with no wait between them: the last position's picture must win, and stay."""
    slider = next((c for c in explorer.controls() if c.kind == "slider"), None)
    if slider is None:
        return
    low, high = slider.positions
    explorer.move(slider, "End")
    far = explorer.wait_until_shows_expected(slider)["views"]
    explorer.move(slider, "Home")
    explorer.wait_until_shows_expected(slider)
    presses, final = 0, low
    while presses == 0 or final - low < (high - low) / 4:  # a quarter of the way up, one key at a time
        final = explorer.move(slider, "ArrowRight")
        presses += 1
    reference = explorer.wait_until_shows_expected(slider)["views"]
    assert reference != far, f"{slider.name}: positions {final} and {high} look alike; the test cannot tell them apart"
    for key in ["End", "Home"] * 8 + ["ArrowRight"] * presses:
        explorer.press(slider, key)
    assert explorer.control(slider).position == final
    deadline = time.monotonic() + 10
    while explorer.picture() != reference:
        assert time.monotonic() < deadline, "after a fast burst of changes the picture never showed the last one"
        time.sleep(0.05)
    time.sleep(1.0)  # a stale redraw or an echo from the kernel would arrive in this time
    assert explorer.picture() == reference, "a stale picture replaced the last position's"
    assert explorer.wait_until_shows_expected(slider)["views"] == reference


def check_contrast(explorer: Explorer, theme: str) -> int:
    readings = explorer.text_contrast()
    low = [r for r in readings if r["ratio"] < MIN_CONTRAST]
    assert not low, f"{theme}: text hard to read on its background (contrast < {MIN_CONTRAST}): {low[:5]}"
    return len(readings)


@pytest.mark.parametrize("path", NOTEBOOKS_WITH_EXPLORERS, ids=rel)
def test_explorers_follow_every_control(lab, path):
    url, context = lab
    page, explorers = open_and_run(context, url, path)
    try:
        for explorer in explorers:
            assert check_every_control(explorer) > 0
            check_drag(explorer)
            check_contrast(explorer, "JupyterLab Light")
            explorer.locator.scroll_into_view_if_needed()
            explorer.locator.screenshot(path=str(ARTIFACTS / f"{path.stem}__explorer{explorer.number}.png"))
            assert explorer.kernel_state()["error"] is None
        assert page.errors() == [], f"error outputs after moving the controls: {page.errors()}"
    finally:
        page.page.close()


@pytest.mark.parametrize("path", [p for p in all_notebooks() if not committed_explorers(p)], ids=rel)
def test_notebook_without_explorers_runs(lab, path):
    url, context = lab
    page, _ = open_and_run(context, url, path)
    page.page.close()


@pytest.fixture(scope="module")
def dark_narrow_lab(notebooks_dir, browser):
    """JupyterLab Dark in an 800 px window (a laptop split screen), its own server and browser context."""
    context = browser.browser.new_context(viewport={"width": 800, "height": 900})
    try:
        with jlab.jupyterlab(notebooks_dir, settings=DARK, env=INSTRUMENT) as url:
            yield url, context
    finally:
        context.close()


@pytest.mark.parametrize("path", NOTEBOOKS_WITH_EXPLORERS, ids=rel)
def test_dark_theme_narrow_window(dark_narrow_lab, path):
    """In JupyterLab Dark, every explorer's text (titles, ticks, labels, captions) stands out from the background.
    At 800 px with the file browser open, every slider keeps a track of at least 200 px, nothing in an explorer
    scrolls sideways, and no control or picture is cut off at the output area's right edge."""
    url, context = dark_narrow_lab
    page, explorers = open_and_run(context, url, path)
    try:
        background = page.page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        assert background not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), f"the theme is not dark: {background}"
        page.page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
        page.page.wait_for_timeout(500)
        for explorer in explorers:
            assert check_contrast(explorer, "JupyterLab Dark") > 0
            report = explorer.layout()
            narrow = [t for t in report["tracks"] if t["width"] < 200]
            assert not narrow, f"slider tracks under 200 px in an 800 px window: {narrow}"
            assert not report["scrolled"], f"parts scroll sideways: {report['scrolled']}"
            assert not report["cut"], f"cut off at the output area's right edge: {report['cut']}"
        page.page.screenshot(path=str(ARTIFACTS / f"dark_narrow__{path.stem}.png"), full_page=True)
    finally:
        page.page.close()
