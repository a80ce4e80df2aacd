"""Self-checks for notebook 6, attention learns."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..masking import masked_softmax
from ._runner import Case, CheckResult, _never_raises, run_check

__all__ = ["check_6_1", "check_6_2", "check_6_3"]


def _reversal_cases(seed: int, count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(src (N, T) with PAD past each length, valid_lens (N,)) pairs: hand-made edges, then random ones."""
    from ..toy import NUM_DIGITS, PAD

    g = torch.Generator().manual_seed(seed)
    cases = [
        (torch.tensor([[3, 1, 4, PAD, PAD]]), torch.tensor([3])),
        (torch.tensor([[1, 2, 3, 4, 5, 6]]), torch.tensor([6])),
        (torch.tensor([[7, PAD, PAD], [5, 6, PAD]]), torch.tensor([1, 2])),
        (torch.tensor([[9]]), torch.tensor([1])),
    ]
    for _ in range(count):
        N, T = int(torch.randint(1, 6, (), generator=g)), int(torch.randint(1, 8, (), generator=g))
        lens = torch.randint(1, T + 1, (N,), generator=g)
        digits = torch.randint(0, NUM_DIGITS, (N, T), generator=g)
        cases.append((torch.where(torch.arange(T) < lens[:, None], digits, PAD), lens))
    return cases


def _reversal_weight_cases(seed: int, count: int) -> list[Case]:
    """Weights (N, T, T) as the reversal model makes them (rows of padding steps all 0), with their lengths."""
    from ..toy import reversal_alignment

    g = torch.Generator().manual_seed(seed)
    cases: list[Case] = []
    for src, lens in _reversal_cases(seed, count):
        N, T = src.shape  # sequences, positions
        step_lens = torch.where(torch.arange(T) < lens[:, None], lens[:, None], 0)  # (N, T)
        weights = masked_softmax(torch.randn(N, T, T, generator=g) * 3, step_lens)  # (N, T, T)
        cases.append(((weights, lens), f"weights of shape {(N, T, T)}, valid_lens={lens.tolist()}"))
    right = reversal_alignment(torch.tensor([4, 2]), 4)  # (2, 4, 4): exactly the right weights
    cases.append(((right, torch.tensor([4, 2])), "the right weights, valid_lens=[4, 2]"))
    return cases


@_never_raises
def check_6_1(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.1: inputs (N, T) and lengths (N,) -> reversal targets (N, T), IGNORE past each length."""
    from ..toy import reverse_targets

    cases = [((src, lens), f"src={src.tolist()}, valid_lens={lens.tolist()}") for src, lens in _reversal_cases(61, 20)]
    return run_check("Exercise 6.1", fn, cases, reverse_targets, exact=True, dtype=torch.int64)


@_never_raises
def check_6_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.2: the fraction of real output steps whose largest weight is on the input they should copy."""
    from ..toy import alignment_accuracy

    return run_check(
        "Exercise 6.2",
        fn,
        _reversal_weight_cases(62, 20),
        lambda w, lens: torch.tensor(alignment_accuracy(w, lens)),
        dtype=torch.float32,
    )


def _mean_entropy(weights: torch.Tensor, valid_lens: torch.Tensor) -> torch.Tensor:
    """Mean over real output steps of -sum_k w log w (0 log 0 = 0): log(n) when uniform over n inputs, 0 when sharp."""
    real = torch.arange(weights.shape[1]) < valid_lens[:, None]  # (N, T)
    entropy = -torch.special.xlogy(weights, weights).sum(dim=-1)  # (N, T)
    return entropy[real].mean()


@_never_raises
def check_6_3(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.3: the mean entropy of the weights over real output steps, in nats."""
    cases = _reversal_weight_cases(63, 20)
    uniform = masked_softmax(torch.zeros(2, 5, 5), torch.tensor([[5] * 5, [3, 3, 3, 0, 0]]))  # (2, 5, 5)
    cases.append(((uniform, torch.tensor([5, 3])), "uniform weights (entropy log 5 and log 3), valid_lens=[5, 3]"))
    return run_check("Exercise 6.3", fn, cases, _mean_entropy, dtype=torch.float32)
