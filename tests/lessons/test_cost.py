"""time_call, peak_memory, op_names, loglog_slope and sweep: known allocations, exact power laws, bad input."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attention_helpers import DotProductAttention
from attention_helpers.lessons.cost import Sweep, loglog_slope, op_names, peak_memory, sweep, time_call

# ---------------------------------------------------------------- loglog_slope


@pytest.mark.parametrize("power", [0.0, 0.5, 1.0, 2.0, 3.0])
def test_loglog_slope_of_a_power_law(power):
    lengths = [64, 128, 256, 512, 1024]
    assert loglog_slope(lengths, [3e-5 * n**power for n in lengths]) == pytest.approx(power, abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_loglog_slope_matches_numpy_polyfit(seed):
    rng = np.random.default_rng(seed)
    lengths = np.sort(rng.choice(np.arange(2, 5000), size=6, replace=False)).astype(float)
    values = lengths**1.7 * np.exp(rng.normal(0, 0.3, size=6))
    expected = np.polyfit(np.log(lengths), np.log(values), 1)[0]
    as_tensors = torch.tensor(lengths), torch.tensor(values)
    before = as_tensors[0].clone(), as_tensors[1].clone()
    assert loglog_slope(*as_tensors) == pytest.approx(expected, rel=1e-9)
    assert torch.equal(as_tensors[0], before[0]) and torch.equal(as_tensors[1], before[1])
    assert loglog_slope(list(lengths), list(values)) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("lengths", "values", "match"),
    [
        ([1, 2, 3], [1, 2], "same size"),
        ([[1, 2]], [[1, 2]], "1-D"),
        ([4], [2], "two different"),
        ([4, 4], [2, 3], "two different"),
        ([0, 2], [1, 2], "> 0"),
        ([1, 2], [1, -2], "> 0"),
    ],
)
def test_loglog_slope_bad_input(lengths, values, match):
    with pytest.raises(ValueError, match=match):
        loglog_slope(lengths, values)


# ---------------------------------------------------------------- peak_memory


@pytest.mark.parametrize(
    ("numel", "dtype", "size"), [(1, torch.float32, 4), (1000, torch.float32, 4), (777, torch.float64, 8)]
)
def test_peak_memory_of_one_allocation(numel, dtype, size):
    assert peak_memory(lambda: torch.empty(numel, dtype=dtype)) == numel * size


def test_peak_memory_counts_what_is_alive_together():
    assert peak_memory(lambda: torch.empty(1000) + torch.empty(1000)) == 12000  # two inputs and the sum

    def one_after_another():
        a = torch.empty(2000)
        del a
        return torch.empty(500)

    assert peak_memory(one_after_another) == 8000


def test_peak_memory_frees_of_older_tensors_do_not_go_below_zero():
    box = [torch.empty(10_000)]
    assert peak_memory(lambda: box.clear()) == 0


@pytest.mark.parametrize(("B", "Q", "K", "d", "d_v"), [(1, 128, 128, 8, 8), (2, 64, 96, 16, 4), (1, 200, 50, 8, 32)])
def test_peak_memory_of_attention_is_two_score_matrices_and_the_output(B, Q, K, d, d_v):
    # Where the bound comes from (DotProductAttention.forward, float32 = 4 bytes, inputs made before the call):
    # - `scores = bmm(q, k^T) / sqrt(d)`: the raw product and the scaled copy, two (B, Q, K) matrices, alive together;
    # - `masked_softmax(scores)`: the weights, a new (B, Q, K) matrix, while `scores` is still held: two again;
    # - `bmm(weights, v)`: the output (B, Q, d_v), while scores and weights are both still held.
    # So the peak is at least 2 (B, Q, K) matrices + the output, and a forward that kept a third (B, Q, K) matrix
    # alive (a copy for the mask, say) would reach 3 of them + the output: the peak must stay below that.
    matrix, output = B * Q * K * 4, B * Q * d_v * 4
    q, k, v = torch.randn(B, Q, d), torch.randn(B, K, d), torch.randn(B, K, d_v)
    with torch.no_grad():
        peak = peak_memory(lambda: DotProductAttention()(q, k, v))
    assert 2 * matrix + output <= peak < 3 * matrix + output, (peak, matrix, output)


def test_peak_memory_writes_nothing_to_stderr(capfd):
    peak_memory(lambda: torch.empty(10))
    assert capfd.readouterr().err == ""  # the profiler's time-stamped notes would show under a notebook cell


@pytest.mark.parametrize(
    ("fn", "kwargs", "error", "match"),
    [(3, {}, TypeError, "fn"), (lambda: 1, dict(device="tpu"), ValueError, "device")],
)
def test_peak_memory_and_time_call_bad_input(fn, kwargs, error, match):
    for measure in (peak_memory, time_call):
        with pytest.raises(error, match=match):
            measure(fn, **kwargs)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_peak_memory_on_a_gpu():
    assert peak_memory(lambda: torch.empty(1 << 20, device="cuda"), device="cuda") >= 4 << 20


# ---------------------------------------------------------------- time_call, op_names


def test_time_call_calls_warmup_plus_repeats_times():
    calls = []
    seconds = time_call(lambda: calls.append(1), repeats=4, warmup=2)
    assert len(calls) == 6 and 0 <= seconds < 0.1


@pytest.mark.parametrize(("kwargs", "match"), [(dict(repeats=0), "repeats"), (dict(warmup=-1), "warmup")])
def test_time_call_bad_counts(kwargs, match):
    with pytest.raises(ValueError, match=match):
        time_call(lambda: None, **kwargs)


def test_op_names_shows_which_attention_kernel_ran():
    x = torch.randn(1, 2, 16, 4)
    with torch.no_grad():
        fused = op_names(lambda: F.scaled_dot_product_attention(x, x, x))
        plain = op_names(lambda: F.scaled_dot_product_attention(x[0], x[0], x[0]))
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in fused
    assert "aten::_scaled_dot_product_attention_math" in plain and fused == sorted(fused)


# ---------------------------------------------------------------- sweep, Sweep


def test_memory_sweep_of_a_quadratic_and_a_linear_allocation():
    calls = {"square": lambda n: lambda: torch.empty(n, n), "line": lambda n: lambda: torch.empty(n)}
    result = sweep(calls, [8, 16, 32], measure="memory")
    assert result.unit == "bytes" and result.lengths == [8, 16, 32]
    assert result.values == {"square": [256.0, 1024.0, 4096.0], "line": [32.0, 64.0, 128.0]}
    assert result.slope("square") == pytest.approx(2.0) and result.slope("line", min_length=16) == pytest.approx(1.0)


def test_time_sweep_restores_threads_and_keeps_the_fastest_round():
    threads = torch.get_num_threads()
    built = []

    def make(n):
        built.append(n)
        return lambda: torch.ones(n).sum()

    result = sweep({"sum": make}, [10, 20], measure="time", repeats=2, threads=1)
    assert built == [10, 20]  # inputs built once per length, outside the timing
    assert result.unit == "s" and len(result.values["sum"]) == 2 and all(v > 0 for v in result.values["sum"])
    assert torch.get_num_threads() == threads


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (({"a": lambda n: lambda: None}, [1, 2]), dict(measure="speed"), ValueError, "measure"),
        (({}, [1, 2]), {}, TypeError, "calls"),
        (({"a": lambda n: lambda: None}, [1, 0]), {}, ValueError, "lengths"),
        (({"a": lambda n: lambda: None}, [1, 2]), dict(repeats=0), ValueError, "repeats"),
        (({"a": lambda n: lambda: None}, [1, 2]), dict(threads=0), ValueError, "threads"),
    ],
)
def test_sweep_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        sweep(*args, **kwargs)


def test_sweep_table_and_unknown_name():
    result = Sweep([256, 512], "s", {"ours": [0.001, 0.004], "F.sdpa": [0.0005, 0.002]})
    assert result.table(scale=1e3, unit="ms").splitlines() == [
        "(ms)",
        "length         256       512",
        "ours          1.00      4.00",
        "F.sdpa        0.50      2.00",
    ]
    with pytest.raises(ValueError, match=r"name must be one of the implementations measured, \[.ours., .F.sdpa.\]"):
        result.slope("theirs")


# ---------------------------------------------------------------- the exercises' checks


def test_check_7_1():
    from attention_helpers.checks import check_7_1

    def least_squares(x, y):  # written by hand, as the exercise asks
        lx, ly = torch.as_tensor(x, dtype=torch.float64).log(), torch.as_tensor(y, dtype=torch.float64).log()
        lx, ly = lx - lx.mean(), ly - ly.mean()
        return (lx * ly).sum() / (lx * lx).sum()

    assert check_7_1(least_squares)
    wrapped = check_7_1(lambda x, y: torch.tensor(loglog_slope(x, y), dtype=torch.float64))
    assert not wrapped and "loglog_slope" in repr(wrapped)  # the exercise asks for it without the helper
    assert not check_7_1(
        lambda x, y: (y[-1] / y[0]).log() / (x[-1] / x[0]).log()
    )  # two points only: wrong on noisy data

    def not_attempted(x, y):
        raise NotImplementedError

    assert check_7_1(not_attempted).message.startswith("⏳")


def test_check_7_2_wants_the_memory_saving_too():
    from attention_helpers.checks import check_7_2

    def chunked(q, k, v, chunk_size):
        return torch.cat(
            [DotProductAttention()(q[:, i : i + chunk_size], k, v) for i in range(0, q.shape[1], chunk_size)], 1
        )

    assert check_7_2(chunked)
    full = check_7_2(lambda q, k, v, chunk_size: DotProductAttention()(q, k, v))
    assert not full and "right values, but" in full.message
    assert not check_7_2(lambda q, k, v, chunk_size: v.mean(dim=1, keepdim=True).expand(-1, q.shape[1], -1))
