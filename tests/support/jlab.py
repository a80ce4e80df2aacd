"""Drive JupyterLab in headless Chromium: shared by tests/browser/test_browser.py and tests/bench_sliders.py.

The server runs on 127.0.0.1 with isolated settings, workspace and runtime folders, over a temporary copy of
the notebooks with their outputs cleared (the committed notebooks are never touched). Server and browser are
stopped by PID whatever happens: the server with SIGTERM (it shuts its kernels down), then SIGKILL to its
process group and to any kernel still running from its runtime folder; Chromium, which we start ourselves and
drive over CDP, with its whole process group.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat

from attention_helpers.tools.refresh import NOTEBOOKS, all_notebooks

ROOT = Path(__file__).resolve().parents[2]  # tests/support/jlab.py -> the repository
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
INSTALL_HINT = "install it with: apt-get update && apt-get install -y --no-install-recommends chromium"


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


def require_chromium() -> None:
    """Skip the calling test when Chromium is missing, saying how to install it; in CI (`CI` set) fail instead."""
    import pytest

    if not chromium_available():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM} in CI; {INSTALL_HINT}")
        pytest.skip(f"Chromium not found at {CHROMIUM}; {INSTALL_HINT}")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # no line per request on stderr
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve a folder over HTTP on a free loopback port; yields the base URL (ending in /); always stops it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def clean_copy(target: Path) -> list[str]:
    """Copy every notebook into target with outputs, execution counts and stored widget state cleared (as a learner's
    run starts: every widget comes from the kernel); returns their relative paths."""
    names = []
    for path in all_notebooks():
        rel = path.relative_to(NOTEBOOKS)
        nb = nbformat.read(path, as_version=4)
        nb.metadata.pop("widgets", None)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, target / rel)
        names.append(str(rel))
    return names


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """While active, SIGTERM (a CI job's timeout, `timeout pytest ...`) raises SystemExit, so that the `finally`
    blocks below still stop the server, its kernels and Chromium instead of leaving them orphaned."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def unwind(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, unwind)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def jupyterlab(root_dir: Path, settings: dict | None = None, env: dict | None = None) -> Iterator[str]:
    """Start JupyterLab on a free loopback port serving root_dir; yields its base URL; always stops it.

    `settings`: extra user settings, plugin id -> values, e.g. {"@jupyterlab/apputils-extension:themes":
    {"theme": "JupyterLab Dark"}}; `env`: extra environment variables for the server and its kernels."""
    with _sigterm_unwinds():
        yield from _jupyterlab(root_dir, settings or {}, env or {})


def _jupyterlab(root_dir: Path, extra_settings: dict, extra_env: dict) -> Iterator[str]:
    state = Path(tempfile.mkdtemp(prefix="ah-lab-"))
    settings = state / "settings"
    tracker = settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    tracker.parent.mkdir(parents=True)
    tracker.write_text(json.dumps({"windowingMode": "none"}))  # every cell in the DOM, so every widget renders
    notification = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    # no "get Jupyter news?" toast over the pictures, and no update check
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    for plugin, values in extra_settings.items():
        package, name = plugin.split(":")
        path = settings / package / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    port = _free_port()
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(state / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(state / "runtime"),
        JUPYTER_CONFIG_DIR=str(state / "config"),
        MPLBACKEND="module://matplotlib_inline.backend_inline",
        **extra_env,
    )
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--IdentityProvider.token=",
        "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={root_dir}",
        "--LabApp.extension_manager=readonly", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=",
    ]  # fmt: skip
    log = open(state / "server.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(state / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("JupyterLab did not answer /api/status within 60 s")
            time.sleep(0.3)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)  # SIGTERM lets the server shut its kernels down
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pid in _pids_mentioning(str(state / "runtime")):  # kernels a killed server left behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(state, ignore_errors=True)


def _pids_mentioning(text: str) -> list[int]:
    """PIDs of the processes whose command line contains text (kernels: their connection file's folder)."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if text in cmdline.read_bytes().decode(errors="replace"):
                pids.append(int(cmdline.parent.name))
    return pids


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """Start Debian's Chromium headless ourselves (so we hold its PID), drive it through Playwright over CDP;
    yields a browser context; always stops the browser's whole process group."""
    with _sigterm_unwinds():
        yield from _chromium()


