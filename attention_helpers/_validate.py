"""One place for argument checks: every public function rejects bad input with a `TypeError` (wrong type) or a
`ValueError` (wrong value or shape) whose message names the argument, says what was expected and what was given.

Each check returns the value it accepted (converted where that is lossless, e.g. an int to a float), so callers
write `size = positive_int("num_hiddens", num_hiddens)`. Booleans are never accepted as numbers: `True` is an
`int` to Python, but `num_hiddens=True` is a mistake, not the size 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

__all__ = [
    "COMPUTABLE_DTYPES",
    "boolean",
    "callable_",
    "computable",
    "describe",
    "floating_tensor",
    "integer_tensor",
    "int_at_least",
    "positive_int",
    "probability",
    "real",
    "real_valued",
    "same_device_and_dtype",
    "tensor",
]


# The dtypes PyTorch computes with on the CPU. The others it only stores: float8 (torch.float8_e4m3fn, float8_e5m2,
# ...) and float4 have no softmax, masked_fill, sum or max; uint16/32/64 no masked_fill or max; complex32 no sum; bit,
# sub-byte and quantized dtypes almost nothing. A tensor in one of them is refused with the conversion to make, rather
# than left to fail deep inside torch with a NotImplementedError.
COMPUTABLE_DTYPES = (
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.complex64,
    torch.complex128,
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
)


def describe(value: object) -> str:
    """How a given value is shown in an error: its type, and a short repr (tensors: dtype, shape, device)."""
    if isinstance(value, torch.Tensor):
        return f"a {value.dtype} tensor of shape {tuple(value.shape)} on {value.device}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def int_at_least(name: str, value: object, minimum: int) -> int:
    """An int (not a bool) >= minimum."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= {minimum}, got {describe(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def positive_int(name: str, value: object) -> int:
    """An int (not a bool) >= 1: a size, a count, a length."""
    return int_at_least(name, value, 1)


