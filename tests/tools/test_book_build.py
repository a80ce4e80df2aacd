"""The book and the widget state behind it: the book's copy of a notebook keeps each explorer's picture after its
view and a figure's alt text, its landing page is the README's; stored state is pruned, without defaults and under
content-hash ids (refreshing twice writes the same bytes); the vendored scripts match their record; the save hook
keeps displayed widgets' state. Browser checks of the built book: tests/test_book.py."""

from __future__ import annotations

import base64
import copy
import json
import re
import shutil
import uuid
from pathlib import Path

import ipywidgets as widgets
import nbformat
import pytest

from attention_helpers.tools import book, save_hook
from attention_helpers.tools.book import ASSET_BUDGET, STATE_BUDGET, Page, book_notebook, landing_page, report, vendor
from attention_helpers.tools.refresh import LANGUAGE_INFO, NOTEBOOKS, all_notebooks, merge_streams, strip
from attention_helpers.tools.widget_state import (
    STATE_MIME,
    VIEW_MIME,
    canonical,
    displayed_ids,
    drop_defaults,
    keep_displayed,
    state_of,
    state_size,
)

# a 1x1 PNG: the explorer's stored picture
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415408d763f8cfc0000003010100"
        "c9fe92ef0000000049454e44ae426082"
    )
).decode()


@pytest.fixture
def explorer_notebook():
    """A notebook as the executor stores it: one explorer (slider -> stack of frames, jsdlink'ed), displayed with
    a PNG fallback; plus a widget made and closed (its state stays in the record) and an unlinked stray."""
    slider = widgets.IntSlider(value=1, max=2, description="step")
    frames = [widgets.HTML(f"<svg><text>frame {i}</text></svg>") for i in range(3)]
    stack = widgets.Stack(frames, selected_index=1)
    link = widgets.jsdlink((slider, "value"), (stack, "selected_index"))
    box = widgets.VBox([slider, stack])
    stray = widgets.HTML("never displayed")
    made = [slider, *frames, stack, link, box, stray]
    everything = (
        made + [w.layout for w in made if hasattr(w, "layout")] + [w.style for w in made if hasattr(w, "style")]
    )
    state = widgets.Widget.get_manager_state(drop_defaults=False, widgets=everything)["state"]
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("explorer")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                VIEW_MIME: {"model_id": box.model_id, "version_major": 2, "version_minor": 0},
                "image/png": PNG,
                "text/plain": "HeatmapExplorer(controls: step)",
            },
        )
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# 9. A test\n\nThe weights $w_i$ sum to 1:\n$$\\sum_i w_i = 1$$"), cell]
    nb.metadata["widgets"] = {STATE_MIME: {"state": state, "version_major": 2, "version_minor": 0}}
    ids = {"box": box.model_id, "slider": slider.model_id, "stack": stack.model_id, "link": link.model_id}
    ids["stray"] = stray.model_id
    yield nb, ids
    for w in everything:
        w.close()


def relabel(nb: dict) -> dict:
    """The same notebook as another run would store it: every model id replaced by a fresh random one, and the
    models recorded in another order."""
    text = json.dumps(nb)
    for model_id in state_of(nb):
        text = text.replace(model_id, uuid.uuid4().hex)
    other = nbformat.from_dict(json.loads(text))
    stored = other.metadata["widgets"][STATE_MIME]
    stored["state"] = dict(reversed(list(stored["state"].items())))
    return other


# --- widget state: pruned, defaults dropped, deterministic ids ------------------------------------------------------


def test_canonical_keeps_what_the_output_needs_and_nothing_else(explorer_notebook):
    nb, ids = explorer_notebook
    out = canonical(nb)
    state = state_of(out)
    names = sorted(m["model_name"] for m in state.values())
    assert names.count("HTMLModel") == 3 and "IntSliderModel" in names and "StackModel" in names
    assert "DirectionalLinkModel" in names  # a link drives the stack: kept, though no output displays it
    assert not any(m["state"].get("value") == "never displayed" for m in state.values())  # the stray is gone
    assert displayed_ids(out)[0] in state and len(displayed_ids(out)) == 1
    for model in state.values():  # every reference resolves
        refs = re.findall(r"IPY_MODEL_(\w+)", json.dumps(model))
        assert all(r in state for r in refs)
    assert state_of(nb)[ids["stray"]]  # the input is left alone


