"""Self-checks for notebook 1, masking."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..masking import masked_softmax, valid_lens_to_mask
from ._runner import CheckResult, _never_raises, _shown, check_answer, combine, run_check

__all__ = ["check_1_1", "check_1_2", "check_1_3", "check_1_4"]


def _length_cases(seed: int, count: int) -> list[tuple[torch.Tensor, int]]:
    """Random (valid_lens (B,), K) pairs including the edges: length 0, full length, one key."""
    g = torch.Generator().manual_seed(seed)
    cases = [(torch.tensor([0, 3]), 3), (torch.tensor([1]), 1), (torch.tensor([4, 0, 2]), 4)]
    for _ in range(count):
        B, K = int(torch.randint(1, 5, (), generator=g)), int(torch.randint(1, 7, (), generator=g))
        cases.append((torch.randint(0, K + 1, (B,), generator=g), K))
    return cases


@_never_raises
def check_1_1(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 1.1: valid_lens (B,) and K -> key_padding_mask (B, K) for nn.MultiheadAttention (True = ignore)."""
    cases = [((lens, K), f"valid_lens={lens.tolist()}, num_keys={K}") for lens, K in _length_cases(11, 20)]
    return run_check(
        "Exercise 1.1",
        fn,
        cases,
        lambda lens, K: ~valid_lens_to_mask(lens, 1, K)[:, 0, :],
        exact=True,
        forbid={"valid_lens_to_mask": valid_lens_to_mask},
    )


_RECIPE = (  # notebook 01, end of 1.10.1: what masked_softmax does, and why (finfo.min ties with a real key that low)
    "the recipe at the end of 1.10.1: -inf in the rows that have a real key, 0 in the rows that have none, then the "
    "masked weights set to 0"
)
_HALF_HINT = {
    torch.float16: "the largest float16 number is 65504, so a fill such as -1e6 or -1e9 does not fit (masked_fill "
    f"raises; torch.where writes -inf, and an empty row turns to NaN): fill as {_RECIPE}",
    torch.bfloat16: "bfloat16 keeps about 3 significant digits: compute in X's dtype and return X.dtype, and fill as "
    f"{_RECIPE}",
}
_HALF_TOLERANCE = {torch.float16: (1e-3, 1e-2), torch.bfloat16: (1e-2, 2e-2)}  # (atol, rtol)


@_never_raises
def check_1_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 1.2: your own masked softmax for 1-D lengths: masked keys exactly 0, empty rows all 0, also in
    float16 and bfloat16."""
    g = torch.Generator().manual_seed(12)
    cases = []
    for lens, K in _length_cases(12, 20):
        X = torch.randn(len(lens), 3, K, generator=g) * 4
        cases.append(((X, lens), f"X of shape {tuple(X.shape)}, valid_lens={lens.tolist()}"))
    forbid = {"masked_softmax": masked_softmax}
    result = run_check("Exercise 1.2", fn, cases, masked_softmax, forbid=forbid)
    if not result:
        return result
    count = len(cases)
    for dtype, (atol, rtol) in _HALF_TOLERANCE.items():
        name = str(dtype).removeprefix("torch.")
        half = [
            ((X.to(dtype), lens), f"X in {name}, shape {tuple(X.shape)}, valid_lens={lens.tolist()}")
            for (X, lens), _ in cases[:6]
        ]
        lowest = torch.tensor([[[torch.finfo(dtype).min, 0.5, -0.5]]], dtype=dtype)  # one real key, at the minimum
        half.append(
            ((lowest, torch.tensor([1])), f"X in {name}: one real key scoring {name}'s minimum, valid_lens=[1]")
        )
        result = run_check(f"Exercise 1.2 in {name}", fn, half, masked_softmax, forbid=forbid, atol=atol, rtol=rtol)
        if not result:
            return CheckResult(False, f"{result.message}. In {name}: {_HALF_HINT[dtype]}")
        count += len(half)
    return CheckResult(True, f"✅ Exercise 1.2: correct on all {count} cases, float32, float16 and bfloat16.")


@_never_raises
def check_1_3(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 1.3: causal lengths (B, Q) for Q = K: query i may see keys 0..i."""
    cases = [((B, Q), f"batch_size={B}, num_queries={Q}") for B, Q in ((1, 1), (2, 3), (3, 5), (1, 8))]
    return run_check(
        "Exercise 1.3", fn, cases, lambda B, Q: torch.arange(1, Q + 1).repeat(B, 1), dtype=torch.int64, exact=True
    )


