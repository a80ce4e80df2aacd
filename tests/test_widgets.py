"""The explorers, driven without a browser: move a slider, read the weights shown."""

import re

import ipywidgets as widgets
import pytest
import torch

from attention_helpers import (
    HeatmapExplorer,
    current_valid_lens,
    explore_masked_softmax,
    explore_valid_lens,
    masked_softmax,
)


def test_sliders_start_at_the_given_lengths():
    scores = torch.rand(2, 2, 4)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 3]))
    assert [s.value for s in explorer.sliders] == [2, 3]
    assert [s.max for s in explorer.sliders] == [4, 4]
    torch.testing.assert_close(explorer.weights, masked_softmax(scores, torch.tensor([2, 3])))


@pytest.mark.parametrize("new_len", [0, 1, 4])
def test_moving_a_slider_changes_the_weights_shown(new_len):
    scores = torch.rand(2, 3, 4)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 3]))
    svg_before, updates = explorer.svg, explorer.updates
    explorer.sliders[1].value = new_len
    assert explorer.updates == updates + 1
    assert explorer.svg != svg_before
    assert current_valid_lens(explorer).tolist() == [2, new_len]
    assert (explorer.weights[1, :, new_len:] == 0).all()
    torch.testing.assert_close(explorer.weights, masked_softmax(scores, torch.tensor([2, new_len])))


def test_per_query_mode_has_one_slider_per_query():
    scores = torch.rand(2, 2, 4)
    explorer = explore_masked_softmax(scores, torch.tensor([[1, 3], [2, 4]]))
    assert len(explorer.sliders) == 4
    explorer.sliders[1].value = 0  # batch 0, query 1
    assert (explorer.weights[0, 1] == 0).all() and (explorer.weights[0, 0, 0] == 1)
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
    with pytest.raises(TypeError, match="per_query must be True, False or None, got 'yes'"):
        explore_masked_softmax(scores, per_query="yes")


def test_explorer_copies_scores():
    scores = torch.rand(1, 2, 3)
    before = scores.clone()
    explorer = explore_masked_softmax(scores)
    scores += 1
    explorer.sliders[0].value = 1
    torch.testing.assert_close(explorer.weights, masked_softmax(before, torch.tensor([1])))


def test_extra_controls_and_multi_head_weights():
    toggle = widgets.ToggleButtons(options=["a", "b"], value="a")

    def compute(lens, which):
        w = torch.zeros(1, 2, 2, 3)  # (B, H, Q, K)
        w[..., : int(lens[0])] = 1.0 if which == "a" else 0.5
        return w

    explorer = explore_valid_lens(compute, 1, 2, 3, valid_lens=torch.tensor([2]), extra_controls={"which": toggle})
    assert explorer.weights[0, 0, 0].tolist() == [1, 1, 0]
    toggle.value = "b"
    assert explorer.weights[0, 0, 0].tolist() == [0.5, 0.5, 0]
    assert explorer.svg.count('<g class="panel"') == 2 and "head 1" in explorer.svg


def test_row_sliders_switch_prerendered_frames():
    scores = torch.rand(2, 3, 5)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 4]))
    assert [len(r.frames) for r in explorer.regions] == [6, 6]  # lengths 0..5, drawn in advance
    assert all(type(r.link).__name__ == "Link" for r in explorer.regions)  # switched in the browser by jslink
    frames = [f.value for f in explorer.regions[1].frames]
    explorer.sliders[1].value = 1
    assert explorer.regions[1].stack.selected_index == 1
    assert [f.value for f in explorer.regions[1].frames] == frames  # a length change redraws nothing
    assert explorer.svg.startswith(explorer.regions[0].frames[2].value)
    # each frame shows exactly what the kernel computes for that length
    single = explore_masked_softmax(scores[1:], torch.tensor([1]), per_query=False)
    panel = re.compile(r'<g class="panel".*?</g>')
    assert panel.findall(single.regions[0].frames[1].value) == panel.findall(explorer.regions[1].frames[1].value)


