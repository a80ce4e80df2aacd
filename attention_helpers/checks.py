"""Instant self-checks for the notebooks' exercises: `check_1_1(your_function)` says what is wrong or that it is right.

Each check runs the learner's function on hand-picked edge cases and random ones, compares with a reference
built from `attention_helpers` or PyTorch, and returns a `CheckResult`: true only when every case passes, shown
in a notebook as one line (✅ right, ❌ what is wrong and on which case, ⏳ not attempted yet).
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

import torch

from .masking import masked_softmax, valid_lens_to_mask

__all__ = ["CheckResult", "check_1_1", "check_1_2", "check_1_3", "run_check"]

Case = tuple[tuple[Any, ...], str]  # (arguments, description)


class CheckResult:
    """The verdict of a check: truthy when passed; its repr is the one-line message a notebook shows."""

    def __init__(self, passed: bool, message: str):
        self.passed, self.message = passed, message

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return self.message


def _fmt(value: torch.Tensor) -> str:
    item = value.item()
    return str(item) if isinstance(item, bool) else f"{item:.4g}"


_PACKAGE = str(Path(__file__).resolve().parent)


def _loop_in(fn: Callable[..., Any]) -> str | None:
    """'a for loop or comprehension' / 'a while loop' if fn's own code (or code nested in it) loops, else None."""
    pending = [getattr(fn, "__code__", None)]
    found = None
    while pending:
        code = pending.pop()
        if not isinstance(code, CodeType):
            continue
        for instruction in dis.get_instructions(code):
            if instruction.opname == "FOR_ITER":
                return "a for loop or comprehension"
            backward = "BACKWARD" in instruction.opname  # 3.11+: JUMP_BACKWARD, POP_JUMP_BACKWARD_IF_TRUE, ...
            if backward or (instruction.opcode in dis.hasjabs and instruction.argval <= instruction.offset):
                found = "a while loop"
        pending.extend(c for c in code.co_consts if isinstance(c, CodeType))
    return found


class _CallWatch:
    """Records which of the `forbidden` functions are called from outside attention_helpers while active."""

    def __init__(self, forbidden: Mapping[str, object]):
        self.codes: dict[CodeType, str] = {}
        self.builtins: dict[int, str] = {}
        for name, target in forbidden.items():
            function = getattr(target, "forward", target)  # a module class: its forward
            code = getattr(function, "__code__", None)
            if code is not None:
                self.codes[code] = name
            else:
                self.builtins[id(target)] = name
        self.seen: list[str] = []

    def _hook(self, frame, event, arg) -> None:
        if event == "call" and frame.f_code in self.codes:
            caller = frame.f_back
            if caller is None or not caller.f_code.co_filename.startswith(_PACKAGE):
                self.seen.append(self.codes[frame.f_code])
        elif event == "c_call" and id(arg) in self.builtins and not frame.f_code.co_filename.startswith(_PACKAGE):
            self.seen.append(self.builtins[id(arg)])

    def __enter__(self) -> _CallWatch:
        self._previous = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setprofile(self._previous)


