"""Self-checks for notebook 8, attention without the L x L matrix."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch

from ._runner import Case, CheckResult, _as_number, _never_raises, _shown, run_check

__all__ = ["check_8_1", "check_8_2", "check_8_3"]

_PEAK_LENGTH, _PEAK_D, _PEAK_BLOCK = 4096, 64, 128  # exercise 8.3: the configuration whose peak is predicted


@_never_raises
def check_8_1(fn: Callable[..., tuple[torch.Tensor, torch.Tensor, torch.Tensor]]) -> CheckResult:
    """Exercise 8.1: merge(a, b) of two online-softmax partials (m, s, o); used twice, then finished, it must give
    the softmax output over all the keys."""
    from ..lessons.efficient import Partial, finish, merge, partial_softmax

    label = "Exercise 8.1"
    if not callable(fn):
        return CheckResult(
            False, f"❌ {label}: pass your function itself (without calling it), got {type(fn).__name__}"
        )
    if fn is merge:
        return CheckResult(False, f"❌ {label}: you passed merge itself, which the exercise asks you to do without")
    g = torch.Generator().manual_seed(81)
    cases: list[Case] = []
    for Q, K, d_v, cuts, spread, note in [
        (1, 3, 1, (1, 2), 1.0, "one query, one key per block"),
        (3, 9, 2, (3, 6), 1.0, "three blocks of three keys"),
        (4, 12, 3, (2, 7), 50.0, "large scores: exp overflows unless the max is subtracted"),
        (2, 10, 4, (5, 9), 5.0, "blocks of 5, 4 and 1 keys"),
    ]:
        scores = spread * torch.randn(Q, K, generator=g)
        values = torch.randn(K, d_v, generator=g)
        a = partial_softmax(scores[:, : cuts[0]], values[: cuts[0]])
        b = partial_softmax(scores[:, cuts[0] : cuts[1]], values[cuts[0] : cuts[1]])
        c = partial_softmax(scores[:, cuts[1] :], values[cuts[1] :])
        cases.append(((*a, *b, *c), note))
    # later blocks that hold the max: the earlier sums must be scaled down
    scores = torch.arange(12.0).reshape(2, 6) * 3  # (2, 6), increasing along each row
    values = torch.randn(6, 2, generator=g)
    parts = [partial_softmax(scores[:, i : i + 2], values[i : i + 2]) for i in (0, 2, 4)]
    cases.append(((*parts[0], *parts[1], *parts[2]), "scores increasing: every block raises the max"))
    # a later block's max 100 above the earlier one's: exp(100) overflows float32, so a merge that brings the larger
    # max down to the smaller (keeping a's max, say) gives inf and NaN; the larger max is the one to keep
    scores = torch.tensor([[0.0, 1.0, 100.0, 99.0, 200.0, 201.0], [5.0, -5.0, 150.0, 149.0, 300.0, 290.0]])  # (2, 6)
    values = torch.randn(6, 2, generator=g)
    parts = [partial_softmax(scores[:, i : i + 2], values[i : i + 2]) for i in (0, 2, 4)]
    cases.append(((*parts[0], *parts[1], *parts[2]), "block maxima 100 apart: exp of their gap overflows float32"))
    # a query with nothing seen yet on one side (m = -inf, s = 0, o = 0), and one with nothing on either side
    scores, values = torch.randn(3, 6, generator=g), torch.randn(6, 2, generator=g)
    keep = torch.tensor([[False, False, True, True, True, True], [True] * 6, [False] * 6])
    parts = [partial_softmax(scores[:, i : i + 2], values[i : i + 2], keep[:, i : i + 2]) for i in (0, 2, 4)]
    cases.append(((*parts[0], *parts[1], *parts[2]), "empty partials: m = -inf, s = 0 (padding)"))

    def twice(*tensors: torch.Tensor) -> torch.Tensor:
        a, b, c = (Partial(*tensors[i : i + 3]) for i in (0, 3, 6))

        def as_partial(merged: object) -> Partial:
            if not isinstance(merged, (tuple, list)) or len(merged) != 3:  # a list of (m, s, o) is as good
                raise TypeError(f"merge must return a tuple (m, s, o), got {type(merged).__name__}")
            return Partial(*merged)

        return finish(as_partial(fn(a, as_partial(fn(b, c)))))

    def reference(*tensors: torch.Tensor) -> torch.Tensor:
        a, b, c = (Partial(*tensors[i : i + 3]) for i in (0, 3, 6))
        return finish(merge(a, merge(b, c)))

    result = run_check(label, twice, cases, reference, forbid={"merge": merge})
    if not result and "wrong value" in repr(result):
        if "100 apart" in repr(result):
            hint = (
                "The block maxima here are 100 apart and exp(100) overflows float32: bring both sides to the larger "
                "max, so that each factor exp(m_side - m) is at most 1"
            )
        elif "got nan" in repr(result):
            hint = (
                "A side that has seen no key has m = -inf; if the new max is -inf too, exp(m_a - m) is "
                "exp(-inf + inf) = NaN: subtract a safe max (0 where it is -inf) instead"
            )
        else:
            hint = (
                "Each side's s and o were summed against its own max: bring both to the common max before adding "
                "them (and keep m, since the next merge needs it)"
            )
        return CheckResult(False, f"{result!r}. {hint}")
    return result


@_never_raises
def check_8_2(fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 8.2: online attention over blocks of keys, q (Q, d), k (K, d), v (K, d_v), block -> (Q, d_v)."""
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(82)
    cases: list[Case] = []
    q, k = torch.ones(2, 4), torch.linspace(3, -3, 12)[:, None] * torch.ones(12, 4)  # scores fall along the keys
    cases.append(((q, k, torch.randn(12, 2, generator=g), 4), "each row's max in its first block"))
    for Q, K, d, d_v, block, note in [
        (1, 1, 2, 2, 1, "one key"),
        (4, 10, 8, 3, 3, "blocks of 3, 3, 3 and 1 keys"),
        (5, 16, 4, 4, 4, "random scores"),
        (2, 7, 3, 5, 7, "one block holds every key"),
    ]:
        cases.append(
            (
                (
                    torch.randn(Q, d, generator=g),
                    torch.randn(K, d, generator=g),
                    torch.randn(K, d_v, generator=g),
                    block,
                ),
                note,
            )
        )
    q = torch.ones(2, 4)
    k = torch.linspace(-3, 3, 12)[:, None] * torch.ones(12, 4)  # scores grow along the keys
    cases.append(((q, k, torch.randn(12, 3, generator=g), 3), "scores increasing: every block raises the max"))
    # scores far from 0, exact in float32: q = (1, 1, 1, 1) and (1/2, ...), key j = c_j (1, 1, 1, 1), so the scores are
    # 2 c_j and c_j (d = 4, √d = 2). exp overflows float32 above 88.7 and is 0 below -103.9: only a subtracted max,
    # raised by the later blocks (the max is in the second of three), keeps every exp finite and the sums > 0
    q = torch.tensor([[1.0] * 4, [0.5] * 4])  # (2, 4)
    large = torch.tensor([-30, -5, -50, -15, 50, 10, 47.5, -10, 30, 49.5, 0, 20])  # (12,): scores -100 to 100
    order = torch.tensor([5.0, 9, 2, 7, 11, 4, 0, 8, 3, 10, 6, 1])  # (12,): 0 .. 11, the highest in the second block
    for c, note in ((large, "large scores, -100 to 100"), (-500 - order / 2, "scores near -1000")):
        k = c[:, None] * torch.ones(12, 4)  # (12, 4)
        cases.append(((q, k, torch.randn(12, 2, generator=g), 4), note))

    def reference(q, k, v, block):  # in float64: the large scores' float32 rounding would count against the learner
        return F.scaled_dot_product_attention(q[None].double(), k[None].double(), v[None].double())[0].float()

    from ..lessons.efficient import tiled_attention

    forbid = {
        "F.scaled_dot_product_attention": F.scaled_dot_product_attention,
        "tiled_attention": tiled_attention,
    }  # they do the loop for you; a softmax within one block is allowed, one over all the keys fails on memory below
    result = run_check("Exercise 8.2", fn, cases, reference, forbid=forbid)
    if not result:
        if "wrong value" in repr(result):  # the symptom: on which cases it is right; the diagnosis waits (below)
            right = [note for args, note in cases if _right_on(fn, args, reference(*args))]
            wrong = [note for _, note in cases if note not in right]
            return CheckResult(
                False, f"{result!r}. Right on: {'; '.join(right) or 'none'}. Wrong on: {'; '.join(wrong)}"
            )
        return result
    try:
        held, scores = _held_at_once(fn)
    except Exception as error:  # right on the small cases, but it fails on the larger one
        return CheckResult(
            False,
            f"❌ Exercise 8.2: right on every small case, but with {_HELD_Q} queries, {_HELD_K} keys and blocks of "
            f"{_HELD_BLOCK} it raised {type(error).__name__}: {error}",
        )
    if held > scores / 4:  # a softmax over whole rows holds the (Q, K) scores, however it is written
        return CheckResult(
            False,
            f"❌ Exercise 8.2: right values, but with {_HELD_Q} queries, {_HELD_K} keys and blocks of {_HELD_BLOCK} it "
            f"held {held / 2**10:,.0f} KiB at once, {held / scores:.1f} times the (Q, K) scores "
            f"({scores / 2**10:,.0f} KiB): the exercise is the loop, with only (Q, block) scores at a time",
        )
    return CheckResult(
        True,
        f"{result.message[:-1]}, holding at most {held / scores:.0%} of the (Q, K) scores at once. The bug was: when "
        "a block raised the running max, s was rescaled by exp(m_old - m_new) but o was not, so o kept the earlier "
        "blocks' terms too large by exp(m_new - m_old); it was right only when each row's max was in its first block.",
    )


