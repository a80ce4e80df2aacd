"""Self-checks for notebook 6, attention learns: the date translator."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import torch

from ._runner import Case, CheckResult, _never_raises, check_answer, run_check

__all__ = ["EXERCISE_6_1_TEXT", "check_6_1", "check_6_2", "check_6_3"]

# A held-out date in a format combination that training never saw: weekday name, then day.month.year with a
# one-digit day, a two-digit month and a two-digit year (DateFormat("DMY", "d", "mm", "yy", "name")).
EXERCISE_6_1_TEXT = "Tuesday 6.04.21"
_CHOICES = ("day", "month", "year", "weekday")


def _spans(text: str) -> dict[str, tuple[int, int]]:
    """The character spans of "Weekday D.M.YY": weekday, day, month and year."""
    start = text.rindex(" ") + 1
    day, month, year = text[start:].split(".")
    m0 = start + len(day) + 1
    y0 = m0 + len(month) + 1
    return {
        "weekday": (0, text.index(" ")),
        "day": (start, start + len(day)),
        "month": (m0, m0 + len(month)),
        "year": (y0, y0 + len(year)),
    }


def _looks_at(text: str) -> list[str]:
    """The field on which each output character of the committed additive model puts its largest weight."""
    from ..lessons.dates_train import load_translator, translate

    _, weights = translate(load_translator("additive"), [text])  # (1, T, L)
    spans = _spans(text)
    columns = weights[0].argmax(-1).tolist()  # (T,)
    return [next((n for n, (a, b) in spans.items() if a <= c < b), "punctuation") for c in columns]


_DIGITS = (0, 1, 2, 3, 5, 6, 8, 9)  # the output characters of YYYY-MM-DD that are digits
_NAMES = (
    "the century's 2",
    "the century's 0",
    "the year's 2",
    "the year's 1",
    "the month's 0",
    "the month's 4",
    "the day's 0",
    "the day's 6",
)  # the 8 digits of YYYYMMDD, 20210406


def _seeds_looks() -> dict[int, list[str]]:
    """{seed: where each of the 8 digits looks} for the additive model of every training seed (the committed records)."""
    from ..lessons import dates_claims  # noqa: F401  (registers the records' family)
    from ..lessons.claims import load_records

    return {seed: r["additive"]["exercise_6_1"] for seed, r in load_records("dates").items()}


def _by_seed(looks: dict[int, list[str]], digit: int) -> str:
    places: dict[str, list[int]] = {}
    for seed, row in looks.items():
        places.setdefault(row[digit], []).append(seed)
    return ", ".join(
        f"{place} (seed{'s' if len(s) > 1 else ''} {', '.join(map(str, s))})" for place, s in places.items()
    )


@_never_raises
def check_6_1(answer: object) -> CheckResult:
    """Exercise 6.1: for each of the 8 output digits of EXERCISE_6_1_TEXT, the field it weighs most. Graded on the digits
    that look at the same field in every training seed (four); where the others look varies with the seed."""
    label = "Exercise 6.1"
    if answer is ...:
        return check_answer(label, ..., "", "")
    if not isinstance(answer, (list, tuple)) or len(answer) != 8 or not all(isinstance(a, str) for a in answer):
        return CheckResult(False, f"❌ {label}: expected a list of 8 field names, one per output digit, got {answer!r}")
    answer = [a.strip().lower() for a in answer]
    if any(a not in _CHOICES + ("punctuation",) for a in answer):
        return CheckResult(False, f"❌ {label}: each answer must be one of {list(_CHOICES) + ['punctuation']}")
    seeds = _seeds_looks()
    committed = _looks_at(EXERCISE_6_1_TEXT)
    mine = [committed[i] for i in _DIGITS]
    graded = [i for i in range(8) if len({row[i] for row in seeds.values()}) == 1]  # the same in every seed
    wrong = [i for i in graded if answer[i] != mine[i]]
    if wrong:
        return CheckResult(
            False,
            f"❌ {label}: {len(wrong)} of the {len(graded)} digits the check grades are wrong; think again: a digit the "
            "text writes is copied from somewhere.",
        )
    varies = ". ".join(
        f"{_NAMES[i][0].upper() + _NAMES[i][1:]}: you said {answer[i]}, it looks at {_by_seed(seeds, i)}"
        for i in range(8)
        if i not in graded
    )
    return CheckResult(
        True,
        f"✅ {label}: right: {', '.join(_NAMES[i] for i in graded)} look at their own fields in every one of the "
        f"{len(seeds)} training seeds, in a format combination training never showed. Where the others look depends "
        f"on the seed. {varies}.",
    )


def _month_alignment(weights: torch.Tensor, month_mask: torch.Tensor) -> torch.Tensor:
    """Fraction of dates where both month digits (outputs 5 and 6) put > 0.5 of their weight on the month."""
    mass = (weights[:, 5:7, :] * month_mask[:, None, :]).sum(-1)  # (N, 2, L) -> (N, 2)
    return (mass > 0.5).all(-1).float().mean()


def _weight_cases(seed: int, count: int) -> list[Case]:
    g = torch.Generator().manual_seed(seed)
    cases: list[Case] = []
    for _ in range(count):
        N, L = int(torch.randint(1, 7, (), generator=g)), int(torch.randint(3, 12, (), generator=g))
        weights = torch.softmax(torch.randn(N, 10, L, generator=g) * 3, dim=-1)  # (N, T, L)
        start = torch.randint(0, L - 1, (N, 1), generator=g)
        width = torch.randint(1, 4, (N, 1), generator=g)
        columns = torch.arange(L)
        mask = (columns >= start) & (columns < start + width)  # (N, L)
        cases.append(((weights, mask), f"weights of shape {(N, 10, L)}, month_mask of shape {(N, L)}"))
    # Exactly 0.5 on the month is not "most of its weight"; the day digits (8, 9) on the month do not count.
    half = torch.zeros(1, 10, 4)
    half[0, :, 0] = half[0, :, 3] = 0.5
    cases.append(((half, torch.tensor([[True, False, False, False]])), "every weight exactly 0.5 on the month"))
    day_on_month = torch.zeros(1, 10, 4)
    day_on_month[0, :, 1] = 1.0
    day_on_month[0, 5:7] = torch.tensor([0.0, 0.0, 1.0, 0.0])
    cases.append(((day_on_month, torch.tensor([[False, True, False, False]])), "only the day digits on the month"))
    return cases


@_never_raises
def check_6_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.2: weights (N, T, L), month_mask (N, L) -> 0-d float32 fraction of dates whose month digits
    (outputs 5 and 6) both put more than half their weight on the month's characters."""
    return run_check("Exercise 6.2", fn, _weight_cases(62, 20), _month_alignment, exact=True, dtype=torch.float32)


