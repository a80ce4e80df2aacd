"""Masks from lengths: `sequence_mask`, `valid_lens_to_mask` and `masked_softmax`.

Vocabulary used in the shape comments: B batch, Q queries, K keys.
A *valid length* ``n`` means "the first ``n`` keys are real, the rest is padding". Lengths are integer tensors;
a float tensor of whole numbers (d2l-en builds some as float32) is accepted and read as integers.
Boolean masks returned here follow `F.scaled_dot_product_attention`: True = may attend.
"""

from __future__ import annotations

import math

import torch

from ._validate import computable, describe, int_at_least, real, tensor
from ._validate import device as _device

__all__ = ["check_valid_lens", "masked_softmax", "sequence_mask", "valid_lens_to_mask"]

_INTEGER_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def _count(length: int | float) -> int | str:
    """A length read from a tensor, as errors show it: an int, or a float such as 1e+30, too large for int64."""
    return int(length) if abs(length) < 2**63 else f"{length:g}"


def _whole_numbers(valid_lens: torch.Tensor, name: str) -> None:
    """A float tensor of lengths: a ValueError unless every one is a whole number."""
    if valid_lens.device.type == "meta":  # no values to look at; the device check reports the mismatch
        return
    finite = valid_lens.isfinite()
    if not bool(finite.all()):
        bad = valid_lens[~finite][0].item()
        raise ValueError(f"{name} must hold whole numbers of keys, got {bad}")
    whole = valid_lens == valid_lens.round()
    if not bool(whole.all()):
        bad = valid_lens[~whole][0].item()
        raise ValueError(
            f"{name} must hold whole numbers of keys, got {bad}; a float tensor of lengths is read as integers "
            f"only when every entry is whole (e.g. torch.tensor([2., 3.]))"
        )


def check_valid_lens(
    valid_lens: object,
    batch_size: int,
    num_queries: int | None,
    num_keys: int,
    device: torch.device | str | None = None,
    name: str = "valid_lens",
    *,
    allow_float: bool = False,
) -> torch.Tensor:
    """Validate lengths (B,) or, when `num_queries` is given, (B, Q), with values in [0, K]; returns them.

    `device` (None: any) is where the scores are. With `allow_float`, a float tensor of whole numbers is accepted and
    comes back as int64 (callers then use the returned tensor); without, float lengths are a TypeError.
    """
    sizes = {"batch_size": batch_size, "num_keys": num_keys}
    if num_queries is not None:
        sizes["num_queries"] = num_queries
    for arg, value in sizes.items():  # types first; the values (>= 0) once the lengths' shape is known good
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{arg} must be an int >= 0, got {describe(value)}")
    where = None if device is None else _device("device", device)
    shapes = "(B,)" if num_queries is None else "(B,) or (B, Q)"
    if not isinstance(valid_lens, torch.Tensor):
        raise TypeError(
            f"{name} must be an integer torch.Tensor of shape {shapes}, got {describe(valid_lens)}; "
            f"wrap it, e.g. torch.tensor([2, 3])"
        )
    computable(name, valid_lens)
    if valid_lens.dtype not in _INTEGER_DTYPES and not (allow_float and valid_lens.is_floating_point()):
        raise TypeError(
            f"{name} must hold integers (torch.int64 or another integer dtype), got {valid_lens.dtype}; "
            f"lengths count keys, so e.g. torch.tensor([2, 3]) rather than a float or bool tensor"
        )
    if where is not None and valid_lens.device != where:
        raise ValueError(f"{name} is on {valid_lens.device} but the scores are on {where}; move it with .to(X.device)")
    if valid_lens.dim() not in ((1,) if num_queries is None else (1, 2)):
        raise ValueError(f"{name} must have shape {shapes}, got {valid_lens.dim()}-D shape {tuple(valid_lens.shape)}")
    for arg, value in sizes.items():
        int_at_least(arg, value, 0)
    expected_2d = None if num_queries is None else (batch_size, num_queries)
    if valid_lens.dim() == 1:
        if valid_lens.shape[0] != batch_size:
            raise ValueError(
                f"{name} of shape {tuple(valid_lens.shape)} has {valid_lens.shape[0]} lengths but the batch has "
                f"B={batch_size} rows; expected shape ({batch_size},)"
            )
    elif tuple(valid_lens.shape) != expected_2d:  # 2-D
        hint = ""
        if tuple(valid_lens.shape) == expected_2d[::-1]:
            hint = " (it looks transposed: lengths are indexed [batch, query])"
        raise ValueError(
            f"{name} of shape {tuple(valid_lens.shape)} does not match the scores: expected (B,) = ({batch_size},) "
            f"or (B, Q) = {expected_2d}{hint}"
        )
    if valid_lens.is_floating_point():
        _whole_numbers(valid_lens, name)  # converted once their range is known good: 1e30 would wrap around in int64
    if valid_lens.numel() and valid_lens.device.type != "meta":
        low, high = valid_lens.min().item(), valid_lens.max().item()  # ints, or whole floats (3.0, even 1e+30)
        if low < 0:
            raise ValueError(f"{name} must be >= 0, got a negative length {_count(low)}")
        if high > num_keys:
            raise ValueError(
                f"{name} must be <= the number of keys K={num_keys}, got {_count(high)}; a length longer than the sequence "
                f"would be clamped silently elsewhere"
            )
    return valid_lens.long() if valid_lens.is_floating_point() else valid_lens


