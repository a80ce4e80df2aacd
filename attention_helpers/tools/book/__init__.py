"""Build the series as a book that works offline: `python -m attention_helpers.tools.book [--out _build/book]`.

Sphinx with myst-nb and sphinx-book-theme (`conf.py`) reads a copy of every committed notebook, outputs and widget
state as stored (nothing is executed), and writes `_build/book/html/`: a landing page made of the README's
introduction and reading guide, a sidebar with 00-10 and the solutions in reading order, previous/next links,
Sphinx's offline search, the theme's dark mode and a download button per notebook (the committed .ipynb).

The copies differ from the notebooks in what only a page needs:
- each widget output carries its stored picture after the widget's view script, so the picture shows until the
  vendored widget manager (`static/embed.js`) draws the live explorer, and stays when JavaScript is off;
- links to a section of a notebook (`solutions.ipynb#6.-Attention-learns`, as JupyterLab writes them) point at
  the section's anchor in the book (`#6-attention-learns`);
- a PNG whose output metadata carries `alt` text (as `show_heatmaps` stores it) keeps that text on the page, and an
  SVG whose `aria-label` holds its numbers (as `heatmaps_svg` draws it) is put in the page inline, label and all.

Nothing is loaded from outside the book: the widget manager and MathJax are vendored (`vendor.py`), and the theme
ships its own fonts and scripts.
"""

from __future__ import annotations

import argparse
import copy
import html
import json
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ..refresh import NOTEBOOKS, all_notebooks
from ..widget_state import VIEW_MIME, displayed_ids, state_of, state_size

__all__ = [
    "ASSET_BUDGET",
    "BOOK",
    "CONF",
    "STATE_BUDGET",
    "Page",
    "asset_bytes",
    "book_notebook",
    "build",
    "figure_html",
    "landing_page",
    "main",
    "report",
    "title_of",
]

CONF = Path(__file__).resolve().parent / "sphinx"  # conf.py; beside it static/ (vendored, pinned), theme/ (own CSS, JS)
BOOK = NOTEBOOKS.parent / "_build" / "book"
ASSET_BUDGET = 4_000_000  # bytes of vendored scripts and fonts every page shares (static/: widget manager, MathJax)
STATE_BUDGET = 400_000  # bytes of widget state one page embeds
_SECTION_LINK = re.compile(r"\]\(((?:[^)\s#]+\.ipynb)?)#([^)\s]+)\)")


@dataclass(frozen=True)
class Page:
    """One notebook's page: where it is in the book, its title, how many bytes of widget state it embeds."""

    path: Path
    title: str
    state_bytes: int


