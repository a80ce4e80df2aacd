"""Bad input to every public function and class outside the core modules: a clear TypeError (wrong type) or
ValueError (wrong value or shape) whose message names the argument, never a raw error from deep inside torch,
ipywidgets or numpy, never a silently wrong answer (issue 17).

`COVERED` lists the names this file covers, "module.name" as `tests/test_contract.py` spells them; the contract
test checks that, with the other tests/test_bad_input*.py files, they cover every public name.
"""

from __future__ import annotations

import datetime
import math
import random
from collections.abc import Callable

import ipywidgets as widgets
import numpy as np
import pytest
import torch

from attention_helpers import layers, masking
from attention_helpers.explore import base, controls, heatmap, model, picture, pictures, svg, valid_lens, view
from attention_helpers.explore import instrument as instrument_function
from attention_helpers.explore.instrument import enabled
from attention_helpers.lessons import (
    cost,
    dates,
    dates_train,
    efficient,
    fill_values,
    generation,
    induction,
    kernel_regression,
    landscape,
    optim,
    saturation,
)

NAN, INF = math.nan, math.inf
CASES: list[tuple[str, str, Callable[[], object], type[Exception], str]] = []


def case(name: str, label: str, call: Callable[[], object], error: type[Exception], match: str) -> None:
    """`call()` must raise `error` with a message matching `match` (which names the argument)."""
    CASES.append((name, label, call, error, match))


def t(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.rand(*shape, generator=torch.Generator().manual_seed(0)).to(dtype)


def lens(*values: int) -> torch.Tensor:
    return torch.tensor(values)


def meta(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.empty(*shape, dtype=dtype, device="meta")


def slider(value: int = 1, top: int = 2) -> widgets.IntSlider:
    return widgets.IntSlider(value=value, min=0, max=top)


def circle(n: int = 0) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle r="{n}"/></svg>'


def weights_of(n: int = 1) -> torch.Tensor:
    return masking.masked_softmax(t(2, 2, 3), lens(n, 3))


def axis() -> controls.Axis:
    return controls.Axis("n", slider())


def region() -> model.Region:
    return model.Region("all", [axis()], lambda values: (circle(), ""))


def data() -> induction.InductionData:
    return induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3)


def partial() -> efficient.Partial:
    return efficient.partial_softmax(t(3, 2), t(2, 4))


def a_sweep() -> cost.Sweep:
    return cost.Sweep([2, 4, 8], "s", {"a": [1.0, 2.0, 4.0]})


def aot() -> induction.AttentionOnlyTransformer:
    return induction.AttentionOnlyTransformer(3, 4, 4, 2, 1)


def kv() -> generation.KVCache:
    return generation.KVCache(1, 2, 4, 3)


def layer() -> generation.CausalSelfAttention:
    return generation.CausalSelfAttention(8, 4, 2)


def outcome() -> fill_values.FillOutcome:
    return fill_values.fill_outcome(t(2, 1, 3), lens(2, 0), "float32", "-inf", False)


# fmt: off
# --- explorers ---------------------------------------------------------------------------------------------------
E = "explore."
case(E + "base.Explorer", "controls None", lambda: base.Explorer(None), TypeError, "controls must be a dict")
case(E + "base.Explorer", "max_frames bool", lambda: base.Explorer({"n": slider()}, max_frames=True), TypeError, "max_frames")
case(E + "base.Explorer", "max_frames 0", lambda: base.Explorer({"n": slider()}, max_frames=0), ValueError, "max_frames")
case(E + "base.Explorer", "kernel_controls str", lambda: base.Explorer({"n": slider()}, kernel_controls="n"), TypeError, "kernel_controls must be a list")
case(E + "base.Explorer", "kernel_controls unknown", lambda: base.Explorer({"n": slider()}, kernel_controls=["m"]), ValueError, "kernel_controls must list names")
case(E + "base.Explorer", "kernel_controls number", lambda: base.Explorer({"n": slider()}, kernel_controls=5), TypeError, "kernel_controls")
case(E + "base.Explorer", "layout", lambda: base.Explorer({"n": slider()}, layout=5), TypeError, "layout must be an ipywidgets widget")
case(E + "base.control_names", "a str", lambda: base.control_names("row_sliders", "n", {"n": slider()}), TypeError, "row_sliders must be a list of control names")
case(E + "base.control_names", "unknown", lambda: base.control_names("row_sliders", ["m"], {"n": slider()}), ValueError, r"row_sliders must list names among the controls \['n'\]")
case(E + "base.control_names", "name", lambda: base.control_names(None, ["n"], {"n": slider()}), TypeError, "name must be a str")
case(E + "base.control_names", "controls", lambda: base.control_names("row_sliders", [], None), TypeError, "controls must be a dict")
case(E + "controls.Axis", "name", lambda: controls.Axis(3, slider()), TypeError, "name must be a str")
case(E + "controls.Axis", "control", lambda: controls.Axis("n", 5), TypeError, "control must be an ipywidgets value widget")
case(E + "controls.Axis", "text control", lambda: controls.Axis("n", widgets.Text()), ValueError, r"'n' is a Text.*kernel_controls=\['n'\]")
case(E + "controls.Axis", "unreachable start", lambda: controls.Axis("n", widgets.IntSlider(value=1, min=0, max=4, step=2)), ValueError, "'n' starts at 1")
case(E + "controls.check_axes", "None", lambda: controls.check_axes(None), TypeError, "axes must be a list of Axis, got NoneType")
case(E + "controls.check_axes", "a str", lambda: controls.check_axes("n"), TypeError, "axes must be a list of Axis, got str")
case(E + "controls.check_axes", "not an Axis", lambda: controls.check_axes([slider()]), TypeError, r"axes\[0\] must be an Axis")
case(E + "controls.check_controls", "not a dict", lambda: controls.check_controls(None), TypeError, "controls must be a dict")
case(E + "controls.check_controls", "a number", lambda: controls.check_controls({"x": 5}), TypeError, r"controls\['x'\] must be an ipywidgets value widget")
case(E + "controls.check_controls", "empty key", lambda: controls.check_controls({"": slider()}), TypeError, "controls keys")
case(E + "controls.check_controls", "name", lambda: controls.check_controls({}, 5), TypeError, "name must be a str")
case(E + "controls.option_values", "None", lambda: controls.option_values(None), TypeError, "options must be a list")
case(E + "controls.option_values", "str", lambda: controls.option_values("ab"), TypeError, "options must be a list")
case(E + "controls.slider_width", "None", lambda: controls.slider_width(None), TypeError, "control must be an ipywidgets widget")
H = E + "heatmap.HeatmapExplorer"
case(H, "controls None", lambda: heatmap.HeatmapExplorer(lambda: weights_of(), None), TypeError, "controls must be a dict")
case(H, "compute None", lambda: heatmap.HeatmapExplorer(None, {"n": slider()}), TypeError, "compute must be a function")
case(H, "mask", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, mask=5), TypeError, "mask must be a function")
case(H, "frames_slider", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, frames_slider="m"), ValueError, "frames_slider must name an IntSlider")
case(H, "frames_slider type", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, frames_slider=1), TypeError, "frames_slider must be a str")
case(H, "row_sliders str", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, row_sliders="n"), TypeError, "row_sliders must be a list")
case(H, "row_sliders count", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, row_sliders=["n"]), ValueError, "row_sliders has 1 sliders but the weights have B=2 rows")
case(H, "kernel_controls", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, kernel_controls=True), TypeError, "kernel_controls")
case(H, "rowlabels a str", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, rowlabels="ab"), TypeError, "rowlabels must be a list of str")
case(H, "rowlabels too few", lambda: heatmap.HeatmapExplorer(lambda n: t(2, 2, 2, 3), {"n": slider()}, rowlabels=["a"]), ValueError, r"rowlabels must hold a label per row of panels of \(B, H, Q, K\) weights, B = 2, got 1")
case(H, "a rowlabel", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, rowlabels=[1]), TypeError, r"rowlabels\[0\] must be a str")
case(H, "xlabel", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, xlabel=None), TypeError, "xlabel must be a str")
case(H, "titles str", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, titles="ab"), TypeError, "titles must be a sequence")
case(H, "titles count", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, titles=["a"]), ValueError, "titles must have one title per batch row")
case(H, "unknown keyword", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, colour="red"), TypeError, r"unexpected keyword\(s\) \['colour'\]")
case(H, "valid_lens_shape", lambda: heatmap.HeatmapExplorer(weights_of, {"n": slider()}, valid_lens_shape="x"), TypeError, "valid_lens_shape must be a tuple")
case(H, "compute returns a list", lambda: heatmap.HeatmapExplorer(lambda n: [n], {"n": slider()}), TypeError, "the compute function must return a tensor")
case(H, "compute returns 2-D", lambda: heatmap.HeatmapExplorer(lambda n: t(2, 2), {"n": slider()}), ValueError, r"the compute function must return weights of shape \(B, Q, K\)")
case(H, "compute returns meta", lambda: heatmap.HeatmapExplorer(lambda n: meta(1, 2, 2), {"n": slider()}), TypeError, "the compute function must return real weights")
case(E + "heatmap.as_weights", "a list", lambda: heatmap.as_weights([[[0.5]]]), TypeError, "the compute function must return a tensor of weights")
case(E + "heatmap.as_weights", "2-D", lambda: heatmap.as_weights(t(2, 2)), ValueError, r"the compute function must return weights of shape \(B, Q, K\)")
case(E + "heatmap.as_weights", "empty", lambda: heatmap.as_weights(t(1, 0, 2)), ValueError, r"the compute function must return weights of shape .*got \(1, 0, 2\)")
case(E + "heatmap.as_weights", "bool tensor", lambda: heatmap.as_weights(torch.ones(1, 2, 2, dtype=torch.bool)), TypeError, "the compute function must return real weights")
case(E + "heatmap.as_weights", "str array", lambda: heatmap.as_weights(np.full((1, 2, 2), "a")), TypeError, "the compute function must return real weights .*dtype <U1")
case(E + "heatmap.as_weights", "complex array", lambda: heatmap.as_weights(np.ones((1, 2, 2), dtype=complex)), TypeError, "the compute function must return real weights .*dtype complex128")
case(E + "heatmap.as_weights", "complex tensor", lambda: heatmap.as_weights(torch.ones(1, 2, 2, dtype=torch.complex64)), TypeError, "the compute function must return real weights .*complex64")
case(E + "heatmap.as_weights", "float8 tensor", lambda: heatmap.as_weights(t(1, 2, 2, dtype=torch.float8_e4m3fn)), TypeError, "the compute function must return real weights .*float8_e4m3fn")
case(E + "instrument.instrument", "not a bool", lambda: instrument_function("yes"), TypeError, "on must be True or False")
case(E + "instrument.enabled", "an argument", lambda: enabled(True), TypeError, r"enabled\(\) takes 0 positional arguments")
case(E + "model.count_frames", "None", lambda: model.count_frames(None), TypeError, "regions must be a list of Region")
case(E + "model.count_frames", "one region", lambda: model.count_frames(region()), TypeError, "regions must be a list of Region")
case(E + "model.count_frames", "a str", lambda: model.count_frames(["all"]), TypeError, r"regions\[0\] must be a Region, got str 'all'")
case(E + "model.FrameModel", "regions", lambda: model.FrameModel(None, 10), TypeError, "regions must be a list of Region")
case(E + "model.FrameModel", "a region", lambda: model.FrameModel(["all"], 10), TypeError, r"regions\[0\] must be a Region")
case(E + "model.FrameModel", "max_frames", lambda: model.FrameModel([], "10"), TypeError, "max_frames must be an int")
case(E + "model.FrameModel", "too many frames", lambda: model.FrameModel([region()], 2), ValueError, r"the controls \['n'\] make 3 pictures.*max_frames=2")
case(E + "model.Region", "key", lambda: model.Region(1, [], str), TypeError, "key must be a str")
case(E + "model.Region", "axes", lambda: model.Region("all", "n", str), TypeError, "axes must be a list of Axis")
case(E + "model.Region", "an axis", lambda: model.Region("all", [slider()], str), TypeError, r"axes\[0\] must be an Axis")
case(E + "model.Region", "draw", lambda: model.Region("all", [], None), TypeError, "draw must be callable")
case(E + "model.error_html", "error", lambda: model.error_html("oops", {}), TypeError, "error must be an exception")
case(E + "model.error_html", "values", lambda: model.error_html(ValueError("x"), None), TypeError, "values must be a dict")
P = E + "picture.PictureExplorer"
case(P, "draw", lambda: picture.PictureExplorer(None, {"n": slider()}), TypeError, "draw must be a function")
case(P, "caption", lambda: picture.PictureExplorer(circle, {"n": slider()}, caption=5), TypeError, "caption must be a function")
case(P, "controls", lambda: picture.PictureExplorer(circle, [slider()]), TypeError, "controls must be a dict")
case(P, "max_frames", lambda: picture.PictureExplorer(circle, {"n": slider()}, max_frames=2), ValueError, "max_frames=2")
case(P, "kernel_controls", lambda: picture.PictureExplorer(circle, {"n": slider()}, kernel_controls=["m"]), ValueError, "kernel_controls must list names")
L = E + "picture.LabelledSVG"
case(L, "svg", lambda: picture.LabelledSVG(3), TypeError, "svg must be a str, got int")
case(L, "not an SVG", lambda: picture.LabelledSVG("<div></div>", "a picture"), ValueError, "svg must be an SVG string starting with '<svg'")
case(L, "description", lambda: picture.LabelledSVG(circle(1), 5), TypeError, "description must be a str")
case(L, "no text alternative", lambda: picture.LabelledSVG("<svg></svg>"), ValueError, "LabelledSVG needs a text alternative: pass description=")
V = E + "valid_lens."
f = lambda lens, **extra: masking.masked_softmax(t(2, 2, 3), lens)  # noqa: E731
case(V + "explore_valid_lens", "compute None", lambda: valid_lens.explore_valid_lens(None, 2, 2, 3), TypeError, "compute must be a function")
case(V + "explore_valid_lens", "extra_controls", lambda: valid_lens.explore_valid_lens(f, 2, 2, 3, extra_controls={"x": 5}), TypeError, r"extra_controls\['x'\] must be an ipywidgets value widget")
case(V + "explore_valid_lens", "extra_controls clash", lambda: valid_lens.explore_valid_lens(f, 2, 2, 3, extra_controls={"valid_lens[0]": slider()}), ValueError, "extra_controls must not reuse")
case(V + "explore_valid_lens", "titles up front", lambda: valid_lens.explore_valid_lens(f, 2, 2, 3, titles=["only one"]), ValueError, "titles must have one title per batch row")
case(V + "explore_valid_lens", "valid_lens [7]", lambda: valid_lens.explore_valid_lens(f, 2, 2, 3, valid_lens=[7]), ValueError, r"valid_lens must have shape \(2,\)")
case(V + "explore_valid_lens", "valid_lens [9, 2]", lambda: valid_lens.explore_valid_lens(f, 2, 2, 3, valid_lens=[9, 2]), ValueError, r"valid_lens must lie in \[0, num_keys=3\]")
case(V + "explore_valid_lens", "batch_size bool", lambda: valid_lens.explore_valid_lens(f, True, 2, 3), TypeError, "batch_size must be an int")
case(V + "valid_lens_sliders", "[9, 2] not clamped", lambda: valid_lens.valid_lens_sliders(2, 2, 3, valid_lens=[9, 2]), ValueError, r"valid_lens must lie in \[0, num_keys=3\], got \[9, 2\]")
case(V + "valid_lens_sliders", "[-1, 2] not clamped", lambda: valid_lens.valid_lens_sliders(2, 2, 3, valid_lens=[-1, 2]), ValueError, r"valid_lens must lie in \[0, num_keys=3\], got \[-1, 2\]")
case(V + "valid_lens_sliders", "[1.5, 2.] not rounded", lambda: valid_lens.valid_lens_sliders(2, 2, 3, valid_lens=[1.5, 2.0]), ValueError, "valid_lens must hold whole numbers")
case(V + "valid_lens_sliders", "meta lengths", lambda: valid_lens.valid_lens_sliders(2, 2, 3, valid_lens=meta(2, dtype=torch.long)), ValueError, "valid_lens is on the meta device")
case(V + "valid_lens_sliders", "str lengths", lambda: valid_lens.valid_lens_sliders(2, 2, 3, valid_lens="ab"), TypeError, "valid_lens must be a tensor")
case(V + "valid_lens_sliders", "num_keys 0", lambda: valid_lens.valid_lens_sliders(2, 2, 0), ValueError, "num_keys must be >= 1")
case(V + "valid_lens_sliders", "per_query", lambda: valid_lens.valid_lens_sliders(2, 2, 3, per_query="yes"), TypeError, "per_query must be True or False")
case(V + "valid_lens_sliders", "per_query shape", lambda: valid_lens.valid_lens_sliders(2, 2, 3, per_query=True, valid_lens=[1, 2]), ValueError, r"valid_lens must have shape \(2, 2\), one per row and query \(per_query=True\)")
case(V + "explore_masked_softmax", "scores 2-D", lambda: valid_lens.explore_masked_softmax(t(2, 4)), ValueError, r"scores must be 3-D \(B, Q, K\)")
case(V + "explore_masked_softmax", "scores list", lambda: valid_lens.explore_masked_softmax([[[1.0]]]), TypeError, "scores must be a torch.Tensor")
case(V + "explore_masked_softmax", "scores long", lambda: valid_lens.explore_masked_softmax(t(1, 1, 2).long()), TypeError, "scores must be a floating-point tensor")
case(V + "explore_masked_softmax", "valid_lens number", lambda: valid_lens.explore_masked_softmax(t(2, 2, 3), 5), TypeError, "valid_lens must be a tensor")
case(V + "explore_masked_softmax", "valid_lens ragged", lambda: valid_lens.explore_masked_softmax(t(2, 2, 3), [[1], [1, 2]]), TypeError, "valid_lens must hold whole numbers")
case(V + "explore_masked_softmax", "valid_lens too long", lambda: valid_lens.explore_masked_softmax(t(2, 2, 3), lens(4, 2)), ValueError, r"valid_lens must lie in \[0, num_keys=3\]")
case(V + "explore_masked_softmax", "per_query", lambda: valid_lens.explore_masked_softmax(t(2, 2, 3), per_query=1), TypeError, "per_query must be True or False")
case(V + "explore_masked_softmax", "per_query False, 2-D", lambda: valid_lens.explore_masked_softmax(t(2, 2, 3), torch.ones(2, 2, dtype=torch.long), per_query=False), ValueError, "per_query=False needs one length per batch row")
case(V + "current_valid_lens", "None", lambda: valid_lens.current_valid_lens(None), TypeError, "explorer must be what explore_valid_lens")
case(V + "current_valid_lens", "another explorer", lambda: valid_lens.current_valid_lens(heatmap.HeatmapExplorer(weights_of, {"n": slider()})), TypeError, "explorer must be what explore_valid_lens")
case(E + "view.KernelNote", "names str", lambda: view.KernelNote("n", [slider()], []), TypeError, "names must be a list of str")
case(E + "view.KernelNote", "controls", lambda: view.KernelNote(["n"], [5], []), TypeError, r"controls\[0\] must be an ipywidgets ValueWidget")
case(E + "view.KernelNote", "count", lambda: view.KernelNote(["n", "m"], [slider()], []), ValueError, "names must name each of the 1 controls")
case(E + "view.KernelNote", "made", lambda: view.KernelNote(["n"], [slider()], None), TypeError, "made must be the explorer's list")
case(E + "view.Frames", "made", lambda: view.Frames(None), TypeError, "made must be the explorer's list of widgets")
case(E + "view.Frames", "made tuple", lambda: view.Frames(()), TypeError, "made must be the explorer's list of widgets")
case(E + "view.Frames", "html value", lambda: view.Frames([]).html(None, []), TypeError, "value must be a str")
case(E + "view.Frames", "html classes", lambda: view.Frames([]).html("<b>x</b>", "ah-view"), TypeError, "classes must be a list of str")
case(E + "view.labelled", "svg None", lambda: view.labelled(None, "x"), TypeError, "svg must be a str")
case(E + "view.labelled", "label None", lambda: view.labelled(circle(), None), TypeError, "label must be a str")
case(E + "view.scalable", "None", lambda: view.scalable(None), TypeError, "svg must be a str")
case(E + "view.scalable", "bytes", lambda: view.scalable(circle().encode()), TypeError, "svg must be a str")
case(E + "view.style_widget", "an argument", lambda: view.style_widget("dark"), TypeError, r"style_widget\(\) takes 0 positional arguments")
case(E + "view.frame_tree", "axes", lambda: view.frame_tree("n", str, [], view.Frames([])), TypeError, "axes must be a list of Axis")
case(E + "view.frame_tree", "frame_at", lambda: view.frame_tree([], None, [], view.Frames([])), TypeError, "frame_at must be callable")
case(E + "view.frame_tree", "classes", lambda: view.frame_tree([], str, "ah-view", view.Frames([])), TypeError, "classes must be a list of str")
case(E + "view.frame_tree", "frames", lambda: view.frame_tree([], str, [], []), TypeError, "frames must be the explorer's Frames")
case(E + "view.swap_widgets", "root", lambda: view.swap_widgets(None, {}), TypeError, "root must be an ipywidgets widget")
case(E + "view.swap_widgets", "swaps", lambda: view.swap_widgets(widgets.VBox(), None), TypeError, "swaps must be a dict")
case(E + "view.wrap_row", "children", lambda: view.wrap_row(None), TypeError, "children must be a list of ipywidgets widgets")
case(E + "view.wrap_row", "a child", lambda: view.wrap_row(["a"]), TypeError, r"children\[0\] must be an ipywidgets Widget")

