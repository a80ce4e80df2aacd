"""A porting aid: `from attention_helpers import d2l` runs the PyTorch cells of d2l-en's attention chapter unchanged.

d2l-en (the English "Dive into Deep Learning", d2l.ai, v1.x) writes `d2l.AdditiveAttention(num_hiddens, dropout)`,
`d2l.MultiHeadAttention(num_hiddens, num_heads, dropout)`, `d2l.PositionalEncoding(...)`, `d2l.check_shape(...)`,
`d2l.ones(...)`, `d2l.plot(...)`. This module holds those attention pieces (this package's own, which never modify
their inputs and reject bad input by name) plus the small plumbing the chapter's cells use: d2l's one-line torch
aliases, `use_svg_display`, `set_figsize`, `set_axes`, `plot`, `plt`, `check_shape` and `add_to_class`.

It is a porting aid only, kept out of the package's own API (`attention_helpers.__all__`). d2l's training
infrastructure (`d2l.Module`, `Trainer`, data sets) is not here. The d2l-zh edition's code needs no aid:
`import attention_helpers as d2l` runs it (explicit sizes, `d2l.AdditiveAttention(key_size, query_size, ...)`).
Names and signatures follow d2l-en's `d2l/torch.py` (sample code under MIT-0, its LICENSE-SAMPLECODE).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes

from ._validate import callable_, describe, has_values, real, real_valued
from ._validate import tensor as _tensor
from .layers import AdditiveAttention, DotProductAttention, MultiHeadAttention
from .masking import masked_softmax, sequence_mask
from .plotting import show_heatmaps
from .transformer import PositionalEncoding

__all__ = [
    # the attention pieces
    "AdditiveAttention",
    "DotProductAttention",
    "MultiHeadAttention",
    "PositionalEncoding",
    "masked_softmax",
    "sequence_mask",
    "show_heatmaps",
    # plotting and checks
    "add_to_class",
    "check_shape",
    "plot",
    "plt",
    "set_axes",
    "set_figsize",
    "use_svg_display",
    # d2l's one-line torch aliases
    "abs",
    "arange",
    "argmax",
    "astype",
    "batch_matmul",
    "concat",
    "cos",
    "cosh",
    "exp",
    "expand_dims",
    "eye",
    "float32",
    "int32",
    "int64",
    "linspace",
    "log",
    "matmul",
    "meshgrid",
    "normal",
    "numpy",
    "ones",
    "ones_like",
    "rand",
    "randn",
    "reduce_mean",
    "reduce_sum",
    "repeat",
    "reshape",
    "sigmoid",
    "sin",
    "sinh",
    "size",
    "stack",
    "swapaxes",
    "tanh",
    "tensor",
    "to",
    "transpose",
    "zeros",
    "zeros_like",
]

# ---------------------------------------------------------------- d2l's one-line aliases
# The functions are torch's own (as in d2l), so bad input gets torch's errors, which name the argument. The method
# aliases below check that x is a tensor first (d2l's raise an AttributeError from deep inside otherwise).

ones, ones_like, zeros, zeros_like = torch.ones, torch.ones_like, torch.zeros, torch.zeros_like
tensor, arange, linspace, meshgrid, eye = torch.tensor, torch.arange, torch.linspace, torch.meshgrid, torch.eye
sin, sinh, cos, cosh, tanh, sigmoid = torch.sin, torch.sinh, torch.cos, torch.cosh, torch.tanh, torch.sigmoid
exp, log, abs = torch.exp, torch.log, torch.abs  # d2l's names; `abs` shadows the builtin in this module only
normal, rand, randn = torch.normal, torch.rand, torch.randn
matmul, batch_matmul, concat, stack = torch.matmul, torch.bmm, torch.cat, torch.stack
int32, int64, float32 = torch.int32, torch.int64, torch.float32


def numpy(x: torch.Tensor, *args: Any, **kwargs: Any) -> np.ndarray:
    """x.detach().numpy() (moved to the CPU first, so it works for tensors on any device); bfloat16, which numpy
    cannot hold, comes back as float32 (exactly: every bfloat16 value is a float32)."""
    x = has_values("x", _tensor("x", x)).detach().cpu()
    return (x.float() if x.dtype == torch.bfloat16 else x).numpy(*args, **kwargs)


def size(x: torch.Tensor, *args: Any, **kwargs: Any) -> int:
    """x.numel(): the number of elements."""
    _tensor("x", x, any_dtype=True)
    return x.numel(*args, **kwargs)


def reshape(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.reshape(shape)."""
    _tensor("x", x, any_dtype=True)
    return x.reshape(*args, **kwargs)


