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


# ---------------------------------------------------------------- notebook 2: additive attention


def _additive_cases(seed: int, count: int) -> list[Case]:
    """Random (queries, keys, W_q, W_k, w_v) with d_q != d_k among them, plus three fixed ones."""
    g = torch.Generator().manual_seed(seed)
    sizes = [(1, 1, 1, 1, 1, 2), (2, 1, 10, 20, 2, 8), (2, 3, 4, 5, 2, 6)]  # (B, Q, K, d_q, d_k, h)
    for _ in range(count):
        sizes.append(tuple(int(torch.randint(1, 6, (), generator=g)) for _ in range(6)))
    cases = []
    for B, Q, K, d_q, d_k, h in sizes:
        args = (
            torch.randn(B, Q, d_q, generator=g),
            torch.randn(B, K, d_k, generator=g),
            torch.randn(h, d_q, generator=g),
            torch.randn(h, d_k, generator=g),
            torch.randn(h, generator=g),
        )
        cases.append((args, f"B={B}, Q={Q}, K={K}, d_q={d_q}, d_k={d_k}, h={h}"))
    return cases


def _additive_scores(queries, keys, W_q, W_k, w_v) -> torch.Tensor:
    """Reference: w_v . tanh(W_q q_i + W_k k_j) for every pair -> (B, Q, K)."""
    features = (queries @ W_q.T).unsqueeze(2) + (keys @ W_k.T).unsqueeze(1)  # (B, Q, 1, h) + (B, 1, K, h)
    return torch.tanh(features) @ w_v  # (B, Q, K, h) @ (h,) -> (B, Q, K)


def check_2_1(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 2.1: additive scores (B, Q, K) from queries, keys, W_q (h, d_q), W_k (h, d_k) and w_v (h,)."""
    return run_check("Exercise 2.1", fn, _additive_cases(21, 12), _additive_scores)


def check_2_2(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 2.2: one query (B, d_q) per sequence through an AdditiveAttention layer -> context (B, d_v)."""
    from .layers import AdditiveAttention

    g = torch.Generator().manual_seed(22)
    cases = []
    for B, K, d_q, d_k, d_v, h in [(1, 1, 1, 1, 1, 1), (2, 10, 20, 2, 4, 8), (3, 5, 4, 4, 2, 3), (2, 6, 3, 7, 5, 4)]:
        with torch.random.fork_rng(devices=[]):  # the learner's global random state is left as it was
            torch.manual_seed(int(torch.randint(0, 2**31, (), generator=g)))
            layer = AdditiveAttention(key_size=d_k, query_size=d_q, num_hiddens=h, dropout=0.1).eval()
        lens = torch.randint(1, K + 1, (B,), generator=g)
        query, keys = torch.randn(B, d_q, generator=g), torch.randn(B, K, d_k, generator=g)
        args = (layer, query, keys, torch.randn(B, K, d_v, generator=g), lens)
        cases.append((args, f"B={B}, K={K}, d_q={d_q}, d_k={d_k}, d_v={d_v}, valid_lens={lens.tolist()}"))

    def reference(layer, query, keys, values, valid_lens) -> torch.Tensor:
        with torch.no_grad():
            return layer(query.unsqueeze(1), keys, values, valid_lens).squeeze(1)  # (B, 1, d_v) -> (B, d_v)

    return run_check("Exercise 2.2", fn, cases, reference)


class _LargestTensor(torch.overrides.TorchFunctionMode):
    """Records the shape of the largest tensor any torch function returns while the mode is active."""

    def __init__(self) -> None:
        super().__init__()
        self.numel, self.shape = 0, ()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor) and t.numel() > self.numel:
                self.numel, self.shape = t.numel(), tuple(t.shape)
        return out


class TooLargeIntermediate(Exception):
    """Raised inside check_2_3 when the learner's function builds a tensor as large as (B, Q, K, h)."""


