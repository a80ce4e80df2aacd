"""Render the series to a static site that works offline: `python -m attention_helpers.site [--out site]`.

Every committed notebook (with its stored outputs and widget state; nothing is executed) becomes one HTML page in
which the explorers are live: the page embeds the widget state `refresh` stored, and the vendored widget manager
(`static/embed.js`, see `vendor`) draws the controls, which switch pre-drawn pictures with no kernel. Each
explorer's stored picture (PNG or SVG) shows until its widget is drawn, and stays when JavaScript is off. Math is
MathML made at build time (`mathml`). Nothing is loaded from outside the site: no CDN, no require.js, no MathJax.
An index page lists the notebooks in order, then the solutions; links between notebooks point at the pages.
"""

from __future__ import annotations

import argparse
import copy
import html
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..refresh import NOTEBOOKS, all_notebooks
from ..widget_state import VIEW_MIME, displayed_ids, state_of, state_size
from .mathml import typeset

__all__ = [
    "ASSET_BUDGET",
    "STATE_BUDGET",
    "TEMPLATES",
    "WIDGET_VIEW",
    "Page",
    "copy_assets",
    "main",
    "render",
    "report",
    "static_notebook",
    "title_of",
]

WIDGET_VIEW = VIEW_MIME
TEMPLATES = Path(__file__).resolve().parent / "templates"
ASSET_BUDGET = 2_500_000  # bytes of files every page shares (static/)
STATE_BUDGET = 400_000  # bytes of widget state one page embeds


@dataclass(frozen=True)
class Page:
    """One page of the site: where it is, its title, and how many bytes of widget state it embeds."""

    path: Path
    title: str
    state_bytes: int
    solutions: bool = False


def static_notebook(nb: dict) -> dict:
    """A copy ready for the page: math as MathML and .ipynb links pointing at .html pages; widget state kept."""
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            source = re.sub(r"\]\(([^)\s#]+)\.ipynb(#[^)\s]*)?\)", r"](\1.html\2)", cell.source)
            cell.source = typeset(source)
    return nb


def title_of(nb: dict, fallback: str) -> str:
    """The notebook's first level-1 heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
            if match:
                return match.group(1).strip()
    return fallback


def _check_state(nb: dict, path: Path) -> None:
    stored = state_of(nb)
    missing = [i for i in displayed_ids(nb) if i not in stored]
    if missing:
        raise ValueError(
            f"{path.name} displays {len(missing)} widget(s) whose state it does not store, so its page would show "
            f"pictures only: re-execute it with `python -m attention_helpers.refresh {path}`"
        )


def _exporter() -> object:
    from nbconvert import HTMLExporter

    return HTMLExporter(  # every URL nbconvert would load from a CDN emptied: the template loads none of them
        template_name="ah",
        extra_template_basedirs=[str(TEMPLATES)],
        widget_renderer_url="",
        require_js_url="",
        mathjax_url="",
        jupyter_widgets_base_url="",
        mermaid_js_url="",
        mermaid_layout_elk_js_url="",
    )


def _lab_css() -> str:
    """nbconvert's JupyterLab stylesheet and light theme, as its lab template would inline them in every page."""
    from jupyter_core.paths import jupyter_path

    for folder in jupyter_path("nbconvert", "templates", "lab", "static"):
        parts = [Path(folder) / "index.css", Path(folder) / "theme-light.css"]
        if all(p.exists() for p in parts):
            return "\n".join(p.read_text(encoding="utf-8") for p in parts)
    raise RuntimeError("nbconvert's lab template (lab/static/index.css) was not found: reinstall nbconvert")


def copy_assets(out: Path) -> int:
    """Write the files every page shares into out/static (the vendored widget manager, checked against its
    record, and JupyterLab's stylesheet); returns their total size in bytes."""
    from . import vendor

    vendor.verify()
    static = out / "static"
    static.mkdir(parents=True, exist_ok=True)
    for name in ("embed.js", "embed.js.LICENSE.txt"):
        shutil.copyfile(vendor.STATIC / name, static / name)
    (static / "lab.css").write_text(_lab_css(), encoding="utf-8")
    return sum(f.stat().st_size for f in static.iterdir())


def _index(out: Path, pages: list[Page]) -> Path:
    def items(solutions: bool) -> str:
        return "\n".join(
            f'<li><a href="{html.escape(p.path.relative_to(out).as_posix())}">{html.escape(p.title)}</a></li>'
            for p in pages
            if p.solutions == solutions
        )

    index = out / "index.html"
    index.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'><title>Attention, interactively</title>"
        "<style>body{font-family:sans-serif;max-width:50em;margin:2em auto;padding:0 1em;line-height:1.5}"
        "ul.notebooks{list-style:none;padding-left:1em}</style></head><body>"
        "<h1>Attention, interactively</h1>"
        "<p>The whole series, readable and explorable in your browser with <strong>no install</strong>: every "
        "explorer's sliders, toggle buttons and drop-downs work right here, with no Python and no kernel, because "
        "each of their pictures was drawn in advance and is switched by the page itself. Nothing is loaded from "
        "outside this site, so it works offline too. Without JavaScript, each explorer shows its starting "
        "picture.</p><p>To change the code and run it, open the notebooks in JupyterLab (see the README).</p>"
        f"<h2>Notebooks</h2><ul class='notebooks'>{items(False)}</ul>"
        f"<h2>Solutions to the exercises</h2><ul>{items(True)}</ul></body></html>",
        encoding="utf-8",
    )
    return index


def render(out: Path, paths: list[Path] | None = None, root: Path = NOTEBOOKS) -> list[Page]:
    """Write the shared assets, one HTML page per notebook (default: the whole series, pages placed as the
    notebooks are under root) and index.html into out; returns the pages, index first (its state_bytes is the
    shared assets' size), then the notebooks in index order."""
    import nbformat

    assets = copy_assets(out)
    exporter = _exporter()
    pages = []
    for path in paths or all_notebooks():
        nb = nbformat.read(path, as_version=4)
        _check_state(nb, path)
        rel = path.relative_to(root).with_suffix(".html")
        target = out / rel
        static = os.path.relpath(out / "static", target.parent).replace(os.sep, "/")
        resources = {"metadata": {"name": path.stem}, "ah_static": static}
        body, _ = exporter.from_notebook_node(static_notebook(nb), resources=resources)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
        pages.append(Page(target, title_of(nb, path.stem), state_size(nb), rel.parts[0] == "solutions"))
    index = _index(out, pages)
    return [Page(index, "Attention, interactively", assets), *pages]


def report(pages: list[Page]) -> list[str]:
    """Lines saying each page's widget state and the shared assets against their budgets; over-budget marked."""
    index, *rest = pages
    lines = [f"shared assets (static/): {index.state_bytes / 1000:7.1f} KB of {ASSET_BUDGET / 1000:.0f} KB"]
    if index.state_bytes > ASSET_BUDGET:
        lines[-1] += f"  OVER BUDGET by {(index.state_bytes - ASSET_BUDGET) / 1000:.1f} KB"
    for page in rest:
        line = f"{page.path.name:42s} widget state {page.state_bytes / 1000:7.1f} KB of {STATE_BUDGET / 1000:.0f} KB"
        if page.state_bytes > STATE_BUDGET:
            line += f"  OVER BUDGET by {(page.state_bytes - STATE_BUDGET) / 1000:.1f} KB"
        lines.append(line)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=NOTEBOOKS.parent / "site", help="output folder (default: site/)")
    args = parser.parse_args(argv)
    pages = render(args.out)
    for page in pages:
        print(page.path)
    print("\n".join(report(pages)))
    return 0
