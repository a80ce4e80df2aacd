"""What attention costs: wall-clock time and peak memory of one call, and the log-log slope of a cost vs length.

Peak memory is what a call allocates above what was allocated when it started, output included. On a GPU it comes
from `torch.cuda.max_memory_allocated`. On the CPU PyTorch keeps no such counter, and `tracemalloc` does not see
its allocations; `peak_memory` runs the call under `torch.autograd.profiler.profile(profile_memory=True)`, which
records every allocation and free of PyTorch's CPU allocator in time order, and returns the highest running sum.
(The older `torch.autograd.profiler` rather than `torch.profiler`: the latter imports `torch._inductor` when it
starts, seconds of work.) Memory that a library allocates outside PyTorch's allocator is not counted.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import torch

from .. import _validate as check

__all__ = ["Sweep", "loglog_slope", "op_names", "peak_memory", "sweep", "time_call"]


def _check_fn(
    fn: object, name: str = "fn", what: str = "a function of no arguments, e.g. lambda: layer(q, k, v)"
) -> Callable[[], object]:
    if not callable(fn):
        raise TypeError(f"{name} must be {what}, got {check.describe(fn)}")
    return fn


def _device(device: object) -> torch.device:
    device = check.device("device", device)
    if device.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be a CPU or CUDA device, got {device}")
    return device


@contextlib.contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """Send what C++ code writes to file descriptor 2 to /dev/null (Python's own warnings are unaffected)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no file descriptor 2 to redirect
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


@contextlib.contextmanager
def _profiling(memory: bool = True) -> Iterator[object]:
    """The CPU profiler, quiet: its engine (Kineto) and the CPU allocator print time-stamped notes to stderr, which
    Jupyter would show under the cell (e.g. "Memory block of unknown size was allocated before the profiling
    started" when the call frees a tensor made before it: that free is simply not counted)."""
    from torch.autograd import profiler

    with _native_stderr_silenced(), profiler.profile(use_kineto=True, profile_memory=memory) as prof:
        yield prof


def time_call(fn: Callable[[], object], *, repeats: int = 5, warmup: int = 1, device: object = "cpu") -> float:
    """Seconds one call of fn() takes: the fastest of `repeats` timed calls after `warmup` untimed ones."""
    fn, device = _check_fn(fn), _device(device)
    check.positive_int("repeats", repeats)
    check.int_at_least("warmup", warmup, 0)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)  # GPU calls return before they finish
    for _ in range(warmup):
        fn()
    best = math.inf
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)  # the fastest run is the one least disturbed by other work
    return best


def peak_memory(fn: Callable[[], object], *, device: object = "cpu") -> int:
    """Bytes: the most that fn() held allocated at any moment of the call, above what was allocated at its start."""
    fn, device = _check_fn(fn), _device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        start = torch.cuda.memory_allocated(device)
        fn()
        torch.cuda.synchronize(device)
        return max(0, torch.cuda.max_memory_allocated(device) - start)
    with _profiling() as prof:
        fn()
    records = [e for e in prof.kineto_results.events() if e.name() == "[memory]" and e.device_type().name == "CPU"]
    held = peak = 0
    for record in sorted(records, key=lambda e: e.start_ns()):
        held += record.nbytes()  # + bytes allocated, - bytes freed
        peak = max(peak, held)
    return peak


def op_names(fn: Callable[[], object]) -> list[str]:
    """The names of the PyTorch operators that fn() ran on the CPU, sorted, e.g. to see which attention kernel ran."""
    fn = _check_fn(fn)
    with _profiling(memory=False) as prof:
        fn()
    return sorted({e.name for e in prof.function_events})


def loglog_slope(lengths: Sequence[float], values: Sequence[float]) -> float:
    """The slope b of the least-squares line log(value) = a + b log(length): cost grows like length**b."""
    x = torch.tensor(check.reals("lengths", lengths, positive=True), dtype=torch.float64)  # > 0: logs are taken
    y = torch.tensor(check.reals("values", values, positive=True), dtype=torch.float64)
    if y.shape != x.shape:
        raise ValueError(f"lengths and values must have the same size, got {x.numel()} and {y.numel()}")
    if len(set(x.tolist())) < 2:
        raise ValueError(f"lengths must hold at least two different values, got {x.tolist()}")
    lx, ly = x.log(), y.log()
    lx = lx - lx.mean()
    return float((lx * (ly - ly.mean())).sum() / (lx * lx).sum())