_CHOICES = ("zeros", "uniform", "NaN", "error")
_SYNONYMS = {  # other words for each choice, as a learner may write them (lower case, without "all", "a", "the")
    "zeros": ("zero", "zeroes", "0", "0.0", "exactly 0", "exactly zero", "zero weights", "zero weight"),
    "uniform": (
        "uniform weights",
        "uniform weight",
        "uniformly",
        "equal",
        "equal weights",
        "even",
        "evenly",
        "uniform over padding",
        "uniform over the padding",
    ),
    "NaN": ("nan", "nans", "not a number"),
    "error": ("errors", "raises", "it raises", "raise", "raises an error", "exception", "runtimeerror", "fails"),
}


def _choice(answer: object) -> object:
    """A prediction as one of _CHOICES where it names one ("Zero", "uniform weights", "an error"), a string that
    names none as it is, and anything else unchanged (the check says what it expected)."""
    if not isinstance(answer, str):
        return answer
    words = " ".join(answer.lower().replace("_", " ").split()).strip(" .!'\"")
    words = " ".join(w for w in words.split() if w not in ("all", "a", "an", "the", "they", "get"))
    for choice in _CHOICES:
        if words == choice.lower() or words in _SYNONYMS[choice]:
            return choice
    return answer


def _what_row_gets(dtype: torch.dtype, fill: float, length: int) -> str:
    """One row of 4 keys, `length` of them real: masked_fill(fill) then softmax, in dtype -> one of _CHOICES."""
    scores = torch.tensor([0.4, 0.3, 0.2, 0.1], dtype=dtype)  # (K,)
    padding = torch.arange(4) >= length  # (K,), True = padding
    try:
        weights = torch.softmax(scores.masked_fill(padding, fill), dim=-1)  # (K,)
    except RuntimeError:
        return "error"
    if weights.isnan().any():
        return "NaN"
    if (weights[padding] == 0).all():
        return "zeros"
    return "uniform" if torch.allclose(weights[padding], weights[padding][0]) else "something else"


@_never_raises
def check_1_4(empty_row_fill_1e4: object, padded_row_fill_inf: object) -> CheckResult:
    """Exercise 1.4 (predict, then check): what the padding gets, as one of "zeros", "uniform", "NaN", "error" (or
    other words for one of them: "zero", "uniform weights", "an error" ...)."""
    parts = [
        (
            "Exercise 1.4 (a)",
            empty_row_fill_1e4,
            _what_row_gets(torch.float16, -1e4, 0),
            "-1e4 fits in float16 (its range is ±65504), so masked_fill accepts it; with no real key, every score "
            "of the row is -1e4, and a softmax of equal scores is uniform: the row attends to padding only.",
        ),
        (
            "Exercise 1.4 (b)",
            padded_row_fill_inf,
            _what_row_gets(torch.float16, float("-inf"), 2),
            "With at least one real key the row max is finite, and exp(-inf - max) = 0: -inf is exact, and only a "
            "row with *no* real key turns NaN (0 / 0).",
        ),
    ]
    results = []
    for label, answer, expected, why in parts:
        if isinstance(answer, str) and _choice(answer) not in _CHOICES:  # a typo, or another word: no verdict yet
            results.append(
                CheckResult(
                    False, f'❌ {label}: answer with one of "zeros", "uniform", "NaN" or "error", got {_shown(answer)}'
                )
            )
        else:
            results.append(check_answer(label, _choice(answer), expected, why))
    return combine(results)
