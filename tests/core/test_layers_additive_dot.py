"""AdditiveAttention and DotProductAttention: shapes, masking, dropout, references (formula, PyTorch's SDPA)."""

import math

import pytest
import torch
import torch.nn.functional as F

from attention_helpers import AdditiveAttention, DotProductAttention, valid_lens_to_mask

# (B, Q, K, d_q, d_k, d_v, h): one key, one query, d_q != d_k, Q != K, Q == K
SIZES = [(1, 1, 1, 1, 1, 1, 1), (2, 1, 10, 20, 2, 4, 8), (3, 4, 5, 6, 7, 2, 3), (2, 3, 3, 4, 4, 5, 6)]


def random_lens(B: int, Q: int, K: int, kind: str, g: torch.Generator) -> torch.Tensor | None:
    """None, lengths (B,) or (B, Q) in [0, K], with a 0 and a K among them when there is room."""
    if kind == "none":
        return None
    shape = (B,) if kind == "1d" else (B, Q)
    lens = torch.randint(0, K + 1, shape, generator=g)
    flat = lens.view(-1)
    flat[0] = 0
    flat[-1] = K if flat.numel() > 1 else flat[-1]
    return lens


def qkv(B: int, Q: int, K: int, d_q: int, d_k: int, d_v: int, g: torch.Generator, dtype=torch.float32):
    return (
        torch.randn(B, Q, d_q, generator=g, dtype=dtype),
        torch.randn(B, K, d_k, generator=g, dtype=dtype),
        torch.randn(B, K, d_v, generator=g, dtype=dtype),
    )


def make_layer(kind: str, d_q: int, d_k: int, h: int, dropout: float = 0.0) -> torch.nn.Module:
    torch.manual_seed(0)
    if kind == "additive":
        return AdditiveAttention(key_size=d_k, query_size=d_q, num_hiddens=h, dropout=dropout)
    return DotProductAttention(dropout)


def additive_by_formula(layer: AdditiveAttention, queries, keys, values, valid_lens):
    """score[b, i, j] = w_v . tanh(W_q q_i + W_k k_j), one pair at a time, then masked softmax by hand."""
    B, Q, _ = queries.shape  # batch, queries
    K = keys.shape[1]  # keys
    W_q, W_k, w_v = layer.W_q.weight, layer.W_k.weight, layer.w_v.weight[0]  # (h, d_q), (h, d_k), (h,)
    scores = torch.empty(B, Q, K, dtype=queries.dtype)
    for b in range(B):
        for i in range(Q):
            for j in range(K):
                scores[b, i, j] = w_v @ torch.tanh(W_q @ queries[b, i] + W_k @ keys[b, j])
    if valid_lens is None:
        keep = torch.ones(B, Q, K, dtype=torch.bool)
    else:
        keep = valid_lens_to_mask(valid_lens, Q, K)
    exp = torch.where(keep, torch.exp(scores - scores.max(dim=-1, keepdim=True).values), 0.0)
    total = exp.sum(dim=-1, keepdim=True)
    weights = torch.where(total > 0, exp / total.clamp_min(1e-30), 0.0)  # a row with no valid key -> all 0
    return weights @ values, weights


# ---------------------------------------------------------------- shapes, masking, weights