def test_other_controls_redraw_the_frames():
    toggle = widgets.ToggleButtons(options=[1.0, 0.5], value=1.0)
    explorer = explore_valid_lens(
        lambda lens, s: masked_softmax(torch.ones(1, 2, 3) * s, lens) * s, 1, 2, 3, extra_controls={"s": toggle}
    )
    before = [f.value for f in explorer.regions[0].frames]
    toggle.value = 0.5
    after = [f.value for f in explorer.regions[0].frames]
    assert len(explorer.render_seconds) == 2 and all(s > 0 for s in explorer.render_seconds)  # at start, and now
    assert after[0] == before[0]  # length 0: all zeros either way
    assert all(a != b for a, b in zip(after[1:], before[1:], strict=True))
    assert explorer.weights.max().item() == pytest.approx(0.5 / 3)


def test_other_controls_redraw_the_frames_on_screen_first():
    toggle = widgets.ToggleButtons(options=[1.0, 0.5], value=1.0)
    explorer = explore_valid_lens(
        lambda lens, s: masked_softmax(torch.ones(2, 2, 3) * s, lens) * s, 2, 2, 3, extra_controls={"s": toggle}
    )
    explorer.sliders[0].value, explorer.sliders[1].value = 2, 1
    order = []
    for region in explorer.regions:
        for position in region.positions:
            region.frames[position].observe(lambda _, r=region.batch, p=position: order.append((r, p)), "value")
    toggle.value = 0.5
    assert order[:2] == [(0, 2), (1, 1)]  # what the reader sees now reaches the browser before the rest
    assert sorted(order) == [(r, p) for r in (0, 1) for p in range(4) if (r, p) not in ((0, 0), (1, 0))]


def test_frames_slider_draws_whole_pictures():
    step = widgets.IntSlider(value=0, min=0, max=3)
    snapshots = torch.stack([torch.eye(3) * (i + 1) / 4 for i in range(4)])  # (4, 3, 3)
    explorer = HeatmapExplorer(lambda step: snapshots[step][None], {"step": step}, frames_slider="step")
    assert len(explorer.regions) == 1 and len(explorer.regions[0].frames) == 4
    step.value = 3
    torch.testing.assert_close(explorer.weights, snapshots[3][None])
    assert explorer.svg.startswith(explorer.regions[0].frames[3].value)
    with pytest.raises(ValueError, match="'nope' must name an IntSlider"):
        HeatmapExplorer(lambda step: snapshots[step][None], {"step": step}, frames_slider="nope")


def test_frames_slider_with_min_and_step_keeps_value_equal_to_stack_index():
    # jslink copies the slider value into the stack's selected_index as it is: frame i must show value i
    with pytest.raises(ValueError, match="'step' starts at 4, which its slider cannot reach"):
        HeatmapExplorer(
            lambda step: torch.ones(1, 2, 2),
            {"step": widgets.IntSlider(4, min=2, max=10, step=4)},
            frames_slider="step",
        )
    step = widgets.IntSlider(value=10, min=2, max=10, step=4)  # values 2, 6, 10
    seen = []

    def compute(step):
        seen.append(step)
        return torch.full((1, 2, 2), step / 10)

    explorer = HeatmapExplorer(compute, {"step": step}, frames_slider="step")
    region = explorer.regions[0]
    assert region.positions == [2, 6, 10] and sorted(set(seen)) == [2, 6, 10]  # only reachable values computed
    assert len(region.stack.children) == 11 and region.stack.selected_index == 10
    drawn = {id(region.frames[i]) for i in region.positions}
    assert len(drawn) == 3 and all(id(region.frames[i]) not in drawn for i in (0, 1, 3, 4, 5, 7, 8, 9))
    step.value = 6
    assert region.stack.selected_index == 6
    assert explorer.svg.startswith(region.frames[6].value) and region.frames[6].value
    torch.testing.assert_close(explorer.weights, torch.full((1, 2, 2), 0.6))
    assert region.frames[6].value != region.frames[10].value
    with pytest.raises(ValueError, match="at most 511"):
        HeatmapExplorer(compute, {"step": widgets.IntSlider(max=600)}, frames_slider="step")
    with pytest.raises(ValueError, match="min >= 0"):
        HeatmapExplorer(compute, {"step": widgets.IntSlider(min=-2, max=2)}, frames_slider="step")


