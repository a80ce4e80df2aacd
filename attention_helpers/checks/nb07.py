"""Self-checks for notebook 7, the cost of attention."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ._runner import Case, CheckResult, _never_raises, _raised, _wrong_output, run_check

__all__ = ["check_7_1", "check_7_2"]


@_never_raises
def check_7_1(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]) -> CheckResult:
    """Exercise 7.1: the least-squares slope of log(values) against log(lengths), as a 0-d float64 tensor."""
    from ..lessons.cost import Sweep, loglog_slope

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
    forbid = {"loglog_slope": loglog_slope, "Sweep.slope": Sweep.slope}  # Sweep.slope: loglog_slope behind a Sweep
    reference = lambda x, y: torch.tensor(loglog_slope(x, y), dtype=torch.float64)
    return run_check("Exercise 7.1", fn, cases, reference, forbid=forbid)


@_never_raises
def check_7_2(fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor, int], torch.Tensor]) -> CheckResult:
    """Exercise 7.2: attention computed a chunk of queries at a time: the same output, a fraction of the memory."""
    from ..layers import DotProductAttention
    from ..lessons.cost import peak_memory

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
    where, outputs = "queries, keys, values (1, 512, 16), chunk_size=64", []
    with torch.no_grad():
        expected = DotProductAttention()(q, q, q)  # (1, 512, 16)
        full = peak_memory(lambda: DotProductAttention()(q, q, q))
        try:
            chunked = peak_memory(lambda: outputs.append(fn(q, q, q, 64)))
        except Exception as error:  # right on the small cases, but not on this one
            return _raised("Exercise 7.2", error, where)
        if wrong := _wrong_output(outputs[0], expected, q.dtype):
            return CheckResult(False, f"❌ Exercise 7.2: {wrong} (case: {where})")
    if chunked > full / 2:
        return CheckResult(
            False,
            f"❌ Exercise 7.2: right values, but at Q = K = 512 with chunk_size=64 it held {chunked / 1e6:.2f} MB at "
            f"its peak, more than half of full attention's {full / 1e6:.2f} MB: build only a (B, chunk_size, K) slice "
            f"of the scores at a time",
        )
    if ignored := _ignores_chunk_size(fn, q):
        return CheckResult(False, f"❌ Exercise 7.2: right values, but {ignored}")
    return CheckResult(
        True, f"{result.message[:-1]}, and it peaked at {chunked / full:.0%} of full attention's memory."
    )


_OTHER_CHUNK = 24  # exercise 7.2: a chunk size the learner's function must follow too (not a divisor of 512)


class _QueriesAtOnce(torch.overrides.TorchFunctionMode):
    """Records the first sign of more than `chunk` queries at once: a tensor holding more than B·chunk·K scores, or
    SDPA handed more than `chunk` queries (its fused kernel never builds their scores, but computes them all)."""

    def __init__(self, batch: int, chunk: int, keys: int, inputs: torch.Tensor) -> None:
        super().__init__()
        self.limit, self.chunk, self.found = batch * chunk * keys, chunk, ""
        self.batch, self.keys, self.most = batch, keys, 0  # most: the most queries seen at once (scores or SDPA)
        self.inputs = inputs.untyped_storage().data_ptr()  # views of the inputs (the keys transposed) are no scores

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        query = args[0] if args else kwargs.get("query")
        if func is torch.nn.functional.scaled_dot_product_attention and isinstance(query, torch.Tensor):
            if query.dim() >= 2:
                self.most = max(self.most, query.shape[-2])
            if query.dim() >= 2 and query.shape[-2] > self.chunk and not self.found:
                self.found = f"it handed F.scaled_dot_product_attention {query.shape[-2]} queries at once"
        out = func(*args, **kwargs)
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor) and t.numel() > self.limit and not self.found:
                self.found = f"it built a tensor of shape {tuple(t.shape)}, more than (B, chunk_size, K) scores"
            if (
                isinstance(t, torch.Tensor)
                and t.dim() >= 2
                and t.shape[-1] == self.keys
                and t.shape[-2] != self.keys
                and t.untyped_storage().data_ptr() != self.inputs
            ):
                self.most = max(self.most, t.numel() // (self.batch * self.keys))  # a (B, c, K) slice: c queries
        return out


def _ignores_chunk_size(fn: Callable[..., torch.Tensor], q: torch.Tensor) -> str | None:
    """Why fn computes more than chunk_size queries at once on q (1, 512, 16) with chunk_size=24, or None."""
    B, Q, _ = q.shape  # batch, queries (= keys)
    with torch.no_grad(), _QueriesAtOnce(B, _OTHER_CHUNK, Q, q) as watch:
        try:
            fn(q, q, q, _OTHER_CHUNK)
        except Exception as error:  # noqa: BLE001  (right with chunk_size=64, but not with this one)
            return f"with chunk_size={_OTHER_CHUNK} it raised {type(error).__name__}: {error}"
    if watch.found:
        return (
            f"with chunk_size={_OTHER_CHUNK} (queries, keys, values (1, 512, 16)) {watch.found}: compute chunk_size "
            f"queries at a time, whatever chunk_size is"
        )
    if watch.most < _OTHER_CHUNK:  # a fixed, smaller chunk: right values and less memory, but chunk_size unused
        return (
            f"with chunk_size={_OTHER_CHUNK} (queries, keys, values (1, 512, 16)) it handled at most {watch.most} "
            f"queries at once: compute chunk_size queries at a time, whatever chunk_size is"
        )
    return None