@pytest.mark.parametrize("kind", ["additive", "dot"])
@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("lens_kind", ["none", "1d", "2d"])
def test_shapes_and_masked_weights(kind, sizes, lens_kind):
    B, Q, K, d_q, d_k, d_v, h = sizes
    if kind == "dot":
        d_k = d_q
    g = torch.Generator().manual_seed(1)
    queries, keys, values = qkv(B, Q, K, d_q, d_k, d_v, g)
    valid_lens = random_lens(B, Q, K, lens_kind, g)
    layer = make_layer(kind, d_q, d_k, h).eval()
    assert layer.attention_weights is None
    out = layer(queries, keys, values, valid_lens)
    weights = layer.attention_weights
    assert out.shape == (B, Q, d_v)
    assert weights.shape == (B, Q, K)
    if valid_lens is None:
        torch.testing.assert_close(weights.sum(-1), torch.ones(B, Q))
    else:
        keep = valid_lens_to_mask(valid_lens, Q, K)
        assert (weights[~keep] == 0).all()  # exactly 0, not merely small
        empty = keep.sum(-1) == 0  # (B, Q): rows with no valid key
        torch.testing.assert_close(weights.sum(-1), (~empty).to(weights.dtype))
        assert (out[empty] == 0).all()
    torch.testing.assert_close(out, weights @ values)


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_inputs_are_not_modified_and_gradients_are_finite(kind):
    g = torch.Generator().manual_seed(2)
    queries, keys, values = qkv(2, 3, 4, 5, 5, 2, g)
    valid_lens = torch.tensor([[0, 2, 4], [4, 1, 0]])
    snapshot = [t.clone() for t in (queries, keys, values, valid_lens)]
    leaves = [t.clone().requires_grad_() for t in (queries, keys, values)]
    layer = make_layer(kind, 5, 5, 3)
    layer(*leaves, valid_lens).pow(2).sum().backward()
    for before, after in zip(snapshot, (queries, keys, values, valid_lens), strict=True):
        assert torch.equal(before, after)
    for leaf in leaves:
        assert leaf.grad is not None and leaf.grad.isfinite().all()
    for p in layer.parameters():
        assert p.grad is not None and p.grad.isfinite().all()


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_float64(kind):
    g = torch.Generator().manual_seed(3)
    queries, keys, values = qkv(2, 2, 3, 4, 4, 2, g, dtype=torch.float64)
    layer = make_layer(kind, 4, 4, 5).double()
    out = layer(queries, keys, values, torch.tensor([1, 3]))
    assert out.dtype == torch.float64 and layer.attention_weights.dtype == torch.float64


# ---------------------------------------------------------------- dropout


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_eval_makes_dropout_the_identity(kind):
    g = torch.Generator().manual_seed(4)
    queries, keys, values = qkv(3, 4, 6, 5, 5, 6, g)
    valid_lens = torch.tensor([2, 6, 4])
    with_dropout = make_layer(kind, 5, 5, 7, dropout=0.5)
    without = make_layer(kind, 5, 5, 7, dropout=0.0)  # same seed -> same parameters
    without.load_state_dict(with_dropout.state_dict())
    with_dropout.eval()
    expected = without(queries, keys, values, valid_lens)
    torch.testing.assert_close(with_dropout(queries, keys, values, valid_lens), expected)
    torch.testing.assert_close(with_dropout(queries, keys, values, valid_lens), expected)  # and every time
    # With values = the identity the output *is* the applied weights: in eval() they are `.attention_weights`.
    eye = torch.eye(6).expand(3, 6, 6)
    torch.testing.assert_close(with_dropout(queries, keys, eye, valid_lens), with_dropout.attention_weights)


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_train_mode_applies_dropout(kind):
    g = torch.Generator().manual_seed(5)
    queries, keys, _ = qkv(4, 8, 6, 5, 5, 1, g)
    eye = torch.eye(6).expand(4, 6, 6)
    layer = make_layer(kind, 5, 5, 7, dropout=0.5).train()
    applied = layer(queries, keys, eye)  # (B, Q, K): dropout(weights)
    weights = layer.attention_weights  # kept before dropout, as in d2l
    torch.testing.assert_close(weights.sum(-1), torch.ones(4, 8))
    kept = applied != 0
    torch.testing.assert_close(applied[kept], 2 * weights[kept])  # kept entries are rescaled by 1 / (1 - p)
    assert (~kept).any() and kept.any()
    assert not torch.allclose(applied.sum(-1), torch.ones(4, 8))  # rows no longer sum to 1


# ---------------------------------------------------------------- references


