"""Attention as kernel regression (Nadaraya 1964, Watson 1964; d2l's "attention pooling"): notebook 0.

Keys are training inputs x_i, values their targets y_i, a query is a new input x. The Gaussian kernel of
bandwidth sigma scores each key, the scores are normalised with a softmax, and the prediction is the weighted
mean of the values: f(x) = sum_i softmax_i(-(x - x_i)^2 / (2 sigma^2)) y_i.
"""

from __future__ import annotations

import torch

from .. import _validate as check

__all__ = ["gaussian_scores", "nadaraya_watson", "nadaraya_watson_weights"]


def _points(value: object, name: str) -> torch.Tensor:
    return check.floating_tensor(name, value, dims=1, shape="(n,)")


def _bandwidth(bandwidth: object) -> float:
    return check.real("bandwidth", bandwidth, low=0.0, low_open=True)


def gaussian_scores(queries: torch.Tensor, keys: torch.Tensor, bandwidth: float) -> torch.Tensor:
    """Queries (Q,), keys (K,) -> scores (Q, K) = -(q - k)^2 / (2 bandwidth^2), in float32 or wider."""
    queries, keys = _points(queries, "queries"), _points(keys, "keys")
    check.same_device([("queries", queries), ("keys", keys)])  # dtypes may differ: promoted below
    sigma = _bandwidth(bandwidth)
    dtype = torch.promote_types(torch.promote_types(queries.dtype, keys.dtype), torch.float32)
    diff = queries.to(dtype)[:, None] - keys.to(dtype)[None, :]  # (Q, 1) - (1, K) -> (Q, K)
    if _moderate(sigma):
        return -(diff**2) / (2 * sigma**2)  # (Q, K)
    return (-((diff.double() / sigma) ** 2) / 2).to(dtype)  # (Q, K): 2 sigma^2 itself would overflow or underflow


def _moderate(sigma: float) -> bool:
    """2 sigma^2 is a normal float64 (neither inf, as from 1e200, nor 0 or subnormal, as from 1e-170)."""
    return 1e-150 < sigma < 1e150


def nadaraya_watson_weights(queries: torch.Tensor, keys: torch.Tensor, bandwidth: float) -> torch.Tensor:
    """Queries (Q,), keys (K,) -> weights (Q, K), each row a softmax over the keys (all zeros when K = 0)."""
    scores = gaussian_scores(queries, keys, bandwidth)  # (Q, K)
    dtype = torch.promote_types(queries.dtype, keys.dtype)
    if scores.shape[1] == 0:  # no keys: nothing to attend to, zero weights (an empty row)
        return scores.to(dtype)
    if bool(torch.isfinite(scores).all()) and _moderate(bandwidth):
        return torch.softmax(scores, dim=-1).to(dtype)  # (Q, K), computed in float32 at least: safe in half precision
    # A tiny bandwidth: the scores overflow to -inf (and softmax gives NaN) in float32 where float64 still holds
    # them. Each key's squared distance minus the nearest one's, divided by sigma twice (sigma^2 may underflow),
    # is 0 for the nearest key and -inf only for keys whose weight is 0 to float64 as well.
    diff = queries.double()[:, None] - keys.double()[None, :]  # (Q, K)
    gap = diff**2 - (diff**2).amin(dim=-1, keepdim=True)  # (Q, K), >= 0, 0 at the nearest key(s)
    e = torch.exp(-(gap / bandwidth / bandwidth) / 2)  # (Q, K), 1 at the nearest key(s)
    return (e / e.sum(dim=-1, keepdim=True)).to(dtype)  # (Q, K)


def nadaraya_watson(queries: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, bandwidth: float) -> torch.Tensor:
    """Queries (Q,), keys (K,), values (K,) -> predictions (Q,): the weighted mean of the values (0 when K = 0)."""
    values = _points(values, "values")
    _points(keys, "keys")
    check.same_device([("keys", keys), ("values", values)])
    if values.shape != keys.shape:
        raise ValueError(f"values must have the keys' shape {tuple(keys.shape)}, got {tuple(values.shape)}")
    weights = nadaraya_watson_weights(queries, keys, bandwidth)  # (Q, K)
    dtype = torch.promote_types(weights.dtype, values.dtype)
    wide = torch.promote_types(dtype, torch.float32)
    return (weights.to(wide) @ values.to(wide)).to(dtype)  # (Q, K) @ (K,) -> (Q,)