def _chromium() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    profile = Path(tempfile.mkdtemp(prefix="ah-chromium-"))
    command = [
        CHROMIUM, "--headless", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
        f"--user-data-dir={profile}", *CHROMIUM_FLAGS, "about:blank",
    ]  # fmt: skip
    log = open(profile.parent / f"{profile.name}.log", "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        port_file = profile / "DevToolsActivePort"  # Chromium writes the port it chose here
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            if proc.poll() is not None:
                raise RuntimeError(f"Chromium exited: {Path(log.name).read_text()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("Chromium did not open its DevTools port within 30 s")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        with sync_playwright() as p:
            browser = p.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            try:
                yield context
            finally:
                with contextlib.suppress(Exception):
                    context.close()
                with contextlib.suppress(Exception):
                    browser.close()  # over CDP this only disconnects; the process is stopped below
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # renderers and helpers too, whatever state they are in
        proc.wait()
        log.close()
        Path(log.name).unlink(missing_ok=True)
        shutil.rmtree(profile, ignore_errors=True)


RUN_ALL_JS = """
async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.sessionContext.ready;
  await app.commands.execute('notebook:run-all-cells');
  return true;
}
"""

STATE_JS = """
() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model) return null;
  const cells = panel.content.model.cells;
  const out = {busy: 0, errors: [], cells: cells.length,
               status: panel.sessionContext.session?.kernel?.status ?? 'none'};
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    const node = panel.content.widgets[i].node;
    const prompt = node.querySelector('.jp-InputPrompt');
    if (prompt && prompt.textContent.includes('*')) out.busy += 1;
    for (const o of cell.outputs.toJSON()) {
      if (o.output_type === 'error') out.errors.push({cell: i, ename: o.ename, evalue: o.evalue});
    }
  }
  return out;
}
"""


def open_notebook(context: object, base_url: str, rel: str) -> object:
    """Open a notebook in a new page and wait until its kernel is idle."""
    page = context.new_page()
    page.goto(f"{base_url}/lab/tree/{rel}?reset", wait_until="domcontentloaded")  # ?reset: no restored tabs
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget "
        "&& window.jupyterapp.shell.currentWidget.sessionContext",
        timeout=60_000,
    )
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'",
        timeout=60_000,
    )
    return page


def panel_selector(page: object) -> str:
    """CSS selector of the notebook panel now shown (other tabs may hold other explorers)."""
    return "#" + page.evaluate("() => window.jupyterapp.shell.currentWidget.id")


def run_all(page: object, timeout_s: float = 120) -> dict:
    """Run all cells; wait until the command resolved, the kernel is idle and no cell shows [*]."""
    page.evaluate(RUN_ALL_JS)
    deadline = time.monotonic() + timeout_s
    while True:
        state = page.evaluate(STATE_JS)
        if state and state["busy"] == 0 and state["status"] == "idle":
            time.sleep(0.3)  # outputs of the last cell arrive just before idle; re-read once
            state = page.evaluate(STATE_JS)
            if state["busy"] == 0 and state["status"] == "idle":
                return state
        if time.monotonic() > deadline:
            raise TimeoutError(f"run-all did not finish in {timeout_s} s: {state}")
        time.sleep(0.2)


def kernel_execute(page: object, code: str, timeout_ms: int = 30_000) -> str:
    """Run code in the notebook's kernel (not in a cell) and return what it printed."""
    return page.evaluate(
        """async ([code, timeout]) => {
            const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            let text = '';
            const future = kernel.requestExecute({code, silent: false, store_history: false});
            future.onIOPub = (msg) => {
              if (msg.header.msg_type === 'stream') text += msg.content.text;
              if (msg.header.msg_type === 'error') text += 'ERROR ' + msg.content.ename + ': ' + msg.content.evalue;
            };
            await Promise.race([future.done, new Promise((_, r) => setTimeout(() => r('timeout'), timeout))]);
            return text;
        }""",
        [code, timeout_ms],
    )


def refuse_outside(context, base: str) -> list[str]:
    """Let a browser context load `base` (and data:, blob: URLs) only: every other request is aborted and its URL
    appended to the returned list, which the caller checks (and may clear)."""
    outside: list[str] = []

    def route(request_route) -> None:
        url = request_route.request.url
        if url.startswith(base) or url.startswith(("data:", "blob:")):
            request_route.continue_()
        else:
            outside.append(url)
            request_route.abort()

    context.route("**/*", route)
    return outside
