"""The lecture decks' command without a browser (`attention_helpers.tools.slides`): which cells a deck shows and how,
the speaker notes, the vendored files, and what it refuses. The decks in a browser: tests/browser/test_slides.py."""

from __future__ import annotations

import copy
import re
import shutil

import nbformat
import pytest

from attention_helpers.tools import slides
from attention_helpers.tools.book import vendor

SHOWN_CODE = "shown = 'the code is the point'"
HIDDEN_CODE = "hidden = 'plumbing'"


def _cell(kind: str, source: str, slide_type: str | None, tags: list[str] | None = None, **outputs):
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    if slide_type is not None:
        cell.metadata["slideshow"] = {"slide_type": slide_type}
    if tags:
        cell.metadata["tags"] = tags
    if kind == "code":
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=outputs.get("text", ""))]
    return cell


@pytest.fixture
def notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("markdown", "# 9. A lesson", "skip"),
        _cell("markdown", "## The question\n\nWhy $\\sqrt{d}$?", "slide"),
        _cell("markdown", "Say: ask the room first.", "notes", ["remove-cell"]),
        _cell("code", HIDDEN_CODE, "-", ["hide-input"], text="printed by the hidden cell\n"),
        _cell("code", SHOWN_CODE, "subslide", [slides.SHOW_INPUT_TAG], text="printed by the shown cell\n"),
        _cell("markdown", "left out of the deck", "skip"),
        _cell("markdown", "a fragment", "fragment"),
        _cell("markdown", "## Takeaway", "slide"),
    ]
    nb.cells[2].metadata["jupyter"] = {"source_hidden": True}
    return nb


def test_deck_notebook_hides_code_inputs_unless_tagged_and_leaves_the_notebook_alone(notebook):
    before = copy.deepcopy(notebook)
    deck = slides.deck_notebook(notebook)
    assert notebook == before
    removed = {c.source: c.metadata.get("transient", {}).get("remove_source", False) for c in deck.cells}
    assert removed[HIDDEN_CODE] is True and removed[SHOWN_CODE] is False
    assert all("transient" not in c.metadata for c in deck.cells if c.cell_type == "markdown")


def test_slide_count_counts_slides_and_subslides(notebook):
    assert slides.slide_count(notebook) == 3  # the question, the shown code (subslide), the takeaway
    notebook.cells[0].metadata["slideshow"]["slide_type"] = "-"  # the first shown cell starts a slide anyway
    assert slides.slide_count(notebook) == 4


def test_deck_html_shows_outputs_the_tagged_input_and_notes_as_speaker_notes(notebook):
    page = slides.deck_html(slides.deck_notebook(notebook), "9. A lesson")
    assert "printed by the hidden cell" in page and "printed by the shown cell" in page
    # highlighted code is split by tags, but a string literal is one token
    assert "plumbing" not in page and "the code is the point" in page
    notes = re.findall(r'<aside class="notes">(.*?)</aside>', page, flags=re.S)
    assert len(notes) == 1 and "ask the room first" in notes[0]
    assert "left out of the deck" not in page
    assert page.count('class="fragment"') == 1
    sections = re.findall(r"<section\b", page)
    # one per horizontal slide (the title slide, the question, the takeaway), one per slide inside them
    assert len(sections) == 3 + 4  # (reveal.js's layout)


def test_deck_html_loads_only_its_static_folder(notebook):
    page = slides.deck_html(slides.deck_notebook(notebook), "9. A lesson")
    loads = re.findall(r'<(?:script|link|img)\b[^>]*\b(?:src|href)="([^"]+)"', page)
    assert "data:," in loads  # the empty favicon: no request for /favicon.ico
    assert loads and all(u.startswith("static/") or u == "data:," for u in loads), loads
    for name in ("static/reveal.js/reveal.js", "static/mathjax/tex-chtml.js", "static/deck.js", "static/deck.css"):
        assert name in loads
    assert "require.js" not in page and "jquery" not in page.lower() and "mermaid" not in page


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda nb: [c.metadata.pop("slideshow", None) for c in nb.cells], "has no slide metadata"),
        (lambda nb: nb.cells[1].metadata.update(slideshow={"slide_type": "Slide"}), "unknown slideshow.slide_type"),
    ],
    ids=["no metadata", "unknown type"],
)
def test_deck_notebook_refuses_a_notebook_without_a_deck(notebook, change, message):
    change(notebook)
    with pytest.raises(ValueError, match=message):
        slides.deck_notebook(notebook, "09_a_lesson.ipynb")


def test_the_command_says_which_notebook_has_no_deck(tmp_path, notebook, capsys):
    for cell in notebook.cells:
        cell.metadata.pop("slideshow", None)
    nbformat.write(notebook, tmp_path / "09_a_lesson.ipynb")
    assert slides.main([str(tmp_path / "09_a_lesson.ipynb"), "--out", str(tmp_path / "out")]) == 2
    assert "09_a_lesson.ipynb has no slide metadata" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_vendored_reveal_js_is_pinned_and_recorded():
    entry = vendor.record()["reveal.js"]
    assert (entry["version"], entry["license"]) == (vendor.PACKAGES["reveal.js"][0], "MIT")
    assert set(entry["files"]) == {"reveal.js/reveal.js", "reveal.js/reveal.css", "reveal.js/plugin/notes.js",
                                   "reveal.js/LICENSE"}  # fmt: skip
    for rel, expected in entry["files"].items():
        assert vendor.sha256(vendor.STATIC / rel) == expected["sha256"]
    # the book ships the widget manager and MathJax only
    assert vendor.verify(vendor.BOOK_PACKAGES) + sum(f["bytes"] for f in entry["files"].values()) == vendor.verify()