def to(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.to(device or dtype)."""
    _tensor("x", x, any_dtype=True)
    return x.to(*args, **kwargs)


def reduce_sum(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.sum(...)."""
    _tensor("x", x)
    return x.sum(*args, **kwargs)


def reduce_mean(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.mean(...)."""
    _tensor("x", x)
    return x.mean(*args, **kwargs)


def argmax(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.argmax(...)."""
    _tensor("x", x)
    return x.argmax(*args, **kwargs)


def astype(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.type(dtype)."""
    _tensor("x", x, any_dtype=True)
    return x.type(*args, **kwargs)


def transpose(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.t(): the transpose of a matrix."""
    _tensor("x", x, any_dtype=True)
    return x.t(*args, **kwargs)


def expand_dims(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.unsqueeze(dim)."""
    _tensor("x", x, any_dtype=True)
    return x.unsqueeze(*args, **kwargs)


def swapaxes(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.swapaxes(a, b)."""
    _tensor("x", x, any_dtype=True)
    return x.swapaxes(*args, **kwargs)


def repeat(x: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    """x.repeat(...)."""
    _tensor("x", x, any_dtype=True)
    return x.repeat(*args, **kwargs)


# ---------------------------------------------------------------- checks and classes


def check_shape(a: Any, shape: Sequence[int]) -> None:
    """Raise AssertionError (as d2l's does, but also under `python -O`) unless `a.shape` equals `shape`."""
    if not hasattr(a, "shape"):
        raise TypeError(f"a must be a tensor or array (anything with a .shape), got {describe(a)}")
    if not isinstance(shape, (tuple, list, torch.Size)):
        raise TypeError(f"shape must be a tuple of ints such as (2, 3), got {describe(shape)}")
    if tuple(a.shape) != tuple(shape):
        raise AssertionError(f"tensor's shape {tuple(a.shape)} != expected shape {tuple(shape)}")


def add_to_class(Class: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator that attaches a function to `Class` as a method, as d2l's chapters define methods cell by cell."""
    if not isinstance(Class, type):
        raise TypeError(f"Class must be a class, got {describe(Class)}")

    def wrapper(obj: Callable[..., Any]) -> Callable[..., Any]:
        callable_("obj", obj)
        setattr(Class, obj.__name__, obj)
        return obj

    return wrapper


# ---------------------------------------------------------------- plotting


def use_svg_display() -> None:
    """Show matplotlib figures as SVG in Jupyter; outside IPython there is no inline display and nothing to set."""
    from IPython import get_ipython

    if get_ipython() is None:
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    set_matplotlib_formats("svg")


def set_figsize(figsize: tuple[float, float] = (3.5, 2.5)) -> None:
    """Set matplotlib's default figure size (plt.rcParams['figure.figsize']), in inches."""
    if not isinstance(figsize, (tuple, list)) or len(figsize) != 2:
        raise TypeError(f"figsize must be a (width, height) pair in inches, got {describe(figsize)}")
    width, height = (real(f"figsize[{i}]", v, low=0.0, low_open=True) for i, v in enumerate(figsize))
    use_svg_display()
    plt.rcParams["figure.figsize"] = (width, height)


def set_axes(
    axes: Any,
    xlabel: str | None,
    ylabel: str | None,
    xlim: Sequence[float] | None,
    ylim: Sequence[float] | None,
    xscale: str,
    yscale: str,
    legend: Sequence[str] | None,
) -> None:
    """Label, limit and scale a matplotlib Axes, add a legend when given, and draw a grid."""
    _axes(axes)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.set_xscale(xscale)
    axes.set_yscale(yscale)
    axes.set_xlim(xlim)
    axes.set_ylim(ylim)
    if legend:
        axes.legend(legend)
    axes.grid()


def _axes(axes: object) -> Axes:
    if not isinstance(axes, Axes):
        raise TypeError(f"axes must be a matplotlib Axes (e.g. plt.gca()), got {describe(axes)}")
    return axes


def _one_axis(X: Any) -> bool:
    """One series (a 1-D tensor or array, or a flat list) rather than several."""
    if hasattr(X, "ndim"):
        return X.ndim == 1
    return isinstance(X, (list, tuple)) and (len(X) == 0 or not hasattr(X[0], "__len__"))


def _values(name: str, series: Any) -> np.ndarray:
    """A series as a numpy array (tensors detached and moved to the CPU, bfloat16 as float32)."""
    if isinstance(series, torch.Tensor):
        return real_valued(name, numpy(has_values(name, series)))
    return real_valued(name, np.asarray(series))


def plot(
    X: Any,
    Y: Any = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    legend: Sequence[str] | None = None,
    xlim: Sequence[float] | None = None,
    ylim: Sequence[float] | None = None,
    xscale: str = "linear",
    yscale: str = "linear",
    fmts: Sequence[str] = ("-", "m--", "g-.", "r:"),
    figsize: tuple[float, float] = (3.5, 2.5),
    axes: Any = None,
) -> None:
    """d2l's line plot: Y's series (rows of a 2-D tensor, or a list of series) against X, or X's against the index.

    Each call without `axes` draws a new figure of `figsize`. The formats `fmts` repeat when there are more series
    than formats (d2l's own drops the extra series).
    """
    if X is None:
        raise TypeError("X must be a series (a tensor, array or list) or a list of series, got None")
    if isinstance(fmts, str) or not fmts:
        raise TypeError(f"fmts must be a non-empty sequence of matplotlib formats such as ('-', 'm--'), got {fmts!r}")
    if axes is None:
        use_svg_display()
        axes = plt.figure(figsize=figsize).gca()
    _axes(axes)
    if _one_axis(X):
        X = [X]
    names = ("X", "Y") if Y is not None else ("X", "X")  # with no Y, X's series are drawn against the index
    if Y is None:
        X, Y = [[]] * len(X), X
    elif _one_axis(Y):
        Y = [Y]
    if len(X) == 1:
        X = list(X) * len(Y)  # one x for every series
    if len(X) != len(Y):
        raise ValueError(f"X and Y must pair up: {len(X)} x series for {len(Y)} y series (give one X, or one per Y)")
    axes.cla()
    for i, (x, y) in enumerate(zip(X, Y, strict=True)):
        x, y, fmt = _values(names[0], x), _values(names[1], y), fmts[i % len(fmts)]
        if len(x) and len(x) != len(y):
            raise ValueError(f"X and Y must pair up: series {i} has {len(x)} x values and {len(y)} y values")
        if len(x):
            axes.plot(x, y, fmt)
        else:
            axes.plot(y, fmt)
    set_axes(axes, xlabel, ylabel, xlim, ylim, xscale, yscale, legend)
