"""The static site and the widget state behind it: pages embed the state and keep each explorer's picture as its
fallback, load nothing from outside, typeset math as MathML; stored state is pruned, without defaults and under
content-hash ids (refreshing twice writes the same bytes); the vendored widget manager matches its record; the
save hook keeps displayed widgets' state. Browser checks of the built site: tests/test_static_site.py."""

from __future__ import annotations

import base64
import copy
import json
import re
import uuid
from pathlib import Path

import ipywidgets as widgets
import nbformat
import pytest

from attention_helpers import save_hook
from attention_helpers.refresh import LANGUAGE_INFO, NOTEBOOKS, all_notebooks, merge_streams, strip
from attention_helpers.site import (
    ASSET_BUDGET,
    STATE_BUDGET,
    Page,
    copy_assets,
    render,
    report,
    static_notebook,
    vendor,
)
from attention_helpers.site.mathml import MATH, tex_to_mathml, typeset
from attention_helpers.widget_state import (
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


# --- the vendored widget manager ----------------------------------------------------------------------------------


def test_vendored_embed_js_matches_its_record():
    record = vendor.record()
    assert record["package"] == "@jupyter-widgets/html-manager" and record["version"] == vendor.VERSION == "1.0.15"
    assert record["sha256"] == vendor.sha256(vendor.SCRIPT) and record["bytes"] == vendor.SCRIPT.stat().st_size
    vendor.verify()
    assert "python -m attention_helpers.site.vendor" in record["command"]


def test_a_changed_embed_js_is_refused(tmp_path, monkeypatch):
    copy_ = tmp_path / "embed.js"
    copy_.write_bytes(vendor.SCRIPT.read_bytes() + b"\n// edited")
    monkeypatch.setattr(vendor, "SCRIPT", copy_)
    with pytest.raises(RuntimeError, match="sha256"):
        vendor.verify()


def test_shared_assets_within_budget(tmp_path):
    total = copy_assets(tmp_path)
    assert sorted(p.name for p in (tmp_path / "static").iterdir()) == ["embed.js", "embed.js.LICENSE.txt", "lab.css"]
    assert total == sum(p.stat().st_size for p in (tmp_path / "static").iterdir()) <= ASSET_BUDGET


# --- pages ----------------------------------------------------------------------------------------------------------


def test_page_embeds_state_keeps_the_picture_and_loads_nothing_from_outside(explorer_notebook, tmp_path):
    nb, _ = explorer_notebook
    src = tmp_path / "notebooks"
    (src / "solutions").mkdir(parents=True)
    nbformat.write(canonical(nb), src / "09_test.ipynb")
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Solutions")]), src / "solutions" / "s.ipynb"
    )
    index, page, solutions = render(tmp_path / "site", [src / "09_test.ipynb", src / "solutions" / "s.ipynb"], src)
    text = page.path.read_text()
    assert page.state_bytes == state_size(canonical(nb)) > 0 and solutions.state_bytes == 0
    state = json.loads(
        re.search(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>', text, re.S)[1]
    )
    assert state == json.loads(json.dumps(canonical(nb).metadata["widgets"][STATE_MIME]))
    view = re.search(
        r'<script type="application/vnd.jupyter.widget-view\+json">(.*?)</script>\s*<div[^>]*class="ah-fallback"[^>]*>\s*<img[^>]*src="data:image/png;base64,([^"]+)"',
        text,
        re.S,
    )
    assert view and json.loads(view[1])["model_id"] in state["state"] and view[2] == PNG  # picture after the view
    assert ".widget-subarea:not(:empty) ~ .ah-fallback { display: none; }" in text
    sources = re.findall(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="([^"]+)"', text)
    assert sources and all(not re.match(r"[a-z]+:", s) or s.startswith("data:") for s in sources), sources
    assert 'src="static/embed.js"' in text and 'href="static/lab.css"' in text
    assert 'href="../static/lab.css"' in solutions.path.read_text()
    assert re.findall(r"<script[^>]*\bsrc=\"([^\"]+)\"", text) == ["static/embed.js"]  # no require.js, MathJax, CDN
    assert "mathjax" not in text.lower() and "cdn." not in text.lower()
    assert "<math" in text and not MATH.search(re.sub(r"<[^>]+>", "", text.split("<body", 1)[1]))
    listed = re.findall(r'href="([^"]+)"', index.path.read_text())
    assert listed == ["09_test.html", "solutions/s.html"] and "no install" in index.path.read_text()