def real(
    name: str,
    value: object,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """A real number (int or float, not a bool, not a tensor), optionally within [low, high] (or open ends)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, got {describe(value)}")
    value = float(value)
    if math.isnan(value) or (finite and math.isinf(value)):
        raise ValueError(f"{name} must be a finite number, got {value}")
    if low is not None and (value < low or (low_open and value == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value}")
    if high is not None and (value > high or (high_open and value == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {value}")
    return value


def probability(name: str, value: object) -> float:
    """A probability or dropout rate: a real number in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a float in [0, 1], got {describe(value)}")
    return real(name, value, low=0.0, high=1.0)


def boolean(name: str, value: object) -> bool:
    """A flag: True or False (not 0/1, not a string such as 'no', which Python would read as True)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return value


def callable_(name: str, value: object) -> Callable[..., Any]:
    """A function (anything callable)."""
    if not callable(value):
        raise TypeError(f"{name} must be callable (a function), got {describe(value)}")
    return value


def tensor(
    name: str,
    value: object,
    *,
    dims: int | Sequence[int] | None = None,
    shape: str = "",
    floating: bool = False,
    any_dtype: bool = False,
) -> torch.Tensor:
    """A torch.Tensor in a dtype PyTorch computes with, optionally with a number of dims among `dims` and a
    floating-point dtype.

    `shape` is the expected shape in words, e.g. "(B, Q, d)", used only in messages. `any_dtype` also accepts the
    dtypes PyTorch only stores (float8 ...), for conversions and operations on the shape alone.
    """
    expected = f"a torch.Tensor{f' of shape {shape}' if shape else ''}"
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be {expected}, got {describe(value)}")
    if not any_dtype:
        computable(name, value)
    if floating and not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    if dims is not None:
        allowed = (dims,) if isinstance(dims, int) else tuple(dims)
        if value.dim() not in allowed:
            words = " or ".join(f"{d}-D" for d in allowed)
            raise ValueError(f"{name} must be {words}{f' {shape}' if shape else ''}, got shape {tuple(value.shape)}")
    return value


def computable(name: str, value: torch.Tensor) -> torch.Tensor:
    """A tensor in one of the dtypes PyTorch computes with (`COMPUTABLE_DTYPES`): not float8, float4, uint16 ..."""
    if value.dtype not in COMPUTABLE_DTYPES:
        to = (
            ".to(torch.complex64)"
            if value.dtype.is_complex
            else ".float()"
            if value.dtype.is_floating_point
            else ".long()"
        )
        raise TypeError(
            f"{name} has dtype {value.dtype}, which PyTorch stores but does not compute with (no softmax, sum or "
            f"masked_fill); convert it first, with {to}"
        )
    return value


def real_valued(name: str, value: torch.Tensor | np.ndarray) -> torch.Tensor | np.ndarray:
    """A tensor or numpy array not of complex numbers (drawn or compared, they would lose their imaginary part)."""
    complex_ = value.is_complex() if isinstance(value, torch.Tensor) else np.issubdtype(value.dtype, np.complexfloating)
    if complex_:
        raise TypeError(
            f"{name} must hold real numbers, got dtype {value.dtype}; pass its .real, .abs() or .angle() instead"
        )
    return value


def floating_tensor(
    name: str, value: object, *, dims: int | Sequence[int] | None = None, shape: str = ""
) -> torch.Tensor:
    """A floating-point torch.Tensor (float16, bfloat16, float32 or float64)."""
    return tensor(name, value, dims=dims, shape=shape, floating=True)


def integer_tensor(
    name: str, value: object, *, dims: int | Sequence[int] | None = None, shape: str = ""
) -> torch.Tensor:
    """A torch.Tensor of integers (int8 ... int64, uint8), not bool and not floating point."""
    value = tensor(name, value, dims=dims, shape=shape)
    if value.is_floating_point() or value.is_complex() or value.dtype == torch.bool:
        raise TypeError(f"{name} must be an integer tensor (e.g. torch.long), got dtype {value.dtype}")
    return value


def same_device_and_dtype(named: Sequence[tuple[str, torch.Tensor]]) -> None:
    """Tensors that meet in one computation: one device and one dtype, or an error naming each."""
    if not named:
        return
    names = ", ".join(n for n, _ in named)
    devices = {t.device for _, t in named}
    if len(devices) > 1:
        got = ", ".join(f"{n} on {t.device}" for n, t in named)
        raise ValueError(f"{names} must be on one device, got {got}; move them with .to(device)")
    dtypes = {t.dtype for _, t in named}
    if len(dtypes) > 1:
        got = ", ".join(f"{n} {t.dtype}" for n, t in named)
        raise TypeError(f"{names} must have one dtype, got {got}; convert them with .to(dtype)")


__all__ += [
    "device",
    "finite",
    "has_values",
    "matches_module",
    "one_of",
    "reals",
    "same_device",
    "seed",
    "sequence",
    "sequence_of",
    "text",
]


# --- added for the modules outside the core (explorers, toy, cost, efficient, generation, ...) ---------------------


def text(name: str, value: object) -> str:
    """A str (a title, a label, a name)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    return value


def one_of(name: str, value: object, choices: Sequence[object]) -> Any:
    """One of a few allowed values (compared with ==, bools never standing in for ints)."""
    for choice in choices:
        if type(value) is type(choice) and value == choice:
            return value
    raise ValueError(f"{name} must be one of {list(choices)!r}, got {describe(value)}")


def seed(name: str, value: object) -> int:
    """A random seed: an int in 0 .. 2**63 - 1 (what torch.manual_seed takes; not a bool, not a string)."""
    value = int_at_least(name, value, 0)
    if value > 2**63 - 1:
        raise ValueError(
            f"{name} must be <= 2**63 - 1 = {2**63 - 1} (torch's generators take 64-bit seeds), got {value}"
        )
    return value


def reals(name: str, values: object, *, finite: bool = True, positive: bool = False) -> list[float]:
    """A non-empty 1-D sequence of real numbers (list, tuple, 1-D tensor or array; no bools, no strings); NaN and
    infinities only where `finite=False`."""
    if isinstance(values, (str, bytes)) or values is None or not hasattr(values, "__len__"):
        raise TypeError(
            f"{name} must be a sequence of real numbers (list, tuple or 1-D tensor), got {describe(values)}"
        )
    if isinstance(values, torch.Tensor) and (values.dtype == torch.bool or values.is_complex() or values.is_meta):
        raise TypeError(f"{name} must hold real numbers, got {describe(values)}")
    if isinstance(values, torch.Tensor):
        computable(name, values)
    if getattr(values, "ndim", 1) != 1:
        raise ValueError(f"{name} must be 1-D, got shape {tuple(values.shape)}")
    import numbers  # numpy's scalars are numbers.Real, not int or float

    items = values.tolist() if hasattr(values, "tolist") else list(values)
    out = []
    for i, item in enumerate(items):
        if isinstance(item, (list, tuple)):
            raise ValueError(f"{name} must be 1-D (a flat sequence of numbers), got a nested {type(item).__name__}")
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise TypeError(f"{name}[{i}] must be a real number, got {describe(item)}")
        number = float(item)
        if finite and not math.isfinite(number):
            raise ValueError(f"{name}[{i}] must be a finite number, got {number}")
        if positive and not number > 0:
            raise ValueError(f"{name}[{i}] must be > 0, got {number}")
        out.append(number)
    if not out:
        raise ValueError(f"{name} must not be empty")
    return out


def device(name: str, value: object) -> torch.device:
    """A device: a torch.device or a string such as 'cpu' or 'cuda:0'."""
    if isinstance(value, torch.device):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a torch.device or a string such as 'cpu', got {describe(value)}")
    try:
        return torch.device(value)
    except RuntimeError:
        raise ValueError(f"{name} must name a device such as 'cpu' or 'cuda:0', got {value!r}") from None


def matches_module(named: Sequence[tuple[str, torch.Tensor]], module: torch.nn.Module, what: str = "layer") -> None:
    """Inputs meet a module's parameters: the same device and dtype as they have (lazy parameters included)."""
    parameter = next(module.parameters(), None)
    if parameter is None or not named:
        return
    names = ", ".join(n for n, _ in named)
    verb = "is" if len(named) == 1 else "are"
    first = named[0][1]  # the others share its device and dtype (checked before)
    if first.device != parameter.device:
        raise ValueError(
            f"{names} {verb} on {first.device} but the {what}'s parameters are on {parameter.device}; "
            f"move one to the other with .to(device)"
        )
    if first.dtype != parameter.dtype:
        raise TypeError(
            f"{names} {verb} {first.dtype} but the {what}'s parameters are {parameter.dtype}; convert the inputs "
            f"with .to({parameter.dtype}) or the {what} with .to({first.dtype})"
        )


def same_device(named: Sequence[tuple[str, torch.Tensor]]) -> None:
    """Tensors that meet in one computation, whose dtypes may differ (they are promoted): one device."""
    if len({t.device for _, t in named}) > 1:
        names = ", ".join(n for n, _ in named)
        got = ", ".join(f"{n} on {t.device}" for n, t in named)
        raise ValueError(f"{names} must be on one device, got {got}; move them with .to(device)")


def has_values(name: str, value: torch.Tensor) -> torch.Tensor:
    """A tensor whose values can be read and computed with (not on the meta device, which holds shapes only, and in
    a dtype PyTorch computes with)."""
    if value.is_meta:
        raise ValueError(f"{name} is on the meta device, which holds no values; pass a tensor on the CPU or a GPU")
    return computable(name, value)


def finite(name: str, value: torch.Tensor) -> torch.Tensor:
    """A tensor with no NaN or infinity (where one would silently give a wrong number)."""
    has_values(name, value)
    if value.is_floating_point() and not bool(torch.isfinite(value).all()):
        bad = "NaN" if bool(value.isnan().any()) else "infinite values"
        raise ValueError(f"{name} must be finite, got {bad}: {describe(value)}")
    return value


def sequence(name: str, value: object, what: str) -> list:
    """A list or tuple of `what` (not one str or bytes, whose letters would each count), returned as a list."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list of {what}, got {describe(value)}")
    return list(value)


def sequence_of(name: str, value: object, kind: type | tuple[type, ...], what: str, item: str) -> list:
    """A list of instances of `kind`: `what` names the list's items ("Axis"), `item` one of them ("an Axis")."""
    items = sequence(name, value, what)
    for i, element in enumerate(items):
        if not isinstance(element, kind):
            raise TypeError(f"{name}[{i}] must be {item}, got {describe(element)}")
    return items
