"""Self-checks for notebook 4, multi-head attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..masking import valid_lens_to_mask
from ._runner import CheckResult, run_check

__all__ = ["check_4_1", "check_4_2", "check_4_3"]


def _head_cases(seed: int, count: int) -> list[tuple[int, int, int, int]]:
    """(B, n, H, d) with one head, one head per feature, B > 1 and H > 1 among them."""
    g = torch.Generator().manual_seed(seed)
    cases = [(1, 1, 1, 1), (2, 3, 2, 2), (3, 4, 4, 1), (2, 5, 3, 4)]
    cases += [tuple(int(torch.randint(1, 5, (), generator=g)) for _ in range(4)) for _ in range(count)]
    return cases


def check_4_1(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 4.1: your transpose_qkv, (B, n, h) -> (B*H, n, h/H), head h of sequence b at row b*H + h."""
    from ..layers import transpose_qkv

    g = torch.Generator().manual_seed(41)
    cases = []
    for B, n, H, d in _head_cases(41, 12):
        X = torch.randn(B, n, H * d, generator=g)
        cases.append(((X, H), f"X of shape {tuple(X.shape)}, num_heads={H}"))
    return run_check("Exercise 4.1", fn, cases, transpose_qkv, exact=True)


def check_4_2(fn: Callable[[torch.nn.MultiheadAttention], torch.nn.Module]) -> CheckResult:
    """Exercise 4.2: nn.MultiheadAttention (one embed_dim, batch_first) -> our MultiHeadAttention, same outputs."""
    from ..layers import MultiHeadAttention

    g = torch.Generator().manual_seed(42)
    cases = []
    sizes = [(4, 2, False, 2, 3, 4), (6, 3, True, 3, 2, 5), (1, 1, True, 1, 1, 1), (8, 4, True, 2, 4, 4)]
    for E, H, bias, B, Q, K in sizes:  # embed_dim, heads, bias, batch, queries, keys
        with torch.random.fork_rng(devices=[]):  # the learner's global random state is left as it was
            torch.manual_seed(int(torch.randint(0, 2**31, (), generator=g)))
            theirs = torch.nn.MultiheadAttention(E, H, bias=bias, batch_first=True).eval()
            if bias:  # PyTorch starts its biases at 0: make them count
                with torch.no_grad():
                    theirs.in_proj_bias.normal_()
                    theirs.out_proj.bias.normal_()
        lens = torch.randint(1, K + 1, (B,), generator=g)
        args = (theirs, torch.randn(B, Q, E, generator=g), torch.randn(B, K, E, generator=g), lens)
        cases.append((args, f"embed_dim={E}, num_heads={H}, bias={bias}, B={B}, Q={Q}, K={K}"))

    def learner(theirs, queries, keys, lens) -> torch.Tensor:
        ours = fn(theirs)
        if not isinstance(ours, MultiHeadAttention):
            raise TypeError(f"return an attention_helpers.MultiHeadAttention, got {type(ours).__name__}")
        with torch.no_grad():
            return ours.eval()(queries, keys, keys, lens)

    def reference(theirs, queries, keys, lens) -> torch.Tensor:
        key_padding_mask = ~valid_lens_to_mask(lens, 1, keys.shape[1])[:, 0]  # (B, K), True = ignore
        with torch.no_grad():
            return theirs(queries, keys, keys, key_padding_mask=key_padding_mask)[0]

    return run_check("Exercise 4.2", learner if callable(fn) else fn, cases, reference)


def check_4_3(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 4.3: per-head weights (B*H, Q, K) -> the head average (B, Q, K) that nn.MultiheadAttention returns."""
    g = torch.Generator().manual_seed(43)
    cases = []
    for B, n, H, d in _head_cases(43, 12):
        weights = torch.softmax(torch.randn(B * H, n, d + 1, generator=g), dim=-1)  # (B*H, Q, K)
        cases.append(((weights, H), f"weights of shape {tuple(weights.shape)}, num_heads={H}"))
    reference = lambda w, H: w.reshape(-1, H, *w.shape[1:]).mean(dim=1)  # (B, H, Q, K) -> (B, Q, K)
    return run_check("Exercise 4.3", fn, cases, reference)
