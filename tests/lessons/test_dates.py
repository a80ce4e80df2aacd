"""The date translator (notebook 06): the generator, the model's shapes, the committed weights and the alignment measure."""

from __future__ import annotations

import datetime
import json
import random
from functools import cache

import pytest
import torch

from attention_helpers.lessons import dates, dates_train
from attention_helpers.lessons.dates import (
    ATTENTIONS,
    FIELDS,
    FORMATS,
    HELD_OUT_FORMATS,
    INPUT_CHARS,
    DateTranslator,
    decode_outputs,
    encode_inputs,
    encode_outputs,
    make_dates,
    render_date,
)


@cache
def held_out():
    return make_dates(dates_train.HELD_OUT_SIZE, "held_out", seed=0)


@cache
def additive_weights() -> torch.Tensor:
    _, weights = dates_train.translate(dates_train.load_translator("additive"), list(held_out().inputs), warn=False)
    return weights


# --- the generator --------------------------------------------------------------------------------------------------


def test_generator_is_seeded_and_outputs_are_iso_dates():
    a, b, c = make_dates(50, seed=3), make_dates(50, seed=3), make_dates(50, seed=4)
    assert a == b and a.inputs != c.inputs
    for text in a.outputs:
        assert datetime.date.fromisoformat(text).isoformat() == text
    assert all(set(t) <= set(INPUT_CHARS) for t in a.inputs)


def test_spans_hold_each_field_of_the_date():
    data = make_dates(300, seed=1)
    for text, out, spans, fmt in zip(data.inputs, data.outputs, data.spans, data.formats, strict=True):
        year, month, day = (int(x) for x in out.split("-"))
        fields = {name: text[a:b] for name, (a, b) in spans.items()}
        assert fields["year"] == (str(year) if fmt.year == "yyyy" else f"{year % 100:02d}")
        assert int(fields["day"].rstrip("stndrh")) == day
        if fmt.month in ("m", "mm"):
            assert int(fields["month"]) == month
        else:
            assert datetime.date(2000, month, 1).strftime("%B").lower().startswith(fields["month"].lower().rstrip("."))
    masks = data.span_masks()
    assert sorted(masks) == sorted(FIELDS) and all(m.shape == (300, max(map(len, data.inputs))) for m in masks.values())
    assert not (masks["day"] & masks["month"]).any() and not (masks["month"] & masks["year"]).any()


def test_held_out_dates_and_formats_are_never_in_training():
    train, test = make_dates(3000), held_out()
    assert not {d.isoformat() for d in dates._TRAIN_DATES} & set(test.outputs)  # the pool every training set draws from
    assert not set(train.outputs) & set(test.outputs)
    assert not set(train.formats) & HELD_OUT_FORMATS
    unseen = [f in HELD_OUT_FORMATS for f in test.formats]
    assert unseen == list(test.unseen_format) and sum(unseen) == len(test) // 2
    assert len(set(test.formats)) > 100 and len(FORMATS) == 162