def valid_lens_to_mask(valid_lens: torch.Tensor, num_queries: int, num_keys: int) -> torch.Tensor:
    """Lengths (B,) or (B, Q) -> a new boolean mask (B, Q, K), True where a query may attend (the SDPA convention)."""
    num_queries = int_at_least("num_queries", num_queries, 0)
    num_keys = int_at_least("num_keys", num_keys, 0)
    tensor("valid_lens", valid_lens, dims=(1, 2), shape="(B,) or (B, Q)")
    batch_size = valid_lens.shape[0]
    valid_lens = check_valid_lens(valid_lens, batch_size, num_queries, num_keys, allow_float=True)
    return _keep(valid_lens, num_queries, num_keys)


def _keep(valid_lens: torch.Tensor, num_queries: int, num_keys: int) -> torch.Tensor:
    """Checked integer lengths (B,) or (B, Q) -> boolean mask (B, Q, K) in its own, writable memory."""
    lens = valid_lens[:, None] if valid_lens.dim() == 1 else valid_lens  # (B, 1) or (B, Q)
    positions = torch.arange(num_keys, device=valid_lens.device)  # (K,)
    keep = positions < lens[..., None]  # (B, 1 or Q, 1) vs (K,) -> (B, 1 or Q, K)
    return keep.expand(valid_lens.shape[0], num_queries, num_keys).contiguous()  # (B, Q, K), not a view


def _fill_value(value: object, dtype: torch.dtype) -> float | int | bool:
    """`sequence_mask`'s fill for a tensor of `dtype`: floats are clamped to the dtype's finite range."""
    if dtype == torch.bool:
        if not isinstance(value, bool) and value not in (0, 1):
            raise ValueError(f"value must be True/False (or 0/1) for a bool X, got {describe(value)}")
        return bool(value)
    if dtype.is_complex and isinstance(value, complex):
        return value
    value = real("value", value, finite=False)
    if dtype.is_complex:
        return value
    if dtype.is_floating_point:
        if math.isnan(value):
            return value
        info = torch.finfo(dtype)
        # d2l fills with -1e6, which float16 cannot hold: the most negative finite float16 plays the same part.
        return min(max(value, info.min), info.max) if math.isfinite(value) else value
    info = torch.iinfo(dtype)
    if not (math.isfinite(value) and value == int(value) and info.min <= value <= info.max):
        raise ValueError(
            f"value must be a whole number in [{info.min}, {info.max}] for X of dtype {dtype}, got {value}"
        )
    return int(value)


def sequence_mask(X: torch.Tensor, valid_len: torch.Tensor, value: float = 0) -> torch.Tensor:
    """X (N, K, ...) -> a new tensor with X[i, j, ...] = value wherever j >= valid_len[i]; X is left untouched.

    For a floating X, a finite `value` beyond the dtype's range is clamped to it (d2l's -1e6 becomes -65504 in
    float16, the most negative float16); an integer X needs a whole `value` its dtype can hold.
    """
    tensor("X", X, shape="(N, K, ...)")
    if X.dim() < 2:
        raise ValueError(f"X must have at least 2 dimensions (N, K), got shape {tuple(X.shape)}")
    N, K = X.shape[:2]  # rows, positions
    valid_len = check_valid_lens(valid_len, N, None, K, X.device, name="valid_len", allow_float=True)
    fill = _fill_value(value, X.dtype)
    keep = torch.arange(K, device=X.device)[None, :] < valid_len[:, None]  # (1, K) vs (N, 1) -> (N, K)
    keep = keep.reshape(N, K, *([1] * (X.dim() - 2)))  # (N, K, 1, ...) to broadcast over trailing dims
    return X.masked_fill(~keep, fill)


def masked_softmax(X: torch.Tensor, valid_lens: torch.Tensor | None = None) -> torch.Tensor:
    """Scores X (B, Q, K), lengths None, (B,) or (B, Q) -> weights (B, Q, K); masked keys get exactly 0, empty rows all 0."""
    tensor("X", X, dims=3, shape="(B, Q, K) of scores", floating=True)
    B, Q, K = X.shape  # batch, queries, keys
    if valid_lens is None:
        return torch.softmax(X, dim=-1)  # (B, Q, K)
    valid_lens = check_valid_lens(valid_lens, B, Q, K, X.device, allow_float=True)
    keep = _keep(valid_lens, Q, K)  # (B, Q, K), True = may attend
    # Masked keys get -inf, so they weigh exactly 0 whatever the scores are (even scores at the dtype's minimum).
    # A row with no valid key would be all -inf (NaN): it gets zeros instead, then its weights are set to 0, so it
    # comes out all zeros with zero, finite gradients. torch.where never lets a masked score (even NaN) through.
    empty = ~keep.any(dim=-1, keepdim=True)  # (B, Q, 1)
    fill = torch.where(empty, 0.0, float("-inf")).to(X.dtype)  # (B, Q, 1)
    filled = torch.where(keep, X, fill)  # (B, Q, K), a new tensor
    return torch.softmax(filled, dim=-1).masked_fill(~keep, 0.0)  # (B, Q, K)
