"""Self-checks for notebook 5, self-attention."""

from __future__ import annotations

import sys
from collections.abc import Callable

import torch

from ._runner import CheckResult, _never_raises, run_check

__all__ = ["check_5_1", "check_5_2", "check_5_3"]


@_never_raises
def check_5_1(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 5.1: scaled self-attention of one sequence X (n, d_in) with W_q, W_k (d_in, d_k), W_v (d_in, d_v)."""
    import torch.nn.functional as F

    x = torch.tensor([[1.0, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]])
    W_k = torch.tensor([[0.0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]])
    W_q = torch.tensor([[1.0, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]])
    W_v = torch.tensor([[0.0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]])
    cases = [((x, W_q, W_k, W_v), "the worked example of 5.2")]
    g = torch.Generator().manual_seed(51)
    for n, d_in, d_k, d_v in [(1, 1, 1, 1), (4, 3, 5, 2), (6, 8, 16, 3), (2, 5, 64, 4), (5, 2, 2, 7)]:
        args = tuple(torch.randn(*shape, generator=g) for shape in ((n, d_in), (d_in, d_k), (d_in, d_k), (d_in, d_v)))
        cases.append((args, f"n={n}, d_in={d_in}, d_k={d_k}, d_v={d_v}"))
    reference = lambda X, W_q, W_k, W_v: F.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v)  # (n, d_v)
    return run_check("Exercise 5.1", fn, cases, reference)


@_never_raises
def check_5_2(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 5.2: bottom-right causal mask (Q, K), Q <= K: query i may see keys 0 .. K - Q + i (True = may attend),
    without valid_lens_to_mask or PyTorch's causal_lower_right."""
    sizes = [(1, 1), (3, 3), (1, 4), (2, 5), (4, 6), (5, 5), (3, 8)]
    cases = [((Q, K), f"num_queries={Q}, num_keys={K}") for Q, K in sizes]
    reference = lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril(diagonal=K - Q)
    forbid = _forbidden_5_2()
    result = run_check("Exercise 5.2", fn, cases, reference, exact=True, forbid=forbid)
    if result and "causal_lower_right" not in forbid and "torch.nn.attention.bias" in sys.modules:
        # fn imported causal_lower_right itself, so its calls went unwatched: once more, now that it can be watched
        result = run_check("Exercise 5.2", fn, cases, reference, exact=True, forbid=_forbidden_5_2())
    return result


def _forbidden_5_2() -> dict[str, object]:
    """valid_lens_to_mask, and PyTorch's causal_lower_right where it is loaded (importing it loads PyTorch's
    compiler, seconds: a function that calls it has imported it)."""
    from ..masking import valid_lens_to_mask

    forbidden: dict[str, object] = {"valid_lens_to_mask": valid_lens_to_mask}
    if (bias := sys.modules.get("torch.nn.attention.bias")) is not None:
        forbidden["causal_lower_right"] = bias.causal_lower_right
        forbidden["CausalBias"] = bias.CausalBias._materialize  # the mask built from a CausalBias made by hand
    return forbidden


@_never_raises
def check_5_3(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 5.3: sinusoidal positional encoding (num_steps, num_hiddens) for an even num_hiddens, float32, without
    positional_encoding (or PositionalEncoding, built on it)."""
    from ..transformer import PositionalEncoding, positional_encoding

    sizes = [(1, 2), (4, 2), (6, 4), (10, 8), (50, 16), (3, 32), (100, 6)]
    cases = [((n, d), f"num_steps={n}, num_hiddens={d}") for n, d in sizes]
    # PositionalEncoding builds its .P with positional_encoding: watched as its constructor, called from outside
    forbid = {"positional_encoding": positional_encoding, "PositionalEncoding": PositionalEncoding.__init__}
    return run_check("Exercise 5.3", fn, cases, positional_encoding, dtype=torch.float32, forbid=forbid)
