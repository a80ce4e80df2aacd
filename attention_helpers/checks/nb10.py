"""Self-checks for notebook 10, an induction head forms."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..masking import masked_softmax
from ._runner import Case, CheckResult, _call_again, _never_raises, _shown, run_check

__all__ = ["HeadQuiz", "check_10_1", "check_10_2", "check_10_3"]


def _data(starts: torch.Tensor, lengths: torch.Tensor, num_steps: int) -> object:
    """InductionData with these starts and lengths; the tokens do not matter to the scores (all 0 repeat trivially)."""
    from ..lessons.induction import InductionData

    return InductionData(torch.zeros(len(starts), num_steps, dtype=torch.long), starts, lengths, 2)


def _reference_score(weights: torch.Tensor, starts: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    from ..lessons.induction import induction_score

    return induction_score(weights, _data(starts, lengths, weights.shape[-1]))


def _causal_weights(N: int, T: int, g: torch.Generator, sharpness: float = 3.0) -> torch.Tensor:
    """Random causal weights (N, T, T): row i spreads over keys 0..i."""
    from ..lessons.induction import causal_valid_lens

    return masked_softmax(torch.randn(N, T, T, generator=g) * sharpness, causal_valid_lens(N, T))  # (N, T, T)


def _score_cases(seed: int, count: int) -> list[Case]:
    """(weights (N, T, T), starts (N,), lengths (N,)): hand-made patterns, then random ones."""
    cases: list[Case] = []
    # a perfect induction pattern: score 1
    T, start, n = 10, 1, 4
    perfect = torch.zeros(1, T, T)
    for p in range(T):
        key = p - n + 1 if start + n <= p < start + 2 * n else p
        perfect[0, p, key] = 1.0
    cases.append(((perfect, torch.tensor([start]), torch.tensor([n])), "a perfect induction head, T=10, start 1, n 4"))
    # a previous-token head: puts its weight on p - 1, which is not p - n + 1 when n > 2
    previous = torch.eye(T).roll(-1, dims=1).tril()[None]  # (1, T, T)
    previous[0, 0, 0] = 1.0
    cases.append(((previous, torch.tensor([start]), torch.tensor([n])), "a previous-token head, T=10, start 1, n 4"))
    g = torch.Generator().manual_seed(seed)
    for _ in range(count):
        N, T = int(torch.randint(1, 5, (), generator=g)), int(torch.randint(4, 13, (), generator=g))
        lengths = torch.randint(2, T // 2 + 1, (N,), generator=g)
        starts = (torch.rand(N, generator=g) * (T - 2 * lengths + 1)).long()
        args = (_causal_weights(N, T, g), starts, lengths)
        cases.append((args, f"N={N}, T={T}, starts={starts.tolist()}, lengths={lengths.tolist()}"))
    return cases


@_never_raises
def check_10_1(fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 10.1: weights (N, T, T), starts (N,), lengths (N,) -> the induction score, a 0-d float32 tensor."""
    from ..lessons.induction import induction_score

    return run_check(
        "Exercise 10.1",
        fn,
        _score_cases(101, 12),
        _reference_score,
        dtype=torch.float32,
        forbid={"induction_score": induction_score},
    )


class HeadQuiz:
    """Every head's weights on one sequence, shuffled and labelled A, B, C, ... (the answer is kept for the check)."""

    def __init__(self, weights: torch.Tensor, data: object, seed: int = 16):
        """Weights (L, H, T, T) of one sequence `data` (InductionData with one sequence)."""
        from ..lessons.induction import InductionData, induction_score, previous_token_score

        if not isinstance(data, InductionData) or len(data) != 1:
            raise TypeError(f"data must be InductionData holding one sequence, got {data!r}")
        T = data.tokens.shape[1]  # positions
        if not isinstance(weights, torch.Tensor) or weights.dim() != 4 or tuple(weights.shape[-2:]) != (T, T):
            raise ValueError(
                f"weights must have shape (L, H, T, T) with T = {T}, got {getattr(weights, 'shape', weights)}"
            )
        L, H = weights.shape[:2]  # layers, heads
        order = torch.randperm(L * H, generator=torch.Generator().manual_seed(seed)).tolist()
        flat = weights.reshape(L * H, T, T)  # (L*H, T, T)
        self.letters = [chr(ord("A") + i) for i in range(L * H)]
        self.panels = flat[order].detach().clone()  # (L*H, T, T), in the quiz's order
        self.tokens = data.tokens[0].tolist()
        self._heads = {letter: divmod(index, H) for letter, index in zip(self.letters, order, strict=True)}
        self._previous = {k: float(previous_token_score(w)) for k, w in zip(self.letters, self.panels, strict=True)}
        self._induction = {
            k: float(induction_score(w[None], data)) for k, w in zip(self.letters, self.panels, strict=True)
        }

    def __repr__(self) -> str:
        return f"HeadQuiz(panels {', '.join(self.letters)} on tokens {self.tokens})"


def _verdict(quiz: HeadQuiz, letter: str) -> str:
    layer, head = quiz._heads[letter]
    return (
        f"{letter} is layer {layer} head {head}: previous-token score {quiz._previous[letter]:.2f}, "
        f"induction score {quiz._induction[letter]:.2f}"
    )


