"""Self-checks for notebook 2, additive attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ._runner import Case, CheckResult, _call_again, _never_raises, run_check

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
    return run_check("Exercise 2.1", fn, _additive_cases(21, 12), _additive_scores, no_loops=True)


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
        why = (
            "every query of a sequence ranks the keys in the same order, so no query can have a favourite key of its "
            "own. Where, in your function, do a query and a key first meet, and what happens to them before that?"
        )
    else:
        return result
    return CheckResult(False, f"{result.message}. Bug: {why}")


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
            raise TooLargeIntermediate(
                f"your function built a tensor of shape {mode.shape}, as large as all B·Q·K·h = {B * Q * K * h} "
                f"hidden values at once; build the hidden values of one query at a time"
            )
        return out

    return run_check("Exercise 2.3", watched if callable(fn) else fn, cases, _additive_scores)
