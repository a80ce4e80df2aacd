"""Attention layers built on `masked_softmax`: additive, scaled dot-product and multi-head.

Vocabulary: B batch, Q queries, K keys (= values), H heads, h hidden size; d_q, d_k, d_v feature sizes.
After a forward call each layer keeps its weights in `.attention_weights` (B, Q, K) (multi-head: (B*H, Q, K)).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .masking import check_valid_lens, masked_softmax

__all__ = [
    "AdditiveAttention",
    "DotProductAttention",
    "MultiHeadAttention",
    "check_qkv",
    "transpose_output",
    "transpose_qkv",
]


def _positive_int(name: str, value: object, minimum: int = 1) -> int:
    """A size argument: an int (not a bool) >= minimum, or a clear error naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def _probability(name: str, value: object) -> float:
    """A dropout rate: a real number in [0, 1], or a clear error naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a float in [0, 1], got {type(value).__name__} {value!r}")
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value}")
    return float(value)


def _check_3d(name: str, X: object, size: int | None = None, size_name: str = "") -> torch.Tensor:
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape (B, n, d), got {type(X).__name__}")
    if not X.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {X.dtype}")
    if X.dim() != 3:
        raise ValueError(f"{name} must be 3-D (B, n, d), got shape {tuple(X.shape)}")
    if size is not None and X.shape[-1] != size:
        raise ValueError(f"{name} has feature size {X.shape[-1]} but the layer was built with {size_name}={size}")
    return X


def check_qkv(
    queries: object,
    keys: object,
    values: object,
    sizes: tuple[int | None, int | None, int | None] = (None,) * 3,
    names: tuple[str, str, str] = ("query_size", "key_size", "value_size"),
) -> None:
    """Queries (B, Q, d_q), keys (B, K, d_k), values (B, K, d_v): one batch size, as many values as keys."""
    _check_3d("queries", queries, sizes[0], names[0])
    _check_3d("keys", keys, sizes[1], names[1])
    _check_3d("values", values, sizes[2], names[2])
    if not queries.shape[0] == keys.shape[0] == values.shape[0]:
        raise ValueError(
            f"queries, keys and values must share the batch size B, got {queries.shape[0]}, {keys.shape[0]}, "
            f"{values.shape[0]}"
        )
    if keys.shape[1] != values.shape[1]:
        raise ValueError(f"keys and values must have as many positions, got K={keys.shape[1]} and {values.shape[1]}")


class AdditiveAttention(nn.Module):
    """Additive (Bahdanau) attention: score(q, k) = w_v^T tanh(W_q q + W_k k); queries and keys may differ in size."""

    def __init__(self, key_size: int, query_size: int, num_hiddens: int, dropout: float, **kwargs: object):
        super().__init__(**kwargs)
        for name, size in (("key_size", key_size), ("query_size", query_size), ("num_hiddens", num_hiddens)):
            _positive_int(name, size)
        _probability("dropout", dropout)
        self.key_size, self.query_size = key_size, query_size
        self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.attention_weights: torch.Tensor | None = None

    def forward(
        self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, Q, d_q), (B, K, d_k), (B, K, d_v), lengths None/(B,)/(B, Q) -> (B, Q, d_v)."""
        check_qkv(queries, keys, values, (self.query_size, self.key_size, None))
        queries, keys = self.W_q(queries), self.W_k(keys)  # (B, Q, h), (B, K, h)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)  # (B, Q, 1, h) + (B, 1, K, h) -> (B, Q, K, h)
        scores = self.w_v(torch.tanh(features)).squeeze(-1)  # (B, Q, K, 1) -> (B, Q, K)
        self.attention_weights = masked_softmax(scores, valid_lens)  # (B, Q, K)
        return torch.bmm(self.dropout(self.attention_weights), values)  # (B, Q, K) @ (B, K, d_v) -> (B, Q, d_v)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention: softmax(Q K^T / sqrt(d)) V, with lengths masking the keys."""

    def __init__(self, dropout: float = 0.0, **kwargs: object):
        super().__init__(**kwargs)
        self.dropout = nn.Dropout(_probability("dropout", dropout))
        self.attention_weights: torch.Tensor | None = None

    def forward(
        self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, Q, d), (B, K, d), (B, K, d_v), lengths None/(B,)/(B, Q) -> (B, Q, d_v)."""
        check_qkv(queries, keys, values)
        d = queries.shape[-1]
        if keys.shape[-1] != d:
            raise ValueError(f"queries and keys must have the same feature size d, got {d} and {keys.shape[-1]}")
        scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)  # (B, Q, d) @ (B, d, K) -> (B, Q, K)
        self.attention_weights = masked_softmax(scores, valid_lens)  # (B, Q, K)
        return torch.bmm(self.dropout(self.attention_weights), values)  # (B, Q, K) @ (B, K, d_v) -> (B, Q, d_v)


def transpose_qkv(X: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, n, h) -> (B*H, n, h/H): split the features into H heads and fold the heads into the batch."""
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch.Tensor of shape (B, n, h), got {type(X).__name__}")
    if X.dim() != 3:
        raise ValueError(f"X must be a 3-D tensor (B, n, h), got shape {tuple(X.shape)}")
    if not isinstance(num_heads, int) or num_heads < 1 or X.shape[2] % num_heads:
        raise ValueError(f"num_heads must be a positive int dividing the feature size {X.shape[2]}, got {num_heads!r}")
    B, n, h = X.shape  # batch, positions, hidden
    X = X.reshape(B, n, num_heads, h // num_heads)  # (B, n, H, h/H)
    X = X.permute(0, 2, 1, 3)  # (B, H, n, h/H)
    return X.reshape(B * num_heads, n, h // num_heads)  # (B*H, n, h/H)


def transpose_output(X: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B*H, n, h/H) -> (B, n, h): the inverse of `transpose_qkv`."""
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch.Tensor of shape (B*H, n, h/H), got {type(X).__name__}")
    if X.dim() != 3:
        raise ValueError(f"X must be a 3-D tensor (B*H, n, h/H), got shape {tuple(X.shape)}")
    if not isinstance(num_heads, int) or num_heads < 1 or X.shape[0] % num_heads:
        raise ValueError(f"num_heads must be a positive int dividing the first axis {X.shape[0]}, got {num_heads!r}")
    BH, n, d = X.shape  # batch*heads, positions, per-head size
    X = X.reshape(BH // num_heads, num_heads, n, d)  # (B, H, n, h/H)
    X = X.permute(0, 2, 1, 3)  # (B, n, H, h/H)
    return X.reshape(BH // num_heads, n, num_heads * d)  # (B, n, h)


class MultiHeadAttention(nn.Module):
    """H scaled dot-product heads over learned projections W_q, W_k, W_v of size num_hiddens/H each, mixed by W_o."""

    def __init__(
        self,
        key_size: int,
        query_size: int,
        value_size: int,
        num_hiddens: int,
        num_heads: int,
        dropout: float,
        bias: bool = False,
        **kwargs: object,
    ):
        super().__init__(**kwargs)
        for name, size in (
            ("key_size", key_size),
            ("query_size", query_size),
            ("value_size", value_size),
            ("num_hiddens", num_hiddens),
            ("num_heads", num_heads),
        ):
            _positive_int(name, size)
        _probability("dropout", dropout)
        if num_hiddens % num_heads:
            raise ValueError(
                f"num_hiddens={num_hiddens} must be divisible by num_heads={num_heads}: each head gets "
                f"num_hiddens // num_heads features"
            )
        self.num_heads = num_heads
        self.sizes = (query_size, key_size, value_size)
        self.attention = DotProductAttention(dropout)
        self.W_q = nn.Linear(query_size, num_hiddens, bias=bias)
        self.W_k = nn.Linear(key_size, num_hiddens, bias=bias)
        self.W_v = nn.Linear(value_size, num_hiddens, bias=bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    @property
    def attention_weights(self) -> torch.Tensor | None:
        """Per-head weights of the last call, (B*H, Q, K) as d2l keeps them."""
        return self.attention.attention_weights

    @property
    def head_weights(self) -> torch.Tensor | None:
        """Per-head weights of the last call, (B, H, Q, K)."""
        w = self.attention.attention_weights
        return None if w is None else w.reshape(-1, self.num_heads, *w.shape[1:])  # (B*H, Q, K) -> (B, H, Q, K)

    def forward(
        self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, Q, d_q), (B, K, d_k), (B, K, d_v), lengths None/(B,)/(B, Q) -> (B, Q, num_hiddens)."""
        check_qkv(queries, keys, values, self.sizes)
        if valid_lens is not None:
            # Validate against the un-split batch so errors speak of B, not B*H.
            check_valid_lens(valid_lens, queries.shape[0], queries.shape[1], keys.shape[1], queries.device)
            valid_lens = torch.repeat_interleave(valid_lens, self.num_heads, dim=0)  # (B*H,) or (B*H, Q)
        queries = transpose_qkv(self.W_q(queries), self.num_heads)  # (B, Q, h) -> (B*H, Q, h/H)
        keys = transpose_qkv(self.W_k(keys), self.num_heads)  # (B, K, h) -> (B*H, K, h/H)
        values = transpose_qkv(self.W_v(values), self.num_heads)  # (B, K, h) -> (B*H, K, h/H)
        output = self.attention(queries, keys, values, valid_lens)  # (B*H, Q, h/H)
        return self.W_o(transpose_output(output, self.num_heads))  # (B, Q, h) -> (B, Q, h)
