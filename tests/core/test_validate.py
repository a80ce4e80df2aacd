"""The shared argument checks: each accepts what it documents and names the argument when it refuses."""

import math
import re
import warnings

import numpy as np
import pytest
import torch

from attention_helpers import _validate as v


@pytest.mark.parametrize(
    "bad, error", [(True, TypeError), (1.0, TypeError), ("3", TypeError), (0, ValueError), (-2, ValueError)]
)
def test_positive_int_refuses_and_names(bad, error):
    with pytest.raises(error, match="num_heads"):
        v.positive_int("num_heads", bad)


def test_positive_int_and_int_at_least_accept():
    assert v.positive_int("n", 3) == 3
    assert v.int_at_least("n", 0, 0) == 0


@pytest.mark.parametrize(
    "bad, error", [(True, TypeError), ("0.1", TypeError), (-0.1, ValueError), (1.5, ValueError), (math.nan, ValueError)]
)
def test_probability(bad, error):
    with pytest.raises(error, match="dropout"):
        v.probability("dropout", bad)
    assert v.probability("dropout", 0) == 0.0 and v.probability("dropout", 1) == 1.0


def test_real_bounds_and_infinity():
    assert v.real("x", 2) == 2.0
    with pytest.raises(ValueError, match="x must be a finite"):
        v.real("x", math.inf)
    assert v.real("x", math.inf, finite=False) == math.inf
    with pytest.raises(ValueError, match="x must be > 0"):
        v.real("x", 0, low=0, low_open=True)
    with pytest.raises(ValueError, match="x must be <= 1"):
        v.real("x", 2, high=1)


def test_boolean_and_callable():
    assert v.boolean("bias", False) is False
    for bad in (0, "no", None):
        with pytest.raises(TypeError, match="bias must be True or False"):
            v.boolean("bias", bad)
    with pytest.raises(TypeError, match="compute must be callable"):
        v.callable_("compute", None)


def test_tensors():
    x = torch.zeros(2, 3)
    assert v.tensor("x", x, dims=2) is x
    with pytest.raises(TypeError, match="x must be a torch.Tensor of shape \\(B, d\\)"):
        v.tensor("x", [1, 2], shape="(B, d)")
    with pytest.raises(ValueError, match="x must be 3-D or 4-D"):
        v.tensor("x", x, dims=(3, 4))
    with pytest.raises(TypeError, match="floating-point"):
        v.floating_tensor("x", torch.zeros(2, dtype=torch.long))
    with pytest.raises(TypeError, match="integer tensor"):
        v.integer_tensor("lens", torch.zeros(2))
    with pytest.raises(TypeError, match="integer tensor"):
        v.integer_tensor("lens", torch.zeros(2, dtype=torch.bool))


def test_same_device_and_dtype():
    a, b = torch.zeros(1), torch.zeros(1, dtype=torch.float64)
    with pytest.raises(TypeError, match="q, k must have one dtype, got q torch.float32, k torch.float64"):
        v.same_device_and_dtype([("q", a), ("k", b)])
    with pytest.raises(ValueError, match="must be on one device"):
        v.same_device_and_dtype([("q", a), ("k", torch.zeros(1, device="meta"))])
    v.same_device_and_dtype([("q", a), ("k", a.clone())])


def test_sequences():
    assert v.sequence("xs", (1, 2), "numbers") == [1, 2]
    for bad in ("ab", b"ab", None, 3):
        with pytest.raises(TypeError, match="xs must be a list of numbers"):
            v.sequence("xs", bad, "numbers")
    assert v.sequence_of("xs", [1, 2], int, "ints", "an int") == [1, 2]
    with pytest.raises(TypeError, match=r"xs\[1\] must be an int, got str 'b'"):
        v.sequence_of("xs", [1, "b"], int, "ints", "an int")


def test_dtypes_pytorch_only_stores_are_refused_with_the_conversion_to_make():
    """float8, float4, uint16/32/64, complex32 ...: PyTorch stores them but has no softmax, sum or masked_fill."""
    stored_only = [
        d for d in {x for x in vars(torch).values() if isinstance(x, torch.dtype)} if d not in v.COMPUTABLE_DTYPES
    ]
    assert {torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz} <= set(stored_only)
    for dtype in stored_only:
        with warnings.catch_warnings(action="ignore"):  # complex32 is experimental, quantized dtypes deprecated
            x = torch.empty(2, dtype=dtype)
        convert = ".to(torch.complex64)" if dtype.is_complex else ".float()" if dtype.is_floating_point else ".long()"
        for check in (v.computable, v.has_values, v.tensor, v.floating_tensor):
            with pytest.raises(TypeError, match=rf"^x has dtype {dtype}, which .* with {re.escape(convert)}$"):
                check("x", x)
        assert v.tensor("x", x, any_dtype=True) is x  # conversions and shape-only operations take them
    for dtype in v.COMPUTABLE_DTYPES:  # each one computes: a sum and a masked_fill at least
        x = torch.ones(2, dtype=dtype)
        assert v.has_values("x", v.tensor("x", x)) is x
        x.masked_fill(torch.tensor([True, False]), 0).sum()


def test_real_valued_refuses_complex_tensors_and_arrays():
    for value in (torch.ones(2, dtype=torch.complex64), np.ones(2, dtype=np.complex128)):
        with pytest.raises(TypeError, match=r"^m must hold real numbers, got dtype .*complex.*; pass its .real"):
            v.real_valued("m", value)
    for value in (torch.ones(2), torch.ones(2, dtype=torch.long), np.ones(2), np.ones(2, dtype=bool)):
        assert v.real_valued("m", value) is value
