"""Masks from lengths: `sequence_mask`, `valid_lens_to_mask` and `masked_softmax`.

Vocabulary used in the shape comments: B batch, Q queries, K keys.
A *valid length* ``n`` means "the first ``n`` keys are real, the rest is padding".
Boolean masks returned here follow `F.scaled_dot_product_attention`: True = may attend.
"""

from __future__ import annotations

import torch

__all__ = ["check_valid_lens", "masked_softmax", "sequence_mask", "valid_lens_to_mask"]

_INTEGER_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def _describe(obj: object) -> str:
    """Name an argument's type (and dtype/shape for tensors) for an error message."""
    if isinstance(obj, torch.Tensor):
        return f"a {obj.dtype} tensor of shape {tuple(obj.shape)}"
    return f"{type(obj).__name__} {obj!r}" if isinstance(obj, (list, tuple, int, float)) else type(obj).__name__


def check_valid_lens(
    valid_lens: object,
    batch_size: int,
    num_queries: int | None,
    num_keys: int,
    device: torch.device,
    name: str = "valid_lens",
) -> torch.Tensor:
    """Validate lengths: an integer tensor of shape (B,) or, when `num_queries` is given, (B, Q); values in [0, K]."""
    shapes = "(B,)" if num_queries is None else "(B,) or (B, Q)"
    if not isinstance(valid_lens, torch.Tensor):
        raise TypeError(
            f"{name} must be an integer torch.Tensor of shape {shapes}, got {_describe(valid_lens)}; "
            f"wrap it, e.g. torch.tensor([2, 3])"
        )
    if valid_lens.dtype not in _INTEGER_DTYPES:
        raise TypeError(
            f"{name} must hold integers (torch.int64 or another integer dtype), got {valid_lens.dtype}; "
            f"lengths count keys, so e.g. torch.tensor([2, 3]) rather than a float or bool tensor"
        )
    if valid_lens.device != device:
        raise ValueError(f"{name} is on {valid_lens.device} but the scores are on {device}; move it with .to(X.device)")
    expected_2d = None if num_queries is None else (batch_size, num_queries)
    if valid_lens.dim() == 1:
        if valid_lens.shape[0] != batch_size:
            raise ValueError(
                f"{name} of shape {tuple(valid_lens.shape)} has {valid_lens.shape[0]} lengths but the batch has "
                f"B={batch_size} rows; expected shape ({batch_size},)"
            )
    elif valid_lens.dim() == 2 and expected_2d is not None:
        if tuple(valid_lens.shape) != expected_2d:
            hint = ""
            if tuple(valid_lens.shape) == expected_2d[::-1]:
                hint = " (it looks transposed: lengths are indexed [batch, query])"
            raise ValueError(
                f"{name} of shape {tuple(valid_lens.shape)} does not match the scores: expected (B,) = ({batch_size},) "
                f"or (B, Q) = {expected_2d}{hint}"
            )
    else:
        raise ValueError(f"{name} must have shape {shapes}, got {valid_lens.dim()}-D shape {tuple(valid_lens.shape)}")
    if valid_lens.numel():
        low, high = int(valid_lens.min()), int(valid_lens.max())
        if low < 0:
            raise ValueError(f"{name} must be >= 0, got a negative length {low}")
        if high > num_keys:
            raise ValueError(
                f"{name} must be <= the number of keys K={num_keys}, got {high}; a length longer than the sequence "
                f"would be clamped silently elsewhere"
            )
    return valid_lens


def valid_lens_to_mask(valid_lens: torch.Tensor, num_queries: int, num_keys: int) -> torch.Tensor:
    """Lengths (B,) or (B, Q) -> boolean mask (B, Q, K), True where a query may attend (the SDPA convention)."""
    if not isinstance(num_queries, int) or not isinstance(num_keys, int) or num_queries < 0 or num_keys < 0:
        raise TypeError(f"num_queries and num_keys must be ints >= 0, got {num_queries!r} and {num_keys!r}")
    if not isinstance(valid_lens, torch.Tensor):
        raise TypeError(
            f"valid_lens must be an integer torch.Tensor of shape (B,) or (B, Q), got {_describe(valid_lens)}"
        )
    batch_size = valid_lens.shape[0] if valid_lens.dim() else 0
    check_valid_lens(valid_lens, batch_size, num_queries, num_keys, valid_lens.device)
    lens = valid_lens[:, None] if valid_lens.dim() == 1 else valid_lens  # (B, 1) or (B, Q)
    positions = torch.arange(num_keys, device=valid_lens.device)  # (K,)
    keep = positions < lens[..., None]  # (B, 1 or Q, 1) vs (K,) -> (B, 1 or Q, K)
    return keep.expand(batch_size, num_queries, num_keys)  # (B, Q, K)


def sequence_mask(X: torch.Tensor, valid_len: torch.Tensor, value: float = 0) -> torch.Tensor:
    """X (N, K, ...) -> a new tensor with X[i, j, ...] = value wherever j >= valid_len[i]; X is left untouched."""
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch.Tensor of shape (N, K, ...), got {_describe(X)}")
    if X.dim() < 2:
        raise ValueError(f"X must have at least 2 dimensions (N, K), got shape {tuple(X.shape)}")
    N, K = X.shape[:2]  # rows, positions
    check_valid_lens(valid_len, N, None, K, X.device, name="valid_len")
    keep = torch.arange(K, device=X.device)[None, :] < valid_len[:, None]  # (1, K) vs (N, 1) -> (N, K)
    keep = keep.reshape(N, K, *([1] * (X.dim() - 2)))  # (N, K, 1, ...) to broadcast over trailing dims
    return X.masked_fill(~keep, value)


def masked_softmax(X: torch.Tensor, valid_lens: torch.Tensor | None = None) -> torch.Tensor:
    """Scores X (B, Q, K), lengths None, (B,) or (B, Q) -> weights (B, Q, K); masked keys get exactly 0, empty rows all 0."""
    if not isinstance(X, torch.Tensor):
        raise TypeError(f"X must be a torch.Tensor of scores with shape (B, Q, K), got {_describe(X)}")
    if not X.is_floating_point():
        raise TypeError(f"X must be a floating-point tensor of scores, got dtype {X.dtype}; use X.float()")
    if X.dim() != 3:
        raise ValueError(f"X must be 3-D scores of shape (B, Q, K), got shape {tuple(X.shape)}")
    B, Q, K = X.shape  # batch, queries, keys
    if valid_lens is None:
        return torch.softmax(X, dim=-1)  # (B, Q, K)
    check_valid_lens(valid_lens, B, Q, K, X.device)
    keep = valid_lens_to_mask(valid_lens, Q, K)  # (B, Q, K), True = may attend
    # Fill with the most negative value the dtype can hold (-1e6 overflows float16), softmax, then zero the masked
    # keys exactly: a row with no valid key becomes all zeros, with finite gradients, never NaN.
    filled = X.masked_fill(~keep, torch.finfo(X.dtype).min)  # (B, Q, K), a new tensor
    return torch.softmax(filled, dim=-1).masked_fill(~keep, 0.0)  # (B, Q, K)
