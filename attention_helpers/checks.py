"""Instant self-checks for the notebooks' exercises: `check_1_1(your_function)` says what is wrong or that it is right.

Each check runs the learner's function on hand-picked edge cases and random ones, compares with a reference
built from `attention_helpers` or PyTorch, and returns a `CheckResult`: true only when every case passes, shown
in a notebook as one line (✅ right, ❌ what is wrong and on which case, ⏳ not attempted yet).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch

from .masking import masked_softmax, valid_lens_to_mask

__all__ = ["CheckResult", "check_1_1", "check_1_2", "check_1_3", "run_check"]

Case = tuple[tuple[Any, ...], str]  # (arguments, description)


class CheckResult:
    """The verdict of a check: truthy when passed; its repr is the one-line message a notebook shows."""

    def __init__(self, passed: bool, message: str):
        self.passed, self.message = passed, message

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return self.message


def _fmt(value: torch.Tensor) -> str:
    item = value.item()
    return str(item) if isinstance(item, bool) else f"{item:.4g}"


def run_check(
    label: str,
    fn: Callable[..., Any],
    cases: Iterable[Case],
    reference: Callable[..., Any],
    *,
    exact: bool = False,
    dtype: torch.dtype | None = None,
) -> CheckResult:
    """Call fn and reference on each case; the result names the first difference, or says all passed."""
    if not callable(fn):
        return CheckResult(
            False, f"❌ {label}: pass your function itself (without calling it), got {type(fn).__name__}"
        )
    count = 0
    for args, description in cases:
        count += 1
        snapshot = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        try:
            got = fn(*args)
        except NotImplementedError:
            return CheckResult(
                False,
                f"⏳ {label}: not attempted yet; replace `raise NotImplementedError` with your code and run again.",
            )
        except Exception as error:  # the learner's bug, reported in one line
            return CheckResult(False, f"❌ {label}: raised {type(error).__name__}: {error}  (case: {description})")
        expected = reference(*args)
        for before, after in zip(snapshot, args, strict=True):
            if isinstance(before, torch.Tensor) and not torch.equal(before, after):
                return CheckResult(
                    False, f"❌ {label}: your function modified its input (case: {description}); return a new tensor"
                )
        if not isinstance(got, torch.Tensor):
            return CheckResult(
                False, f"❌ {label}: expected a torch.Tensor, got {type(got).__name__} (case: {description})"
            )
        if got.shape != expected.shape:
            return CheckResult(
                False,
                f"❌ {label}: expected shape {tuple(expected.shape)}, got {tuple(got.shape)} (case: {description})",
            )
        wanted = dtype or expected.dtype
        if got.dtype != wanted:
            return CheckResult(False, f"❌ {label}: expected dtype {wanted}, got {got.dtype} (case: {description})")
        same = (
            torch.equal(got, expected)
            if exact or not got.is_floating_point()
            else torch.allclose(got, expected, atol=1e-5, rtol=1e-4, equal_nan=False)
        )
        if not same:
            close = torch.isclose(got, expected, rtol=1e-4, atol=1e-5) if got.is_floating_point() else got == expected
            index = tuple(int(i) for i in (~close).nonzero()[0])
            return CheckResult(
                False,
                f"❌ {label}: wrong value at index {index}: expected {_fmt(expected[index])}, "
                f"got {_fmt(got[index])} (case: {description})",
            )
    return CheckResult(True, f"✅ {label}: correct on all {count} cases.")


def _length_cases(seed: int, count: int) -> list[tuple[torch.Tensor, int]]:
    """Random (valid_lens (B,), K) pairs including the edges: length 0, full length, one key."""
    g = torch.Generator().manual_seed(seed)
    cases = [(torch.tensor([0, 3]), 3), (torch.tensor([1]), 1), (torch.tensor([4, 0, 2]), 4)]
    for _ in range(count):
        B, K = int(torch.randint(1, 5, (), generator=g)), int(torch.randint(1, 7, (), generator=g))
        cases.append((torch.randint(0, K + 1, (B,), generator=g), K))
    return cases


def check_1_1(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 1.1: valid_lens (B,) and K -> key_padding_mask (B, K) for nn.MultiheadAttention (True = ignore)."""
    cases = [((lens, K), f"valid_lens={lens.tolist()}, num_keys={K}") for lens, K in _length_cases(11, 20)]
    return run_check("Exercise 1.1", fn, cases, lambda lens, K: ~valid_lens_to_mask(lens, 1, K)[:, 0, :], exact=True)


def check_1_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 1.2: your own masked softmax for 1-D lengths: masked keys exactly 0, empty rows all 0."""
    g = torch.Generator().manual_seed(12)
    cases = []
    for lens, K in _length_cases(12, 20):
        X = torch.randn(len(lens), 3, K, generator=g) * 4
        cases.append(((X, lens), f"X of shape {tuple(X.shape)}, valid_lens={lens.tolist()}"))
    return run_check("Exercise 1.2", fn, cases, masked_softmax)


def check_1_3(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 1.3: causal lengths (B, Q) for Q = K: query i may see keys 0..i."""
    cases = [((B, Q), f"batch_size={B}, num_queries={Q}") for B, Q in ((1, 1), (2, 3), (3, 5), (1, 8))]
    return run_check(
        "Exercise 1.3", fn, cases, lambda B, Q: torch.arange(1, Q + 1).repeat(B, 1), dtype=torch.int64, exact=True
    )
