"""Notebook 7's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import math

import torch

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
    assert not full and "as much as full attention" in repr(full)
    unscaled = check_7_2(lambda q, k, v, c: chunked(q * math.sqrt(q.shape[-1]), k, v, c))
    assert not unscaled and "wrong value" in repr(unscaled)
