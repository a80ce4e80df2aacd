"""positional_encoding and the attention-is-all-you-need-pytorch sublayers, against formulas, d2l-style layers and
PyTorch's own."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attention_helpers import MultiHeadAttention, valid_lens_to_mask
from attention_helpers.transformer import (
    MultiHeadAttentionSublayer,
    PositionalEncoding,
    PositionwiseFeedForward,
    ScaledDotProductAttention,
    positional_encoding,
)

# ---------------------------------------------------------------- positional_encoding


@pytest.mark.parametrize(("n", "d"), [(1, 1), (0, 4), (5, 2), (7, 3), (60, 32), (4, 9)])
def test_positional_encoding_matches_the_formula_element_by_element(n, d):
    P = positional_encoding(n, d)
    assert P.shape == (n, d) and P.dtype == torch.float32
    for i in range(n):
        for j in range(d):
            angle = i / 10000 ** (2 * (j // 2) / d)
            expected = math.sin(angle) if j % 2 == 0 else math.cos(angle)
            assert abs(P[i, j].item() - expected) < 1e-6, (i, j)


def test_positional_encoding_equals_d2l_recipe():
    n, d = 50, 16
    X = torch.arange(n, dtype=torch.float32).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, d, 2, dtype=torch.float32) / d
    )
    P = torch.zeros(n, d)
    P[:, 0::2], P[:, 1::2] = torch.sin(X), torch.cos(X)
    torch.testing.assert_close(positional_encoding(n, d), P)


def test_positional_encoding_shift_is_a_rotation():
    """P[i + k] = P[i] @ R_k for every i, with R_k block-diagonal rotations that depend on k only."""
    n, d, k = 20, 8, 3
    P = positional_encoding(n + k, d).double()
    omega = 1 / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    R = torch.zeros(d, d, dtype=torch.float64)
    for j, w in enumerate(omega):
        c, s = math.cos(k * w), math.sin(k * w)
        R[2 * j : 2 * j + 2, 2 * j : 2 * j + 2] = torch.tensor([[c, -s], [s, c]])
    torch.testing.assert_close(P[:n] @ R, P[k:], atol=1e-6, rtol=0)


@pytest.mark.parametrize(
    ("n", "d", "error", "match"),
    [
        (-1, 4, ValueError, "num_steps must be >= 0"),
        (3.0, 4, TypeError, "num_steps must be an int"),
        (3, 0, ValueError, "num_hiddens must be >= 1"),
        (3, True, TypeError, "num_hiddens must be an int"),
    ],
)
def test_positional_encoding_bad_input(n, d, error, match):
    with pytest.raises(error, match=match):
        positional_encoding(n, d)


# ---------------------------------------------------------------- ScaledDotProductAttention


@pytest.mark.parametrize(
    ("B", "H", "Q", "K", "d_k", "d_v"), [(1, 1, 1, 1, 1, 1), (2, 3, 4, 5, 6, 2), (3, 2, 5, 3, 4, 7)]
)
def test_scaled_dot_product_equals_torch_sdpa_with_the_same_mask_polarity(B, H, Q, K, d_k, d_v):
    g = torch.Generator().manual_seed(B * 100 + Q)
    q, k, v = (
        torch.randn(B, H, Q, d_k, generator=g),
        torch.randn(B, H, K, d_k, generator=g),
        torch.randn(B, H, K, d_v, generator=g),
    )
    lens = torch.randint(1, K + 1, (B, Q), generator=g)
    keep = valid_lens_to_mask(lens, Q, K)[:, None]  # (B, 1, Q, K), True = may attend
    snapshot = [t.clone() for t in (q, k, v, keep)]
    attention = ScaledDotProductAttention(temperature=d_k**0.5, attn_dropout=0.0)
    for mask in (keep, keep.long()):  # bool or 0/1 integers: `mask == 0` reads both the same way
        out, attn = attention(q, k, v, mask)
        torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=keep))
        torch.testing.assert_close(attn.sum(-1), torch.ones(B, H, Q))
        assert (attn[~keep.expand_as(attn)] == 0).all()
    assert all(torch.equal(a, b) for a, b in zip(snapshot, (q, k, v, keep), strict=True))


def test_scaled_dot_product_fully_masked_row_is_uniform_and_float16_is_safe():
    attention = ScaledDotProductAttention(temperature=2.0, attn_dropout=0.0)
    q, k = torch.randn(1, 1, 2, 4, dtype=torch.float16), torch.randn(1, 1, 3, 4, dtype=torch.float16)
    mask = torch.tensor([[[[1, 1, 0], [0, 0, 0]]]])  # query 1 may attend to nothing
    _, attn = attention(q, k, k, mask)
    assert attn.isfinite().all()
    torch.testing.assert_close(attn[0, 0, 1], torch.full((3,), 1 / 3, dtype=torch.float16))  # as the original does


@pytest.mark.parametrize(
    ("temperature", "mask", "error", "match"),
    [
        (0.0, None, ValueError, "temperature must be > 0.0, got 0.0"),
        ("2", None, TypeError, "temperature must be a real number, got str '2'"),
        (2.0, [[1, 0]], TypeError, "mask must be a torch.Tensor"),
        (2.0, torch.ones(3, 1, 1, 1), ValueError, "mask of shape \\(3, 1, 1, 1\\) does not broadcast"),
    ],
)
def test_scaled_dot_product_bad_input(temperature, mask, error, match):
    with pytest.raises(error, match=match):
        ScaledDotProductAttention(temperature)(
            torch.ones(2, 1, 3, 4), torch.ones(2, 1, 5, 4), torch.ones(2, 1, 5, 4), mask
        )


# ---------------------------------------------------------------- MultiHeadAttentionSublayer


def copy_into_d2l(sublayer: MultiHeadAttentionSublayer, d_model: int) -> MultiHeadAttention:
    """Our d2l-style layer with the sublayer's weights (needs d_k = d_v = d_model / H)."""
    d2l = MultiHeadAttention(d_model, d_model, d_model, d_model, sublayer.n_head, dropout=0.0)
    with torch.no_grad():
        for ours, theirs in ((d2l.W_q, sublayer.w_qs), (d2l.W_k, sublayer.w_ks), (d2l.W_v, sublayer.w_vs)):
            ours.weight.copy_(theirs.weight)
        d2l.W_o.weight.copy_(sublayer.fc.weight)
    return d2l.eval()


