"""Attention without the L x L matrix: online-softmax partials and their merge, tiled attention, band masks.

Vocabulary: B batch, H heads (optional), Q queries, K keys (= values), d features, d_v value features; a block
of queries has bq rows, a block of keys bk columns. Boolean masks follow `F.scaled_dot_product_attention`:
True = may attend. Statistics are kept in float32 (or float64) whatever the inputs, as FlashAttention does, so
float16 and bfloat16 inputs neither overflow nor lose the running sum; outputs come back in the inputs' dtype.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import NamedTuple

import torch
from torch import nn

from .. import _validate as check
from ..layers import DotProductAttention
from ..masking import check_valid_lens

__all__ = [
    "Partial",
    "band_mask",
    "block_plan",
    "finish",
    "merge",
    "output_distances",
    "partial_softmax",
    "receptive_field",
    "recorded_attention",
    "running_partials",
    "settling_block",
    "tiled_attention",
    "tiled_heads",
]


class Partial(NamedTuple):
    """Online-softmax state of each query over the keys seen so far (an empty set of keys: m = -inf, s = 0, o = 0)."""

    m: torch.Tensor  # (..., Q): the largest score seen
    s: torch.Tensor  # (..., Q): sum over seen keys of exp(score - m)
    o: torch.Tensor  # (..., Q, d_v): sum over seen keys of exp(score - m) * value


def _window(window: object) -> int | None:
    return None if window is None else check.positive_int("window", window)


def _stats_dtype(dtype: torch.dtype) -> torch.dtype:
    """float64 stays float64; float32, float16 and bfloat16 are accumulated in float32."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _safe_max(m: torch.Tensor) -> torch.Tensor:
    """A running max with -inf (no key seen) replaced by 0, so that exp(score - max) never computes -inf - -inf."""
    return torch.where(torch.isneginf(m), torch.zeros_like(m), m)


def _check_scores_values(scores: torch.Tensor, values: torch.Tensor) -> None:
    """Scores (..., Q, k) and values (..., k, d_v): one number of keys, values' leading axes broadcasting to the
    scores' (never adding axes, which would make m and o disagree), one device; dtypes may differ."""
    if scores.dim() < 2 or values.dim() < 2 or scores.shape[-1] != values.shape[-2]:
        raise ValueError(
            f"scores (..., Q, k) and values (..., k, d_v) must share the number of keys k, got shapes "
            f"{tuple(scores.shape)} and {tuple(values.shape)}"
        )
    lead, value_lead = scores.shape[:-2], values.shape[:-2]
    fits = len(value_lead) <= len(lead) and all(a in (1, b) for a, b in zip(value_lead[::-1], lead[::-1], strict=False))
    if not fits:
        raise ValueError(
            f"values' leading axes {tuple(value_lead)} must match the scores' {tuple(lead)}, got shapes "
            f"{tuple(scores.shape)} and {tuple(values.shape)}"
        )
    check.same_device([("scores", scores), ("values", values)])  # dtypes may differ: both are read in float32+


def partial_softmax(scores: torch.Tensor, values: torch.Tensor, keep: torch.Tensor | None = None) -> Partial:
    """Scores (..., Q, k) and values (..., k, d_v) of one block of keys, keep (..., Q, k) True = may attend -> Partial."""
    check.floating_tensor("scores", scores, shape="(..., Q, k)")
    check.floating_tensor("values", values, shape="(..., k, d_v)")
    _check_scores_values(scores, values)
    dtype = _stats_dtype(scores.dtype)
    x = scores.to(dtype)  # (..., Q, k); no copy when it is already float32
    if keep is not None:
        if not isinstance(keep, torch.Tensor) or keep.dtype != torch.bool:
            raise TypeError(f"keep must be a bool tensor (True = may attend), got {check.describe(keep)}")
        check.same_device([("scores", scores), ("keep", keep)])
        fits = keep.dim() <= scores.dim() and all(
            a in (1, b) for a, b in zip(keep.shape[::-1], scores.shape[::-1], strict=False)
        )
        if not fits:
            raise ValueError(f"keep must broadcast to the scores' shape {tuple(scores.shape)}, got {tuple(keep.shape)}")
        x = x.masked_fill(~keep, float("-inf"))  # (..., Q, k), a new tensor
    if x.shape[-1] == 0:  # no keys: nothing seen
        o = torch.zeros(*x.shape[:-1], values.shape[-1], dtype=dtype, device=x.device)  # (..., Q, d_v)
        return Partial(torch.full(x.shape[:-1], float("-inf"), dtype=dtype, device=x.device), o.sum(-1), o)
    m = x.amax(dim=-1).detach()  # (..., Q); a constant shift: softmax does not depend on it, nor do its gradients
    p = torch.exp(x - _safe_max(m)[..., None])  # (..., Q, k); masked keys: exp(-inf) = 0
    return Partial(m, p.sum(dim=-1), p @ values.to(dtype))  # (..., Q), (..., Q), (..., Q, k) @ (..., k, d_v)