def test_canonical_ids_depend_on_content_only(explorer_notebook):
    nb, _ = explorer_notebook
    once = canonical(nb)
    assert json.dumps(canonical(relabel(nb)), sort_keys=True) == json.dumps(once, sort_keys=True)  # another run
    assert json.dumps(canonical(once), sort_keys=True) == json.dumps(once, sort_keys=True)  # refreshing twice
    assert all(re.fullmatch(r"[0-9a-f]{6,}", i) for i in state_of(once))
    changed = copy.deepcopy(nb)
    frame = next(m for m in state_of(changed).values() if str(m["state"].get("value")).endswith("frame 2</text></svg>"))
    frame["state"]["value"] = "<svg><text>frame 2, redrawn</text></svg>"
    before, after = set(state_of(once)), set(state_of(canonical(changed)))
    assert 0 < len(after - before) < len(after)  # the frame and what holds it change id; the slider does not


def test_identical_models_reached_only_through_links_are_ordered_by_what_they_drive():
    """Two kernel notes: identical hidden markers, each linked to its own note; another run must store the same."""
    notes = [widgets.HTML(f"note {i}") for i in range(2)]
    markers = [widgets.HTML("kernel") for _ in range(2)]  # never displayed, identical
    links = [widgets.jsdlink((m, "value"), (n, "placeholder")) for m, n in zip(markers, notes, strict=True)]
    box = widgets.VBox(notes)
    made = [*notes, *markers, *links, box]
    made += [w.layout for w in made if hasattr(w, "layout")] + [w.style for w in made if hasattr(w, "style")]
    try:
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("")
        cell.outputs = [nbformat.v4.new_output("display_data", data={VIEW_MIME: {"model_id": box.model_id}})]
        nb.cells = [cell]
        state = widgets.Widget.get_manager_state(drop_defaults=False, widgets=made)["state"]
        nb.metadata["widgets"] = {STATE_MIME: {"state": state, "version_major": 2, "version_minor": 0}}
        once = canonical(nb)
        assert sum(m["model_name"] == "DirectionalLinkModel" for m in state_of(once).values()) == 2
        for _ in range(3):
            assert json.dumps(canonical(relabel(nb)), sort_keys=True) == json.dumps(once, sort_keys=True)
        assert json.dumps(canonical(once), sort_keys=True) == json.dumps(once, sort_keys=True)
    finally:
        for w in made:
            w.close()


def test_identical_models_keep_distinct_ids():
    a, b = widgets.IntSlider(value=3), widgets.IntSlider(value=3)  # same content, two controls
    box = widgets.HBox([a, b])
    made = [a, b, box, a.layout, b.layout, box.layout, a.style, b.style]
    try:
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("")
        cell.outputs = [nbformat.v4.new_output("display_data", data={VIEW_MIME: {"model_id": box.model_id}})]
        nb.cells = [cell]
        state = widgets.Widget.get_manager_state(drop_defaults=False, widgets=made)["state"]
        nb.metadata["widgets"] = {STATE_MIME: {"state": state, "version_major": 2, "version_minor": 0}}
        out = state_of(canonical(nb))
        children = next(m for m in out.values() if m["model_name"] == "HBoxModel")["state"]["children"]
        assert len(set(children)) == 2  # moving one slider must not move the other
    finally:
        for w in made:
            w.close()


def test_canonical_rejects_outputs_without_state(explorer_notebook):
    nb, ids = explorer_notebook
    del state_of(nb)[ids["box"]]
    with pytest.raises(ValueError, match="lacks"):
        canonical(nb)


def test_drop_defaults_keeps_identity_and_changed_values():
    slider = widgets.IntSlider(value=4, max=9, description="k")
    try:
        model = widgets.Widget.get_manager_state(drop_defaults=False, widgets=[slider])["state"][slider.model_id]
        state = drop_defaults(model)["state"]
        assert {"value": 4, "max": 9, "description": "k"}.items() <= state.items()
        assert "min" not in state and "readout" not in state and "orientation" not in state  # defaults
        assert "_model_name" not in state and "_view_name" not in state  # the browser's IntSliderModel has them
        assert drop_defaults(model)["model_name"] == "IntSliderModel"  # which class to make stays outside
        assert model["state"]["min"] == 0  # the input is left alone
    finally:
        slider.close()


