"""Self-checks for notebook 2, additive attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ._runner import Case, CheckResult, _call_again, _never_raises, _raised, run_check

__all__ = ["TooLargeIntermediate", "check_2_1", "check_2_2", "check_2_3"]


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


@_never_raises
def check_2_1(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 2.1: additive scores (B, Q, K) from queries, keys, W_q (h, d_q), W_k (h, d_k) and w_v (h,)."""
    g = torch.Generator().manual_seed(210)
    probes = tuple(  # alike but for their sizes, each larger in the second: a loop over any of them does more there
        tuple(
            torch.randn(*shape, generator=g)
            for shape in ((B, Q, d_q), (B, K, d_k), (h, d_q), (h, d_k), (h,))  # queries, keys, W_q, W_k, w_v
        )
        for B, Q, K, d_q, d_k, h in ((2, 3, 4, 5, 6, 7), (3, 4, 5, 6, 7, 8))
    )
    return run_check("Exercise 2.1", fn, _additive_cases(21, 12), _additive_scores, no_loops=probes)


def _tanh_after_w_v(queries, keys, W_q, W_k, w_v) -> torch.Tensor:
    """The bug of Exercise 2.2: tanh applied after the read-out, tanh(w_v . W_q q + w_v . W_k k) -> (B, Q, K)."""
    q_part, k_part = queries @ W_q.T @ w_v, keys @ W_k.T @ w_v  # (B, Q), (B, K)
    return torch.tanh(q_part[:, :, None] + k_part[:, None, :])  # (B, Q, 1) + (B, 1, K) -> (B, Q, K)


def _same_ranking(scores: torch.Tensor) -> bool:
    """True when every query of every sequence ranks the keys in the same order (and there are 2+ queries, keys)."""
    order = scores.argsort(dim=-1)  # (B, Q, K)
    return scores.shape[1] > 1 and scores.shape[2] > 1 and bool((order == order[:, :1]).all())


@_never_raises
def check_2_2(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 2.2 (find the bug): repair the fast additive scores, whose every query ranks the keys alike."""
    cases = [c for c in _additive_cases(22, 12) if c[0][0].shape[1] > 1 and c[0][1].shape[1] > 2]
    result = run_check("Exercise 2.2", fn, cases, _additive_scores)
    if result or not callable(fn) or not result.message.startswith("❌ Exercise 2.2: wrong value"):
        return result
    args = cases[0][0]
    if (got := _call_again(fn, args, like=_additive_scores(*args))) is None:
        return result
    if torch.allclose(got, _tanh_after_w_v(*args), atol=1e-5) or _same_ranking(got):
        why = (  # the symptom only, as the exercise states it: where the bug is, is the learner's to find
            "every query of a sequence still ranks the keys in the same order, so no query can have a favourite key "
            "of its own; 2.1's scores let each query rank them its own way"
        )
    else:
        return result
    return CheckResult(False, f"{result.message}. Symptom: {why}")


def _physical(t: torch.Tensor) -> torch.Tensor:
    """The tensor torch.vmap holds behind a batched one (every vmapped axis included); any other tensor as it is."""
    functorch = torch._C._functorch
    while functorch.is_batchedtensor(t):
        t = functorch.get_unwrapped(t)
    return t


class _LargestTensor(torch.overrides.TorchFunctionMode):
    """Records the shape of the largest tensor any torch function returns while the mode is active, as stored: under
    torch.vmap a function sees one query's slice, but the tensor behind it holds every query's (`vmapped` says so)."""

    def __init__(self) -> None:
        super().__init__()
        self.numel, self.shape, self.vmapped = 0, (), False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if not isinstance(t, torch.Tensor):
                continue
            stored = _physical(t)
            if stored.numel() > self.numel:
                self.numel, self.shape = stored.numel(), tuple(stored.shape)
                self.vmapped = stored is not t
        return out


class TooLargeIntermediate(Exception):
    """Raised inside check_2_3 when the learner's function builds a tensor as large as (B, Q, K, h)."""


@_never_raises
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
            how = " (torch.vmap runs the queries side by side, in one tensor)" if mode.vmapped else ""
            raise TooLargeIntermediate(
                f"your function built a tensor of shape {mode.shape}{how}, as large as all B·Q·K·h = {B * Q * K * h} "
                f"hidden values at once; build the hidden values of one query at a time"
            )
        return out

    result = run_check("Exercise 2.3", watched if callable(fn) else fn, cases, _additive_scores)
    if not result:
        return result
    return _memory_verdict(fn, result)


_HELD = (1, 16, 64, 64)  # exercise 2.3: (B, Q, K, h) of the case on which the memory held at once is measured


def _memory_verdict(fn: Callable[..., torch.Tensor], passed: CheckResult) -> CheckResult:
    """The verdict on a function right on every case: does it ever hold as many bytes as all the hidden values?
    (Whatever holds them: one tensor, a list of every query's, or storage the check cannot see into.)"""
    from ..lessons.cost import peak_memory

    B, Q, K, h = _HELD
    g = torch.Generator().manual_seed(231)
    args = (torch.randn(B, Q, 4, generator=g), torch.randn(B, K, 4, generator=g))
    args += (torch.randn(h, 4, generator=g), torch.randn(h, 4, generator=g), torch.randn(h, generator=g))
    case = f"B={B}, Q={Q}, K={K}, h={h}"
    try:
        with torch.no_grad():
            held = peak_memory(lambda: fn(*args))
    except Exception as error:  # right on the small cases, but not on this one
        return _raised("Exercise 2.3", error, f"case: {case}")
    hidden = B * Q * K * h * 4  # bytes of all the float32 hidden values
    if held >= hidden:
        return CheckResult(
            False,
            f"❌ Exercise 2.3: right values, but it held {held / 2**10:,.0f} KiB at its peak, as much as all B·Q·K·h "
            f"hidden values at once ({hidden / 2**10:,.0f} KiB) (case: {case}); build the hidden values of one query "
            f"at a time, and let each go before the next",
        )
    return CheckResult(True, f"{passed.message[:-1]}, and it never held all the hidden values at once.")
