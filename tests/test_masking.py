"""sequence_mask, valid_lens_to_mask, masked_softmax: bad input, properties over random shapes, references."""

import pytest
import torch
import torch.nn.functional as F

from attention_helpers import masked_softmax, sequence_mask, valid_lens_to_mask

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