def run_check(
    label: str,
    fn: Callable[..., Any],
    cases: Iterable[Case],
    reference: Callable[..., Any],
    *,
    exact: bool = False,
    dtype: torch.dtype | None = None,
    forbid: Mapping[str, object] | None = None,
    no_loops: bool = False,
) -> CheckResult:
    """Call fn and reference on each case; the result names the first difference, or says all passed.

    `forbid`: functions (or module classes) the exercise says not to use, by the name to show; calling one from
    the learner's code fails the check. `no_loops`: a Python loop in fn's own code fails it."""
    if not callable(fn):
        return CheckResult(
            False, f"❌ {label}: pass your function itself (without calling it), got {type(fn).__name__}"
        )
    if no_loops and (loop := _loop_in(fn)):
        return CheckResult(
            False, f"❌ {label}: your function uses {loop}; the exercise asks for broadcasting, no Python loops"
        )
    for name, target in (forbid or {}).items():
        if fn is target:
            return CheckResult(
                False, f"❌ {label}: you passed {name} itself, which the exercise asks you to do without"
            )
    count = 0
    for args, description in cases:
        count += 1
        snapshot = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        try:
            with _CallWatch(forbid or {}) as watch:
                got = fn(*args)
        except NotImplementedError:
            return CheckResult(
                False,
                f"⏳ {label}: not attempted yet; replace `raise NotImplementedError` with your code and run again.",
            )
        except Exception as error:  # the learner's bug, reported in one line
            return CheckResult(False, f"❌ {label}: raised {type(error).__name__}: {error}  (case: {description})")
        if watch.seen:
            return CheckResult(
                False, f"❌ {label}: your function calls {watch.seen[0]}, which the exercise asks you to do without"
            )
        expected = reference(*args)
        for before, after in zip(snapshot, args, strict=True):
            if isinstance(before, torch.Tensor) and not torch.equal(before, after):
                return CheckResult(
                    False, f"❌ {label}: your function modified its input (case: {description}); return a new tensor"
                )
        if not isinstance(got, torch.Tensor):
            return CheckResult(
                False, f"❌ {label}: expected a torch.Tensor, got {type(got).__name__} (case: {description})"
            )
        if got.shape != expected.shape:
            return CheckResult(
                False,
                f"❌ {label}: expected shape {tuple(expected.shape)}, got {tuple(got.shape)} (case: {description})",
            )
        wanted = dtype or expected.dtype
        if got.dtype != wanted:
            return CheckResult(False, f"❌ {label}: expected dtype {wanted}, got {got.dtype} (case: {description})")
        same = (
            torch.equal(got, expected)
            if exact or not got.is_floating_point()
            else torch.allclose(got, expected, atol=1e-5, rtol=1e-4, equal_nan=False)
        )
        if not same:
            close = torch.isclose(got, expected, rtol=1e-4, atol=1e-5) if got.is_floating_point() else got == expected
            index = tuple(int(i) for i in (~close).nonzero()[0])
            return CheckResult(
                False,
                f"❌ {label}: wrong value at index {index}: expected {_fmt(expected[index])}, "
                f"got {_fmt(got[index])} (case: {description})",
            )
    return CheckResult(True, f"✅ {label}: correct on all {count} cases.")


def _length_cases(seed: int, count: int) -> list[tuple[torch.Tensor, int]]:
    """Random (valid_lens (B,), K) pairs including the edges: length 0, full length, one key."""
    g = torch.Generator().manual_seed(seed)
    cases = [(torch.tensor([0, 3]), 3), (torch.tensor([1]), 1), (torch.tensor([4, 0, 2]), 4)]
    for _ in range(count):
        B, K = int(torch.randint(1, 5, (), generator=g)), int(torch.randint(1, 7, (), generator=g))
        cases.append((torch.randint(0, K + 1, (B,), generator=g), K))
    return cases


