"""efficient: online-softmax partials and merge, tiled attention, band masks, against F.scaled_dot_product_attention."""

import itertools

import pytest
import torch
import torch.nn.functional as F

from attention_helpers.layers import MultiHeadAttention
from attention_helpers.lessons.efficient import (
    Partial,
    band_mask,
    block_plan,
    finish,
    merge,
    output_distances,
    partial_softmax,
    receptive_field,
    recorded_attention,
    running_partials,
    settling_block,
    tiled_attention,
    tiled_heads,
)


def reference(q, k, v, valid_lens=None, causal=False, window=None):
    """SDPA with one boolean mask (True = may attend) built from the same arguments."""
    Q, K = q.shape[-2], k.shape[-2]
    keep = band_mask(Q, K, window, causal=causal)  # (Q, K)
    if valid_lens is not None:
        lens = valid_lens if valid_lens.dim() == 2 else valid_lens[:, None]  # (B, Q or 1)
        padding = torch.arange(K)[None, None, :] < lens[..., None]  # (B, Q or 1, K)
        keep = keep & (padding if q.dim() == 3 else padding[:, None])  # (B, [1,] Q, K)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)


def inputs(shape_q, K, d_v, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    *lead, Q, d = shape_q
    q = torch.randn(*lead, Q, d, generator=g, dtype=dtype)
    k = torch.randn(*lead, K, d, generator=g, dtype=dtype)
    v = torch.randn(*lead, K, d_v, generator=g, dtype=dtype)
    return q, k, v


# ---------------------------------------------------------------- online softmax


@pytest.mark.parametrize("block", [1, 3, 4, 7, 20])
def test_running_partials_end_at_softmax(block):
    g = torch.Generator().manual_seed(block)
    scores, values = 5 * torch.randn(2, 3, 7, generator=g), torch.randn(2, 7, 4, generator=g)
    states = running_partials(scores, values, block)
    assert len(states) == -(-7 // block)
    torch.testing.assert_close(finish(states[-1]), torch.softmax(scores, -1) @ values, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(states[-1].m, scores.amax(-1))
    # after each block: the softmax over the keys seen so far
    for n, state in enumerate(states):
        seen = min((n + 1) * block, 7)
        expected = torch.softmax(scores[..., :seen], -1) @ values[:, :seen]
        torch.testing.assert_close(finish(state), expected, atol=1e-6, rtol=1e-5)


def test_merge_is_exact_in_any_order_and_leaves_inputs_alone():
    g = torch.Generator().manual_seed(0)
    scores, values = 30 * torch.randn(4, 10, generator=g), torch.randn(10, 3, generator=g)
    a, b = partial_softmax(scores[:, :4], values[:4]), partial_softmax(scores[:, 4:], values[4:])
    before = [t.clone() for t in (*a, *b)]
    expected = torch.softmax(scores, -1) @ values
    torch.testing.assert_close(finish(merge(a, b)), expected, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(finish(merge(b, a)), expected, atol=1e-6, rtol=1e-5)
    assert all(torch.equal(x, y) for x, y in zip(before, (*a, *b), strict=True))


def test_empty_partials_merge_to_zeros_with_finite_gradients():
    scores = torch.randn(2, 5, requires_grad=True)
    values = torch.randn(5, 3, requires_grad=True)
    keep = torch.tensor([[False] * 5, [True, False, True, False, False]])
    a = partial_softmax(scores[:, :2], values[:2], keep[:, :2])
    b = partial_softmax(scores[:, 2:], values[2:], keep[:, 2:])
    assert a.m[0] == float("-inf") and a.s[0] == 0 and torch.equal(a.o[0], torch.zeros(3))
    out = finish(merge(a, b))
    assert torch.equal(out[0], torch.zeros(3))
    expected = torch.softmax(scores[1, [0, 2]], -1) @ values[[0, 2]]
    torch.testing.assert_close(out[1], expected)
    out.sum().backward()
    assert scores.grad.isfinite().all() and values.grad.isfinite().all()
    assert torch.equal(scores.grad[0], torch.zeros(5))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_partials_in_low_precision_keep_float32_statistics(dtype):
    scores = torch.tensor([[60000.0, 59990.0, -60000.0]], dtype=dtype)  # exp would overflow float16
    values = torch.eye(3, dtype=dtype)
    p = partial_softmax(scores, values)
    assert p.s.dtype == torch.float32 and p.o.dtype == torch.float32
    expected = torch.softmax(scores.float(), -1) @ values.float()
    torch.testing.assert_close(finish(p), expected)


def test_partial_and_merge_reject_bad_input():
    with pytest.raises(TypeError, match="scores"):
        partial_softmax(torch.ones(2, 3, dtype=torch.long), torch.ones(3, 1))
    with pytest.raises(ValueError, match="number of keys"):
        partial_softmax(torch.ones(2, 3), torch.ones(4, 1))
    with pytest.raises(TypeError, match="keep"):
        partial_softmax(torch.ones(2, 3), torch.ones(3, 1), keep=torch.ones(2, 3))
    good = partial_softmax(torch.ones(2, 3), torch.ones(3, 1))
    with pytest.raises(TypeError, match="b must be a Partial"):
        merge(good, "oops")
    with pytest.raises(ValueError, match="same queries"):
        merge(good, partial_softmax(torch.ones(4, 3), torch.ones(3, 1)))
    with pytest.raises(ValueError, match="a must hold"):
        merge(Partial(torch.zeros(2), torch.zeros(3), torch.zeros(2, 1)), good)
    with pytest.raises(ValueError, match="block must be >= 1"):
        running_partials(torch.ones(2, 3), torch.ones(3, 1), 0)


# ---------------------------------------------------------------- tiled attention against SDPA


SHAPES = [((1, 1, 1), 1, 1), ((2, 7, 4), 9, 3), ((2, 3, 16, 8), 16, 8), ((1, 2, 33, 4), 20, 5)]


@pytest.mark.parametrize(("shape_q", "K", "d_v"), SHAPES)
@pytest.mark.parametrize(("causal", "window"), [(False, None), (True, None), (False, 3), (True, 2), (False, 1)])
@pytest.mark.parametrize(("block_q", "block_k"), [(1, 1), (4, 3), (64, 64)])
def test_tiled_equals_sdpa_float32(shape_q, K, d_v, causal, window, block_q, block_k):
    q, k, v = inputs(shape_q, K, d_v)
    before = [t.clone() for t in (q, k, v)]
    got = tiled_attention(q, k, v, causal=causal, window=window, block_q=block_q, block_k=block_k)
    torch.testing.assert_close(got, reference(q, k, v, causal=causal, window=window), atol=1e-5, rtol=1e-5)
    assert all(torch.equal(a, b) for a, b in zip(before, (q, k, v), strict=True))


@pytest.mark.parametrize(("shape_q", "K", "d_v"), SHAPES[1:])
@pytest.mark.parametrize("per_query", [False, True])
@pytest.mark.parametrize("causal", [False, True])
def test_tiled_with_valid_lens_and_empty_rows(shape_q, K, d_v, per_query, causal):
    q, k, v = inputs(shape_q, K, d_v, seed=1)
    B, Q = q.shape[0], q.shape[-2]
    g = torch.Generator().manual_seed(2)
    lens = torch.randint(0, K + 1, (B, Q) if per_query else (B,), generator=g)
    lens[0] = 0  # a whole batch row with nothing to attend
    got = tiled_attention(q, k, v, lens, causal=causal, block_q=3, block_k=4)
    expected = reference(q, k, v, lens, causal=causal)
    torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-5)
    assert torch.equal(got[0], torch.zeros_like(got[0]))


def test_window_beyond_the_keys_gives_empty_rows_of_zeros():
    q, k, v = inputs((1, 9, 4), 3, 2)
    got = tiled_attention(q, k, v, window=2, block_q=2, block_k=2)  # queries 4.. see no key within distance 1
    torch.testing.assert_close(got, reference(q, k, v, window=2), atol=1e-5, rtol=1e-5)
    assert torch.equal(got[:, 4:], torch.zeros(1, 5, 2))


def test_tiled_gradients_match_sdpa():
    q, k, v = (t.requires_grad_() for t in inputs((2, 2, 10, 4), 12, 3, seed=3))
    lens = torch.tensor([0, 7])
    tiled_attention(q, k, v, lens, causal=True, block_q=3, block_k=5).square().sum().backward()
    grads = [t.grad.clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    reference(q, k, v, lens, causal=True).square().sum().backward()
    for got, t in zip(grads, (q, k, v), strict=True):
        assert got.isfinite().all()
        torch.testing.assert_close(got, t.grad, atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("causal", [False, True])
def test_low_precision_close_to_a_float32_reference(dtype, causal):
    q, k, v = inputs((2, 1, 24, 16), 24, 8, seed=4)
    q = q * 20  # large scores: exp(score) overflows float16 unless the max is subtracted
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    lens = torch.tensor([0, 19])
    expected = reference(q.float(), k.float(), v.float(), lens, causal=causal)  # the same numbers, float32 maths
    got = tiled_attention(q, k, v, lens, causal=causal, block_q=16, block_k=8)
    assert got.dtype == dtype and got.isfinite().all()
    tolerance = 2e-3 if dtype == torch.float16 else 1.6e-2  # about one rounding of the output
    torch.testing.assert_close(got.float(), expected, atol=tolerance, rtol=tolerance)
    # as close as PyTorch's own kernel gets in that dtype
    own = reference(q, k, v, lens, causal=causal).float()
    assert (got.float() - expected).abs().max() <= (own - expected).abs().max() + 1e-3


def test_scale_argument():
    q, k, v = inputs((1, 5, 4), 6, 2)
    torch.testing.assert_close(
        tiled_attention(q, k, v, scale=0.3, block_q=2, block_k=2),
        F.scaled_dot_product_attention(q, k, v, scale=0.3),
        atol=1e-5,
        rtol=1e-5,
    )


# ---------------------------------------------------------------- block plan, masks, receptive field


@pytest.mark.parametrize(("Q", "K", "bq", "bk"), [(8, 8, 2, 2), (10, 7, 3, 2), (5, 9, 5, 4), (1, 1, 1, 1)])
@pytest.mark.parametrize(("causal", "window"), [(False, None), (True, None), (True, 3), (False, 2)])
def test_block_plan_skips_exactly_the_empty_blocks(Q, K, bq, bk, causal, window):
    keep = band_mask(Q, K, window, causal=causal)
    plan = block_plan(Q, K, bq, bk, causal=causal, window=window)
    assert plan.shape == (-(-Q // bq), -(-K // bk))
    for i, j in itertools.product(range(plan.shape[0]), range(plan.shape[1])):
        assert bool(plan[i, j]) == bool(keep[i * bq : (i + 1) * bq, j * bk : (j + 1) * bk].any())


def test_causal_plan_counts():
    plan = block_plan(8, 8, 2, 2, causal=True)
    assert int(plan.sum()) == 10 and int((~plan).sum()) == 6  # n(n+1)/2 of n*n blocks computed


def test_band_mask_values():
    assert torch.equal(band_mask(3, 3, causal=True), torch.ones(3, 3, dtype=torch.bool).tril())
    band = band_mask(5, 5, 2)
    assert torch.equal(band, (torch.arange(5)[:, None] - torch.arange(5)[None, :]).abs() < 2)
    assert int(band_mask(6, 6, 3, causal=True).sum(-1).max()) == 3  # w keys, itself included
    assert torch.equal(band_mask(2, 4), torch.ones(2, 4, dtype=torch.bool))


def test_receptive_field_grows_by_window_per_layer():
    mask = band_mask(12, 12, 3, causal=True)
    for layers in (1, 2, 3):
        reach = receptive_field(mask, layers)
        assert torch.equal(reach, band_mask(12, 12, layers * 2 + 1, causal=True))  # each layer reaches w - 1 back
    assert torch.equal(receptive_field(mask, 1), mask)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda q: tiled_attention(q, q, q, block_q=0), ValueError, "block_q must be >= 1"),
        (lambda q: tiled_attention(q, q, q, block_k=-2), ValueError, "block_k must be >= 1"),
        (lambda q: tiled_attention(q, q, q, block_k=2.0), TypeError, "block_k must be an int"),
        (lambda q: tiled_attention(q, q, q, block_q=True), TypeError, "block_q must be an int"),
        (lambda q: tiled_attention(q, q, q, window=0), ValueError, "window must be >= 1"),
        (lambda q: tiled_attention(q, q, q, window=1.5), TypeError, "window must be an int"),
        (lambda q: tiled_attention(q, q, q, causal=1), TypeError, "causal"),
        (lambda q: tiled_attention(q, q, q, scale=-1.0), ValueError, "scale"),
        (lambda q: tiled_attention(q, q[..., :3], q), ValueError, "feature size"),
        (lambda q: tiled_attention(q, q, q[:, :3]), ValueError, "as many keys"),
        (lambda q: tiled_attention(q, q[:1], q[:1]), ValueError, "batch"),
        (lambda q: tiled_attention(q, q.double(), q), TypeError, "one dtype"),
        (lambda q: tiled_attention(q, q, q.long()), TypeError, "v must be a floating-point"),
        (lambda q: tiled_attention(q, q, q[None]), ValueError, "same number of dimensions"),
        (lambda q: tiled_attention(q[0], q[0], q[0]), ValueError, "q must be 3-D"),
        (lambda q: tiled_attention(q.tolist(), q, q), TypeError, "q must be a torch.Tensor"),
        (lambda q: tiled_attention(q, q, q, torch.tensor([1.0, 2.0])), TypeError, "valid_lens"),
        (lambda q: tiled_attention(q, q, q, torch.tensor([1, 9])), ValueError, "valid_lens"),
        (lambda q: band_mask(3, 3, 0), ValueError, "window"),
        (lambda q: block_plan(3, 3, 0, 1), ValueError, "block_q"),
        (lambda q: receptive_field(torch.ones(2, 3, dtype=torch.bool), 2), ValueError, "square"),
        (lambda q: receptive_field(band_mask(3, 3), 0), ValueError, "layers"),
        (lambda q: receptive_field(torch.ones(3, 3), 1), TypeError, "bool"),
    ],
)
def test_bad_input_is_named(call, error, match):
    with pytest.raises(error, match=match):
        call(torch.randn(2, 4, 4))


def test_devices_must_match():
    q = torch.randn(1, 3, 2)
    with pytest.raises(ValueError, match="one device"):
        tiled_attention(q, q.to("meta"), q)  # a second device that every machine has
    with pytest.raises(ValueError, match="one device"):
        partial_softmax(torch.ones(3, 2), torch.ones(2, 4, device="meta"))


def test_tiled_attention_with_an_empty_batch_and_lengths():
    """B = 0 with lengths (0,) or (0, Q): an empty result, not a reshape error."""
    q, k, v = torch.rand(0, 2, 4), torch.rand(0, 3, 4), torch.rand(0, 3, 2)
    for lens in (torch.zeros(0, dtype=torch.long), torch.zeros(0, 2, dtype=torch.long)):
        assert tiled_attention(q, k, v, lens).shape == (0, 2, 2)


# --- a trained model's heads, block by block and tiled (notebook 8.3, 8.7.3) ---------------------------------------------------


def test_output_distances_are_the_running_outputs_distance_from_the_last():
    scores, values = torch.randn(3, 10, generator=torch.Generator().manual_seed(1)), torch.randn(10, 2)
    distances = output_distances(scores, values, 4)  # (3, 3): blocks of 4, 4 and 2 keys
    final = torch.softmax(scores, -1) @ values  # (3, 2)
    after_4 = torch.softmax(scores[:, :4], -1) @ values[:4]
    torch.testing.assert_close(distances[:, 0], (after_4 - final).norm(dim=-1) / final.norm(dim=-1))
    assert distances.shape == (3, 3) and torch.equal(distances[:, -1], torch.zeros(3))


def test_output_distances_are_absolute_for_an_output_of_zero():
    distances = output_distances(torch.tensor([[0.0, 0.0]]), torch.tensor([[1.0], [-1.0]]), 1)  # output 0
    torch.testing.assert_close(distances, torch.tensor([[1.0, 0.0]]))


@pytest.mark.parametrize(
    ("distances", "settles"),
    [([0.5, 0.05, 0.2, 0.0], 3), ([0.05, 0.0], 0), ([0.9, 0.5, 0.1, 0.0], 2), ([0.3, 0.2], 2)],
)
def test_settling_block_is_the_first_block_from_which_the_distance_stays_within_tolerance(distances, settles):
    assert settling_block(torch.tensor(distances), 0.1).item() == settles


def test_settling_block_tells_a_sharp_head_from_one_that_looks_anywhere():
    """The measure behind 8.3's claim: a head whose largest score sits in block 1 settles there; a row with no key
    that outweighs the rest (the wrong story: it converges gradually, block by block) settles only at the last."""
    sharp = torch.tensor([[0.0, 0.5, 0.2, 0.1, 9.0, 0.3, 0.0, 0.4, 0.1, 0.2, 0.3, 0.0]])  # (1, 12): its peak at key 4
    values = torch.arange(12.0)[:, None] - 5  # (12, 1)
    assert settling_block(output_distances(sharp, values, 4), 0.1).item() == 1
    gradual = torch.zeros(1, 12)  # every key alike: each block moves the output
    assert settling_block(output_distances(gradual, values, 4), 0.1).item() == 2


def _heads(seed=0):
    torch.manual_seed(seed)
    return torch.nn.ModuleList([MultiHeadAttention(8, 2, 0.0), MultiHeadAttention(8, 2, 0.0)]).eval()


def _run(layers, x, lens=None):
    for layer in layers:
        x = x + layer(x, x, x, lens)  # (B, T, 8)
    return x


def test_recorded_attention_keeps_each_layers_queries_keys_values_and_lengths():
    layers, x, lens = _heads(), torch.randn(2, 5, 8), torch.tensor([5, 3])
    with recorded_attention(layers) as calls, torch.no_grad():
        _run(layers, x, lens)
    assert len(calls) == 2 and [tuple(t.shape) for t in calls[0][:3]] == [(4, 5, 4)] * 3  # (B*H, T, d/H)
    assert calls[0][3].tolist() == [5, 5, 3, 3]  # the lengths, one per (batch row, head)
    weights = torch.softmax(torch.bmm(calls[0][0] / 2, calls[0][1].transpose(1, 2)).masked_fill(
        torch.arange(5) >= calls[0][3][:, None, None], -torch.inf), -1)  # fmt: skip
    torch.testing.assert_close(weights, layers[0].attention_weights)
    _run(layers, x)
    assert len(calls) == 2  # recording stops with the block


def test_tiled_heads_give_the_model_the_same_outputs_and_leave_it_as_it_was():
    layers, x, lens = _heads(), torch.randn(3, 9, 8), torch.tensor([9, 4, 0])
    with torch.no_grad():
        plain = _run(layers, x, lens)
        with tiled_heads(layers, block_q=2, block_k=3):
            tiled = _run(layers, x, lens)
        again = _run(layers, x, lens)
    torch.testing.assert_close(tiled, plain, atol=1e-5, rtol=1e-5)
    assert torch.equal(again, plain)  # the hooks are gone


def test_tiled_heads_change_the_output_when_the_tiles_are_wrong(monkeypatch):
    """The wrong story of 8.3's tiled-model claim: tiles added without a common max change the model's outputs."""
    from attention_helpers.lessons import efficient

    layers, x = _heads(), 3 * torch.randn(1, 9, 8)
    with torch.no_grad():
        plain = _run(layers, x)
        monkeypatch.setattr(efficient, "merge", lambda a, b: Partial(torch.maximum(a.m, b.m), a.s + b.s, a.o + b.o))
        with tiled_heads(layers, block_q=3, block_k=3):
            wrong = _run(layers, x)
    assert (wrong - plain).abs().max() > 0.1


def test_tiled_heads_refuse_a_model_that_drops_weights_out():
    layers = torch.nn.ModuleList([MultiHeadAttention(8, 2, 0.5)])  # in training mode
    with pytest.raises(ValueError, match="model must be in eval mode"):
        tiled_heads(layers)
    tiled_heads(layers.eval())  # eval mode: no dropout
