"""Transformer building blocks as a widely read third-party PyTorch implementation writes them, and positional encoding.

`ScaledDotProductAttention`, `MultiHeadAttentionSublayer` and `PositionwiseFeedForward` follow the
"attention-is-all-you-need-pytorch" repository (not the paper's own code): per-head sizes `d_k`, `d_v`, a
`temperature` sqrt(d_k), a mask where 0 means "may not attend", and the paper's sublayer wrapper,
LayerNorm(x + Sublayer(x)), inside each module. Like that code they leave their inputs
unchanged; unlike it they fill masked scores with the dtype's minimum rather than -1e9 (which float16 cannot hold).
Every forward checks its inputs (shapes, one device and dtype, the layer's own) before computing anything.
`PositionalEncoding` is d2l-en's module (`.P` of shape (1, max_len, num_hiddens)), built on `positional_encoding`.
Vocabulary: B batch, H heads, Q queries, K keys, n positions, d_model the width of the residual stream.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    floating_tensor,
    int_at_least,
    matches_module,
    positive_int,
    probability,
    real,
    same_device_and_dtype,
    tensor,
)

__all__ = [
    "MultiHeadAttentionSublayer",
    "PositionalEncoding",
    "PositionwiseFeedForward",
    "ScaledDotProductAttention",
    "positional_encoding",
]


def positional_encoding(num_steps: int, num_hiddens: int) -> torch.Tensor:
    """Sinusoidal encoding (num_steps, num_hiddens): P[i, 2j] = sin(i / 10000^(2j/d)), P[i, 2j+1] = cos(same)."""
    int_at_least("num_steps", num_steps, 0)
    positive_int("num_hiddens", num_hiddens)
    positions = torch.arange(num_steps, dtype=torch.float64)[:, None]  # (n, 1)
    frequencies = 10000 ** (torch.arange(0, num_hiddens, 2, dtype=torch.float64) / num_hiddens)  # (ceil(d/2),)
    angles = positions / frequencies  # (n, 1) / (ceil(d/2),) -> (n, ceil(d/2))
    P = torch.empty(num_steps, num_hiddens, dtype=torch.float64)
    P[:, 0::2] = torch.sin(angles)  # even columns
    P[:, 1::2] = torch.cos(angles[:, : num_hiddens // 2])  # odd columns (one fewer when d is odd)
    return P.float()  # (n, d)


class PositionalEncoding(nn.Module):
    """d2l-en's module: X (B, n, num_hiddens) -> dropout(X + P[:, :n]), with `.P` (1, max_len, num_hiddens).

    `.P[0]` equals `positional_encoding(max_len, num_hiddens)`; it is a buffer, so `.to(device)` moves it, and it
    is added in the input's dtype.
    """

    def __init__(self, num_hiddens: int, dropout: float, max_len: int = 1000):
        super().__init__()
        self.num_hiddens = positive_int("num_hiddens", num_hiddens)
        self.max_len = positive_int("max_len", max_len)
        self.dropout = nn.Dropout(probability("dropout", dropout))
        self.register_buffer("P", positional_encoding(max_len, num_hiddens)[None], persistent=False)  # (1, L, d)

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        """(B, n, num_hiddens) with n <= max_len -> (B, n, num_hiddens)."""
        floating_tensor("X", X, dims=3, shape="(B, n, num_hiddens)")
        if X.shape[-1] != self.num_hiddens:
            raise ValueError(
                f"X has {X.shape[-1]} features but the encoding was built with num_hiddens={self.num_hiddens}"
            )
        if X.shape[1] > self.max_len:
            raise ValueError(
                f"X has {X.shape[1]} positions but the encoding was built with max_len={self.max_len}; "
                f"build it with a larger max_len"
            )
        P = self.P[:, : X.shape[1], :].to(X.device, X.dtype)  # (1, n, d)
        return self.dropout(X + P)  # (B, n, d)


def _check_heads(q: object, k: object, v: object) -> None:
    """q (..., Q, d_k), k (..., K, d_k), v (..., K, d_v): the same leading axes, device and dtype; d_k >= 1."""
    for name, X, shape in (("q", q, "(..., Q, d_k)"), ("k", k, "(..., K, d_k)"), ("v", v, "(..., K, d_v)")):
        floating_tensor(name, X, shape=shape)
        if X.dim() < 2:
            raise ValueError(
                f"q, k and v must have at least 2 dimensions {shape}, got {name} of shape {tuple(X.shape)}"
            )
    same_device_and_dtype([("q", q), ("k", k), ("v", v)])
    if not q.shape[:-2] == k.shape[:-2] == v.shape[:-2]:
        raise ValueError(
            f"q, k and v must share their leading axes (B, H, ...), got shapes {tuple(q.shape)}, {tuple(k.shape)}, "
            f"{tuple(v.shape)}"
        )
    if q.shape[-1] != k.shape[-1] or q.shape[-1] == 0:
        raise ValueError(f"q and k must have the same feature size d_k >= 1, got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"k and v must have as many positions, got K={k.shape[-2]} and {v.shape[-2]}")


def _check_sublayer_inputs(layer: MultiHeadAttentionSublayer, q: object, k: object, v: object) -> None:
    """q (B, Q, d_model), k and v (B, K, d_model), on the layer's device and dtype."""
    for name, X, shape in (("q", q, "(B, Q, d_model)"), ("k", k, "(B, K, d_model)"), ("v", v, "(B, K, d_model)")):
        floating_tensor(name, X, dims=3, shape=shape)
        if X.shape[-1] != layer.d_model:
            raise ValueError(f"{name} has {X.shape[-1]} features but the layer was built with d_model={layer.d_model}")
    same_device_and_dtype([("q", q), ("k", k), ("v", v)])
    matches_module([("q", q), ("k", k), ("v", v)], layer)
    if not q.shape[0] == k.shape[0] == v.shape[0]:
        raise ValueError(f"q, k and v must share the batch size B, got {q.shape[0]}, {k.shape[0]} and {v.shape[0]}")
    if k.shape[1] != v.shape[1]:
        raise ValueError(f"k and v must have as many positions, got K={k.shape[1]} and {v.shape[1]}")


