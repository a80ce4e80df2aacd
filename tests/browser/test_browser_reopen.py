"""Notebooks opened without running, and reopened after a run: `pytest -m browser -n 0 tests/browser/test_browser_reopen.py`.

In JupyterLab with this environment's Jupyter configuration (jupyter-config/, installed by requirements.txt:
widget state saved with the notebook, and `attention_helpers.tools.save_hook` keeping the stored state of displayed
widgets the browser did not send), a learner with a fresh trust database:
- opens a committed notebook: untrusted, its explorers show their stored pictures and no widget error; trusted,
  they are live with no kernel behind them (controls switch pictures); saving it without running changes no byte;
  a notebook whose outputs hold no widget is not marked modified (its language_info is what JupyterLab writes);
- runs a notebook, saves it, reopens it (kernel still running, then after a kernel shutdown): no "Error
  displaying widget: model not found", and every explorer still switches pictures; saves it again without
  running and reopens it: the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import jlab
import pytest

from attention_helpers.tools.refresh import NOTEBOOKS, all_notebooks

pytestmark = pytest.mark.browser
ARTIFACTS = jlab.ROOT / "artifacts" / "browser_reopen"
RUN = "05_self_attention.ipynb"  # three explorers: sliders and toggle buttons
PROBE_JS = """(panel) => {
  const node = document.querySelector(panel);
  const outputs = [...node.querySelectorAll('.jp-OutputArea-output')];
  return {explorers: node.querySelectorAll('.ah-explorer').length,
          errors: outputs.filter(o => o.textContent.includes('Error displaying widget')).map(o => o.textContent),
          pictures: node.querySelectorAll('.jp-OutputArea-output img').length};
}"""
SIGNATURE_JS = """(e) => [...e.querySelectorAll('.ah-view')].filter(v => v.checkVisibility())
    .map(v => v.innerHTML).join('|')"""


def explorer_outputs(path: Path) -> int:
    nb = json.loads(path.read_text())
    return sum(
        1
        for cell in nb["cells"]
        for o in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
        and "Explorer(" in "".join(o["data"].get("text/plain", ""))
    )


# The explorers' widgets, which the kernel does not know, carry `jupyter-widgets-disconnected`; ipywidgets draws a red
# icon in their ::before, which view.STYLE removes inside explorers. Their controls are named by the explorer's script.
EXPLORER_A11Y_JS = """() => {
  const explorers = [...document.querySelectorAll('.ah-explorer')];
  const marked = explorers.flatMap(e => [e, ...e.querySelectorAll('.jupyter-widgets-disconnected')])
    .filter(e => e.classList.contains('jupyter-widgets-disconnected'));
  const icons = marked.filter(e => !['none', 'normal', ''].includes(getComputedStyle(e, '::before').content));
  return {disconnected: marked.length, icons: icons.length,
          controls: explorers.flatMap(e => [...e.querySelectorAll('.noUi-handle, select')])
            .map(c => c.getAttribute('aria-label') || ''),
          live: explorers.map(e => e.querySelectorAll('.ah-live[aria-live=polite]').length === 1)};
}"""


@pytest.fixture(scope="module")
def lab():
    jlab.require_chromium()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    data = tempfile.mkdtemp(prefix="ah-data-")  # a fresh trust database: nothing signed, as for a new learner
    previous = os.environ.get("JUPYTER_DATA_DIR")
    os.environ["JUPYTER_DATA_DIR"] = data
    try:
        with tempfile.TemporaryDirectory(prefix="ah-notebooks-") as tmp:
            root = Path(tmp)
            for path in all_notebooks():  # committed copies, outputs and widget state included
                target = root / path.relative_to(NOTEBOOKS)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)
            shutil.copy(NOTEBOOKS / "02_additive_attention.ipynb", root / "trusted.ipynb")
            trust = [sys.executable, "-m", "jupyter", "trust", str(root / "trusted.ipynb")]
            subprocess.run(trust, check=True, capture_output=True)
            with jlab.jupyterlab(root) as url, jlab.chromium() as context:
                yield url, context, root
    finally:
        if previous is None:
            os.environ.pop("JUPYTER_DATA_DIR", None)
        else:
            os.environ["JUPYTER_DATA_DIR"] = previous
        shutil.rmtree(data, ignore_errors=True)


def probe(page) -> dict:
    return page.evaluate(PROBE_JS, jlab.panel_selector(page))


def settle(page, seconds: float = 3) -> None:
    """Give restored widgets time to draw (restoring waits for the kernel, then reads the notebook's state)."""
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.context.isReady", timeout=30_000)
    time.sleep(seconds)


def save(page) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)


def shut_down_kernel(page) -> None:
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.sessionContext.session", timeout=30_000)