@pytest.mark.parametrize(("B", "Q", "K", "H", "d_model"), [(1, 1, 1, 1, 2), (2, 3, 5, 2, 8), (3, 4, 4, 4, 12)])
def test_sublayer_is_layer_norm_of_input_plus_d2l_multi_head_attention(B, Q, K, H, d_model):
    torch.manual_seed(B)
    sublayer = MultiHeadAttentionSublayer(H, d_model, d_model // H, d_model // H, dropout=0.0).eval()
    d2l = copy_into_d2l(sublayer, d_model)
    q, kv = torch.randn(B, Q, d_model), torch.randn(B, K, d_model)
    lens = torch.randint(1, K + 1, (B,))
    mask = valid_lens_to_mask(lens, 1, K)  # (B, 1, K): the repository's padding mask, 1 = may attend
    out, attn = sublayer(q, kv, kv, mask)
    expected = F.layer_norm(q + d2l(q, kv, kv, lens), (d_model,), eps=1e-6)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(attn, d2l.head_weights)


def test_sublayer_with_d_k_not_d_v_follows_the_formula_head_by_head():
    torch.manual_seed(0)
    B, Q, K, H, d_model, d_k, d_v = 2, 3, 4, 3, 5, 2, 6
    sublayer = MultiHeadAttentionSublayer(H, d_model, d_k, d_v, dropout=0.0).eval()
    q, k, v = torch.randn(B, Q, d_model), torch.randn(B, K, d_model), torch.randn(B, K, d_model)
    keep = valid_lens_to_mask(torch.tensor([[1, 2, 4], [4, 4, 3]]), Q, K)  # (B, Q, K)
    out, attn = sublayer(q, k, v, keep)
    heads = []
    for h in range(H):
        W_q = sublayer.w_qs.weight[h * d_k : (h + 1) * d_k]  # (d_k, d_model)
        W_k = sublayer.w_ks.weight[h * d_k : (h + 1) * d_k]
        W_v = sublayer.w_vs.weight[h * d_v : (h + 1) * d_v]  # (d_v, d_model)
        heads.append(F.scaled_dot_product_attention(q @ W_q.T, k @ W_k.T, v @ W_v.T, attn_mask=keep))  # (B, Q, d_v)
    expected = sublayer.layer_norm(q + sublayer.fc(torch.cat(heads, dim=-1)))
    assert out.shape == (B, Q, d_model) and attn.shape == (B, H, Q, K)
    torch.testing.assert_close(out, expected)


def test_sublayer_bad_sizes_and_mask():
    with pytest.raises(TypeError, match="d_k must be an int"):
        MultiHeadAttentionSublayer(2, 4, 2.5, 2)
    with pytest.raises(ValueError, match="n_head must be >= 1"):
        MultiHeadAttentionSublayer(0, 4, 2, 2)
    X = torch.randn(2, 3, 4)
    with pytest.raises(ValueError, match=r"mask must be 3-D \(B, 1 or Q, K\), got shape \(2, 3\)"):
        MultiHeadAttentionSublayer(2, 4, 2, 2)(X, X, X, torch.ones(2, 3))


# ---------------------------------------------------------------- PositionwiseFeedForward


def test_feed_forward_treats_every_position_on_its_own():
    torch.manual_seed(0)
    ffn = PositionwiseFeedForward(4, 16, dropout=0.0)
    X = torch.randn(2, 5, 4)
    out = ffn(X)
    for b in range(2):
        for i in range(5):
            torch.testing.assert_close(out[b, i], ffn(X[b : b + 1, i : i + 1])[0, 0])
    perm = torch.tensor([3, 0, 4, 1, 2])
    torch.testing.assert_close(ffn(X[:, perm]), out[:, perm])
    with pytest.raises(ValueError, match="d_hid must be >= 1"):
        PositionwiseFeedForward(4, 0)


def test_sublayers_compose_into_torch_transformer_encoder_layer():
    """Attention sublayer then feed-forward sublayer = nn.TransformerEncoderLayer (post-norm, ReLU, no biases)."""
    torch.manual_seed(0)
    B, n, H, d_model, d_ff = 2, 5, 2, 8, 16
    attention = MultiHeadAttentionSublayer(H, d_model, d_model // H, d_model // H, dropout=0.0).eval()
    ffn = PositionwiseFeedForward(d_model, d_ff, dropout=0.0).eval()
    reference = nn.TransformerEncoderLayer(
        d_model, H, d_ff, dropout=0.0, layer_norm_eps=1e-6, batch_first=True, bias=False
    ).eval()
    with torch.no_grad():
        ffn.w_1.bias.zero_()
        ffn.w_2.bias.zero_()
        in_proj = torch.cat([attention.w_qs.weight, attention.w_ks.weight, attention.w_vs.weight])
        reference.self_attn.in_proj_weight.copy_(in_proj)
        reference.self_attn.out_proj.weight.copy_(attention.fc.weight)
        reference.linear1.weight.copy_(ffn.w_1.weight)
        reference.linear2.weight.copy_(ffn.w_2.weight)
    X = torch.randn(B, n, d_model)
    lens = torch.tensor([3, 5])
    hidden, _ = attention(X, X, X, valid_lens_to_mask(lens, 1, n))
    expected = reference(X, src_key_padding_mask=~valid_lens_to_mask(lens, 1, n)[:, 0])
    torch.testing.assert_close(ffn(hidden), expected)


def test_dropout_changes_training_outputs_only():
    torch.manual_seed(0)
    ffn = PositionwiseFeedForward(4, 32, dropout=0.5)
    X = torch.randn(1, 6, 4)
    ffn.eval()
    first = ffn(X)
    torch.testing.assert_close(ffn(X), first)
    ffn.train()
    assert not torch.allclose(ffn(X), first)


# ---------------------------------------------------------------- issue 17: every forward checks its inputs


def test_sublayer_refuses_values_it_would_have_reinterpreted():
    """v(1, 10, 8) with q(2, 3, 8), k(2, 5, 8): `.view` once split one sequence of 10 values into two of 5."""
    sublayer = MultiHeadAttentionSublayer(2, 8, 4, 4)
    with pytest.raises(ValueError, match="q, k and v must share the batch size B, got 2, 2 and 1"):
        sublayer(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(1, 10, 8))
    with pytest.raises(ValueError, match="k and v must have as many positions, got K=5 and 10"):
        sublayer(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 10, 8))


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: MultiHeadAttentionSublayer(2, 8, 4, 4, dropout="x"), TypeError, "dropout must be a float in"),
        (lambda: MultiHeadAttentionSublayer(2, 8, 4, 4, dropout=2), ValueError, "dropout must be <= 1.0"),
        (lambda: PositionwiseFeedForward(4, 8, dropout="x"), TypeError, "dropout must be a float in"),
        (lambda: ScaledDotProductAttention(2.0, attn_dropout=-1), ValueError, "attn_dropout must be >= 0.0"),
        (lambda: ScaledDotProductAttention(float("inf")), ValueError, "temperature must be a finite number"),
        (lambda: PositionalEncoding(8, "x"), TypeError, "dropout must be a float in"),
        (lambda: PositionalEncoding(0, 0.1), ValueError, "num_hiddens must be >= 1"),
        (lambda: PositionalEncoding(8, 0.1, max_len=True), TypeError, "max_len must be an int >= 1, got bool"),
    ],
)
def test_constructors_refuse_bad_rates_and_sizes(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize(
    ("q", "k", "v", "error", "match"),
    [
        ([[1.0]], torch.ones(2, 5, 8), torch.ones(2, 5, 8), TypeError, "q must be a torch.Tensor"),
        (
            torch.ones(2, 3, 8, dtype=torch.long),
            torch.ones(2, 5, 8),
            torch.ones(2, 5, 8),
            TypeError,
            "q must be a floating-point",
        ),  # fmt: skip
        (torch.ones(3, 8), torch.ones(2, 5, 8), torch.ones(2, 5, 8), ValueError, r"q must be 3-D \(B, Q, d_model\)"),
        (
            torch.ones(2, 3, 6),
            torch.ones(2, 5, 8),
            torch.ones(2, 5, 8),
            ValueError,
            "q has 6 features but the layer was built with d_model=8",
        ),  # fmt: skip
        (
            torch.ones(2, 3, 8),
            torch.ones(2, 5, 8).double(),
            torch.ones(2, 5, 8),
            TypeError,
            "q, k, v must have one dtype",
        ),  # fmt: skip
        (
            torch.ones(2, 3, 8),
            torch.ones(2, 5, 8, device="meta"),
            torch.ones(2, 5, 8),
            ValueError,
            "q, k, v must be on one device",
        ),  # fmt: skip
        (
            *(torch.ones(2, n, 8).double() for n in (3, 5, 5)),
            TypeError,
            "are torch.float64 but the layer's parameters are torch.float32",
        ),  # fmt: skip
        (
            *(torch.ones(2, n, 8, device="meta") for n in (3, 5, 5)),
            ValueError,
            "are on meta but the layer's parameters are on cpu",
        ),  # fmt: skip
    ],
)
def test_sublayer_forward_checks_its_inputs(q, k, v, error, match):
    with pytest.raises(error, match=match):
        MultiHeadAttentionSublayer(2, 8, 4, 4)(q, k, v)


@pytest.mark.parametrize(
    ("q", "k", "v", "error", "match"),
    [
        (torch.ones(2, 1, 3, 4), torch.ones(2, 1, 5, 4), None, TypeError, "v must be a torch.Tensor"),
        (torch.ones(4), torch.ones(5, 4), torch.ones(5, 4), ValueError, "q, k and v must have at least 2 dimensions"),
        (
            torch.ones(2, 1, 3, 4),
            torch.ones(1, 1, 5, 4),
            torch.ones(1, 1, 5, 4),
            ValueError,
            "must share their leading axes",
        ),  # fmt: skip
        (
            torch.ones(2, 1, 3, 4),
            torch.ones(2, 1, 5, 3),
            torch.ones(2, 1, 5, 4),
            ValueError,
            "same feature size d_k >= 1, got 4 and 3",
        ),  # fmt: skip
        (torch.ones(2, 1, 3, 0), torch.ones(2, 1, 5, 0), torch.ones(2, 1, 5, 4), ValueError, "d_k >= 1, got 0 and 0"),
        (
            torch.ones(2, 1, 3, 4),
            torch.ones(2, 1, 5, 4),
            torch.ones(2, 1, 6, 4),
            ValueError,
            "k and v must have as many positions",
        ),  # fmt: skip
        (
            torch.ones(2, 1, 3, 4, device="meta"),
            torch.ones(2, 1, 5, 4),
            torch.ones(2, 1, 5, 4),
            ValueError,
            "q, k, v must be on one device",
        ),  # fmt: skip
        (
            torch.ones(2, 1, 3, 4).half(),
            torch.ones(2, 1, 5, 4),
            torch.ones(2, 1, 5, 4),
            TypeError,
            "q, k, v must have one dtype",
        ),  # fmt: skip
    ],
)
def test_scaled_dot_product_forward_checks_its_inputs(q, k, v, error, match):
    with pytest.raises(error, match=match):
        ScaledDotProductAttention(2.0)(q, k, v)


def test_scaled_dot_product_mask_on_another_device():
    q = torch.ones(2, 1, 3, 4)
    with pytest.raises(ValueError, match="mask is on meta but q, k and v are on cpu"):
        ScaledDotProductAttention(2.0)(q, q, q, torch.ones(2, 1, 3, 3, device="meta"))


@pytest.mark.parametrize(
    ("x", "error", "match"),
    [
        ("x", TypeError, "x must be a torch.Tensor"),
        (torch.ones(2, 3, 5), ValueError, "x has 5 features but the layer was built with d_in=4"),
        (torch.ones(3, 4), ValueError, r"x must be 3-D \(B, n, d_in\)"),
        (torch.ones(2, 3, 4).double(), TypeError, "x is torch.float64 but the layer's parameters are torch.float32"),
        (torch.ones(2, 3, 4, device="meta"), ValueError, "x is on meta but the layer's parameters are on cpu"),
    ],
)
def test_feed_forward_checks_its_input(x, error, match):
    with pytest.raises(error, match=match):
        PositionwiseFeedForward(4, 8)(x)


# ---------------------------------------------------------------- PositionalEncoding (d2l-en's module)


def test_positional_encoding_module_adds_P_in_the_inputs_dtype():
    pe = PositionalEncoding(16, 0.0, max_len=50).eval()
    assert pe.P.shape == (1, 50, 16) and torch.equal(pe.P[0], positional_encoding(50, 16))
    X = torch.randn(3, 20, 16)
    torch.testing.assert_close(pe(X), X + positional_encoding(20, 16))
    half = pe(X.half())
    assert half.dtype == torch.float16
    torch.testing.assert_close(half, (X + positional_encoding(20, 16)).half(), atol=1e-2, rtol=1e-3)
    assert "P" not in pe.state_dict()  # a fixed table, not a learned weight
    assert pe.double().P.dtype == torch.float64  # a buffer: .to() moves and converts it


@pytest.mark.parametrize(
    ("X", "error", "match"),
    [
        (torch.ones(1, 5, 8), ValueError, "X has 8 features but the encoding was built with num_hiddens=16"),
        (torch.ones(1, 51, 16), ValueError, "X has 51 positions but the encoding was built with max_len=50"),
        (torch.ones(5, 16), ValueError, r"X must be 3-D \(B, n, num_hiddens\)"),
        (torch.ones(1, 5, 16, dtype=torch.long), TypeError, "X must be a floating-point tensor"),
    ],
)
def test_positional_encoding_module_bad_input(X, error, match):
    with pytest.raises(error, match=match):
        PositionalEncoding(16, 0.0, max_len=50)(X)


def test_with_pytorch_biases_the_encoder_layer_matches_once_the_feed_forward_biases_are_copied():
    """4.10.6: `bias=False` is one way, not the only one: PyTorch's attention and LayerNorm biases start at 0, so with
    `bias=True` copying the feed-forward biases is enough; its default `layer_norm_eps=1e-5` is not (ours is 1e-6)."""
    torch.manual_seed(0)
    B, n, H, d_model, d_ff = 2, 5, 2, 8, 16
    attention = MultiHeadAttentionSublayer(H, d_model, d_model // H, d_model // H, dropout=0.0).eval()
    ffn = PositionwiseFeedForward(d_model, d_ff, dropout=0.0).eval()
    X = torch.randn(B, n, d_model)
    lens = torch.tensor([3, 5])
    hidden, _ = attention(X, X, X, valid_lens_to_mask(lens, 1, n))
    gaps = {}
    for eps in (1e-6, 1e-5):
        reference = nn.TransformerEncoderLayer(d_model, H, d_ff, dropout=0.0, layer_norm_eps=eps, batch_first=True)
        reference.eval()
        with torch.no_grad():
            reference.self_attn.in_proj_weight.copy_(
                torch.cat([attention.w_qs.weight, attention.w_ks.weight, attention.w_vs.weight])
            )
            reference.self_attn.out_proj.weight.copy_(attention.fc.weight)
            reference.linear1.weight.copy_(ffn.w_1.weight)
            reference.linear1.bias.copy_(ffn.w_1.bias)
            reference.linear2.weight.copy_(ffn.w_2.weight)
            reference.linear2.bias.copy_(ffn.w_2.bias)
        expected = reference(X, src_key_padding_mask=~valid_lens_to_mask(lens, 1, n)[:, 0])
        gaps[eps] = (ffn(hidden) - expected).abs().max().item()
    assert gaps[1e-6] < 1e-5 and gaps[1e-5] > 1e-6, gaps
