"""Transformer building blocks as the original paper's PyTorch implementations write them, and positional encoding.

`ScaledDotProductAttention`, `MultiHeadAttentionSublayer` and `PositionwiseFeedForward` follow the widely read
"attention-is-all-you-need-pytorch" code: per-head sizes `d_k`, `d_v`, a `temperature` sqrt(d_k), a mask where
0 means "may not attend", and residual + LayerNorm inside each sublayer. Unlike that code they never modify
their inputs and fill with the dtype's minimum rather than -1e9 (which float16 cannot hold).
Vocabulary: B batch, H heads, Q queries, K keys, n positions, d_model the width of the residual stream.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .layers import _positive_int

__all__ = ["MultiHeadAttentionSublayer", "PositionwiseFeedForward", "ScaledDotProductAttention", "positional_encoding"]


def positional_encoding(num_steps: int, num_hiddens: int) -> torch.Tensor:
    """Sinusoidal encoding (num_steps, num_hiddens): P[i, 2j] = sin(i / 10000^(2j/d)), P[i, 2j+1] = cos(same)."""
    _positive_int("num_steps", num_steps, 0)
    _positive_int("num_hiddens", num_hiddens)
    positions = torch.arange(num_steps, dtype=torch.float64)[:, None]  # (n, 1)
    frequencies = 10000 ** (torch.arange(0, num_hiddens, 2, dtype=torch.float64) / num_hiddens)  # (ceil(d/2),)
    angles = positions / frequencies  # (n, 1) / (ceil(d/2),) -> (n, ceil(d/2))
    P = torch.empty(num_steps, num_hiddens, dtype=torch.float64)
    P[:, 0::2] = torch.sin(angles)  # even columns
    P[:, 1::2] = torch.cos(angles[:, : num_hiddens // 2])  # odd columns (one fewer when d is odd)
    return P.float()  # (n, d)


class ScaledDotProductAttention(nn.Module):
    """softmax(q k^T / temperature) v on (..., Q, d_k), (..., K, d_k), (..., K, d_v); mask == 0 means "may not attend"."""

    def __init__(self, temperature: float, attn_dropout: float = 0.1):
        super().__init__()
        if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not temperature > 0:
            raise ValueError(f"temperature must be a positive number (usually sqrt(d_k)), got {temperature!r}")
        self.temperature = float(temperature)
        self.dropout = nn.Dropout(attn_dropout)

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, H, Q, d_k), (B, H, K, d_k), (B, H, K, d_v), mask broadcastable to (B, H, Q, K) -> output, weights."""
        attn = torch.matmul(q / self.temperature, k.transpose(-2, -1))  # (..., Q, d_k) @ (..., d_k, K) -> (..., Q, K)
        if mask is not None:
            if not isinstance(mask, torch.Tensor):
                raise TypeError(f"mask must be a torch.Tensor (1 or True = may attend), got {type(mask).__name__}")
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
            _positive_int(name, value)
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.w_qs = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_ks = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_vs = nn.Linear(d_model, n_head * d_v, bias=False)
        self.fc = nn.Linear(n_head * d_v, d_model, bias=False)
        self.attention = ScaledDotProductAttention(temperature=d_k**0.5)
        self.dropout = nn.Dropout(dropout)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-6)

    def forward(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, Q, d_model), (B, K, d_model) twice, mask (B, 1 or Q, K) -> output (B, Q, d_model), weights (B, H, Q, K)."""
        B, Q, K = q.shape[0], q.shape[1], k.shape[1]  # batch, queries, keys
        H, d_k, d_v = self.n_head, self.d_k, self.d_v
        residual = q
        q = self.w_qs(q).view(B, Q, H, d_k).transpose(1, 2)  # (B, Q, H*d_k) -> (B, H, Q, d_k)
        k = self.w_ks(k).view(B, K, H, d_k).transpose(1, 2)  # (B, K, H*d_k) -> (B, H, K, d_k)
        v = self.w_vs(v).view(B, K, H, d_v).transpose(1, 2)  # (B, K, H*d_v) -> (B, H, K, d_v)
        if mask is not None:
            if not isinstance(mask, torch.Tensor) or mask.dim() != 3:
                raise ValueError(f"mask must be a 3-D tensor (B, 1 or Q, K), got {getattr(mask, 'shape', mask)!r}")
            mask = mask.unsqueeze(1)  # (B, 1, 1 or Q, K): the same mask for every head
        output, attn = self.attention(q, k, v, mask=mask)  # (B, H, Q, d_v), (B, H, Q, K)
        output = output.transpose(1, 2).reshape(B, Q, H * d_v)  # (B, Q, H, d_v) -> (B, Q, H*d_v)
        output = self.dropout(self.fc(output))  # (B, Q, d_model)
        return self.layer_norm(output + residual), attn  # residual connection, then LayerNorm


class PositionwiseFeedForward(nn.Module):
    """LayerNorm(x + dropout(w_2(relu(w_1(x))))): the same two-layer MLP applied to every position on its own."""

    def __init__(self, d_in: int, d_hid: int, dropout: float = 0.1):
        super().__init__()
        _positive_int("d_in", d_in)
        _positive_int("d_hid", d_hid)
        self.w_1 = nn.Linear(d_in, d_hid)
        self.w_2 = nn.Linear(d_hid, d_in)
        self.layer_norm = nn.LayerNorm(d_in, eps=1e-6)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, d_in) -> (B, n, d_in)."""
        hidden = F.relu(self.w_1(x))  # (B, n, d_hid)
        return self.layer_norm(x + self.dropout(self.w_2(hidden)))  # (B, n, d_in)