def check_1_1(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 1.1: valid_lens (B,) and K -> key_padding_mask (B, K) for nn.MultiheadAttention (True = ignore)."""
    cases = [((lens, K), f"valid_lens={lens.tolist()}, num_keys={K}") for lens, K in _length_cases(11, 20)]
    return run_check(
        "Exercise 1.1",
        fn,
        cases,
        lambda lens, K: ~valid_lens_to_mask(lens, 1, K)[:, 0, :],
        exact=True,
        forbid={"valid_lens_to_mask": valid_lens_to_mask},
    )


def check_1_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 1.2: your own masked softmax for 1-D lengths: masked keys exactly 0, empty rows all 0."""
    g = torch.Generator().manual_seed(12)
    cases = []
    for lens, K in _length_cases(12, 20):
        X = torch.randn(len(lens), 3, K, generator=g) * 4
        cases.append(((X, lens), f"X of shape {tuple(X.shape)}, valid_lens={lens.tolist()}"))
    return run_check("Exercise 1.2", fn, cases, masked_softmax, forbid={"masked_softmax": masked_softmax})


def check_1_3(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 1.3: causal lengths (B, Q) for Q = K: query i may see keys 0..i."""
    cases = [((B, Q), f"batch_size={B}, num_queries={Q}") for B, Q in ((1, 1), (2, 3), (3, 5), (1, 8))]
    return run_check(
        "Exercise 1.3", fn, cases, lambda B, Q: torch.arange(1, Q + 1).repeat(B, 1), dtype=torch.int64, exact=True
    )


# ---------------------------------------------------------------- notebook 2: additive attention


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
    from .layers import AdditiveAttention

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


# ---------------------------------------------------------------- notebook 3: scaled dot-product attention


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
    from .layers import DotProductAttention

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


# ---------------------------------------------------------------- notebook 4: multi-head attention


def _head_cases(seed: int, count: int) -> list[tuple[int, int, int, int]]:
    """(B, n, H, d) with one head, one head per feature, B > 1 and H > 1 among them."""
    g = torch.Generator().manual_seed(seed)
    cases = [(1, 1, 1, 1), (2, 3, 2, 2), (3, 4, 4, 1), (2, 5, 3, 4)]
    cases += [tuple(int(torch.randint(1, 5, (), generator=g)) for _ in range(4)) for _ in range(count)]
    return cases


def check_4_1(fn: Callable[[torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 4.1: your transpose_qkv, (B, n, h) -> (B*H, n, h/H), head h of sequence b at row b*H + h."""
    from .layers import transpose_qkv

    g = torch.Generator().manual_seed(41)
    cases = []
    for B, n, H, d in _head_cases(41, 12):
        X = torch.randn(B, n, H * d, generator=g)
        cases.append(((X, H), f"X of shape {tuple(X.shape)}, num_heads={H}"))
    return run_check("Exercise 4.1", fn, cases, transpose_qkv, exact=True)


def check_4_2(fn: Callable[[torch.nn.MultiheadAttention], torch.nn.Module]) -> CheckResult:
    """Exercise 4.2: nn.MultiheadAttention (one embed_dim, batch_first) -> our MultiHeadAttention, same outputs."""
    from .layers import MultiHeadAttention

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


# ---------------------------------------------------------------- notebook 5: self-attention


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


def check_5_2(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 5.2: bottom-right causal mask (Q, K), Q <= K: query i may see keys 0 .. K - Q + i (True = may attend)."""
    sizes = [(1, 1), (3, 3), (1, 4), (2, 5), (4, 6), (5, 5), (3, 8)]
    cases = [((Q, K), f"num_queries={Q}, num_keys={K}") for Q, K in sizes]
    reference = lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril(diagonal=K - Q)
    return run_check("Exercise 5.2", fn, cases, reference, exact=True)


def check_5_3(fn: Callable[[int, int], torch.Tensor]) -> CheckResult:
    """Exercise 5.3: sinusoidal positional encoding (num_steps, num_hiddens) for an even num_hiddens, float32."""
    from .transformer import positional_encoding

    sizes = [(1, 2), (4, 2), (6, 4), (10, 8), (50, 16), (3, 32), (100, 6)]
    cases = [((n, d), f"num_steps={n}, num_hiddens={d}") for n, d in sizes]
    return run_check("Exercise 5.3", fn, cases, positional_encoding, dtype=torch.float32)


def _reversal_cases(seed: int, count: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(src (N, T) with PAD past each length, valid_lens (N,)) pairs: hand-made edges, then random ones."""
    from .toy import NUM_DIGITS, PAD

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
    from .toy import reversal_alignment

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


def check_6_1(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.1: inputs (N, T) and lengths (N,) -> reversal targets (N, T), IGNORE past each length."""
    from .toy import reverse_targets

    cases = [((src, lens), f"src={src.tolist()}, valid_lens={lens.tolist()}") for src, lens in _reversal_cases(61, 20)]
    return run_check("Exercise 6.1", fn, cases, reverse_targets, exact=True, dtype=torch.int64)


def check_6_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.2: the fraction of real output steps whose largest weight is on the input they should copy."""
    from .toy import alignment_accuracy

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


def check_6_3(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 6.3: the mean entropy of the weights over real output steps, in nats."""
    cases = _reversal_weight_cases(63, 20)
    uniform = masked_softmax(torch.zeros(2, 5, 5), torch.tensor([[5] * 5, [3, 3, 3, 0, 0]]))  # (2, 5, 5)
    cases.append(((uniform, torch.tensor([5, 3])), "uniform weights (entropy log 5 and log 3), valid_lens=[5, 3]"))
    return run_check("Exercise 6.3", fn, cases, _mean_entropy, dtype=torch.float32)


def check_7_1(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 7.1: the least-squares slope of log(values) against log(lengths), as a 0-d float64 tensor."""
    from .cost import loglog_slope

    g = torch.Generator().manual_seed(71)
    cases: list[Case] = []
    for power in (2.0, 1.0, 0.5, 3.0):
        x = torch.tensor([128.0, 256.0, 512.0, 1024.0], dtype=torch.float64)
        cases.append(((x, 3e-6 * x**power), f"values = 3e-6 * lengths**{power}"))
    cases.append(
        (
            (torch.tensor([10.0, 20.0], dtype=torch.float64), torch.tensor([5.0, 5.0], dtype=torch.float64)),
            "two points, flat",
        )
    )
    for _ in range(10):
        x = torch.sort(torch.randint(2, 5000, (int(torch.randint(3, 8, (), generator=g)),), generator=g)).values
        x = x.unique().double()
        y = x**1.7 * torch.exp(0.3 * torch.randn(x.shape, generator=g, dtype=torch.float64))
        cases.append(((x, y), f"noisy, lengths={x.int().tolist()}"))
    return run_check("Exercise 7.1", fn, cases, lambda x, y: torch.tensor(loglog_slope(x, y), dtype=torch.float64))


def check_7_2(fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 7.2: attention computed a chunk of queries at a time: the same output, a fraction of the memory."""
    from .cost import peak_memory
    from .layers import DotProductAttention

    g = torch.Generator().manual_seed(72)
    cases: list[Case] = []
    for B, Q, K, d, d_v, chunk in [
        (1, 1, 1, 2, 2, 1),
        (2, 5, 3, 4, 6, 2),
        (1, 7, 4, 3, 3, 3),
        (2, 4, 6, 8, 2, 4),
        (1, 3, 5, 2, 4, 10),
    ]:
        q, k, v = (
            torch.randn(B, Q, d, generator=g),
            torch.randn(B, K, d, generator=g),
            torch.randn(B, K, d_v, generator=g),
        )
        cases.append(
            ((q, k, v, chunk), f"queries {(B, Q, d)}, keys {(B, K, d)}, values {(B, K, d_v)}, chunk_size={chunk}")
        )
    result = run_check("Exercise 7.2", fn, cases, lambda q, k, v, c: DotProductAttention()(q, k, v))
    if not result:
        return result
    q = torch.randn(1, 512, 16, generator=g)
    with torch.no_grad():
        full = peak_memory(lambda: DotProductAttention()(q, q, q))
        chunked = peak_memory(lambda: fn(q, q, q, 64))
    if chunked > full / 2:
        return CheckResult(
            False,
            f"❌ Exercise 7.2: right values, but at Q = K = 512 with chunk_size=64 it held {chunked / 1e6:.2f} MB at "
            f"its peak, as much as full attention ({full / 1e6:.2f} MB): build only a (B, chunk_size, K) slice of the "
            f"scores at a time",
        )
    return CheckResult(
        True, f"{result.message[:-1]}, and it peaked at {chunked / full:.0%} of full attention's memory."
    )
