"""sequence_mask, valid_lens_to_mask, masked_softmax: bad input, properties over random shapes, references."""

import pytest
import torch
import torch.nn.functional as F

from attention_helpers import check_valid_lens, masked_softmax, sequence_mask, valid_lens_to_mask

# ---------------------------------------------------------------- sequence_mask


def test_sequence_mask_d2l_example():
    X = torch.tensor([[1, 2, 3], [4, 5, 6]])
    assert sequence_mask(X, torch.tensor([1, 2])).tolist() == [[1, 0, 0], [4, 5, 0]]


@pytest.mark.parametrize("value", [0, -1.0, -1e6])
def test_sequence_mask_fills_with_value_and_leaves_input_alone(value):
    X = torch.randn(3, 4)
    before = X.clone()
    out = sequence_mask(X, torch.tensor([0, 2, 4]), value=value)
    assert torch.equal(X, before)
    assert out.data_ptr() != X.data_ptr()
    assert (out[0] == value).all() and (out[1, 2:] == value).all()
    assert torch.equal(out[1, :2], X[1, :2]) and torch.equal(out[2], X[2])


def test_sequence_mask_trailing_dims_broadcast():
    X = torch.ones(2, 3, 5)
    out = sequence_mask(X, torch.tensor([1, 3]))
    assert (out[0, 1:] == 0).all() and (out[0, 0] == 1).all() and (out[1] == 1).all()


def test_sequence_mask_keeps_autograd():
    X = torch.randn(2, 3, requires_grad=True)
    sequence_mask(X, torch.tensor([1, 2])).sum().backward()
    assert X.grad.tolist() == [[1, 0, 0], [1, 1, 0]]


@pytest.mark.parametrize(
    ("X", "valid_len", "error", "match"),
    [
        ([[1, 2]], torch.tensor([1]), TypeError, "X must be a torch.Tensor"),
        (torch.ones(3), torch.tensor([1]), ValueError, "at least 2 dimensions"),
        (torch.ones(2, 3), [1, 2], TypeError, "valid_len must be an integer torch.Tensor"),
        (torch.ones(2, 3), torch.tensor([1.5, 2.0]), ValueError, "valid_len must hold whole numbers of keys, got 1.5"),
        (torch.ones(2, 3), torch.tensor([True, False]), TypeError, "valid_len must hold integers"),
        (torch.ones(2, 3), torch.tensor([1, 4]), ValueError, "valid_len must be <= .*K=3"),
        (torch.ones(2, 3), torch.tensor([-1, 2]), ValueError, "valid_len must be >= 0"),
        (torch.ones(2, 3), torch.tensor([1, 2, 3]), ValueError, "valid_len .* B=2"),
        (torch.ones(2, 3), torch.tensor([[1, 2]]), ValueError, "valid_len must have shape"),
    ],
)
def test_sequence_mask_bad_input(X, valid_len, error, match):
    with pytest.raises(error, match=match):
        sequence_mask(X, valid_len)


# ---------------------------------------------------------------- masked_softmax: bad input

X234 = torch.rand(2, 3, 4)