class ScaledDotProductAttention(nn.Module):
    """softmax(q k^T / temperature) v on (..., Q, d_k), (..., K, d_k), (..., K, d_v); mask == 0 means "may not attend"."""

    def __init__(self, temperature: float, attn_dropout: float = 0.1):
        super().__init__()
        self.temperature = real("temperature", temperature, low=0.0, low_open=True)  # usually sqrt(d_k)
        self.dropout = nn.Dropout(probability("attn_dropout", attn_dropout))

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, H, Q, d_k), (B, H, K, d_k), (B, H, K, d_v), mask broadcastable to (B, H, Q, K) -> output, weights."""
        _check_heads(q, k, v)
        attn = torch.matmul(q / self.temperature, k.transpose(-2, -1))  # (..., Q, d_k) @ (..., d_k, K) -> (..., Q, K)
        if mask is not None:
            tensor("mask", mask, shape="broadcastable to (..., Q, K), 1 or True = may attend")
            if mask.device != attn.device:
                raise ValueError(f"mask is on {mask.device} but q, k and v are on {attn.device}; move it with .to()")
            try:
                torch.broadcast_shapes(mask.shape, attn.shape)
            except RuntimeError:
                raise ValueError(
                    f"mask of shape {tuple(mask.shape)} does not broadcast to the scores {tuple(attn.shape)}"
                ) from None
            attn = attn.masked_fill(mask == 0, torch.finfo(attn.dtype).min)  # a new tensor; the original: -1e9
        attn = self.dropout(F.softmax(attn, dim=-1))  # (..., Q, K)
        return torch.matmul(attn, v), attn  # (..., Q, K) @ (..., K, d_v) -> (..., Q, d_v)


class MultiHeadAttentionSublayer(nn.Module):
    """LayerNorm(q + dropout(fc(heads))): n_head heads of sizes d_k (queries, keys) and d_v (values) on width d_model."""

    def __init__(self, n_head: int, d_model: int, d_k: int, d_v: int, dropout: float = 0.1):
        super().__init__()
        for name, value in (("n_head", n_head), ("d_model", d_model), ("d_k", d_k), ("d_v", d_v)):
            positive_int(name, value)
        self.n_head, self.d_model, self.d_k, self.d_v = n_head, d_model, d_k, d_v
        self.w_qs = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_ks = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_vs = nn.Linear(d_model, n_head * d_v, bias=False)
        self.fc = nn.Linear(n_head * d_v, d_model, bias=False)
        self.attention = ScaledDotProductAttention(temperature=d_k**0.5)
        self.dropout = nn.Dropout(probability("dropout", dropout))
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-6)

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, Q, d_model), (B, K, d_model) twice, mask (B, 1 or Q, K) -> output (B, Q, d_model), weights (B, H, Q, K)."""
        _check_sublayer_inputs(self, q, k, v)
        B, Q, K = q.shape[0], q.shape[1], k.shape[1]  # batch, queries, keys
        H, d_k, d_v = self.n_head, self.d_k, self.d_v
        residual = q
        q = self.w_qs(q).view(B, Q, H, d_k).transpose(1, 2)  # (B, Q, H*d_k) -> (B, H, Q, d_k)
        k = self.w_ks(k).view(B, K, H, d_k).transpose(1, 2)  # (B, K, H*d_k) -> (B, H, K, d_k)
        v = self.w_vs(v).view(B, K, H, d_v).transpose(1, 2)  # (B, K, H*d_v) -> (B, H, K, d_v)
        if mask is not None:
            tensor("mask", mask, dims=3, shape="(B, 1 or Q, K)")
            mask = mask.unsqueeze(1)  # (B, 1, 1 or Q, K): the same mask for every head
        output, attn = self.attention(q, k, v, mask=mask)  # (B, H, Q, d_v), (B, H, Q, K)
        output = output.transpose(1, 2).reshape(B, Q, H * d_v)  # (B, Q, H, d_v) -> (B, Q, H*d_v)
        output = self.dropout(self.fc(output))  # (B, Q, d_model)
        return self.layer_norm(output + residual), attn  # residual connection, then LayerNorm


class PositionwiseFeedForward(nn.Module):
    """LayerNorm(x + dropout(w_2(relu(w_1(x))))): the paper's FFN (eq. 2) on every position, inside the wrapper."""

    def __init__(self, d_in: int, d_hid: int, dropout: float = 0.1):
        super().__init__()
        self.d_in = positive_int("d_in", d_in)
        positive_int("d_hid", d_hid)
        self.w_1 = nn.Linear(d_in, d_hid)
        self.w_2 = nn.Linear(d_hid, d_in)
        self.layer_norm = nn.LayerNorm(d_in, eps=1e-6)
        self.dropout = nn.Dropout(probability("dropout", dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, d_in) -> (B, n, d_in)."""
        floating_tensor("x", x, dims=3, shape="(B, n, d_in)")
        if x.shape[-1] != self.d_in:
            raise ValueError(f"x has {x.shape[-1]} features but the layer was built with d_in={self.d_in}")
        matches_module([("x", x)], self)
        hidden = F.relu(self.w_1(x))  # (B, n, d_hid)
        return self.layer_norm(x + self.dropout(self.w_2(hidden)))  # (B, n, d_in)