# --- svg charts and pictures -------------------------------------------------------------------------------------
case("explore.svg.line_chart_svg", "x None", lambda: svg.line_chart_svg(None, [1]), TypeError, "x must be a sequence of real numbers")
case("explore.svg.line_chart_svg", "x str", lambda: svg.line_chart_svg("ab", [1, 2]), TypeError, "x must be a sequence")
case("explore.svg.line_chart_svg", "lengths", lambda: svg.line_chart_svg([1, 2], [1]), ValueError, "series 'ys' has 1 values but x has 2")
case("explore.svg.line_chart_svg", "a str value", lambda: svg.line_chart_svg([1], {"a": ["1"]}), TypeError, r"ys\['a'\]\[0\] must be a real number")
case("explore.svg.line_chart_svg", "title", lambda: svg.line_chart_svg([1], [1], title=None), TypeError, "title must be a str")
case("explore.svg.line_chart_svg", "logx", lambda: svg.line_chart_svg([1], [1], logx="yes"), TypeError, "logx must be True or False")
case("explore.svg.line_chart_svg", "xlim value", lambda: svg.line_chart_svg([1], [1], xlim=(0, "a")), TypeError, r"xlim\[1\] must be a real number")
case("explore.svg.line_chart_svg", "xlim NaN", lambda: svg.line_chart_svg([1], [1], xlim=(0, NAN)), ValueError, r"xlim\[1\] must be a finite number")
case("explore.svg.line_chart_svg", "xlim order", lambda: svg.line_chart_svg([1], [1], xlim=(2, 1)), ValueError, "xlim must be")
case("explore.svg.line_chart_svg", "log axis from 0", lambda: svg.line_chart_svg([1], [1], logx=True, xlim=(0, 1)), ValueError, "xlim must be > 0 on a log axis")
case("explore.svg.line_chart_svg", "highlight", lambda: svg.line_chart_svg([1], [1], highlight="1"), TypeError, "highlight must be a real number")
case("explore.svg.line_chart_svg", "colours", lambda: svg.line_chart_svg([1], [1], colours="red"), TypeError, "colours must be a non-empty list")
case("explore.svg.line_chart_svg", "width", lambda: svg.line_chart_svg([1], [1], width=True), TypeError, "width must be an int >= 60")
case("explore.svg.line_chart_svg", "complex x", lambda: svg.line_chart_svg(torch.ones(2, dtype=torch.complex64), [1, 2]), TypeError, "x must hold real numbers")
case("explore.svg.line_chart_svg", "float8 x", lambda: svg.line_chart_svg(t(2, dtype=torch.float8_e5m2), [1, 2]), TypeError, "x has dtype torch.float8_e5m2, which PyTorch stores")
case("explore.svg.scatter_svg", "lengths", lambda: svg.scatter_svg([1], [1, 2]), ValueError, "x and y must have the same length")
case("explore.svg.scatter_svg", "groups", lambda: svg.scatter_svg([1], [1], groups=[0.5]), TypeError, r"groups\[0\] must be an int")
case("explore.svg.scatter_svg", "groups str", lambda: svg.scatter_svg([1], [1], groups="a"), TypeError, "groups must be a list")
case("explore.svg.scatter_svg", "labels", lambda: svg.scatter_svg([1], [1], labels=3), TypeError, "labels must be a list")
case("explore.svg.scatter_svg", "labels count", lambda: svg.scatter_svg([1], [1], labels=["a", "b"]), ValueError, "labels must hold 1 labels")
case("explore.svg.scatter_svg", "radius", lambda: svg.scatter_svg([1], [1], radius=0), ValueError, "radius must be > 0")
case("explore.svg.scatter_svg", "group_names", lambda: svg.scatter_svg([1], [1], group_names=5), TypeError, "group_names must be a list")
case("explore.svg.bar_chart_svg", "values", lambda: svg.bar_chart_svg("ab"), TypeError, "values must be a sequence")
case("explore.svg.bar_chart_svg", "empty", lambda: svg.bar_chart_svg([]), ValueError, "values must not be empty")
case("explore.svg.bar_chart_svg", "labels", lambda: svg.bar_chart_svg([1, 2], ["a"]), ValueError, "labels must hold 2 labels, one per entry of values")
case("explore.svg.bar_chart_svg", "highlight range", lambda: svg.bar_chart_svg([1, 2], highlight=5), ValueError, "highlight must index the 2 bars")
case("explore.svg.bar_chart_svg", "highlight type", lambda: svg.bar_chart_svg([1, 2], highlight="a"), TypeError, "highlight must be a bar's index")
case("explore.svg.bar_chart_svg", "highlight bool", lambda: svg.bar_chart_svg([1, 2], highlight=True), TypeError, "highlight must be a bar's index")
case("explore.svg.bar_chart_svg", "show_values", lambda: svg.bar_chart_svg([1], show_values="no"), TypeError, "show_values must be True or False")
case("explore.svg.bar_chart_svg", "colour", lambda: svg.bar_chart_svg([1], colour=1), TypeError, "colour must be a str")
case("explore.svg.bar_chart_svg", "ylim", lambda: svg.bar_chart_svg([1], ylim=(0, NAN)), ValueError, r"ylim\[1\] must be a finite number")
case("explore.svg.nice_ticks", "low", lambda: svg.nice_ticks("a", 1), TypeError, "low must be a real number")
case("explore.svg.nice_ticks", "high NaN", lambda: svg.nice_ticks(0, NAN), ValueError, "high must be a finite number")
case("explore.svg.nice_ticks", "order", lambda: svg.nice_ticks(1, 0), ValueError, "high must be >= low")
case("explore.svg.nice_ticks", "count", lambda: svg.nice_ticks(0, 1, True), TypeError, "count must be an int")
case("explore.svg.heatmaps_svg", "matrices", lambda: svg.heatmaps_svg(None, "k", "q"), TypeError, "matrices must be a torch.Tensor or numpy array")
case("explore.svg.heatmaps_svg", "outlines str", lambda: svg.heatmaps_svg(t(1, 1, 2, 2), "k", "q", outlines="dashed"), TypeError, r"outlines must be a sequence of \(queries, keys, style\) triples")
case("explore.svg.heatmaps_svg", "outline pair", lambda: svg.heatmaps_svg(t(1, 1, 2, 2), "k", "q", outlines=[(range(2), range(2))]), TypeError, r"outlines\[0\] must be a \(queries, keys, style\) triple")
case("explore.svg.heatmaps_svg", "outline gap", lambda: svg.heatmaps_svg(t(1, 1, 3, 3), "k", "q", outlines=[([0, 2], [0], "solid")]), ValueError, r"outlines\[0\] queries must be consecutive indices in 0 .. 2, got \[0, 2\]")
case("explore.svg.heatmaps_svg", "outline beyond", lambda: svg.heatmaps_svg(t(1, 1, 2, 2), "k", "q", outlines=[([0], range(3), "solid")]), ValueError, r"outlines\[0\] keys must be consecutive indices in 0 .. 1")
case("explore.svg.heatmaps_svg", "outline bools", lambda: svg.heatmaps_svg(t(1, 1, 2, 2), "k", "q", outlines=[([True], [0], "solid")]), TypeError, r"outlines\[0\] queries must be ints")
case("explore.svg.heatmaps_svg", "outline style", lambda: svg.heatmaps_svg(t(1, 1, 2, 2), "k", "q", outlines=[([0], [0], "dotted")]), ValueError, "outlines\\[0\\] style must be 'dashed' or 'solid', got 'dotted'")
case("explore.pictures.query_svg", "query shape", lambda: pictures.query_svg(t(3), t(2, 2), t(2)), ValueError, r"query must have shape \(2,\)")
case("explore.pictures.query_svg", "keys list", lambda: pictures.query_svg(t(2), [[0, 1]], t(1)), TypeError, "keys must be a torch.Tensor")
case("explore.pictures.query_svg", "keys shape", lambda: pictures.query_svg(t(2), t(2, 3), t(2)), ValueError, r"keys must be a tensor of shape \(K, 2\)")
case("explore.pictures.query_svg", "NaN weights", lambda: pictures.query_svg(t(2), t(2, 2), torch.tensor([NAN, 1.0])), ValueError, "weights must be finite")
case("explore.pictures.query_svg", "weights count", lambda: pictures.query_svg(t(2), t(2, 2), t(3)), ValueError, r"weights must have shape \(2,\), one per entry of keys")
case("explore.pictures.query_svg", "extent", lambda: pictures.query_svg(t(2), t(2, 2), t(2), extent="a"), TypeError, "extent must be a real number")
case("explore.pictures.query_svg", "labels", lambda: pictures.query_svg(t(2), t(2, 2), t(2), labels="ab"), TypeError, "labels must be a list")
case("explore.pictures.query_svg", "size", lambda: pictures.query_svg(t(2), t(2, 2), t(2), size=0), ValueError, "size must be >= 1")
case("explore.pictures.curve_svg", "points_x", lambda: pictures.curve_svg([0.0], t(1), t(2), {"a": t(2)}), TypeError, "points_x must be a torch.Tensor")
case("explore.pictures.curve_svg", "points_y count", lambda: pictures.curve_svg(t(2), t(3), t(2), {"a": t(2)}), ValueError, "points_y must have shape")
case("explore.pictures.curve_svg", "infinite points", lambda: pictures.curve_svg(torch.tensor([INF]), t(1), t(2), {"a": t(2)}), ValueError, "points_x must be finite")
case("explore.pictures.curve_svg", "curves None", lambda: pictures.curve_svg(t(1), t(1), t(2), None), TypeError, "curves must be a dict")
case("explore.pictures.curve_svg", "curves empty", lambda: pictures.curve_svg(t(1), t(1), t(2), {}), ValueError, "curves must name at least one curve")
case("explore.pictures.curve_svg", "a curve", lambda: pictures.curve_svg(t(1), t(1), t(2), {"a": t(3)}), ValueError, r"curves\['a'\] must have shape \(2,\)")
case("explore.pictures.curve_svg", "width", lambda: pictures.curve_svg(t(1), t(1), t(2), {"a": t(2)}, width=0), ValueError, "width must be >= 1")
case("explore.pictures.rotation_svg", "before", lambda: pictures.rotation_svg([0], t(1, 1, 2), ["a"]), TypeError, "before must be a torch.Tensor")
case("explore.pictures.rotation_svg", "after shape", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 2, 2), ["a"]), ValueError, "after must have the shape of before")
case("explore.pictures.rotation_svg", "titles str", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 1, 2), "a"), TypeError, "titles must be a list")
case("explore.pictures.rotation_svg", "titles count", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 1, 2), ["a", "b"]), ValueError, "titles must hold one title per circle")
case("explore.pictures.rotation_svg", "zoom str", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 1, 2), ["a"], zoom="2"), TypeError, "zoom must be a sequence of real numbers")
case("explore.pictures.rotation_svg", "zoom count", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 1, 2), ["a"], zoom=[1, 2]), ValueError, "zoom must hold one magnification per circle")
case("explore.pictures.rotation_svg", "zoom < 1", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 1, 2), ["a"], zoom=[0.5]), ValueError, "zoom must hold magnifications >= 1")
case("explore.pictures.rotation_svg", "zoom NaN", lambda: pictures.rotation_svg(t(1, 1, 2), t(1, 1, 2), ["a"], zoom=[NAN]), ValueError, r"zoom\[0\] must be a finite number")
case("explore.pictures.rotation_svg", "NaN", lambda: pictures.rotation_svg(torch.full((1, 1, 2), NAN), t(1, 1, 2), ["a"]), ValueError, "before must be finite")
case("explore.pictures.chosen_row_svg", "weights list", lambda: pictures.chosen_row_svg([[1.0]], 0, ["a"]), TypeError, r"weights must be a torch.Tensor of shape \(n, n\)")
case("explore.pictures.chosen_row_svg", "weights 3-D", lambda: pictures.chosen_row_svg(t(1, 2, 2), 0, ["a", "b"]), ValueError, r"weights must be 2-D \(n, n\)")
case("explore.pictures.chosen_row_svg", "weights not square", lambda: pictures.chosen_row_svg(t(2, 3), 0, ["a", "b"]), ValueError, r"weights must have shape \(n, n\), queries by keys")
case("explore.pictures.chosen_row_svg", "weights integer", lambda: pictures.chosen_row_svg(torch.ones(2, 2, dtype=torch.long), 0, ["a", "b"]), TypeError, "weights must be a floating-point tensor")
case("explore.pictures.chosen_row_svg", "NaN weights", lambda: pictures.chosen_row_svg(torch.full((2, 2), NAN), 0, ["a", "b"]), ValueError, "weights must be finite")
case("explore.pictures.chosen_row_svg", "position float", lambda: pictures.chosen_row_svg(t(2, 2), 1.0, ["a", "b"]), TypeError, "position must be an int >= 0")
case("explore.pictures.chosen_row_svg", "position past the end", lambda: pictures.chosen_row_svg(t(2, 2), 2, ["a", "b"]), ValueError, r"position must be < n = 2")
case("explore.pictures.chosen_row_svg", "tokens str", lambda: pictures.chosen_row_svg(t(2, 2), 0, "ab"), TypeError, "tokens must be a list of str")
case("explore.pictures.chosen_row_svg", "tokens count", lambda: pictures.chosen_row_svg(t(2, 2), 0, ["a"]), ValueError, "tokens must hold 2 labels, one per row of weights")
case("explore.pictures.chosen_row_svg", "causal str", lambda: pictures.chosen_row_svg(t(2, 2), 0, ["a", "b"], causal="causal"), TypeError, "causal must be True or False")
case("explore.pictures.chosen_row_svg", "titles count", lambda: pictures.chosen_row_svg(t(2, 2), 0, ["a", "b"], titles=["x"]), ValueError, "titles must hold 2 titles, one per panel")
case("explore.pictures.side_by_side", "nothing", lambda: pictures.side_by_side(), ValueError, "side_by_side needs at least one SVG")
case("explore.pictures.side_by_side", "None", lambda: pictures.side_by_side(None), TypeError, r"svgs\[0\] must be an <svg ...> string")
case("explore.pictures.side_by_side", "not svg", lambda: pictures.side_by_side("<p>"), ValueError, r"svgs\[0\] must be an <svg ...> string with width")
case("explore.pictures.side_by_side", "gap", lambda: pictures.side_by_side(circle(), gap=-1), ValueError, "gap must be >= 0")
case("explore.pictures.alignment_svg", "weights list", lambda: pictures.alignment_svg([[1.0]], "a", "b"), TypeError, "weights must be a torch.Tensor")
case("explore.pictures.alignment_svg", "weights 1-D", lambda: pictures.alignment_svg(t(2), "a", "b"), ValueError, r"weights must be 2-D \(T, L\)")
case("explore.pictures.alignment_svg", "rows", lambda: pictures.alignment_svg(t(3, 2), "ab", "xy"), ValueError, r"T = len\(output\) = 2")
case("explore.pictures.alignment_svg", "text too long", lambda: pictures.alignment_svg(t(2, 2), "abc", "xy"), ValueError, r"L >= len\(text\) = 3")
case("explore.pictures.alignment_svg", "empty text", lambda: pictures.alignment_svg(t(2, 2), "", "xy"), ValueError, r"at least 1")
case("explore.pictures.alignment_svg", "NaN", lambda: pictures.alignment_svg(torch.tensor([[NAN]]), "a", "x"), ValueError, "weights must be finite")
case("explore.pictures.alignment_svg", "integer weights", lambda: pictures.alignment_svg(torch.ones(1, 1, dtype=torch.long), "a", "x"), TypeError, "weights must be a floating-point tensor")
case("explore.pictures.alignment_svg", "text", lambda: pictures.alignment_svg(t(1, 1), ["a"], "x"), TypeError, "text must be a str")
case("explore.pictures.alignment_svg", "output", lambda: pictures.alignment_svg(t(1, 1), "a", None), TypeError, "output must be a str")
case("explore.pictures.alignment_svg", "title", lambda: pictures.alignment_svg(t(1, 1), "a", "x", title=1), TypeError, "title must be a str")
case("explore.pictures.grouped_heads_svg", "weights list", lambda: pictures.grouped_heads_svg([[[1.0]]], t(1, 1, 2), 1), TypeError, "weights must be a torch.Tensor")
case("explore.pictures.grouped_heads_svg", "weights 2-D", lambda: pictures.grouped_heads_svg(t(2, 2), t(1, 2, 2), 1), ValueError, r"weights must be 3-D \(H, L, L\)")
case("explore.pictures.grouped_heads_svg", "keys 2-D", lambda: pictures.grouped_heads_svg(t(2, 3, 3), t(3, 2), 1), ValueError, r"keys must be 3-D \(H, L, d\)")
case("explore.pictures.grouped_heads_svg", "keys heads", lambda: pictures.grouped_heads_svg(t(2, 3, 3), t(4, 3, 2), 1), ValueError, r"keys must have shape \(H, L, d\) = \(2, 3, d >= 1\)")
case("explore.pictures.grouped_heads_svg", "groups str", lambda: pictures.grouped_heads_svg(t(2, 3, 3), t(2, 3, 2), "1"), TypeError, "groups must be an int")
case("explore.pictures.grouped_heads_svg", "groups 0", lambda: pictures.grouped_heads_svg(t(2, 3, 3), t(2, 3, 2), 0), ValueError, "groups must be >= 1")
case("explore.pictures.grouped_heads_svg", "groups divide", lambda: pictures.grouped_heads_svg(t(4, 3, 3), t(4, 3, 2), 3), ValueError, "groups must divide H = 4")
case("explore.pictures.grouped_heads_svg", "NaN keys", lambda: pictures.grouped_heads_svg(t(1, 2, 2), torch.tensor([[[NAN, 1.0], [0.0, 1.0]]]), 1), ValueError, "keys must be finite")
H2 = {"m": t(3, 2), "s": t(3, 2)}  # two running statistics over 3 blocks, 2 queries
case("explore.pictures.online_softmax_svg", "weights list", lambda: pictures.online_softmax_svg([[1.0]], H2, 1), TypeError, "weights must be a torch.Tensor")
case("explore.pictures.online_softmax_svg", "weights 1-D", lambda: pictures.online_softmax_svg(t(2), H2, 1), ValueError, r"weights must be 2-D \(Q, K\)")
case("explore.pictures.online_softmax_svg", "integer weights", lambda: pictures.online_softmax_svg(torch.ones(2, 4, dtype=torch.long), H2, 1), TypeError, "weights must be a floating-point tensor")
case("explore.pictures.online_softmax_svg", "history list", lambda: pictures.online_softmax_svg(t(2, 4), [t(3, 2)], 1), TypeError, "history must be a non-empty mapping")
case("explore.pictures.online_softmax_svg", "history empty", lambda: pictures.online_softmax_svg(t(2, 4), {}, 1), TypeError, "history must be a non-empty mapping")
case("explore.pictures.online_softmax_svg", "title", lambda: pictures.online_softmax_svg(t(2, 4), {1: t(3, 2)}, 1), TypeError, "history's titles must be strings")
case("explore.pictures.online_softmax_svg", "history 1-D", lambda: pictures.online_softmax_svg(t(2, 4), {"m": t(3)}, 1), ValueError, r"history\['m'\] must be 2-D \(N, Q\)")
case("explore.pictures.online_softmax_svg", "queries", lambda: pictures.online_softmax_svg(t(2, 4), {"m": t(3, 5)}, 1), ValueError, r"Q = 2 \(weights' queries\)")
case("explore.pictures.online_softmax_svg", "blocks differ", lambda: pictures.online_softmax_svg(t(2, 4), {"m": t(3, 2), "s": t(4, 2)}, 1), ValueError, r"history\['s'\] must have shape \(N, Q\) with N = 3")
case("explore.pictures.online_softmax_svg", "NaN history", lambda: pictures.online_softmax_svg(t(2, 4), {"m": torch.tensor([[NAN, 1.0]])}, 1), ValueError, r"history\['m'\] must be finite")
case("explore.pictures.online_softmax_svg", "blocks str", lambda: pictures.online_softmax_svg(t(2, 4), H2, "1"), TypeError, "blocks must be an int")
case("explore.pictures.online_softmax_svg", "blocks 0", lambda: pictures.online_softmax_svg(t(2, 4), H2, 0), ValueError, "blocks must be >= 1")
case("explore.pictures.online_softmax_svg", "blocks too many", lambda: pictures.online_softmax_svg(t(2, 4), H2, 4), ValueError, r"blocks must be at most N = 3")
case("explore.pictures.pair_arrows_svg", "panels str", lambda: pictures.pair_arrows_svg("q"), TypeError, r"panels must be a list of \(title, q, k\) tuples")
case("explore.pictures.pair_arrows_svg", "panels empty", lambda: pictures.pair_arrows_svg([]), ValueError, "panels must be a non-empty sequence")
case("explore.pictures.pair_arrows_svg", "panel list", lambda: pictures.pair_arrows_svg([["t", t(2), t(2)]]), TypeError, r"panels\[0\] must be a \(title, q, k\) tuple")
case("explore.pictures.pair_arrows_svg", "panel short", lambda: pictures.pair_arrows_svg([("t", t(2))]), TypeError, r"panels\[0\] must be a \(title, q, k\) tuple")
case("explore.pictures.pair_arrows_svg", "title", lambda: pictures.pair_arrows_svg([(1, t(2), t(2))]), TypeError, r"panels\[0\] title must be a str")
case("explore.pictures.pair_arrows_svg", "q list", lambda: pictures.pair_arrows_svg([("t", [1.0, 0.0], t(2))]), TypeError, r"panels\[0\] q must be a torch.Tensor")
case("explore.pictures.pair_arrows_svg", "k shape", lambda: pictures.pair_arrows_svg([("t", t(2), t(3))]), ValueError, r"panels\[0\] k must have shape \(2,\)")
case("explore.pictures.pair_arrows_svg", "NaN q", lambda: pictures.pair_arrows_svg([("t", torch.tensor([NAN, 1.0]), t(2))]), ValueError, r"panels\[0\] q must be finite")

