"""The lesson modules and the picture functions answer bad input clearly (issue 37): each case a new user hit, as a
clear TypeError/ValueError naming the argument, or, where the input was legitimate (int8 tokens, a huge or tiny
bandwidth, an SVG whose height comes before its width), the right answer, compared with a reference.

`COVERED` lists the names this file's cases reach ("module.name", as `tests/test_contract.py` spells them); with
the other tests/test_bad_input*.py files they cover every public name.
"""

from __future__ import annotations

import datetime
import math
import random
import warnings
from collections.abc import Callable

import pytest
import torch

from attention_helpers.explore import pictures
from attention_helpers.lessons import (
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

NAN = math.nan
CASES: list[tuple[str, str, Callable[[], object], type[Exception], str]] = []


def case(name: str, label: str, call: Callable[[], object], error: type[Exception], match: str) -> None:
    """`call()` must raise `error` with a message matching `match` (which names the argument)."""
    CASES.append((name, label, call, error, match))


def t(*shape: int) -> torch.Tensor:
    return torch.rand(*shape, generator=torch.Generator().manual_seed(0))


def translator() -> dates.DateTranslator:
    return dates.DateTranslator(embed_size=3, num_hiddens=4).eval()


def batch() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(src (2, L), valid_lens (2,), targets (2, 10)) of two real dates."""
    src, valid_lens = dates.encode_inputs(["25 Nov 2026", "1/2/03"])
    return src, valid_lens, dates.encode_outputs(["2026-11-25", "2003-01-02"])


def held_out() -> dates.DateSet:
    return dates.make_dates(3, "held_out")


def weights_of(data: dates.DateSet, fill: float | None = None) -> torch.Tensor:
    w = torch.softmax(t(len(data), 10, max(len(x) for x in data.inputs)), -1)  # (N, T, L)
    return w if fill is None else w.fill_(fill)


def induction_data() -> induction.InductionData:
    return induction.make_induction_data(2, 6, 5, 2, 3)


def span_set(spans: dict) -> dates.DateSet:
    return dates.DateSet(("1.2.03",), ("2003-02-01",), (spans,), (dates.FORMATS[0],), (False,))


# fmt: off
# --- the date translator: tokens, targets, lengths, devices --------------------------------------------------------
DT = "lessons.dates.DateTranslator"
case(DT, "translate: token past the vocabulary", lambda: translator().translate(batch()[0] + 100, batch()[1]), ValueError, r"src must hold tokens in 0 .. 67 \(indices into INPUT_CHARS")
case(DT, "translate: negative token", lambda: translator().translate(batch()[0] - 1, batch()[1]), ValueError, "src must hold tokens in 0 .. 67")
case(DT, "forward: token past the vocabulary", lambda: translator()(batch()[0] + 100, *batch()[1:]), ValueError, "src must hold tokens in 0 .. 67")
case(DT, "encode: token past the vocabulary", lambda: translator().encode(batch()[0] + 100, batch()[1]), ValueError, "src must hold tokens in 0 .. 67")
case(DT, "encode: length 0", lambda: translator().encode(batch()[0], torch.tensor([0, 3])), ValueError, r"valid_lens must be in \[1, 11\]")
case(DT, "encode: float src", lambda: translator().encode(batch()[0].float(), batch()[1]), TypeError, "src must be an integer tensor")
case(DT, "translate: empty batch", lambda: translator().translate(batch()[0][:0], batch()[1][:0]), ValueError, "src must hold at least one text")
case(DT, "translate: no characters", lambda: translator().translate(batch()[0][:, :0], batch()[1]), ValueError, "src must hold at least one text of at least one character")
case(DT, "translate: meta src", lambda: translator().translate(batch()[0].to("meta"), batch()[1]), ValueError, "src is on the meta device")
case(DT, "translate: meta valid_lens", lambda: translator().translate(batch()[0], batch()[1].to("meta")), ValueError, "valid_lens is on the meta device")
case(DT, "forward: targets a list", lambda: translator()(*batch()[:2], [[1]]), TypeError, r"targets must be a torch.Tensor of shape \(B, T\)")
case(DT, "forward: targets float", lambda: translator()(*batch()[:2], batch()[2].float()), TypeError, "targets must be an integer tensor")
case(DT, "forward: targets 1-D", lambda: translator()(*batch()[:2], batch()[2][0]), ValueError, r"targets must be 2-D \(B, T\)")
case(DT, "forward: targets of another batch", lambda: translator()(*batch()[:2], batch()[2][:1]), ValueError, r"targets must be \(B, T\) = \(2, T >= 1\)")
case(DT, "forward: targets empty", lambda: translator()(*batch()[:2], batch()[2][:, :0]), ValueError, r"targets must be \(B, T\) = \(2, T >= 1\)")
case(DT, "forward: targets out of range", lambda: translator()(*batch()[:2], batch()[2] + 50), ValueError, r"targets must hold indices into OUTPUT_CHARS, 0 .. 10")
case(DT, "forward: targets of BOS", lambda: translator()(*batch()[:2], torch.full((2, 10), dates.BOS)), ValueError, r"BOS = 11 only starts the decoder")
case(DT, "forward: targets negative", lambda: translator()(*batch()[:2], batch()[2] - 1), ValueError, "targets must hold indices into OUTPUT_CHARS")
case(DT, "forward: targets meta", lambda: translator()(*batch()[:2], batch()[2].to("meta")), ValueError, "targets is on the meta device")
case("lessons.dates.decode_outputs", "meta", lambda: dates.decode_outputs(torch.zeros(1, 10, dtype=torch.long, device="meta")), ValueError, "indices is on the meta device")
case("lessons.dates.encode_outputs", "dashes", lambda: dates.encode_outputs(["----------"]), ValueError, r"texts\[0\] must be an ISO date such as '2026-11-25', got '----------': not of the form YYYY-MM-DD")
case("lessons.dates.encode_outputs", "February 30", lambda: dates.encode_outputs(["2020-02-30"]), ValueError, r"texts\[0\] must be an ISO date .*: February 2020 has no day 30")
case("lessons.dates.encode_outputs", "month 13", lambda: dates.encode_outputs(["2020-13-01"]), ValueError, r"texts\[0\] must be an ISO date .*: there is no month 13")
case("lessons.dates.encode_outputs", "year 0", lambda: dates.encode_outputs(["0000-01-01"]), ValueError, r"texts\[0\] must be an ISO date .*: there is no year 0")
# --- the data: DateSet, render_date -----------------------------------------------------------------------------
DS = "lessons.dates.DateSet"
case(DS, "a span missing a field", lambda: span_set({"day": (0, 1)}), ValueError, r"spans\[0\] must be a dict \{field: \(start, end\)\} with the fields \['day', 'month', 'year'\]")
case(DS, "a span past the text", lambda: span_set({"day": (0, 1), "month": (2, 3), "year": (4, 9)}), ValueError, r"spans\[0\]\['year'\] must be a pair of ints \(start, end\) with 0 <= start < end <= len\(inputs\[0\]\) = 6")
case(DS, "a span of floats", lambda: span_set({"day": (0, 1), "month": (2.0, 3), "year": (4, 6)}), ValueError, r"spans\[0\]\['month'\] must be a pair of ints")
case(DS, "a list, not a tuple", lambda: dates.DateSet(["1.2.03"], ("2003-02-01",), ({},), (dates.FORMATS[0],), (False,)), TypeError, "inputs must be a tuple with one entry per date")
case(DS, "a format", lambda: dates.DateSet(("1.2.03",), ("2003-02-01",), ({},), ("DMY",), (False,)), TypeError, r"formats\[0\] must be a DateFormat")
case(DS, "an input", lambda: dates.DateSet((5,), ("2003-02-01",), ({},), (dates.FORMATS[0],), (False,)), TypeError, r"inputs\[0\] must be a str")
case(DS, "a flag", lambda: dates.DateSet(("1.2.03",), ("2003-02-01",), ({},), (dates.FORMATS[0],), (0,)), TypeError, r"unseen_format\[0\] must be True or False")
RD = "lessons.dates.render_date"
case(RD, "a datetime", lambda: dates.render_date(datetime.datetime(2020, 1, 1), dates.FORMATS[0], random.Random(0)), TypeError, r"date must be a datetime.date, got a datetime.datetime .*; pass its .date\(\)")
case(RD, "a str", lambda: dates.render_date("2020-01-01", dates.FORMATS[0], random.Random(0)), TypeError, "date must be a datetime.date in 1969-01-01 .. 2068-12-31")
# --- reading a text as the generator writes dates ----------------------------------------------------------------
case("lessons.dates.unreadable", "bytes", lambda: dates.unreadable(b"1.2.03"), TypeError, "text must be a str")
case("lessons.dates.read_date", "None", lambda: dates.read_date(None), TypeError, "text must be a str")
case("lessons.dates.read_date", "a word", lambda: dates.read_date("hello"), ValueError, "text must be a date as the training data writes them, got 'hello': none of the 162 formats")
case("lessons.dates.read_date", "February 30", lambda: dates.read_date("2/30/2020"), ValueError, "got '2/30/2020': February 2020 has no day 30")
case("lessons.dates.impossible_dates", "seed", lambda: dates.impossible_dates(-1), ValueError, "seed must be >= 0")
case("lessons.dates.impossible_dates", "seed str", lambda: dates.impossible_dates("0"), TypeError, "seed must be an int")
case("lessons.dates.not_a_date", "a tensor", lambda: dates.not_a_date(torch.zeros(10)), TypeError, "output must be a str")
# --- dates_train ---------------------------------------------------------------------------------------------------
R = "lessons.dates_train."
case(R + "train_translator", "checkpoint past the last step", lambda: dates_train.train_translator(steps=1, checkpoint_steps=[5]), ValueError, r"checkpoint_steps must lie in 0 .. steps=1 .*, got \[5\]")
case(R + "train_translator", "checkpoint a bool", lambda: dates_train.train_translator(steps=1, checkpoint_steps=[True]), TypeError, r"checkpoint_steps\[0\] must be an int")
case(R + "load_checkpoints", "False", lambda: dates_train.load_checkpoints([False]), TypeError, r"steps\[0\] must be an int, got bool False")
case(R + "field_mass", "meta weights", lambda: dates_train.field_mass(weights_of(held_out()).to("meta"), held_out()), ValueError, "weights is on the meta device")
case(R + "field_mass", "NaN weights", lambda: dates_train.field_mass(weights_of(held_out(), NAN), held_out()), ValueError, "weights must be finite, got NaN")
case(R + "alignment_report", "NaN weights", lambda: dates_train.alignment_report(weights_of(held_out(), NAN), held_out()), ValueError, "weights must be finite, got NaN")
case(R + "alignment_report", "NaN weights, by argmax", lambda: dates_train.alignment_report(weights_of(held_out(), NAN), held_out(), by="argmax"), ValueError, "weights must be finite, got NaN")
case(R + "alignment_report", "infinite weights", lambda: dates_train.alignment_report(weights_of(held_out(), math.inf), held_out()), ValueError, "weights must be finite, got infinite values")
case(R + "alignment_by_order", "NaN weights", lambda: dates_train.alignment_by_order(weights_of(held_out(), NAN), held_out()), ValueError, "weights must be finite, got NaN")
case(R + "peak_weight", "NaN weights", lambda: dates_train.peak_weight(weights_of(held_out(), NAN), held_out()), ValueError, "weights must be finite, got NaN")
case(R + "translate", "warn", lambda: dates_train.translate(translator(), ["1.2.03"], warn="no"), TypeError, "warn must be True or False")
case(R + "translation_notes", "texts a str", lambda: dates_train.translation_notes("1.2.03", ["2003-02-01"]), TypeError, "texts must be a list of str")
case(R + "translation_notes", "outputs of another size", lambda: dates_train.translation_notes(["1.2.03"], []), ValueError, "texts and outputs must hold one entry per date, got 1 and 0")
case(R + "translation_notes", "an output", lambda: dates_train.translation_notes(["1.2.03"], [None]), TypeError, r"outputs\[0\] must be a str")
# --- the induction model -------------------------------------------------------------------------------------------
IN = "lessons.induction."
case(IN + "InductionLog", "weights before any step", lambda: induction.InductionLog(induction_data()).weights, ValueError, "this log holds no snapshots yet: train_induction records them")
case(IN + "InductionLog", "scores before any step", lambda: induction.InductionLog(induction_data()).scores, ValueError, "this log holds no previous yet")
case(IN + "head_scores", "data of another vocabulary", lambda: induction.head_scores(induction.AttentionOnlyTransformer(5, 6, 4, 2, 2), induction.make_induction_data(2, 6, 9, 2, 3)), ValueError, "data must hold at least one sequence of at most seq_len=6 tokens over the model's vocabulary of 5 tokens")
case(IN + "head_scores", "ablate None", lambda: induction.head_scores(induction.AttentionOnlyTransformer(5, 6, 4, 2, 2), induction_data(), None), TypeError, r"ablate must be a list of \(layer, head\) pairs")
case(IN + "previous_token_score", "NaN weights", lambda: induction.previous_token_score(torch.full((2, 3, 3), NAN)), ValueError, "weights must be finite, got NaN")
case(IN + "induction_score", "NaN weights", lambda: induction.induction_score(torch.full((2, 6, 6), NAN), induction_data()), ValueError, "weights must be finite, got NaN")
case(IN + "previous_token_weights", "meta", lambda: induction.previous_token_weights(torch.empty(2, 3, 3, device="meta")), ValueError, "weights is on the meta device")
# --- messages that name the caller's argument ------------------------------------------------------------------
case("lessons.generation.causal_attention", "heads", lambda: generation.causal_attention(t(1, 4, 2, 4), t(1, 3, 2, 4), t(1, 3, 2, 4)), ValueError, r"k and v have G=3 heads \(axis 1\), which must divide q's H=4 heads")
case("lessons.generation.CausalSelfAttention", "odd head width", lambda: generation.CausalSelfAttention(6, 2), ValueError, r"d_model // num_heads = 6 // 2 = 3 features per head must be even with rope=True")
case("explore.pictures.alignment_svg", "no rows", lambda: pictures.alignment_svg(t(0, 3), "abc", ""), ValueError, "output must hold at least one character")
case("explore.pictures.grouped_heads_svg", "empty", lambda: pictures.grouped_heads_svg(t(2, 0, 0), t(2, 0, 2), 1), ValueError, r"weights must have shape \(H, L, L\), queries by keys, with H >= 1 and L >= 1, got \(2, 0, 0\)")
case("explore.pictures.grouped_heads_svg", "not square", lambda: pictures.grouped_heads_svg(t(2, 3, 4), t(2, 3, 2), 1), ValueError, r"weights must have shape \(H, L, L\), queries by keys")
case("explore.pictures.grouped_heads_svg", "keys of other positions", lambda: pictures.grouped_heads_svg(t(2, 3, 3), t(2, 4, 2), 1), ValueError, r"keys must have shape \(H, L, d\) = \(2, 3, d >= 1\)")
case("explore.pictures.online_softmax_svg", "meta weights", lambda: pictures.online_softmax_svg(torch.empty(2, 4, device="meta"), {"m": t(2, 2)}, 1), ValueError, "weights is on the meta device")
# --- fill values, pictures with nothing in them ------------------------------------------------------------------
case("lessons.fill_values.FillOutcome", "empty error", lambda: fill_values.FillOutcome(None, torch.ones(1, 1, 2, dtype=torch.bool), False, ""), ValueError, "error must say what the recipe raised")
case("lessons.fill_values.FillOutcome", "no keys", lambda: fill_values.FillOutcome(t(1, 1, 0), torch.ones(1, 1, 0, dtype=torch.bool), True, None), ValueError, "keep must hold at least one sequence, query and key")
case("lessons.fill_values.FillOutcome", "meta keep", lambda: fill_values.FillOutcome(None, torch.ones(1, 1, 2, dtype=torch.bool, device="meta"), False, "x"), ValueError, "keep is on the meta device")
case("lessons.fill_values.fill_outcome", "no sequences", lambda: fill_values.fill_outcome(t(0, 1, 3), torch.zeros(0, dtype=torch.long), "float32", "-inf", False), ValueError, "scores must hold at least one sequence, query and key")
case("lessons.efficient.receptive_field", "meta mask", lambda: efficient.receptive_field(torch.ones(2, 2, dtype=torch.bool, device="meta"), 2), ValueError, "mask is on the meta device")
# --- found by a fresh reviewer --------------------------------------------------------------------------------------
case(DT, "PAD inside a valid length", lambda: translator().translate(torch.zeros(1, 5, dtype=torch.long), torch.tensor([5])), ValueError, r"src holds the padding token PAD = 0 inside a valid length")
case(DT, "a seed past 64 bits", lambda: dates.DateTranslator(seed=2**64), ValueError, r"seed must be <= 2\*\*63 - 1")
case("lessons.induction.make_induction_data", "a seed past 64 bits", lambda: induction.make_induction_data(1, seed=2**64), ValueError, r"seed must be <= 2\*\*63 - 1")
case("lessons.dates.encode_outputs", "Arabic-Indic digits", lambda: dates.encode_outputs(["\u0662\u0660\u0662\u0665-\u0661\u0662-\u0662\u0665"]), ValueError, r"texts\[0\] must be an ISO date .*not of the form YYYY-MM-DD")
case(R + "field_mass", "negative weights", lambda: dates_train.field_mass(-weights_of(held_out()), held_out()), ValueError, r"weights must be attention weights, in \[0, 1\]")
case(R + "alignment_report", "huge weights", lambda: dates_train.alignment_report(weights_of(held_out()).double() * 1e200, held_out()), ValueError, r"weights must be attention weights, in \[0, 1\]")
case(IN + "InductionLog", "lists of other lengths", lambda: induction.InductionLog(induction_data(), steps=[0, 10]), ValueError, r"loss must hold one entry per recorded step \(2\), got 0")
case(IN + "InductionLog", "steps not increasing", lambda: induction.InductionLog(induction_data(), steps=[10, 0]), ValueError, r"steps must increase")
case(IN + "InductionLog", "a step a str", lambda: induction.InductionLog(induction_data(), steps=["0"]), TypeError, r"steps\[0\] must be an int")
case("lessons.fill_values.FillOutcome", "meta weights", lambda: fill_values.FillOutcome(torch.full((1, 1, 2), 0.5).to("meta"), torch.ones(1, 1, 2, dtype=torch.bool), False, None), ValueError, "weights is on the meta device")
case("lessons.saturation.nested_weights", "products overflow", lambda: saturation.nested_weights(t(2, 4).double() * 1e200, t(3, 4).double() * 1e200, 2, 1.0, True), ValueError, "queries and keys must have finite dot products")
case("lessons.generation.KVCache", "k requires grad", lambda: generation.CausalSelfAttention(16, 4, 2)(t(2, 3, 16), generation.CausalSelfAttention(16, 4, 2).new_cache(2, 5)), ValueError, r"decode under `with torch.no_grad\(\):`")
case(IN + "InductionData", "a float index", lambda: induction_data()[1.0], TypeError, "index must be an int, a slice or an integer or bool tensor, got float 1.0")
case(IN + "InductionData", "a str index", lambda: induction_data()["a"], TypeError, "index must be an int, a slice or an integer or bool tensor")
case(IN + "InductionData", "a float tensor index", lambda: induction_data()[torch.tensor([0.0])], TypeError, "index must be an int, a slice or an integer or bool tensor")
case(IN + "InductionData", "a bool tensor of another length", lambda: induction_data()[torch.tensor([True])], ValueError, r"index must be a bool tensor of shape \(2,\)")
case(IN + "train_induction", "lr 1e39", lambda: induction.train_induction(induction.AttentionOnlyTransformer(5, 6, 4, 2, 1), induction_data(), lr=1e39), ValueError, "lr must be <= 1000000.0")
case(R + "train_translator", "lr 1e39", lambda: dates_train.train_translator(lr=1e39), ValueError, "lr must be <= 1000000.0")
case("lessons.optim.Adam", "lr 1e30", lambda: optim.Adam([torch.nn.Parameter(t(2))], lr=1e30), ValueError, "lr must be <= 1000000.0")
case("explore.pictures.side_by_side", "gap 10**400", lambda: pictures.side_by_side(pictures.side_by_side('<svg width="1" height="1"></svg>'), gap=10**400), ValueError, "gap must be at most 100000 pixels")
case("explore.pictures.query_svg", "size 10**400", lambda: pictures.query_svg(t(2), t(3, 2), torch.softmax(t(3), 0), size=10**400), ValueError, "size must be at most 100000 pixels")
case("lessons.fill_values.outcome_svg", "cell 10**400", lambda: fill_values.outcome_svg(fill_values.fill_outcome(t(1, 1, 2), torch.tensor([1]), "float32", "-inf", False), cell=10**400), ValueError, "cell must be at most 10000 pixels")
case("lessons.saturation.weights_svg", "cell 10**400", lambda: saturation.weights_svg([("a", torch.softmax(t(2, 3), -1))], cell=10**400), ValueError, "cell must be at most 10000 pixels")
case("lessons.generation.causal_attention", "scores overflow", lambda: generation.causal_attention(t(1, 2, 2, 4).double() * 1e200, t(1, 2, 2, 4).double() * 1e200, t(1, 2, 2, 4).double()), ValueError, r"q and k give scores q·k/√d beyond torch.float64's range \(inf\)")
case("lessons.generation.CausalSelfAttention", "inputs that overflow", lambda: generation.CausalSelfAttention(16, 4, 2)(t(2, 3, 16) * 1e30), ValueError, "q and k give scores")
case(DS, "an output that is not a date", lambda: dates.DateSet(("1.2.03",), ("banana",), ({"day": (0, 1), "month": (2, 3), "year": (4, 6)},), (dates.FORMATS[0],), (False,)), ValueError, r"outputs\[0\] must be an ISO date such as '2026-11-25', got 'banana'")
case(DS, "an input character without a token", lambda: dates.DateSet(("1!2.03",), ("2003-02-01",), ({"day": (0, 1), "month": (2, 3), "year": (4, 6)},), (dates.FORMATS[0],), (False,)), ValueError, r"inputs\[0\] must be a non-empty text of the characters in INPUT_CHARS")
case("explore.pictures.side_by_side", "columns 0", lambda: pictures.side_by_side('<svg width="1" height="1"></svg>', columns=0), ValueError, "columns must be >= 1")
case("explore.pictures.side_by_side", "columns a float", lambda: pictures.side_by_side('<svg width="1" height="1"></svg>', columns=2.0), TypeError, "columns must be an int")
# fmt: on

COVERED = {name for name, *_ in CASES}


@pytest.mark.parametrize(("name", "label", "call", "error", "match"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_bad_input_gets_a_clear_error_naming_the_argument(name, label, call, error, match):
    with pytest.raises(error, match=match):
        call()


# --- legitimate input gets the right answer ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.int8, torch.uint8, torch.int16, torch.int32])
def test_narrow_integer_tokens_give_the_int64_answer(dtype):
    model, (src, valid_lens, targets) = translator(), batch()
    outputs, weights = model.translate(src, valid_lens)
    narrow_outputs, narrow_weights = model.translate(src.to(dtype), valid_lens.to(dtype))
    assert torch.equal(narrow_outputs, outputs) and torch.equal(narrow_weights, weights)
    assert torch.equal(model(src.to(dtype), valid_lens, targets.to(dtype)), model(src, valid_lens, targets))
    aot = induction.AttentionOnlyTransformer(5, 6, 4, 2, 1)
    tokens = torch.tensor([[1, 2, 1, 2]])
    assert torch.equal(aot(tokens.to(dtype)), aot(tokens))


def test_extreme_bandwidths_give_the_float64_answer():
    q, k = torch.tensor([0.0, 1.0, 0.3]), torch.tensor([0.5, 2.0, -1.0])
    for bandwidth in (1e200, 1e-30, 1e-200, 1e-310):
        weights = kernel_regression.nadaraya_watson_weights(q, k, bandwidth)
        assert weights.dtype == torch.float32 and bool(weights.isfinite().all()), bandwidth
        distance = (q[:, None].double() - k[None, :].double()).abs()
        if bandwidth > 1:  # every key as far as the others, at this scale: uniform weights
            expected = torch.full((3, 3), 1 / 3, dtype=torch.float64)
        else:  # all the weight on the nearest key
            expected = (distance == distance.amin(-1, keepdim=True)).double()
        torch.testing.assert_close(weights.double(), expected, rtol=0, atol=1e-7)
    torch.testing.assert_close(kernel_regression.gaussian_scores(q, k, 1e200), torch.zeros(3, 3), rtol=0, atol=0)
    # a moderate bandwidth keeps its float32 computation, bit for bit
    scores = kernel_regression.gaussian_scores(q, k, 0.5)
    assert torch.equal(scores, -((q[:, None] - k[None, :]) ** 2) / (2 * 0.5**2))
    assert torch.equal(kernel_regression.nadaraya_watson_weights(q, k, 0.5), torch.softmax(scores, -1))


def test_a_tiny_temperature_puts_all_the_weight_on_the_largest_score():
    queries, keys = t(2, 4), torch.rand(3, 4, generator=torch.Generator().manual_seed(1))
    for tau in (1e-30, 1e-310):
        for scaled in (True, False):
            weights = saturation.nested_weights(queries, keys, 2, tau, scaled)
            top = (queries[:, :2].double() @ keys[:, :2].double().T).argmax(-1)  # (Q,)
            assert torch.equal(weights, torch.nn.functional.one_hot(top, 3).float()), (tau, scaled)


def test_weight_ratio_beyond_float64_is_infinite():
    assert landscape.weight_ratio(torch.tensor([0.0, 1000.0])) == math.inf
    assert landscape.weight_ratio(torch.tensor([0.0, 700.0])) == pytest.approx(math.exp(700.0))


def test_grouped_heads_svg_takes_half_precision():
    weights, keys = torch.softmax(t(4, 3, 3), -1), t(4, 3, 2)
    for dtype in (torch.bfloat16, torch.float16):
        assert pictures.grouped_heads_svg(weights.to(dtype), keys.to(dtype), 2).startswith("<svg")


def test_pixel_image_takes_half_precision():
    levels = torch.tensor([[0.0, 0.5], [0.25, 1.0]])
    expected = landscape.pixel_image(levels, "Reds", 0, 0, 10, 10)
    for dtype in (torch.bfloat16, torch.float16):
        assert landscape.pixel_image(levels.to(dtype), "Reds", 0, 0, 10, 10) == expected


def test_side_by_side_reads_width_and_height_in_any_order():
    wide = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect/></svg>'
    tall = '<svg xmlns="http://www.w3.org/2000/svg" height="10" width="20"><rect/></svg>'
    labelled = (
        '<svg xmlns="http://www.w3.org/2000/svg" aria-label="a width=&quot;5&quot;" height="10" width="20"></svg>'
    )
    assert pictures.side_by_side(wide, tall).split(">")[0] == pictures.side_by_side(wide, wide).split(">")[0]
    assert 'width="52" height="10"' in pictures.side_by_side(wide, tall).split(">")[0]
    assert pictures.side_by_side(tall, gap=0).startswith(
        '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"'
    )
    assert 'width="20"' in pictures.side_by_side(labelled).split(">")[0]


def test_fill_outcome_leaves_the_callers_gradient_alone():
    scores = t(2, 1, 3).requires_grad_()
    outcome = fill_values.fill_outcome(scores, torch.tensor([2, 0]), "float32", "-inf", False)
    assert scores.grad is None and outcome.weights is not None


def test_a_log_before_training_says_so_and_after_it_stacks():
    data = induction_data()
    log = induction.train_induction(
        induction.AttentionOnlyTransformer(5, 6, 4, 2, 1), data, steps=1, batch_size=2, min_len=2, max_len=3
    )
    assert log.weights.shape[0] == len(log.steps) == 2 and log.scores[0].shape == (2, 1, 2)


# --- the translator says what it cannot read -----------------------------------------------------------------------


def test_read_date_reads_every_generated_date_and_nothing_else():
    for split in ("train", "held_out"):
        data = dates.make_dates(400, split, seed=7)
        for text, output in zip(data.inputs, data.outputs, strict=True):
            assert dates.read_date(text).isoformat() == output and dates.unreadable(text) is None, text
    refused = {
        "hello": "none of the 162 formats",
        "2/30/2020": "February 2020 has no day 30",
        "13/25/26": "there is no month 13",
        "Monday 25 November 2026": "2026-11-25 is a Wednesday, not a Monday",
        "tuesday, 25 NOVEMBER 2026": "different letter cases",
        "the 25th November 2026": "not a mix of the two",
        "1th May 2020": "'1th' is not an ordinal the data writes ('1st' is)",
        "25 Nov 1900": "outside the dates the data holds",
        "25/11/2026": "there is no month 25",  # day-month-year with the month/day/year separator
        "2026/11/25": "none of the 162 formats",
        "3!4": "characters the model has no token for: ['!']",
        "May. 5 2020": "none of the 162 formats",  # the generator never abbreviates May with a dot
    }
    refused[" 25 Dec 2025"] = refused["25  Dec 2025"] = "it has extra spaces"
    refused["25/12/2025"] = "there is no month 25 (in this data '/' writes month/day/year; day.month.year uses '.')"
    refused["the 25 of December 2025"] = "the data writes 'the' only before an ordinal ('the 25th of')"
    refused["Friday the 5 of Dec 2025"] = "the data writes 'the' only before an ordinal"
    for text, reason in refused.items():
        assert reason in (dates.unreadable(text) or ""), (text, dates.unreadable(text))


def test_impossible_dates_are_every_missing_day_and_nothing_else():
    texts, copies = dates.impossible_dates()
    expected = set()
    for year in range(1969, 2069):
        for month in range(1, 13):
            for number in range(29, 32):
                try:
                    datetime.date(year, month, number)
                except ValueError:
                    expected.add(f"{year}-{month:02d}-{number:02d}")
    assert len(texts) == len(copies) == len(expected) == 675 and set(copies) == expected
    for text, copy in zip(texts, copies, strict=True):
        assert "has no day" in dates.unreadable(text) and dates.not_a_date(copy), (text, copy)
    assert dates.impossible_dates(1) != dates.impossible_dates(0) and dates.impossible_dates(0) == (texts, copies)


def test_head_scores_take_numpy_ints_and_notes_quote_long_texts_short():
    import numpy as np

    model, data = induction.AttentionOnlyTransformer(5, 6, 4, 2, 2), induction_data()
    previous, _ = induction.head_scores(model, data, [(np.int64(0), np.int64(1))])
    torch.testing.assert_close(previous, induction.head_scores(model, data, [(0, 1)])[0], rtol=0, atol=0)
    note = dates_train.translation_notes(["x" * 100_000], ["2020-01-01"])[0]
    assert len(note) < 400 and "'xxx" in note and "...:" in note


def test_side_by_side_places_a_picture_that_had_a_position_of_its_own():
    placed = '<svg xmlns="http://www.w3.org/2000/svg" x="5" y="7" width="20" height="10"></svg>'
    opening = pictures.side_by_side(placed, placed).split("><svg")[2]
    assert opening.count(' x="') == 1 and opening.count(' y="') == 1 and ' x="32"' in opening


def test_side_by_side_in_rows():
    pictures_ = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"></svg>'
        for w, h in ((10, 5), (20, 8), (30, 4))
    ]
    one_row = pictures.side_by_side(*pictures_, gap=2)
    assert one_row.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="64" height="8"')
    assert pictures.side_by_side(*pictures_, gap=2, columns=3) == one_row
    two_rows = pictures.side_by_side(*pictures_, gap=2, columns=2)  # (10 + 2 + 20) wide, then 30; 8 + 2 + 4 tall
    assert two_rows.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="14"')
    assert [p.split('"')[:4] for p in two_rows.split("<svg x=")[1:]] == [
        ["", "0", " y=", "0"],
        ["", "12", " y=", "0"],
        ["", "0", " y=", "10"],
    ]


def test_not_a_date():
    assert dates.not_a_date("2024-02-29") is None and dates.not_a_date("2068-12-31") is None
    assert dates.not_a_date("2023-02-29") == "February 2023 has no day 29"
    assert "not of the form YYYY-MM-DD" in dates.not_a_date("1199922225")


def test_translate_warns_about_inputs_unlike_its_data_and_outputs_that_are_not_dates():
    model = dates_train.load_translator("additive")
    with warnings.catch_warnings(record=True) as caught:
        outputs, _ = dates_train.translate(model, ["25 November 2026", "hello", "2/30/2020"])
        dates_train.translate(model, ["hello"])  # again: said every time, not once per line
    assert outputs[0] == "2026-11-25"
    assert [w.category for w in caught] == [dates_train.DateWarning] * 2
    message = str(caught[0].message)
    assert "texts[0]" not in message  # nothing to say about a date it was trained on
    assert "texts[1]: The model was never trained on an input like 'hello'" in message
    assert "texts[2]: The model was never trained on an input like '2/30/2020': February 2020 has no day 30" in message
    notes = dates_train.translation_notes(["25 November 2026", "hello", "2/30/2020"], outputs)
    assert notes[0] == "" and all(notes[1:])
    assert outputs[2] == "2020-02-30"  # the committed model copies the impossible date (06, section 6.8)
    assert "The output '2020-02-30' is not a date: February 2020 has no day 30" in notes[2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warn=False, or nothing to say: no warning
        dates_train.translate(model, ["hello"], warn=False)
        dates_train.translate(model, ["25 November 2026", "Wed 11/25/26"])


def test_a_wrong_story_fails_the_reader():
    """The reader is not a stand-in that accepts every date-shaped text: a text with the right digits in a shape
    the generator never writes (ISO with slashes, month names in French, a two-digit year first) is refused."""
    for text in ("2026/11/25", "25 novembre 2026", "25 11 2026", "11-25-2026", "Nov 25 2026 Wed"):
        assert dates.unreadable(text), text