def assert_explorers_switch(page, expected: int, where: str) -> None:
    """Every explorer is drawn and its first control changes its picture, with no widget error."""
    panel = jlab.panel_selector(page)
    drawn = f"document.querySelectorAll('{panel} .ah-explorer .ah-view svg').length > 0"
    deadline = time.monotonic() + 30
    while True:  # until every explorer is drawn, or a widget error shows
        state = probe(page)
        if state["errors"] or (state["explorers"] >= expected and page.evaluate(f"() => {drawn}")):
            break
        assert time.monotonic() < deadline, f"{where}: {state['explorers']} of {expected} explorers drawn in 30 s"
        time.sleep(0.2)
    assert state["errors"] == [], f"{where}: {state['errors']}"
    assert state["explorers"] == expected, f"{where}: {state['explorers']} explorers drawn, {expected} expected"
    explorers = page.locator(f"{panel} .ah-explorer")
    for e in range(expected):
        explorer = explorers.nth(e)
        explorer.scroll_into_view_if_needed()
        before = explorer.evaluate(SIGNATURE_JS)
        buttons = explorer.locator(".widget-toggle-buttons button:not(.mod-active)")
        if buttons.count():
            buttons.first.click()
        else:
            handle = explorer.locator(".noUi-handle").first
            handle.focus()
            page.keyboard.press(
                "End" if handle.get_attribute("aria-valuenow") != handle.get_attribute("aria-valuemax") else "Home"
            )
        deadline = time.monotonic() + 5
        while explorer.evaluate(SIGNATURE_JS) == before:
            assert time.monotonic() < deadline, f"{where}: explorer {e}'s picture did not change"
            time.sleep(0.05)


def test_environment_saves_widget_state(lab):
    url, context, _ = lab
    page = jlab.open_notebook(context, url, "07_cost_of_attention.ipynb")
    try:
        with urllib.request.urlopen(f"{url}/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin") as reply:
            plugin = json.load(reply)
        default = plugin["schema"]["properties"]["saveState"]["default"]  # overrides.d changes the default
        assert plugin["settings"].get("saveState", default) is True, (
            "saveState is off: install requirements.txt (jupyter-config/) into this environment"
        )
        settle(page)
        # a notebook with no widget output is not marked modified on open: its language_info is JupyterLab's
        assert page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty") is False
    finally:
        page.close()


def test_committed_notebook_opened_without_running(lab):
    url, context, root = lab
    name = "01_masking.ipynb"
    before = hashlib.sha256((root / name).read_bytes()).hexdigest()
    page = jlab.open_notebook(context, url, name)
    try:
        settle(page)
        # untrusted: JupyterLab shows each explorer's stored picture (a HeatmapExplorer's PNG, a PictureExplorer's
        # SVG as an <img> in text/html, since it renders no raw SVG there), never a widget error
        state = probe(page)
        assert state["errors"] == [] and state["explorers"] == 0
        pictures = sum(
            1
            for c in json.loads((root / name).read_text())["cells"]
            for o in c.get("outputs", [])
            if "image/png" in o.get("data", {}) or "".join(o.get("data", {}).get("text/html", "")).startswith("<img")
        )
        assert state["pictures"] == pictures
        save(page)  # as autosave would: the file keeps every byte (widget state included)
        assert hashlib.sha256((root / name).read_bytes()).hexdigest() == before
    finally:
        page.close()
    page = jlab.open_notebook(context, url, "trusted.ipynb")  # trusted (signed): live explorers, no kernel run
    try:
        settle(page)
        assert_explorers_switch(page, explorer_outputs(root / "trusted.ipynb"), "trusted committed notebook")
        seen = page.evaluate(EXPLORER_A11Y_JS)
        assert seen["disconnected"] > 0 and seen["icons"] == 0, f"red disconnected icons on the explorers: {seen}"
        assert seen["controls"] and all(seen["controls"]), f"controls without an accessible name: {seen}"
        assert seen["live"] and all(seen["live"]), f"an explorer without its live region: {seen}"
        page.screenshot(path=str(ARTIFACTS / "trusted_committed.png"))
    finally:
        page.close()


def test_run_save_reopen(lab):
    url, context, root = lab
    expected = explorer_outputs(root / RUN)
    assert expected >= 1
    page = jlab.open_notebook(context, url, RUN)
    try:
        state = jlab.run_all(page)
        assert state["errors"] == [], state["errors"]
        assert_explorers_switch(page, expected, "after running")
        save(page)
        page.reload(wait_until="domcontentloaded")  # reopened, kernel still running
        page.wait_for_function("() => window.jupyterapp?.shell.currentWidget?.sessionContext", timeout=60_000)
        settle(page)
        assert_explorers_switch(page, expected, "reopened, kernel running")
        shut_down_kernel(page)
    finally:
        page.close()
    for where in ("reopened with a new kernel", "saved again without running, reopened"):
        page = jlab.open_notebook(context, url, RUN)  # a new kernel: the widgets come from the saved state only
        try:
            settle(page)
            assert_explorers_switch(page, expected, where)
            page.screenshot(path=str(ARTIFACTS / f"{where.replace(' ', '_').replace(',', '')}.png"))
            save(page)  # the browser has no live widget to send: the save hook keeps the stored ones
            shut_down_kernel(page)
        finally:
            page.close()
    saved = json.loads((root / RUN).read_text())
    shown = [
        o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
        for c in saved["cells"]
        for o in c.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    stored = saved["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    assert shown and all(i in stored for i in shown)
