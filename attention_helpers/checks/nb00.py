"""Self-checks for notebook 0, what attention computes."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import torch

from ._runner import CheckResult, _as_number, _call_again, _never_raises, _shown, run_check

__all__ = ["check_0_1", "check_0_2", "check_0_3"]

_SCORES = (2.5, 1.0, -0.5)  # q · k1, q · k2, q · k3 in 0.1
_CHOICES = {  # three flat lines, so 0.3's "a flat line" rules none out (a nearest point or zero, the picture did)
    "a": "the median of the training values",
    "b": "the mean of all the training values",
    "c": "the mean of the true function over [0, 5]",
}


def _not_yet(label: str) -> CheckResult:
    return CheckResult(False, f"⏳ {label}: not attempted yet; replace `None` with your answer and run again.")


@_never_raises
def check_0_1(answer: float | None) -> CheckResult:
    """Exercise 0.1 (predict): the weight on k1 when the query of 0.1 is doubled, to 2 decimals."""
    label = "Exercise 0.1"
    if answer is None:
        return _not_yet(label)
    if (number := _as_number(answer)) is None:
        return CheckResult(
            False, f"❌ {label}: answer with a number such as 0.5, got {type(answer).__name__} {_shown(answer)}"
        )
    answer = number  # a float (a numpy number, a 0-d tensor or an int too large for a float read as one)
    exps = [math.exp(2 * s) for s in _SCORES]
    expected = exps[0] / sum(exps)  # softmax of the doubled scores, first entry
    before = math.exp(_SCORES[0]) / sum(math.exp(s) for s in _SCORES)
    why = (
        f"doubling q doubles every score, to (5, 2, -1); the gaps between them double too, and softmax turns "
        f"bigger gaps into sharper weights: {before:.3f} -> {expected:.3f}"
    )
    if abs(answer - expected) <= 0.006:  # 0.95, or more decimals of 0.9503: not 0.94 or 0.96 (a fresh reader's)
        return CheckResult(True, f"✅ {label}: right, {expected:.3f}: {why}.")
    if abs(answer - before) <= 0.01:
        return CheckResult(
            False, f"❌ {label}: {answer:g} is the weight before doubling; softmax is not scale-free: {why}."
        )
    if answer > 1 or answer < 0:
        return CheckResult(
            False, f"❌ {label}: {answer:g} cannot be a weight: softmax weights lie in [0, 1] and sum to 1."
        )
    return CheckResult(False, f"❌ {label}: not {answer:g}. Hint: {why.split(';')[0]}; now take their softmax.")


@_never_raises
def check_0_2(answer: str | None) -> CheckResult:
    """Exercise 0.2 (predict): what the kernel-regression fit becomes when the bandwidth grows without bound."""
    label = "Exercise 0.2"
    if answer is None:
        return _not_yet(label)
    if (letter := _letter(answer)) is None:
        return CheckResult(
            False, f"❌ {label}: answer with one of the letters {sorted(_CHOICES)}, got {_shown(answer)}"
        )
    why = (
        "as the bandwidth grows, every score -(x - x_i)^2 / (2 sigma^2) tends to 0, softmax of equal scores is "
        "uniform, and a uniform weighted mean is the plain mean: a flat line at the training values' mean"
    )
    if letter == "b":
        return CheckResult(True, f"✅ {label}: right, {_CHOICES['b']}: {why}.")
    return CheckResult(False, f"❌ {label}: not {_CHOICES[letter]}: {why}.")


def _letter(answer: object) -> str | None:
    """The choice a string names: its letter as written in the exercise ("b", "(b)", "b)", "B.", " (B) ") or the
    choice's own words ("the mean of all the training values"); None for anything else."""
    if not isinstance(answer, str):
        return None
    text = " ".join(answer.lower().split()).strip(" .'\"")
    if len(text) >= 2 and text[0] == "(" and text[-1] == ")":
        text = text[1:-1].strip()
    elif text.endswith(")"):
        text = text[:-1].strip()
    if text in _CHOICES:
        return text
    by_words = next((letter for letter, words in _CHOICES.items() if text == words), None)
    if by_words is not None:
        return by_words
    # a letter and its words, as the exercise lists them: "(b) the mean of all the training values", "b) ...", "b. ..."
    match = re.fullmatch(r"\(?([a-z])[).:]?\s+(.+)", text)
    if match and match.group(1) in _CHOICES and match.group(2).strip(" .") == _CHOICES[match.group(1)]:
        return match.group(1)
    return None


