"""Lecture decks, offline: `python -m attention_helpers.tools.slides [NOTEBOOK ...] [--out _build/slides]`.

Writes one reveal.js deck per lesson notebook, `NN_name.slides.html`, and the files they share in `static/`, with
nbconvert's `SlidesExporter` on the committed notebooks (nothing is executed). A cell's place in the deck is its
`slideshow.slide_type` (Jupyter's slide metadata: slide, subslide, fragment, "-" to continue, skip, notes), so the
same notebook is the lesson, the book page and the deck. In a deck:
- only the first reading: the cells before the notebook's `## N.k Going further` heading (`first_reading`);
- the deck opens on a title slide, and a slide that does not open with a heading carries its section's heading;
- a code cell shows its outputs; its input only if the cell is tagged `slide-show-input` (code where the code is the
  point), through a copy of the notebook whose other code cells carry `transient.remove_source`;
- `notes` cells (markdown, tagged `remove-cell` so that the book drops them) become reveal.js speaker notes, shown
  in the speaker view (press S);
- the explorers are live: the notebook's stored widget state is drawn by the vendored widget manager (`embed.js`);
- math is typeset by the vendored MathJax 3; reveal.js 6 is vendored too (`python -m attention_helpers.tools.book.vendor`
  refreshes all three, recorded with their sha256 in `book/static/vendored.json`), so a deck makes no outside
  request and works from `file://`;
- `deck.js` fits each slide's pictures to the 1280 x 720 slide and keeps a focused control's arrow keys;
  `deck.css` sizes text, code and the explorers' controls for a projector.
"""

from __future__ import annotations

import argparse
import copy
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..book import figure_html, vendor
from ..refresh import NOTEBOOKS
from ..widget_state import VIEW_MIME, state_size

__all__ = [
    "ASSETS",
    "HEIGHT",
    "SHOW_INPUT_TAG",
    "SLIDES",
    "SLIDE_TYPES",
    "WIDTH",
    "Deck",
    "build",
    "copy_assets",
    "deck_html",
    "deck_notebook",
    "first_reading",
    "lesson_notebooks",
    "main",
    "shown_cells",
    "slide_count",
]

_HERE = Path(__file__).resolve().parent
SLIDES = NOTEBOOKS.parent / "_build" / "slides"
SHOW_INPUT_TAG = "slide-show-input"
SLIDE_TYPES = ("slide", "subslide", "fragment", "-", "skip", "notes")
# the decks' own files, beside this module, copied into static/ with the vendored ones (book/static/)
ASSETS = {
    "deck.css": _HERE / "deck.css",
    "deck.js": _HERE / "deck.js",
    "mathjax-hub.js": vendor.STATIC.parent / "theme" / "book.js",
}
WIDTH, HEIGHT = 1280, 720


@dataclass(frozen=True)
class Deck:
    """One notebook's deck: where it was written, its title, how many slides and speaker notes it has."""

    path: Path
    title: str
    slides: int
    notes: int
    state_bytes: int


def _slide_type(cell: dict) -> str | None:
    return cell.get("metadata", {}).get("slideshow", {}).get("slide_type")


def shown_cells(nb: dict) -> list[dict]:
    """The cells a deck shows: all but those of slide type `skip` and `notes`, in order."""
    return [c for c in nb["cells"] if _slide_type(c) not in ("skip", "notes")]


def slide_count(nb: dict) -> int:
    """How many slides the deck shows (slides and subslides; the first shown cell always starts one)."""
    shown = [_slide_type(c) for c in shown_cells(nb)]
    return int(bool(shown)) + sum(t in ("slide", "subslide") for t in shown[1:])


def first_reading(nb: dict) -> dict:
    """A copy of the notebook with its first reading only: the cells before its `## N.k Going further` heading
    (issue 34: a lecture covers the first reading; the optional sections stay in the notebook and the book)."""
    from ..reading_time import GOING_FURTHER

    nb = copy.deepcopy(nb)
    for i, cell in enumerate(nb["cells"]):
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "markdown" and GOING_FURTHER.search(source):
            nb["cells"] = nb["cells"][:i]
            break
    return nb


def deck_notebook(nb: dict, name: str = "notebook") -> dict:
    """A copy of the notebook for its deck: code inputs hidden unless tagged `slide-show-input`; the notebook is
    left alone. Raises ValueError if it has no slide metadata or an unknown slide type (`name` says which)."""
    types = [_slide_type(c) for c in nb["cells"]]
    unknown = sorted({t for t in types if t is not None and t not in SLIDE_TYPES})
    if unknown:
        raise ValueError(f"{name}: unknown slideshow.slide_type {unknown}; expected one of {list(SLIDE_TYPES)}")
    if "slide" not in types:
        raise ValueError(
            f"{name} has no slide metadata (no cell with slideshow.slide_type 'slide'): mark the cells of its deck "
            "(View > Cell Toolbar, or the property inspector's Slide Type in JupyterLab)"
        )
    nb = first_reading(nb)  # a copy: the deck covers the first reading
    for cell in nb["cells"]:
        if cell["cell_type"] == "code" and SHOW_INPUT_TAG not in cell.get("metadata", {}).get("tags", []):
            cell["metadata"].setdefault("transient", {})["remove_source"] = True
        for output in cell.get("outputs", []):
            if VIEW_MIME in output.get("data", {}):
                continue  # an explorer: the widget manager draws it
            if (figure := figure_html(output)) is not None:  # figures keep their text alternative, as in the book
                output["data"] = {"text/html": figure}
                output.get("metadata", {}).pop("image/png", None)
    nb["cells"] = _with_titles(nb["cells"], _title(nb, Path(name).stem))
    return nb