def _check_partial(name: str, p: object) -> Partial:
    if not isinstance(p, tuple) or len(p) != 3 or not all(isinstance(t, torch.Tensor) for t in p):
        raise TypeError(f"{name} must be a Partial (m, s, o) of tensors, got {check.describe(p)}")
    m, s, o = p
    if o.dim() < 1 or m.shape != s.shape or o.shape[:-1] != m.shape:
        raise ValueError(
            f"{name} must hold m (..., Q), s (..., Q) and o (..., Q, d_v), got shapes {tuple(m.shape)}, "
            f"{tuple(s.shape)} and {tuple(o.shape)}"
        )
    for part, t in zip("mso", p, strict=True):
        check.floating_tensor(f"{name}.{part}", t)
    check.same_device_and_dtype([(f"{name}.{part}", t) for part, t in zip("mso", p, strict=True)])
    return Partial(*p)


def merge(a: Partial, b: Partial) -> Partial:
    """Two partials over disjoint sets of keys -> the partial over their union, exactly: rescale both to the new max."""
    a, b = _check_partial("a", a), _check_partial("b", b)
    if a.o.shape != b.o.shape:
        raise ValueError(
            f"a and b must be partials of the same queries, got o of shapes {tuple(a.o.shape)} and {tuple(b.o.shape)}"
        )
    check.same_device_and_dtype([("a.o", a.o), ("b.o", b.o)])
    m = torch.maximum(a.m, b.m)  # (..., Q)
    safe = _safe_max(m)
    alpha, beta = torch.exp(a.m - safe), torch.exp(b.m - safe)  # (..., Q) each; 0 for a side that saw no key
    return Partial(m, alpha * a.s + beta * b.s, alpha[..., None] * a.o + beta[..., None] * b.o)


def finish(p: Partial) -> torch.Tensor:
    """Partial -> the attention output o / s (..., Q, d_v); a query that saw no key gets zeros."""
    m, s, o = _check_partial("p", p)
    empty = s == 0  # (..., Q)
    return torch.where(empty[..., None], torch.zeros_like(o), o / torch.where(empty, torch.ones_like(s), s)[..., None])


def running_partials(scores: torch.Tensor, values: torch.Tensor, block: int) -> list[Partial]:
    """Scores (..., Q, K), values (..., K, d_v) -> the partial after each block of `block` keys, merged in order."""
    check.positive_int("block", block)
    check.floating_tensor("scores", scores, shape="(..., Q, K)")
    check.floating_tensor("values", values, shape="(..., K, d_v)")
    _check_scores_values(scores, values)
    states, state = [], None
    for start in range(0, scores.shape[-1], block):
        step = partial_softmax(scores[..., start : start + block], values[..., start : start + block, :])
        state = step if state is None else merge(state, step)
        states.append(state)
    return states


def band_mask(
    num_queries: int, num_keys: int, window: int | None = None, *, causal: bool = False, device: object = None
) -> torch.Tensor:
    """(Q, K) bool, True = may attend: causal keeps j <= i; a window w keeps |i - j| < w (causal: i - w < j <= i)."""
    Q, K = check.int_at_least("num_queries", num_queries, 0), check.int_at_least("num_keys", num_keys, 0)
    window = _window(window)
    check.boolean("causal", causal)
    if device is not None:
        device = check.device("device", device)
    return _band(torch.arange(Q, device=device), torch.arange(K, device=device), window, causal)


