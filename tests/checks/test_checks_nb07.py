"""Notebook 7's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import math

import pytest
import torch
from check_helpers import unsolved

from attention_helpers.checks import check_7_1, check_7_2


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
