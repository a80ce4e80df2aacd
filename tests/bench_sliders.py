"""Benchmark: how fast do the explorers' heatmaps follow a slider? `python tests/bench_sliders.py [-n 30]`.

For every notebook with an explorer, in JupyterLab + headless Chromium: press a slider key (alternately
ArrowLeft / ArrowRight, so each press changes the value), and time from the keydown (a capture-phase listener in
the page) to the animation frame after the one that paints the changed heatmap (a MutationObserver in the page
notices the change, so the benchmark's own round trips to the browser are not counted). Reports median and p95 per notebook,
and the kernel-side update time (compute + SVG) that the explorers record. Then the same for the other controls
(toggle buttons, drop-downs: click or select → new picture), which redraw every slider position in the kernel.
Targets: median <= 50 ms, p95 <= 100 ms.
Figures go to stdout and to artifacts/bench_sliders.json. This is a measurement, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import jlab  # noqa: E402

LISTEN_JS = """
() => {
  // The first input event after arming starts the clock: a key press on a slider, a press on a toggle button,
  // or the input event of a drop-down.
  if (!window.__ahListening) {
    for (const type of ['keydown', 'mousedown', 'input']) {
      document.addEventListener(type, () => { if (window.__ahT0 === null) window.__ahT0 = performance.now(); }, true);
    }
    window.__ahListening = true;
  }
}
"""

ARM_JS = """
(explorer) => {
  // Before the key press: watch the explorer, and on the first change of the visible picture note the time of
  // the frame after the one that paints it. Measured in the page, so Playwright's own round trips do not count.
  const signature = () => [...explorer.querySelectorAll('.ah-view')].filter(v => v.checkVisibility())
    .map(v => v.innerHTML).join('|');
  const before = signature();
  window.__ahT0 = null;
  window.__ahDone = new Promise((resolve) => {
    const observer = new MutationObserver(() => {
      if (signature() === before) return;
      observer.disconnect();
      requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - window.__ahT0)));
    });
    observer.observe(explorer, {subtree: true, childList: true, attributes: true, characterData: true});
    setTimeout(() => { observer.disconnect(); resolve(-1); }, 5000);
  });
}
"""

WAIT_JS = "() => window.__ahDone"

ARM_ALL_JS = """
(explorer) => {
  // For a control the kernel redraws for: the picture may change in several steps (one message per frame), so
  // note the time of the *last* change of the visible picture; the caller waits for quiet before reading it.
  const signature = () => [...explorer.querySelectorAll('.ah-view')].filter(v => v.checkVisibility())
    .map(v => v.innerHTML).join('|');
  let last = signature();
  window.__ahT0 = null;
  window.__ahLast = null;
  if (window.__ahObserver) window.__ahObserver.disconnect();
  window.__ahObserver = new MutationObserver(() => {
    const now = signature();
    if (now === last || window.__ahT0 === null) return;
    last = now;
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__ahLast = performance.now() - window.__ahT0; }));
  });
  window.__ahObserver.observe(explorer, {subtree: true, childList: true, attributes: true, characterData: true});
}
"""

SETTLED_JS = "() => window.__ahLast"
IDLE_JS = "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'"


def time_control_change(page: object, element: object, change: Callable[[], None]) -> float | None:
    """ms from the input event to the frame after the last change of the picture (None if it never changed)."""
    page.wait_for_function(IDLE_JS, timeout=30_000)
    element.evaluate(ARM_ALL_JS)
    change()
    try:
        page.wait_for_function("() => window.__ahLast !== null", timeout=5_000)
    except Exception:
        return None
    page.wait_for_function(IDLE_JS, timeout=30_000)
    time.sleep(0.3)  # quiet: the last frame's update has arrived and been painted
    return page.evaluate(SETTLED_JS)


KERNEL_JS_CODE = """
import json, statistics
from attention_helpers.widgets import HeatmapExplorer
ms = [1000 * s for r in HeatmapExplorer.instances if r() for s in r().update_seconds[1:]]
redraw = [1000 * s for r in HeatmapExplorer.instances if r() for s in r().render_seconds[1:]]
print(json.dumps({**({"median": statistics.median(ms), "max": max(ms)} if ms else {}),
                  **({"redraw_median": statistics.median(redraw)} if redraw else {})}))
