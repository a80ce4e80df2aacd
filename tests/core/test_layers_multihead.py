"""MultiHeadAttention, transpose_qkv, transpose_output: head layout, round trips, equality with nn.MultiheadAttention."""

import pytest
import torch
from torch import nn

from attention_helpers import MultiHeadAttention, transpose_output, transpose_qkv, valid_lens_to_mask

# ---------------------------------------------------------------- transpose_qkv / transpose_output


@pytest.mark.parametrize(("B", "n", "h", "H"), [(1, 1, 1, 1), (2, 3, 4, 2), (3, 5, 12, 3), (2, 4, 6, 6), (1, 2, 8, 1)])
def test_transpose_qkv_puts_head_h_of_batch_b_at_row_b_times_H_plus_h(B, n, h, H):
    X = torch.randn(B, n, h)
    before = X.clone()
    heads = transpose_qkv(X, H)
    d = h // H  # per-head size
    assert heads.shape == (B * H, n, d)
    for b in range(B):
        for head in range(H):
            assert torch.equal(heads[b * H + head], X[b, :, head * d : (head + 1) * d])
    assert torch.equal(X, before)


@pytest.mark.parametrize(("B", "n", "h", "H"), [(1, 1, 1, 1), (2, 3, 4, 2), (3, 5, 12, 3), (2, 4, 6, 6)])
def test_round_trips_both_ways(B, n, h, H):
    X = torch.randn(B, n, h)
    assert torch.equal(transpose_output(transpose_qkv(X, H), H), X)
    Y = torch.randn(B * H, n, h // H)
    assert torch.equal(transpose_qkv(transpose_output(Y, H), H), Y)


def test_view_without_transpose_mixes_tokens_but_still_round_trips():
    X = (10 * torch.arange(3)[:, None] + torch.arange(4)).float()[None]  # (1, 3, 4): X[0, t, f] = 10 t + f
    wrong = X.reshape(2, 3, 2)  # the classic bug: no transpose
    assert torch.equal(wrong.reshape(1, 3, 4), X)  # a round-trip test cannot catch it
    assert wrong[0, 1].tolist() == [2.0, 3.0]  # "head 0, token 1" is really token 0's second half
    assert not torch.equal(wrong, transpose_qkv(X, 2))


@pytest.mark.parametrize(
    ("fn", "X", "H", "error", "match"),
    [
        (transpose_qkv, [[[1.0]]], 1, TypeError, "X must be a torch.Tensor"),
        (transpose_qkv, torch.ones(2, 4), 2, ValueError, "X must be 3-D"),
        (transpose_qkv, torch.ones(1, 2, 5), 2, ValueError, "num_heads=2 must divide the feature size h=5"),
        (transpose_qkv, torch.ones(1, 2, 4), 0, ValueError, "num_heads must be >= 1, got 0"),
        (transpose_qkv, torch.ones(1, 2, 4), 2.0, TypeError, "num_heads must be an int >= 1, got float 2.0"),
        (transpose_output, None, 1, TypeError, "X must be a torch.Tensor"),
        (transpose_output, torch.ones(3, 2, 2, 1), 1, ValueError, "X must be 3-D"),
        (transpose_output, torch.ones(3, 2, 2), 2, ValueError, "num_heads=2 must divide the first axis B\\*H=3"),
    ],
)
def test_transpose_bad_input(fn, X, H, error, match):
    with pytest.raises(error, match=match):
        fn(X, H)


# ---------------------------------------------------------------- MultiHeadAttention


def test_num_hiddens_must_be_divisible_by_num_heads():
    with pytest.raises(ValueError, match="num_hiddens=10 must be divisible by num_heads=3"):
        MultiHeadAttention(4, 4, 4, num_hiddens=10, num_heads=3, dropout=0.0)
    with pytest.raises(ValueError, match="num_heads must be >= 1, got 0"):
        MultiHeadAttention(4, 4, 4, num_hiddens=8, num_heads=0, dropout=0.0)


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        ({"num_hiddens": 0}, ValueError, "num_hiddens must be >= 1, got 0"),
        ({"num_hiddens": -4}, ValueError, "num_hiddens must be >= 1, got -4"),
        ({"num_hiddens": 8.0}, TypeError, "num_hiddens must be an int >= 1, got float 8.0"),
        ({"key_size": 0}, ValueError, "key_size must be >= 1"),
        ({"query_size": "4"}, TypeError, "query_size must be an int >= 1, got str"),
        ({"value_size": None}, TypeError, "value_size must be an int >= 1, got NoneType"),
        ({"num_heads": True}, TypeError, "num_heads must be an int >= 1, got bool"),
        ({"dropout": None}, TypeError, "dropout must be a float in \\[0, 1\\], got NoneType"),
        ({"dropout": 1.5}, ValueError, "dropout must be <= 1.0, got 1.5"),
    ],
)
def test_constructor_bad_arguments(change, error, match):
    args = {"key_size": 4, "query_size": 4, "value_size": 4, "num_hiddens": 8, "num_heads": 2, "dropout": 0.0}
    with pytest.raises(error, match=match):
        MultiHeadAttention(**{**args, **change})


