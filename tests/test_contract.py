"""The package's contract, tested over its whole public API (see `attention_helpers.__doc__`):

(a) every public name of every module has bad-input cases (the union of `COVERED` in tests/test_bad_input*.py);
(b) no public function or method modifies its inputs: each is called on example inputs, float16 and bfloat16 ones
    where it takes floats, and every tensor, array and list it was given is compared with a copy after the call
    (models, caches and widgets are not compared: training, `append` and explorers change them on purpose; d2l's
    one-line torch aliases are torch's own functions, not this package's code, and have no example: `TORCH_ALIASES`);
(c) rows with nothing to attend to (valid length 0) give zeros with finite gradients, in every precision;
(d) in float16, scores are scaled before the product: q·k may overflow where q·k/√d fits.

The example calls (`EXAMPLES`) are small so that the file runs in about two seconds.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pkgutil
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import pytest
import torch
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import attention_helpers
from attention_helpers import d2l, layers, masking, plotting, transformer
from attention_helpers._validate import COMPUTABLE_DTYPES
from attention_helpers.explore import base, controls, heatmap, model, picture, pictures, svg, valid_lens, view
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
    self_attention,
)

instrument = importlib.import_module("attention_helpers.explore.instrument")  # the package exports its function

TESTS = Path(__file__).resolve().parent

# --- (a) which names must be covered ----------------------------------------------------------------------------

# Not part of the contract, with the reason.
SKIPPED_MODULES = {
    "tools": "maintainer tooling (refresh, fold, fragility, the book, the gallery, widget state, the save hook), not "
    "imported by notebooks; tested in tests/tools/",
    "checks": "the exercises' self-checks: they grade a learner's answer and never raise on a wrong one",
    "_validate": "private: the checks themselves, tested in tests/core/test_validate.py",
}


# The claims harness's modules (lessons.claims and every lessons.<topic>_claims): measurements over random draws and
# training seeds registered for `python -m attention_helpers.tools.claims`, tested in tests/lessons/test_claims.py and
# test_<topic>_claims.py. The few names notebooks call (load_records, copy_distance_accuracy, gapped_data) have their
# bad-input cases there.
def is_claims_module(short: str) -> bool:
    return short == "lessons.claims" or short.endswith("_claims")


# Public constants take no input, so they have nothing to refuse: name -> the module that defines it (or, for d2l's
# data names, the module that hands them out under d2l's names).
CONSTANTS = {
    "MAX_FRAMES": "explore.model",
    "MAX_SLOTS": "explore.controls",
    "SLIDERS": "explore.controls",
    "SELECTIONS": "explore.controls",
    "BOOLEANS": "explore.controls",
    "SLIDER_TRACK": "explore.controls",
    "PLOT_KEYWORDS": "explore.heatmap",
    "STYLE": "explore.view",
    "ACCESSIBILITY_JS": "explore.view",
    "WRAP": "explore.view",
    "PALETTE": "explore.svg",
    "QUERY_COLOUR": "explore.pictures",
    "KEY_COLOUR": "explore.pictures",
    "FIT_COLOUR": "explore.pictures",
    "DEFAULT_CMAP": "plotting",
    "SVG_MASKED": "plotting",
    "WHITE_INK": "plotting",
    "ATTENTIONS": "lessons.dates",
    "BOS": "lessons.dates",
    "FIELDS": "lessons.dates",
    "FIRST_DATE": "lessons.dates",
    "FORMATS": "lessons.dates",
    "HELD_OUT_FORMATS": "lessons.dates",
    "INPUT_CHARS": "lessons.dates",
    "LAST_DATE": "lessons.dates",
    "MONTHS": "lessons.dates",
    "OUTPUT_CHARS": "lessons.dates",
    "OUTPUT_FIELDS": "lessons.dates",
    "OUTPUT_LENGTH": "lessons.dates",
    "PAD": "lessons.dates",
    "WEEKDAYS": "lessons.dates",
    "CHECKPOINT_STEPS": "lessons.dates_train",
    "DateWarning": "lessons.dates_train",  # a warning category: filtered by, never called with input
    "DATA_DIR": "lessons.dates_train",
    "HELD_OUT_SIZE": "lessons.dates_train",
    "DTYPES": "lessons.fill_values",
    "PROBE": "lessons.self_attention",
    "RULES": "lessons.self_attention",
    "VARIANTS": "lessons.self_attention",
    "WORDS": "lessons.self_attention",
    "FILLS": "lessons.fill_values",
    "float32": "d2l",  # torch.float32, under d2l's name
    "int32": "d2l",  # torch.int32
    "int64": "d2l",  # torch.int64
    "plt": "d2l",  # matplotlib.pyplot, which d2l's cells call as d2l.plt
}


def modules() -> list[str]:
    """Every module of the package, relative names ("" is the package itself), the skipped ones left out."""
    names = [""]
    for info in pkgutil.walk_packages(attention_helpers.__path__, "attention_helpers."):
        short = info.name.removeprefix("attention_helpers.")
        if short.split(".")[0] not in SKIPPED_MODULES and not is_claims_module(short):
            names.append(short)
    return names


def home(obj: object) -> str:
    """A function or class's canonical name, "module.name", where it is defined (re-exports share it)."""
    return obj.__module__.removeprefix("attention_helpers.") + "." + obj.__qualname__


def canonical(name: str, attribute: str) -> str | None:
    """The name a public attribute of module `name` counts under: where a function or class of ours is defined
    ("module.name"; re-exports such as d2l.AdditiveAttention share it), "d2l.name" for d2l's torch aliases, or
    None for a constant."""
    obj = getattr(importlib.import_module(f"attention_helpers.{name}" if name else "attention_helpers"), attribute)
    if not callable(obj) or isinstance(obj, type) and issubclass(obj, Warning):
        return None
    if name == "d2l" and not obj.__module__.startswith("attention_helpers"):
        return f"d2l.{attribute}"  # the porting aid's torch aliases: torch's own, under d2l's names
    assert obj.__module__.startswith("attention_helpers"), f"{name}.{attribute} is not ours"
    return home(obj)


def public_names() -> tuple[set[str], set[str]]:
    """(canonical names of every public function and class, "module.name" of every public constant)."""
    callables, constants = set(), set()
    for name in modules():
        module = importlib.import_module(f"attention_helpers.{name}" if name else "attention_helpers")
        for attribute in module.__all__:
            found = canonical(name, attribute)
            if found is None:
                constants.add(f"{name}.{attribute}")
            else:
                callables.add(found)
    return callables, constants


def covered() -> tuple[set[str], set[str]]:
    """(the canonical names that the union of COVERED over tests/test_bad_input*.py reaches, the entries that name
    no public name). An entry may name a re-export (d2l.masked_softmax counts for masking.masked_softmax) or a
    constant (checked there against its value; constants are listed in CONSTANTS here)."""
    public = {name: set(importlib.import_module(f"attention_helpers.{name}").__all__) for name in modules() if name}
    names, unknown = set(), set()
    for path in sorted(TESTS.glob("test_bad_input*.py")):
        for entry in importlib.import_module(path.stem).COVERED:
            module, _, attribute = entry.rpartition(".")
            if attribute not in public.get(module, ()):
                unknown.add(entry)
            elif (found := canonical(module, attribute)) is not None:
                names.add(found)
    return names, unknown


