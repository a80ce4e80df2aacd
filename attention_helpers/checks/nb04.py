"""Self-checks for notebook 4, multi-head attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..masking import valid_lens_to_mask
from ._runner import CheckResult, _call_again, _never_raises, run_check

__all__ = ["check_4_1", "check_4_2", "check_4_3"]


def _head_cases(seed: int, count: int) -> list[tuple[int, int, int, int]]:
    """(B, n, H, d) with one head, one head per feature, B > 1 and H > 1 among them."""
    g = torch.Generator().manual_seed(seed)
    cases = [(1, 1, 1, 1), (2, 3, 2, 2), (3, 4, 4, 1), (2, 5, 3, 4)]
    cases += [tuple(int(torch.randint(1, 5, (), generator=g)) for _ in range(4)) for _ in range(count)]
    return cases


@_never_raises
def check_4_1(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 4.1 (find the bug): lengths (B,) or (B, Q) -> (B*H,) or (B*H, Q), sequence b's for rows b*H .. b*H+H-1."""
    g = torch.Generator().manual_seed(41)
    cases = [((torch.tensor([2, 4]), 2), "valid_lens=[2, 4], num_heads=2"), ((torch.tensor([3]), 4), "one sequence")]
    cases.append(((torch.tensor([[1, 2, 3], [2, 2, 0]]), 3), "2-D valid_lens of shape (2, 3), num_heads=3"))
    for _ in range(10):
        B, Q, H = (int(torch.randint(1, 5, (), generator=g)) for _ in range(3))
        lens = torch.randint(0, 7, (B, Q) if Q > 2 else (B,), generator=g)
        cases.append(((lens, H), f"valid_lens of shape {tuple(lens.shape)}, num_heads={H}"))
    floats = torch.tensor([2.0, 4.0, 0.0])  # d2l's BERT code builds its lengths as float32: masked_softmax takes them
    cases.append(((floats, 2), "valid_lens=[2.0, 4.0, 0.0] (float32), num_heads=2"))
    reference = lambda lens, H: lens.repeat_interleave(H, dim=0)
    # any dtype masked_softmax takes for lengths is right: integers, or floats holding whole numbers
    lengths = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
    lengths += (torch.float16, torch.bfloat16, torch.float32, torch.float64)
    result = run_check("Exercise 4.1", fn, cases, reference, exact=True, also_dtypes=lengths)
    if result:  # only now the diagnosis: a committed, unsolved notebook must not give it away
        return CheckResult(
            True,
            f"{result.message} transpose_qkv puts the heads of one sequence together (rows: seq 0 head 0, seq 0 "
            f"head 1, seq 1 head 0, seq 1 head 1), so [2, 4] must become [2, 2, 4, 4]: repeat_interleave. `repeat` "
            f"gave [2, 4, 2, 4], head-major: head 1 of sequence 0 read 4 keys, two of them padding.",
        )
    if not callable(fn):
        return result
    lens = torch.tensor([2, 4])
    got = _call_again(fn, (lens, 2), like=lens.repeat(2))  # None if it raised or returned something else
    if got is None:  # float lengths are right too
        got = _call_again(fn, (lens, 2), like=lens.repeat(2).float())
    if got is not None and got.tolist() == [2, 4, 2, 4]:
        return CheckResult(  # the symptom only: the learner finds the cause
            False,
            "❌ Exercise 4.1: for valid_lens=[2, 4] and 2 heads you return [2, 4, 2, 4], so some heads of the "
            "(B·H, Q, K) scores read padding as keys and others miss real ones. Which sequence does each row of "
            "transpose_qkv's output belong to?",
        )
    return result


@_never_raises
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


@_never_raises
def check_4_3(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 4.3: per-head weights (B*H, Q, K) -> the head average (B, Q, K) that nn.MultiheadAttention returns."""
    g = torch.Generator().manual_seed(43)
    cases = []
    for B, n, H, d in _head_cases(43, 12):
        weights = torch.softmax(torch.randn(B * H, n, d + 1, generator=g), dim=-1)  # (B*H, Q, K)
        cases.append(((weights, H), f"weights of shape {tuple(weights.shape)}, num_heads={H}"))
    reference = lambda w, H: w.reshape(-1, H, *w.shape[1:]).mean(dim=1)  # (B, H, Q, K) -> (B, Q, K)
    return run_check("Exercise 4.3", fn, cases, reference)