@pytest.mark.parametrize(
    ("X", "valid_lens", "error", "match"),
    [
        (X234, [2, 3], TypeError, "valid_lens must be an integer torch.Tensor.*list"),
        (X234, torch.tensor([2.0, 3.5]), ValueError, "valid_lens must hold whole numbers of keys, got 3.5"),
        (X234, torch.tensor([2.0, float("nan")]), ValueError, "valid_lens must hold whole numbers of keys, got nan"),
        (X234, torch.tensor([True, False]), TypeError, "valid_lens must hold integers.*bool"),
        (X234, torch.tensor([2, -1]), ValueError, "valid_lens must be >= 0"),
        (X234, torch.tensor([2, 5]), ValueError, "valid_lens must be <= the number of keys K=4"),
        (X234, torch.tensor([[1, 2], [1, 2], [3, 4]]), ValueError, "valid_lens of shape \\(3, 2\\).*transposed"),
        (X234, torch.tensor([1, 2, 3]), ValueError, "valid_lens .* B=2"),
        (X234, torch.tensor([[1, 2, 3]]), ValueError, "valid_lens of shape \\(1, 3\\) does not match"),
        (X234, torch.tensor(2), ValueError, "valid_lens must have shape .* 0-D"),
        (X234, torch.ones(2, 3, 1, dtype=torch.long), ValueError, "valid_lens must have shape .* 3-D"),
        (torch.ones(2, 3, 4, dtype=torch.long), torch.tensor([1, 2]), TypeError, "X must be a floating-point"),
        (torch.ones(2, 4), torch.tensor([1, 2]), ValueError, "X must be 3-D"),
        (torch.ones(1, 2, 3, 4), torch.tensor([1]), ValueError, "X must be 3-D"),
        ([[[0.5]]], None, TypeError, "X must be a torch.Tensor"),
    ],
)
def test_masked_softmax_bad_input(X, valid_lens, error, match):
    with pytest.raises(error, match=match):
        masked_softmax(X, valid_lens)


@pytest.mark.skipif(not torch.backends.mps.is_available() and not torch.cuda.is_available(), reason="needs 2 devices")
def test_masked_softmax_device_mismatch_accelerator():
    device = "cuda" if torch.cuda.is_available() else "mps"
    with pytest.raises(ValueError, match="valid_lens is on"):
        masked_softmax(X234.to(device), torch.tensor([1, 2]))


def test_masked_softmax_device_mismatch_meta():
    # The meta device stands in for a second device on a CPU-only machine: it must be rejected by name.
    with pytest.raises(ValueError, match="valid_lens is on meta but the scores are on cpu"):
        masked_softmax(X234, torch.tensor([1, 2], device="meta"))


# ---------------------------------------------------------------- masked_softmax: properties


def random_cases(count, seed):
    g = torch.Generator().manual_seed(seed)
    for _ in range(count):
        B, Q, K = (int(v) for v in torch.randint(1, 7, (3,), generator=g))
        X = torch.randn(B, Q, K, generator=g) * 5
        if torch.rand((), generator=g) < 0.5:
            lens = torch.randint(0, K + 1, (B,), generator=g)
        else:
            lens = torch.randint(0, K + 1, (B, Q), generator=g)
        yield X, lens


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("seed", range(4))
def test_masked_softmax_properties(seed, dtype):
    for X, lens in random_cases(50, seed):
        X = (X * 40).to(dtype) if dtype != torch.float32 else X  # half precision: scores big enough to overflow exp
        B, Q, K = X.shape
        before = X.clone()
        w = masked_softmax(X, lens)
        keep = valid_lens_to_mask(lens, Q, K)
        rows = keep.any(-1)
        assert torch.equal(X, before)
        assert w.dtype == dtype and w.isfinite().all()
        assert (w[~keep] == 0).all()
        assert (w >= 0).all()
        torch.testing.assert_close(w.sum(-1)[rows], torch.ones(int(rows.sum()), dtype=dtype))
        assert (w.sum(-1)[~rows] == 0).all()
        if dtype != torch.float32:  # the same weights as in float32, to the precision of the dtype
            torch.testing.assert_close(w, masked_softmax(X.float(), lens).to(dtype))
            continue
        # reference: PyTorch's SDPA with the equivalent boolean mask and values = identity returns the weights
        q = torch.randn(B, Q, 3)
        k = torch.randn(B, K, 3)
        scores = q @ k.transpose(1, 2) / 3**0.5
        ref = F.scaled_dot_product_attention(q, k, torch.eye(K).expand(B, K, K), attn_mask=keep)
        torch.testing.assert_close(masked_softmax(scores, lens), ref)


def test_masked_softmax_none_is_plain_softmax():
    torch.testing.assert_close(masked_softmax(X234), torch.softmax(X234, -1))