def test_sub_layers_and_sizes():
    layer = MultiHeadAttention(key_size=3, query_size=5, value_size=7, num_hiddens=8, num_heads=2, dropout=0.0)
    assert layer.W_q.weight.shape == (8, 5) and layer.W_k.weight.shape == (8, 3)
    assert layer.W_v.weight.shape == (8, 7) and layer.W_o.weight.shape == (8, 8)
    assert all(m.bias is None for m in (layer.W_q, layer.W_k, layer.W_v, layer.W_o))
    with_bias = MultiHeadAttention(3, 5, 7, 8, 2, 0.0, bias=True)
    assert all(m.bias is not None for m in (with_bias.W_q, with_bias.W_k, with_bias.W_v, with_bias.W_o))
    assert layer.attention_weights is None and layer.head_weights is None


@pytest.mark.parametrize(
    ("queries", "keys", "values", "match"),
    [
        (torch.ones(2, 3, 4), torch.ones(2, 5, 6), torch.ones(2, 5, 7), "queries has feature size 4.*query_size=5"),
        (torch.ones(2, 3, 5), torch.ones(2, 5, 4), torch.ones(2, 5, 7), "keys has feature size 4.*key_size=3"),
        (torch.ones(2, 3, 5), torch.ones(2, 5, 3), torch.ones(2, 4, 7), "keys and values must have as many"),
        (torch.ones(2, 3, 5), torch.ones(1, 5, 3), torch.ones(1, 5, 7), "share the batch size"),
    ],
)
def test_bad_qkv_names_the_argument(queries, keys, values, match):
    layer = MultiHeadAttention(key_size=3, query_size=5, value_size=7, num_hiddens=8, num_heads=2, dropout=0.0)
    with pytest.raises(ValueError, match=match):
        layer(queries, keys, values)


def test_bad_valid_lens_speak_of_the_unsplit_batch():
    layer = MultiHeadAttention(4, 4, 4, 8, 2, 0.0)
    X = torch.ones(2, 3, 4)
    with pytest.raises(ValueError, match="B=2"):
        layer(X, X, X, torch.tensor([1, 2, 3]))
    with pytest.raises(ValueError, match="K=3"):
        layer(X, X, X, torch.tensor([1, 4]))


def to_torch_mha(ours: MultiHeadAttention) -> nn.MultiheadAttention:
    """nn.MultiheadAttention with our weights: in_proj_weight when all sizes match, else q/k/v_proj_weight."""
    query_size, key_size, value_size = ours.sizes
    bias = ours.W_q.bias is not None
    theirs = nn.MultiheadAttention(
        query_size, ours.num_heads, bias=bias, batch_first=True, kdim=key_size, vdim=value_size
    )
    with torch.no_grad():
        if theirs.in_proj_weight is not None:  # one packed weight when query, key and value sizes match
            theirs.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        else:
            theirs.q_proj_weight.copy_(ours.W_q.weight)
            theirs.k_proj_weight.copy_(ours.W_k.weight)
            theirs.v_proj_weight.copy_(ours.W_v.weight)
        theirs.out_proj.weight.copy_(ours.W_o.weight)
        if bias:
            theirs.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
            theirs.out_proj.bias.copy_(ours.W_o.bias)
    return theirs.eval()


