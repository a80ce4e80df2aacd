"""Self-checks for notebook 3, scaled dot-product attention."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch

from ..masking import valid_lens_to_mask
from ._runner import CheckResult, _call_again, _never_raises, check_answer, combine, run_check

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


@functools.cache
def _measured_spread_ratio() -> float:
    """std(q·k) over 5,000 random pairs at d = 256, divided by the same on their first 16 entries (nested prefixes)."""
    g = torch.Generator().manual_seed(31)
    q, k = torch.randn(5000, 256, generator=g), torch.randn(5000, 256, generator=g)  # (N, d)
    return ((q * k).sum(-1).std() / (q[:, :16] * k[:, :16]).sum(-1).std()).item()


@_never_raises
def check_3_1(tau: object, spread_ratio: object) -> CheckResult:
    """Exercise 3.1 (predict, then check): the temperature that undoes no scaling at d = 256, and how much the
    spread of unscaled scores grows from d = 16 to d = 256 on nested prefixes."""
    measured = _measured_spread_ratio()
    return combine(
        [
            check_answer(
                "Exercise 3.1 (a) τ",
                tau,
                16,
                "softmax(q·k / τ) with τ = √256 = 16 is exactly scaled dot-product attention: the 1/√d is a temperature.",
                rel_tol=1e-6,
            ),
            check_answer(
                "Exercise 3.1 (b) spread ratio",
                spread_ratio,
                4,
                f"var(q·k) = d, so the standard deviation is √d: √256 / √16 = 16 / 4 = 4 (measured on 5,000 pairs of "
                f"nested prefixes: {measured:.2f}). Scores 4 times as spread make softmax's ratios exp(4Δ): sharper rows.",
                rel_tol=0.05,
            ),
        ]
    )


@_never_raises
def check_3_2(fn: Callable[[torch.Tensor, int, int], torch.Tensor]) -> CheckResult:
    """Exercise 3.2: lengths (B,) or (B, Q) -> boolean attn_mask (B, Q, K) for SDPA (True = may attend)."""
    cases = [
        ((lens, Q, K), f"valid_lens={lens.tolist()}, num_queries={Q}, num_keys={K}")
        for B, Q, K, _, _, lens in _dot_cases(32, 15)
        if lens is not None
    ]
    forbid = {"valid_lens_to_mask": valid_lens_to_mask}
    return run_check("Exercise 3.2", fn, cases, valid_lens_to_mask, exact=True, forbid=forbid)


def _variant(queries, keys, values, valid_lens, *, scale_by_d: bool, query_axis: bool, uniform_empty: bool):
    """Scaled dot-product attention with any of the three bugs of Exercise 3.3 switched on -> (B, Q, d_v)."""
    d = queries.shape[-1]
    scores = queries @ keys.transpose(1, 2) / (d if scale_by_d else math.sqrt(d))  # (B, Q, K)
    if valid_lens is not None:
        keep = valid_lens_to_mask(valid_lens, queries.shape[1], keys.shape[1])  # (B, Q, K)
        fill = torch.finfo(scores.dtype).min
        scores = scores.masked_fill(~keep, fill)
    weights = torch.softmax(scores, dim=1 if query_axis else -1)  # (B, Q, K)
    if valid_lens is not None and not uniform_empty:
        weights = weights.masked_fill(~keep, 0.0)
    return weights @ values  # (B, Q, K) @ (B, K, d_v) -> (B, Q, d_v)


_BUGS = {
    "scale_by_d": "the scores are √d times too small (at d = 64, 8 times), so the weights are too flat",
    "query_axis": "the weights sum to 1 over the queries (for each key), not over the keys (for each query)",
    "uniform_empty": "a query with no valid key gets uniform weights over the padding instead of zeros",
}


@_never_raises
def check_3_3(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 3.3 (find the bugs): repaired scaled dot-product attention -> (B, Q, d_v), also in float16."""
    from ..layers import DotProductAttention

    g = torch.Generator().manual_seed(33)
    cases = []
    for i, (B, Q, K, d, d_v, lens) in enumerate(_dot_cases(33, 12)):
        dtype = torch.float16 if i % 5 == 4 else torch.float32
        queries, keys = torch.randn(B, Q, d, generator=g) * 2, torch.randn(B, K, d, generator=g)
        args = (queries.to(dtype), keys.to(dtype), torch.randn(B, K, d_v, generator=g).to(dtype), lens)
        described = None if lens is None else lens.tolist()
        name = str(dtype).removeprefix("torch.")
        cases.append((args, f"{name}, B={B}, Q={Q}, K={K}, d={d}, d_v={d_v}, valid_lens={described}"))
    cases.sort(key=lambda case: case[0][0].dtype == torch.float16)  # float32 first: its messages are clearer
    forbid = {
        "DotProductAttention": DotProductAttention,
        "F.scaled_dot_product_attention": torch.nn.functional.scaled_dot_product_attention,
    }
    result = run_check("Exercise 3.3", fn, cases, DotProductAttention().eval(), forbid=forbid, atol=2e-3, rtol=2e-3)
    if result or not callable(fn) or not result.message.startswith("❌"):
        return result
    if "float16" in result.message.rsplit("(case:", 1)[-1] and "raised" in result.message:
        return CheckResult(
            False,
            f"{result.message}. In float16: the largest float16 number is 65504, so your fill value does not fit; "
            f"fill with torch.finfo(scores.dtype).min, or use masked_softmax",
        )
    remaining = []
    for args, _ in cases:  # name the bugs whose combination reproduces the learner's output on every float32 case
        if args[0].dtype != torch.float32:
            continue
        right = _variant(*args, scale_by_d=False, query_axis=False, uniform_empty=False)  # (B, Q, d_v)
        if (got := _call_again(fn, args, like=right)) is None:  # it raised, or returned a list, another shape ...
            return result
        matches = set()
        for flags in range(1, 8):
            switches = {name: bool(flags >> bit & 1) for bit, name in enumerate(_BUGS)}
            if torch.allclose(got, _variant(*args, **switches), atol=1e-4, rtol=1e-4):
                matches.add(frozenset(name for name, on in switches.items() if on))
        remaining.append(matches)
    common = set.intersection(*remaining) if remaining else set()
    if not common:
        return result
    bugs = min(common, key=len)
    return CheckResult(
        False,
        f"{result.message}. What your function still does: " + "; ".join(_BUGS[name] for name in _BUGS if name in bugs),
    )