def test_masked_softmax_d2l_classic_demo():
    X = torch.rand(2, 2, 4)
    w = masked_softmax(X, torch.tensor([2, 3]))
    assert (w[0, :, 2:] == 0).all() and (w[1, :, 3:] == 0).all()
    w2 = masked_softmax(X, torch.tensor([[1, 3], [2, 4]]))
    assert torch.equal(w2[0, 0], torch.tensor([1.0, 0, 0, 0]))
    assert (w2[1, 1] > 0).all()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_masked_softmax_low_precision(dtype):
    X = (torch.randn(3, 2, 5) * 100).to(dtype)
    lens = torch.tensor([0, 2, 5])
    w = masked_softmax(X, lens)
    assert w.dtype == dtype
    assert w.isfinite().all()
    assert (w[0] == 0).all() and (w[1, :, 2:] == 0).all()
    ref = masked_softmax(X.float(), lens)
    torch.testing.assert_close(w.float(), ref, atol=1e-2, rtol=1e-2)


def test_masked_softmax_empty_rows_have_finite_gradients():
    X = torch.randn(2, 3, 4, requires_grad=True)
    masked_softmax(X, torch.tensor([0, 2])).pow(2).sum().backward()
    assert X.grad.isfinite().all()
    assert (X.grad[0] == 0).all()


def test_masked_softmax_noncontiguous_input_untouched():
    X = torch.randn(2, 4, 3).transpose(1, 2)  # (2, 3, 4), not contiguous
    before = X.clone()
    masked_softmax(X, torch.tensor([1, 2]))
    assert torch.equal(X, before)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.uint8])
def test_masked_softmax_other_integer_dtypes(dtype):
    lens = torch.tensor([1, 3], dtype=dtype)
    torch.testing.assert_close(masked_softmax(X234, lens), masked_softmax(X234, lens.long()))


# ---------------------------------------------------------------- valid_lens_to_mask


@pytest.mark.parametrize(("lens", "Q", "K"), [([0, 3], 2, 3), ([1], 1, 1), ([4, 0, 2], 3, 4)])
def test_valid_lens_to_mask_1d(lens, Q, K):
    keep = valid_lens_to_mask(torch.tensor(lens), Q, K)
    assert keep.shape == (len(lens), Q, K) and keep.dtype == torch.bool
    for b, n in enumerate(lens):
        assert keep[b, :, :n].all() and not keep[b, :, n:].any()


def test_valid_lens_to_mask_2d():
    keep = valid_lens_to_mask(torch.tensor([[1, 2], [0, 3]]), 2, 3)
    assert keep.tolist() == [[[True, False, False], [True, True, False]], [[False] * 3, [True] * 3]]


def test_valid_lens_to_mask_bad_input():
    with pytest.raises(TypeError, match="num_queries must be an int >= 0, got float 1.5"):
        valid_lens_to_mask(torch.tensor([1]), 1.5, 3)
    with pytest.raises(TypeError, match="num_keys must be an int >= 0, got bool True"):
        valid_lens_to_mask(torch.tensor([1]), 2, True)
    with pytest.raises(ValueError, match="valid_lens must be <="):
        valid_lens_to_mask(torch.tensor([4]), 1, 3)
    with pytest.raises(TypeError, match="valid_lens"):
        valid_lens_to_mask([1, 2], 1, 3)


# ---------------------------------------------------------------- issue 17: edge cases that gave wrong numbers


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
def test_scores_at_the_dtype_minimum_still_weigh_right(dtype):
    """The masked keys must weigh 0 even when the real scores equal any fill value (once: [.25, .25, 0, 0])."""
    X = torch.full((1, 1, 4), torch.finfo(dtype).min, dtype=dtype)
    w = masked_softmax(X, torch.tensor([2]))
    assert w.tolist() == [[[0.5, 0.5, 0.0, 0.0]]]
    X = torch.tensor([[[float("-inf"), 0.0, float("nan"), 7.0]]], dtype=dtype)  # padding may hold anything
    assert masked_softmax(X, torch.tensor([2])).tolist() == [[[0.0, 1.0, 0.0, 0.0]]]


