"""Fold the plumbing of the lesson: `python -m attention_helpers.tools.fold [NOTEBOOK ...]` (default: every notebook).

A code cell that builds an explorer or draws a picture, or that holds only asserts (the checks that pin the text's
numbers), gets the tag `hide-input` (the book shows its source folded, one click opens it) and the metadata
`jupyter.source_hidden: true` (JupyterLab shows it collapsed). Nothing else changes, outputs included; running it
again changes nothing, so it can be re-run after merges. `refresh` keeps both.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from .. import _validate as check

__all__ = ["FOLD_TAG", "fold", "fold_cell", "main", "should_fold"]

FOLD_TAG = "hide-input"
_PICTURE = re.compile(
    r"\b(PictureExplorer|HeatmapExplorer|explore_masked_softmax|explore_valid_lens|show_heatmaps|heatmaps_svg|"
    r"line_chart_svg|scatter_svg|bar_chart_svg|side_by_side|display\(SVG|plt\.(plot|subplots|figure|imshow|bar|"
    r"scatter|show))\b"
)


def _statements(source: str) -> list[str]:
    """The cell's lines that are code: neither blank nor comments."""
    return [line for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def should_fold(source: str) -> bool:
    """True for a cell that builds an explorer or draws a picture, or whose every statement is an assert (an
    assert may run over several lines: lines indented under it, or closing brackets, continue it)."""
    source = check.text("source", source)
    if _PICTURE.search(source):
        return True
    lines = _statements(source)
    return (
        bool(lines)
        and all(line.startswith("assert ") or line[:1] in " \t)]}" for line in lines)
        and (lines[0].startswith("assert "))
    )


def fold_cell(cell: dict) -> bool:
    """Tag and fold one code cell if `should_fold` says so; returns whether the cell changed."""
    if cell.get("cell_type") != "code" or not should_fold(cell.get("source", "")):
        return False
    tags = list(cell.metadata.get("tags", []))
    hidden = cell.metadata.get("jupyter", {}).get("source_hidden") is True
    if FOLD_TAG in tags and hidden:
        return False
    if FOLD_TAG not in tags:
        cell.metadata["tags"] = [*tags, FOLD_TAG]
    cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    return True


def fold(path: Path) -> int:
    """Fold the plumbing cells of one notebook file in place; returns how many cells changed."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    changed = sum(fold_cell(cell) for cell in nb.cells)
    if changed:
        nbformat.write(nb, path)
    return changed


def main(argv: list[str] | None = None) -> int:
    from .refresh import all_notebooks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks (default: every one)")
    args = parser.parse_args(argv)
    for path in args.paths or all_notebooks():
        print(f"{fold(path):3d} cells folded  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
