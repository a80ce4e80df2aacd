"""The heatmap explorers, driven without a browser: move a control, read the weights and the picture shown."""

import gc
import re
import weakref

import ipywidgets as widgets
import numpy as np
import pytest
import torch

from attention_helpers import (
    HeatmapExplorer,
    current_valid_lens,
    explore_masked_softmax,
    explore_valid_lens,
    masked_softmax,
)
from attention_helpers.explore import Explorer, instrument, valid_lens_sliders
from attention_helpers.explore.view import scalable
from attention_helpers.plotting import SVG_MASKED, heatmap_cell_colours

PANEL = re.compile(r'<g class="panel"[^>]*>(.*?)</g>')


def fills(svg):
    """Cell colours of every panel in an SVG, panel by panel, row-major."""
    return heatmap_cell_colours(svg)


def links_from(explorer, control):
    return [w for w in explorer._made if isinstance(w, widgets.widget_link.DirectionalLink) and w.source[0] is control]


def css_classes(widget):
    """The CSS classes the browser gets for widget: its synced state (ipywidgets has add_class but no public reader)."""
    return set(widget.get_state()["_dom_classes"])


def region_svg(explorer, key):
    region = next(r for r in explorer.model.regions if r.key == key)
    return explorer._shown(region)[0]


def test_sliders_start_at_the_given_lengths():
    scores = torch.rand(2, 2, 4)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 3]))
    assert [s.value for s in explorer.sliders] == [2, 3]
    assert [s.max for s in explorer.sliders] == [4, 4]
    torch.testing.assert_close(explorer.weights, masked_softmax(scores, torch.tensor([2, 3])))
    assert current_valid_lens(explorer).tolist() == [2, 3] and explorer.valid_lens_shape == (2,)


@pytest.mark.parametrize("new_len", [0, 1, 4])
def test_moving_a_slider_shows_its_frame_with_masked_keys_grey(new_len):
    scores = torch.rand(2, 3, 4)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 3]))
    svg_before = explorer.svg
    explorer.sliders[1].value = new_len
    assert explorer.svg != svg_before
    assert current_valid_lens(explorer).tolist() == [2, new_len]
    torch.testing.assert_close(explorer.weights, masked_softmax(scores, torch.tensor([2, new_len])))
    (cells,) = fills(region_svg(explorer, "1"))
    grid = np.array(cells).reshape(3, 4)  # (Q, K)
    assert (grid[:, new_len:] == SVG_MASKED).all() and (grid[:, :new_len] != SVG_MASKED).all()
    numbers = re.findall(r">(\d\.\d\d)</text>", region_svg(explorer, "1"))
    assert len(numbers) == 3 * new_len  # no number on a masked cell


def test_every_length_is_drawn_in_advance_per_row():
    scores = torch.rand(2, 3, 5)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 4]))
    assert explorer.model.count == 2 * 6  # lengths 0..5, for each row apart
    for b, slider in enumerate(explorer.sliders):
        (link,) = links_from(explorer, slider)  # one stack per row, switched in the browser by the slider's value
        assert link.source[1] == "value" and link.target[1] == "selected_index"
        stack = link.target[0]
        assert len(stack.children) == 6 and stack.selected_index == [2, 4][b]
        assert {f"ah-region-{b}", "ah-view"} <= css_classes(stack.children[5])
    # each frame shows exactly what compute gives for that length
    single = explore_masked_softmax(scores[1:], torch.tensor([1]))
    explorer.sliders[1].value = 1
    assert fills(region_svg(single, "0")) == fills(region_svg(explorer, "1"))
    assert 'fill="currentColor"' in explorer.svg and "sequence 1" in explorer.svg


def test_toggles_and_drop_downs_are_drawn_in_advance_too():
    calls = []
    raw = {d: torch.randn(2, 4, 8, generator=torch.Generator().manual_seed(d)) for d in (4, 16, 64, 256)}

    def compute(valid_lens, scaling, d):
        calls.append((valid_lens.tolist(), scaling, d))
        return masked_softmax(raw[d] / (d**0.5 if scaling == "scaled" else 1.0), valid_lens)

    scaling = widgets.ToggleButtons(options=["scaled", "unscaled"])
    d = widgets.Dropdown(options=[4, 16, 64, 256], value=16)
    explorer = explore_valid_lens(
        compute, 2, 4, 8, valid_lens=torch.tensor([5, 8]), extra_controls={"scaling": scaling, "d": d}
    )
    assert explorer.model.count == 2 * 9 * 2 * 4  # rows x lengths x scaling x d
    assert len(links_from(explorer, scaling)) == 2 and len(links_from(explorer, d)) == 2 * 2  # outermost first
    assert all(link.source[1] == "index" for link in links_from(explorer, d))
    calls.clear()
    scaling.value, d.value = "unscaled", 256
    assert calls == []  # nothing redrawn in the kernel
    expected = masked_softmax(raw[256], torch.tensor([5, 8]))
    torch.testing.assert_close(explorer.weights, expected)
    fresh = explore_valid_lens(
        compute,
        2,
        4,
        8,
        valid_lens=torch.tensor([5, 8]),
        extra_controls={"scaling": widgets.ToggleButtons(options=["unscaled"]), "d": widgets.Dropdown(options=[256])},
    )
    assert fills(explorer.svg) == fills(fresh.svg)


