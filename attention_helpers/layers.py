"""Attention layers built on `masked_softmax`: additive, scaled dot-product and multi-head.

Vocabulary: B batch, Q queries, K keys (= values), H heads, h hidden size; d_q, d_k, d_v feature sizes.
After a forward call each layer keeps its weights in `.attention_weights` (B, Q, K) (multi-head: (B*H, Q, K)).

`AdditiveAttention` and `MultiHeadAttention` take either edition's arguments of "Dive into Deep Learning":
d2l-zh's explicit sizes (key_size, query_size, ...) or d2l-en's (d2l.ai) inferred ones, where the input sizes are
read at the first call (`nn.LazyLinear`). Inputs must share one device and dtype with each other and the layer.
"""

from __future__ import annotations

import inspect
import math

import torch
from torch import nn

from ._validate import (
    boolean,
    describe,
    floating_tensor,
    matches_module,
    positive_int,
    probability,
    tensor,
    text,
)
from ._validate import same_device_and_dtype as _same_device_and_dtype
from .masking import check_valid_lens, masked_softmax

__all__ = [
    "AdditiveAttention",
    "DotProductAttention",
    "MultiHeadAttention",
    "check_qkv",
    "transpose_output",
    "transpose_qkv",
]


def _feature_size(layer: nn.Linear) -> int | None:
    """The input size a projection was built with, or None while a lazy one waits for its first call."""
    return None if isinstance(layer, nn.LazyLinear) or layer.in_features == 0 else layer.in_features


def check_qkv(
    queries: object,
    keys: object,
    values: object,
    sizes: tuple[int | None, int | None, int | None] = (None,) * 3,
    names: tuple[str, str, str] = ("query_size", "key_size", "value_size"),
) -> None:
    """Queries (B, Q, d_q), keys (B, K, d_k), values (B, K, d_v): one batch size, as many values as keys, one
    device and dtype, d_q and d_k >= 1, and feature sizes equal to `sizes` where given."""
    _triple("sizes", sizes, "(d_q, d_k, d_v), each an int >= 1 or None")
    _triple("names", names, "three str, the sizes' names in the error messages")
    for i, (size, name) in enumerate(zip(sizes, names, strict=True)):
        if size is not None:
            positive_int(f"sizes[{i}]", size)
        text(f"names[{i}]", name)
    for name, X, shape in (("queries", queries, "(B, Q, d_q)"), ("keys", keys, "(B, K, d_k)")):
        floating_tensor(name, X, dims=3, shape=shape)
        if X.shape[-1] == 0:
            raise ValueError(f"{name} must have at least one feature (d >= 1), got shape {tuple(X.shape)}")
    floating_tensor("values", values, dims=3, shape="(B, K, d_v)")
    _same_device_and_dtype([("queries", queries), ("keys", keys), ("values", values)])
    if not queries.shape[0] == keys.shape[0] == values.shape[0]:
        raise ValueError(
            f"queries, keys and values must share the batch size B, got {queries.shape[0]}, {keys.shape[0]}, "
            f"{values.shape[0]}"
        )
    if keys.shape[1] != values.shape[1]:
        raise ValueError(f"keys and values must have as many positions, got K={keys.shape[1]} and {values.shape[1]}")
    for arg, X, size, size_name in zip(
        ("queries", "keys", "values"), (queries, keys, values), sizes, names, strict=True
    ):
        if size is not None and X.shape[-1] != size:
            raise ValueError(f"{arg} has feature size {X.shape[-1]} but the layer was built with {size_name}={size}")


def _triple(name: str, value: object, expected: str) -> None:
    """Three entries in a tuple or list."""
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise TypeError(f"{name} must be {expected}, got {describe(value)}")


def _bind(cls_name: str, forms: dict[str, inspect.Signature], args: tuple, kwargs: dict) -> tuple[str, dict]:
    """Which edition's signature a constructor call fits, and its arguments by name; TypeError showing both."""
    for edition, signature in forms.items():
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            continue
        bound.apply_defaults()
        return edition, dict(bound.arguments)
    given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
    shown = "\n".join(f"  {cls_name}{signature}  ({edition})" for edition, signature in forms.items())
    raise TypeError(f"{cls_name}({given}) fits neither signature:\n{shown}")


def _signature(*names: str, **defaults: object) -> inspect.Signature:
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter(n, kind) for n in names]
    parameters += [inspect.Parameter(n, kind, default=d) for n, d in defaults.items()]
    return inspect.Signature(parameters)


_ADDITIVE_FORMS = {
    "d2l-zh, explicit sizes": _signature("key_size", "query_size", "num_hiddens", "dropout"),
    "d2l-en, sizes inferred at the first call": _signature("num_hiddens", "dropout"),
}
_MULTIHEAD_FORMS = {
    "d2l-zh, explicit sizes": _signature(
        "key_size", "query_size", "value_size", "num_hiddens", "num_heads", "dropout", bias=False
    ),
    "d2l-en, sizes inferred at the first call": _signature("num_hiddens", "num_heads", "dropout", bias=False),
}