def test_every_public_name_has_bad_input_cases():
    callables, constants = public_names()
    for where in constants:
        module, _, name = where.rpartition(".")
        assert name in CONSTANTS, f"{where} is a public constant: list it in CONSTANTS (or make it callable)"
        defined = importlib.import_module(f"attention_helpers.{CONSTANTS[name]}")
        assert getattr(defined, name) is getattr(importlib.import_module(f"attention_helpers.{module}"), name)
    have, unknown = covered()
    missing = callables - have
    assert not missing, f"public names with no bad-input case: {sorted(missing)}"
    assert not unknown, f"COVERED names that are not public (renamed?): {sorted(unknown)}"


# --- example calls ------------------------------------------------------------------------------------------------

FLOATS = (torch.float32, torch.float16, torch.bfloat16)


def rand(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def lens(*values: int) -> torch.Tensor:
    return torch.tensor(values)


def slider(value: int = 1, top: int = 2) -> widgets.IntSlider:
    return widgets.IntSlider(value=value, min=0, max=top)


def circle(n: int = 0) -> str:
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle r="{n}"/></svg>'


def softmax_of(scores: torch.Tensor) -> Callable[..., torch.Tensor]:
    return lambda valid_lens, **_: masking.masked_softmax(scores, valid_lens)


def module(layer: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    torch.manual_seed(0)
    return layer.to(dtype).eval()


def a_sweep() -> cost.Sweep:
    return cost.Sweep([2, 4, 8], "s", {"a": [1.0, 2.0, 4.0], "b": [1.0, 4.0, 16.0]})


def an_axes() -> Axes:
    """A matplotlib Axes on a figure that pyplot does not hold (nothing to close)."""
    return Figure().add_subplot()


def a_method(self: object) -> str:
    return "added"


def region() -> model.Region:
    return model.Region("all", [controls.Axis("n", slider())], lambda values: ("", ""))


def an_explorer() -> heatmap.HeatmapExplorer:
    return valid_lens.explore_valid_lens(softmax_of(rand(2, 2, 3)), 2, 2, 3, valid_lens=lens(1, 0))


# name -> function(dtype) -> [(function, args, kwargs), ...]; the dtype is float32 unless the name is in HALF.
Call = tuple[Callable[..., object], tuple, dict]
EXAMPLES: dict[str, Callable[[torch.dtype], list[Call]]] = {
    # masking
    "masking.check_valid_lens": lambda dt: [(masking.check_valid_lens, (lens(2, 0), 2, None, 3, torch.device("cpu")), {})],
    "masking.masked_softmax": lambda dt: [
        (masking.masked_softmax, (rand(2, 3, 4, dtype=dt), lens(2, 0)), {}),
        (masking.masked_softmax, (rand(2, 3, 4, dtype=dt), torch.tensor([[0, 1, 4], [2, 0, 3]])), {}),
        (masking.masked_softmax, (rand(2, 3, 4, dtype=dt),), {}),
        (masking.masked_softmax, (rand(2, 3, 4, dtype=dt), torch.tensor([2.0, 0.0])), {}),  # whole float lengths
    ],
    "masking.sequence_mask": lambda dt: [(masking.sequence_mask, (rand(2, 4, dtype=dt), lens(1, 0)), {})],
    "masking.valid_lens_to_mask": lambda dt: [
        (masking.valid_lens_to_mask, (lens(1, 0), 3, 4), {}),
        (masking.valid_lens_to_mask, (torch.tensor([1.0, 0.0]), 3, 4), {}),  # read as integers, not converted in place
    ],
    # layers
    "layers.AdditiveAttention": lambda dt: [
        (module(layers.AdditiveAttention(4, 3, 5, 0.0), dt), (rand(2, 3, 3, dtype=dt), rand(2, 4, 4, dtype=dt), rand(2, 4, 2, dtype=dt), lens(2, 0)), {})
    ],
    "layers.DotProductAttention": lambda dt: [
        (module(layers.DotProductAttention(0.0), dt), (rand(2, 3, 4, dtype=dt), rand(2, 5, 4, dtype=dt), rand(2, 5, 2, dtype=dt), lens(3, 0)), {})
    ],
    "layers.MultiHeadAttention": lambda dt: [
        (module(layers.MultiHeadAttention(4, 4, 4, 8, 2, 0.0), dt), (rand(2, 3, 4, dtype=dt), rand(2, 5, 4, dtype=dt), rand(2, 5, 4, dtype=dt), lens(3, 0)), {})
    ],
    "layers.transpose_qkv": lambda dt: [(layers.transpose_qkv, (rand(2, 3, 8, dtype=dt), 2), {})],
    "layers.transpose_output": lambda dt: [(layers.transpose_output, (rand(4, 3, 4, dtype=dt), 2), {})],
    "layers.check_qkv": lambda dt: [
        (layers.check_qkv, (rand(2, 3, 4, dtype=dt), rand(2, 5, 4, dtype=dt), rand(2, 5, 2, dtype=dt), [4, 4, 2], ["q", "k", "v"]), {})
    ],
    # transformer
    "transformer.positional_encoding": lambda dt: [(transformer.positional_encoding, (5, 6), {})],
    "transformer.PositionalEncoding": lambda dt: [(module(transformer.PositionalEncoding(4, 0.0, max_len=6), dt), (rand(2, 3, 4, dtype=dt),), {})],
    "transformer.ScaledDotProductAttention": lambda dt: [
        (module(transformer.ScaledDotProductAttention(2.0, 0.0), dt), (rand(2, 2, 3, 4, dtype=dt), rand(2, 2, 5, 4, dtype=dt), rand(2, 2, 5, 3, dtype=dt), torch.ones(2, 1, 1, 5, dtype=torch.bool)), {})
    ],
    "transformer.MultiHeadAttentionSublayer": lambda dt: [
        (module(transformer.MultiHeadAttentionSublayer(2, 8, 4, 4, 0.0), dt), (rand(2, 3, 8, dtype=dt), rand(2, 5, 8, dtype=dt), rand(2, 5, 8, dtype=dt), torch.ones(2, 1, 5, dtype=torch.bool)), {})
    ],
    "transformer.PositionwiseFeedForward": lambda dt: [
        (module(transformer.PositionwiseFeedForward(4, 8, 0.0), dt), (rand(2, 3, 4, dtype=dt),), {})
    ],
    # plotting
    "plotting.as_panels": lambda dt: [(plotting.as_panels, (rand(1, 2, 3, 4, dtype=dt),), {})],
    "plotting.heatmaps_svg": lambda dt: [(plotting.heatmaps_svg, (rand(1, 2, 3, 4, dtype=dt), "keys", "queries"), {"mask": torch.ones(1, 1, 1, 4, dtype=torch.bool)})],
    "plotting.show_heatmaps": lambda dt: [(plotting.show_heatmaps, (rand(1, 1, 2, 2, dtype=dt), "keys", "queries", ["a"]), {})],
    "plotting.Heatmaps": lambda dt: [(repr, (plotting.show_heatmaps(rand(1, 1, 2, 2), "k", "q"),), {})],
    "plotting.lecture_mode": lambda dt: [(plotting.lecture_mode, (False,), {})],
    "plotting.colour_limits": lambda dt: [(plotting.colour_limits, (np.array([[[[0.5, np.nan], [2.0, -1.0]]]]),), {"vmax": 3})],
    "plotting.heatmap_cell_colours": lambda dt: [
        (plotting.heatmap_cell_colours, (plotting.heatmaps_svg(rand(1, 2, 2, 3), "k", "q", cells=cells),), {}) for cells in ("rects", "image")
    ],
    "plotting.static_png": lambda dt: [(plotting.static_png, (rand(1, 1, 2, 2, dtype=dt), "keys", "queries", ["a"]), {"vmin": -3.0})],
    # explorers
    "explore.base.Explorer": lambda dt: [(base.Explorer, ({"n": slider()},), {})],
    "explore.base.control_names": lambda dt: [(base.control_names, ("row_sliders", ["n"], {"n": slider(), "m": slider()}), {})],
    "explore.heatmap.as_weights": lambda dt: [
        (heatmap.as_weights, (torch.softmax(rand(2, 2, 3), -1).to(dt),), {}),
        (heatmap.as_weights, (np.array([[[0.25, 0.75]]], dtype=np.float32),), {}),
    ],
    "explore.controls.check_axes": lambda dt: [(controls.check_axes, ([controls.Axis("n", slider())],), {})],
    "explore.model.count_frames": lambda dt: [(model.count_frames, ([region(), region()],), {})],
    "explore.controls.check_controls": lambda dt: [(controls.check_controls, ({"n": slider()},), {})],
    "explore.controls.option_values": lambda dt: [(controls.option_values, ([("a", 1), ("b", 2)],), {})],
    "explore.controls.slider_width": lambda dt: [(controls.slider_width, (slider(),), {})],
    "explore.controls.Axis": lambda dt: [(controls.Axis, ("n", slider()), {})],
    "explore.model.error_html": lambda dt: [(model.error_html, (ValueError("<bad>"), {"n": 1}), {})],
    "explore.model.Region": lambda dt: [(model.Region, ("all", [controls.Axis("n", slider())], lambda values: ("", "")), {})],
    "explore.model.FrameModel": lambda dt: [(model.FrameModel, ([model.Region("all", [controls.Axis("n", slider())], lambda v: ("", ""))], 10), {})],
    "explore.view.wrap_row": lambda dt: [(view.wrap_row, ([slider()],), {})],
    "explore.view.Frames": lambda dt: [(view.Frames([]).html, ("<b>x</b>", ["ah-view"]), {}), (view.Frames, ([slider()],), {})],
    "explore.view.scalable": lambda dt: [(view.scalable, (circle(1),), {})],
    "explore.view.labelled": lambda dt: [(view.labelled, (circle(1), "a circle of radius 1"), {})],
    "explore.view.style_widget": lambda dt: [(view.style_widget, (), {})],
    "explore.view.frame_tree": lambda dt: [(view.frame_tree, ([controls.Axis("n", slider())], lambda c: str(c), ["x"], view.Frames([])), {})],
    "explore.view.swap_widgets": lambda dt: [(view.swap_widgets, (widgets.VBox([slider()]), {}), {})],
    "explore.view.KernelNote": lambda dt: [(view.KernelNote, (["n"], [slider()], []), {})],
    "explore.instrument.instrument": lambda dt: [(instrument.instrument, (instrument.enabled(),), {})],
    "explore.instrument.enabled": lambda dt: [(instrument.enabled, (), {})],
    "explore.picture.PictureExplorer": lambda dt: [(picture.PictureExplorer, (circle, {"n": slider()}), {"caption": str})],
    "explore.picture.LabelledSVG": lambda dt: [(picture.LabelledSVG, (circle(1), "a circle of radius 1"), {})],
    "explore.heatmap.HeatmapExplorer": lambda dt: [
        (heatmap.HeatmapExplorer, (lambda n: masking.masked_softmax(rand(2, 2, 3, dtype=dt), lens(n, 0)), {"n": slider(1, 3)}), {})
    ],
    "explore.valid_lens.valid_lens_sliders": lambda dt: [(valid_lens.valid_lens_sliders, (2, 2, 3), {"valid_lens": lens(1, 0)})],
    "explore.valid_lens.explore_valid_lens": lambda dt: [
        (valid_lens.explore_valid_lens, (softmax_of(rand(2, 2, 3, dtype=dt)), 2, 2, 3), {"valid_lens": lens(3, 0)})
    ],
    "explore.valid_lens.explore_masked_softmax": lambda dt: [
        (valid_lens.explore_masked_softmax, (rand(2, 2, 3, dtype=dt), lens(0, 2)), {}),
        (valid_lens.explore_masked_softmax, (rand(2, 2, 3, dtype=dt), torch.tensor([[0, 1], [3, 2]])), {}),
    ],
    "explore.valid_lens.current_valid_lens": lambda dt: [(valid_lens.current_valid_lens, (an_explorer(),), {})],
    # svg and pictures
    "explore.svg.line_chart_svg": lambda dt: [(svg.line_chart_svg, (torch.arange(3.0), {"a": [1.0, float("nan"), 2.0]}), {"highlight": 1})],
    "explore.svg.scatter_svg": lambda dt: [(svg.scatter_svg, ([0, 1], np.array([1.0, 2.0])), {"labels": ["a", "b"], "groups": [0, 1]})],
    "explore.svg.bar_chart_svg": lambda dt: [(svg.bar_chart_svg, ([0.5, 0.25],), {"labels": ["x", "y"], "highlight": [1]})],
    "explore.svg.nice_ticks": lambda dt: [(svg.nice_ticks, (0.0, 1.0), {})],
    "explore.svg.heatmaps_svg": lambda dt: [(svg.heatmaps_svg, (rand(1, 1, 2, 3, dtype=dt), "k", "q"), {})],
    "explore.pictures.query_svg": lambda dt: [(pictures.query_svg, (rand(2, dtype=dt), rand(3, 2, dtype=dt), torch.softmax(rand(3), 0).to(dt)), {})],
    "explore.pictures.curve_svg": lambda dt: [(pictures.curve_svg, (rand(4, dtype=dt), rand(4, dtype=dt), rand(5, dtype=dt), {"fit": rand(5, dtype=dt)}), {})],
    "explore.pictures.rotation_svg": lambda dt: [(pictures.rotation_svg, (rand(2, 3, 2, dtype=dt), rand(2, 3, 2, dtype=dt), ["a", "b"]), {})],
    "explore.pictures.chosen_row_svg": lambda dt: [(pictures.chosen_row_svg, (torch.softmax(rand(3, 3), -1).to(dt), 1, ["a", "b", "c"]), {"causal": True, "titles": ["all", "one"]})],
    "explore.pictures.side_by_side": lambda dt: [(pictures.side_by_side, (circle(1), circle(2)), {})],
    "explore.pictures.grouped_heads_svg": lambda dt: [(pictures.grouped_heads_svg, (torch.softmax(rand(4, 3, 3), -1).to(dt), rand(4, 3, 2, dtype=dt), 2), {})],
    "explore.pictures.online_softmax_svg": lambda dt: [(pictures.online_softmax_svg, (torch.softmax(rand(2, 4), -1).to(dt).masked_fill(torch.arange(4) >= 2, float("nan")), {"m": rand(2, 2, dtype=dt), "s": rand(2, 2, dtype=dt)}, 1), {})],
    "explore.pictures.pair_arrows_svg": lambda dt: [(pictures.pair_arrows_svg, ([("a", rand(2, dtype=dt), rand(2, dtype=dt, seed=1)), ("b", rand(2, dtype=dt), rand(2, dtype=dt))],), {})],
    "explore.pictures.alignment_svg": lambda dt: [(pictures.alignment_svg, (torch.softmax(rand(2, 4), -1).to(dt), "a b", "xy"), {"title": "t"})],
    # optim, dates
    "lessons.optim.Adam": lambda dt: [(optim.Adam, ([torch.nn.Parameter(rand(2))],), {"lr": 0.1})],
    "lessons.dates.DateFormat": lambda dt: [(dates.DateFormat, ("DMY", "d", "m", "yy", "none"), {})],
    "lessons.dates.DateSet": lambda dt: [(dates.make_dates(3).span_masks, (), {})],
    "lessons.dates.make_dates": lambda dt: [(dates.make_dates, (3,), {"split": "held_out"})],
    "lessons.dates.render_date": lambda dt: [(dates.render_date, (dates.FIRST_DATE, dates.FORMATS[5], __import__("random").Random(0)), {})],
    "lessons.dates.encode_inputs": lambda dt: [(dates.encode_inputs, (["3.9.31", "Thu 3.9.31"],), {})],
    "lessons.dates.encode_outputs": lambda dt: [(dates.encode_outputs, (["2031-09-03"],), {})],
    "lessons.dates.decode_outputs": lambda dt: [(dates.decode_outputs, (torch.tensor([[1, 10]]),), {})],
    "lessons.dates.DateTranslator": lambda dt: [
        (dates.DateTranslator(num_hiddens=4, embed_size=3).eval().translate, (torch.tensor([[10, 3, 0]]), lens(2)), {}),
        (dates.DateTranslator(num_hiddens=4, embed_size=3), (torch.tensor([[10, 3, 0]]), lens(2), torch.tensor([[1, 10, 2]])), {}),
        (dates.DateTranslator(num_hiddens=4, embed_size=3).encode, (torch.tensor([[10, 3, 0]]), lens(2)), {}),
    ],
    "lessons.dates.read_date": lambda dt: [(dates.read_date, ("Wed 3.9.31",), {})],
    "lessons.dates.unreadable": lambda dt: [(dates.unreadable, ("3.9.31!",), {})],
    "lessons.dates.impossible_dates": lambda dt: [(dates.impossible_dates, (), {"seed": 1})],
    "lessons.dates.not_a_date": lambda dt: [(dates.not_a_date, ("2031-02-30",), {})],
    "lessons.dates_train.translation_notes": lambda dt: [(dates_train.translation_notes, (["hello", "3.9.31"], ["2031-02-30", "2031-09-03"]), {})],
    "lessons.dates_train.TrainingLog": lambda dt: [(dates_train.TrainingLog, ([1.0],), {})],
    "lessons.dates_train.train_translator": lambda dt: [(dates_train.train_translator, (), {"steps": 1, "batch_size": 2, "train_size": 4, "checkpoint_steps": [0]})],
    "lessons.dates_train.translate": lambda dt: [(dates_train.translate, (dates.DateTranslator(num_hiddens=4), ["3.9.31"]), {"warn": False})],
    "lessons.dates_train.exact_match": lambda dt: [(dates_train.exact_match, (dates.DateTranslator(num_hiddens=4), dates.make_dates(2)), {})],
    "lessons.dates_train.field_mass": lambda dt: [(dates_train.field_mass, (torch.softmax(rand(2, 10, 40), -1), dates.make_dates(2)), {})],
    "lessons.dates_train.alignment_report": lambda dt: [(dates_train.alignment_report, (torch.softmax(rand(2, 10, 40), -1), dates.make_dates(2)), {"by": "argmax"})],
    "lessons.dates_train.alignment_by_order": lambda dt: [(dates_train.alignment_by_order, (torch.softmax(rand(2, 10, 40), -1), dates.make_dates(2)), {"by": "argmax"})],
    "lessons.dates_train.peak_weight": lambda dt: [(dates_train.peak_weight, (torch.softmax(rand(2, 10, 40), -1), dates.make_dates(2)), {})],
    "lessons.dates_train.load_translator": lambda dt: [(dates_train.load_translator, ("none",), {})],
    "lessons.dates_train.load_record": lambda dt: [(dates_train.load_record, ("dot",), {})],
    "lessons.dates_train.load_checkpoints": lambda dt: [(dates_train.load_checkpoints, ([0, 60],), {})],
    # cost
    "lessons.cost.time_call": lambda dt: [(cost.time_call, (lambda: None,), {"repeats": 1, "warmup": 0})],
    "lessons.cost.peak_memory": lambda dt: [(cost.peak_memory, (lambda: torch.ones(4),), {})],
    "lessons.cost.op_names": lambda dt: [(cost.op_names, (lambda: torch.ones(2) + 1,), {})],
    "lessons.cost.loglog_slope": lambda dt: [(cost.loglog_slope, ([1, 2, 4], torch.tensor([1.0, 4.0, 16.0], dtype=dt)), {})],
    "lessons.cost.sweep": lambda dt: [(cost.sweep, ({"f": lambda n: lambda: None}, [1, 2]), {"repeats": 1})],
    "lessons.cost.Sweep": lambda dt: [(cost.Sweep, ([2, 4], "s", {"a": [1.0, 2.0]}), {}), (a_sweep().slope, ("b",), {}), (a_sweep().table, (), {})],
    # efficient
    "lessons.efficient.partial_softmax": lambda dt: [
        (efficient.partial_softmax, (rand(2, 3, 4, dtype=dt), rand(2, 4, 2, dtype=dt), torch.zeros(2, 3, 4, dtype=torch.bool)), {}),
        (efficient.partial_softmax, (rand(3, 0, dtype=dt), rand(0, 2, dtype=dt)), {}),
    ],
    "lessons.efficient.Partial": lambda dt: [(efficient.Partial, (rand(3, dtype=dt), rand(3, dtype=dt), rand(3, 2, dtype=dt)), {})],
    "lessons.efficient.merge": lambda dt: [
        (efficient.merge, (efficient.partial_softmax(rand(3, 2, dtype=dt), rand(2, 2, dtype=dt)), efficient.partial_softmax(rand(3, 0, dtype=dt), rand(0, 2, dtype=dt))), {})
    ],
    "lessons.efficient.finish": lambda dt: [(efficient.finish, (efficient.partial_softmax(rand(3, 2, dtype=dt), rand(2, 2, dtype=dt)),), {})],
    "lessons.efficient.running_partials": lambda dt: [(efficient.running_partials, (rand(3, 5, dtype=dt), rand(5, 2, dtype=dt), 2), {})],
    "lessons.efficient.band_mask": lambda dt: [(efficient.band_mask, (3, 4, 2), {"causal": True})],
    "lessons.efficient.block_plan": lambda dt: [(efficient.block_plan, (5, 5, 2, 2), {"window": 2})],
    "lessons.efficient.receptive_field": lambda dt: [(efficient.receptive_field, (efficient.band_mask(4, 4, 2), 2), {})],
    "lessons.efficient.tiled_attention": lambda dt: [
        (efficient.tiled_attention, (rand(2, 5, 4, dtype=dt), rand(2, 6, 4, dtype=dt), rand(2, 6, 3, dtype=dt), lens(4, 0)), {"block_q": 2, "block_k": 4}),
        (efficient.tiled_attention, (rand(1, 2, 3, 4, dtype=dt), rand(1, 2, 3, 4, dtype=dt), rand(1, 2, 3, 4, dtype=dt)), {"causal": True, "block_q": 2, "block_k": 2}),
    ],
    "lessons.efficient.output_distances": lambda dt: [(efficient.output_distances, (rand(3, 5, dtype=dt), rand(5, 2, dtype=dt), 2), {})],
    "lessons.efficient.settling_block": lambda dt: [(efficient.settling_block, (rand(3, 4, dtype=dt).abs(), 0.1), {})],
    "lessons.efficient.recorded_attention": lambda dt: [(efficient.recorded_attention, (layers.MultiHeadAttention(4, 2, 0.0),), {})],
    "lessons.efficient.tiled_heads": lambda dt: [(efficient.tiled_heads, (layers.MultiHeadAttention(4, 2, 0.0),), {"block_q": 2, "block_k": 2})],
    # generation
    "lessons.generation.kv_cache_bytes": lambda dt: [(generation.kv_cache_bytes, (2, 2, 4, 0), {})],
    "lessons.generation.repeat_kv": lambda dt: [(generation.repeat_kv, (rand(1, 2, 3, 4, dtype=dt), 2), {})],
    "lessons.generation.causal_attention": lambda dt: [(generation.causal_attention, (rand(1, 4, 2, 4, dtype=dt), rand(1, 2, 3, 4, dtype=dt), rand(1, 2, 3, 4, dtype=dt)), {})],
    "lessons.generation.rope_angles": lambda dt: [(generation.rope_angles, (torch.arange(3), 4), {})],
    "lessons.generation.apply_rope": lambda dt: [(generation.apply_rope, (rand(2, 3, 4, dtype=dt), torch.arange(3)), {})],
    "lessons.generation.KVCache": lambda dt: [(generation.KVCache(1, 2, 4, 5, dtype=dt).append, (rand(1, 2, 3, 4, dtype=dt), rand(1, 2, 3, 4, dtype=dt)), {})],
    "lessons.generation.CausalSelfAttention": lambda dt: [
        (module(generation.CausalSelfAttention(8, 4, 2), dt), (rand(1, 3, 8, dtype=dt),), {}),
        (module(generation.CausalSelfAttention(8, 4, 2), dt).new_cache, (1, 4), {}),
    ],
    "lessons.generation.pool_kv_heads": lambda dt: [(generation.pool_kv_heads, (module(generation.CausalSelfAttention(8, 4), dt), 2), {})],
    "lessons.generation.CachedDecoder": lambda dt: [
        (module(generation.CachedDecoder(induction.AttentionOnlyTransformer(5, 6, 4, 2, 2), 1, (1,)), dt), (torch.tensor([[1, 2, 1, 2]]),), {})
    ],
    # induction
    "lessons.induction.make_induction_data": lambda dt: [(induction.make_induction_data, (2,), {"seq_len": 8, "vocab_size": 5, "min_len": 2, "max_len": 3})],
    "lessons.induction.InductionData": lambda dt: [(induction.InductionData, (torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3), {})],
    "lessons.induction.causal_valid_lens": lambda dt: [(induction.causal_valid_lens, (2, 3), {})],
    "lessons.induction.AttentionOnlyTransformer": lambda dt: [
        (module(induction.AttentionOnlyTransformer(5, 6, 4, 2, 1), dt), (torch.tensor([[1, 2, 1, 2]]),), {})
    ],
    "lessons.induction.in_context_loss": lambda dt: [(induction.in_context_loss, (rand(1, 4, 3, dtype=dt), induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3)), {})],
    "lessons.induction.in_context_accuracy": lambda dt: [(induction.in_context_accuracy, (rand(1, 4, 3, dtype=dt), induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3)), {})],
    "lessons.induction.previous_token_score": lambda dt: [(induction.previous_token_score, (torch.softmax(rand(2, 4, 4), -1).to(dt),), {})],
    "lessons.induction.induction_keys": lambda dt: [(induction.induction_keys, (induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3),), {})],
    "lessons.induction.previous_token_weights": lambda dt: [(induction.previous_token_weights, (torch.softmax(rand(2, 4, 4), -1).to(dt),), {})],
    "lessons.induction.ov_circuit": lambda dt: [(induction.ov_circuit, (induction.AttentionOnlyTransformer(5, 6, 4, 2, 2), 1, 0), {})],
    "lessons.induction.copying_score": lambda dt: [(induction.copying_score, (rand(5, 5, dtype=dt),), {})],
    "lessons.induction.head_scores": lambda dt: [
        (induction.head_scores, (induction.AttentionOnlyTransformer(5, 6, 4, 2, 2), induction.make_induction_data(2, 6, 5, 2, 3)), {"ablate": [(0, 1)]})
    ],
    "lessons.induction.induction_score": lambda dt: [(induction.induction_score, (torch.softmax(rand(1, 4, 4), -1).to(dt), induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3)), {})],
    "lessons.induction.duplicate_token_score": lambda dt: [(induction.duplicate_token_score, (torch.softmax(rand(1, 4, 4), -1).to(dt), induction.InductionData(torch.tensor([[1, 2, 1, 2]]), lens(0), lens(2), 3)), {})],
    "lessons.induction.train_induction": lambda dt: [
        (induction.train_induction, (induction.AttentionOnlyTransformer(5, 6, 4, 2, 1), induction.make_induction_data(2, 6, 5, 2, 3)), {"steps": 1, "batch_size": 2, "min_len": 2, "max_len": 3})
    ],
    "lessons.induction.trained_model": lambda dt: [(induction.trained_model, (0,), {})],
    "lessons.induction.InductionLog": lambda dt: [(induction.InductionLog, (induction.make_induction_data(1, 6, 5, 2, 3),), {})],
    # notebook 5's trained self-attention layer
    "lessons.self_attention.encode": lambda dt: [(self_attention.encode, (["dogs", "bark"],), {})],
    "lessons.self_attention.decode": lambda dt: [(self_attention.decode, (torch.tensor([5, 6]),), {})],
    "lessons.self_attention.make_sequences": lambda dt: [(self_attention.make_sequences, (2,), {"seed": 1})],
    "lessons.self_attention.held_out_set": lambda dt: [(self_attention.held_out_set, (3,), {})],
    "lessons.self_attention.Reverser": lambda dt: [(self_attention.Reverser(seed=1), (torch.tensor([[5, 6, 7, 0, 8]]),), {})],
    "lessons.self_attention.ReverserLog": lambda dt: [(self_attention.ReverserLog, ([0.5, 0.25],), {"cpu_seconds": 0.1})],
    "lessons.self_attention.train_reverser": lambda dt: [(self_attention.train_reverser, (self_attention.Reverser(),), {"steps": 1, "batch_size": 2})],
    "lessons.self_attention.trained_reverser": lambda dt: [(self_attention.trained_reverser, ("causal",), {})],
    "lessons.self_attention.rule_keys": lambda dt: [(self_attention.rule_keys, ("previous",), {"seq_len": 4})],
    "lessons.self_attention.largest_weight_share": lambda dt: [(self_attention.largest_weight_share, (torch.softmax(rand(2, 5, 5), -1), torch.arange(5)), {})],
    "lessons.self_attention.reversal_report": lambda dt: [(self_attention.reversal_report, (self_attention.Reverser(), torch.tensor([[5, 6, 7, 0, 8]])), {})],
    # kernel regression, landscape, saturation, fill values
    "lessons.kernel_regression.gaussian_scores": lambda dt: [(kernel_regression.gaussian_scores, (rand(3, dtype=dt), rand(4, dtype=dt), 0.5), {})],
    "lessons.kernel_regression.nadaraya_watson_weights": lambda dt: [
        (kernel_regression.nadaraya_watson_weights, (rand(3, dtype=dt), rand(4, dtype=dt), 0.5), {}),
        (kernel_regression.nadaraya_watson_weights, (rand(3, dtype=dt), rand(0, dtype=dt), 0.5), {}),
    ],
    "lessons.kernel_regression.nadaraya_watson": lambda dt: [(kernel_regression.nadaraya_watson, (rand(3, dtype=dt), rand(4, dtype=dt), rand(4, dtype=dt), 0.5), {})],
    "lessons.landscape.key_grid": lambda dt: [(landscape.key_grid, (2.0, 3), {})],
    "lessons.landscape.additive_landscape": lambda dt: [(landscape.additive_landscape, (rand(2, dtype=dt), landscape.key_grid(1.0, 3).to(dt), rand(4, 2, dtype=dt), rand(4, 2, dtype=dt), rand(4, dtype=dt)), {})],
    "lessons.landscape.dot_plane": lambda dt: [(landscape.dot_plane, (rand(2, dtype=dt), landscape.key_grid(1.0, 3).to(dt)), {})],
    "lessons.landscape.weight_ratio": lambda dt: [(landscape.weight_ratio, (rand(4, dtype=dt),), {})],
    "lessons.landscape.spread_parts": lambda dt: [(landscape.spread_parts, (rand(5, 3, dtype=dt), rand(3, dtype=dt)), {})],
    "lessons.landscape.score_spreads": lambda dt: [(landscape.score_spreads, (rand(2, 5, 3, dtype=dt), rand(3, dtype=dt)), {"valid": torch.tensor([[True] * 5, [True, True, False, True, False]])})],
    "lessons.landscape.pixel_image": lambda dt: [(landscape.pixel_image, (np.array([[0.0, 0.5], [1.0, 0.25]]), "Reds", 0, 0, 10, 10), {})],
    "lessons.landscape.landscape_svg": lambda dt: [(landscape.landscape_svg, ([("a", rand(3, 3, dtype=dt), 1.0)], rand(2, dtype=dt), rand(2, 2, dtype=dt)), {"limit": 1.0})],
    "lessons.saturation.nested_weights": lambda dt: [(saturation.nested_weights, (rand(3, 4, dtype=dt), rand(5, 4, dtype=dt), 2, 1.0, True), {})],
    "lessons.saturation.saturation_per_query": lambda dt: [(saturation.saturation_per_query, (4, 0.5, torch.Generator().manual_seed(0)), {"B": 1, "Q": 2, "K": 3})],
    "lessons.saturation.row_stats": lambda dt: [(saturation.row_stats, (torch.softmax(rand(3, 4), -1).to(dt),), {})],
    "lessons.saturation.weights_svg": lambda dt: [(saturation.weights_svg, ([("a", torch.softmax(rand(2, 3), -1).to(dt))],), {})],
    "lessons.fill_values.fill_outcome": lambda dt: [(fill_values.fill_outcome, (rand(2, 1, 3, dtype=dt), lens(2, 0), "float16", "-1e9", True), {})],
    "lessons.fill_values.FillOutcome": lambda dt: [(fill_values.FillOutcome, (None, torch.ones(1, 1, 2, dtype=torch.bool), False, "RuntimeError: x"), {})],
    "lessons.fill_values.outcome_svg": lambda dt: [(fill_values.outcome_svg, (fill_values.fill_outcome(rand(2, 1, 3), lens(2, 0), "float32", "-inf", False),), {"title": "t"})],
    "lessons.fill_values.outcome_caption": lambda dt: [(fill_values.outcome_caption, (fill_values.fill_outcome(rand(2, 1, 3), lens(2, 0), "float32", "-1e6", False),), {})],
    # d2l: the porting aid's own functions (its torch aliases are torch's: see TORCH_ALIASES)
    "d2l.numpy": lambda dt: [(d2l.numpy, (rand(2, 3, dtype=dt),), {})],
    "d2l.size": lambda dt: [(d2l.size, (rand(2, 3, dtype=dt),), {})],
    "d2l.reshape": lambda dt: [(d2l.reshape, (rand(2, 3, dtype=dt), [3, 2]), {})],
    "d2l.to": lambda dt: [(d2l.to, (rand(2, 3, dtype=dt), torch.float64), {})],
    "d2l.reduce_sum": lambda dt: [(d2l.reduce_sum, (rand(2, 3, dtype=dt),), {"dim": [0, 1]})],
    "d2l.reduce_mean": lambda dt: [(d2l.reduce_mean, (rand(2, 3, dtype=dt), 1), {"keepdim": True})],
    "d2l.argmax": lambda dt: [(d2l.argmax, (rand(2, 3, dtype=dt), 1), {})],
    "d2l.astype": lambda dt: [(d2l.astype, (rand(2, 3, dtype=dt), torch.int64), {})],
    "d2l.transpose": lambda dt: [(d2l.transpose, (rand(2, 3, dtype=dt),), {})],
    "d2l.expand_dims": lambda dt: [(d2l.expand_dims, (rand(2, 3, dtype=dt), 0), {})],
    "d2l.swapaxes": lambda dt: [(d2l.swapaxes, (rand(2, 3, 4, dtype=dt), 0, 2), {})],
    "d2l.repeat": lambda dt: [(d2l.repeat, (rand(2, 3, dtype=dt), 2, 1), {})],
    "d2l.check_shape": lambda dt: [(d2l.check_shape, (rand(2, 3, dtype=dt), [2, 3]), {})],
    "d2l.add_to_class": lambda dt: [(d2l.add_to_class, (type("Toy", (), {}),), {}), (d2l.add_to_class(type("Toy", (), {})), (a_method,), {})],
    "d2l.use_svg_display": lambda dt: [(d2l.use_svg_display, (), {})],
    "d2l.set_figsize": lambda dt: [(d2l.set_figsize, (list(d2l.plt.rcParams["figure.figsize"]),), {})],  # as it was
    "d2l.set_axes": lambda dt: [(d2l.set_axes, (an_axes(), "x", "y", [0.0, 1.0], [0.5, 2.0], "linear", "log", ["a"]), {})],
    "d2l.plot": lambda dt: [
        (d2l.plot, (rand(4, dtype=dt), [rand(4, dtype=dt, seed=1), rand(4, dtype=dt, seed=2)]), {"legend": ["a", "b"], "xlim": [-2, 2], "fmts": ["-", "r:"], "axes": an_axes()}),
        (d2l.plot, ([[1.0, 2.0], [3.0, 1.0]],), {"axes": an_axes()}),
    ],
}  # fmt: skip