@pytest.mark.parametrize("seed", range(40))
def test_dot_product_equals_pytorch_sdpa(seed):
    g = torch.Generator().manual_seed(100 + seed)
    B, Q, K, d, d_v = (int(torch.randint(1, 6, (), generator=g)) for _ in range(5))
    queries, keys, values = qkv(B, Q, K, d, d, d_v, g)
    queries = queries * 3  # large enough scores that the scaling matters
    lens_kind = ("none", "1d", "2d")[seed % 3]
    valid_lens = random_lens(B, Q, K, lens_kind, g)
    layer = DotProductAttention(dropout=0.3).eval()
    out = layer(queries, keys, values, valid_lens)
    attn_mask = None if valid_lens is None else valid_lens_to_mask(valid_lens, Q, K)  # (B, Q, K), True = attend
    expected = F.scaled_dot_product_attention(queries, keys, values, attn_mask=attn_mask)
    torch.testing.assert_close(out, expected)
    # the weights, read out of SDPA with values = the identity
    eye = torch.eye(K).expand(B, K, K)
    torch.testing.assert_close(
        layer.attention_weights, F.scaled_dot_product_attention(queries, keys, eye, attn_mask=attn_mask)
    )


def test_dot_product_scales_by_sqrt_d():
    g = torch.Generator().manual_seed(6)
    queries, keys, values = qkv(2, 3, 4, 16, 16, 2, g)
    layer = DotProductAttention()
    layer(queries, keys, values)
    expected = torch.softmax(queries @ keys.transpose(1, 2) / math.sqrt(16), dim=-1)
    torch.testing.assert_close(layer.attention_weights, expected)
    unscaled = torch.softmax(queries @ keys.transpose(1, 2), dim=-1)
    assert not torch.allclose(layer.attention_weights, unscaled)


@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("lens_kind", ["none", "1d", "2d"])
def test_additive_equals_its_formula(sizes, lens_kind):
    B, Q, K, d_q, d_k, d_v, h = sizes
    g = torch.Generator().manual_seed(7)
    queries, keys, values = qkv(B, Q, K, d_q, d_k, d_v, g)
    valid_lens = random_lens(B, Q, K, lens_kind, g)
    layer = make_layer("additive", d_q, d_k, h, dropout=0.2).eval()
    out = layer(queries, keys, values, valid_lens)
    with torch.no_grad():
        expected_out, expected_weights = additive_by_formula(layer, queries, keys, values, valid_lens)
    torch.testing.assert_close(layer.attention_weights, expected_weights)
    torch.testing.assert_close(out, expected_out)


def test_additive_sublayers():
    layer = AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1)
    assert layer.W_q.weight.shape == (8, 20) and layer.W_q.bias is None
    assert layer.W_k.weight.shape == (8, 2) and layer.W_k.bias is None
    assert layer.w_v.weight.shape == (1, 8) and layer.w_v.bias is None
    assert sum(p.numel() for p in layer.parameters()) == 8 * (20 + 2 + 1)
    assert list(DotProductAttention(0.1).parameters()) == []


def test_additive_d2l_demo():
    """d2l's example: identical keys give equal scores, so the weights are uniform over the valid keys."""
    torch.manual_seed(0)
    queries, keys = torch.normal(0, 1, (2, 1, 20)), torch.ones((2, 10, 2))
    values = torch.arange(40.0).reshape(1, 10, 4).repeat(2, 1, 1)
    layer = AdditiveAttention(key_size=2, query_size=20, num_hiddens=8, dropout=0.1).eval()
    out = layer(queries, keys, values, torch.tensor([2, 6]))
    torch.testing.assert_close(out, torch.tensor([[[2.0, 3.0, 4.0, 5.0]], [[10.0, 11.0, 12.0, 13.0]]]))
    expected = torch.zeros(2, 1, 10)
    expected[0, 0, :2], expected[1, 0, :6] = 1 / 2, 1 / 6
    torch.testing.assert_close(layer.attention_weights, expected)