def test_every_input_names_one_date():
    """No text stands for two dates: numeric orders differ in their separators."""
    rng, seen = random.Random(0), {}
    for i in range(6000):  # years, months and days all in 1..12: where numbers could swap roles
        date = datetime.date(2001 + rng.randrange(12), 1 + rng.randrange(12), 1 + rng.randrange(12))
        text, _ = render_date(date, FORMATS[i % len(FORMATS)], rng)
        assert seen.setdefault(text, date) == date, text


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: make_dates(0), ValueError, "n must be >= 1"),
        (lambda: make_dates(5, "test"), ValueError, r"split must be one of \['train', 'held_out'\]"),
        (lambda: make_dates(5, seed=-1), ValueError, "seed must be >= 0"),
        (lambda: render_date(datetime.date(1900, 1, 1), FORMATS[0], random.Random()), ValueError, "date must be"),
        (lambda: render_date(datetime.date(2000, 1, 1), "D/M/Y", random.Random()), ValueError, "fmt must be one of"),
        (lambda: render_date(datetime.date(2000, 1, 1), FORMATS[0], 0), TypeError, "rng must be a random.Random"),
        (lambda: encode_inputs("25/11/26"), TypeError, "texts must be a list of str"),
        (lambda: encode_inputs(["25 novembre 2026 é"]), ValueError, r"texts\[0\] must be a non-empty text"),
        (lambda: encode_outputs(["2026/11/25"]), ValueError, r"texts\[0\] must be an ISO date"),
        (lambda: decode_outputs(torch.tensor([[11]])), ValueError, "indices must be"),
        (lambda: DateTranslator("cosine"), ValueError, r"attention must be one of \['additive', 'dot', 'none'\]"),
        (lambda: dates_train.exact_match(DateTranslator(), ["1.1.26"]), TypeError, "data must be a DateSet"),
        (lambda: dates_train.alignment_report(torch.rand(3, 10, 5), held_out()), ValueError, "weights must be"),
        (
            lambda: dates_train.alignment_report(additive_weights(), held_out(), by="max"),
            ValueError,
            "by must be one of",
        ),
        (lambda: dates_train.load_translator("Additive"), ValueError, "attention must be one of"),
        (lambda: dates_train.field_mass(additive_weights(), held_out(), margin=-1), ValueError, "margin must be >= 0"),
        (lambda: dates_train.peak_weight(additive_weights(), ["1.1.26"]), TypeError, "data must be a DateSet"),
        (
            lambda: dates_train.alignment_by_order(additive_weights(), held_out(), by="max"),
            ValueError,
            "by must be one of",
        ),
    ],
)
def test_bad_arguments_get_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# --- the model ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_shapes(attention):
    model = DateTranslator(attention).eval()
    src, valid_lens = encode_inputs(["25.11.26", "the 3rd of may, 1999"])  # (2, 20)
    logits = model(src, valid_lens, encode_outputs(["2026-11-25", "1999-05-03"]))
    assert logits.shape == (2, 10, 11)
    outputs, weights = model.translate(src, valid_lens)
    assert outputs.shape == (2, 10)
    if attention == "none":
        assert weights is None
    else:
        assert weights.shape == (2, 10, 20)
        torch.testing.assert_close(weights.sum(-1), torch.ones(2, 10))
        assert (weights[0, :, 8:] == 0).all()  # nothing past the first text's 8 characters


@pytest.mark.parametrize("attention", ATTENTIONS)
def test_committed_weights_score_their_record(attention):
    record = dates_train.load_record(attention)
    accuracy = dates_train.exact_match(dates_train.load_translator(attention), held_out())
    assert round(accuracy, 4) == record["held_out_exact_match"]
    assert dates_train.DATA_DIR.joinpath(f"dates_{attention}.pt").stat().st_size <= 500_000
    if attention == "additive":
        assert accuracy >= 0.99


def test_short_training_improves_the_loss():
    _, log = dates_train.train_translator("additive", steps=6, batch_size=32, train_size=256, lr=1e-2)
    assert len(log.losses) == 6 and log.losses[-1] < log.losses[0] - 0.1


# --- the alignment measure ------------------------------------------------------------------------------------------


def test_trained_additive_alignment_passes_the_measure():
    mass = dates_train.alignment_report(additive_weights(), held_out())
    top = dates_train.alignment_report(additive_weights(), held_out(), by="argmax")
    assert min(mass.values()) >= 0.85 and min(top.values()) >= 0.95, (mass, top)


def test_unwritten_digits_are_left_out():
    data = make_dates(1, "held_out", seed=0)
    text, span = "Thu 3.9.31", {"day": (4, 5), "month": (6, 7), "year": (8, 10)}
    data = type(data)((text,), ("2031-09-03",), (span,), data.formats[:1], (False,))
    weights = torch.zeros(1, 10, 10)
    weights[0, :, 0] = 1.0  # every output digit on "T"
    for digit, column in {2: 8, 3: 9, 6: 6, 9: 4}.items():  # only the written digits on their fields
        weights[0, digit] = torch.nn.functional.one_hot(torch.tensor(column), 10).float()
    assert dates_train.alignment_report(weights, data) == {"day": 1.0, "month": 1.0, "year": 1.0}
    masses = dates_train.field_mass(weights, data)
    assert masses["year"][0, :2].isnan().all() and masses["day"][0, 0].isnan() and masses["month"][0, 0].isnan()
    weights[0, 9] = weights[0, 0]  # the day's written digit looks away
    assert dates_train.alignment_report(weights, data)["day"] == 0.0


