"""Self-checks for notebook 2, additive attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ._runner import Case, CheckResult, run_check

__all__ = ["check_2_1", "check_2_2", "check_2_3"]


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
    return run_check("Exercise 2.1", fn, _additive_cases(21, 12), _additive_scores, no_loops=True)


def check_2_2(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 2.2: one query (B, d_q) per sequence through an AdditiveAttention layer -> context (B, d_v)."""
    from ..layers import AdditiveAttention

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