def test_state_size_is_the_embedded_json(explorer_notebook):
    nb, _ = explorer_notebook
    out = canonical(nb)
    stored = out.metadata["widgets"][STATE_MIME]
    assert state_size(out) == len(json.dumps(stored, separators=(",", ":"), ensure_ascii=False).encode())
    assert state_size(nbformat.v4.new_notebook()) == 0


# --- refresh: what a committed notebook keeps -----------------------------------------------------------------------


def test_strip_keeps_widget_state_and_the_language_info_jupyterlab_writes(explorer_notebook):
    nb, _ = explorer_notebook
    nb = canonical(nb)
    nb.metadata["language_info"] = {**LANGUAGE_INFO, "version": "3.11.7"}
    nb.metadata["papermill"] = {"duration": 1.5}
    nb.cells[1].metadata = {"execution": {"iopub.status.busy": "2026"}, "tags": ["keep"]}
    widgets_before = copy.deepcopy(nb.metadata["widgets"])
    strip(nb)
    assert set(nb.metadata) == {"kernelspec", "language_info", "widgets"}
    assert nb.metadata["language_info"]["version"] == "3.11.7"
    assert nb.metadata["language_info"]["codemirror_mode"] == {"name": "ipython", "version": 3}
    assert nb.metadata["widgets"] == widgets_before
    assert nb.cells[1].metadata == {"tags": ["keep"]}


def test_merge_streams_joins_what_the_kernel_flushed_in_pieces():
    cell = nbformat.v4.new_code_cell("print")
    out = nbformat.v4.new_output
    cell.outputs = [
        out("stream", name="stdout", text="a\n"),
        out("stream", name="stdout", text="b\n"),
        out("stream", name="stderr", text="warn\n"),
        out("stream", name="stdout", text="c\n"),
        out("display_data", data={"text/plain": "x"}),
        out("stream", name="stdout", text="d\n"),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_markdown_cell("m")])
    merge_streams(nb)
    assert [(o.output_type, o.get("name"), o.get("text")) for o in nb.cells[0].outputs] == [
        ("stream", "stdout", "a\nb\n"),
        ("stream", "stderr", "warn\n"),
        ("stream", "stdout", "c\n"),
        ("display_data", None, None),
        ("stream", "stdout", "d\n"),
    ]


# --- the save hook ------------------------------------------------------------------------------------------------


def test_keep_displayed_puts_back_only_what_the_browser_did_not_send(explorer_notebook):
    nb, _ = explorer_notebook
    old = canonical(nb)
    new = copy.deepcopy(old)
    new.metadata["widgets"][STATE_MIME]["state"] = {}  # saved from a browser whose widgets are not live
    added = keep_displayed(new, old)
    assert state_of(new) == state_of(old) and sorted(added) == sorted(state_of(old))
    assert keep_displayed(new, old) == []  # nothing missing: nothing added
    del new.metadata["widgets"]
    new.cells[1].outputs = []  # no widget displayed: nothing to keep
    assert keep_displayed(new, old) == [] and "widgets" not in new.metadata


def test_save_hook_reads_the_file_it_replaces(explorer_notebook, tmp_path):
    nb, _ = explorer_notebook
    old = canonical(nb)
    nbformat.write(old, tmp_path / "a.ipynb")

    class Contents:  # the part of a Jupyter Server file contents manager the hook uses
        def _get_os_path(self, path: str) -> str:
            return str(tmp_path / path)

    saving = json.loads(json.dumps(old))
    saving["metadata"]["widgets"][STATE_MIME]["state"] = {}
    save_hook.keep_widget_state(
        model={"type": "notebook", "content": saving}, path="a.ipynb", contents_manager=Contents()
    )
    assert saving["metadata"]["widgets"][STATE_MIME]["state"] == json.loads(json.dumps(state_of(old)))
    new_file = {"type": "notebook", "content": json.loads(json.dumps(saving))}
    save_hook.keep_widget_state(model=new_file, path="new.ipynb", contents_manager=Contents())  # no file yet
    save_hook.keep_widget_state(model={"type": "file", "content": "x"}, path="a.ipynb", contents_manager=Contents())


# --- the vendored scripts -------------------------------------------------------------------------------------------