def test_page_without_state_for_its_widgets_is_refused(explorer_notebook, tmp_path):
    nb, _ = explorer_notebook
    nb.metadata.pop("widgets")
    nbformat.write(nb, tmp_path / "09_test.ipynb")
    with pytest.raises(ValueError, match="refresh"):
        render(tmp_path / "site", [tmp_path / "09_test.ipynb"], tmp_path)


def test_static_notebook_rewrites_links_and_math_and_leaves_original_alone():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "see [solutions](solutions/solutions.ipynb#1.-Masking), [next](02_additive_attention.ipynb), "
            "[pytorch](https://pytorch.org/docs/stable/index.html); $\\sqrt{d}$"
        )
    ]
    out = static_notebook(nb)
    assert "(solutions/solutions.html#1.-Masking)" in out.cells[0].source
    assert "(02_additive_attention.html)" in out.cells[0].source
    assert "(https://pytorch.org/docs/stable/index.html)" in out.cells[0].source
    assert "<msqrt>" in out.cells[0].source and "$" not in out.cells[0].source
    assert "ipynb" in nb.cells[0].source and "$" in nb.cells[0].source


@pytest.mark.parametrize("path", all_notebooks(), ids=lambda p: p.name)
def test_committed_widget_state_within_page_budget(path):
    nb = nbformat.read(path, as_version=4)
    size = state_size(nb)
    assert size <= STATE_BUDGET, f"{path.relative_to(NOTEBOOKS)}: {size} bytes of widget state, budget {STATE_BUDGET}"


def test_report_marks_pages_over_budget():
    pages = [Page(Path("index.html"), "i", ASSET_BUDGET - 1), Page(Path("a.html"), "a", STATE_BUDGET + 1500)]
    lines = report(pages)
    assert "OVER" not in lines[0] and "OVER BUDGET by 1.5 KB" in lines[1]


# --- math -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "formulas"),
    [
        ("the weights $w_i$ and $$\\sum_i w_i = 1$$", 2),
        ("costs $5 and $10 a day", 0),  # prices are not formulas
        ("`$x$` in code and\n```\n$y$\n```\n", 0),  # code is left alone
        ("an escaped \\$ sign and $x$", 1),
        ("$$\nP_{i, 2j} = \\sin\\left(\\frac{i}{10000^{2j/d}}\\right)\n$$", 1),
    ],
)
def test_typeset_turns_formulas_outside_code_into_mathml(markdown, formulas):
    out = typeset(markdown)
    assert out.count("<math") == formulas
    if formulas:
        assert not MATH.search(out)  # no formula left for a script to typeset
    else:
        assert out == markdown


def test_mathml_uses_unicode_letters_for_bold_and_blackboard():
    markup = tex_to_mathml(r"\mathbf W_q \in \mathbb R^{h}, \mathbf 2")
    assert "𝐖" in markup and "ℝ" in markup and "𝟐" in markup and "mathvariant" not in markup
    assert 'alttext="\\mathbf W_q \\in \\mathbb R^{h}, \\mathbf 2"' in markup


@pytest.mark.parametrize(("tex", "why"), [("x^", "x\\^"), (r"\notacommand x", r"unknown \\notacommand")])
def test_bad_tex_is_reported_with_the_formula(tex, why):
    with pytest.raises(ValueError, match=why):
        tex_to_mathml(tex)