def _projection(in_features: int | None, out_features: int, bias: bool) -> nn.Module:
    """nn.Linear when the input size is known, nn.LazyLinear (size read at the first call) when it is not."""
    if in_features is None:
        return nn.LazyLinear(out_features, bias=bias)
    return nn.Linear(in_features, out_features, bias=bias)


class AdditiveAttention(nn.Module):
    """Additive (Bahdanau) attention: score(q, k) = w_v^T tanh(W_q q + W_k k); queries and keys may differ in size.

    Two signatures, one per edition of d2l:
      AdditiveAttention(key_size, query_size, num_hiddens, dropout)   d2l-zh: W_q, W_k built for these sizes
      AdditiveAttention(num_hiddens, dropout)                         d2l-en: sizes read at the first call
    """

    def __init__(self, *args: object, **kwargs: object):
        super().__init__()
        self.edition, given = _bind("AdditiveAttention", _ADDITIVE_FORMS, args, kwargs)
        num_hiddens = positive_int("num_hiddens", given["num_hiddens"])
        key_size = given.get("key_size")
        query_size = given.get("query_size")
        if "key_size" in given:
            key_size, query_size = positive_int("key_size", key_size), positive_int("query_size", query_size)
        dropout = probability("dropout", given["dropout"])
        self.W_k = _projection(key_size, num_hiddens, bias=False)
        self.W_q = _projection(query_size, num_hiddens, bias=False)
        self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.attention_weights: torch.Tensor | None = None

    @property
    def key_size(self) -> int | None:
        """d_k: given (d2l-zh) or read at the first call (d2l-en; None before it)."""
        return _feature_size(self.W_k)

    @property
    def query_size(self) -> int | None:
        """d_q: given (d2l-zh) or read at the first call (d2l-en; None before it)."""
        return _feature_size(self.W_q)

    def forward(
        self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, Q, d_q), (B, K, d_k), (B, K, d_v), lengths None/(B,)/(B, Q) -> (B, Q, d_v)."""
        check_qkv(queries, keys, values, (self.query_size, self.key_size, None))
        matches_module([("queries", queries), ("keys", keys), ("values", values)], self)
        queries, keys = self.W_q(queries), self.W_k(keys)  # (B, Q, h), (B, K, h)
        features = queries.unsqueeze(2) + keys.unsqueeze(1)  # (B, Q, 1, h) + (B, 1, K, h) -> (B, Q, K, h)
        scores = self.w_v(torch.tanh(features)).squeeze(-1)  # (B, Q, K, 1) -> (B, Q, K)
        self.attention_weights = masked_softmax(scores, valid_lens)  # (B, Q, K)
        return torch.bmm(self.dropout(self.attention_weights), values)  # (B, Q, K) @ (B, K, d_v) -> (B, Q, d_v)


class DotProductAttention(nn.Module):
    """Scaled dot-product attention: softmax(Q K^T / sqrt(d)) V, with lengths masking the keys.

    The queries are scaled before the product, as `F.scaled_dot_product_attention` does, so large q and k stay
    finite in float16 (q = k = 16, d = 256: q.k = 65536 overflows float16; (q / 16).k = 4096 does not).
    """

    def __init__(self, dropout: float = 0.0, **kwargs: object):
        super().__init__(**kwargs)
        self.dropout = nn.Dropout(probability("dropout", dropout))
        self.attention_weights: torch.Tensor | None = None

    def forward(
        self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, Q, d), (B, K, d), (B, K, d_v), lengths None/(B,)/(B, Q) -> (B, Q, d_v)."""
        check_qkv(queries, keys, values)
        d = queries.shape[-1]
        if keys.shape[-1] != d:
            raise ValueError(f"queries and keys must have the same feature size d, got {d} and {keys.shape[-1]}")
        # Scale first, so the product stays in range; the scaled copy (B, Q, d) is freed as soon as bmm is done.
        scores = torch.bmm(queries / math.sqrt(d), keys.transpose(1, 2))  # (B, Q, d) @ (B, d, K) -> (B, Q, K)
        self.attention_weights = masked_softmax(scores, valid_lens)  # (B, Q, K)
        return torch.bmm(self.dropout(self.attention_weights), values)  # (B, Q, K) @ (B, K, d_v) -> (B, Q, d_v)