def test_errors_are_shown_and_recorded():
    slider = widgets.IntSlider(value=1, min=0, max=2)

    def compute(n):
        if n == 2:
            raise ValueError("n must be < 2")
        return torch.full((1, 1, 2), 0.5)

    explorer = HeatmapExplorer(compute, {"n": slider})
    assert explorer.last_error is None
    slider.value = 2
    assert isinstance(explorer.last_error, ValueError)
    assert "n must be &lt; 2" in explorer.svg
    slider.value = 0
    assert explorer.last_error is None and "<svg" in explorer.svg


def test_mimebundle_has_widget_png_and_stable_text():
    explorer = explore_masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3]))
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["image/png"].startswith("iVBORw0KGgo")  # base64 of the PNG signature
    assert (
        bundle["text/plain"] == "HeatmapExplorer(controls: valid_lens[0], valid_lens[1]); run the notebook to move them"
    )


def test_bad_arguments():
    with pytest.raises(ValueError, match="scores must be a tensor of shape"):
        explore_masked_softmax(torch.rand(2, 4))
    with pytest.raises(ValueError, match="valid_lens must be <="):
        explore_masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 5]))
    with pytest.raises(ValueError, match="num_keys must be a positive int"):
        explore_valid_lens(lambda lens: lens, 1, 1, 0)
    with pytest.raises(TypeError, match="compute must be a function"):
        HeatmapExplorer("not callable", {})


def test_kernel_side_update_is_cheap():
    # Not a timing assertion (those live in the benchmark): the redraw must not go through matplotlib.
    import matplotlib.pyplot as plt

    explorer = explore_masked_softmax(torch.rand(2, 4, 8), torch.tensor([3, 8]))
    figures = plt.get_fignums()
    for value in range(9):
        explorer.sliders[0].value = value
    assert plt.get_fignums() == figures
    assert explorer.updates == 1 + 9  # the initial draw, then one per change of value


@pytest.mark.parametrize("per_query", [False, True])
def test_expected_svgs_match_the_frames_shown(per_query):
    # what the browser test compares the screen with: it must be the selected frame of each region
    scores = torch.rand(2, 3, 5)
    explorer = explore_masked_softmax(scores, torch.tensor([2, 4]), per_query=per_query)
    for slider, value in zip(explorer.sliders, [5, 0, 3], strict=False):
        slider.value = value
        expected = explorer.expected_svgs()
        if explorer.regions:
            assert expected == {str(r.batch): r.frames[r.slider.value].value for r in explorer.regions}
        else:
            assert expected == {"kernel": explorer.view.value}
    assert len({c for c in explorer.widget._dom_classes if re.fullmatch(r"ah-explorer-\d+", c)}) == 1
    step = widgets.IntSlider(value=2, min=0, max=3)
    whole = HeatmapExplorer(lambda step: scores[:, :, : step + 1], {"step": step}, frames_slider="step")
    step.value = 1
    assert whole.expected_svgs() == {"all": whole.regions[0].frames[1].value}
    # a stale frame is told apart: the picture for another position differs
    assert whole.expected_svgs()["all"] != whole.regions[0].frames[2].value


def test_a_slider_moved_in_the_browser_leaves_its_frame_to_jslink():
    # A browser drag sends slider value and stack index (jslink) in turn. Had the kernel also set the index, it would
    # send the browser stale indices mid-drag and the two-way link would pull the slider back to them.
    explorer = explore_masked_softmax(torch.rand(2, 2, 5), torch.tensor([2, 3]))
    slider, stack = explorer.sliders[0], explorer.regions[0].stack
    to_browser = []
    stack._send = lambda msg, buffers=None: to_browser.append(msg)  # what the kernel sends the stack's browser side
    for value in (5, 0, 4):
        slider.set_state({"value": value})  # what a message from the browser does
        stack.set_state({"selected_index": value})  # and jslink's
    assert [m["method"] for m in to_browser] == ["echo_update"] * 3  # acknowledgements only, no index of its own
    assert stack.selected_index == 4 and current_valid_lens(explorer).tolist() == [4, 3]
    assert (explorer.weights[0, :, 4:] == 0).all() and (explorer.weights[0, :, :4] > 0).all()
    slider.value = 1  # moved by code in the kernel: the kernel moves the frame too, and tells the browser
    assert stack.selected_index == 1 and to_browser[-1] == {
        "method": "update",
        "state": {"selected_index": 1},
        "buffer_paths": [],
    }