_HELD_Q, _HELD_K, _HELD_BLOCK = 16, 1024, 32  # exercise 8.2: the size on which the memory held at once is measured


def _right_on(fn: Callable[..., torch.Tensor], args: tuple, expected: torch.Tensor) -> bool:
    """Whether fn(*args) is a tensor close to expected (any exception: no)."""
    try:
        got = fn(*args)
        return (
            isinstance(got, torch.Tensor) and got.shape == expected.shape and torch.allclose(got, expected, atol=1e-5)
        )
    except Exception:  # the learner's bug: simply wrong on this case
        return False


def _held_at_once(fn: Callable[..., torch.Tensor]) -> tuple[int, int]:
    """(peak bytes of fn over 1024 keys in blocks of 32 for 16 queries, bytes of the (Q, K) float32 scores)."""
    from ..lessons.cost import peak_memory

    g = torch.Generator().manual_seed(821)
    q, k, v = (torch.randn(n, 4, generator=g) for n in (_HELD_Q, _HELD_K, _HELD_K))  # (Q, d), (K, d), (K, d_v)
    with torch.no_grad():
        held = peak_memory(lambda: fn(q, k, v, _HELD_BLOCK))
    return held, _HELD_Q * _HELD_K * 4


@functools.cache  # deterministic on the CPU: measured once per kernel
def _peak_mib() -> float:
    from ..lessons.cost import peak_memory
    from ..lessons.efficient import tiled_attention

    x = torch.randn(1, 1, _PEAK_LENGTH, _PEAK_D, generator=torch.Generator().manual_seed(83))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the notebook's sweep
    try:
        with torch.no_grad():
            return peak_memory(lambda: tiled_attention(x, x, x, block_q=_PEAK_BLOCK, block_k=_PEAK_BLOCK)) / 2**20
    finally:
        torch.set_num_threads(threads)