# --- optim -------------------------------------------------------------------------------------------------------
case("lessons.optim.Adam", "params", lambda: optim.Adam(5), TypeError, "params must be an iterable of tensors")
case("lessons.optim.Adam", "a param", lambda: optim.Adam([torch.zeros(2, dtype=torch.long)]), TypeError, r"params\[0\] must be a floating-point tensor")
case("lessons.optim.Adam", "lr -1", lambda: optim.Adam([], lr=-1), ValueError, "lr must be > 0")
case("lessons.optim.Adam", "lr str", lambda: optim.Adam([], lr="0.1"), TypeError, "lr must be a real number")
case("lessons.optim.Adam", "betas", lambda: optim.Adam([], betas=(0.9,)), TypeError, "betas must be a pair")
case("lessons.optim.Adam", "beta 1", lambda: optim.Adam([], betas=(1.0, 0.9)), ValueError, r"betas\[0\] must be < 1")
case("lessons.optim.Adam", "eps", lambda: optim.Adam([], eps=0), ValueError, "eps must be > 0")

# --- dates ---------------------------------------------------------------------------------------------------------
FMT = dates.FORMATS[0]
case("lessons.dates.DateFormat", "order", lambda: dates.DateFormat("DYM", "d", "m", "yy", "none"), ValueError, r"order must be one of \['DMY', 'MDY', 'YMD'\]")
case("lessons.dates.DateFormat", "ordinal numeric month", lambda: dates.DateFormat("DMY", "ord", "m", "yy", "none"), ValueError, "fmt is not one of FORMATS")
case("lessons.dates.DateSet", "lengths", lambda: dates.DateSet(("1.1.01",), (), ({},), (FMT,), (False,)), ValueError, "inputs, outputs, spans, formats and unseen_format must have one entry per date")
case("lessons.dates.DateSet", "span_masks(length)", lambda: dates.make_dates(2).span_masks(1), ValueError, "length must be >= ")
case("lessons.dates.make_dates", "n 0", lambda: dates.make_dates(0), ValueError, "n must be >= 1")
case("lessons.dates.make_dates", "split", lambda: dates.make_dates(3, "test"), ValueError, r"split must be one of \['train', 'held_out'\]")
case("lessons.dates.make_dates", "seed", lambda: dates.make_dates(3, seed=-1), ValueError, "seed must be >= 0")
case("lessons.dates.render_date", "date", lambda: dates.render_date(datetime.date(1900, 1, 1), FMT, random.Random()), ValueError, "date must be a datetime.date in")
case("lessons.dates.render_date", "fmt", lambda: dates.render_date(datetime.date(2000, 1, 1), "D/M/Y", random.Random()), ValueError, "fmt must be one of FORMATS")
case("lessons.dates.render_date", "rng", lambda: dates.render_date(datetime.date(2000, 1, 1), FMT, 0), TypeError, "rng must be a random.Random")
case("lessons.dates.encode_inputs", "one str", lambda: dates.encode_inputs("1.1.01"), TypeError, "texts must be a list of str")
case("lessons.dates.encode_inputs", "empty", lambda: dates.encode_inputs([]), ValueError, "texts must hold at least one text")
case("lessons.dates.encode_inputs", "character", lambda: dates.encode_inputs(["3.9.31!"]), ValueError, r"texts\[0\] must be a non-empty text of the characters in INPUT_CHARS")
case("lessons.dates.encode_outputs", "not ISO", lambda: dates.encode_outputs(["2001/01/01"]), ValueError, r"texts\[0\] must be an ISO date")
case("lessons.dates.decode_outputs", "float", lambda: dates.decode_outputs(t(1, 10)), TypeError, "indices must be an integer tensor")
case("lessons.dates.decode_outputs", "range", lambda: dates.decode_outputs(torch.tensor([[11]])), ValueError, "indices must be")
case("lessons.dates.DateTranslator", "attention", lambda: dates.DateTranslator("cosine"), ValueError, r"attention must be one of \['additive', 'dot', 'none'\]")
case("lessons.dates.DateTranslator", "num_hiddens", lambda: dates.DateTranslator(num_hiddens=0), ValueError, "num_hiddens must be >= 1")
case("lessons.dates.DateTranslator", "valid_lens", lambda: dates.DateTranslator().translate(torch.ones(1, 3, dtype=torch.long), lens(4)), ValueError, r"valid_lens must be in \[1, 3\]")
case("lessons.dates.DateTranslator", "src float", lambda: dates.DateTranslator().translate(t(1, 3), lens(3)), TypeError, "src must be an integer tensor")
R = "lessons.dates_train"
case(f"{R}.train_translator", "attention", lambda: dates_train.train_translator("cos"), ValueError, "attention must be one of")
case(f"{R}.train_translator", "steps", lambda: dates_train.train_translator(steps=-1), ValueError, "steps must be >= 0")
case(f"{R}.train_translator", "lr", lambda: dates_train.train_translator(lr=0), ValueError, "lr must be > 0")
case(f"{R}.train_translator", "checkpoint_steps", lambda: dates_train.train_translator(checkpoint_steps=5), TypeError, "checkpoint_steps must be a list of int")
case(f"{R}.TrainingLog", "losses", lambda: dates_train.TrainingLog(losses=None), TypeError, "losses must be a list of float")
case(f"{R}.TrainingLog", "seconds", lambda: dates_train.TrainingLog(seconds=-1), ValueError, "seconds must be >= 0")
case(f"{R}.translate", "model", lambda: dates_train.translate(torch.nn.Linear(1, 1), ["1.1.01"]), TypeError, "model must be a DateTranslator")
case(f"{R}.exact_match", "data", lambda: dates_train.exact_match(dates.DateTranslator(), ["1.1.01"]), TypeError, "data must be a DateSet")
case(f"{R}.field_mass", "weights shape", lambda: dates_train.field_mass(t(2, 10, 3), dates.make_dates(2)), ValueError, r"weights must be \(N, T, L\)")
case(f"{R}.field_mass", "weights long", lambda: dates_train.field_mass(torch.ones(2, 10, 40, dtype=torch.long), dates.make_dates(2)), TypeError, "weights must be a floating-point tensor")
case(f"{R}.alignment_report", "by", lambda: dates_train.alignment_report(t(2, 10, 40), dates.make_dates(2), by="max"), ValueError, r"by must be one of \['mass', 'argmax'\]")
case(f"{R}.alignment_report", "threshold", lambda: dates_train.alignment_report(t(2, 10, 40), dates.make_dates(2), threshold=1), ValueError, "threshold must be < 1")
case(f"{R}.field_mass", "margin", lambda: dates_train.field_mass(t(2, 10, 40), dates.make_dates(2), margin=1.5), TypeError, "margin must be an int")
case(f"{R}.peak_weight", "weights shape", lambda: dates_train.peak_weight(t(2, 10, 3), dates.make_dates(2)), ValueError, r"weights must be \(N, T, L\)")
case(f"{R}.alignment_by_order", "threshold", lambda: dates_train.alignment_by_order(t(2, 10, 40), dates.make_dates(2), threshold=1), ValueError, "threshold must be < 1")
case(f"{R}.load_translator", "attention", lambda: dates_train.load_translator("Additive"), ValueError, "attention must be one of")
case(f"{R}.load_checkpoints", "step", lambda: dates_train.load_checkpoints([5]), ValueError, "steps must be among the saved CHECKPOINT_STEPS")
case(f"{R}.load_checkpoints", "one int", lambda: dates_train.load_checkpoints(60), TypeError, "steps must be a list of int")
case(f"{R}.load_record", "attention", lambda: dates_train.load_record(None), ValueError, "attention must be one of")

