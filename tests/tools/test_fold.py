"""fold: plumbing cells (explorers, pictures, assert-only cells) get hide-input and source_hidden, once; refresh's
strip keeps both; every committed notebook is folded."""

from __future__ import annotations

import nbformat
import pytest

from attention_helpers.tools.fold import (
    FOLD_TAG,
    fold,
    fold_cell,
    fold_notebook,
    is_folded,
    read_later,
    should_fold,
    shown_plumbing,
)
from attention_helpers.tools.refresh import all_notebooks, strip


@pytest.mark.parametrize(
    ("source", "folded"),
    [
        # plumbing: the cell is folded
        ('PictureExplorer(draw, {"d": IntSlider(1, 1, 4)})', True),
        ("_ = show_heatmaps(weights, 'keys', 'queries')", True),
        ("fig, ax = plt.subplots()\nax.plot(x, y)", True),
        ("assert torch.allclose(a, b)\n# the text's 0.5\nassert round(x, 2) == 0.5", True),
        ("assert (\n    a == b\n), 'why'", True),
        ("torch.testing.assert_close(out, expected)  # a call of an assert_* function", True),
        ("for d in dims:\n    ratio = var[d] / d\n    assert abs(ratio - 1) < 0.1", True),  # a loop of asserts
        ("nearest = x.argmin()\nassert nearest == 3", True),  # a value only the assert reads
        ("%matplotlib inline\nimport torch\n\n_ = torch.manual_seed(0)", True),  # imports and a seed
        (
            "def draw(angle):\n    return query_svg(angle)\n\n\ndef query_caption(angle):\n    return f'{angle}'\n\n\n"
            "controls = {'angle': widgets.IntSlider(0, 0, 90)}\nPictureExplorer(draw, controls, caption=query_caption)",
            True,
        ),
        # the lesson's code, alone or beside plumbing: the cell stays open
        ("weights = torch.softmax(scores, dim=-1)\nprint(weights)\nassert weights.sum() == 1", False),
        ("weights = torch.softmax(scores, dim=-1)\n_ = show_heatmaps(weights, 'keys', 'queries')", False),  # read later
        ("def attention(q, k):\n    return q @ k.T\n\n\nassert attention(q, k).shape == (2, 3)", False),
        ("for d in dims:\n    print(d, var[d])\n    assert var[d] > 0", False),  # the loop prints the lesson's table
        ("print(weights)", False),
        ("import torch\nx = torch.ones(3)", False),  # `x` is the lesson's
        ("import torch\nfrom attention_helpers.checks import check_0_1", False),  # imports alone: shown
        ("# only a comment", False),
        ("x = (", False),  # not Python
    ],
)
def test_should_fold(source, folded):
    assert should_fold(source, read_later={"weights", "x"}) is folded


def test_a_value_read_by_a_later_cell_is_the_lessons():
    source = "weights = torch.softmax(scores, dim=-1)\nassert weights.sum() == 1"
    assert should_fold(source) is True  # only the assert reads `weights`: a check's own value
    assert should_fold(source, read_later={"weights"}) is False  # a later cell uses it: the lesson's
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source), nbformat.v4.new_code_cell("print(weights)")]
    assert read_later(nb)[0] >= {"print", "weights"} and read_later(nb)[1] == set()
    assert fold_notebook(nb) == 0 and not is_folded(nb.cells[0])
    nb.cells[1].source = "print(other)"
    assert fold_notebook(nb) == 1 and is_folded(nb.cells[0])


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
    unfolded = [
        i for i, (cell, names) in enumerate(zip(nb.cells, read_later(nb), strict=True)) if fold_cell(cell, names)
    ]
    assert unfolded == [], (
        f"{path.name}: cells {unfolded} should be folded: run `python -m attention_helpers.tools.fold`"
    )


# The "done when": a page of 00-05, scrolled from top to bottom, shows no explorer-building code and no
# asserts unless the reader opens them. 06-10 and the solutions are held to it too.
NOTEBOOKS = all_notebooks()


def test_shown_plumbing_finds_asserts_and_explorers_in_open_cells():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("assert x  # prose, not code"),
        nbformat.v4.new_code_cell("y = f(x)\nassert y > 0"),  # 1: an assert beside the lesson
        nbformat.v4.new_code_cell("y = f(x)\ntorch.testing.assert_close(y, z)"),  # 2: an assert_* call
        nbformat.v4.new_code_cell("for v in y:\n    if v:\n        assert v > 0"),  # 3: nested
        nbformat.v4.new_code_cell("w = f(x)\nPictureExplorer(draw, controls)"),  # 4: an explorer
        nbformat.v4.new_code_cell("explore_valid_lens(drawn, 2, 3, 3)"),  # 5
        nbformat.v4.new_code_cell("y = f(x)\nprint(y)"),  # the lesson: fine
        nbformat.v4.new_code_cell("%matplotlib inline\nimport torch"),
    ]
    assert shown_plumbing(nb) == [1, 2, 3, 4, 5]
    for i in (1, 2, 3, 4, 5):  # folded in the book only, or in JupyterLab only: either hides it
        nb.cells[i].metadata = {"tags": [FOLD_TAG]} if i % 2 else {"jupyter": {"source_hidden": True}}
    assert shown_plumbing(nb) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_show_no_asserts_and_no_explorer_code(path):
    assert len(NOTEBOOKS) == 12 and {p.name[:2] for p in NOTEBOOKS} >= {"00", "01", "02", "03", "04", "05"}
    shown = shown_plumbing(nbformat.read(path, as_version=4))
    assert shown == [], f"{path.name}: cells {shown} show asserts or explorer code: move them into a cell of their own"


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