def test_garbage_in_padding_never_reaches_weights_or_gradients():
    X = torch.tensor([[[1.0, 2.0, float("nan"), float("inf")], [float("nan")] * 4]], requires_grad=True)
    w = masked_softmax(X, torch.tensor([[2, 0]]))
    torch.testing.assert_close(w[0, 0, :2], torch.softmax(torch.tensor([1.0, 2.0]), -1))
    assert (w[0, 0, 2:] == 0).all() and (w[0, 1] == 0).all()
    (w * torch.arange(4.0)).sum().backward()
    assert X.grad.isfinite().all() and (X.grad[0, 0, 2:] == 0).all() and (X.grad[0, 1] == 0).all()


@pytest.mark.parametrize("lens", [[2.0, 0.0], [[1.0, 4.0, 2.0], [0.0, 3.0, 3.0]]])
def test_whole_number_float_lengths_are_read_as_integers(lens):
    """d2l-en's BERT builds valid_lens as float32: whole numbers are lengths."""
    X = torch.randn(2, 3, 4)
    floats = torch.tensor(lens)
    torch.testing.assert_close(masked_softmax(X, floats), masked_softmax(X, floats.long()))
    assert torch.equal(valid_lens_to_mask(floats, 3, 4), valid_lens_to_mask(floats.long(), 3, 4))
    assert torch.equal(
        sequence_mask(X[:, 0], floats.reshape(2, -1)[:, 0]), sequence_mask(X[:, 0], floats.long().reshape(2, -1)[:, 0])
    )
    assert floats.dtype == torch.float32  # not converted in place


@pytest.mark.parametrize("bad", [2.5, float("nan"), float("inf"), -0.5])
def test_non_whole_float_lengths_name_valid_lens(bad):
    with pytest.raises(ValueError, match="valid_lens must hold whole numbers of keys"):
        masked_softmax(torch.randn(2, 3, 4), torch.tensor([2.0, bad]))


def test_valid_lens_to_mask_returns_its_own_writable_memory():
    keep = valid_lens_to_mask(torch.tensor([1, 3]), 3, 4)  # 1-D lengths: the same row for every query
    keep[0, 0, 3] = True  # one entry, one query
    assert keep[0, :, 3].tolist() == [True, False, False]
    keep &= torch.ones(3, 4, dtype=torch.bool).tril()  # in place with a causal mask: no overlap error
    assert keep[1].tolist() == [[True, False, False, False], [True, True, False, False], [True, True, True, False]]
    assert valid_lens_to_mask(torch.tensor([1, 3]), 3, 4).is_contiguous()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_sequence_mask_clamps_d2ls_fill_to_the_dtype(dtype):
    """d2l's own call, sequence_mask(X, lens, value=-1e6), in half precision: -1e6 becomes the dtype's minimum."""
    X = torch.ones(2, 3, dtype=dtype)
    out = sequence_mask(X, torch.tensor([1, 2]), value=-1e6)
    expected = torch.tensor(max(-1e6, torch.finfo(dtype).min), dtype=dtype).item()  # bfloat16 rounds -1e6
    assert out.dtype == dtype and out[0, 1:].tolist() == [expected, expected] and out[1, 2].item() == expected
    assert out.isfinite().all() and (out[0, 0] == 1).all()
    assert sequence_mask(X, torch.tensor([1, 2]), value=float("-inf"))[0, 1].item() == float("-inf")
    assert sequence_mask(X, torch.tensor([1, 2]), value=1e6)[0, 1].item() == -expected


def test_sequence_mask_fills_complex_X():
    X = torch.full((2, 3), 1 + 2j, dtype=torch.complex64)
    assert sequence_mask(X, torch.tensor([1, 2])).tolist() == [[1 + 2j, 0, 0], [1 + 2j, 1 + 2j, 0]]
    assert sequence_mask(X, torch.tensor([3, 2]), value=-1j)[1, 2].item() == -1j
    assert sequence_mask(X, torch.tensor([3, 2]), value=-1e6)[1, 2].item() == -1e6


