"""Notebook 06's per-seed measurements (attention_helpers.lessons.dates_claims): the committed model measures as seed
0's record says, and each measure fails for the wrong story its claim rules out."""

from __future__ import annotations

import pytest
import torch

from attention_helpers.checks import EXERCISE_6_1_TEXT
from attention_helpers.lessons import dates_claims as dc
from attention_helpers.lessons.claims import load_records
from attention_helpers.lessons.dates import make_dates
from attention_helpers.lessons.dates_train import HELD_OUT_SIZE, load_translator, translate


@pytest.fixture(scope="module")
def held_out():
    return make_dates(HELD_OUT_SIZE, "held_out", seed=0)


@pytest.fixture(scope="module")
def additive_weights(held_out):
    return translate(load_translator("additive"), list(held_out.inputs), warn=False)[1]


def test_the_exercise_text_is_the_checks_own():
    assert dc.EXERCISE_6_1_TEXT == EXERCISE_6_1_TEXT


def test_seed_0s_record_is_the_committed_model(held_out):
    measured = dc.measure_translator(load_translator("additive"), held_out)
    recorded = load_records("dates")[0]["additive"]
    assert {k: v for k, v in recorded.items() if k not in ("checkpoints", "training_cpu_seconds")} == measured


def test_unwritten_digits_look_at_their_field_and_shuffled_columns_do_not(held_out, additive_weights):
    right = dc.looks_of_unwritten(additive_weights, held_out)
    wrong = dc.looks_of_unwritten(dc.shuffled_columns(additive_weights, held_out), held_out)
    assert right["century"]["year"] > 0.8 and wrong["century"]["year"] < 0.5
    assert all(abs(sum(places.values()) - 1) < 1e-3 for places in (*right.values(), *wrong.values()))


def test_shuffled_columns_keep_every_rows_values(held_out, additive_weights):
    shuffled = dc.shuffled_columns(additive_weights, held_out)
    torch.testing.assert_close(shuffled.sort(-1).values, additive_weights.sort(-1).values)
    assert not torch.equal(shuffled, additive_weights)


def test_step_zero_month_of_uniform_weights_is_chance(held_out):
    lengths = torch.tensor([len(t) for t in held_out.inputs])
    L = int(lengths.max())
    uniform = ((torch.arange(L) < lengths[:, None, None]) / lengths[:, None, None]).expand(-1, 10, -1)  # (N, T, L)
    measured = dc.step_zero_month(uniform.contiguous(), held_out)  # argmax of a flat row: its first character
    assert measured["named"] < measured["named_chance"] + 0.05  # no preference shows up as one