def _band(i: torch.Tensor, j: torch.Tensor, window: int | None, causal: bool) -> torch.Tensor:
    """Query positions i (n,), key positions j (m,) -> (n, m) bool: the band (and causal) mask between them."""
    i, j = i[:, None], j[None, :]  # (n, 1), (1, m)
    keep = torch.ones(i.shape[0], j.shape[1], dtype=torch.bool, device=i.device)  # (n, m)
    if causal:
        keep = keep & (j <= i)
    if window is not None:
        keep = keep & ((i - j).abs() < window)
    return keep


def receptive_field(mask: torch.Tensor, layers: int) -> torch.Tensor:
    """Square mask (L, L), True = may attend, and n layers -> (L, L) bool: which positions can reach each output."""
    if not isinstance(mask, torch.Tensor) or mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (L, L), True = may attend, got {check.describe(mask)}")
    if mask.dim() != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be square (L, L) to compose over layers, got shape {tuple(mask.shape)}")
    check.has_values("mask", mask)
    layers = check.positive_int("layers", layers)
    step = mask.float()  # (L, L)
    reach = step
    for _ in range(layers - 1):
        reach = ((reach @ step) > 0).float()  # (L, L) @ (L, L) -> (L, L): i reaches k through some j
    return reach > 0


def block_plan(
    num_queries: int,
    num_keys: int,
    block_q: int,
    block_k: int,
    *,
    causal: bool = False,
    window: int | None = None,
) -> torch.Tensor:
    """(ceil(Q / block_q), ceil(K / block_k)) bool: True where a block of scores has a key some query may attend."""
    Q, K = check.int_at_least("num_queries", num_queries, 0), check.int_at_least("num_keys", num_keys, 0)
    block_q, block_k = check.positive_int("block_q", block_q), check.positive_int("block_k", block_k)
    window = _window(window)
    check.boolean("causal", causal)
    q0 = torch.arange(0, Q, block_q)[:, None]  # (nq, 1): first query of each block
    q1 = torch.clamp(q0 + block_q, max=Q) - 1  # (nq, 1): last query
    k0 = torch.arange(0, K, block_k)[None, :]  # (1, nk)
    k1 = torch.clamp(k0 + block_k, max=K) - 1  # (1, nk)
    # Query i may attend keys lo(i) <= j <= hi(i), both growing with i: a block of queries covers lo(q0) .. hi(q1).
    hi = q1 if causal else (q1 + window - 1 if window is not None else torch.full_like(q1, K))
    lo = q0 - window + 1 if window is not None else torch.full_like(q0, -1)
    return (k0 <= hi) & (k1 >= lo)  # (nq, nk)


def _check_qkv(q: object, k: object, v: object) -> None:
    for name, x in (("q", q), ("k", k), ("v", v)):
        check.floating_tensor(name, x, dims=(3, 4), shape="(B, n, d) or (B, H, n, d)")
    if not q.dim() == k.dim() == v.dim():
        raise ValueError(f"q, k and v must have the same number of dimensions, got {q.dim()}, {k.dim()} and {v.dim()}")
    check.same_device_and_dtype([("q", q), ("k", k), ("v", v)])
    if not q.shape[:-2] == k.shape[:-2] == v.shape[:-2]:
        raise ValueError(
            f"q, k and v must share their batch (and head) sizes, got shapes {tuple(q.shape)}, {tuple(k.shape)} and "
            f"{tuple(v.shape)}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same feature size d, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must hold as many keys as values, got {k.shape[-2]} and {v.shape[-2]}")