def test_copy_assets_copies_the_recorded_files_and_refuses_a_changed_one(tmp_path, monkeypatch):
    slides.copy_assets(tmp_path / "out")
    static = tmp_path / "out" / "static"
    for entry in vendor.record().values():
        for rel, expected in entry["files"].items():
            assert vendor.sha256(static / rel) == expected["sha256"]
    assert {"deck.css", "deck.js", "mathjax-hub.js"} <= {p.name for p in static.iterdir()}
    changed = tmp_path / "static"
    shutil.copytree(vendor.STATIC, changed)
    (changed / "reveal.js" / "reveal.js").write_bytes(b"// not reveal.js")
    monkeypatch.setattr(vendor, "STATIC", changed)
    with pytest.raises(RuntimeError, match=r"reveal\.js/reveal\.js has sha256 [0-9a-f]{64}, but"):
        slides.copy_assets(tmp_path / "again")


def test_a_deck_opens_on_a_title_slide_and_each_slide_carries_its_section(notebook):
    notebook.cells.insert(1, _cell("markdown", "## 9.1 Scores\n\nA long paragraph the deck skips.", "skip"))
    notebook.cells[2].source = "Why $\\sqrt{d}$?"  # the question's slide no longer opens with a heading
    deck = slides.deck_notebook(notebook, "09_a_lesson.ipynb")
    shown = slides.shown_cells(deck)
    assert shown[0].source.startswith("# 9. A lesson") and shown[0].metadata["slideshow"]["slide_type"] == "slide"
    assert "## 9.1 Scores" in shown[1].source and shown[1].metadata["slideshow"]["slide_type"] == "slide"
    assert shown[2].source == "Why $\\sqrt{d}$?" and shown[2].metadata["slideshow"]["slide_type"] == "-"
    # the shown code's subslide carries the section too; the takeaway opens with its own heading and gets none
    assert "## 9.1 Scores" in shown[4].source and shown[4].metadata["slideshow"]["slide_type"] == "subslide"
    assert [c.source for c in shown].count("## Takeaway") == 1 and "deck-section" not in shown[-2].source
    assert slides.slide_count(deck) == slides.slide_count(notebook) + 1  # the title slide
    assert notebook.cells[2].metadata["slideshow"]["slide_type"] == "slide"  # the notebook is left alone


def test_figures_keep_their_text_alternative_and_explorers_stay_widgets(notebook):
    """As in the book: a labelled SVG goes in inline (its role="img" and aria-label kept, its text restylable by
    deck.js), a PNG gets its `alt` from the output metadata, and an explorer's output stays a widget view."""
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" role="img" aria-label="weights 0.25 0.75"></svg>'
    view = {"model_id": "abc", "version_major": 2, "version_minor": 0}
    figure = nbformat.v4.new_code_cell("figure()", metadata={"slideshow": {"slide_type": "slide"}})
    figure.outputs = [
        nbformat.v4.new_output("display_data", data={"image/svg+xml": svg, "text/plain": "<SVG>"}),
        nbformat.v4.new_output(
            "display_data",
            data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"},
            metadata={"image/png": {"alt": "loss 0.5 to 0.1"}},
        ),  # fmt: skip
        nbformat.v4.new_output("display_data", data={"image/svg+xml": svg, slides.VIEW_MIME: view}),
    ]
    notebook.cells.append(figure)
    outputs = slides.deck_notebook(notebook).cells[-1].outputs
    assert outputs[0].data == {"text/html": f'<div class="ah-figure">{svg}</div>'}
    assert outputs[1].data["text/html"].startswith('<img class="ah-figure" alt="loss 0.5 to 0.1"')
    assert slides.VIEW_MIME in outputs[2].data and "text/html" not in outputs[2].data


def test_a_deck_stops_at_going_further():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 9. A lesson", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell("## 9.1 First", metadata={"slideshow": {"slide_type": "slide"}}),
        nbformat.v4.new_markdown_cell(
            "## 9.2 Going further\n\nOptional.", metadata={"slideshow": {"slide_type": "skip"}}
        ),
        nbformat.v4.new_markdown_cell("### 9.2.1 Later", metadata={"slideshow": {"slide_type": "slide"}}),
    ]
    assert [c.source for c in slides.first_reading(nb).cells] == ["# 9. A lesson", "## 9.1 First"]
    assert slides.slide_count(slides.deck_notebook(nb)) == 2 and len(nb.cells) == 4  # the notebook is left alone
    for path in slides.lesson_notebooks():  # every lesson's deck is its first reading, and has slides left
        lesson = nbformat.read(path, as_version=4)
        shown, deck = slides.shown_cells(lesson), slides.shown_cells(slides.first_reading(lesson))
        assert 0 < len(deck) < len(shown) and slides.slide_count(slides.deck_notebook(lesson)) > 5, path.name
