"""Which committed outputs depend on the processor? `python -m attention_helpers.tools.fragility [--all] [paths]`.

Runs every notebook (solutions included) under strict nbval, once per numerics setting, **without** the project's
pinning (`PINNED_NUMERICS`), and lists each cell whose output differs from the committed one. A printed number
that changes with the vector code PyTorch or MKL picks, or with the thread count, would differ on a learner's
processor: print it at the precision its claim needs (and assert the claim), or make the computation exact.

Settings (each a full run of the notebooks):
- `ATEN_CPU_CAPABILITY`: `default` (PyTorch's scalar kernels) or `avx2`;
- `MKL_CBWR`: `COMPATIBLE` or `AVX2`;
- torch threads (`OMP_NUM_THREADS`): 1 or 2.

By default four settings cover every value of every axis (scalar and vector kernels, each with 1 and 2 threads);
`--all` runs the full product (8); `--quick` runs only the scalar-kernels one, which `.ci/run` uses.
Exit status 1 if any cell differs.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["AXES", "DEFAULT_SETTINGS", "QUICK_SETTINGS", "all_settings", "differing_cells", "main", "run"]

_ROOT = Path(__file__).resolve().parents[2]  # the repository

_Setting = dict[str, str]  # one numerics setting: environment variable -> value

AXES: dict[str, tuple[str, ...]] = {
    "ATEN_CPU_CAPABILITY": ("default", "avx2"),
    "MKL_CBWR": ("COMPATIBLE", "AVX2"),
    "OMP_NUM_THREADS": ("1", "2"),
}
QUICK_SETTINGS: list[_Setting] = [{"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "1"}]
DEFAULT_SETTINGS: list[_Setting] = [
    *QUICK_SETTINGS,
    {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE", "OMP_NUM_THREADS": "2"},
    {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "OMP_NUM_THREADS": "1"},
    {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "OMP_NUM_THREADS": "2"},
]


def all_settings() -> list[_Setting]:
    """The full product of AXES (8 settings)."""
    return [dict(zip(AXES, values, strict=True)) for values in itertools.product(*AXES.values())]


def differing_cells(junit_xml: str | Path) -> list[tuple[str, str]]:
    """(test id, first lines of nbval's diff) for every failed or erroring notebook cell in a junit XML report."""
    found = []
    for case in ET.parse(junit_xml).iter("testcase"):
        for bad in (*case.findall("failure"), *case.findall("error")):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            text = bad.text or bad.get("message") or ""
            lines = [ln for ln in text.splitlines() if ln.lstrip().startswith(("-", "+"))] or text.strip().splitlines()
            found.append((name, textwrap.dedent("\n".join(lines[:8]))))
    return found


def run(setting: _Setting, paths: list[str], workers: int = 2) -> tuple[list[tuple[str, str]], float]:
    """Run the notebooks under strict nbval with `setting` and no pinning; returns the differing cells, seconds."""
    env = {k: v for k, v in os.environ.items() if k not in ("ONEDNN_MAX_CPU_ISA", "MKL_NUM_THREADS")}
    env.update(setting)
    env["MKL_NUM_THREADS"] = setting.get("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.xml"
        command = [
            sys.executable, "-m", "pytest", "--noconftest",  # conftest.py would pin the numerics: bypass it
            "-q", f"-n{workers}", "--durations=0", "-o", "addopts=",
            "--nbval", "--nbval-current-env", "--nbval-cell-timeout=300",
            "--nbval-sanitize-with", "tests/nbval_sanitize.cfg",
            "--dist", "loadscope", f"--junitxml={report}", *paths,
        ]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, cwd=_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        if not report.exists():
            raise RuntimeError(f"pytest wrote no report for {setting}: run it by hand to see why")
        return differing_cells(report), seconds


def main(argv: list[str] | None = None) -> int:
    from .refresh import all_notebooks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="notebooks (default: every notebook, solutions included)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--quick", action="store_true", help="only the scalar-kernels setting (as in .ci/run)")
    which.add_argument("--all", action="store_true", help="the full product of the settings (8 runs)")
    parser.add_argument("-n", "--workers", type=int, default=2, help="pytest-xdist workers (default 2)")
    args = parser.parse_args(argv)
    paths = args.paths or [str(p.relative_to(_ROOT)) for p in all_notebooks()]
    settings = QUICK_SETTINGS if args.quick else all_settings() if args.all else DEFAULT_SETTINGS
    total = 0
    for setting in settings:
        label = " ".join(f"{k}={v}" for k, v in setting.items())
        cells, seconds = run(setting, paths, args.workers)
        total += len(cells)
        print(f"{len(cells)} differing cell(s) under {label} ({seconds:.0f} s)", flush=True)
        for name, diff in cells:
            print(f"  {name}")
            print("\n".join("      " + line for line in diff.splitlines()))
    print(f"fragility check: {total} differing cell(s) in {len(settings)} setting(s) of {len(paths)} notebook(s)")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