def test_one_query_per_call_equals_all_queries_at_once():
    """Bahdanau's decoder asks one query per step: Q calls with Q = 1 equal one call with all Q queries."""
    g = torch.Generator().manual_seed(8)
    queries, keys, values = qkv(2, 5, 6, 3, 4, 2, g)
    valid_lens = torch.tensor([3, 6])
    layer = make_layer("additive", 3, 4, 5).eval()
    together = layer(queries, keys, values, valid_lens)
    steps = [layer(queries[:, i : i + 1], keys, values, valid_lens) for i in range(5)]
    torch.testing.assert_close(torch.cat(steps, dim=1), together)


# ---------------------------------------------------------------- bad input

GOOD = (torch.ones(2, 3, 4), torch.ones(2, 5, 4), torch.ones(2, 5, 6))


def replace(index: int, value: object) -> tuple:
    args = list(GOOD)
    args[index] = value
    return tuple(args)


BAD_COMMON = [
    (replace(0, [[1.0]]), TypeError, "queries must be a torch.Tensor"),
    (replace(1, torch.ones(2, 5, 4, dtype=torch.long)), TypeError, "keys must be a floating-point"),
    (replace(2, torch.ones(2, 5)), ValueError, "values must be 3-D"),
    (replace(0, torch.ones(3, 3, 4)), ValueError, "queries, keys and values must share the batch size B"),
    (replace(2, torch.ones(2, 4, 6)), ValueError, "keys and values must have as many positions"),
]


@pytest.mark.parametrize(("args", "error", "match"), BAD_COMMON)
@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_bad_qkv(kind, args, error, match):
    layer = make_layer(kind, 4, 4, 3)
    with pytest.raises(error, match=match):
        layer(*args)


@pytest.mark.parametrize(
    ("valid_lens", "error", "match"),
    [
        ([2, 3], TypeError, "valid_lens must be an integer torch.Tensor"),
        (torch.tensor([2.5, 3.0]), ValueError, "valid_lens must hold whole numbers of keys, got 2.5"),
        (torch.tensor([True, False]), TypeError, "valid_lens must hold integers"),
        (torch.tensor([2, 6]), ValueError, "valid_lens must be <= the number of keys K=5"),
        (torch.tensor([-1, 2]), ValueError, "valid_lens must be >= 0"),
        (torch.tensor([1, 2, 3]), ValueError, "valid_lens .* B=2"),
        (torch.ones(3, 2, dtype=torch.long), ValueError, "valid_lens of shape \\(3, 2\\)"),
    ],
)
@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_bad_valid_lens(kind, valid_lens, error, match):
    layer = make_layer(kind, 4, 4, 3)
    with pytest.raises(error, match=match):
        layer(*GOOD, valid_lens)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (replace(0, torch.ones(2, 3, 5)), "queries has feature size 5 but the layer was built with query_size=4"),
        (replace(1, torch.ones(2, 5, 3)), "keys has feature size 3 but the layer was built with key_size=4"),
    ],
)
def test_additive_rejects_sizes_it_was_not_built_for(args, match):
    with pytest.raises(ValueError, match=match):
        make_layer("additive", 4, 4, 3)(*args)


def test_dot_product_rejects_different_query_and_key_sizes():
    with pytest.raises(ValueError, match="queries and keys must have the same feature size d, got 4 and 3"):
        DotProductAttention()(torch.ones(2, 3, 4), torch.ones(2, 5, 3), torch.ones(2, 5, 6))


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: AdditiveAttention(0, 4, 8, 0.0), ValueError, "key_size must be >= 1, got 0"),
        (lambda: AdditiveAttention(4, 4.0, 8, 0.0), TypeError, "query_size must be an int >= 1, got float"),
        (lambda: AdditiveAttention(4, 4, -1, 0.0), ValueError, "num_hiddens must be >= 1, got -1"),
        (lambda: AdditiveAttention(4, 4, 8, -0.1), ValueError, r"dropout must be >= 0.0, got -0.1"),
        (lambda: DotProductAttention(dropout="0.1"), TypeError, r"dropout must be a float in \[0, 1\], got str"),
        (lambda: DotProductAttention(2), ValueError, r"dropout must be <= 1.0, got 2"),
    ],
)
def test_constructors_reject_bad_sizes_and_rates(make, error, match):
    with pytest.raises(error, match=match):
        make()