def random_config(g: torch.Generator, i: int) -> dict:
    """Random sizes; every third config has keys/values as wide as the queries (in_proj_weight), the rest not."""
    B, Q, K, H = (int(torch.randint(1, 5, (), generator=g)) for _ in range(4))
    h = H * int(torch.randint(1, 4, (), generator=g))  # num_hiddens = query_size (nn.MultiheadAttention's embed_dim)
    d_k, d_v = (h, h) if i % 3 == 0 else (int(torch.randint(1, 9, (), generator=g)) for _ in range(2))
    return dict(B=B, Q=Q, K=K, H=H, h=h, d_k=d_k, d_v=d_v, bias=bool(i % 2), lens=["none", "1d", "2d"][(i // 3) % 3])


_CONFIG_GENERATOR = torch.Generator().manual_seed(2024)
CONFIGS = [random_config(_CONFIG_GENERATOR, i) for i in range(60)]


@pytest.mark.parametrize("seed", range(4))
def test_equals_torch_multihead_attention_on_random_shapes(seed):
    g = torch.Generator().manual_seed(seed)
    for c in CONFIGS[seed::4]:
        torch.manual_seed(seed)
        ours = MultiHeadAttention(c["d_k"], c["h"], c["d_v"], c["h"], c["H"], dropout=0.0, bias=c["bias"]).eval()
        theirs = to_torch_mha(ours)
        B, Q, K, H = c["B"], c["Q"], c["K"], c["H"]
        queries = torch.randn(B, Q, c["h"], generator=g)
        keys, values = torch.randn(B, K, c["d_k"], generator=g), torch.randn(B, K, c["d_v"], generator=g)
        snapshot = [t.clone() for t in (queries, keys, values)]
        # lengths >= 1: with no key to attend to, nn.MultiheadAttention gives NaN and we give 0 (tested below)
        if c["lens"] == "none":
            lens, kwargs = None, {}
        elif c["lens"] == "1d":
            lens = torch.randint(1, K + 1, (B,), generator=g)
            kwargs = {"key_padding_mask": ~valid_lens_to_mask(lens, 1, K)[:, 0]}  # (B, K), True = ignore
        else:
            lens = torch.randint(1, K + 1, (B, Q), generator=g)
            mask = ~valid_lens_to_mask(lens, Q, K)  # (B, Q, K), True = ignore
            kwargs = {"attn_mask": mask.repeat_interleave(H, dim=0)}  # (B*H, Q, K), batch-major like ours
        out = ours(queries, keys, values, lens)
        expected, weights = theirs(queries, keys, values, average_attn_weights=False, **kwargs)
        torch.testing.assert_close(out, expected, msg=f"outputs differ for {c}")
        torch.testing.assert_close(ours.head_weights, weights, msg=f"weights differ for {c}")
        assert ours.attention_weights.shape == (B * H, Q, K)
        assert all(torch.equal(a, b) for a, b in zip(snapshot, (queries, keys, values), strict=True))


def test_weights_layouts_agree_sum_to_one_and_mask_exactly():
    torch.manual_seed(0)
    B, Q, K, H = 2, 3, 5, 4
    layer = MultiHeadAttention(6, 7, 3, num_hiddens=8, num_heads=H, dropout=0.0)
    lens = torch.tensor([2, 5])
    out = layer(torch.randn(B, Q, 7), torch.randn(B, K, 6), torch.randn(B, K, 3), lens)
    assert out.shape == (B, Q, 8)
    per_head, folded = layer.head_weights, layer.attention_weights
    assert per_head.shape == (B, H, Q, K) and folded.shape == (B * H, Q, K)
    for b in range(B):
        for h in range(H):
            assert torch.equal(per_head[b, h], folded[b * H + h])
    torch.testing.assert_close(per_head.sum(-1), torch.ones(B, H, Q))
    assert (per_head[0, :, :, 2:] == 0).all() and (per_head[1] > 0).all()


def test_padding_is_ignored_and_empty_rows_are_zero_not_nan():
    torch.manual_seed(0)
    layer = MultiHeadAttention(4, 4, 4, 8, 2, 0.0, bias=True)
    queries, keys = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    lens = torch.tensor([0, 3])
    out = layer(queries, keys, keys, lens)
    changed = keys.clone()
    changed[1, 3:] = 100.0  # only padding changes
    torch.testing.assert_close(layer(queries, changed, changed, lens), out)
    assert (layer.head_weights[0] == 0).all() and out.isfinite().all()
    torch.testing.assert_close(out[0], layer.W_o.bias.expand(3, 8))  # zero weights -> output is W_o's bias alone


def test_self_attention_gradients_are_finite_with_an_empty_row():
    torch.manual_seed(0)
    layer = MultiHeadAttention(4, 4, 4, 4, 2, 0.0)
    X = torch.randn(2, 3, 4, requires_grad=True)
    layer(X, X, X, torch.tensor([0, 2])).pow(2).sum().backward()
    assert X.grad.isfinite().all() and all(p.grad.isfinite().all() for p in layer.parameters())


def test_dropout_only_in_training():
    torch.manual_seed(0)
    layer = MultiHeadAttention(4, 4, 4, 8, 2, dropout=0.5)
    X = torch.randn(2, 6, 4)
    layer.eval()
    first = layer(X, X, X)
    torch.testing.assert_close(layer(X, X, X), first)
    layer.train()
    assert not torch.allclose(layer(X, X, X), first)
    torch.testing.assert_close(layer.head_weights.sum(-1), torch.ones(2, 2, 6))  # kept weights are pre-dropout


# ---------------------------------------------------------------- the exercise checks of notebooks 4 and 5


def unsolved(*args):
    raise NotImplementedError


def test_checks_4_and_5_report_unsolved():
    from attention_helpers import checks

    for name in ("check_4_1", "check_4_2", "check_4_3", "check_5_1", "check_5_2", "check_5_3"):
        result = getattr(checks, name)(unsolved)
        assert not result and repr(result).startswith("⏳"), name


def test_check_4_2_needs_every_weight_and_bias():
    from attention_helpers.checks import check_4_2

    def from_torch(theirs, copy_bias=True):
        E, H, bias = theirs.embed_dim, theirs.num_heads, theirs.in_proj_bias is not None
        ours = MultiHeadAttention(E, E, E, E, H, 0.0, bias=bias)
        with torch.no_grad():
            for linear, w in zip((ours.W_q, ours.W_k, ours.W_v), theirs.in_proj_weight.chunk(3), strict=True):
                linear.weight.copy_(w)
            ours.W_o.weight.copy_(theirs.out_proj.weight)
            if bias and copy_bias:
                for linear, b in zip((ours.W_q, ours.W_k, ours.W_v), theirs.in_proj_bias.chunk(3), strict=True):
                    linear.bias.copy_(b)
                ours.W_o.bias.copy_(theirs.out_proj.bias)
        return ours

    assert check_4_2(from_torch)
    assert not check_4_2(lambda theirs: from_torch(theirs, copy_bias=False))
    wrong_type = check_4_2(lambda theirs: theirs)
    assert not wrong_type and "MultiHeadAttention" in repr(wrong_type)


def test_check_4_3_catches_head_major_order():
    from attention_helpers.checks import check_4_3

    assert check_4_3(lambda w, H: w.reshape(-1, H, *w.shape[1:]).mean(1))
    assert not check_4_3(lambda w, H: w.reshape(H, -1, *w.shape[1:]).mean(0))


def test_checks_5_pass_references_and_fail_near_misses():
    import torch.nn.functional as F

    from attention_helpers.checks import check_5_1, check_5_2, check_5_3
    from attention_helpers.transformer import positional_encoding

    assert check_5_1(lambda X, W_q, W_k, W_v: F.scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v))
    unscaled = check_5_1(lambda X, W_q, W_k, W_v: torch.softmax((X @ W_q) @ (X @ W_k).T, -1) @ (X @ W_v))
    assert not unscaled and "worked example" in repr(unscaled)
    assert check_5_2(lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril(K - Q))
    assert not check_5_2(lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril())  # top-left, like is_causal

    def by_hand(n, d):  # sin on even features, cos on odd ones, as 5.4 writes it
        pos = torch.arange(n, dtype=torch.float32)[:, None]  # (n, 1)
        angle = pos / 10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d)  # (n, d/2)
        return torch.stack([angle.sin(), angle.cos()], -1).flatten(1)  # (n, d)

    assert check_5_3(by_hand)
    swapped = check_5_3(lambda n, d: by_hand(n, d).roll(1, dims=1))
    assert not swapped and "wrong value" in repr(swapped)
    itself = check_5_3(positional_encoding)
    assert not itself and "positional_encoding" in repr(itself)  # the exercise asks for it without the helper


# ---------------------------------------------------------------- issue 17: bias, devices and dtypes


@pytest.mark.parametrize("bias", ["no", 0, None])
def test_bias_must_be_a_flag(bias):
    with pytest.raises(TypeError, match="bias must be True or False"):
        MultiHeadAttention(4, 4, 4, 8, 2, 0.0, bias=bias)
    with pytest.raises(TypeError, match="bias must be True or False"):
        MultiHeadAttention(8, 2, 0.0, bias)


@pytest.mark.parametrize("which", [0, 1, 2])
def test_inputs_on_another_device_or_dtype_are_refused(which):
    layer = MultiHeadAttention(4, 4, 4, 8, 2, 0.0)
    args = [torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)]
    moved = list(args)
    moved[which] = moved[which].to("meta")
    with pytest.raises(ValueError, match="queries, keys, values must be on one device"):
        layer(*moved)
    moved = list(args)
    moved[which] = moved[which].double()
    with pytest.raises(TypeError, match="queries, keys, values must have one dtype"):
        layer(*moved)
    with pytest.raises(TypeError, match="are torch.float16 but the layer's parameters are torch.float32"):
        layer(*(a.half() for a in args))
    with pytest.raises(ValueError, match="valid_lens is on meta but the scores are on cpu"):
        layer(*args, torch.tensor([1, 2], device="meta"))


def test_both_editions_give_the_same_layer_for_the_same_weights():
    torch.manual_seed(0)
    zh = MultiHeadAttention(6, 4, 5, 8, 2, 0.0).eval()
    en = MultiHeadAttention(8, 2, 0.0).eval()
    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 7, 6), torch.randn(2, 7, 5)
    en(q, k, v)  # the first call reads the sizes
    en.load_state_dict(zh.state_dict())
    lens = torch.tensor([[1, 7, 3], [0, 2, 7]])
    torch.testing.assert_close(en(q, k, v, lens), zh(q, k, v, lens))
    torch.testing.assert_close(en.attention.attention_weights, zh.attention_weights)
