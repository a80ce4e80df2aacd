"""Notebook 7's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from check_helpers import unsolved

from attention_helpers import DotProductAttention
from attention_helpers.checks import check_7_1, check_7_2
from attention_helpers.lessons.cost import Sweep, loglog_slope


def slope(x, y, logs=True):
    if logs:
        x, y = x.log(), y.log()
    x, y = x - x.mean(), y - y.mean()
    return (x * y).sum() / (x * x).sum()


def test_7_1_right_and_without_logs():
    assert check_7_1(slope)
    linear = check_7_1(lambda x, y: slope(x, y, logs=False))
    assert not linear and "wrong value" in repr(linear)
    single = check_7_1(lambda x, y: slope(x, y).float())
    assert not single and "dtype" in repr(single)


def chunked(q, k, v, chunk):
    parts = []
    for start in range(0, q.shape[1], chunk):
        scores = q[:, start : start + chunk] @ k.transpose(1, 2) / math.sqrt(q.shape[-1])
        parts.append(torch.softmax(scores, -1) @ v)
    return torch.cat(parts, 1)


def test_7_2_right_full_matrix_and_unscaled():
    result = check_7_2(chunked)
    assert result and "peaked at" in repr(result)
    full = check_7_2(lambda q, k, v, c: torch.softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), -1) @ v)
    assert not full and "more than half of full attention" in repr(full)
    unscaled = check_7_2(lambda q, k, v, c: chunked(q * math.sqrt(q.shape[-1]), k, v, c))
    assert not unscaled and "wrong value" in repr(unscaled)


def test_7_1_a_python_float_a_vector_and_logs_taken_in_place():
    first = "(case: values = 3e-6 * lengths**2.0)"
    as_float = check_7_1(lambda x, y: slope(x, y).item())
    assert not as_float and "expected a torch.Tensor, got float " + first in repr(as_float)
    vector = check_7_1(lambda x, y: slope(x, y)[None])
    assert not vector and "expected shape (), got (1,)" in repr(vector)

    def logs_in_place(x, y):  # x.log_() changes the caller's lengths
        x.log_()
        y.log_()
        return slope(x, y, logs=False)

    assert "modified its input " + first in repr(check_7_1(logs_in_place))


def test_7_2_a_dropped_last_chunk_and_modified_queries():
    def drops_the_rest(q, k, v, chunk):  # whole chunks only: 5 queries in chunks of 2 lose the fifth
        whole = q.shape[1] // chunk * chunk or q.shape[1]
        return chunked(q[:, :whole], k, v, chunk)

    short = check_7_2(drops_the_rest)
    assert not short and "expected shape (2, 5, 6), got (2, 4, 6)" in repr(short) and "chunk_size=2" in repr(short)
    assert "peak" not in repr(short)  # memory is measured only once the values are right

    def scales_in_place(q, k, v, chunk):
        q.div_(math.sqrt(q.shape[-1]))
        return chunked(q * math.sqrt(q.shape[-1]), k, v, chunk)

    assert "modified its input" in repr(check_7_2(scales_in_place))


@pytest.mark.parametrize("check", [check_7_1, check_7_2])
def test_unsolved_and_not_a_function(check):
    label = f"Exercise 7.{check.__name__[-1]}"
    assert repr(check(unsolved)).startswith(f"⏳ {label}: not attempted yet")
    assert repr(check(0)) == f"❌ {label}: pass your function itself (without calling it), got int"


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        slope,
        lambda x, y: torch.linalg.lstsq(torch.stack([x.log(), torch.ones_like(x)], 1), y.log()[:, None]).solution[0, 0],
        lambda x, y: torch.cov(torch.stack([x.log(), y.log()]))[0, 1] / x.log().var(),
        lambda x, y: torch.tensor(np.polyfit(x.log().numpy(), y.log().numpy(), 1)[0]),
    ],
    ids=["centred sums", "lstsq", "covariance over variance", "numpy polyfit"],
)
def test_7_1_right_answers_written_differently_pass(answer):
    result = check_7_1(answer)
    assert result and repr(result) == "✅ Exercise 7.1: correct on all 15 cases.", repr(result)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (loglog_slope, "you passed loglog_slope itself"),
        (lambda x, y: torch.tensor(loglog_slope(x, y), dtype=torch.float64), "calls loglog_slope"),
        (
            lambda x, y: torch.tensor(Sweep([int(n) for n in x], "bytes", {"f": y.tolist()}).slope("f")).double(),
            "calls Sweep.slope",
        ),
        (lambda x, y: slope(x, y, logs=False), "wrong value at index ()"),
        (lambda x, y: slope(y, x), "wrong value at index (): expected 2, got 0.5"),  # the axes swapped
    ],
    ids=["loglog_slope itself", "loglog_slope", "Sweep.slope", "no logs", "axes swapped"],
)
def test_7_1_wrong_and_forbidden_answers_say_what_is_wrong(answer, message):
    result = check_7_1(answer)
    assert not result and message in repr(result), repr(result)
    if "loglog_slope" in message or "Sweep" in message:
        assert "which the exercise asks you to do without" in repr(result)


def chunked_sdpa(q, k, v, chunk):  # SDPA on each chunk of queries: chunked, only by another kernel
    parts = [F.scaled_dot_product_attention(q[:, s : s + chunk], k, v) for s in range(0, q.shape[1], chunk)]
    return torch.cat(parts, 1)


def chunked_layer(q, k, v, chunk):  # the package's layer on each chunk of queries
    return torch.cat([DotProductAttention()(q[:, s : s + chunk], k, v) for s in range(0, q.shape[1], chunk)], 1)


def chunked_by_split(q, k, v, chunk):  # torch.split does the bookkeeping
    return torch.cat([torch.softmax(c @ k.mT / math.sqrt(q.shape[-1]), -1) @ v for c in q.split(chunk, dim=1)], 1)


@pytest.mark.parametrize(
    "answer",
    [chunked, chunked_sdpa, chunked_layer, chunked_by_split],
    ids=["by hand", "SDPA per chunk", "DotProductAttention per chunk", "torch.split"],
)
def test_7_2_right_answers_written_differently_pass(answer):
    result = check_7_2(answer)
    assert result and "peaked at" in repr(result), repr(result)


def fixed_chunks_of_64(q, k, v, chunk):  # chunk_size ignored: 64 queries at a time, whatever is asked
    return chunked(q, k, v, 64)


def sdpa_4d(q, k, v, chunk):  # the fused kernel: no (Q, K) matrix, and chunk_size ignored
    return F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None])[:, 0]


def doubled_chunks(q, k, v, chunk):
    return chunked(q, k, v, 2 * chunk)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            fixed_chunks_of_64,
            "with chunk_size=24 (queries, keys, values (1, 512, 16)) it built a tensor of shape (1, 64, 512)",
        ),
        (doubled_chunks, "it built a tensor of shape (1, 48, 512), more than (B, chunk_size, K) scores"),
        (sdpa_4d, "it handed F.scaled_dot_product_attention 512 queries at once"),
        (lambda q, k, v, c: F.scaled_dot_product_attention(q, k, v), "right values, but"),  # its memory, or its queries
        (lambda q, k, v, c: chunked(q, k, v, 16), "it handled at most 16 queries at once"),  # a fixed smaller chunk
        (lambda q, k, v, c: chunked(q, k, v, 1), "it handled at most 1 queries at once"),
        (lambda q, k, v, c: chunked(q, k, v, max(1, c // 2)), "it handled at most 12 queries at once"),
    ],
    ids=[
        "fixed chunks of 64",
        "twice chunk_size",
        "fused SDPA, chunk_size ignored",
        "SDPA on 3-D inputs",
        "fixed chunks of 16",
        "one query at a time",
        "half chunk_size",
    ],
)
def test_7_2_ignoring_chunk_size_fails_however_it_is_done(answer, message):
    result = check_7_2(answer)
    assert not result and message in repr(result), repr(result)
    assert repr(result).startswith("❌ Exercise 7.2: right values, but")