def test_multi_head_weights_one_region_per_row_with_row_labels():
    head = widgets.Dropdown(options=[("head 0", 0), ("all heads", "all")], value="all")

    def compute(valid_lens, head):
        w = masked_softmax(torch.ones(2 * 2, 2, 3), valid_lens.repeat_interleave(2)).reshape(2, 2, 2, 3)  # (B, H, Q, K)
        return w if head == "all" else w[:, head]

    explorer = explore_valid_lens(compute, 2, 2, 3, valid_lens=torch.tensor([2, 3]), extra_controls={"head": head})
    assert explorer.svg.count('<g class="panel"') == 4 and "head 1" in explorer.svg
    assert 'class="rowlabel">sequence 0</text>' in explorer.svg and 'class="rowlabel">sequence 1</text>' in explorer.svg
    assert isinstance(explorer.picture.children[0], widgets.VBox)  # rows of heads, one under another
    head.value = 0
    assert explorer.svg.count('<g class="panel"') == 2 and "sequence 1" in explorer.svg
    assert explorer.weights.shape == (2, 2, 3)
    (cells,) = fills(region_svg(explorer, "0"))
    assert cells.count(SVG_MASKED) == 2  # key 2 of both queries, past row 0's length 2


def test_frames_slider_draws_whole_pictures():
    step = widgets.IntSlider(value=0, min=0, max=3)
    snapshots = torch.stack([torch.eye(3) * (i + 1) / 4 for i in range(4)])  # (4, 3, 3)
    explorer = HeatmapExplorer(lambda step: snapshots[step][None], {"step": step}, frames_slider="step")
    assert [r.key for r in explorer.model.regions] == ["all"] and explorer.model.count == 4
    step.value = 3
    torch.testing.assert_close(explorer.weights, snapshots[3][None])
    assert explorer.svg == explorer.model.frames["all"][(3,)][0]
    with pytest.raises(
        ValueError, match="frames_slider must name an IntSlider with min >= 0 among the controls, got 'nope'"
    ):
        HeatmapExplorer(lambda step: snapshots[step][None], {"step": step}, frames_slider="nope")


def test_slider_with_min_and_step_keeps_value_equal_to_stack_index():
    with pytest.raises(ValueError, match="'step' starts at 4, which its slider cannot reach"):
        HeatmapExplorer(lambda step: torch.ones(1, 2, 2), {"step": widgets.IntSlider(4, min=2, max=10, step=4)})
    step = widgets.IntSlider(value=9, min=1, max=9, step=2)  # values 1, 3, 5, 7, 9: 10 children, indexed by value
    seen = []

    def compute(step):
        seen.append(step)
        return torch.full((1, 2, 2), step / 10)

    explorer = HeatmapExplorer(compute, {"step": step}, frames_slider="step")
    assert sorted(set(seen)) == [1, 3, 5, 7, 9]  # only reachable values computed
    (link,) = links_from(explorer, step)
    stack = link.target[0]
    assert len(stack.children) == 10 and stack.selected_index == 9
    step.value = 5
    torch.testing.assert_close(explorer.weights, torch.full((1, 2, 2), 0.5))
    assert scalable(explorer.svg) == stack.children[5].value and stack.children[5].value != stack.children[9].value
    with pytest.raises(ValueError, match="min >= 0"):
        HeatmapExplorer(compute, {"step": widgets.IntSlider(min=-2, max=2)}, frames_slider="step")


def test_frame_budget():
    with pytest.raises(
        ValueError,
        match=r"make 1010 pictures .*\(t \(5\) x valid_lens\[0\] \(101\) \+ .*max_frames=1000.*kernel_controls",
    ):
        explore_valid_lens(
            lambda lens, t: masked_softmax(torch.ones(2, 1, 100), lens),
            2,
            1,
            100,
            extra_controls={"t": widgets.Dropdown(options=range(5))},
            max_frames=1000,
        )