"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def bench_notebook(context: object, url: str, rel: str, presses: int) -> dict | None:
    page = jlab.open_notebook(context, url, rel)
    try:
        jlab.run_all(page)
        panel = jlab.panel_selector(page)
        explorers = page.locator(f"{panel} .ah-explorer")
        if explorers.count() == 0:
            return None
        page.wait_for_function(f"() => document.querySelector('{panel} .ah-explorer .ah-view svg')", timeout=30_000)
        page.evaluate(LISTEN_JS)
        latencies, control_latencies, missed = [], [], 0  # missed: the picture did not change within 5 s
        for e in range(explorers.count()):
            explorer = explorers.nth(e)
            element = explorer.element_handle()
            handle = explorer.locator(".widget-slider .noUi-handle").first
            if handle.count():
                low = int(float(handle.get_attribute("aria-valuemin")))
                value = int(float(handle.get_attribute("aria-valuenow")))
                keys = ("ArrowLeft", "ArrowRight") if value > low else ("ArrowRight", "ArrowLeft")
                for i in range(presses):  # back and forth: every press changes the value
                    handle.focus()  # re-focus each time: Left/Right are also JupyterLab shortcuts
                    element.evaluate(ARM_JS)
                    page.keyboard.press(keys[i % 2])
                    ms = page.evaluate(WAIT_JS)
                    if ms >= 0:
                        latencies.append(ms)
                    else:
                        missed += 1
            # Other controls (toggle buttons, drop-downs) redraw every slider position in the kernel.
            for buttons in explorer.locator(".widget-toggle-buttons").all():
                options = buttons.locator("button").all()
                start = next(i for i, b in enumerate(options) if "mod-active" in (b.get_attribute("class") or ""))
                for i in range(presses):  # never the selected one: each click changes it
                    ms = time_control_change(page, element, options[(start + i + 1) % len(options)].click)
                    if ms is not None:
                        control_latencies.append(ms)
                    else:
                        missed += 1
                options[start].click()
            for select in explorer.locator(".widget-dropdown select").all():
                values = [o.get_attribute("value") for o in select.locator("option").all()]
                start = values.index(select.input_value())
                for i in range(presses):
                    option = values[(start + i + 1) % len(values)]
                    ms = time_control_change(page, element, functools.partial(select.select_option, option))
                    if ms is not None:
                        control_latencies.append(ms)
                    else:
                        missed += 1
        kernel = json.loads(jlab.kernel_execute(page, KERNEL_JS_CODE).strip() or "{}")
        return {
            "notebook": rel,
            "changes": len(latencies),
            "median_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(percentile(latencies, 95), 1),
            "kernel_median_ms": round(kernel.get("median", float("nan")), 2),
            "kernel_max_ms": round(kernel.get("max", float("nan")), 2),
            "missed": missed,
            "control_changes": len(control_latencies),
            "kernel_redraw_median_ms": round(kernel["redraw_median"], 2) if "redraw_median" in kernel else None,
            "control_median_ms": round(statistics.median(control_latencies), 1) if control_latencies else None,
            "control_p95_ms": round(percentile(control_latencies, 95), 1) if control_latencies else None,
        }
    finally:
        page.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--presses", type=int, default=30, help="key presses per explorer (>= 20)")
    args = parser.parse_args()
    if args.presses < 20:
        parser.error(f"--presses must be at least 20 for a median and a p95, got {args.presses}")
    if not jlab.chromium_available():
        print(f"Chromium not found at {jlab.CHROMIUM}; {jlab.INSTALL_HINT}")
        return 1
    results = []
    with tempfile.TemporaryDirectory(prefix="ah-bench-") as tmp:
        names = [n for n in jlab.clean_copy(Path(tmp)) if not n.startswith("solutions")]
        with jlab.jupyterlab(Path(tmp)) as url, jlab.chromium() as context:
            for rel in names:
                result = bench_notebook(context, url, rel, args.presses)
                if result:
                    results.append(result)
                    print(
                        f"{rel:40s} {result['changes']:4d} changes  median {result['median_ms']:6.1f} ms  "
                        f"p95 {result['p95_ms']:6.1f} ms  kernel median {result['kernel_median_ms']:5.2f} ms"
                        + (f"  ({result['missed']} changes never showed within 5 s)" if result["missed"] else ""),
                        flush=True,
                    )
                    if result["control_changes"]:
                        print(
                            f"{'  other controls':40s} {result['control_changes']:4d} changes  median "
                            f"{result['control_median_ms']:6.1f} ms  p95 {result['control_p95_ms']:6.1f} ms  "
                            f"kernel redraw of every frame, median {result['kernel_redraw_median_ms']} ms",
                            flush=True,
                        )
    out = jlab.ROOT / "artifacts" / "bench_sliders.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