@pytest.mark.parametrize("mutant", ["shuffled", "uniform", "shifted"])
def test_mutant_alignments_fail_the_measure(mutant):
    weights, data = additive_weights(), held_out()
    lengths = torch.tensor([len(t) for t in data.inputs])
    if mutant == "shuffled":  # the same weights on other characters of the same text
        generator = torch.Generator().manual_seed(0)
        columns = [torch.randperm(int(n), generator=generator) for n in lengths]
        weights = torch.stack(
            [torch.cat([w[:, c], w[:, len(c) :]], dim=1) for w, c in zip(weights, columns, strict=True)]
        )
    elif mutant == "uniform":
        weights = (torch.arange(weights.shape[2]) < lengths[:, None, None]) / lengths[:, None, None]  # (N, 1, L)
        weights = weights.expand(-1, 10, -1)  # (N, T, L)
    else:  # every digit looks at the field's first character shifted by 3: the right shape in the wrong place
        weights = torch.roll(weights, 3, dims=2)
    for by in ("mass", "argmax"):
        report = dates_train.alignment_report(weights, data, by=by)
        assert max(report.values()) < 0.5, (by, report)


def test_looking_at_the_end_of_the_text_fails_the_per_order_measure():
    # the wrong story "the year's digits find the year" for weights that look at the text's last character:
    # the whole-set report can pass it (the year ends two orders of three), the per-order report does not
    data = held_out()
    lengths = torch.tensor([len(t) for t in data.inputs])  # (N,)
    end = torch.nn.functional.one_hot(lengths - 1, max(lengths)).float()[:, None, :].expand(-1, 10, -1)  # (N, T, L)
    whole = dates_train.alignment_report(end, data, by="argmax")
    per_order = dates_train.alignment_by_order(end, data, by="argmax")
    assert whole["year"] > 0.5, whole
    assert per_order["DMY"]["year"] > 0.9 and per_order["MDY"]["year"] > 0.9 and per_order["YMD"]["year"] < 0.1
    real = dates_train.alignment_by_order(additive_weights(), data, by="argmax")  # the trained model passes
    assert min(min(report.values()) for report in real.values()) > 0.9, real


def test_weights_moved_to_a_neighbour_keep_their_peak_and_the_margin_finds_them():
    # "the weights are spread wider" must fail for sharp weights that moved one character over
    weights, data = additive_weights(), held_out()
    moved = torch.roll(weights, 1, dims=2)  # the same rows, one character to the right
    mass = {k: v.nanmean().item() for k, v in dates_train.field_mass(weights, data).items()}
    moved_mass = {k: v.nanmean().item() for k, v in dates_train.field_mass(moved, data).items()}
    assert all(moved_mass[f] < mass[f] - 0.2 for f in mass)  # "less mass on the field" passes this wrong story ...
    assert dates_train.peak_weight(moved, data) == dates_train.peak_weight(weights, data)  # ... the peak does not
    widened = {k: v.nanmean().item() for k, v in dates_train.field_mass(moved, data, margin=1).items()}
    assert all(widened[f] > moved_mass[f] + 0.2 for f in mass)  # and a margin of one character finds it again
    lengths = torch.tensor([len(t) for t in data.inputs])
    uniform = ((torch.arange(weights.shape[2]) < lengths[:, None, None]) / lengths[:, None, None]).expand_as(weights)
    assert max(dates_train.peak_weight(uniform, data).values()) < 0.1  # spread weights have a low peak


def test_margin_widens_the_field_by_whole_characters():
    data = make_dates(1, "held_out", seed=0)
    text, span = "Thu 3.9.31", {"day": (4, 5), "month": (6, 7), "year": (8, 10)}
    data = type(data)((text,), ("2031-09-03",), (span,), data.formats[:1], (False,))
    weights = torch.zeros(1, 10, 10)
    weights[0, :, 3] = 1.0  # every digit on the space before the day
    assert dates_train.field_mass(weights, data)["day"][0, 1] == 0.0
    assert dates_train.field_mass(weights, data, margin=1)["day"][0, 1] == 1.0
    assert dates_train.field_mass(weights, data, margin=2)["month"][0, 1] == 0.0  # three characters away
    assert dates_train.field_mass(weights, data, margin=3)["month"][0, 1] == 1.0


@pytest.mark.slow  # a subprocess that imports torch and trains: run by .ci/run outside the 60 s budget
def test_the_training_command_writes_weights_and_a_record(tmp_path):
    dates_train._main(["train", "--attention", "none", "--steps", "1", "--out", str(tmp_path)])
    record = json.loads((tmp_path / "dates_none.json").read_text())
    assert (
        record["command"] == "python -m attention_helpers.lessons.dates_train train --attention none --steps 1 --seed 0"
    )
    assert 0 <= record["held_out_exact_match"] <= 1 and record["steps"] == 1
    state = torch.load(tmp_path / "dates_none.pt", weights_only=True)
    assert state.keys() == DateTranslator("none").state_dict().keys()
    assert all(v.dtype == torch.float32 for v in state.values() if v.is_floating_point())