def test_huge_whole_float_lengths_are_reported_as_they_are():
    """1e30 is a whole number, but int64 cannot hold it: read as an integer first, it wrapped to -2**63.
    (bfloat16 holds 1.00026e+30.)"""
    for lens, match in [
        ([1e30, 1.0], r"must be <= the number of keys K=3, got 1(\.00026)?e\+30;"),
        ([-1e30], r"must be >= 0, got a negative length -1(\.00026)?e\+30$"),
    ]:
        for dtype in (torch.float32, torch.float64, torch.bfloat16):
            with pytest.raises(ValueError, match=f"^valid_lens {match}"):
                valid_lens_to_mask(torch.tensor(lens, dtype=dtype), 1, 3)
    big = torch.tensor([2.0**62, 1.0], dtype=torch.float64)  # still an int64, and shown as one
    with pytest.raises(ValueError, match=f"got {2**62};"):
        valid_lens_to_mask(big, 1, 3)


@pytest.mark.parametrize(
    ("X", "value", "error", "match"),
    [
        (
            torch.ones(2, 3, dtype=torch.int8),
            -1e6,
            ValueError,
            r"value must be a whole number in \[-128, 127\] for X of dtype torch.int8, got -1000000.0",
        ),
        (torch.ones(2, 3, dtype=torch.long), 0.5, ValueError, "value must be a whole number .* got 0.5"),
        (torch.ones(2, 3), "0", TypeError, "value must be a real number, got str"),
        (torch.ones(2, 3), None, TypeError, "value must be a real number, got NoneType"),
        (torch.ones(2, 3, dtype=torch.bool), 2, ValueError, "value must be True/False"),
    ],
)
def test_sequence_mask_bad_fill_names_value_and_dtype(X, value, error, match):
    with pytest.raises(error, match=match):
        sequence_mask(X, torch.tensor([1, 2]), value=value)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"device": "cpu"}, None, None),  # a string names the device: the same as torch.device("cpu")
        ({"device": "meta"}, ValueError, "valid_lens is on cpu but the scores are on meta"),
        ({"device": 3}, TypeError, "device must be a torch.device or a string such as 'cpu', got int 3"),
        ({"device": "nowhere"}, ValueError, "device must name a device such as 'cpu'"),
        ({"batch_size": "1"}, TypeError, "batch_size must be an int >= 0, got str '1'"),
        ({"batch_size": True}, TypeError, "batch_size must be an int >= 0, got bool True"),
        ({"batch_size": -1}, ValueError, "batch_size must be >= 0, got -1"),
        ({"num_keys": None}, TypeError, "num_keys must be an int >= 0, got NoneType None"),
        ({"num_queries": 2.0}, TypeError, "num_queries must be an int >= 0, got float 2.0"),
    ],
)
def test_check_valid_lens_messages_say_what_is_wrong(kwargs, error, match):
    args = {"valid_lens": torch.tensor([1]), "batch_size": 1, "num_queries": None, "num_keys": 3, "device": None}
    args.update(kwargs)
    if error is None:
        assert check_valid_lens(**args).tolist() == [1]
        return
    with pytest.raises(error, match=match):
        check_valid_lens(**args)


def test_check_valid_lens_returns_integers():
    lens = torch.tensor([1.0, 3.0])
    with pytest.raises(TypeError, match="valid_lens must hold integers"):  # callers that use their own lengths
        check_valid_lens(lens, 2, None, 3)
    out = check_valid_lens(lens, 2, None, 3, allow_float=True)
    assert out.dtype == torch.int64 and out.tolist() == [1, 3] and lens.dtype == torch.float32
    ints = torch.tensor([1, 3], dtype=torch.int32)
    assert check_valid_lens(ints, 2, None, 3) is ints  # integer lengths come back as they are
