"""Fold the plumbing of the lesson: `python -m attention_helpers.tools.fold [NOTEBOOK ...]` (default: every notebook).

A code cell that is all plumbing (`is_plumbing`: asserts that pin the text's numbers, imports, the `draw`/`caption`
functions of a picture, calls that build or show an explorer or a picture) gets the tag `hide-input` (the book shows
its source folded, one click opens it) and the metadata `jupyter.source_hidden: true` (JupyterLab shows it
collapsed). A cell that mixes the lesson's code with plumbing is left open: split it first. Nothing else changes,
outputs included; running it again changes nothing, so it can be re-run after merges. `refresh` keeps both.
`shown_plumbing` lists the cells a reader would see that hold an assert or build an explorer.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from .. import _validate as check

__all__ = [
    "FOLD_TAG",
    "fold",
    "fold_cell",
    "fold_notebook",
    "is_folded",
    "is_plumbing",
    "main",
    "read_later",
    "shown_plumbing",
    "should_fold",
]

FOLD_TAG = "hide-input"
# Calls that build or show an explorer or a picture (by the called name: `show_heatmaps(...)`, `plt.subplots(...)`).
_PICTURE_CALLS = frozenset(
    {
        "PictureExplorer", "HeatmapExplorer", "explore_masked_softmax", "explore_valid_lens", "show_heatmaps",
        "heatmaps_svg", "line_chart_svg", "scatter_svg", "bar_chart_svg", "curve_svg", "query_svg", "side_by_side",
        "display", "SVG", "HTML", "lecture_mode",
    }
)  # fmt: skip
_PICTURE_MODULES = frozenset({"plt", "ax", "axes", "fig", "widgets"})  # `plt.plot(...)`, `ax.set_title(...)`, controls
# Calls that build an explorer: never shown (the done-when of issue 25).
_EXPLORERS = frozenset({"PictureExplorer", "HeatmapExplorer", "explore_masked_softmax", "explore_valid_lens"})
# Calls that set a notebook up: seeds, print options.
_SETUP_CALLS = frozenset({"manual_seed", "set_printoptions"})
# Functions that draw a frame or write its caption: `draw`, `draw_fit`, `query_caption`, `row_picture`, ...
_DRAWING_DEF = re.compile(r"(^|_)(draw|drawn|caption|picture)(_|$)")


def _called(node: ast.expr) -> str:
    """The dotted name a call calls: `torch.testing.assert_close(...)` -> "torch.testing.assert_close"."""
    func = node.func if isinstance(node, ast.Call) else node
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    elif isinstance(func, ast.Call):  # `plt.gca().plot(...)`
        parts.append(_called(func))
    return ".".join(reversed(parts))


def _is_assert(node: ast.AST) -> bool:
    """An `assert` statement, or a call of an `assert_*` function (`torch.testing.assert_close`)."""
    if isinstance(node, ast.Assert):
        return True
    return isinstance(node, ast.Call) and _called(node).rsplit(".", 1)[-1].startswith("assert_")


def _builds_picture(node: ast.AST) -> bool:
    """A call that builds or shows an explorer or a picture."""
    if not isinstance(node, ast.Call):
        return False
    name = _called(node)
    return name.rsplit(".", 1)[-1] in _PICTURE_CALLS or name.split(".", 1)[0] in _PICTURE_MODULES


def _sets_up(node: ast.AST) -> bool:
    """A call that sets the notebook up: `torch.manual_seed(0)`, `torch.set_printoptions(...)`."""
    return isinstance(node, ast.Call) and _called(node).rsplit(".", 1)[-1] in _SETUP_CALLS


def _plumbing_statement(node: ast.stmt) -> bool:
    """One top-level statement that is plumbing (assignments are judged by `is_plumbing`, which sees the cell)."""
    if isinstance(node, (ast.Assert, ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if isinstance(node, ast.Expr):
        value = node.value
        return _is_assert(value) or _builds_picture(value) or _sets_up(value) or isinstance(value, ast.Constant)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return bool(_DRAWING_DEF.search(node.name))
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        return _builds_picture(node.value) or _sets_up(
            node.value
        )  # `_ = show_heatmaps(...)`, `fig, ax = plt.subplots()`
    if isinstance(node, (ast.For, ast.If, ast.With)):  # a loop of asserts, drawing in a `with` block
        body = [*node.body, *getattr(node, "orelse", [])]
        return all(_plumbing_statement(s) or _feeds(s) for s in body) and any(_plumbing_statement(s) for s in body)
    return False


def _feeds(node: ast.stmt) -> bool:
    """An assignment that computes a value (whether it feeds the plumbing is `is_plumbing`'s question)."""
    return isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))