@dataclass
class Sweep:
    """Costs of several implementations over lengths: `values[name][i]` at `lengths[i]` (seconds or bytes)."""

    lengths: list[int]
    unit: str  # "s" or "bytes"
    values: dict[str, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.lengths, (str, bytes)) or not isinstance(self.lengths, Sequence) or not self.lengths:
            raise TypeError(f"lengths must be a non-empty list of positive ints, got {check.describe(self.lengths)}")
        for i, n in enumerate(self.lengths):
            check.positive_int(f"lengths[{i}]", n)
        check.text("unit", self.unit)
        if not isinstance(self.values, Mapping):
            raise TypeError(f"values must be a dict name -> list of costs, got {check.describe(self.values)}")
        for name, row in self.values.items():
            check.text("values' keys", name)
            costs = check.reals(f"values[{name!r}]", row, finite=False)
            if len(costs) != len(self.lengths):
                raise ValueError(
                    f"values[{name!r}] must hold one cost per length ({len(self.lengths)}), got {len(costs)}"
                )

    def slope(self, name: str, min_length: int = 0) -> float:
        """The log-log slope of `name`'s cost, fitted on the lengths >= min_length."""
        check.text("name", name)
        if name not in self.values:
            raise ValueError(f"name must be one of the implementations measured, {list(self.values)}, got {name!r}")
        check.int_at_least("min_length", min_length, 0)
        pairs = [(n, v) for n, v in zip(self.lengths, self.values[name], strict=True) if n >= min_length]
        if len(pairs) < 2:
            raise ValueError(
                f"min_length={min_length} leaves {len(pairs)} length(s) of {self.lengths}: a slope needs two"
            )
        return loglog_slope([n for n, _ in pairs], [v for _, v in pairs])

    def table(self, scale: float = 1.0, unit: str | None = None, digits: int = 2) -> str:
        """The values as text: one row per implementation, one column per length, multiplied by `scale`."""
        check.real("scale", scale)
        if unit is not None:
            check.text("unit", unit)
        check.int_at_least("digits", digits, 0)
        if not self.values:
            raise ValueError("this Sweep holds no values to tabulate")
        width = max(len(name) for name in self.values) + 2
        head = f"{'length':<{width}}" + "".join(f"{n:>10}" for n in self.lengths)
        rows = [
            f"{name:<{width}}" + "".join(f"{v * scale:>10.{digits}f}" for v in vs) for name, vs in self.values.items()
        ]
        return "\n".join([f"({unit or self.unit})", head, *rows])


def sweep(
    calls: Mapping[str, Callable[[int], Callable[[], object]]],
    lengths: Sequence[int],
    *,
    measure: str = "time",
    repeats: int = 3,
    device: object = "cpu",
    threads: int | None = 1,
) -> Sweep:
    """For each name, `calls[name](length)` returns a function of no arguments; time it or measure its peak memory.

    Timing interleaves the implementations and lengths over `repeats` rounds (in each, one untimed call, then one
    timed) and keeps each one's fastest round, so a burst of other work on the machine slows one round, not one
    implementation. Memory on a GPU is measured after one unmeasured call of each function, whose one-off
    allocations (cuBLAS's workspace) would otherwise count as its peak. `threads` (CPU only) fixes
    PyTorch's number of threads during the sweep (restored after); None leaves it as it is.
    """
    check.one_of("measure", measure, ("time", "memory"))
    if not isinstance(calls, Mapping) or not calls:
        raise TypeError(
            f"calls must be a non-empty dict: name -> (length -> function of no arguments), got {check.describe(calls)}"
        )
    for name, make in calls.items():
        check.text("calls' keys", name)
        _check_fn(
            make,
            f"calls[{name!r}]",
            "a function of the length n returning a function of no arguments (lambda n: lambda: layer(x[:n]))",
        )
    lengths = [
        check.positive_int(f"lengths[{i}]", n)
        for i, n in enumerate(check.sequence("lengths", lengths, "positive ints"))
    ]
    if not lengths:
        raise ValueError("lengths must hold at least one length")
    check.positive_int("repeats", repeats)
    if threads is not None:
        check.positive_int("threads", threads)
    device = _device(device)
    saved = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        fns = {name: [make(n) for n in lengths] for name, make in calls.items()}  # inputs are built once, untimed
        for name, row in fns.items():
            for n, fn in zip(lengths, row, strict=True):
                _check_fn(fn, f"calls[{name!r}]({n})")
        if measure == "memory":
            if device.type == "cuda":  # a first call's one-off allocations (cuBLAS workspace) stay: not its peak
                for row in fns.values():
                    for fn in row:
                        fn()
            values = {name: [float(peak_memory(fn, device=device)) for fn in row] for name, row in fns.items()}
            return Sweep(lengths, "bytes", values)
        best = {name: [math.inf] * len(lengths) for name in fns}
        for _ in range(repeats):
            for name, row in fns.items():
                for i, fn in enumerate(row):
                    # One untimed call first: right after a call at another length (its memory just freed, the
                    # caches full of other data) the first call can be several times slower than the next.
                    best[name][i] = min(best[name][i], time_call(fn, repeats=1, warmup=1, device=device))
        return Sweep(lengths, "s", best)
    finally:
        torch.set_num_threads(saved)