# --- cost ----------------------------------------------------------------------------------------------------------
case("lessons.cost.loglog_slope", "str", lambda: cost.loglog_slope("ab", [1, 2]), TypeError, "lengths must be a sequence of real numbers")
case("lessons.cost.loglog_slope", "None", lambda: cost.loglog_slope([1, 2], None), TypeError, "values must be a sequence of real numbers")
case("lessons.cost.loglog_slope", "inf (was NaN)", lambda: cost.loglog_slope([1, 2], [INF, 4]), ValueError, r"values\[0\] must be a finite number")
case("lessons.cost.loglog_slope", "bool", lambda: cost.loglog_slope([True, 2], [1, 2]), TypeError, r"lengths\[0\] must be a real number")
case("lessons.cost.loglog_slope", "0", lambda: cost.loglog_slope([0, 1], [1, 2]), ValueError, r"lengths\[0\] must be > 0")
case("lessons.cost.loglog_slope", "sizes", lambda: cost.loglog_slope([1, 2], [1]), ValueError, "lengths and values must have the same size")
case("lessons.cost.loglog_slope", "one length", lambda: cost.loglog_slope([2, 2], [1, 2]), ValueError, "lengths must hold at least two different values")
case("lessons.cost.loglog_slope", "2-D", lambda: cost.loglog_slope([[1, 2]], [[1, 2]]), ValueError, "lengths must be 1-D")
case("lessons.cost.time_call", "fn", lambda: cost.time_call(5), TypeError, "fn must be a function of no arguments")
case("lessons.cost.time_call", "repeats bool", lambda: cost.time_call(lambda: 0, repeats=True), TypeError, "repeats must be an int")
case("lessons.cost.time_call", "warmup", lambda: cost.time_call(lambda: 0, warmup=-1), ValueError, "warmup must be >= 0")
case("lessons.cost.time_call", "device", lambda: cost.time_call(lambda: 0, device="nope"), ValueError, "device must name a device")
case("lessons.cost.peak_memory", "fn", lambda: cost.peak_memory(None), TypeError, "fn must be a function of no arguments")
case("lessons.cost.peak_memory", "device type", lambda: cost.peak_memory(lambda: 0, device=3), TypeError, "device must be a torch.device or a str")
case("lessons.cost.peak_memory", "device meta", lambda: cost.peak_memory(lambda: 0, device="meta"), ValueError, "device must be a CPU or CUDA device")
case("lessons.cost.op_names", "fn", lambda: cost.op_names("x"), TypeError, "fn must be a function of no arguments")
noop = {"f": lambda n: lambda: None}
case("lessons.cost.sweep", "calls {'a': 5}", lambda: cost.sweep({"a": 5}, [1]), TypeError, r"calls\['a'\] must be a function of the length")
case("lessons.cost.sweep", "calls empty", lambda: cost.sweep({}, [1]), TypeError, "calls must be a non-empty dict")
case("lessons.cost.sweep", "a call's result", lambda: cost.sweep({"a": lambda n: n}, [1], repeats=1), TypeError, r"calls\['a'\]\(1\) must be a function of no arguments")
case("lessons.cost.sweep", "lengths None", lambda: cost.sweep(noop, None), TypeError, "lengths must be a list of positive ints")
case("lessons.cost.sweep", "a length", lambda: cost.sweep(noop, [1, 0]), ValueError, r"lengths\[1\] must be >= 1")
case("lessons.cost.sweep", "no lengths", lambda: cost.sweep(noop, []), ValueError, "lengths must hold at least one length")
case("lessons.cost.sweep", "measure", lambda: cost.sweep(noop, [1], measure="speed"), ValueError, r"measure must be one of \['time', 'memory'\]")
case("lessons.cost.sweep", "threads", lambda: cost.sweep(noop, [1], threads=True), TypeError, "threads must be an int")
case("lessons.cost.sweep", "repeats", lambda: cost.sweep(noop, [1], repeats=0), ValueError, "repeats must be >= 1")
case("lessons.cost.Sweep", "lengths", lambda: cost.Sweep([], "s"), TypeError, "lengths must be a non-empty list")
case("lessons.cost.Sweep", "unit", lambda: cost.Sweep([2], 5), TypeError, "unit must be a str")
case("lessons.cost.Sweep", "values count", lambda: cost.Sweep([2], "s", {"a": [1, 2]}), ValueError, r"values\['a'\] must hold one cost per length")
case("lessons.cost.Sweep", "slope of unknown", lambda: a_sweep().slope("b"), ValueError, r"name must be one of the implementations measured, \['a'\]")
case("lessons.cost.Sweep", "slope name type", lambda: a_sweep().slope(5), TypeError, "name must be a str")
case("lessons.cost.Sweep", "min_length", lambda: a_sweep().slope("a", min_length=8), ValueError, "min_length=8 leaves 1 length")
case("lessons.cost.Sweep", "table scale", lambda: a_sweep().table(scale="x"), TypeError, "scale must be a real number")
case("lessons.cost.Sweep", "table digits", lambda: a_sweep().table(digits=-1), ValueError, "digits must be >= 0")

