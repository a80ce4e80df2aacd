"""Lecture decks (issue 29): every lesson notebook carries its slide metadata and speaker notes, in the conventions
the deck tooling reads, and the lesson itself reads as before (the book drops the notes, JupyterLab folds them)."""

from __future__ import annotations

import math

import nbformat
import pytest

from attention_helpers.tools.refresh import NOTEBOOKS

SLIDE_TYPES = {"slide", "subslide", "fragment", "-", "skip", "notes"}
NOTES_START = "**Speaker notes.**"
NOTES_TAG = "remove-cell"  # the book (myst-nb) drops the cell
SHOW_INPUT = "slide-show-input"  # a code cell whose source the deck shows; every other code cell shows its outputs only
WIDGET = "application/vnd.jupyter.widget-view+json"
PICTURES = {"image/png", "image/svg+xml", WIDGET}
LESSONS = sorted(NOTEBOOKS.glob("*.ipynb"))


def rendered_lines(markdown: str, width: int = 100) -> int:
    """About how many lines a markdown cell takes on a 1280-pixel slide: each source line, wrapped at `width`."""
    return sum(max(1, math.ceil(len(line) / width)) for line in markdown.splitlines() if line.strip())


def deck_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What breaks the deck conventions in a notebook; empty when it follows them."""
    problems, kinds, pictures = [], [], [0]  # pictures: per subslide, the current one last
    for i, cell in enumerate(nb.cells):
        kind = cell.metadata.get("slideshow", {}).get("slide_type")
        tags = cell.metadata.get("tags", [])
        if kind not in SLIDE_TYPES:
            problems.append(f"cell {i}: slide_type {kind!r}, expected one of {sorted(SLIDE_TYPES)}")
            kind = "skip"
        kinds.append(kind)
        notes_text = cell.cell_type == "markdown" and cell.source.startswith(NOTES_START)
        if kind == "notes":
            hidden = cell.metadata.get("jupyter", {}).get("source_hidden") is True
            if not notes_text or NOTES_TAG not in tags or not hidden:
                problems.append(
                    f"cell {i}: a notes cell must be markdown starting {NOTES_START!r}, tagged {NOTES_TAG}, folded"
                )
            owner = next((k for k in reversed(kinds[:-1]) if k != "notes"), "skip")
            if owner == "skip":
                problems.append(f"cell {i}: speaker notes after a cell that is not on the deck")
        elif notes_text or NOTES_TAG in tags:
            problems.append(f"cell {i}: speaker notes marked {kind!r} instead of 'notes'")
        if SHOW_INPUT in tags and (
            cell.cell_type != "code" or kind in ("skip", "notes") or cell.source.count("\n") >= 12
        ):
            problems.append(f"cell {i}: {SHOW_INPUT} only on a short code cell that is on the deck")
        if cell.cell_type == "markdown" and kind not in ("skip", "notes") and rendered_lines(cell.source) > 10:
            problems.append(f"cell {i}: markdown of {rendered_lines(cell.source)} lines does not fit a slide: skip it")
        shown = [o for o in cell.get("outputs", []) if PICTURES & set(o.get("data", {}))]
        if any(WIDGET in o.data for o in shown) and kind not in ("slide", "subslide"):
            problems.append(f"cell {i}: an explorer must start a slide of its own")
        if kind in ("slide", "subslide"):
            pictures.append(0)
        if kind not in ("skip", "notes"):
            pictures[-1] += len(shown)
            if pictures[-1] > 1:
                problems.append(f"cell {i}: a second picture on one slide")
    slides = kinds.count("slide") + kinds.count("subslide")
    if not 10 <= slides <= 25:
        problems.append(f"{slides} slides, expected 10 to 25")
    if "notes" not in kinds:
        problems.append("no speaker notes")
    return problems


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_is_a_deck_with_speaker_notes(path):
    assert deck_problems(nbformat.read(path, as_version=4)) == []


def _deck() -> nbformat.NotebookNode:
    """A notebook that follows the conventions: 10 slides of one short markdown cell each, one with notes."""
    nb = nbformat.v4.new_notebook()
    for s in range(10):
        nb.cells.append(nbformat.v4.new_markdown_cell(f"slide {s}", metadata={"slideshow": {"slide_type": "slide"}}))
    notes = nbformat.v4.new_markdown_cell(f"{NOTES_START} Ask the room.")
    notes.metadata = {"slideshow": {"slide_type": "notes"}, "tags": [NOTES_TAG], "jupyter": {"source_hidden": True}}
    nb.cells.insert(1, notes)
    return nb


def _picture(kind: str, mime: str = "image/png") -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("draw()", metadata={"slideshow": {"slide_type": kind}})
    cell.outputs = [nbformat.v4.new_output("display_data", data={mime: "x", "text/plain": "picture"})]
    return cell


def test_deck_problems_accepts_a_deck_that_follows_the_conventions():
    nb = _deck()
    nb.cells += [_picture("slide"), _picture("subslide", WIDGET)]
    assert deck_problems(nb) == []


def _no_slide_type(nb):
    del nb.cells[0].metadata["slideshow"]


def _notes_not_removed(nb):
    nb.cells[1].metadata["tags"] = []


def _notes_not_folded(nb):
    del nb.cells[1].metadata["jupyter"]


def _notes_after_a_skipped_cell(nb):
    nb.cells[0].metadata["slideshow"]["slide_type"] = "skip"


def _notes_as_markdown(nb):
    nb.cells[1].metadata["slideshow"]["slide_type"] = "-"


def _long_code_shown(nb):
    nb.cells.append(nbformat.v4.new_code_cell("x = 1\n" * 20, metadata={"slideshow": {"slide_type": "slide"}}))
    nb.cells[-1].metadata["tags"] = [SHOW_INPUT]


def _code_shown_off_the_deck(nb):
    nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"slideshow": {"slide_type": "skip"}}))
    nb.cells[-1].metadata["tags"] = [SHOW_INPUT]


def _long_markdown_on_a_slide(nb):
    nb.cells[0].source = "\n".join(["a line of prose " * 8] * 8)


def _explorer_skipped(nb):
    nb.cells.append(_picture("skip", WIDGET))


def _explorer_under_a_picture(nb):
    nb.cells += [_picture("slide"), _picture("-", WIDGET)]


def _two_pictures_on_a_slide(nb):
    nb.cells += [_picture("slide"), _picture("fragment")]


def _too_few_slides(nb):
    for cell in nb.cells[5:]:
        cell.metadata["slideshow"]["slide_type"] = "-"


def _no_notes(nb):
    del nb.cells[1]


@pytest.mark.parametrize(
    "break_it",
    [
        _no_slide_type,
        _notes_not_removed,
        _notes_not_folded,
        _notes_after_a_skipped_cell,
        _notes_as_markdown,
        _long_code_shown,
        _code_shown_off_the_deck,
        _long_markdown_on_a_slide,
        _explorer_skipped,
        _explorer_under_a_picture,
        _two_pictures_on_a_slide,
        _too_few_slides,
        _no_notes,
    ],
)
def test_deck_problems_catches_each_broken_convention(break_it):
    nb = _deck()
    break_it(nb)
    assert deck_problems(nb) != []


def stale_note_numbers(nb: nbformat.NotebookNode) -> list[str]:
    """Numbers with two or more decimals in a speaker note that appear nowhere else in the notebook (its text, its
    outputs, their text alternatives): a note that still quotes an old run (issue 35: 03's temperature note did)."""
    import json
    import re

    notes = [c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith(NOTES_START)]
    rest = [c.source for c in nb.cells if not (c.cell_type == "markdown" and c.source.startswith(NOTES_START))]
    rest += [json.dumps(o) for c in nb.cells for o in c.get("outputs", [])]
    haystack = "\n".join(rest)
    return [n for note in notes for n in re.findall(r"(?<![\w.])\d+\.\d{2,}(?!\w)", note) if n not in haystack]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_speaker_notes_quote_the_numbers_the_notebook_shows(path):
    assert stale_note_numbers(nbformat.read(path, as_version=4)) == []


def test_a_note_quoting_an_old_run_is_caught():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("print(0.975)", outputs=[nbformat.v4.new_output("stream", text="0.975\n")]),
        nbformat.v4.new_markdown_cell(f"{NOTES_START} On screen: 0.975 and 0.966."),
    ]
    assert stale_note_numbers(nb) == ["0.966"]
