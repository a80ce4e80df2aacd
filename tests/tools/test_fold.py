"""fold: plumbing cells (explorers, pictures, assert-only cells) get hide-input and source_hidden, once; refresh's
strip keeps both; every committed notebook is folded."""

from __future__ import annotations

import nbformat
import pytest

from attention_helpers.tools.fold import FOLD_TAG, fold, fold_cell, should_fold
from attention_helpers.tools.refresh import all_notebooks, strip


@pytest.mark.parametrize(
    ("source", "folded"),
    [
        ('PictureExplorer(draw, {"d": IntSlider(1, 1, 4)})', True),
        ("show_heatmaps(weights, 'keys', 'queries')", True),
        ("fig, ax = plt.subplots()\nax.plot(x, y)", True),
        ("assert torch.allclose(a, b)\n# the text's 0.5\nassert round(x, 2) == 0.5", True),
        ("assert (\n    a == b\n), 'why'", True),
        ("weights = torch.softmax(scores, dim=-1)\nassert weights.sum() == 1", False),  # the lesson's own code
        ("print(weights)", False),
        ("# only a comment", False),
    ],
)
def test_should_fold(source, folded):
    assert should_fold(source) is folded


def test_fold_cell_is_idempotent_and_keeps_other_tags():
    cell = nbformat.v4.new_code_cell("assert x == 1", metadata={"tags": ["nbval-ignore-output"]})
    assert fold_cell(cell) is True
    assert cell.metadata == {"tags": ["nbval-ignore-output", FOLD_TAG], "jupyter": {"source_hidden": True}}
    assert fold_cell(cell) is False
    markdown = nbformat.v4.new_markdown_cell("assert x == 1")
    assert fold_cell(markdown) is False and markdown.metadata == {}


def test_strip_keeps_the_fold_and_nothing_else(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("assert True")
    fold_cell(cell)
    cell.metadata["jupyter"]["outputs_hidden"] = True  # a reader's choice in JupyterLab: not kept
    cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01"}
    nb.cells = [cell, nbformat.v4.new_code_cell("x = 1", metadata={"jupyter": {"source_hidden": False}})]
    strip(nb)
    assert nb.cells[0].metadata == {"tags": [FOLD_TAG], "jupyter": {"source_hidden": True}}
    assert nb.cells[1].metadata == {}
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert fold(path) == 0


@pytest.mark.parametrize("path", all_notebooks(), ids=lambda p: p.name)
def test_committed_notebooks_are_folded(path):
    nb = nbformat.read(path, as_version=4)
    unfolded = [i for i, cell in enumerate(nb.cells) if fold_cell(cell)]
    assert unfolded == [], (
        f"{path.name}: cells {unfolded} should be folded: run `python -m attention_helpers.tools.fold`"
    )


def test_fold_leaves_the_slide_metadata_and_the_speaker_notes_alone(tmp_path):
    """A drawing cell on a slide keeps its slide type; a notes cell (markdown, even one naming a picture) is untouched."""
    drawing = nbformat.v4.new_code_cell("show_heatmaps(w)", metadata={"slideshow": {"slide_type": "slide"}})
    notes_metadata = {"slideshow": {"slide_type": "notes"}, "tags": ["remove-cell"], "jupyter": {"source_hidden": True}}
    notes = nbformat.v4.new_markdown_cell("**Speaker notes.** Before show_heatmaps(w): predict row 0.")
    notes.metadata = {k: dict(v) if isinstance(v, dict) else list(v) for k, v in notes_metadata.items()}
    nb = nbformat.v4.new_notebook()
    nb.cells = [drawing, notes]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert fold(path) == 1
    cells = nbformat.read(path, as_version=4).cells
    assert cells[0].metadata["slideshow"] == {"slide_type": "slide"} and FOLD_TAG in cells[0].metadata["tags"]
    assert cells[1].metadata == notes_metadata and cells[1].source == notes.source