def check_2_3(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 2.3: the additive scores of Exercise 2.1 without ever building a (B, Q, K, h) tensor."""
    # Q, K, h >= 2, so that the projections (B, Q, h), (B, K, h) and the scores (B, Q, K) are smaller than the limit
    cases = [c for c in _additive_cases(23, 24) if min(c[0][0].shape[1], c[0][1].shape[1], c[0][2].shape[0]) > 1]

    def watched(queries, keys, W_q, W_k, w_v) -> torch.Tensor:
        B, Q, _ = queries.shape  # batch, queries
        K, h = keys.shape[1], W_q.shape[0]  # keys, hidden size
        with _LargestTensor() as mode:
            out = fn(queries, keys, W_q, W_k, w_v)
        if mode.numel >= B * Q * K * h:
            raise TooLargeIntermediate(
                f"your function built a tensor of shape {mode.shape}, as large as all B·Q·K·h = {B * Q * K * h} "
                f"hidden values at once; build the hidden values of one query at a time"
            )
        return out

    return run_check("Exercise 2.3", watched if callable(fn) else fn, cases, _additive_scores)


# ---------------------------------------------------------------- notebook 3: scaled dot-product attention


def _dot_cases(seed: int, count: int) -> list[tuple[int, int, int, int, int, torch.Tensor | None]]:
    """(B, Q, K, d, d_v, valid_lens) with lengths None, (B,) or (B, Q), including 0 and K."""
    g = torch.Generator().manual_seed(seed)
    fixed = [
        (1, 1, 1, 1, 1, None),
        (2, 3, 4, 16, 2, torch.tensor([0, 4])),
        (2, 2, 3, 64, 3, torch.tensor([[1, 3], [2, 0]])),
    ]
    for i in range(count):
        B, Q, K, d_v = (int(torch.randint(1, 6, (), generator=g)) for _ in range(4))
        d = int(torch.randint(1, 65, (), generator=g))
        lens = [None, torch.randint(0, K + 1, (B,), generator=g), torch.randint(0, K + 1, (B, Q), generator=g)][i % 3]
        fixed.append((B, Q, K, d, d_v, lens))
    return fixed


def check_3_1(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 3.1: scaled dot-product attention built on masked_softmax -> output (B, Q, d_v)."""
    from .layers import DotProductAttention

    g = torch.Generator().manual_seed(31)
    cases = []
    for B, Q, K, d, d_v, lens in _dot_cases(31, 12):
        queries, keys = torch.randn(B, Q, d, generator=g) * 2, torch.randn(B, K, d, generator=g)
        args = (queries, keys, torch.randn(B, K, d_v, generator=g), lens)
        described = None if lens is None else lens.tolist()
        cases.append((args, f"B={B}, Q={Q}, K={K}, d={d}, d_v={d_v}, valid_lens={described}"))
    return run_check("Exercise 3.1", fn, cases, DotProductAttention().eval())


def check_3_2(fn: Callable[[torch.Tensor, int, int], torch.Tensor]) -> CheckResult:
    """Exercise 3.2: lengths (B,) or (B, Q) -> boolean attn_mask (B, Q, K) for SDPA (True = may attend)."""
    cases = [
        ((lens, Q, K), f"valid_lens={lens.tolist()}, num_queries={Q}, num_keys={K}")
        for B, Q, K, _, _, lens in _dot_cases(32, 15)
        if lens is not None
    ]
    return run_check("Exercise 3.2", fn, cases, valid_lens_to_mask, exact=True)


def check_3_3(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 3.3: multiplicative ("general") scores q^T W k with W (d_q, d_k) -> (B, Q, K)."""
    g = torch.Generator().manual_seed(33)
    sizes = [(1, 1, 1, 1, 1), (2, 3, 4, 5, 2), (2, 2, 3, 3, 3)]  # (B, Q, K, d_q, d_k)
    sizes += [tuple(int(torch.randint(1, 6, (), generator=g)) for _ in range(5)) for _ in range(10)]
    cases = []
    for B, Q, K, d_q, d_k in sizes:
        args = (
            torch.randn(B, Q, d_q, generator=g),
            torch.randn(B, K, d_k, generator=g),
            torch.randn(d_q, d_k, generator=g),
        )
        cases.append((args, f"B={B}, Q={Q}, K={K}, d_q={d_q}, d_k={d_k}"))

    def reference(queries, keys, W) -> torch.Tensor:
        return queries @ W @ keys.transpose(1, 2)  # (B, Q, d_q) @ (d_q, d_k) @ (B, d_k, K) -> (B, Q, K)

    return run_check("Exercise 3.3", fn, cases, reference)
