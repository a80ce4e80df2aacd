"""Notebook 5's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import pytest
import torch
from check_helpers import unsolved

from attention_helpers.checks import check_5_1, check_5_2, check_5_3


def scaled(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    return torch.softmax(Q @ K.T / K.shape[-1] ** 0.5, dim=-1) @ V


def test_5_1_scaled_passes_unscaled_fails():
    assert check_5_1(scaled)
    unscaled = check_5_1(lambda X, W_q, W_k, W_v: torch.softmax((X @ W_q) @ (X @ W_k).T, dim=-1) @ (X @ W_v))
    assert not unscaled and "wrong value" in repr(unscaled) and "worked example" in repr(unscaled)
    batched = check_5_1(lambda X, W_q, W_k, W_v: scaled(X, W_q, W_k, W_v)[None])
    assert not batched and "shape" in repr(batched)


def test_5_2_bottom_right_passes_top_left_fails():
    assert check_5_2(lambda Q, K: torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q)
    top_left = check_5_2(lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril())
    assert not top_left and "wrong value" in repr(top_left)
    as_int = check_5_2(lambda Q, K: (torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q).long())
    assert not as_int and "dtype" in repr(as_int)


def encoding(n, d, swap=False, dtype=torch.float32):
    angles = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
    P = torch.zeros(n, d, dtype=torch.float64)
    P[:, 0::2], P[:, 1::2] = (angles.cos(), angles.sin()) if swap else (angles.sin(), angles.cos())
    return P.to(dtype)


def test_5_3_right_swapped_and_dtype():
    assert check_5_3(encoding)
    swapped = check_5_3(lambda n, d: encoding(n, d, swap=True))
    assert not swapped and "wrong value" in repr(swapped)
    double = check_5_3(lambda n, d: encoding(n, d, dtype=torch.float64))
    assert not double and "dtype" in repr(double)


def test_5_1_softmax_over_the_queries_dtype_and_modified_input():
    over_queries = check_5_1(lambda X, W_q, W_k, W_v: torch.softmax((X @ W_q) @ (X @ W_k).T / 3**0.5, 0) @ (X @ W_v))
    assert not over_queries and "wrong value at index (0, 0): expected 1.864" in repr(over_queries)
    assert "(case: the worked example of 5.2)" in repr(over_queries)
    double = check_5_1(lambda *args: scaled(*args).double())
    assert not double and "expected dtype torch.float32, got torch.float64" in repr(double)

    def modifies(X, W_q, W_k, W_v):
        X[0, 0] += 1.0
        return scaled(X, W_q, W_k, W_v)

    assert "modified its input (case: the worked example of 5.2)" in repr(check_5_1(modifies))


def test_5_2_transposed_and_not_a_tensor():
    right = lambda Q, K: torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q
    transposed = check_5_2(lambda Q, K: right(Q, K).T)  # (K, Q): keys along the rows
    assert not transposed and "wrong value at index (0, 1): expected False, got True" in repr(transposed)
    assert "(case: num_queries=3, num_keys=3)" in repr(transposed)
    as_list = check_5_2(lambda Q, K: right(Q, K).tolist())
    assert not as_list and "expected a torch.Tensor, got list" in repr(as_list)


def test_5_3_transposed_and_another_base():
    transposed = check_5_3(lambda n, d: encoding(n, d).T)
    assert not transposed and "expected shape (1, 2), got (2, 1)" in repr(transposed)

    def base_1000(n, d):
        angles = torch.arange(n, dtype=torch.float64)[:, None] / 1000 ** (torch.arange(0, d, 2) / d)
        return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(1).float()

    other_base = check_5_3(base_1000)
    assert not other_base and "wrong value at index (1, 2): expected 0.01, got 0.03162" in repr(other_base)
    assert "(case: num_steps=6, num_hiddens=4)" in repr(other_base)


@pytest.mark.parametrize("check", [check_5_1, check_5_2, check_5_3])
def test_unsolved_and_not_a_function(check):
    label = f"Exercise 5.{check.__name__[-1]}"
    assert repr(check(unsolved)).startswith(f"⏳ {label}: not attempted yet")
    assert repr(check(1.0)) == f"❌ {label}: pass your function itself (without calling it), got float"
