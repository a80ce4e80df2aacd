"""Notebook 5's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import torch

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