def transpose_qkv(X: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B, n, h) -> (B*H, n, h/H): split the features into H heads and fold the heads into the batch."""
    tensor("X", X, dims=3, shape="(B, n, h)")
    num_heads = positive_int("num_heads", num_heads)
    if X.shape[2] % num_heads:
        raise ValueError(f"num_heads={num_heads} must divide the feature size h={X.shape[2]} of X")
    B, n, h = X.shape  # batch, positions, hidden
    X = X.reshape(B, n, num_heads, h // num_heads)  # (B, n, H, h/H)
    X = X.permute(0, 2, 1, 3)  # (B, H, n, h/H)
    return X.reshape(B * num_heads, n, h // num_heads)  # (B*H, n, h/H)


def transpose_output(X: torch.Tensor, num_heads: int) -> torch.Tensor:
    """(B*H, n, h/H) -> (B, n, h): the inverse of `transpose_qkv`."""
    tensor("X", X, dims=3, shape="(B*H, n, h/H)")
    num_heads = positive_int("num_heads", num_heads)
    if X.shape[0] % num_heads:
        raise ValueError(f"num_heads={num_heads} must divide the first axis B*H={X.shape[0]} of X")
    BH, n, d = X.shape  # batch*heads, positions, per-head size
    X = X.reshape(BH // num_heads, num_heads, n, d)  # (B, H, n, h/H)
    X = X.permute(0, 2, 1, 3)  # (B, n, H, h/H)
    return X.reshape(BH // num_heads, n, num_heads * d)  # (B, n, h)


class MultiHeadAttention(nn.Module):
    """H scaled dot-product heads over learned projections W_q, W_k, W_v of size num_hiddens/H each, mixed by W_o.

    Two signatures, one per edition of d2l:
      MultiHeadAttention(key_size, query_size, value_size, num_hiddens, num_heads, dropout, bias=False)   d2l-zh
      MultiHeadAttention(num_hiddens, num_heads, dropout, bias=False)   d2l-en: input sizes read at the first call
    Either way the heads' weights are at `.attention.attention_weights` (B*H, Q, K), as in d2l, and `.head_weights`
    gives them as (B, H, Q, K).
    """

    def __init__(self, *args: object, **kwargs: object):
        super().__init__()
        self.edition, given = _bind("MultiHeadAttention", _MULTIHEAD_FORMS, args, kwargs)
        sizes = [given.get(name) for name in ("query_size", "key_size", "value_size")]
        if "key_size" in given:
            sizes = [positive_int(name, given[name]) for name in ("query_size", "key_size", "value_size")]
        num_hiddens = positive_int("num_hiddens", given["num_hiddens"])
        num_heads = positive_int("num_heads", given["num_heads"])
        dropout = probability("dropout", given["dropout"])
        bias = boolean("bias", given["bias"])
        if num_hiddens % num_heads:
            raise ValueError(
                f"num_hiddens={num_hiddens} must be divisible by num_heads={num_heads}: each head gets "
                f"num_hiddens // num_heads features"
            )
        self.num_heads = num_heads
        self.attention = DotProductAttention(dropout)
        self.W_q = _projection(sizes[0], num_hiddens, bias)
        self.W_k = _projection(sizes[1], num_hiddens, bias)
        self.W_v = _projection(sizes[2], num_hiddens, bias)
        self.W_o = nn.Linear(num_hiddens, num_hiddens, bias=bias)

    @property
    def sizes(self) -> tuple[int | None, int | None, int | None]:
        """(d_q, d_k, d_v): given (d2l-zh) or read at the first call (d2l-en; None before it)."""
        return _feature_size(self.W_q), _feature_size(self.W_k), _feature_size(self.W_v)

    @property
    def attention_weights(self) -> torch.Tensor | None:
        """Per-head weights of the last call, (B*H, Q, K) as d2l keeps them."""
        return self.attention.attention_weights

    @property
    def head_weights(self) -> torch.Tensor | None:
        """Per-head weights of the last call, (B, H, Q, K)."""
        w = self.attention.attention_weights
        return None if w is None else w.reshape(-1, self.num_heads, *w.shape[1:])  # (B*H, Q, K) -> (B, H, Q, K)

    def transpose_qkv(self, X: torch.Tensor) -> torch.Tensor:
        """(B, n, h) -> (B*H, n, h/H), as d2l-en's method; the free function `transpose_qkv` takes num_heads."""
        return transpose_qkv(X, self.num_heads)

    def transpose_output(self, X: torch.Tensor) -> torch.Tensor:
        """(B*H, n, h/H) -> (B, n, h), as d2l-en's method; the free function `transpose_output` takes num_heads."""
        return transpose_output(X, self.num_heads)

    def forward(
        self, queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, valid_lens: torch.Tensor | None = None
    ) -> torch.Tensor:
        """(B, Q, d_q), (B, K, d_k), (B, K, d_v), lengths None/(B,)/(B, Q) -> (B, Q, num_hiddens)."""
        check_qkv(queries, keys, values, self.sizes)
        matches_module([("queries", queries), ("keys", keys), ("values", values)], self)
        if valid_lens is not None:
            # Validate against the un-split batch so errors speak of B, not B*H.
            B, Q, K = queries.shape[0], queries.shape[1], keys.shape[1]  # batch, queries, keys
            valid_lens = check_valid_lens(valid_lens, B, Q, K, queries.device, allow_float=True)
            valid_lens = torch.repeat_interleave(valid_lens, self.num_heads, dim=0)  # (B*H,) or (B*H, Q)
        queries = self.transpose_qkv(self.W_q(queries))  # (B, Q, h) -> (B*H, Q, h/H)
        keys = self.transpose_qkv(self.W_k(keys))  # (B, K, h) -> (B*H, K, h/H)
        values = self.transpose_qkv(self.W_v(values))  # (B, K, h) -> (B*H, K, h/H)
        output = self.attention(queries, keys, values, valid_lens)  # (B*H, Q, h/H)
        return self.W_o(self.transpose_output(output))  # (B, Q, h) -> (B, Q, h)