def title_of(nb: dict, fallback: str) -> str:
    """The notebook's first level-1 heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#\s+(.+)$", cell.source, flags=re.M)
            if match:
                return match.group(1).strip()
    return fallback


def _anchor(section: str) -> str:
    """JupyterLab's section link (`6.-Attention-learns`) as the book's heading anchor (`6-attention-learns`)."""
    return re.sub(r"[^\w\- ]", "", section.lower()).replace(" ", "-")


def _fallback(data: dict) -> str:
    """The stored picture of a widget output, as HTML: shown until the widget is drawn and when JavaScript is off.
    Its text alternative is the one the explorer stored (its caption, in the text/html `<img alt>`), or its repr."""
    plain = data.get("text/plain", "")
    alt = re.search(r'<img alt="([^"]*)"', data.get("text/html", ""))
    label = alt.group(1) if alt else html.escape(plain, quote=True)
    attrs = f'class="ah-fallback" data-repr="{html.escape(plain, quote=True)}"'
    if "image/svg+xml" in data:
        return f'<div {attrs} role="img" aria-label="{label}">{data["image/svg+xml"]}</div>'
    if "image/png" in data:
        return f'<div {attrs}><img alt="{label}" src="data:image/png;base64,{data["image/png"]}"></div>'
    return f"<div {attrs}><pre>{html.escape(plain)}</pre></div>"


def book_notebook(nb: dict) -> dict:
    """A copy of the notebook for its page (see the module's docstring); the notebook itself is left alone."""
    nb = copy.deepcopy(nb)
    stored = state_of(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _SECTION_LINK.sub(lambda m: f"]({m.group(1)}#{_anchor(m.group(2))})", cell.source)
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if VIEW_MIME in data and data[VIEW_MIME].get("model_id") in stored:
                view = json.dumps(data[VIEW_MIME]).replace("</", "<\\/")
                output["data"] = {
                    "text/html": f'<div class="ah-widget"><script type="{VIEW_MIME}">{view}</script>'
                    f"{_fallback(data)}</div>"
                }
            elif (figure := figure_html(output)) is not None:
                output["data"] = {"text/html": figure}
    return nb


def figure_html(output: dict) -> str | None:
    """A figure output with its text alternative kept, as HTML (the book's pages and the lecture decks), or None:
    - an SVG whose aria-label holds its numbers goes in inline, not as an <img>: it keeps its role="img" and label,
      and its text and lines in currentColor follow the theme (an <img> would draw them black in dark mode);
    - a PNG with an `alt` in its output metadata (matplotlib figures, `plotting._with_alt_text`) gets it as its alt,
      and its smallest text in PNG pixels (`text_px`) as `data-text-px`: the browser tests scale it to the drawn
      size."""
    data = output.get("data", {})
    if "image/svg+xml" in data and _SVG_LABEL.search(_text(data["image/svg+xml"])):
        return f'<div class="ah-figure">{_text(data["image/svg+xml"])}</div>'
    if "image/png" in data and output.get("metadata", {}).get("image/png", {}).get("alt"):
        meta = output["metadata"]["image/png"]
        alt = html.escape(meta["alt"], quote=True)
        text_px = f' data-text-px="{float(meta["text_px"]):g}"' if "text_px" in meta else ""
        return f'<img class="ah-figure" alt="{alt}"{text_px} src="data:image/png;base64,{data["image/png"]}">'
    return None


_SVG_LABEL = re.compile(r"<svg\b[^>]*\baria-label=\"[^\"]*\d")  # an SVG whose text alternative holds a number


def _text(value: str | list[str]) -> str:
    """A notebook output's text, which nbformat may store as a list of lines."""
    return value if isinstance(value, str) else "".join(value)


def _check_state(nb: dict, path: Path) -> None:
    stored = state_of(nb)
    missing = [i for i in displayed_ids(nb) if i not in stored]
    if missing:
        raise ValueError(
            f"{path.name} displays {len(missing)} widget(s) whose state it does not store, so its page would show "
            f"pictures only: re-execute it with `python -m attention_helpers.tools.refresh {path}`"
        )


def _readme_section(text: str, heading: str) -> str:
    """The README's `## heading` section, heading included, up to the next `## `."""
    match = re.search(rf"^## {re.escape(heading)}\n.*?(?=^## |\Z)", text, flags=re.M | re.S)
    if match is None:
        raise ValueError(f"README.md has no section '## {heading}'")
    return match.group(0)


def landing_page(readme: str, pages: list[str]) -> str:
    """The book's index.md: the README's introduction and reading guide, links pointing into the book, and the
    table of contents (the sidebar) listing `pages` (document names) in order."""
    intro = readme.split("\n## ", 1)[0]
    guide = _readme_section(readme, "Reading guide")
    text = f"{intro.rstrip()}\n\n{guide.rstrip()}\n"
    text = text.replace("](notebooks/", "](")
    text = re.sub(r"\[([^\]]+)\]\(#[^)]*\)", r"\1 (in the README)", text)  # sections the book does not hold
    toc = "\n".join(pages)
    return f"{text}\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{toc}\n```\n"


def _sources(src: Path, paths: list[Path]) -> list[Page]:
    """Write index.md, the notebook copies and the README's figure into src; returns the notebooks' pages."""
    import nbformat

    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    pages, names = [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        _check_state(nb, path)
        rel = path.relative_to(NOTEBOOKS)
        target = src / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(book_notebook(nb), target)
        names.append(rel.with_suffix("").as_posix())
        pages.append(Page(rel.with_suffix(".html"), title_of(nb, path.stem), state_size(nb)))
    shutil.copytree(NOTEBOOKS / "figures", src / "figures")
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    (src / "index.md").write_text(landing_page(readme, names), encoding="utf-8")
    return pages


def build(out: Path = BOOK, paths: list[Path] | None = None, quiet: bool = True) -> list[Page]:
    """Build the book into out/html (sources copied to out/src); returns the notebooks' pages, in reading order.
    Any Sphinx warning fails the build."""
    from sphinx.application import Sphinx

    from . import vendor

    vendor.verify(vendor.BOOK_PACKAGES)
    out = Path(out)
    paths = list(paths or all_notebooks())
    pages = _sources(out / "src", paths)
    html_dir = out / "html"
    app = Sphinx(
        srcdir=str(out / "src"),
        confdir=str(CONF),
        outdir=str(html_dir),
        doctreedir=str(out / "doctrees"),
        buildername="html",
        status=None if quiet else __import__("sys").stdout,
        warningiserror=True,
        freshenv=True,
    )
    app.build()
    for path in paths:  # the download button hands out the committed notebook, not the page's copy
        shutil.copyfile(path, html_dir / "_sources" / path.relative_to(NOTEBOOKS))
    return [Page(html_dir / p.path, p.title, p.state_bytes) for p in pages]


def asset_bytes() -> int:
    """Bytes of the vendored files every page shares (checked against their record; reveal.js is the decks')."""
    from . import vendor

    return vendor.verify(vendor.BOOK_PACKAGES)


def report(pages: list[Page]) -> list[str]:
    """Lines saying the shared assets' and each page's widget state against their budgets; over-budget marked."""
    assets = asset_bytes()
    lines = [f"vendored assets (_static/): {assets / 1000:7.1f} KB of {ASSET_BUDGET / 1000:.0f} KB"]
    if assets > ASSET_BUDGET:
        lines[-1] += f"  OVER BUDGET by {(assets - ASSET_BUDGET) / 1000:.1f} KB"
    for page in pages:
        line = f"{page.path.name:42s} widget state {page.state_bytes / 1000:7.1f} KB of {STATE_BUDGET / 1000:.0f} KB"
        if page.state_bytes > STATE_BUDGET:
            line += f"  OVER BUDGET by {(page.state_bytes - STATE_BUDGET) / 1000:.1f} KB"
        lines.append(line)
    return lines


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=BOOK, help="output folder (default: _build/book)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print Sphinx's progress")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    pages = build(args.out, quiet=not args.verbose)
    seconds = time.perf_counter() - start
    print("\n".join(report(pages)))
    html_dir = args.out / "html"
    print(f"built {len(pages)} pages in {seconds:.1f} s: {html_dir / 'index.html'} ({_size(html_dir) / 1e6:.1f} MB)")
    return 0