@cache
def _field_errors() -> dict[str, int]:
    """{field: held-out dates where the committed model without attention gets that field wrong}."""
    from ..lessons.dates import FIELDS, OUTPUT_FIELDS, make_dates
    from ..lessons.dates_train import HELD_OUT_SIZE, load_translator, translate

    data = make_dates(HELD_OUT_SIZE, "held_out", seed=0)
    predicted, _ = translate(load_translator("none"), list(data.inputs), warn=False)
    errors = {
        name: sum(any(p[i] != t[i] for i in OUTPUT_FIELDS[name]) for p, t in zip(predicted, data.outputs, strict=True))
        for name in FIELDS
    }
    return errors


def _field_name(answer: object) -> object:
    """A field named as a learner may write it ("Day", "days", "the day") as "day", "month" or "year"; anything
    else as it is (the check then says what it expected)."""
    if not isinstance(answer, str):
        return answer
    words = [w for w in answer.lower().replace("'s", "").strip(" .!'\"").split() if w != "the"]
    word = words[0] if len(words) == 1 else answer
    for name in ("day", "month", "year"):
        if word in (name, name + "s"):
            return name
    return answer


@_never_raises
def check_6_3(worst_field: object) -> CheckResult:
    """Exercise 6.3: which field does the model without attention get wrong most often on the held-out set?"""
    label = "Exercise 6.3"
    if worst_field is ...:
        return check_answer(label, ..., "", "")
    worst_field = _field_name(worst_field)
    errors = _field_errors()
    worst = max(errors, key=errors.get)
    counts = ", ".join(f"{name} {count}" for name, count in errors.items())
    why = (
        f"Held-out dates (of 2000) with the field wrong: {counts}. That is this model's ranking (seed 0); a model "
        "trained from another seed is not checked here and may rank the fields differently."
    )
    return check_answer(label, worst_field, worst, why)
