"""Self-checks for notebook 3, scaled dot-product attention."""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch

from ..masking import valid_lens_to_mask
from ._runner import CheckResult, _never_raises, check_answer, combine, run_check

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


_DIAGNOSIS = (
    "The three bugs were: the scores were divided by d instead of √d (√d times too small, so the weights were too "
    "flat); the softmax ran over dim=1, the queries, instead of the keys (dim=-1); and the -1e9 fill gave a query "
    "with no valid key uniform weights over the padding instead of zeros (and -1e9 does not fit in float16, whose "
    "largest number is 65504). masked_softmax fixes the last two at once."
)


def _probe(fn: Callable[..., torch.Tensor], *args: object) -> torch.Tensor | None:
    """fn(*args) without gradients, or None if it raises or returns no tensor of a dtype torch computes with."""
    try:
        with torch.no_grad():
            out = fn(*args)
    except Exception:
        return None
    computable = (torch.float16, torch.bfloat16, torch.float32, torch.float64)  # not float8: stored, not computed
    ok = isinstance(out, torch.Tensor) and out.dtype in computable and not out.is_meta  # a meta tensor has no values
    return out if ok else None


def _symptoms(fn: Callable[..., torch.Tensor]) -> list[str]:
    """What fn's output shows on three small probes, each built so that one kind of mistake shows: symptoms only,
    never their cause (the diagnosis appears once the answer is right)."""
    g = torch.Generator().manual_seed(303)
    found = []
    q, k = torch.randn(1, 3, 16, generator=g), torch.randn(1, 4, 16, generator=g)  # (B=1, Q=3, d), (1, K=4, d)
    weights = _probe(fn, q, k, torch.eye(4)[None], None)  # values = I, so the output is the weights: (1, Q, K)
    if weights is not None and weights.shape == (1, 3, 4):
        sums = weights.sum(dim=-1)[0]  # (Q,)
        worst = int((sums - 1).abs().argmax())
        if abs(sums[worst] - 1) > 1e-3:
            found.append(
                f"with values = the identity matrix, the output is the weights themselves, and query {worst}'s "
                f"weights sum to {sums[worst]:.2f} over the keys, not 1"
            )
    keys = torch.randn(1, 8, 64, generator=g)  # (1, K=8, d=64)
    weights = _probe(fn, 0.5 * keys, keys, torch.eye(8)[None], None)  # query i = key i / 2: a clear match, (1, 8, 8)
    if weights is not None and weights.shape == (1, 8, 8):
        on_match = weights[0].diagonal().mean().item()  # each query's weight on its own key
        right = torch.softmax(0.5 * keys[0] @ keys[0].T / 8, dim=-1).diagonal().mean().item()
        if on_match < right - 0.05:
            found.append(
                f"queries that clearly match one key (query i = key i / 2, d = 64) put {on_match:.2f} of their weight "
                f"on it on average, where scaled dot-product attention puts {right:.2f}"
            )
    values = torch.randn(1, 3, 2, generator=g)  # (1, K=3, d_v=2)
    out = _probe(fn, torch.randn(1, 1, 4, generator=g), torch.randn(1, 3, 4, generator=g), values, torch.tensor([0]))
    if out is not None and out.shape == (1, 1, 2) and out.abs().max() > 1e-6:
        shown = ", ".join(f"{x:.2f}" for x in out[0, 0].tolist())
        found.append(f"a query with valid length 0, which may look at no key, outputs [{shown}] instead of zeros")
    return found


@_never_raises
def check_3_3(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 3.3 (find the bugs): repaired scaled dot-product attention -> (B, Q, d_v), also in float16. A wrong
    answer gets one symptom at a time; the bugs are named only once the answer is right, so a saved output gives
    nothing away."""
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
    if result:
        return CheckResult(True, f"{result.message} {_DIAGNOSIS}")
    if not callable(fn) or not result.message.startswith("❌"):
        return result
    case = result.message.rsplit("(case:", 1)[-1]
    if "float16" in case and "raised" in result.message:  # float32 cases come first: all of them passed
        return CheckResult(False, f"{result.message}. Your function is right on every float32 case, not in float16")
    if "wrong value" not in result.message:
        return result
    symptoms = _symptoms(fn)
    if not symptoms:
        return result
    # one symptom at a time: a list of them would point at each bug of the function as handed out, one by one
    more = "; once that is right, run the check again for what else differs" if len(symptoms) > 1 else ""
    return CheckResult(False, f"{result.message}. What your function does on a small probe: {symptoms[0]}{more}")
