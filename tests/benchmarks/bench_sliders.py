"""Benchmark: how fast does an explorer's picture follow its controls? `python tests/benchmarks/bench_sliders.py [-n 30]`.

For every notebook with an explorer, in JupyterLab + headless Chromium (and, with `--book DIR`, on the book's pages
that `python -m attention_helpers.tools.book --out DIR` built into DIR/html, served on 127.0.0.1): for every control of every explorer
(sliders, toggle buttons, drop-downs) make changes as a learner would (a slider key, alternately down and up; a
click on another button; another choice) and time each from the event that changes the control (the key, the
click, the choice) to the animation frame after the one
that paints the changed picture (tests/support/js/time_next_change.js: the clock runs in the page, so the driver's own
round trips are not counted). Reports median and p95 per notebook, sliders and other controls apart, and counts
changes that never showed within 5 s. Goal (issue 13): median <= 16 ms (one frame at 60 Hz), p95 <= 33 ms.
Figures go to stdout and to artifacts/bench_sliders.json. This is a measurement, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # jlab, explorer_page
import jlab  # noqa: E402
from explorer_page import ExplorerPage, committed_explorers, script  # noqa: E402

from attention_helpers.tools.refresh import NOTEBOOKS, all_notebooks  # noqa: E402


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def time_changes(page: ExplorerPage, presses: int) -> dict[str, list[float]]:
    """ms per change, by kind of control ("slider" or "other"), and "missed": changes that never showed."""
    out: dict[str, list[float]] = {"slider": [], "other": [], "missed": []}
    for explorer in page.explorers():
        element = explorer.locator.element_handle()
        for control in explorer.controls():
            if control.disabled:
                continue
            if control.kind == "slider":
                low = control.positions[0]
                keys = ("ArrowLeft", "ArrowRight") if control.position > low else ("ArrowRight", "ArrowLeft")
                moves = [keys[i % 2] for i in range(presses)]  # back and forth: every press changes the value
            else:
                count = len(control.positions)  # each move picks the next option, wrapping: always a change
                moves = [(control.position + 1 + i) % count for i in range(presses)]
            for move in moves:
                element.evaluate(script("time_next_change"))
                explorer.move(explorer.control(control), move)
                ms = page.page.evaluate("() => window.__ahTimer")
                (out["slider" if control.kind == "slider" else "other"] if ms >= 0 else out["missed"]).append(ms)
    return out


def summary(where: str, rel: str, times: dict[str, list[float]]) -> dict:
    result = {"where": where, "notebook": rel, "missed": len(times["missed"])}
    for kind in ("slider", "other"):
        values = times[kind]
        if values:
            result[kind] = {"changes": len(values), "median_ms": round(statistics.median(values), 1),
                            "p95_ms": round(percentile(values, 95), 1)}  # fmt: skip
    parts = [
        f"{kind + 's' if kind == 'slider' else 'other controls'}: {r['changes']:3d} changes, median "
        f"{r['median_ms']:5.1f} ms, p95 {r['p95_ms']:5.1f} ms"
        for kind in ("slider", "other")
        if (r := result.get(kind))
    ]
    missed = f"  ({result['missed']} never showed within 5 s)" if result["missed"] else ""
    print(f"{where:10s} {rel:40s} " + " | ".join(parts) + missed, flush=True)
    return result


def bench_jupyterlab(paths: list[Path], presses: int) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory(prefix="ah-bench-") as tmp:
        jlab.clean_copy(Path(tmp))
        env = {"ATTENTION_HELPERS_INSTRUMENT": "1"}
        with jlab.jupyterlab(Path(tmp), env=env) as url, jlab.chromium() as context:
            for path in paths:
                rel = str(path.relative_to(NOTEBOOKS))
                page = ExplorerPage(jlab.open_notebook(context, url, rel))
                try:
                    page.run_all()
                    page.explorers(committed_explorers(path))
                    results.append(summary("JupyterLab", rel, time_changes(page, presses)))
                finally:
                    page.page.close()
    return results


def bench_book(book: Path, paths: list[Path], presses: int) -> list[dict]:
    results = []
    with jlab.serve(book / "html") as url, jlab.chromium() as context:
        for path in paths:
            rel = str(path.relative_to(NOTEBOOKS).with_suffix(".html"))
            tab = context.new_page()
            try:
                tab.goto(f"{url}{rel}", wait_until="load")
                page = ExplorerPage(tab, scope="body")
                page.explorers(committed_explorers(path))
                results.append(summary("book", rel, time_changes(page, presses)))
            finally:
                tab.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--presses", type=int, default=30, help="changes per control (>= 20)")
    parser.add_argument("--book", type=Path, help="also time the book built into this folder (by .book --out)")
    parser.add_argument("--book-only", action="store_true", help="time only the book's pages (needs --book)")
    args = parser.parse_args()
    if args.presses < 20:
        parser.error(f"--presses must be at least 20 for a median and a p95, got {args.presses}")
    if not jlab.chromium_available():
        print(f"Chromium not found at {jlab.CHROMIUM}; {jlab.INSTALL_HINT}")
        return 1
    paths = [p for p in all_notebooks() if committed_explorers(p)]
    if args.book_only and not args.book:
        parser.error("--book-only needs --book DIR")
    results = [] if args.book_only else bench_jupyterlab(paths, args.presses)
    if args.book:
        results += bench_book(args.book, paths, args.presses)
    out = jlab.ROOT / "artifacts" / "bench_sliders.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=1))
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
