"""Notebook 6's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import pytest
import torch
from check_helpers import says, unsolved

from attention_helpers.checks import EXERCISE_6_1_TEXT, check_6_1, check_6_2, check_6_3
from attention_helpers.checks.nb06 import _looks_at


def test_6_1_right_wrong_and_unanswered():
    looks = _looks_at(EXERCISE_6_1_TEXT)
    right = [looks[i] for i in (0, 1, 2, 3, 5, 6, 8, 9)]
    assert check_6_1(right)
    assert "not attempted" in repr(check_6_1(...))
    swapped = right[:4] + ["day", "day", "month", "month"]  # day and month read in the wrong order
    says(check_6_1(swapped), "Exercise 6.1", "wrong")
    assert "think again" in repr(check_6_1(swapped)) and str(right) not in repr(check_6_1(swapped))
    says(check_6_1(["year"] * 7), "Exercise 6.1", "a list of 8 field names")
    says(check_6_1(["year"] * 7 + ["minute"]), "Exercise 6.1", "must be one of")


# The four digits that look at the same field in each of the 61 training seeds are graded (the year's 2 and 1, the
# month's 4, the day's 6); the other four look at different places in different seeds, so any answer there passes.
RIGHT_WRITTEN_DIFFERENTLY = [
    ["year", "year", "year", "year", "month", "month", "punctuation", "day"],  # seed 0, the committed model
    ["year", "day", "year", "year", "month", "month", "day", "day"],  # seeds 1 and 3
    ["year", "weekday", "year", "year", "month", "month", "day", "day"],  # seed 2
    ["Year", "month", "year", "year", "Month", "month", "day", " day"],  # seed 4, capitals and spaces
    ("year", "year", "year", "year", "month", "month", "year", "day"),  # a tuple; no seed, but not graded there
]
WRONG = [
    ["year", "year", "year", "year", "month", "month", "day", "month"],  # the day's written digit
    ["year", "year", "year", "year", "day", "day", "day", "day"],  # month digits read from the day
    ["year", "year", "day", "year", "month", "month", "day", "day"],  # the year's 2 looks at the year
    ["weekday"] * 8,  # everything at the weekday
]


@pytest.mark.parametrize("answer", RIGHT_WRITTEN_DIFFERENTLY)
def test_6_1_accepts_what_some_seed_does_for_the_unwritten_digits(answer):
    result = check_6_1(answer)
    assert result, repr(result)
    assert "day (seeds 1, 3, 29, 33, 37, 40, 48, 50, 57, 58, 64, 67)" in repr(result) and "weekday (seed 2)" in repr(
        result
    )  # where they look, seed by seed


@pytest.mark.parametrize("answer", WRONG)
def test_6_1_rejects_wrong_written_digits_without_naming_them(answer):
    result = check_6_1(answer)
    says(result, "Exercise 6.1", "of the 4 digits")
    assert "digits [" not in repr(result) and "index" not in repr(result)  # no positions to find by trial


def month_alignment(weights, month_mask, threshold_inclusive=False, digits=(5, 6)):
    mass = (weights[:, list(digits), :] * month_mask[:, None, :]).sum(-1)
    hit = mass >= 0.5 if threshold_inclusive else mass > 0.5
    return hit.all(-1).float().mean()


def test_6_2_right_and_the_mistakes_it_names():
    assert check_6_2(month_alignment)
    assert "not attempted" in repr(check_6_2(unsolved))
    says(check_6_2(lambda w, m: month_alignment(w, m, threshold_inclusive=True)), "Exercise 6.2", "wrong value")
    says(check_6_2(lambda w, m: month_alignment(w, m, digits=(8, 9))), "Exercise 6.2", "wrong value")
    says(check_6_2(lambda w, m: month_alignment(w, m).double()), "Exercise 6.2", "expected dtype torch.float32")
    says(check_6_2(lambda w, m: month_alignment(w, m).item()), "Exercise 6.2", "expected a torch.Tensor")


def test_6_3_names_the_counts_only_when_right():
    assert "not attempted" in repr(check_6_3(...))
    verdicts = {field: check_6_3(field) for field in ("day", "month", "year")}
    assert sum(bool(v) for v in verdicts.values()) == 1
    right = next(v for v in verdicts.values() if v)
    assert "Held-out dates (of 2000)" in repr(right)
    says(check_6_3(3), "Exercise 6.3", "expected one of the choices as a string")
    assert torch.is_grad_enabled()


@pytest.mark.parametrize("answer", ["Day", "days", "the day", "The day's", " DAY. "])
def test_6_3_a_right_field_in_other_words_passes(answer):
    right = next(f for f in ("day", "month", "year") if check_6_3(f))
    if right == "day":
        assert check_6_3(answer), repr(check_6_3(answer))


@pytest.mark.parametrize("answer", ["months", "the year", "week", "the day and month"])
def test_6_3_other_words_for_a_wrong_field_are_wrong(answer):
    assert not check_6_3(answer)