# --- efficient -----------------------------------------------------------------------------------------------------
case("lessons.efficient.partial_softmax", "scores list", lambda: efficient.partial_softmax([[1.0]], t(1, 1)), TypeError, "scores must be a torch.Tensor")
case("lessons.efficient.partial_softmax", "scores long", lambda: efficient.partial_softmax(torch.ones(1, 1, dtype=torch.long), t(1, 1)), TypeError, "scores must be a floating-point tensor")
case("lessons.efficient.partial_softmax", "keys", lambda: efficient.partial_softmax(t(2, 3), t(2, 2)), ValueError, "must share the number of keys k")
case("lessons.efficient.partial_softmax", "values' leading axes", lambda: efficient.partial_softmax(t(2, 3), t(4, 3, 2)), ValueError, "values' leading axes")
case("lessons.efficient.partial_softmax", "keep float", lambda: efficient.partial_softmax(t(2, 3), t(3, 2), torch.ones(2, 3)), TypeError, "keep must be a bool tensor")
case("lessons.efficient.partial_softmax", "keep shape", lambda: efficient.partial_softmax(t(2, 3), t(3, 2), torch.ones(2, 2, dtype=torch.bool)), ValueError, "keep must broadcast to the scores' shape")
case("lessons.efficient.partial_softmax", "devices", lambda: efficient.partial_softmax(t(2, 3), meta(3, 2)), ValueError, "scores, values must be on one device")
case("lessons.efficient.Partial", "wrong shapes", lambda: efficient.finish(efficient.Partial(t(3), t(3), t(2, 4))), ValueError, r"p must hold m \(..., Q\), s \(..., Q\) and o")
case("lessons.efficient.Partial", "not tensors", lambda: efficient.finish(efficient.Partial(1.0, 1.0, 1.0)), TypeError, "p must be a Partial")
case("lessons.efficient.merge", "b", lambda: efficient.merge(partial(), "x"), TypeError, "b must be a Partial")
case("lessons.efficient.merge", "queries", lambda: efficient.merge(partial(), efficient.partial_softmax(t(2, 2), t(2, 4))), ValueError, "a and b must be partials of the same queries")
case("lessons.efficient.merge", "dtypes", lambda: efficient.merge(partial(), efficient.Partial(*(x.double() for x in partial()))), TypeError, "a.o, b.o must have one dtype")
case("lessons.efficient.merge", "float8", lambda: efficient.merge(partial(), efficient.Partial(*(x.to(torch.float8_e5m2) for x in partial()))), TypeError, "b.m has dtype torch.float8_e5m2, which PyTorch stores")
case("lessons.efficient.finish", "p", lambda: efficient.finish("x"), TypeError, "p must be a Partial")
case("lessons.efficient.finish", "long parts", lambda: efficient.finish(efficient.Partial(*(x.long() for x in partial()))), TypeError, "p.m must be a floating-point tensor")
case("lessons.efficient.finish", "float8 parts", lambda: efficient.finish(efficient.Partial(*(x.to(torch.float8_e4m3fn) for x in partial()))), TypeError, r"p.m has dtype torch.float8_e4m3fn, which PyTorch stores .*\.float\(\)")
case("lessons.efficient.running_partials", "block", lambda: efficient.running_partials(t(2, 3), t(3, 2), 0), ValueError, "block must be >= 1")
case("lessons.efficient.running_partials", "0-D scores", lambda: efficient.running_partials(torch.tensor(1.0), t(3, 2), 1), ValueError, "must share the number of keys")
case("lessons.efficient.running_partials", "values", lambda: efficient.running_partials(t(2, 3), [[1.0]], 1), TypeError, "values must be a torch.Tensor")
case("lessons.efficient.band_mask", "num_queries bool", lambda: efficient.band_mask(True, 2), TypeError, "num_queries must be an int")
case("lessons.efficient.band_mask", "window 0", lambda: efficient.band_mask(2, 2, 0), ValueError, "window must be >= 1")
case("lessons.efficient.band_mask", "causal", lambda: efficient.band_mask(2, 2, causal="yes"), TypeError, "causal must be True or False")
case("lessons.efficient.band_mask", "device", lambda: efficient.band_mask(2, 2, device="nope"), ValueError, "device must name a device")
case("lessons.efficient.block_plan", "block_q", lambda: efficient.block_plan(4, 4, 0, 2), ValueError, "block_q must be >= 1")
case("lessons.efficient.block_plan", "causal", lambda: efficient.block_plan(4, 4, 2, 2, causal=1), TypeError, "causal must be True or False")
case("lessons.efficient.block_plan", "window bool", lambda: efficient.block_plan(4, 4, 2, 2, window=True), TypeError, "window must be an int")
case("lessons.efficient.receptive_field", "float mask", lambda: efficient.receptive_field(torch.ones(2, 2), 2), TypeError, "mask must be a bool tensor")
case("lessons.efficient.receptive_field", "not square", lambda: efficient.receptive_field(torch.ones(2, 3, dtype=torch.bool), 2), ValueError, "mask must be square")
case("lessons.efficient.receptive_field", "layers", lambda: efficient.receptive_field(torch.ones(2, 2, dtype=torch.bool), 0), ValueError, "layers must be >= 1")
TA = "lessons.efficient.tiled_attention"
case(TA, "q long", lambda: efficient.tiled_attention(torch.ones(1, 2, 2, dtype=torch.long), t(1, 2, 2), t(1, 2, 2)), TypeError, "q must be a floating-point tensor")
case(TA, "q 2-D", lambda: efficient.tiled_attention(t(2, 2), t(1, 2, 2), t(1, 2, 2)), ValueError, "q must be 3-D or 4-D")
case(TA, "dtypes", lambda: efficient.tiled_attention(t(1, 2, 2), t(1, 2, 2).double(), t(1, 2, 2)), TypeError, "q, k, v must have one dtype")
case(TA, "devices", lambda: efficient.tiled_attention(meta(1, 2, 2), t(1, 2, 2), t(1, 2, 2)), ValueError, "q, k, v must be on one device")
case(TA, "scale", lambda: efficient.tiled_attention(t(1, 2, 2), t(1, 2, 2), t(1, 2, 2), scale=0), ValueError, "scale must be > 0")
case(TA, "causal", lambda: efficient.tiled_attention(t(1, 2, 2), t(1, 2, 2), t(1, 2, 2), causal="y"), TypeError, "causal must be True or False")
case(TA, "valid_lens", lambda: efficient.tiled_attention(t(1, 2, 2), t(1, 2, 2), t(1, 2, 2), lens(3)), ValueError, "valid_lens must be <= the number of keys")
case(TA, "block_q bool", lambda: efficient.tiled_attention(t(1, 2, 2), t(1, 2, 2), t(1, 2, 2), block_q=True), TypeError, "block_q must be an int")
case("lessons.efficient.output_distances", "block", lambda: efficient.output_distances(t(2, 3), t(3, 2), 0), ValueError, "block must be >= 1")
case("lessons.efficient.output_distances", "values", lambda: efficient.output_distances(t(2, 3), t(4, 2), 1), ValueError, "must share the number of keys")
case("lessons.efficient.settling_block", "distances list", lambda: efficient.settling_block([0.5, 0.0], 0.1), TypeError, "distances must be a torch.Tensor")
case("lessons.efficient.settling_block", "no blocks", lambda: efficient.settling_block(t(2, 0), 0.1), ValueError, "distances must have shape")
case("lessons.efficient.settling_block", "NaN", lambda: efficient.settling_block(torch.tensor([float("nan")]), 0.1), ValueError, "distances")
case("lessons.efficient.settling_block", "tolerance", lambda: efficient.settling_block(t(2), -1.0), ValueError, "tolerance must be >= 0")
case("lessons.efficient.recorded_attention", "model", lambda: efficient.recorded_attention("model"), TypeError, "model must be a torch.nn.Module")
case("lessons.efficient.recorded_attention", "no attention", lambda: efficient.recorded_attention(torch.nn.Linear(2, 2)), ValueError, "model must hold at least one DotProductAttention")
case("lessons.efficient.tiled_heads", "model", lambda: efficient.tiled_heads(None), TypeError, "model must be a torch.nn.Module")
case("lessons.efficient.tiled_heads", "block_k", lambda: efficient.tiled_heads(layers.MultiHeadAttention(4, 2, 0.0), block_k=0), ValueError, "block_k must be >= 1")
case("lessons.efficient.tiled_heads", "dropout", lambda: efficient.tiled_heads(layers.MultiHeadAttention(4, 2, 0.5)), ValueError, "model must be in eval mode")

