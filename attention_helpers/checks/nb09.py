"""Self-checks for notebook 9, attention while generating (KV cache, GQA, RoPE)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ._runner import CheckResult, _as_number, _call_again, _never_raises, _raised, _shown, run_check

__all__ = ["check_9_1", "check_9_2", "check_9_3", "check_9_4", "check_9_5"]

_DecodeStep = Callable[..., tuple[torch.Tensor, torch.Tensor, torch.Tensor]]


def _rope(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    from ..lessons.generation import apply_rope

    return apply_rope(x, positions)


def _full_attention(X, W_q, W_k, W_v, rope: bool, mode: str = "right") -> torch.Tensor:
    """What decoding X (B, L, d_model) one token at a time must give, (B, L, d_v); `mode` names a known bug instead:
    "ahead" (queries rotated one position after their keys), "after" (the new key appended after attending)."""
    q, k, v = X @ W_q, X @ W_k, X @ W_v  # (B, L, d), (B, L, d), (B, L, d_v)
    L = X.shape[1]
    if rope:
        positions = torch.arange(L)
        q = _rope(q, positions + (mode == "ahead"))  # (B, L, d)
        k = _rope(k, positions)
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])  # (B, L, d) @ (B, d, L) -> (B, L, L)
    diagonal = -1 if mode == "after" else 0  # "after": token t sees only tokens 0 .. t-1
    keep = torch.ones(L, L, dtype=torch.bool).tril(diagonal=diagonal)  # (L, L), True = may attend
    weights = torch.softmax(scores.masked_fill(~keep, -math.inf), dim=-1).nan_to_num(0.0)  # an empty row: zeros
    return weights @ v  # (B, L, L) @ (B, L, d_v) -> (B, L, d_v)


def _decode_check(label: str, fn: object, rope: bool, bug: str | None = None) -> CheckResult:
    """Run fn(x_new, cache_k, cache_v, W_q, W_k, W_v) token by token on random sequences; compare with full attention.

    `bug`: for a find-the-bug exercise, what the bug was, said only once the answer is right; a wrong output then
    gets its symptom (how often each step is wrong, the largest difference), not a diagnosis."""
    if not callable(fn):
        return CheckResult(
            False, f"❌ {label}: pass your function itself (without calling it), got {type(fn).__name__}"
        )
    g = torch.Generator().manual_seed(91 + rope)
    count = 0
    symptoms: list[tuple[int, float, str]] = []  # find-the-bug: (step, largest difference, case)
    seen = [0] * 7  # sequences with a step t, for t = 0 .. 6
    for B, L, d_model, d, d_v in [(1, 1, 4, 4, 4), (1, 5, 6, 4, 3), (2, 7, 8, 6, 6), (3, 4, 5, 2, 8)]:
        X = torch.randn(B, L, d_model, generator=g)
        W_q, W_k = torch.randn(d_model, d, generator=g), torch.randn(d_model, d, generator=g)
        W_v = torch.randn(d_model, d_v, generator=g)
        case = f"B={B}, L={L}, d_model={d_model}, d={d}, d_v={d_v}"
        cache_k, cache_v = torch.zeros(B, 0, d), torch.zeros(B, 0, d_v)  # nothing cached before token 0
        outputs = []
        for t in range(L):
            seen[t] += 1
            args = (X[:, t : t + 1], cache_k, cache_v, W_q, W_k, W_v)
            snapshot = [a.clone() for a in args]
            try:
                result = fn(*args)
            except Exception as error:  # the learner's bug, reported in one line
                return _raised(label, error, f"step {t}, {case}")
            if any(not torch.equal(a, b) for a, b in zip(snapshot, args, strict=True)):
                return CheckResult(
                    False, f"❌ {label}: your function modified its input (step {t}, {case}); return new tensors"
                )
            if not (
                isinstance(result, tuple) and len(result) == 3 and all(isinstance(r, torch.Tensor) for r in result)
            ):
                return CheckResult(
                    False,
                    f"❌ {label}: return a tuple of three tensors (output, cache_k, cache_v), got {_shown(result)}",
                )
            out, cache_k, cache_v = result
            for name, got, wanted in (
                ("output", out, (B, 1, d_v)),
                ("cache_k", cache_k, (B, t + 1, d)),
                ("cache_v", cache_v, (B, t + 1, d_v)),
            ):
                if tuple(got.shape) != wanted:
                    hint = "; append the new token along axis 1" if name != "output" else ""
                    return CheckResult(
                        False,
                        f"❌ {label}: after step {t} {name} has shape {tuple(got.shape)}, expected {wanted}{hint} ({case})",
                    )
                if got.dtype != X.dtype or got.device != X.device or got.layout != torch.strided:
                    return CheckResult(
                        False,
                        f"❌ {label}: after step {t} {name} is {_shown(got)}, expected a dense {X.dtype} tensor on "
                        f"{X.device}, as the inputs ({case})",
                    )
            if not torch.allclose(cache_v, X[:, : t + 1] @ W_v, atol=1e-5, rtol=1e-4):
                return CheckResult(
                    False, f"❌ {label}: after step {t} cache_v is not the values of tokens 0 .. {t} in order ({case})"
                )
            keys = X[:, : t + 1] @ W_k  # (B, t + 1, d): with RoPE each rotated by its own position, as 9.7 caches them
            if rope and not torch.allclose(cache_k, _rope(keys, torch.arange(t + 1)), atol=1e-4, rtol=1e-4):
                return CheckResult(
                    False,
                    f"❌ {label}: after step {t} cache_k is not the keys of tokens 0 .. {t}, each rotated by its own "
                    f"position 0 .. {t} ({case})",
                )
            outputs.append(out)
        got, expected = torch.cat(outputs, dim=1), _full_attention(X, W_q, W_k, W_v, rope)  # (B, L, d_v) each
        if not torch.allclose(got, expected, atol=1e-4, rtol=1e-4):
            wrong_steps = (~torch.isclose(got, expected, atol=1e-4, rtol=1e-4)).any(-1).any(0)  # (L,)
            step = int(wrong_steps.nonzero()[0])
            if bug is not None:  # the symptom only, gathered over every case before it is said
                for t in wrong_steps.nonzero().flatten().tolist():
                    symptoms.append((t, (got[:, t] - expected[:, t]).abs().max().item(), case))
                continue
            if torch.allclose(got, _full_attention(X, W_q, W_k, W_v, rope, "after"), atol=1e-4, rtol=1e-4):
                why = (
                    "each token attended only to the tokens before it, not to itself (and token 0 to nothing): "
                    "the new key and value must be in the cache before the query attends"
                )
            elif rope and torch.allclose(got, _full_attention(X, W_q, W_k, W_v, rope, "ahead"), atol=1e-4, rtol=1e-4):
                why = (
                    "every query was rotated one position after its own key (off by one): the new token's query "
                    "and key must share its position, the number of tokens before it"
                )
            else:
                why = "it differs from full causal attention over the whole sequence"
            return CheckResult(False, f"❌ {label}: wrong output at step {step}: {why} ({case})")
        count += 1
    if symptoms:
        return _symptom(label, symptoms, seen)
    bug = f" The bug was: {bug}." if bug else ""
    return CheckResult(
        True, f"✅ {label}: token-by-token outputs equal full causal attention on all {count} cases.{bug}"
    )


def _symptom(label: str, wrong: list[tuple[int, float, str]], seen: list[int]) -> CheckResult:
    """What a wrong decode step does, over every sequence: how often each step is wrong, and the largest error."""
    per_step = ", ".join(  # seen[t]: the sequences long enough to have a step t
        f"step {t} in {sum(w[0] == t for w in wrong)} of {n}{' sequences' if t == 0 else ''}"
        for t, n in enumerate(seen)
    )
    step, worst, case = max(wrong, key=lambda w: w[1])
    return CheckResult(  # no more than that: what the outputs hold (zeros at step 0, say) would point at the bug
        False,
        f"❌ {label}: wrong outputs, at {per_step}; largest difference from full causal "
        f"attention {worst:.2f}, at step {step} ({case})",
    )


@_never_raises
def check_9_1(fn: _DecodeStep) -> CheckResult:
    """Exercise 9.1: one decode step with a cache, one head, no RoPE: (x_new, cache_k, cache_v, W_q, W_k, W_v)
    -> (output (B, 1, d_v), cache_k (B, t+1, d), cache_v (B, t+1, d_v))."""
    return _decode_check("Exercise 9.1", fn, rope=False)


@_never_raises
def check_9_2(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 9.2: RoPE for a batch, x (B, H, L, d) at positions (L,) -> rotated, same dtype; no apply_rope."""
    from ..lessons.generation import apply_rope, rope_angles

    g = torch.Generator().manual_seed(92)
    cases = []
    for B, H, L, d, start, dtype in [
        (1, 1, 1, 2, 0, torch.float32),
        (1, 1, 3, 2, 5, torch.float32),
        (2, 3, 4, 8, 0, torch.float32),
        (2, 2, 6, 16, 17, torch.float64),
        (3, 4, 5, 6, 40, torch.float32),
    ]:
        x = torch.randn(B, H, L, d, generator=g, dtype=dtype)
        positions = torch.arange(start, start + L)
        cases.append(((x, positions), f"x of shape {(B, H, L, d)}, {dtype}, positions {start} .. {start + L - 1}"))
    x = torch.randn(2, 2, 4, 4, generator=g)
    cases.append(((x, torch.tensor([3, 0, 9, 1])), "x of shape (2, 2, 4, 4), positions [3, 0, 9, 1] (not in order)"))
    forbid = {"apply_rope": apply_rope, "rope_angles": rope_angles}
    result = run_check("Exercise 9.2", fn, cases, apply_rope, forbid=forbid)
    if result or not callable(fn) or "wrong value" not in result.message:
        return result
    x, positions = cases[2][0]  # (2, 3, 4, 8), positions 0 .. 3: every pair of 8 features turns
    got = _call_again(fn, (x, positions), like=x)
    if got is not None and torch.allclose(got, _rope_half_split(x, positions), atol=1e-5):
        return CheckResult(
            False,
            f"{result.message}. Your function pairs feature j with feature j + d/2, as rotate_half does (the aside at "
            f"the end of 9.7.3): the same rotation on the features in another order, so not the same numbers. The "
            f"exercise asks for 9.7.3's pairs, neighbours: (2j, 2j + 1), turned by p·θ_j",
        )
    return result


