"""End to end, as a learner sees it: every notebook in JupyterLab in headless Chromium.

Runs all cells from a clean state (outputs cleared in a temporary copy), asserts no error output, then moves
explorer sliders with the keyboard and checks the new heatmap: it changed, it is the picture the kernel draws afresh
for the new position (every region's cell colours, any slider), and for a `valid_lens[...]` slider the keys at or
past the new length are blank in that sentence's panels. A fast burst of key presses (a drag's
worth) must end on the last position's picture and stay there, with the kernel's state in step. Screenshots go to artifacts/browser/.
Run with `pytest -m browser` (needs Debian's chromium; in CI a missing browser is a failure, not a skip).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import time
from pathlib import Path

import jlab
import nbformat
import pytest

pytestmark = pytest.mark.browser
ARTIFACTS = jlab.ROOT / "artifacts" / "browser"


@pytest.fixture(scope="module")
def lab():
    if not jlab.chromium_available():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {jlab.CHROMIUM} in CI; {jlab.INSTALL_HINT}")
        pytest.skip(f"Chromium not found at {jlab.CHROMIUM}; {jlab.INSTALL_HINT}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ah-notebooks-") as tmp:
        jlab.clean_copy(Path(tmp))
        with jlab.jupyterlab(Path(tmp)) as url, jlab.chromium() as context:
            yield url, context


def committed_explorers(rel: str) -> int:
    nb = nbformat.read(jlab.ROOT / "notebooks" / rel, as_version=4)
    return sum(
        1
        for cell in nb.cells
        if cell.cell_type == "code"
        for o in cell.outputs
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        and o["data"].get("text/plain", "").startswith("HeatmapExplorer")
    )


READ_VIEW_JS = """
(explorer) => {
  const visible = [...explorer.querySelectorAll('.ah-view')].filter(v => v.checkVisibility() && v.querySelector('svg'));
  const read = (v) => [...v.querySelectorAll('g.panel')].map(g => {
    const rects = [...g.querySelectorAll('rect')];
    const xs = [...new Set(rects.map(r => r.getAttribute('x')))];
    return {row: +g.dataset.row, col: +g.dataset.col, K: xs.length, fills: rects.map(r => r.getAttribute('fill'))};
  });
  const views = visible.map(v => {
    const region = [...v.classList].find(c => c.startsWith('ah-region-'));
    return {region: region ? region.slice('ah-region-'.length) : null, panels: read(v)};
  });
  const ramp = [...explorer.querySelectorAll('g.colorbar rect')];
  return {sig: visible.map(v => v.innerHTML).join('|'), views,
          blank: ramp.length ? ramp[ramp.length - 1].getAttribute('fill') : null};
}
"""


def aria(handle, name: str) -> int:
    return int(float(handle.get_attribute(f"aria-{name}")))


def press(page, handle, key: str) -> None:
    handle.focus()  # re-focus each time: Left/Right are also JupyterLab shortcuts
    page.keyboard.press(key)


def wait_for_new_picture(explorer, before: str, timeout_s: float = 10) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = explorer.evaluate(READ_VIEW_JS)
        if state["sig"] != before:
            return state
        time.sleep(0.02)
    raise AssertionError("the heatmap did not change after the slider moved")


def batch_panels(state: dict, b: int) -> list[dict]:
    """The panels showing batch row b: its frame-drawn region, or its row/column of a kernel-drawn grid."""
    for view in state["views"]:
        if view["region"] == str(b):
            return view["panels"]
    kernel = [p for view in state["views"] if view["region"] is None for p in view["panels"]]
    if not kernel:
        return []
    rows = 1 + max(p["row"] for p in kernel)
    cols = 1 + max(p["col"] for p in kernel)
    if rows > 1:
        return [p for p in kernel if p["row"] == b]
    return [p for p in kernel if p["col"] == b] if b < cols else []


def check_lengths(state: dict, name: str, value: int) -> int:
    """Keys >= value must be blank in the panels of this batch row (and only this query row if per query)."""
    match = re.fullmatch(r"valid_lens\[(\d+)(?:, (\d+))?\]", name)
    if not match:
        return 0
    b, q = int(match.group(1)), match.group(2)
    panels = batch_panels(state, b)
    assert panels, f"no panels found for {name}"
    checked = 0
    for panel in panels:
        K = panel["K"]
        grid = [panel["fills"][i : i + K] for i in range(0, len(panel["fills"]), K)]
        for qi, row in enumerate(grid):
            if q is not None and qi != int(q):
                continue
            for k in range(value, K):
                assert row[k] == state["blank"], f"{name}={value}: key {k} of query {qi} is {row[k]}, not blank"
                checked += 1
    return checked


EXPECTED_PY = """
import json, re
from attention_helpers.widgets import HeatmapExplorer
_e = next(r() for r in HeatmapExplorer.instances if r() and {cls!r} in r().widget._dom_classes)
print(json.dumps({{
    "values": {{c.description: c.value for c in _e.controls.values()}},
    "views": {{k: [re.findall(r'fill="(#[0-9a-f]+)"', g) for g in re.findall(r'<g class="panel".*?</g>', svg)]
              for k, svg in _e.expected_svgs().items()}},
}}, default=str))
"""


def check_picture(page, explorer, handle, name: str, timeout_s: float = 10) -> None:
    """The picture on screen must become what the kernel draws afresh for the slider's position, and the kernel
    must hold that position: for every slider, not just lengths (a stale or wrong frame fails here)."""
    cls = next(c for c in explorer.get_attribute("class").split() if re.fullmatch(r"ah-explorer-\d+", c))
    deadline = time.monotonic() + timeout_s
    while True:
        want = json.loads(jlab.kernel_execute(page, EXPECTED_PY.format(cls=cls)))
        views = explorer.evaluate(READ_VIEW_JS)["views"]
        got = {v["region"] or "kernel": [p["fills"] for p in v["panels"]] for v in views}
        if want["values"].get(name) == aria(handle, "valuenow") and got == want["views"]:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert want["values"].get(name) == aria(handle, "valuenow"), f"{name}: kernel has {want['values']}"
    assert got.keys() == want["views"].keys(), (
        f"{name}: regions on screen {sorted(got)}, expected {sorted(want['views'])}"
    )
    bad = [k for k in got if got[k] != want["views"][k]]
    raise AssertionError(
        f"{name}={aria(handle, 'valuenow')}: region(s) {bad} on screen differ from the kernel's picture"
    )


def settle(explorer, handle, key: str, timeout_s: float = 3) -> str:
    """Press key and give the picture time to change (two positions may look alike); returns its signature."""
    old, before = aria(handle, "valuenow"), explorer.evaluate(READ_VIEW_JS)["sig"]
    press(explorer.page, handle, key)
    if aria(handle, "valuenow") != old:
        with contextlib.suppress(AssertionError):
            return wait_for_new_picture(explorer, before, timeout_s)["sig"]
    return explorer.evaluate(READ_VIEW_JS)["sig"]


def drag(page, explorer, handle) -> None:
    """A drag's worth of slider changes with no wait between them: the last position must win, and stay."""
    low, high = aria(handle, "valuemin"), aria(handle, "valuemax")
    far = settle(explorer, handle, "End")
    settle(explorer, handle, "Home")
    presses = 0
    while presses == 0 or aria(handle, "valuenow") - low < (high - low) / 4:  # a quarter of the way up
        reference = settle(explorer, handle, "ArrowRight")
        presses += 1
    final = aria(handle, "valuenow")  # its picture, reached slowly, is `reference`
    assert reference != far, f"positions {final} and {high} look the same: the test could not tell them apart"
    for key in ["End", "Home"] * 8 + ["ArrowRight"] * presses:
        press(page, handle, key)
    assert aria(handle, "valuenow") == final
    deadline = time.monotonic() + 10
    while explorer.evaluate(READ_VIEW_JS)["sig"] != reference:
        assert time.monotonic() < deadline, "after a fast burst of changes the picture never showed the last one"
        time.sleep(0.05)
    time.sleep(1.0)  # a stale redraw or an echo from the kernel would arrive in this time
    assert explorer.evaluate(READ_VIEW_JS)["sig"] == reference, "a stale picture replaced the last position's"
    assert aria(handle, "valuenow") == final