@_never_raises
def check_10_2(previous_token: str, induction: str, quiz: HeadQuiz) -> CheckResult:
    """Exercise 10.2: which panel of the quiz is the previous-token head, and which an induction head?"""
    label = "Exercise 10.2"
    if not isinstance(quiz, HeadQuiz):
        return CheckResult(False, f"❌ {label}: pass the quiz itself as the third argument, got {type(quiz).__name__}")
    answers = {"previous_token": previous_token, "induction": induction}
    if any(a is None or (isinstance(a, str) and a.strip() in ("", "?")) for a in answers.values()):
        return CheckResult(False, f'⏳ {label}: not attempted yet; replace each "?" with a letter and run again.')
    for name, answer in answers.items():
        if not isinstance(answer, str) or answer.upper() not in quiz.letters:
            return CheckResult(
                False, f"❌ {label}: {name} must be one of {', '.join(quiz.letters)}, got {_shown(answer)}"
            )
    previous_token, induction = previous_token.upper(), induction.upper()
    best_previous = max(quiz.letters, key=quiz._previous.get)
    inductive = [k for k in quiz.letters if quiz._induction[k] >= 0.5]
    if previous_token != best_previous:
        return CheckResult(
            False,
            f"❌ {label}: not the previous-token head. {_verdict(quiz, previous_token)}; another panel scores "
            f"{quiz._previous[best_previous]:.2f}. Look for the cleanest line just below the diagonal: every token "
            f"looking at the one before it.",
        )
    if induction not in inductive:
        return CheckResult(
            False,
            f"❌ {label}: not an induction head. {_verdict(quiz, induction)}. Look for a line parallel to the "
            f"diagonal, n - 1 keys to its left, that starts only in the second copy.",
        )
    return CheckResult(
        True,
        f"✅ {label}: right. {_verdict(quiz, previous_token)}; {_verdict(quiz, induction)}. "
        f"Induction heads in this quiz: {', '.join(inductive)}.",
    )


def _reference_head(x: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor, W_v: torch.Tensor) -> torch.Tensor:
    from ..lessons.induction import causal_valid_lens

    q, k, v = x @ W_q, x @ W_k, x @ W_v  # (N, T, d_k), (N, T, d_k), (N, T, d_v)
    scores = q @ k.transpose(1, 2) / math.sqrt(k.shape[-1])  # (N, T, d_k) @ (N, d_k, T) -> (N, T, T)
    return masked_softmax(scores, causal_valid_lens(*scores.shape[:2])) @ v  # (N, T, T) @ (N, T, d_v) -> (N, T, d_v)


def _head_cases(seed: int) -> list[Case]:
    g = torch.Generator().manual_seed(seed)
    cases: list[Case] = []
    sizes = [(1, 1, 2, 2, 2), (2, 5, 4, 3, 2), (3, 8, 6, 4, 5), (1, 12, 8, 8, 8), (4, 3, 3, 2, 1)]
    sizes += [(2, 25, 4, 3, 2), (1, 37, 5, 4, 3), (1, 129, 4, 2, 2)]  # T past any length written into the function
    for N, T, d, d_k, d_v in sizes:
        shapes = ((N, T, d), (d, d_k), (d, d_k), (d, d_v))
        args = tuple(torch.randn(*s, generator=g) for s in shapes)
        cases.append((args, f"x of shape {(N, T, d)}, d_k={d_k}, d_v={d_v}"))
    return cases


def _reads_the_future(fn: Callable[..., torch.Tensor]) -> str | None:
    """A message if changing only the last position's input changes an earlier position's output, else None."""
    g = torch.Generator().manual_seed(103)
    x = torch.randn(2, 6, 4, generator=g)
    W = [torch.randn(4, 4, generator=g) for _ in range(3)]
    changed = x.clone()
    changed[:, -1] = torch.randn(2, 4, generator=g)
    right = _reference_head(x, *W)  # (2, 6, 4)
    before, after = _call_again(fn, (x, *W), like=right), _call_again(fn, (changed, *W), like=right)  # fresh copies
    if before is None or after is None:
        return None  # it raised, or returned something else: run_check reports it with its case
    moved = (before[:, :-1] - after[:, :-1]).abs().amax(dim=(0, 2))  # (T-1,): change at each earlier position
    if bool((moved > 1e-6).any()):
        first = int((moved > 1e-6).nonzero()[0])
        return (
            f"position {first}'s output changed when only the last position's input did: it reads a later "
            f"position, which a causal head must not"
        )
    return None


@_never_raises
def check_10_3(fn: Callable[..., torch.Tensor]) -> CheckResult:
    """Exercise 10.3: one causal self-attention head, x (N, T, d), W_q, W_k (d, d_k), W_v (d, d_v) -> (N, T, d_v)."""
    label = "Exercise 10.3"
    if callable(fn) and (message := _reads_the_future(fn)):
        return CheckResult(False, f"❌ {label}: {message}")
    result = run_check(label, fn, _head_cases(103), _reference_head)
    if result:  # the diagnosis, once it is fixed
        return CheckResult(
            True,
            f"{result.message} The bug was the missing mask: every query saw all T keys; with query i limited to "
            f"keys 0..i, no position can read the token it is trained to predict.",
        )
    return result