def _rope_half_split(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """RoPE with Hugging Face's pairs (j, j + d/2), as rotate_half writes it: x (..., L, d) -> (..., L, d)."""
    from ..lessons.generation import rope_angles

    angles = rope_angles(positions, x.shape[-1])  # (L, d/2), float64
    cos, sin = angles.cos().repeat(1, 2).to(x.dtype), angles.sin().repeat(1, 2).to(x.dtype)  # (L, d): d/2 angles twice
    x1, x2 = x.chunk(2, dim=-1)  # (..., L, d/2) each: first and second halves
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin  # (..., L, d)


@_never_raises
def check_9_3(answer: object) -> CheckResult:
    """Exercise 9.3 (predict, then check): the KV cache of a Llama-3-70B-like model at 32,768 tokens in bf16, in GiB."""
    label, expected = "Exercise 9.3", 2 * 80 * 8 * 128 * 32768 * 2 / 2**30  # 10 GiB
    why = "2 (keys and values) · 80 layers · 8 K/V heads · 128 features · 32,768 tokens · 2 bytes = 10 GiB"
    if answer is ...:
        return CheckResult(
            False, f"⏳ {label}: not attempted yet; replace `...` with your prediction (a number of GiB)."
        )
    if (number := _as_number(answer)) is None:
        return CheckResult(
            False, f"❌ {label}: answer with a number of GiB, got {type(answer).__name__} {_shown(answer)}"
        )
    answer = number
    if math.isclose(answer, expected, rel_tol=0.01):
        return CheckResult(True, f"✅ {label}: right, {why}.")
    gigabytes = 1e9 / 2**30  # a GiB is 2**30 bytes, a GB 10**9: the same cache is 7.4 % more GB than GiB
    if any(math.isclose(answer, expected * factor / gigabytes, rel_tol=0.01) for factor in (1, 8, 0.5, 2)):
        hint = "that is in GB (10**9 bytes); the question asks for GiB (2**30 bytes): divide the bytes by 2**30"
    elif math.isclose(answer, expected * 8, rel_tol=0.01):
        hint = "that is with 64 K/V heads, one per query head; Llama 3 shares 8 among its 64 query heads (GQA)"
    elif math.isclose(answer, expected / 2, rel_tol=0.01):
        hint = "the cache holds keys AND values: twice that"
    elif math.isclose(answer, expected * 2, rel_tol=0.01):
        hint = "bf16 takes 2 bytes per number, not 4"
    else:
        hint = "multiply 2 (keys and values) · layers · K/V heads · d_head · tokens · bytes, then divide by 2**30"
    return CheckResult(False, f"❌ {label}: {answer:g} GiB is not it: {hint}.")


@_never_raises
def check_9_4(fn: _DecodeStep) -> CheckResult:
    """Exercise 9.4 (find the bug): one decode step with RoPE, same arguments and results as 9.1."""
    bug = (
        "the query was rotated by cache_k.shape[1] read after the append, t + 1, one position past its own key, "
        "rotated by t, the new token's position; at step 0 the one key gets all the weight whatever the offset, "
        "so that step was right"
    )
    return _decode_check("Exercise 9.4", fn, rope=True, bug=bug)


@_never_raises
def check_9_5(fn: _DecodeStep) -> CheckResult:
    """Exercise 9.5 (find the bug): one decode step without RoPE, same arguments and results as 9.1."""
    bug = (
        "the query attended before the new key and value were in the cache, so each token saw only the tokens "
        "before it, not itself, and token 0 saw nothing (a softmax over no keys: an output of zeros)"
    )
    return _decode_check("Exercise 9.5", fn, rope=False, bug=bug)