# --- generation ----------------------------------------------------------------------------------------------------
case("lessons.generation.kv_cache_bytes", "num_layers bool", lambda: generation.kv_cache_bytes(True, 1, 1, 1), TypeError, "num_layers must be an int")
case("lessons.generation.kv_cache_bytes", "num_tokens", lambda: generation.kv_cache_bytes(1, 1, 1, -1), ValueError, "num_tokens must be >= 0")
case("lessons.generation.repeat_kv", "n_rep", lambda: generation.repeat_kv(t(1, 1, 2, 2), 0), ValueError, "n_rep must be >= 1")
case("lessons.generation.repeat_kv", "x 3-D", lambda: generation.repeat_kv(t(1, 2, 2), 2), ValueError, "x must be 4-D")
case("lessons.generation.causal_attention", "dtypes", lambda: generation.causal_attention(t(1, 2, 1, 4), t(1, 2, 2, 4).half(), t(1, 2, 2, 4)), TypeError, "q, k, v must have one dtype")
case("lessons.generation.causal_attention", "devices", lambda: generation.causal_attention(t(1, 2, 1, 4), meta(1, 2, 2, 4), t(1, 2, 2, 4)), ValueError, "q, k, v must be on one device")
case("lessons.generation.causal_attention", "groups", lambda: generation.causal_attention(t(1, 3, 1, 4), t(1, 2, 2, 4), t(1, 2, 2, 4)), ValueError, r"k and v have G=2 heads \(axis 1\), which must divide q's H=3 heads")
case("lessons.generation.causal_attention", "T > L", lambda: generation.causal_attention(t(1, 2, 3, 4), t(1, 2, 2, 4), t(1, 2, 2, 4)), ValueError, "q has T=3 positions but k only L=2")
case("lessons.generation.rope_angles", "odd d_head", lambda: generation.rope_angles(torch.arange(2), 3), ValueError, "d_head must be even")
case("lessons.generation.rope_angles", "base", lambda: generation.rope_angles(torch.arange(2), 4, base="a"), TypeError, "base must be a real number")
case("lessons.generation.rope_angles", "positions list", lambda: generation.rope_angles([0, 1], 4), TypeError, "positions must be a torch.Tensor")
case("lessons.generation.rope_angles", "negative positions", lambda: generation.rope_angles(lens(-1), 4), ValueError, "positions must be >= 0")
case("lessons.generation.apply_rope", "x long", lambda: generation.apply_rope(torch.ones(2, 4, dtype=torch.long), torch.arange(2)), TypeError, "x must be a floating-point tensor")
case("lessons.generation.apply_rope", "x 1-D", lambda: generation.apply_rope(t(4), torch.arange(1)), ValueError, "x must have at least 2 dims")
case("lessons.generation.apply_rope", "positions float", lambda: generation.apply_rope(t(2, 4), t(2)), TypeError, "positions must be an integer tensor")
case("lessons.generation.apply_rope", "positions count", lambda: generation.apply_rope(t(2, 4), torch.arange(3)), ValueError, r"positions must have shape \(2,\)")
case("lessons.generation.apply_rope", "positions meta", lambda: generation.apply_rope(t(2, 4), meta(2, dtype=torch.long)), ValueError, "positions is on the meta device")
case("lessons.generation.KVCache", "batch_size", lambda: generation.KVCache(0, 1, 1, 1), ValueError, "batch_size must be >= 1")
case("lessons.generation.KVCache", "dtype", lambda: generation.KVCache(1, 1, 1, 1, dtype=torch.long), TypeError, "dtype must be a floating-point torch.dtype")
case("lessons.generation.KVCache", "float8 dtype", lambda: generation.KVCache(1, 1, 1, 1, dtype=torch.float8_e4m3fn), TypeError, r"dtype must be a floating-point torch.dtype PyTorch computes with \(float32, float64, float16 or bfloat16\), got dtype torch.float8_e4m3fn")
case("lessons.generation.KVCache", "device", lambda: generation.KVCache(1, 1, 1, 1, device=5), TypeError, "device must be a torch.device")
case("lessons.generation.KVCache", "append shape", lambda: kv().append(t(1, 2, 1, 3), t(1, 2, 1, 3)), ValueError, r"k must have shape \(B=1, G=2, T, d=4\)")
case("lessons.generation.KVCache", "append dtype", lambda: kv().append(t(1, 2, 1, 4).double(), t(1, 2, 1, 4).double()), TypeError, "k has dtype torch.float64 but the cache holds torch.float32")
case("lessons.generation.KVCache", "append device", lambda: kv().append(meta(1, 2, 1, 4), meta(1, 2, 1, 4)), ValueError, "k is on meta but the cache on cpu")
case("lessons.generation.KVCache", "capacity", lambda: kv().append(t(1, 2, 4, 4), t(1, 2, 4, 4)), ValueError, "beyond the cache's capacity=3")
case("lessons.generation.CausalSelfAttention", "num_heads", lambda: generation.CausalSelfAttention(8, 3), ValueError, "num_heads=3 must divide d_model=8")
case("lessons.generation.CausalSelfAttention", "rope", lambda: generation.CausalSelfAttention(8, 4, rope="yes"), TypeError, "rope must be True or False")
case("lessons.generation.CausalSelfAttention", "base", lambda: generation.CausalSelfAttention(8, 4, base=1), ValueError, "base must be > 1")
case("lessons.generation.CausalSelfAttention", "x long", lambda: layer()(torch.ones(1, 2, 8, dtype=torch.long)), TypeError, "x must be a floating-point tensor")
case("lessons.generation.CausalSelfAttention", "x dtype", lambda: layer()(t(1, 2, 8).double()), TypeError, "x has dtype torch.float64 but the layer's weights are torch.float32")
case("lessons.generation.CausalSelfAttention", "x device", lambda: layer()(meta(1, 2, 8)), ValueError, "x is on meta but the layer on cpu")
case("lessons.generation.CausalSelfAttention", "cache", lambda: layer()(t(1, 2, 8), cache="x"), TypeError, "cache must be a KVCache")
case("lessons.generation.CausalSelfAttention", "another layer's cache", lambda: layer()(t(1, 2, 8), cache=generation.KVCache(1, 1, 2, 4)), ValueError, "cache must hold G=2 K/V heads of d=2 features")
case("lessons.generation.CausalSelfAttention", "new_cache", lambda: layer().new_cache(True, 4), TypeError, "batch_size must be an int")
case("lessons.generation.CausalSelfAttention", "qk shape", lambda: layer()(t(1, 2, 8), qk=t(1, 3, 8)), ValueError, r"qk must have x's shape \(1, 2, 8\)")
case("lessons.generation.CausalSelfAttention", "qk dtype", lambda: layer()(t(1, 2, 8), qk=t(1, 2, 8).double()), TypeError, "x, qk must have one dtype")
case("lessons.generation.pool_kv_heads", "layer", lambda: generation.pool_kv_heads(torch.nn.Linear(2, 2), 1), TypeError, "layer must be a CausalSelfAttention")
case("lessons.generation.pool_kv_heads", "groups", lambda: generation.pool_kv_heads(layer(), 3), ValueError, "num_kv_heads=3 must divide the layer's 2 key/value heads")
case("lessons.generation.pool_kv_heads", "num_kv_heads 0", lambda: generation.pool_kv_heads(layer(), 0), ValueError, "num_kv_heads must be >= 1")
CD = "lessons.generation.CachedDecoder"
case(CD, "model", lambda: generation.CachedDecoder(torch.nn.Linear(2, 2)), TypeError, "model must be an AttentionOnlyTransformer")
case(CD, "num_kv_heads", lambda: generation.CachedDecoder(aot(), 3), ValueError, "num_kv_heads=3 must divide the model's num_heads=2")
case(CD, "num_kv_heads bool", lambda: generation.CachedDecoder(aot(), True), TypeError, "num_kv_heads must be an int")
case(CD, "pool", lambda: generation.CachedDecoder(aot(), 1, (1,)), ValueError, r"pool must hold layer indices in 0\.\.0")
case(CD, "pool str", lambda: generation.CachedDecoder(aot(), 1, "0"), TypeError, "pool must be a list of layer indices")
case(CD, "tokens float", lambda: generation.CachedDecoder(aot())(t(1, 2)), TypeError, "tokens must be an integer tensor")
case(CD, "tokens too long", lambda: generation.CachedDecoder(aot())(torch.zeros(1, 5, dtype=torch.long)), ValueError, r"positions 0 \.\. 4 must lie in 0 \.\. seq_len - 1 = 3")
case(CD, "tokens out of vocab", lambda: generation.CachedDecoder(aot())(torch.tensor([[3]])), ValueError, r"tokens must lie in 0\.\.2")
case(CD, "caches", lambda: generation.CachedDecoder(aot())(torch.zeros(1, 2, dtype=torch.long), caches="x"), TypeError, "caches must be a list of 1 KVCaches")