@_never_raises
def check_8_3(predicted_mib: float | None) -> CheckResult:
    """Exercise 8.3: the peak memory, in MiB, of tiled_attention at L = 4096, d = 64, blocks of 128; within 10 %."""
    label = "Exercise 8.3"
    if predicted_mib is None:
        return CheckResult(False, f"⏳ {label}: not attempted yet; set predicted_mib to your prediction and run again.")
    number = _as_number(predicted_mib)
    if number is None or not 0 < number < math.inf:
        return CheckResult(False, f"❌ {label}: give a number of MiB > 0, e.g. 12.5, got {_shown(predicted_mib)}")
    predicted_mib = number
    measured = _peak_mib()
    matrix = _PEAK_LENGTH**2 * 4 / 2**20  # one L x L float32 matrix
    why = (
        f"measured {measured:.2f} MiB. With a fixed block size every part of the peak (the scaled queries, the "
        f"running sums and outputs, one (L, block) slice of scores) has one row per query: the peak grows like L, "
        f"x {_PEAK_LENGTH // 2048} from L = 2048. One L x L matrix alone would be {matrix:.0f} MiB."
    )
    if abs(predicted_mib - measured) <= 0.1 * measured:
        return CheckResult(True, f"✅ {label}: {predicted_mib:g} MiB is within 10 %: {why}")
    if abs(predicted_mib - measured * _PEAK_LENGTH / 2048) <= 0.2 * measured * _PEAK_LENGTH / 2048:
        return CheckResult(
            False, f"❌ {label}: {predicted_mib:g} MiB is about 4 times the L = 2048 peak, as if it grew like L²: {why}"
        )
    return CheckResult(False, f"❌ {label}: {predicted_mib:g} MiB is off by more than 10 %: {why}")
