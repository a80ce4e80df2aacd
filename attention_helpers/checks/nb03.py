"""Self-checks for notebook 3, scaled dot-product attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..masking import valid_lens_to_mask
from ._runner import CheckResult, run_check

__all__ = ["check_3_1", "check_3_2", "check_3_3"]


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
    from ..layers import DotProductAttention

    g = torch.Generator().manual_seed(31)
    cases = []
    for B, Q, K, d, d_v, lens in _dot_cases(31, 12):
        queries, keys = torch.randn(B, Q, d, generator=g) * 2, torch.randn(B, K, d, generator=g)
        args = (queries, keys, torch.randn(B, K, d_v, generator=g), lens)
        described = None if lens is None else lens.tolist()
        cases.append((args, f"B={B}, Q={Q}, K={K}, d={d}, d_v={d_v}, valid_lens={described}"))
    forbid = {
        "DotProductAttention": DotProductAttention,
        "F.scaled_dot_product_attention": torch.nn.functional.scaled_dot_product_attention,
    }
    return run_check("Exercise 3.1", fn, cases, DotProductAttention().eval(), forbid=forbid)


def check_3_2(fn: Callable[[torch.Tensor, int, int], torch.Tensor]) -> CheckResult:
    """Exercise 3.2: lengths (B,) or (B, Q) -> boolean attn_mask (B, Q, K) for SDPA (True = may attend)."""
    cases = [
        ((lens, Q, K), f"valid_lens={lens.tolist()}, num_queries={Q}, num_keys={K}")
        for B, Q, K, _, _, lens in _dot_cases(32, 15)
        if lens is not None
    ]
    forbid = {"valid_lens_to_mask": valid_lens_to_mask}
    return run_check("Exercise 3.2", fn, cases, valid_lens_to_mask, exact=True, forbid=forbid)


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