def test_errors_are_shown_in_their_frame_and_recorded():
    slider = widgets.IntSlider(value=1, min=0, max=2)

    def compute(n):
        if n == 2:
            raise ValueError("n must be < 2")
        return torch.full((1, 1, 2), 0.5)

    explorer = HeatmapExplorer(compute, {"n": slider})
    assert isinstance(explorer.last_error, ValueError)  # met while drawing in advance
    assert "<svg" in explorer.svg
    slider.value = 2
    assert "n must be &lt; 2" in explorer.svg and explorer.weights is None
    slider.value = 0
    assert "<svg" in explorer.svg and explorer.weights is not None


def test_one_failing_row_does_not_blank_the_others():
    def compute(valid_lens):
        if valid_lens[0] == 1:
            raise RuntimeError("length 1 is broken")
        return masked_softmax(torch.ones(2, 2, 3), valid_lens)

    explorer = explore_valid_lens(compute, 2, 2, 3, valid_lens=torch.tensor([2, 3]))
    assert isinstance(explorer.last_error, RuntimeError)
    frames = explorer.model.frames
    assert all("length 1 is broken" in frames[key][(1,)][0] for key in ("0", "1"))
    assert all(frames[key][(p,)][0].startswith("<svg") for key in ("0", "1") for p in (0, 2, 3))


def test_per_query_mode_is_kernel_driven_and_disabled_without_a_kernel():
    scores = torch.rand(2, 2, 4)
    explorer = explore_masked_softmax(scores, torch.tensor([[1, 3], [2, 4]]))
    assert len(explorer.sliders) == 4 and explorer.kernel_controls == list(explorer.controls)
    assert all(s.disabled for s in explorer.sliders) and explorer.note is not None
    assert "valid_lens[0, 0], valid_lens[0, 1] and 2 more: move only with a running kernel" in explorer.note.note.value
    explorer.sliders[1].value = 0  # batch 0, query 1: the kernel redraws
    assert (explorer.weights[0, 1] == 0).all() and (explorer.weights[0, 0, 0] == 1)
    (cells,) = fills(explorer.svg)[:1]
    assert cells[4:8] == [SVG_MASKED] * 4  # the whole of query 1 in sequence 0 is masked
    explorer.note.note.set_state({"placeholder": explorer.note.MARK})  # a live page answered
    assert not any(s.disabled for s in explorer.sliders)
    explorer2 = explore_masked_softmax(scores, per_query=True)
    assert len(explorer2.sliders) == 4 and all(s.value == 4 for s in explorer2.sliders)


def test_per_query_with_one_length_per_row_starts_every_query_there():
    scores = torch.rand(2, 3, 5)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 4]), per_query=True)
    assert current_valid_lens(explorer).tolist() == [[2, 2, 2], [4, 4, 4]]
    explorer.controls["valid_lens[1, 2]"].value = 1
    torch.testing.assert_close(explorer.weights, masked_softmax(scores, torch.tensor([[2, 2, 2], [4, 4, 1]])))
    assert len(explore_masked_softmax(scores, torch.tensor([[1, 2, 3], [4, 5, 5]])).sliders) == 6  # 2-D: per query
    with pytest.raises(ValueError, match=r"per_query=False needs one length per batch row, shape \(2,\)"):
        explore_masked_softmax(scores, torch.ones(2, 3, dtype=torch.long), per_query=False)
    with pytest.raises(TypeError, match="per_query must be True or False, got str 'yes'"):
        explore_masked_softmax(scores, per_query="yes")


def test_explorer_copies_scores():
    scores = torch.rand(1, 2, 3)
    before = scores.clone()
    explorer = explore_masked_softmax(scores)
    scores += 1
    explorer.sliders[0].value = 1
    torch.testing.assert_close(explorer.weights, masked_softmax(before, torch.tensor([1])))


def test_nan_weights_are_drawn_masked():
    weights = torch.tensor([[[0.5, float("nan")], [1.0, 0.0]]])  # (1, Q=2, K=2)
    explorer = HeatmapExplorer(lambda n: weights, {"n": widgets.IntSlider(0, max=1)})
    (cells,) = fills(explorer.svg)
    assert cells[1] == SVG_MASKED and cells[3] != SVG_MASKED  # NaN grey, a true 0 keeps its colour


def test_default_titles_say_sequence():
    explorer = explore_masked_softmax(torch.rand(2, 2, 3))
    assert "sequence 0" in region_svg(explorer, "0") and "batch" not in explorer.svg
    titled = explore_masked_softmax(torch.rand(2, 2, 3), titles=["sentence 0", "sentence 1"])
    assert "sentence 1" in region_svg(titled, "1")