# d2l's one-line torch aliases (`ones = torch.ones`, `concat = torch.cat`, ...) are torch's own functions under the
# names d2l's cells call; the contract is about this package's code, so they have no example here (their bad input
# is still pinned in tests/test_bad_input_core.py). Only a name bound to the very torch function of that name is
# exempt: a wrapper of ours written in its place needs an example like any other function.
TORCH_ALIASES = {
    f"d2l.{name}"
    for name in d2l.__all__
    if callable(obj := getattr(d2l, name))
    and not obj.__module__.startswith("attention_helpers")
    and getattr(torch, obj.__name__, None) is obj
}

# Names whose examples take floating-point tensors: also run in float16 and bfloat16.
HALF = {
    name
    for name in EXAMPLES
    if name.removeprefix("lessons.").split(".")[0]
    in ("masking", "layers", "transformer", "efficient", "generation", "kernel_regression")
    or name
    in {
        "plotting.as_panels",
        "plotting.heatmaps_svg",
        "explore.heatmap.HeatmapExplorer",
        "explore.valid_lens.explore_valid_lens",
        "explore.valid_lens.explore_masked_softmax",
        "explore.svg.heatmaps_svg",
        "explore.pictures.query_svg",
        "explore.pictures.curve_svg",
        "explore.pictures.rotation_svg",
        "explore.pictures.chosen_row_svg",
        "lessons.cost.loglog_slope",
        "lessons.induction.AttentionOnlyTransformer",
        "lessons.induction.in_context_loss",
        "lessons.induction.in_context_accuracy",
        "lessons.induction.previous_token_score",
        "lessons.induction.previous_token_weights",
        "lessons.induction.copying_score",
        "lessons.induction.induction_score",
        "lessons.induction.duplicate_token_score",
        "lessons.landscape.additive_landscape",
        "lessons.landscape.dot_plane",
        "lessons.landscape.weight_ratio",
        "lessons.landscape.spread_parts",
        "lessons.landscape.score_spreads",
        "lessons.landscape.landscape_svg",
        "lessons.saturation.nested_weights",
        "lessons.saturation.row_stats",
        "lessons.saturation.weights_svg",
        "lessons.fill_values.fill_outcome",
        "explore.heatmap.as_weights",
        "d2l.numpy",
        "d2l.size",
        "d2l.reshape",
        "d2l.to",
        "d2l.reduce_sum",
        "d2l.reduce_mean",
        "d2l.argmax",
        "d2l.astype",
        "d2l.transpose",
        "d2l.expand_dims",
        "d2l.swapaxes",
        "d2l.repeat",
        "d2l.check_shape",
        "d2l.plot",
    }
}