# --- induction -----------------------------------------------------------------------------------------------------
case("lessons.induction.InductionData", "tokens float", lambda: induction.InductionData(t(1, 4), lens(0), lens(2), 3), TypeError, "tokens must be an integer tensor")
case("lessons.induction.InductionData", "starts shape", lambda: induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0, 0), lens(2), 3), ValueError, r"starts must have shape \(1,\)")
case("lessons.induction.InductionData", "vocab_size bool", lambda: induction.InductionData(torch.tensor([[1, 1]]), lens(0), lens(1), True), TypeError, "vocab_size must be an int")
case("lessons.induction.InductionData", "no repeat", lambda: induction.InductionData(torch.tensor([[1, 2, 2, 1]]), lens(0), lens(2), 3), ValueError, "tokens must repeat")
case("lessons.induction.InductionData", "tokens out of vocab", lambda: induction.InductionData(torch.tensor([[5, 2, 5, 2]]), lens(0), lens(2), 3), ValueError, "tokens must lie in 0..vocab_size-1")
case("lessons.induction.InductionData", "index bool", lambda: data()[True], TypeError, "index must be an int, a slice or an integer or bool tensor")
case("lessons.induction.InductionData", "index range (IndexError, as Python's own)", lambda: data()[3], IndexError, "index 3 is out of range")
case("lessons.induction.make_induction_data", "num", lambda: induction.make_induction_data(0), ValueError, "num must be >= 1")
case("lessons.induction.make_induction_data", "seed", lambda: induction.make_induction_data(1, seed="a"), TypeError, "seed must be an int")
case("lessons.induction.make_induction_data", "generator", lambda: induction.make_induction_data(1, generator=5), TypeError, "generator must be a torch.Generator")
case("lessons.induction.make_induction_data", "max_len", lambda: induction.make_induction_data(1, seq_len=8, max_len=5), ValueError, "max_len=5 does not fit")
case("lessons.induction.make_induction_data", "min_len", lambda: induction.make_induction_data(1, min_len=1), ValueError, "min_len must be >= 2")
case("lessons.induction.causal_valid_lens", "batch_size", lambda: induction.causal_valid_lens(0, 3), ValueError, "batch_size must be >= 1")
case("lessons.induction.causal_valid_lens", "num_steps bool", lambda: induction.causal_valid_lens(2, True), TypeError, "num_steps must be an int")
AO = "lessons.induction.AttentionOnlyTransformer"
case(AO, "causal 'no' (was True)", lambda: induction.AttentionOnlyTransformer(causal="no"), TypeError, "causal must be True or False")
case(AO, "d_model", lambda: induction.AttentionOnlyTransformer(d_model=5, num_heads=2), ValueError, "d_model=5 must be divisible by num_heads=2")
case(AO, "seed", lambda: induction.AttentionOnlyTransformer(seed=None), TypeError, "seed must be an int")
case(AO, "tokens float", lambda: aot()(t(1, 2)), TypeError, "tokens must be an integer tensor")
case(AO, "tokens too long", lambda: aot()(torch.zeros(1, 5, dtype=torch.long)), ValueError, "tokens must have 1..seq_len=4 positions")
case(AO, "tokens out of vocab", lambda: aot()(torch.tensor([[3]])), ValueError, "tokens must lie in 0..vocab_size-1")
case(AO, "tokens device", lambda: aot()(meta(1, 2, dtype=torch.long)), ValueError, "tokens are on meta but the model on cpu")
case(AO, "ablate heads", lambda: aot().ablate(5).__enter__(), TypeError, "heads must be a list of")
case(AO, "ablate a pair", lambda: aot().ablate([5]).__enter__(), TypeError, r"heads must be \(layer, head\) pairs")
case(AO, "ablate a head", lambda: aot().ablate([(0, 9)]).__enter__(), ValueError, r"heads must be \(layer, head\) pairs with 0 <= layer < 1")
case("lessons.induction.in_context_loss", "logits long", lambda: induction.in_context_loss(torch.ones(1, 4, 3, dtype=torch.long), data()), TypeError, "logits must be a floating-point tensor")
case("lessons.induction.in_context_loss", "logits shape", lambda: induction.in_context_loss(t(1, 4, 5), data()), ValueError, r"logits must have shape \(N, T, V\) = \(1, 4, 3\)")
case("lessons.induction.in_context_loss", "data", lambda: induction.in_context_loss(t(1, 4, 3), "x"), TypeError, "data must be InductionData")
case("lessons.induction.in_context_accuracy", "NaN logits", lambda: induction.in_context_accuracy(torch.full((1, 4, 3), NAN), data()), ValueError, "logits must be finite")
case("lessons.induction.in_context_accuracy", "no sequences", lambda: induction.in_context_accuracy(t(0, 4, 3), data()[:0]), ValueError, "data must hold at least one sequence")
case("lessons.induction.previous_token_score", "weights long", lambda: induction.previous_token_score(torch.ones(2, 2, dtype=torch.long)), TypeError, "weights must be a floating-point tensor")
case("lessons.induction.previous_token_score", "T = 1", lambda: induction.previous_token_score(t(1, 1)), ValueError, "weights must have shape")
case("lessons.induction.induction_keys", "data", lambda: induction.induction_keys(torch.zeros(1, 4)), TypeError, "data must be InductionData")
case("lessons.induction.previous_token_weights", "weights long", lambda: induction.previous_token_weights(torch.ones(2, 2, dtype=torch.long)), TypeError, "weights must be a floating-point tensor")
case("lessons.induction.previous_token_weights", "T = 1", lambda: induction.previous_token_weights(t(1, 1)), ValueError, "weights must have shape")
case("lessons.induction.trained_model", "seed", lambda: induction.trained_model(-1), ValueError, "seed must be")
case("lessons.induction.trained_model", "seed float", lambda: induction.trained_model(1.5), TypeError, "seed must be")
case("lessons.induction.ov_circuit", "model", lambda: induction.ov_circuit(torch.nn.Linear(2, 2), 0, 0), TypeError, "model must be an AttentionOnlyTransformer")
case("lessons.induction.ov_circuit", "layer", lambda: induction.ov_circuit(aot(), 1, 0), ValueError, r"\(layer, head\) must satisfy layer < 1")
case("lessons.induction.ov_circuit", "head bool", lambda: induction.ov_circuit(aot(), 0, True), TypeError, "head must be an int")
case("lessons.induction.copying_score", "not square", lambda: induction.copying_score(t(2, 3)), ValueError, r"ov must have shape \(V, V\)")
case("lessons.induction.copying_score", "long", lambda: induction.copying_score(torch.eye(3, dtype=torch.long)), TypeError, "ov must be a floating-point tensor")
case("lessons.induction.copying_score", "NaN", lambda: induction.copying_score(torch.full((2, 2), NAN)), ValueError, "ov must be finite")
case("lessons.induction.head_scores", "model", lambda: induction.head_scores("m", data()), TypeError, "model must be an AttentionOnlyTransformer")
case("lessons.induction.head_scores", "data", lambda: induction.head_scores(aot(), "x"), TypeError, "data must be InductionData")
case("lessons.induction.head_scores", "ablate", lambda: induction.head_scores(aot(), data(), [(5, 0)]), ValueError, r"ablate must be \(layer, head\) pairs")
case("lessons.induction.induction_score", "shape", lambda: induction.induction_score(t(1, 4, 3), data()), ValueError, "weights must have shape")
case("lessons.induction.induction_score", "data", lambda: induction.induction_score(t(1, 4, 4), None), TypeError, "data must be InductionData")
case("lessons.induction.induction_score", "meta", lambda: induction.induction_score(meta(1, 4, 4), data()), ValueError, "weights is on the meta device")
case("lessons.induction.duplicate_token_score", "match data", lambda: induction.duplicate_token_score(t(2, 4, 4), data()), ValueError, r"weights \(..., N, T, T\) must match data.tokens")
case("lessons.induction.duplicate_token_score", "list", lambda: induction.duplicate_token_score([[1.0]], data()), TypeError, "weights must be a torch.Tensor")
case("lessons.induction.InductionLog", "probe", lambda: induction.InductionLog("x"), TypeError, "probe must be InductionData")
case("lessons.induction.InductionLog", "steps", lambda: induction.InductionLog(data(), steps=None), TypeError, "steps must be a list")
case("lessons.induction.InductionLog", "at(-1)", lambda: induction.InductionLog(data()).at(-1), ValueError, "step must be >= 0")
case("lessons.induction.InductionLog", "steps_to(2)", lambda: induction.InductionLog(data()).steps_to(2), ValueError, "accuracy must be <= 1")
TI = "lessons.induction.train_induction"
case(TI, "model", lambda: induction.train_induction(torch.nn.Linear(2, 2), data()), TypeError, "model must be an AttentionOnlyTransformer")
case(TI, "test", lambda: induction.train_induction(aot(), "x"), TypeError, "test must be InductionData")
case(TI, "vocabulary", lambda: induction.train_induction(induction.AttentionOnlyTransformer(4, 4, 4, 2, 1), data()), ValueError, "test must be over the model's 4 tokens")
case(TI, "lr", lambda: induction.train_induction(aot(), data(), lr="0.1"), TypeError, "lr must be a real number")
case(TI, "steps", lambda: induction.train_induction(aot(), data(), steps=0), ValueError, "steps must be >= 1")
case(TI, "seed", lambda: induction.train_induction(aot(), data(), seed="a"), TypeError, "seed must be an int")