def test_mimebundle_has_widget_png_and_stable_text():
    explorer = explore_masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/png"].startswith("iVBORw0KGgo")  # base64 of the PNG signature
    assert (
        bundle["text/plain"] == "HeatmapExplorer(controls: valid_lens[0], valid_lens[1]); run the notebook to move them"
    )


def test_the_fallback_png_has_a_text_alternative_with_every_weight_shown():
    scores = torch.tensor([[[0.0, 1.0, 2.0, 3.0]], [[1.0, 1.0, 1.0, 1.0]]])  # (B=2, Q=1, K=4)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 3]))
    html = explorer._repr_mimebundle_()["text/html"]
    assert html.startswith('<img alt="') and "data:image/png;base64,iVBORw0KGgo" in html
    # each row's weights, masked keys named: sequence 0 keeps keys 0-1, sequence 1 keys 0-2
    assert "row 0: 0.27 0.73 masked masked" in html and "row 0: 0.33 0.33 0.33 masked" in html
    assert "masked masked. heatmap" in html  # one region's label ends where the next begins
    explorer.controls["valid_lens[0]"].value = 4  # it follows the controls, as the PNG does
    assert "row 0: 0.03 0.09 0.24 0.64" in explorer._repr_mimebundle_()["text/html"]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: explore_masked_softmax(torch.rand(2, 4)), ValueError, r"scores must be 3-D \(B, Q, K\)"),
        (
            lambda: explore_masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 5])),
            ValueError,
            r"in \[0, num_keys=4\]",
        ),
        (lambda: explore_valid_lens(lambda lens: lens, 1, 1, 0), ValueError, "num_keys must be >= 1"),
        (
            lambda: explore_valid_lens(lambda lens: lens, True, 1, 3),
            TypeError,
            "batch_size must be an int >= 1, got bool True",
        ),
        (lambda: explore_valid_lens(None, 2, 2, 3), TypeError, "compute must be a function"),
        (
            lambda: explore_valid_lens(lambda lens: torch.ones(2, 2, 3), 2, 2, 3, titles=["only one"]),
            ValueError,
            r"titles must have one title per batch row \(B\): 2, got 1",
        ),
        (lambda: explore_valid_lens(lambda lens: lens, 2, 2, 3, valid_lens=[9, 2]), ValueError, r"\[0, num_keys=3\]"),
        (lambda: explore_valid_lens(lambda lens: lens, 2, 2, 3, valid_lens=[-1, 2]), ValueError, r"\[0, num_keys=3\]"),
        (lambda: explore_valid_lens(lambda lens: lens, 2, 2, 3, valid_lens=[1.5, 2.0]), ValueError, "whole numbers"),
        (lambda: explore_valid_lens(lambda lens: lens, 2, 2, 3, valid_lens=[7]), ValueError, r"shape \(2,\)"),
        (
            lambda: explore_valid_lens(lambda lens: lens, 1, 2, 3, extra_controls={"x": 5}),
            TypeError,
            r"extra_controls\['x'\] must be an ipywidgets value widget",
        ),
        (lambda: HeatmapExplorer(lambda: torch.ones(1, 1, 1), None), TypeError, "controls must be a dict"),
        (lambda: HeatmapExplorer("not callable", {}), TypeError, "compute must be a function"),
        (lambda: HeatmapExplorer(lambda: torch.ones(2, 2), {}), ValueError, r"\(B, Q, K\) or \(B, H, Q, K\)"),
        (lambda: HeatmapExplorer(lambda: [[[1.0]]], {}), TypeError, "must return a tensor of weights"),
        (lambda: HeatmapExplorer(lambda: torch.ones(1, 1, 1), {}, xlabel=None), TypeError, "xlabel must be a str"),
        (lambda: HeatmapExplorer(lambda: torch.ones(1, 1, 1), {}, colour="red"), TypeError, "unexpected keyword"),
        (lambda: HeatmapExplorer(lambda: torch.ones(1, 1, 1), {}, cmap="nope"), ValueError, "cmap must be"),
        (lambda: current_valid_lens(None), TypeError, "explorer must be what explore_valid_lens"),
        (lambda: valid_lens_sliders(2, 2, 3, valid_lens=[True, False]), ValueError, "whole numbers"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_rows_wrap_and_sliders_keep_a_usable_width():
    explorer = explore_masked_softmax(torch.rand(2, 2, 3))
    assert explorer.picture.layout.flex_flow == "row wrap"
    rows = explorer.controls_box.children
    assert all(row.layout.flex_flow == "row wrap" for row in rows)
    # description + readout take about 100 px + 7.5 px per character (measured in Chromium): the track keeps 200 px
    assert all(int(s.layout.width.removesuffix("px")) >= 300 + 7.5 * len(s.description) for s in explorer.sliders)
    assert all(s.layout.max_width == "100%" for s in explorer.sliders)  # a narrow window may shrink it (view.STYLE)
    assert all(s.style.description_width == "initial" for s in explorer.sliders)


def test_instrumented_explorers_expose_expected_svgs():
    scores = torch.rand(2, 3, 5)
    plain = explore_masked_softmax(scores, torch.tensor([2, 4]))
    assert not hasattr(plain, "render_seconds") and all(r() is not plain for r in Explorer.instances)
    instrument(True)
    try:
        explorer = explore_masked_softmax(scores, torch.tensor([2, 4]))
        whole = HeatmapExplorer(lambda step: scores[:, :, : step + 1], {"step": widgets.IntSlider(2, max=3)})
    finally:
        instrument(False)
    drawn = list(explorer.render_seconds)
    assert drawn and all(isinstance(s, float) and s >= 0 for s in drawn)  # the drawing in advance was timed
    assert HeatmapExplorer.instances is Explorer.instances and any(r() is explorer for r in Explorer.instances)
    for slider, value in zip(explorer.sliders, [5, 0], strict=True):
        slider.value = value
        assert explorer.expected_svgs() == {r.key: scalable(explorer._shown(r)[0]) for r in explorer.model.regions}
    assert len({c for c in css_classes(explorer.widget) if re.fullmatch(r"ah-explorer-\d+", c)}) == 1
    whole.controls["step"].value = 1
    assert whole.expected_svgs() == {"all": scalable(whole.model.frames["all"][(1,)][0])}
    assert whole.expected_svgs()["all"] != scalable(whole.model.frames["all"][(2,)][0])  # a stale frame is told apart
    assert explorer.render_seconds == drawn  # sliders drawn in advance: moving them redraws nothing in the kernel
    assert explorer.weights is not None
    timed = list(explorer.update_seconds)
    assert timed and all(s >= 0 for s in timed)  # the weights read for these values were computed, and timed
    assert explorer.weights is not None and explorer.update_seconds == timed  # same values: not computed again
    explorer.sliders[0].value = 3
    assert explorer.weights is not None and len(explorer.update_seconds) > len(timed)  # new values: computed, timed


def test_the_kernel_never_sets_a_stack_index_after_a_browser_move():
    # A browser move sends the slider's value, and jsdlink the stack's index; the kernel must not answer with an
    # index of its own (mid-drag it would be stale): the slider's new value alone changes no stack's index.
    explorer = explore_masked_softmax(torch.rand(2, 2, 5), torch.tensor([2, 3]))
    slider = explorer.sliders[0]
    (link,) = links_from(explorer, slider)
    stack = link.target[0]
    changed = []
    pending = [explorer.widget]
    while pending:  # every stack of the explorer, whichever control it follows
        widget = pending.pop()
        pending.extend(getattr(widget, "children", ()))
        if isinstance(widget, widgets.Stack):
            widget.observe(lambda change: changed.append((change["owner"], change["new"])), names="selected_index")
    for value in (5, 0, 4):
        slider.set_state({"value": value})  # what a message from the browser does
        assert changed == [], "the kernel set a stack's index itself"
        stack.set_state({"selected_index": value})  # and jsdlink's
        assert changed == [(stack, value)]
        changed.clear()
    assert current_valid_lens(explorer).tolist() == [4, 3] and scalable(explorer.svg).startswith(
        stack.children[4].value
    )


def test_close_and_garbage_collection():
    scores = torch.rand(2, 2, 3)
    refs = []
    for _ in range(3):
        explorer = explore_masked_softmax(scores, torch.tensor([1, 2]))
        refs.append(weakref.ref(explorer))
        per_query = explore_masked_softmax(scores, per_query=True)
        refs.append(weakref.ref(per_query))
    del explorer, per_query
    gc.collect()
    assert all(ref() is None for ref in refs)
    explorer = explore_masked_softmax(scores, per_query=True)
    made = list(explorer._made)
    explorer.close()
    assert all(w.comm is None for w in made)
    explorer.sliders[0].value = 1  # no longer observed: nothing redrawn, nothing raised


def test_kernel_side_never_touches_matplotlib_when_a_slider_moves():
    import matplotlib.pyplot as plt

    explorer = explore_masked_softmax(torch.rand(2, 4, 8), torch.tensor([3, 8]))
    figures = plt.get_fignums()
    for value in range(9):
        explorer.sliders[0].value = value
        assert explorer.svg
    assert plt.get_fignums() == figures