def _markdown(source: str, slide_type: str) -> dict:
    import nbformat

    return nbformat.v4.new_markdown_cell(source, metadata={"slideshow": {"slide_type": slide_type}})


def _with_titles(cells: list[dict], title: str) -> list[dict]:
    """The deck's cells with a title slide first (the notebook's `# ` heading) unless the deck opens on it, and, on
    every slide that does not open with a heading, its section's `## ` heading as a running title (the lesson's
    headings mostly sit in long cells the deck skips)."""
    shown = shown_cells({"cells": cells})
    opens_on_title = bool(shown) and shown[0]["cell_type"] == "markdown" and shown[0]["source"].startswith("# ")
    out = [] if opens_on_title else [_markdown(f"# {title}\n\n*Attention, interactively*", "slide")]
    section = None
    for cell in cells:
        kind = _slide_type(cell)
        if kind in ("slide", "subslide") and section and not cell["source"].lstrip().startswith("#"):
            out.append(_markdown(f'<div class="deck-section">\n\n## {section}\n\n</div>', kind))
            cell = copy.deepcopy(cell)
            cell["metadata"]["slideshow"] = {"slide_type": "-"}
        out.append(cell)
        if cell["cell_type"] == "markdown" and kind != "notes":
            headings = [line[3:].strip() for line in cell["source"].splitlines() if line.startswith("## ")]
            section = headings[-1] if headings else section
    return out


def deck_html(nb: dict, title: str, static: str = "static") -> str:
    """The deck of a notebook already passed through `deck_notebook`, as one HTML page loading `static/`."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(
        extra_template_basedirs=[str(_HERE)],
        template_name="template",
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        reveal_url_prefix=f"{static}/reveal.js",  # unused by our template; never a CDN
    )
    resources = {
        "metadata": {"name": title},
        "deck": {"title": title, "static": static, "config": {"width": WIDTH, "height": HEIGHT}},
    }
    import nbformat

    body, _ = exporter.from_notebook_node(nbformat.from_dict(nb), resources=resources)
    return body


def copy_assets(out: Path) -> int:
    """Copy the vendored files (checked against their record) and the decks' own into out/static; returns bytes."""
    vendor.verify()
    static = Path(out) / "static"
    total = 0
    for entry in vendor.record().values():
        for rel in entry["files"]:
            target = static / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(vendor.STATIC / rel, target)
            total += target.stat().st_size
    for name, source in ASSETS.items():
        shutil.copyfile(source, static / name)
        total += (static / name).stat().st_size
    return total


def lesson_notebooks() -> list[Path]:
    """The lesson notebooks 00-10 (the solutions notebook has no deck)."""
    return sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))


def _title(nb: dict, fallback: str) -> str:
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in cell["source"].splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def build(out: Path = SLIDES, paths: list[Path] | None = None) -> list[Deck]:
    """Write a deck per notebook (default: 00-10) into out, and the shared files into out/static."""
    import nbformat

    out = Path(out)
    paths = [Path(p) for p in (paths or lesson_notebooks())]
    notebooks = [(p, nbformat.read(p, as_version=4)) for p in paths]
    decks_of = [(p, nb, deck_notebook(nb, p.name)) for p, nb in notebooks]  # every notebook checked before writing
    out.mkdir(parents=True, exist_ok=True)
    copy_assets(out)
    decks = []
    for path, nb, deck in decks_of:
        title = _title(nb, path.stem)
        target = out / f"{path.stem}.slides.html"
        target.write_text(deck_html(deck, title), encoding="utf-8")
        notes = sum(_slide_type(c) == "notes" for c in nb["cells"])
        decks.append(Deck(target, title, slide_count(deck), notes, state_size(nb)))
    return decks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to build (default: 00-10)")
    parser.add_argument("--out", type=Path, default=SLIDES, help="output folder (default: _build/slides)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        decks = build(args.out, args.notebooks or None)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for deck in decks:
        print(
            f"{deck.path}: {deck.slides} slides, {deck.notes} speaker notes, widget state {deck.state_bytes / 1000:.0f} KB"
        )
    print(f"built {len(decks)} decks in {time.perf_counter() - start:.1f} s; open one in a browser (S: speaker view)")
    return 0