# --- kernel regression, landscape, saturation, fill values ---------------------------------------------------------
KR = "lessons.kernel_regression."
case(KR + "gaussian_scores", "queries list", lambda: kernel_regression.gaussian_scores([0.0], t(2), 1.0), TypeError, "queries must be a torch.Tensor")
case(KR + "gaussian_scores", "queries 2-D", lambda: kernel_regression.gaussian_scores(t(2, 1), t(2), 1.0), ValueError, "queries must be 1-D")
case(KR + "gaussian_scores", "bandwidth 0", lambda: kernel_regression.gaussian_scores(t(2), t(2), 0.0), ValueError, "bandwidth must be > 0")
case(KR + "gaussian_scores", "bandwidth inf", lambda: kernel_regression.gaussian_scores(t(2), t(2), INF), ValueError, "bandwidth must be a finite number")
case(KR + "gaussian_scores", "bandwidth bool", lambda: kernel_regression.gaussian_scores(t(2), t(2), True), TypeError, "bandwidth must be a real number")
case(KR + "gaussian_scores", "devices", lambda: kernel_regression.gaussian_scores(t(2), meta(2), 1.0), ValueError, "queries, keys must be on one device")
case(KR + "nadaraya_watson_weights", "keys long", lambda: kernel_regression.nadaraya_watson_weights(t(2), lens(1, 2), 1.0), TypeError, "keys must be a floating-point tensor")
case(KR + "nadaraya_watson_weights", "bandwidth str", lambda: kernel_regression.nadaraya_watson_weights(t(2), t(2), "1"), TypeError, "bandwidth must be a real number")
case(KR + "nadaraya_watson", "values shape", lambda: kernel_regression.nadaraya_watson(t(2), t(3), t(2), 1.0), ValueError, r"values must have the keys' shape \(3,\)")
case(KR + "nadaraya_watson", "values long", lambda: kernel_regression.nadaraya_watson(t(2), t(2), lens(1, 2), 1.0), TypeError, "values must be a floating-point tensor")
case(KR + "nadaraya_watson", "values device", lambda: kernel_regression.nadaraya_watson(t(2), t(2), meta(2), 1.0), ValueError, "keys, values must be on one device")
case("lessons.landscape.key_grid", "limit", lambda: landscape.key_grid(0), ValueError, "limit must be > 0")
case("lessons.landscape.key_grid", "limit str", lambda: landscape.key_grid("3"), TypeError, "limit must be a real number")
case("lessons.landscape.key_grid", "size", lambda: landscape.key_grid(1.0, 1), ValueError, "size must be >= 2")
case("lessons.landscape.key_grid", "size bool", lambda: landscape.key_grid(1.0, True), TypeError, "size must be an int")
AL = "lessons.landscape.additive_landscape"
case(AL, "query long", lambda: landscape.additive_landscape(lens(1, 2), t(3, 2), t(4, 2), t(4, 2), t(4)), TypeError, "query must be a floating-point tensor")
case(AL, "keys", lambda: landscape.additive_landscape(t(2), lens(1, 2), t(4, 2), t(4, 2), t(4)), TypeError, "keys must be a floating-point tensor")
case(AL, "W_q shape", lambda: landscape.additive_landscape(t(2), t(3, 2), t(4, 3), t(4, 2), t(4)), ValueError, r"W_q must be a tensor of shape \(h, d\) = \(4, 2\)")
case(AL, "W_k list", lambda: landscape.additive_landscape(t(2), t(3, 2), t(4, 2), [[1.0]], t(4)), TypeError, "W_k must be a torch.Tensor")
case(AL, "query meta", lambda: landscape.additive_landscape(meta(2), t(3, 2), t(4, 2), t(4, 2), t(4)), ValueError, "query is on the meta device")
case("lessons.landscape.dot_plane", "keys d", lambda: landscape.dot_plane(t(2), t(3, 3)), ValueError, r"keys must be a tensor \(..., d\) with query's d = 2")
case("lessons.landscape.dot_plane", "keys long", lambda: landscape.dot_plane(t(2), torch.ones(3, 2, dtype=torch.long)), TypeError, "keys must be a floating-point tensor")
case("lessons.landscape.dot_plane", "query 2-D", lambda: landscape.dot_plane(t(1, 2), t(3, 2)), ValueError, "query must have shape 1-D")
case("lessons.landscape.weight_ratio", "empty", lambda: landscape.weight_ratio(t(0)), ValueError, "scores must hold at least one score")
case("lessons.landscape.weight_ratio", "NaN", lambda: landscape.weight_ratio(torch.tensor([NAN, 1.0])), ValueError, "scores must be finite")
case("lessons.landscape.weight_ratio", "2-D", lambda: landscape.weight_ratio(t(2, 2)), ValueError, "scores must have shape")
case("lessons.landscape.spread_parts", "one key", lambda: landscape.spread_parts(t(1, 3), t(3)), ValueError, r"features must have shape \(K, h\) with K >= 2 keys")
case("lessons.landscape.spread_parts", "w_v size", lambda: landscape.spread_parts(t(4, 3), t(2)), ValueError, r"w_v must have shape \(3,\)")
case("lessons.landscape.spread_parts", "features NaN", lambda: landscape.spread_parts(torch.full((2, 3), NAN), t(3)), ValueError, "features must be finite")
case("lessons.landscape.spread_parts", "features list", lambda: landscape.spread_parts([[1.0, 2.0]], t(2)), TypeError, "features must be a torch.Tensor")
case("lessons.landscape.score_spreads", "one key", lambda: landscape.score_spreads(t(2, 1, 3), t(3)), ValueError, r"features must have shape \(..., K, h\) with K >= 2 keys")
case("lessons.landscape.score_spreads", "valid int", lambda: landscape.score_spreads(t(2, 3), t(3), torch.ones(2, dtype=torch.long)), TypeError, "valid must be a bool tensor")
case("lessons.landscape.score_spreads", "valid shape", lambda: landscape.score_spreads(t(2, 3), t(3), torch.ones(3, dtype=torch.bool)), ValueError, r"valid must have the features' shape without h, \(2,\)")
case("lessons.landscape.score_spreads", "one valid key", lambda: landscape.score_spreads(t(2, 3), t(3), torch.tensor([True, False])), ValueError, "valid must leave at least 2 keys in every row")
case("lessons.landscape.pixel_image", "cmap", lambda: landscape.pixel_image(np.zeros((2, 2)), "nope", 0, 0, 1, 1), ValueError, "cmap must be a matplotlib colour map name")
case("lessons.landscape.pixel_image", "levels NaN", lambda: landscape.pixel_image(np.full((2, 2), NAN), "Reds", 0, 0, 1, 1), ValueError, "levels must not hold NaN")
case("lessons.landscape.pixel_image", "levels 1-D", lambda: landscape.pixel_image(np.zeros(2), "Reds", 0, 0, 1, 1), ValueError, r"levels must be a 2-D array \(R, C\)")
case("lessons.landscape.pixel_image", "levels complex", lambda: landscape.pixel_image(np.zeros((2, 2), dtype=complex), "Reds", 0, 0, 1, 1), TypeError, "levels must hold real numbers, got dtype complex128")
case("lessons.landscape.pixel_image", "levels float8", lambda: landscape.pixel_image(t(2, 2, dtype=torch.float8_e4m3fn), "Reds", 0, 0, 1, 1), TypeError, "levels has dtype torch.float8_e4m3fn")
case("lessons.landscape.pixel_image", "width", lambda: landscape.pixel_image(np.zeros((2, 2)), "Reds", 0, 0, 0, 1), ValueError, "width must be > 0")
case("lessons.landscape.pixel_image", "x", lambda: landscape.pixel_image(np.zeros((2, 2)), "Reds", "a", 0, 1, 1), TypeError, "x must be a real number")
LS = "lessons.landscape.landscape_svg"
case(LS, "panels", lambda: landscape.landscape_svg(None, t(2), t(1, 2)), TypeError, "panels must be a non-empty list")
case(LS, "a panel", lambda: landscape.landscape_svg([("a", t(3, 3))], t(2), t(1, 2)), TypeError, r"panels\[0\] must be a triple")
case(LS, "vmax", lambda: landscape.landscape_svg([("a", t(3, 3), 0)], t(2), t(1, 2)), ValueError, r"panels\[0\] vmax must be > 0")
case(LS, "NaN scores", lambda: landscape.landscape_svg([("a", torch.full((3, 3), NAN), 1.0)], t(2), t(1, 2)), ValueError, r"panels\[0\] scores must be finite")
case(LS, "marked", lambda: landscape.landscape_svg([("a", t(3, 3), 1.0)], t(2), t(3)), ValueError, r"marked must be a tensor of shape \(M, 2\)")
case(LS, "query NaN", lambda: landscape.landscape_svg([("a", t(3, 3), 1.0)], torch.tensor([NAN, 0.0]), t(1, 2)), ValueError, "query must be finite")
case(LS, "limit", lambda: landscape.landscape_svg([("a", t(3, 3), 1.0)], t(2), t(1, 2), limit=0), ValueError, "limit must be > 0")
NW = "lessons.saturation.nested_weights"
case(NW, "d 0", lambda: saturation.nested_weights(t(2, 4), t(3, 4), 0, 1.0, True), ValueError, "d must be >= 1")
case(NW, "d too big", lambda: saturation.nested_weights(t(2, 4), t(3, 4), 5, 1.0, True), ValueError, r"d must be an int in 1..4")
case(NW, "d bool", lambda: saturation.nested_weights(t(2, 4), t(3, 4), True, 1.0, True), TypeError, "d must be an int")
case(NW, "tau", lambda: saturation.nested_weights(t(2, 4), t(3, 4), 2, 0.0, True), ValueError, "tau must be > 0")
case(NW, "scaled", lambda: saturation.nested_weights(t(2, 4), t(3, 4), 2, 1.0, "yes"), TypeError, "scaled must be True or False")
case(NW, "queries 1-D", lambda: saturation.nested_weights(t(4), t(3, 4), 2, 1.0, True), ValueError, "queries must be 2-D")
case(NW, "no keys", lambda: saturation.nested_weights(t(2, 4), t(0, 4), 2, 1.0, True), ValueError, "keys must hold at least one key")
SQ = "lessons.saturation.saturation_per_query"
case(SQ, "d 0", lambda: saturation.saturation_per_query(0, 1.0, torch.Generator()), ValueError, "d must be >= 1")
case(SQ, "one key", lambda: saturation.saturation_per_query(4, 1.0, torch.Generator(), K=1), ValueError, "K must be >= 2")
case(SQ, "scale", lambda: saturation.saturation_per_query(4, 0.0, torch.Generator()), ValueError, "scale must be > 0")
case(SQ, "generator", lambda: saturation.saturation_per_query(4, 1.0, 0), TypeError, "g must be a torch.Generator")
case("lessons.saturation.row_stats", "NaN", lambda: saturation.row_stats(torch.full((1, 2), NAN)), ValueError, "weights must be finite")
case("lessons.saturation.row_stats", "1-D", lambda: saturation.row_stats(t(3)), ValueError, "weights must be 2-D")
case("lessons.saturation.row_stats", "no keys", lambda: saturation.row_stats(t(2, 0)), ValueError, "weights must hold at least one key")
case("lessons.saturation.weights_svg", "panels", lambda: saturation.weights_svg([]), TypeError, "panels must be a non-empty list")
case("lessons.saturation.weights_svg", "shapes", lambda: saturation.weights_svg([("a", t(2, 3)), ("b", t(2, 4))]), ValueError, r"panels\[1\] weights must have the first panel's shape")
case("lessons.saturation.weights_svg", "title", lambda: saturation.weights_svg([(1, t(2, 3))]), TypeError, r"panels\[0\] title must be a str")
case("lessons.saturation.weights_svg", "no rows", lambda: saturation.weights_svg([("a", t(0, 3))]), ValueError, r"panels\[0\] weights must hold at least one query")
case("lessons.saturation.weights_svg", "cell", lambda: saturation.weights_svg([("a", t(2, 3))], cell=0), ValueError, "cell must be >= 1")
FO = "lessons.fill_values.fill_outcome"
case(FO, "dtype", lambda: fill_values.fill_outcome(t(1, 1, 2), lens(1), "float64", "-inf", False), ValueError, "dtype must be one of")
case(FO, "fill", lambda: fill_values.fill_outcome(t(1, 1, 2), lens(1), "float32", "-1", False), ValueError, "fill must be one of")
case(FO, "zero_masked", lambda: fill_values.fill_outcome(t(1, 1, 2), lens(1), "float32", "-inf", "yes"), TypeError, "zero_masked must be True or False")
case(FO, "valid_lens float", lambda: fill_values.fill_outcome(t(1, 1, 2), t(1), "float32", "-inf", False), TypeError, "valid_lens must be an integer tensor")
case(FO, "valid_lens range", lambda: fill_values.fill_outcome(t(1, 1, 2), lens(3), "float32", "-inf", False), ValueError, r"valid_lens must lie in 0..K=2")
case(FO, "scores long", lambda: fill_values.fill_outcome(torch.ones(1, 1, 2, dtype=torch.long), lens(1), "float32", "-inf", False), TypeError, "scores must be a floating-point tensor")
case("lessons.fill_values.FillOutcome", "keep", lambda: fill_values.FillOutcome(None, torch.ones(1, 1, 2), False, "x"), TypeError, "keep must be a bool tensor")
case("lessons.fill_values.FillOutcome", "neither", lambda: fill_values.FillOutcome(None, torch.ones(1, 1, 2, dtype=torch.bool), False, None), ValueError, "either weights or an error")
case("lessons.fill_values.FillOutcome", "grad_finite", lambda: fill_values.FillOutcome(None, torch.ones(1, 1, 2, dtype=torch.bool), "yes", "x"), TypeError, "grad_finite must be True or False")
case("lessons.fill_values.outcome_svg", "outcome", lambda: fill_values.outcome_svg("x"), TypeError, "outcome must be a FillOutcome")
case("lessons.fill_values.outcome_svg", "title", lambda: fill_values.outcome_svg(outcome(), title=None), TypeError, "title must be a str")
case("lessons.fill_values.outcome_svg", "cell", lambda: fill_values.outcome_svg(outcome(), cell=0), ValueError, "cell must be >= 1")
case("lessons.fill_values.outcome_caption", "outcome", lambda: fill_values.outcome_caption(None), TypeError, "outcome must be a FillOutcome")
# fmt: on

COVERED = {name for name, *_ in CASES}


@pytest.mark.parametrize(("name", "label", "call", "error", "match"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_bad_input_gets_a_clear_error_naming_the_argument(name, label, call, error, match):
    with pytest.raises(error, match=match) as raised:
        call()
    assert type(raised.value) is error, f"{name} ({label}) raised {type(raised.value).__name__}, a subclass"


def test_explorers_never_hide_errors():
    """A failing frame shows its error (never blank), every other frame is still drawn, `last_error` keeps it."""

    def compute(lens: torch.Tensor) -> torch.Tensor:
        if int(lens[0]) == 1:
            raise RuntimeError("length 1 is broken")
        return masking.masked_softmax(t(2, 2, 3), lens)

    explorer = valid_lens.explore_valid_lens(compute, 2, 2, 3, valid_lens=lens(2, 3))
    assert isinstance(explorer.last_error, RuntimeError)
    frames = [frame for row in explorer.model.frames.values() for frame, _ in row.values()]
    assert len(frames) == explorer.model.count == 2 * 4 and all(frames)  # nothing blank
    failed = [frame for frame in frames if "length 1 is broken" in frame]
    assert len(failed) == 2 and all('class="ah-error"' in frame for frame in failed)
    assert all(frame.startswith("<svg") for frame in frames if frame not in failed)