def test_every_public_function_has_an_example():
    callables, _ = public_names()
    assert len(TORCH_ALIASES) == 25 and TORCH_ALIASES <= callables  # d2l.ones ... d2l.zeros_like: torch's own
    ours = callables - TORCH_ALIASES
    assert set(EXAMPLES) == ours, f"missing: {sorted(ours - set(EXAMPLES))}, unknown: {sorted(set(EXAMPLES) - ours)}"


# --- (b) no input is modified -----------------------------------------------------------------------------------


def snapshot(value: object) -> object:
    """A copy of every tensor, array and plain container reachable from value (modules and widgets left out)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        return {k: snapshot(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [snapshot(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: snapshot(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (int, float, str, bool, type(None))):
        return copy.copy(value)
    return None  # modules, widgets, functions: not compared


def same(before: object, value: object, where: str) -> None:
    if isinstance(value, torch.Tensor):
        assert value.dtype == before.dtype and value.shape == before.shape, where
        torch.testing.assert_close(value.detach(), before, rtol=0, atol=0, equal_nan=True, msg=f"{where} changed")
    elif isinstance(value, np.ndarray):
        np.testing.assert_array_equal(value, before, err_msg=f"{where} changed")
    elif isinstance(value, dict):
        assert list(value) == list(before), f"{where}'s keys changed"
        for k in value:
            same(before[k], value[k], f"{where}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        assert len(value) == len(before), f"{where}'s length changed"
        for i, (b, v) in enumerate(zip(before, value, strict=True)):
            same(b, v, f"{where}[{i}]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            same(before[f.name], getattr(value, f.name), f"{where}.{f.name}")
    elif isinstance(value, (int, float, str, bool)):
        assert value == before or value != value, f"{where} changed"


# Arguments that are outputs by design, not inputs: name -> (position, reason).
OUT_ARGUMENTS = {
    "explore.view.KernelNote": (2, "`made` is the explorer's list of widgets to close later; appending is its job"),
    "explore.view.Frames": (0, "`Frames(made)` appends the widgets it makes to `made`, for the explorer to close"),
}

CASES = [(name, dt) for name in sorted(EXAMPLES) for dt in (FLOATS if name in HALF else FLOATS[:1])]


@pytest.mark.parametrize(("name", "dtype"), CASES, ids=[f"{n}-{str(d)[6:]}" for n, d in CASES])
def test_no_public_function_modifies_its_inputs(name, dtype):
    for fn, args, kwargs in EXAMPLES[name](dtype):
        args = list(args)
        before = snapshot((args, kwargs))
        result = fn(*args, **kwargs)
        if name in OUT_ARGUMENTS:
            position = OUT_ARGUMENTS[name][0]
            before[0][position] = args[position] = None
        same(before, [args, kwargs], name)
        if isinstance(result, efficient.Partial):  # m is -inf for a query that saw no key, by definition
            result = (result.s, result.o)
        floats = [r for r in (result if isinstance(result, tuple) else (result,)) if isinstance(r, torch.Tensor)]
        for r in floats:  # half precision is safe: finite inputs give finite outputs
            if r.is_floating_point():
                assert bool(torch.isfinite(r).all()), f"{name} returned non-finite values in {dtype}"
    if "matplotlib.pyplot" in sys.modules:  # show_heatmaps' figures
        sys.modules["matplotlib.pyplot"].close("all")


# --- (c) rows with nothing to attend to ---------------------------------------------------------------------------


def empty_row_outputs(dtype: torch.dtype) -> dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]]:
    """name -> f(x (B, L, d) requiring grad, lengths (B,)) -> the weights or output that must be 0 on empty rows."""

    def attention(layer: torch.nn.Module) -> Callable:
        def run(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
            layer(x, x, x, n)
            return layer.attention_weights

        return run

    torch.manual_seed(0)
    return {
        "masked_softmax": lambda x, n: masking.masked_softmax(x @ x.transpose(1, 2), n),
        "DotProductAttention": attention(layers.DotProductAttention(0.0).to(dtype)),
        "AdditiveAttention": attention(layers.AdditiveAttention(4, 4, 8, 0.0).to(dtype)),
        "MultiHeadAttention": attention(layers.MultiHeadAttention(4, 4, 4, 8, 2, 0.0).to(dtype)),
        "tiled_attention": lambda x, n: efficient.tiled_attention(x, x, x, n, block_q=2, block_k=2),
        "partial_softmax": lambda x, n: efficient.finish(
            efficient.partial_softmax(x @ x.transpose(1, 2), x, torch.arange(x.shape[1]) < n[:, None, None])
        ).to(x.dtype),  # partials are kept in float32 for half-precision inputs
    }


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: str(d)[6:])
def test_empty_rows_give_zeros_with_finite_gradients(dtype):
    for name, run in empty_row_outputs(dtype).items():
        x = (rand(2, 3, 4) * 3).to(dtype).requires_grad_()
        out = run(x, lens(0, 2))  # row 0 has no key to attend to
        assert out.dtype == dtype, name
        assert bool((out[0] == 0).all()) and bool(torch.isfinite(out).all()), f"{name}: empty row not zeros"
        out.float().square().sum().backward()
        assert bool(torch.isfinite(x.grad).all()), f"{name}: non-finite gradient in {dtype}"


# --- (d) half precision: scores that fit, though q·k would not --------------------------------------------------

# q = k = 16 everywhere, d = 256: q·k = 65536 overflows float16 (largest 65504), while the scaled score q·k/√d = 4096
# fits. Scaling before the product, as F.scaled_dot_product_attention does, keeps every output finite.
OVERFLOW = {
    "layers.DotProductAttention": lambda q: layers.DotProductAttention()(q[0], q[0], q[0]),
    "transformer.ScaledDotProductAttention": lambda q: transformer.ScaledDotProductAttention(16.0, 0.0)(q, q, q)[0],
    "lessons.efficient.tiled_attention": lambda q: efficient.tiled_attention(q, q, q),
    "lessons.generation.causal_attention": lambda q: generation.causal_attention(q, q, q)[0],
}


@pytest.mark.parametrize("name", list(OVERFLOW))
def test_float16_scores_are_scaled_before_the_product(name):
    q = torch.full((1, 1, 3, 256), 16.0, dtype=torch.float16)  # (B, H, L, d)
    reference = torch.nn.functional.scaled_dot_product_attention(q, q, q)
    out = OVERFLOW[name](q)
    assert bool(torch.isfinite(out).all()), f"{name} overflows in float16"
    torch.testing.assert_close(out.reshape(reference.shape), reference)


# --- (e) tensors in a dtype PyTorch only stores (float8 ...) ------------------------------------------------------

# Every dtype a float tensor converts to that PyTorch does not compute with: float8 (e4m3fn, e5m2, ...), uint16 ...
STORED_ONLY = []
for _dtype in sorted({v for v in vars(torch).values() if isinstance(v, torch.dtype)}, key=str):
    try:
        with warnings.catch_warnings(action="ignore"):  # complex32 is "experimental"
            torch.zeros(1).to(_dtype)
    except (RuntimeError, TypeError, NotImplementedError):
        continue
    if _dtype not in COMPUTABLE_DTYPES:
        STORED_ONLY.append(_dtype)

# What takes them on purpose: d2l's conversions and shape-only wrappers (torch's own work), `check_shape` (reads the
# shape), and `efficient.Partial`, a plain NamedTuple (merge and finish, which compute with it, refuse them).
TAKES_ANY_DTYPE = {f"d2l.{n}" for n in ("size", "reshape", "to", "astype", "transpose", "expand_dims", "swapaxes", "repeat", "check_shape")}  # fmt: skip
TAKES_ANY_DTYPE.add("lessons.efficient.Partial")


# Where the message names the argument otherwise (as_weights checks what the explorer's compute function returned).
NAMED_AS = {"explore.heatmap.as_weights": "the compute function"}


def converted(value: object, dtype: torch.dtype) -> object:
    """value with every tensor in it (in lists, tuples, NamedTuples, dicts) converted to dtype; None if it holds none."""
    if isinstance(value, torch.Tensor):
        return value.detach().to(dtype)
    if isinstance(value, dict):
        items = {k: converted(v, dtype) for k, v in value.items()}
        return (
            None
            if all(v is None for v in items.values())
            else {k: items[k] if items[k] is not None else value[k] for k in value}
        )
    if isinstance(value, (list, tuple)):
        items = [converted(v, dtype) for v in value]
        if all(v is None for v in items):
            return None
        items = [new if new is not None else old for new, old in zip(items, value, strict=True)]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return None


def test_tensors_in_dtypes_pytorch_only_stores_are_refused_everywhere():
    """float8 and the like (issue 24): a TypeError naming the argument and the conversion, not torch's
    NotImplementedError from deep inside. Each argument holding tensors gets the next stored-only dtype in turn."""
    assert {torch.float8_e4m3fn, torch.float8_e5m2, torch.uint16} <= set(STORED_ONLY)
    turn, refused, wrong = 0, set(), []
    for name in sorted(set(EXAMPLES) - TAKES_ANY_DTYPE):
        for index, (fn, args, kwargs) in enumerate(EXAMPLES[name](torch.float32)):
            signature = inspect.signature(fn.forward if isinstance(fn, torch.nn.Module) else fn)
            bound = signature.bind(*args, **kwargs)
            for parameter, value in bound.arguments.items():
                dtype = STORED_ONLY[turn % len(STORED_ONLY)]
                if (bad := converted(value, dtype)) is None:
                    continue
                turn += 1
                fresh, fresh_args, fresh_kwargs = EXAMPLES[name](torch.float32)[index]  # stateful objects afresh
                call = signature.bind(*fresh_args, **fresh_kwargs)
                call.arguments[parameter] = bad
                named = NAMED_AS.get(name, "*args" if parameter == "args" else parameter)
                try:
                    fresh(*call.args, **call.kwargs)
                    wrong.append(f"{name}({parameter}={str(dtype)[6:]}): accepted")
                except TypeError as error:  # names the argument and the dtype given
                    if not (str(error).startswith(named) or named == "*args") or str(dtype) not in str(error):
                        wrong.append(f"{name}({parameter}={str(dtype)[6:]}): {error}")
                    refused.add(dtype)
                except Exception as error:  # noqa: BLE001  (any other exception is what this test is about)
                    wrong.append(f"{name}({parameter}={str(dtype)[6:]}): {type(error).__name__}: {error}")
    assert not wrong, "\n".join(wrong)
    assert refused == set(STORED_ONLY), refused
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