def tiled_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    valid_lens: torch.Tensor | None = None,
    *,
    causal: bool = False,
    window: int | None = None,
    block_q: int = 64,
    block_k: int = 64,
    scale: float | None = None,
) -> torch.Tensor:
    """softmax(q kᵀ · scale) v one block of keys at a time, merging online-softmax partials: never a (Q, K) matrix.

    q (B, [H,] Q, d), k (B, [H,] K, d), v (B, [H,] K, d_v) -> (B, [H,] Q, d_v). `valid_lens` (B,) or (B, Q): the
    first n keys are real; `causal` (top-left, as SDPA's is_causal) and `window` as in `band_mask`. The scores are
    cut into (block_q, block_k) tiles; tiles that no query may attend (above the diagonal, outside the band, as
    `block_plan` says) are never computed. The query tiles of one key block are independent (a GPU runs them in
    parallel), so they are computed together: the Python loop runs over key blocks only, and holds at most
    (Q, block_k) scores. Queries with no key to attend get zeros.
    """
    _check_qkv(q, k, v)
    block_q, block_k = check.positive_int("block_q", block_q), check.positive_int("block_k", block_k)
    window = _window(window)
    check.boolean("causal", causal)
    if scale is None:
        scale = 1 / math.sqrt(q.shape[-1]) if q.shape[-1] else 1.0  # d = 0: every score is 0 whatever the scale
    else:
        scale = check.real("scale", scale, low=0.0, low_open=True)
    Q, K = q.shape[-2], k.shape[-2]  # queries, keys
    lens = None
    if valid_lens is not None:
        check_valid_lens(valid_lens, q.shape[0], Q, K, q.device)
        extra = (1,) * (q.dim() - 3)  # a head axis for 4-D inputs
        rows = 1 if valid_lens.dim() == 1 else Q  # one length per row, or per (row, query)
        lens = valid_lens.reshape(q.shape[0], *extra, rows, 1)  # (B, [1,] 1 or Q, 1)
    dtype = _stats_dtype(q.dtype)
    lead = q.shape[:-2]  # (B,) or (B, H)
    qs = q.to(dtype) * scale  # (B, [H,] Q, d), a new tensor
    m = torch.full((*lead, Q), float("-inf"), dtype=dtype, device=q.device)  # (B, [H,] Q): nothing seen yet
    s = torch.zeros((*lead, Q), dtype=dtype, device=q.device)  # (B, [H,] Q)
    o = torch.zeros((*lead, Q, v.shape[-1]), dtype=dtype, device=q.device)  # (B, [H,] Q, d_v)
    plan = block_plan(Q, K, block_q, block_k, causal=causal, window=window)  # (nq, nk)
    for kj, k0 in enumerate(range(0, K, block_k)):
        active = plan[:, kj].nonzero()  # the query blocks that may attend this key block: a contiguous run
        if active.numel() == 0:
            continue
        r0, r1 = int(active[0]) * block_q, min(Q, (int(active[-1]) + 1) * block_q)  # their rows
        k_blk, v_blk = k[..., k0 : k0 + block_k, :], v[..., k0 : k0 + block_k, :]  # (B, [H,] bk, d), (.., bk, d_v)
        scores = qs[..., r0:r1, :] @ k_blk.to(dtype).transpose(-2, -1)  # (.., rows, d) @ (.., d, bk) -> (.., rows, bk)
        keep = None
        key_ids = torch.arange(k0, k0 + k_blk.shape[-2], device=q.device)  # (bk,)
        if causal or window is not None:
            keep = _band(torch.arange(r0, r1, device=q.device), key_ids, window, causal)  # (rows, bk)
        if lens is not None:
            padding = key_ids < (lens if lens.shape[-2] == 1 else lens[..., r0:r1, :])  # (B, [1,] 1 or rows, bk)
            keep = padding if keep is None else keep & padding
        old = Partial(m[..., r0:r1], s[..., r0:r1], o[..., r0:r1, :])
        new = merge(old, partial_softmax(scores, v_blk, keep))
        if (r0, r1) == (0, Q):  # every query block was active: the merged state is the whole state
            m, s, o = new
        else:  # new tensors rather than writes into m, s, o: autograd keeps the old ones for the backward pass
            m = torch.cat([m[..., :r0], new.m, m[..., r1:]], dim=-1)  # (B, [H,] Q)
            s = torch.cat([s[..., :r0], new.s, s[..., r1:]], dim=-1)  # (B, [H,] Q)
            o = torch.cat([o[..., :r0, :], new.o, o[..., r1:, :]], dim=-2)  # (B, [H,] Q, d_v)
    return finish(Partial(m, s, o)).to(q.dtype)  # (B, [H,] Q, d_v)


def output_distances(scores: torch.Tensor, values: torch.Tensor, block: int) -> torch.Tensor:
    """Scores (..., Q, K), values (..., K, d_v) -> (..., Q, n_blocks): how far the output after each block of `block`
    keys (`running_partials`) lies from the final one, ||o / s - output|| over ||output|| (absolute where that is 0)."""
    states = running_partials(scores, values, block)
    final = finish(states[-1])  # (..., Q, d_v)
    size = final.norm(dim=-1)  # (..., Q)
    size = torch.where(size > 0, size, torch.ones_like(size))
    return torch.stack([(finish(p) - final).norm(dim=-1) / size for p in states], dim=-1)  # (..., Q, n_blocks)


