"""Nadaraya-Watson weights and fits match a plain PyTorch reference, handle edge cases and reject bad input."""

import pytest
import torch

from attention_helpers.lessons.kernel_regression import gaussian_scores, nadaraya_watson, nadaraya_watson_weights


def reference(queries, keys, values, bandwidth):
    scores = -((queries[:, None] - keys[None, :]) ** 2) / (2 * bandwidth**2)  # (Q, K)
    weights = torch.softmax(scores, dim=-1)
    return weights, weights @ values


@pytest.mark.parametrize("Q, K, bandwidth", [(1, 1, 1.0), (5, 3, 0.3), (7, 20, 2.0), (3, 8, 0.05)])
def test_matches_reference(Q, K, bandwidth):
    g = torch.Generator().manual_seed(Q * 100 + K)
    queries, keys, values = torch.rand(Q, generator=g) * 5, torch.rand(K, generator=g) * 5, torch.randn(K, generator=g)
    weights, fit = reference(queries, keys, values, bandwidth)
    torch.testing.assert_close(nadaraya_watson_weights(queries, keys, bandwidth), weights)
    torch.testing.assert_close(nadaraya_watson(queries, keys, values, bandwidth), fit)
    torch.testing.assert_close(nadaraya_watson_weights(queries, keys, bandwidth).sum(-1), torch.ones(Q))


def test_bandwidth_limits():
    keys, values = torch.tensor([0.0, 1.0, 2.0, 3.0]), torch.tensor([1.0, -2.0, 5.0, 0.5])
    flat = nadaraya_watson(torch.tensor([0.3, 2.9]), keys, values, 1e4)
    torch.testing.assert_close(flat, values.mean().expand(2))  # huge bandwidth: the mean
    sharp = nadaraya_watson(keys, keys, values, 0.01)
    torch.testing.assert_close(sharp, values)  # tiny bandwidth: each key's own value


def test_inputs_not_modified_and_gradients_finite():
    queries = torch.tensor([0.5, 1.5], requires_grad=True)
    keys, values = torch.tensor([0.0, 1.0, 20.0]), torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    snapshot = [t.detach().clone() for t in (queries, keys, values)]
    nadaraya_watson(queries, keys, values, 0.01).sum().backward()
    assert torch.isfinite(queries.grad).all() and torch.isfinite(values.grad).all()
    for before, after in zip(snapshot, (queries, keys, values), strict=True):
        assert torch.equal(before, after.detach())


def test_no_keys_gives_zeros():
    weights = nadaraya_watson_weights(torch.tensor([1.0, 2.0]), torch.zeros(0), 1.0)
    assert weights.shape == (2, 0)
    assert torch.equal(nadaraya_watson(torch.tensor([1.0, 2.0]), torch.zeros(0), torch.zeros(0), 1.0), torch.zeros(2))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision(dtype):
    queries, keys = torch.tensor([0.0, 100.0], dtype=dtype), torch.tensor([0.0, 1.0, 200.0], dtype=dtype)
    values = torch.tensor([1.0, 2.0, 3.0], dtype=dtype)
    weights = nadaraya_watson_weights(queries, keys, 0.1)  # scores far beyond float16's range
    fit = nadaraya_watson(queries, keys, values, 0.1)
    assert weights.dtype == dtype and fit.dtype == dtype
    assert torch.isfinite(weights).all() and torch.isfinite(fit).all()
    ref_w, ref_fit = reference(queries.float(), keys.float(), values.float(), 0.1)
    torch.testing.assert_close(weights.float(), ref_w, atol=1e-2, rtol=1e-2)
    torch.testing.assert_close(fit.float(), ref_fit, atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize(
    "args, error, words",
    [
        (([0.0, 1.0], torch.zeros(2), 1.0), TypeError, "queries must be a torch.Tensor"),
        ((torch.zeros(2, 1), torch.zeros(2), 1.0), ValueError, "queries must be 1-D"),
        ((torch.zeros(2), torch.zeros(2, dtype=torch.long), 1.0), TypeError, "keys must be a floating-point tensor"),
        ((torch.zeros(2), torch.zeros(2), 0.0), ValueError, "bandwidth must be > 0"),
        ((torch.zeros(2), torch.zeros(2), -1.0), ValueError, "bandwidth must be > 0"),
        ((torch.zeros(2), torch.zeros(2), "1"), TypeError, "bandwidth must be a real number"),
        ((torch.zeros(2), torch.zeros(2), True), TypeError, "bandwidth must be a real number"),
    ],
)
def test_bad_input(args, error, words):
    with pytest.raises(error, match=words):
        gaussian_scores(*args)


def test_values_must_match_keys():
    with pytest.raises(ValueError, match=r"values must have the keys' shape \(3,\), got \(2,\)"):
        nadaraya_watson(torch.zeros(1), torch.zeros(3), torch.zeros(2), 1.0)