@pytest.mark.parametrize("rel", [str(p.relative_to(jlab.ROOT / "notebooks")) for p in jlab.lesson_notebooks()])
def test_notebook_in_jupyterlab(lab, rel):
    url, context = lab
    page = jlab.open_notebook(context, url, rel)
    try:
        state = jlab.run_all(page)
        assert state["errors"] == [], f"error outputs: {state['errors']}"
        expected = committed_explorers(rel)
        panel = jlab.panel_selector(page)
        explorers = page.locator(f"{panel} .ah-explorer")
        if expected:
            page.wait_for_function(
                f"() => document.querySelectorAll('{panel} .ah-explorer').length >= {expected} && [...document"
                f".querySelectorAll('{panel} .ah-explorer')].every(e => e.querySelector('.ah-view svg'))",
                timeout=30_000,
            )
        assert explorers.count() == expected
        for e in range(expected):
            explorer = explorers.nth(e)
            handles = explorer.locator(".widget-slider .noUi-handle")
            for s in range(handles.count()):  # every slider
                handle = handles.nth(s)
                name = explorer.locator(".widget-slider .widget-label").nth(s).inner_text().strip()
                low, high = aria(handle, "valuemin"), aria(handle, "valuemax")
                for key in ("ArrowLeft", "End") if aria(handle, "valuenow") > low else ("End", "Home"):
                    old = aria(handle, "valuenow")
                    target = {"ArrowLeft": None, "End": high, "Home": low}[key]  # ArrowLeft: one step down
                    if target == old:
                        continue
                    before = explorer.evaluate(READ_VIEW_JS)["sig"]
                    press(page, handle, key)
                    picture = wait_for_new_picture(explorer, before)
                    if target is None:
                        target = aria(handle, "valuenow")
                        assert low <= target < old, f"{name}: ArrowLeft moved {old} to {target}"
                    assert aria(handle, "valuenow") == target
                    if name.startswith("valid_lens[") and target < aria(handle, "valuemax"):
                        assert check_lengths(picture, name, target) > 0, f"{name}={target}: no blank key checked"
                    check_picture(page, explorer, handle, name)
            if handles.count():
                drag(page, explorer, handles.nth(0))
                check_picture(
                    page,
                    explorer,
                    handles.nth(0),
                    explorer.locator(".widget-slider .widget-label").first.inner_text().strip(),
                )
            explorer.scroll_into_view_if_needed()
            explorer.screenshot(path=str(ARTIFACTS / f"{rel.replace('/', '__')}__explorer{e}.png"))
        page.screenshot(path=str(ARTIFACTS / (rel.replace("/", "__") + ".png")))
        state = page.evaluate(jlab.STATE_JS)
        assert state["errors"] == [], f"error outputs after moving sliders: {state['errors']}"
        errors = jlab.kernel_execute(
            page,
            "from attention_helpers.widgets import HeatmapExplorer\n"
            "print(sum(1 for r in HeatmapExplorer.instances if r() and r().last_error))",
        )
        assert errors.strip() == "0", f"explorer callbacks raised: {errors}"
        in_step = jlab.kernel_execute(
            page,
            "from attention_helpers.widgets import HeatmapExplorer\n"
            "print(all(r.stack.selected_index == r.slider.value for e in HeatmapExplorer.instances if e()"
            " for r in e().regions))",
        )
        assert in_step.strip() == "True", f"kernel's frame index out of step with a slider: {in_step}"
    finally:
        page.close()