def _reference_weights(queries: torch.Tensor, keys: torch.Tensor, bandwidth: float) -> torch.Tensor:
    from ..lessons.kernel_regression import nadaraya_watson_weights

    return nadaraya_watson_weights(queries, keys, bandwidth)


@_never_raises
def check_0_3(fn: Callable[[torch.Tensor, torch.Tensor, float], torch.Tensor]) -> CheckResult:
    """Exercise 0.3 (find the bug): Nadaraya-Watson weights (Q, K) from queries (Q,), keys (K,) and a bandwidth."""
    label = "Exercise 0.3"
    g = torch.Generator().manual_seed(3)
    cases = [
        ((torch.tensor([0.0, 1.0, 2.5]), torch.tensor([0.0, 0.5, 2.0, 4.0]), 1.0), "3 queries, 4 keys, bandwidth 1"),
        ((torch.tensor([1.0]), torch.tensor([0.0, 3.0]), 0.5), "one query, 2 keys, bandwidth 0.5"),
        ((torch.tensor([0.2, 0.4]), torch.tensor([1.0]), 2.0), "2 queries, one key"),
    ]
    for _ in range(6):
        Q, K = (int(torch.randint(1, 9, (), generator=g)) for _ in range(2))
        bandwidth = float(torch.rand((), generator=g)) * 2 + 0.1
        args = (torch.rand(Q, generator=g) * 5, torch.rand(K, generator=g) * 5, bandwidth)
        cases.append((args, f"{Q} queries, {K} keys, bandwidth {bandwidth:.2f}"))
    result = run_check(label, fn, cases, _reference_weights, forbid=_forbidden(), also_dtypes=(torch.float64,))
    if result:  # only now the diagnosis: a committed, unsolved notebook must not give it away
        return CheckResult(
            True,
            f"{result.message} The bug was the softmax's axis: dim=0 made each column (one key, over the "
            f"queries) sum to 1; each query's weights must sum to 1 over the keys, dim=-1.",
        )
    if not callable(fn) or "wrong value" not in result.message:  # a bug below is one of wrong values
        return result
    queries, keys = torch.tensor([0.0, 1.0, 2.5]), torch.tensor([0.0, 0.5, 2.0, 4.0])
    like = _reference_weights(queries, keys, 1.0)  # (3, 4)
    got = _call_again(fn, (queries, keys, 1.0), like=like)  # (3, 4) or None
    if got is None:  # float64 is right too
        got = _call_again(fn, (queries, keys, 1.0), like=like.double())
    if got is None:  # it raised, or returned something else: the runner's message says what
        return result
    columns = torch.allclose(got.sum(0), torch.ones(4, dtype=got.dtype), atol=1e-4)
    rows = torch.allclose(got.sum(1), torch.ones(3, dtype=got.dtype), atol=1e-4)
    if columns and not rows:  # the symptom only: the learner finds the cause
        return CheckResult(
            False,
            f"❌ {label}: each query's weights should sum to 1, but yours sum to "
            f"{[round(v, 2) for v in got.sum(1).tolist()]} (case: 3 queries, 4 keys, bandwidth 1).",
        )
    if rows and bool((got.argmax(1) == (queries[:, None] - keys).abs().argmax(1)).all()):
        return CheckResult(
            False,
            f"❌ {label}: each query gives its largest weight to the farthest key, where the closest should score "
            f"highest. {result.message[len(label) + 4 :]}",
        )
    return result


def _forbidden() -> dict[str, object]:
    from ..lessons.kernel_regression import nadaraya_watson, nadaraya_watson_weights

    return {"nadaraya_watson_weights": nadaraya_watson_weights, "nadaraya_watson": nadaraya_watson}