def test_vendored_files_match_their_record():
    record = vendor.record()
    assert set(record) == set(vendor.PACKAGES)
    assert record["@jupyter-widgets/html-manager"]["version"] == "1.0.15" and record["mathjax"]["version"] == "3.2.2"
    for entry in record.values():
        for rel, expected in entry["files"].items():
            path = vendor.STATIC / rel
            assert expected == {"bytes": path.stat().st_size, "sha256": vendor.sha256(path)}
    assert {"embed.js", "mathjax/tex-chtml.js"} <= {rel for e in record.values() for rel in e["files"]}
    assert vendor.verify() <= ASSET_BUDGET


def test_a_changed_vendored_file_is_refused(tmp_path, monkeypatch):
    static = tmp_path / "static"
    shutil.copytree(vendor.STATIC, static)
    (static / "embed.js").write_bytes((static / "embed.js").read_bytes() + b"\n// edited")
    monkeypatch.setattr(vendor, "STATIC", static)
    with pytest.raises(RuntimeError, match="sha256"):
        vendor.verify()


# --- the book's copy of a notebook ------------------------------------------------------------------------------------


def test_book_notebook_keeps_the_picture_after_the_view_and_leaves_the_original_alone(explorer_notebook):
    nb, ids = explorer_notebook
    nb.cells[0].source += "\n\nsee [solutions](solutions/solutions.ipynb#1.-Masking) and [above](#9.-A-test)"
    before = json.dumps(nb, sort_keys=True)
    out = book_notebook(canonical(nb))
    assert json.dumps(nb, sort_keys=True) == before  # the notebook itself is untouched
    (output,) = out.cells[1].outputs
    assert list(output.data) == ["text/html"]
    page = output.data["text/html"]
    view = re.search(
        r'<script type="application/vnd.jupyter.widget-view\+json">(.*?)</script><div class="ah-fallback"[^>]*>'
        r'<img alt="HeatmapExplorer\(controls: step\)" src="data:image/png;base64,([^"]+)">',
        page,
    )
    assert view and json.loads(view[1])["model_id"] in state_of(out) and view[2] == PNG
    assert "(solutions/solutions.ipynb#1-masking)" in out.cells[0].source
    assert "(#9-a-test)" in out.cells[0].source
    assert out.metadata["widgets"] == canonical(nb).metadata["widgets"]  # the state the page embeds


def test_book_notebook_keeps_a_figures_alt_text():
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("show_heatmaps(...)")
    alt = "heatmap, 1 queries × 2 keys. row 0: 0.25 0.75"
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data", data={"image/png": PNG, "text/plain": "<Figure>"}, metadata={"image/png": {"alt": alt}}
        ),
        nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
    ]
    nb.cells = [cell]
    with_alt, without = book_notebook(nb).cells[0].outputs
    assert with_alt.data == {"text/html": f'<img class="ah-figure" alt="{alt}" src="data:image/png;base64,{PNG}">'}
    assert without.data["image/png"] == PNG  # left to myst-nb


def test_landing_page_is_the_readmes_introduction_and_reading_guide():
    readme = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")
    page = landing_page(readme, ["00_a", "solutions/solutions"])
    assert page.startswith("# Attention, interactively\n") and "## Reading guide" in page
    assert "## Run it yourself" not in page and "](notebooks/" not in page
    assert "(00_what_attention_computes.ipynb)" in page
    assert page.rstrip().endswith("```{toctree}\n:hidden:\n:maxdepth: 1\n\n00_a\nsolutions/solutions\n```")
    assert "](#" not in page  # the README's other sections are not in the book


def test_notebook_without_state_for_its_widgets_is_refused(explorer_notebook, tmp_path, monkeypatch):
    nb, _ = explorer_notebook
    nb.metadata.pop("widgets")
    with pytest.raises(ValueError, match="refresh"):
        book._check_state(nb, tmp_path / "09_test.ipynb")


@pytest.mark.parametrize("path", all_notebooks(), ids=lambda p: p.name)
def test_committed_widget_state_within_page_budget(path):
    nb = nbformat.read(path, as_version=4)
    size = state_size(nb)
    assert size <= STATE_BUDGET, f"{path.relative_to(NOTEBOOKS)}: {size} bytes of widget state, budget {STATE_BUDGET}"


def test_report_marks_pages_over_budget():
    pages = [Page(Path("a.html"), "a", STATE_BUDGET - 1), Page(Path("b.html"), "b", STATE_BUDGET + 1500)]
    lines = report(pages)
    assert "OVER" not in lines[0] and "OVER" not in lines[1] and "OVER BUDGET by 1.5 KB" in lines[2]