def settling_block(distances: torch.Tensor, tolerance: float) -> torch.Tensor:
    """Distances (..., n_blocks) -> (...) long: the first block (from 0) from which every distance is <= tolerance
    (n_blocks where even the last one is not)."""
    distances = check.has_values("distances", check.floating_tensor("distances", distances, shape="(..., n_blocks)"))
    if distances.dim() == 0 or distances.shape[-1] == 0:
        raise ValueError(f"distances must have shape (..., n_blocks) with n_blocks >= 1, got {tuple(distances.shape)}")
    check.finite("distances", distances)
    tolerance = check.real("tolerance", tolerance, low=0.0)
    after = torch.arange(1, distances.shape[-1] + 1, device=distances.device)  # (n_blocks,): 1 + each block's index
    return ((distances > tolerance) * after).amax(dim=-1)  # one past the last block still farther than tolerance


def _attention_modules(model: object) -> list[DotProductAttention]:
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module holding DotProductAttention, got {check.describe(model)}")
    found = [m for m in model.modules() if isinstance(m, DotProductAttention)]
    if not found:
        raise ValueError(
            f"model must hold at least one DotProductAttention (MultiHeadAttention does), got a "
            f"{type(model).__name__} with none"
        )
    return found


def _call(args: tuple, kwargs: dict) -> tuple:
    """A DotProductAttention call's (queries, keys, values, valid_lens), however they were passed."""
    given = dict(zip(("queries", "keys", "values", "valid_lens"), args, strict=False)) | kwargs
    return given["queries"], given["keys"], given["values"], given.get("valid_lens")


@contextlib.contextmanager
def _hooked(modules: list[DotProductAttention], hook: object) -> Iterator[None]:
    handles = [m.register_forward_hook(hook, with_kwargs=True) for m in modules]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


class _Recording(contextlib.AbstractContextManager):
    """What `recorded_attention` returns: enter it to record, get the list of calls."""

    def __init__(self, modules: list[DotProductAttention]):
        self.calls: list[tuple] = []
        self._hooks = _hooked(modules, self._record)

    def _record(self, module: nn.Module, args: tuple, kwargs: dict, output: torch.Tensor) -> None:
        self.calls.append(tuple(t.detach() if isinstance(t, torch.Tensor) else t for t in _call(args, kwargs)))

    def __enter__(self) -> list[tuple]:
        self._hooks.__enter__()
        return self.calls

    def __exit__(self, *exc: object) -> None:
        self._hooks.__exit__(*exc)


def recorded_attention(model: nn.Module) -> contextlib.AbstractContextManager[list[tuple]]:
    """`with recorded_attention(model) as calls:` each DotProductAttention call inside `model` (each layer of a
    MultiHeadAttention stack) appends its (queries (B, Q, d), keys (B, K, d), values (B, K, d_v), valid_lens) to
    `calls`, in the order of the calls."""
    return _Recording(_attention_modules(model))


def tiled_heads(model: nn.Module, *, block_q: int = 64, block_k: int = 64) -> contextlib.AbstractContextManager[None]:
    """`with tiled_heads(model):` every DotProductAttention inside `model` hands on `tiled_attention`'s output on its
    own queries, keys, values and valid_lens, in (block_q, block_k) tiles, instead of its weights @ values (the
    weights are still computed and kept for inspection). Needs dropout off (eval mode): tiles draw no dropout."""
    block_q, block_k = check.positive_int("block_q", block_q), check.positive_int("block_k", block_k)
    modules = _attention_modules(model)
    if any(m.training and m.dropout.p > 0 for m in modules):
        raise ValueError("model must be in eval mode (model.eval()): its attention drops weights out, tiles do not")

    def tiled(module: nn.Module, args: tuple, kwargs: dict, output: torch.Tensor) -> torch.Tensor:
        queries, keys, values, valid_lens = _call(args, kwargs)
        return tiled_attention(queries, keys, values, valid_lens, block_q=block_q, block_k=block_k)

    return _hooked(modules, tiled)
