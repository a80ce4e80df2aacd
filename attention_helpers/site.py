"""Render the series to static HTML: `python -m attention_helpers.site [--out site]`.

Every committed notebook (with its stored outputs; nothing is executed) becomes one HTML page with every heatmap
visible: live explorers are replaced by the PNG picture they store beside the widget. An index page links the
notebooks in order, then the solutions. Links between notebooks point at the HTML pages.
"""

from __future__ import annotations

import argparse
import copy
import html
import re
import sys
from pathlib import Path

from .refresh import NOTEBOOKS, all_notebooks

__all__ = ["WIDGET_VIEW", "main", "render", "static_notebook", "title_of"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def static_notebook(nb: dict) -> dict:
    """A copy with widget views dropped (their PNG fallback stays) and .ipynb links pointing at .html pages."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\(([^)\s#]+)\.ipynb(#[^)\s]*)?\)", r"](\1.html\2)", cell.source)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
    return nb


def title_of(nb: dict, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
            if match:
                return match.group(1).strip()
    return fallback


def render(out: Path, paths: list[Path] | None = None) -> list[Path]:
    """Write one HTML page per notebook and index.html into out; returns the pages in index order."""
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="lab")
    pages, entries = [], []
    for path in paths or all_notebooks():
        nb = nbformat.read(path, as_version=4)
        rel = path.relative_to(NOTEBOOKS).with_suffix(".html")
        body, _ = exporter.from_notebook_node(static_notebook(nb), resources={"metadata": {"name": path.stem}})
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
        pages.append(target)
        entries.append((str(rel), title_of(nb, path.stem), rel.parts[0] == "solutions"))
    items = "\n".join(
        f'<li><a href="{html.escape(rel)}">{html.escape(title)}</a></li>' for rel, title, sol in entries if not sol
    )
    solutions = "\n".join(
        f'<li><a href="{html.escape(rel)}">{html.escape(title)}</a></li>' for rel, title, sol in entries if sol
    )
    index = out / "index.html"
    index.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Attention, interactively</title>"
        "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5}"
        "ul.notebooks{list-style:none;padding-left:1em}</style></head><body>"
        "<h1>Attention, interactively</h1><p>A static copy of the series: outputs as committed, heatmaps as "
        "pictures. Run the notebooks in JupyterLab to move the sliders.</p>"
        f"<h2>Notebooks</h2><ul class='notebooks'>{items}</ul><h2>Solutions to the exercises</h2><ul>{solutions}</ul></body></html>",
        encoding="utf-8",
    )
    return [index, *pages]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=NOTEBOOKS.parent / "site", help="output folder (default: site/)")
    args = parser.parse_args(argv)
    for page in render(args.out):
        print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