def _bound(node: ast.stmt) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _read(nodes: list[ast.stmt]) -> set[str]:
    return {n.id for s in nodes for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _parse(source: str) -> ast.Module | None:
    """The cell's code, IPython's `%` and `!` lines left out; None if it is not Python."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def is_plumbing(source: str, read_later: frozenset[str] | set[str] = frozenset()) -> bool:
    """True for a cell whose every top-level statement is plumbing: an assert (or `assert_*` call, or a loop of
    them), an import (not alone), a seed, a `def` of a drawing or caption function (`draw*`, `*_caption`, `*_picture`), a call
    that builds or shows an explorer or a picture, or an assignment whose names only that cell's later plumbing
    reads (the values an assert compares, an explorer's controls) and no later cell (`read_later`: the names the
    notebook's later cells read). A cell that mixes the lesson's code with plumbing is not: its lesson would be
    folded away."""
    source = check.text("source", source)
    tree = _parse(source)
    if tree is None or not tree.body:
        return False
    body = tree.body
    if not any(_plumbing_statement(s) and not isinstance(s, ast.Import | ast.ImportFrom) for s in body):
        return False  # imports alone are not folded: the solutions show what each section imports
    for i, node in enumerate(body):
        if _plumbing_statement(node):
            continue
        if not _feeds(node):
            return False
        bound = _bound(node) if not isinstance(node, ast.AugAssign) else set()
        readers = [s for s in body[i + 1 :] if bound & _read([s])]
        if not readers or bound & set(read_later) or not all(_plumbing_statement(s) or _feeds(s) for s in readers):
            return False
    return True


def should_fold(source: str, read_later: frozenset[str] | set[str] = frozenset()) -> bool:
    """True for a cell `fold` folds: one that is all plumbing (`is_plumbing`)."""
    return is_plumbing(source, read_later)


def is_folded(cell: dict) -> bool:
    """True for a cell a reader sees folded: the `hide-input` tag (the book) or `jupyter.source_hidden` (Lab)."""
    metadata = cell.get("metadata", {})
    return FOLD_TAG in metadata.get("tags", []) or metadata.get("jupyter", {}).get("source_hidden") is True


def shown_plumbing(nb: dict) -> list[int]:
    """The indices of the code cells a reader sees unfolded that hold an assert (anywhere, or an `assert_*` call)
    or build an explorer (`PictureExplorer`, `explore_*`, ...): what `fold` and a split should have hidden."""
    found = []
    for i, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code" or is_folded(cell):
            continue
        tree = _parse(cell.get("source", ""))
        nodes = list(ast.walk(tree)) if tree is not None else []
        explorer = any(isinstance(n, ast.Call) and _called(n).rsplit(".", 1)[-1] in _EXPLORERS for n in nodes)
        if explorer or any(_is_assert(n) for n in nodes):
            found.append(i)
    return found


def fold_cell(cell: dict, read_later: frozenset[str] | set[str] = frozenset()) -> bool:
    """Tag and fold one code cell if `should_fold` says so (`read_later`: the names later cells read); returns
    whether the cell changed."""
    if cell.get("cell_type") != "code" or not should_fold(cell.get("source", ""), read_later):
        return False
    tags = list(cell.metadata.get("tags", []))
    hidden = cell.metadata.get("jupyter", {}).get("source_hidden") is True
    if FOLD_TAG in tags and hidden:
        return False
    if FOLD_TAG not in tags:
        cell.metadata["tags"] = [*tags, FOLD_TAG]
    cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    return True


def read_later(nb: dict) -> list[set[str]]:
    """For each cell of a notebook, the names that the code cells after it read."""
    later: list[set[str]] = [set() for _ in nb["cells"]]
    seen: set[str] = set()
    for i in range(len(nb["cells"]) - 1, -1, -1):
        later[i] = set(seen)
        cell = nb["cells"][i]
        tree = _parse(cell.get("source", "")) if cell.get("cell_type") == "code" else None
        if tree is not None:
            seen |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return later


def fold_notebook(nb: dict) -> int:
    """Fold the plumbing cells of a notebook in memory; returns how many cells changed."""
    return sum(fold_cell(cell, names) for cell, names in zip(nb["cells"], read_later(nb), strict=True))


def fold(path: Path) -> int:
    """Fold the plumbing cells of one notebook file in place; returns how many cells changed."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    changed = fold_notebook(nb)
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
