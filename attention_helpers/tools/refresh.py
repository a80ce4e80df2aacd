"""Re-execute notebooks in place and strip volatile metadata: `python -m attention_helpers.tools.refresh [paths]`.

With no paths, every notebook under notebooks/ (solutions included) is refreshed, in order. Outputs are kept,
so a reader without a kernel sees them and strict nbval can prove they reproduce. The widgets' state is kept too
(only what the outputs display, under ids that hash its content: see `widget_state`), so that a notebook opened
without running, and the static site, show live explorers; executing twice writes the same bytes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

__all__ = [
    "KERNELSPEC",
    "LANGUAGE_INFO",
    "KEEP_CELL_METADATA",
    "NOTEBOOKS",
    "PINNED_NUMERICS",
    "ROOT",
    "all_notebooks",
    "main",
    "merge_streams",
    "pin_numerics",
    "refresh",
    "strip",
]

ROOT = Path(__file__).resolve().parents[2]  # attention_helpers/tools/refresh.py -> the repository
NOTEBOOKS = ROOT / "notebooks"
# tags (hide-input: folded in the book; remove-cell: speaker notes the book drops); jupyter.source_hidden (folded in
# Lab); slideshow.slide_type (the cell's place in the lecture deck: slide, subslide, fragment, -, skip, notes)
KEEP_CELL_METADATA = ("tags", "jupyter", "slideshow")

# Committed outputs must reproduce bit for bit on any x86-64 machine, but PyTorch and MKL pick their vector code by
# CPU (AVX2 on one machine, AVX-512 on another), and sums in a different order differ in the last bit: a printed
# "largest difference 1.2e-07" became 2.4e-07, one colour of a heatmap changed. These variables make every machine
# with AVX2 or newer take the same code paths. `refresh` and `pytest` (conftest.py) both set them for the kernels
# they start; a learner running a notebook without them sees the same numbers to the precision the text gives.
PINNED_NUMERICS = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


def pin_numerics() -> None:
    """Set PINNED_NUMERICS in this process's environment, which the kernels it starts inherit."""
    os.environ.update(PINNED_NUMERICS)


def all_notebooks() -> list[Path]:
    """Every notebook of the series, lessons first, then solutions, each in file-name order."""
    lessons = sorted(NOTEBOOKS.glob("*.ipynb"))
    return lessons + sorted(NOTEBOOKS.glob("solutions/*.ipynb"))


KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# What ipykernel reports and JupyterLab writes into a notebook as its kernel starts: a notebook that already holds
# the same is not marked modified when opened. `version` is the Python that ran it (refresh fills it in).
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}


def strip(nb: dict) -> None:
    """Keep only what a reader needs: kernel, language, widget state; drop timings and per-cell metadata."""
    language = nb.metadata.get("language_info", {})
    widgets = nb.metadata.get("widgets")
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {**LANGUAGE_INFO, **language}}
    if widgets:
        nb.metadata["widgets"] = widgets
    for cell in nb.cells:
        cell.metadata = {k: v for k, v in cell.metadata.items() if k in KEEP_CELL_METADATA}
        if "jupyter" in cell.metadata:  # only whether the source is folded
            folded = {k: v for k, v in cell.metadata["jupyter"].items() if k == "source_hidden" and v is True}
            cell.metadata["jupyter"] = folded
            if not folded:
                del cell.metadata["jupyter"]


def merge_streams(nb: dict) -> None:
    """Join consecutive outputs of one stream (stdout, stderr) in every cell, as JupyterLab and nbval do: how a
    print is split into messages depends on when the kernel flushed, so unjoined, two runs store different JSON."""
    for cell in nb.cells:
        merged: list = []
        for output in cell.get("outputs", []):
            last = merged[-1] if merged else None
            if output.output_type == "stream" and last is not None and last.output_type == "stream":
                if last.name == output.name:
                    last.text += output.text
                    continue
            merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def refresh(path: Path, timeout: int = 300) -> float:
    """Execute one notebook in its own folder, strip it and write it back; returns the seconds it took."""
    import nbformat
    from nbclient import NotebookClient

    from .widget_state import canonical

    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)  # the state of a previous run must not mix with this one's
    start = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    )
    client.execute()
    nb = canonical(nb)
    merge_streams(nb)
    strip(nb)
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks to refresh (default: all)")
    args = parser.parse_args(argv)
    paths = args.paths or all_notebooks()
    pin_numerics()
    for path in paths:
        seconds = refresh(path.resolve())
        print(f"{seconds:6.1f} s  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