# ---------------------------------------------------------------- issue 17: devices, dtypes, half precision, d = 0


def test_dot_product_scales_before_the_product_so_float16_stays_finite():
    """q = k = 16 with d = 256: q.k = 65536 overflows float16 (max 65504); SDPA scales first, and so do we."""
    q = torch.full((1, 2, 256), 16.0, dtype=torch.float16)
    k = torch.full((1, 3, 256), 16.0, dtype=torch.float16)
    v = torch.randn(1, 3, 4, generator=torch.Generator().manual_seed(0)).half()
    out = DotProductAttention()(q, k, v)
    assert out.isfinite().all()
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))
    torch.testing.assert_close(
        out.float(), DotProductAttention()(q.float(), k.float(), v.float()), atol=1e-3, rtol=1e-3
    )


@pytest.mark.parametrize("kind", ["additive", "dot"])
@pytest.mark.parametrize("which", [0, 1, 2])
def test_inputs_on_another_device_are_refused_by_name(kind, which):
    """The meta device stands in for a GPU: one of q, k, v elsewhere once gave a CPU tensor of garbage."""
    args = list(qkv(2, 3, 4, 5, 5, 6, torch.Generator().manual_seed(0)))
    args[which] = args[which].to("meta")
    with pytest.raises(ValueError, match="queries, keys, values must be on one device, got .*meta"):
        make_layer(kind, 5, 5, 8)(*args)


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_mixed_dtypes_are_refused_by_name(kind):
    q, k, v = qkv(2, 3, 4, 5, 5, 6, torch.Generator().manual_seed(0))
    with pytest.raises(TypeError, match="queries, keys, values must have one dtype, got queries torch.float64"):
        make_layer(kind, 5, 5, 8)(q.double(), k, v)


def test_additive_inputs_must_match_the_layers_dtype_and_device():
    q, k, v = qkv(2, 3, 4, 5, 5, 6, torch.Generator().manual_seed(0))
    layer = make_layer("additive", 5, 5, 8)
    with pytest.raises(TypeError, match="are torch.float64 but the layer's parameters are torch.float32"):
        layer(q.double(), k.double(), v.double())
    with pytest.raises(ValueError, match="are on meta but the layer's parameters are on cpu"):
        layer(q.to("meta"), k.to("meta"), v.to("meta"))
    torch.testing.assert_close(layer.double()(q.double(), k.double(), v.double()), layer.float()(q, k, v).double())


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_feature_size_zero_is_a_clear_error(kind):
    """d = 0 once gave NaN (0 / sqrt(0)): a query or key with no features has no score."""
    with pytest.raises(ValueError, match=r"queries must have at least one feature \(d >= 1\)"):
        make_layer(kind, 5, 5, 8)(torch.ones(2, 3, 0), torch.ones(2, 4, 5), torch.ones(2, 4, 6))
    with pytest.raises(ValueError, match=r"keys must have at least one feature \(d >= 1\)"):
        make_layer(kind, 5, 5, 8)(torch.ones(2, 3, 5), torch.ones(2, 4, 0), torch.ones(2, 4, 6))


@pytest.mark.parametrize("kind", ["additive", "dot"])
def test_whole_number_float_lengths_work_in_the_layers(kind):
    q, k, v = qkv(2, 3, 4, 5, 5, 6, torch.Generator().manual_seed(0))
    layer = make_layer(kind, 5, 5, 8).eval()
    torch.testing.assert_close(layer(q, k, v, torch.tensor([2.0, 4.0])), layer(q, k, v, torch.tensor([2, 4])))
