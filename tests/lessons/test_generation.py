"""The KV cache, grouped-query attention and RoPE, against full attention, PyTorch's own layers and the formulas."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attention_helpers.lessons.generation import (
    CachedDecoder,
    CausalSelfAttention,
    KVCache,
    apply_rope,
    causal_attention,
    kv_cache_bytes,
    pool_kv_heads,
    repeat_kv,
    rope_angles,
)


def decode(layer, x, chunks):
    """Feed x (B, L, d_model) through layer with a cache, `chunks` tokens at a time -> (B, L, d_model)."""
    cache = layer.new_cache(x.shape[0], x.shape[1])
    outs = [layer(x[:, t : t + chunks], cache) for t in range(0, x.shape[1], chunks)]
    assert cache.length == x.shape[1]
    return torch.cat(outs, dim=1)


# ---------------------------------------------------------------- cached decoding = full causal attention


@pytest.mark.parametrize(("H", "G", "rope"), [(4, 4, True), (4, 2, True), (4, 1, False), (2, 1, True)])
@pytest.mark.parametrize("chunks", [1, 3])
def test_cached_decoding_equals_full_causal_attention(H, G, rope, chunks):
    torch.manual_seed(0)
    layer = CausalSelfAttention(16, H, G, rope=rope).eval()
    x = torch.randn(2, 7, 16)
    with torch.no_grad():
        full = layer(x)  # (B, L, d_model), no cache
        full_weights = layer.attention_weights  # (B, H, L, L)
        cached = decode(layer, x, chunks)
        last_weights = layer.attention_weights  # the last chunk's rows
    torch.testing.assert_close(cached, full)
    rows = last_weights.shape[2]
    torch.testing.assert_close(last_weights, full_weights[:, :, -rows:])
    assert (full_weights.triu(diagonal=1) == 0).all()  # causal: nothing above the diagonal


def test_causal_attention_is_bottom_right_and_matches_sdpa():
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 4, 3, 8), torch.randn(2, 4, 6, 8), torch.randn(2, 4, 6, 8)
    out, weights = causal_attention(q, k, v)
    keep = torch.ones(3, 6, dtype=torch.bool).tril(diagonal=3)  # query t sees keys 0 .. 3 + t
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=keep))
    assert (weights[..., ~keep] == 0).all() and (weights[..., keep] > 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, 3))


def test_the_cache_holds_rotated_keys_and_the_formula_counts_its_bytes():
    torch.manual_seed(2)
    layer = CausalSelfAttention(16, 4, 2).eval()
    x = torch.randn(1, 5, 16)
    cache = layer.new_cache(1, 8)
    with torch.no_grad():
        layer(x, cache)
        k = layer.W_k(x).reshape(1, 5, 2, 4).transpose(1, 2)  # (B, G, L, d), not rotated
    torch.testing.assert_close(cache.keys[:, :, :5], apply_rope(k, torch.arange(5)))
    assert (cache.keys[:, :, 5:] == 0).all()
    assert cache.nbytes == kv_cache_bytes(1, 2, 4, 8, bytes_per_value=4)
    assert kv_cache_bytes(32, 8, 128, 8192, 2) == 2**30  # Llama-3-8B-like, 8k tokens in bf16: 1 GiB
    assert kv_cache_bytes(32, 8, 128, 131072, 2) == 16 * 2**30


# ---------------------------------------------------------------- GQA, MQA, MHA


def test_gqa_with_as_many_groups_as_heads_is_standard_multi_head_attention():
    torch.manual_seed(3)
    layer = CausalSelfAttention(16, 4, 4, rope=False).eval()
    mha = nn.MultiheadAttention(16, 4, bias=False, batch_first=True).eval()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([layer.W_q.weight, layer.W_k.weight, layer.W_v.weight]))
        mha.out_proj.weight.copy_(layer.W_o.weight)
        x = torch.randn(2, 6, 16)
        future = torch.ones(6, 6, dtype=torch.bool).triu(diagonal=1)  # True = may NOT attend
        expected, expected_weights = mha(x, x, x, attn_mask=future, average_attn_weights=False)
        torch.testing.assert_close(layer(x), expected)
    torch.testing.assert_close(layer.attention_weights, expected_weights)


def test_gqa_with_one_group_is_multi_query_attention_and_matches_sdpa_enable_gqa():
    torch.manual_seed(4)
    q, k, v = torch.randn(2, 4, 5, 8), torch.randn(2, 1, 5, 8), torch.randn(2, 1, 5, 8)
    out, _ = causal_attention(q, k, v)
    # MQA: every query head uses the one K/V head (broadcast, no copy)
    torch.testing.assert_close(
        out, F.scaled_dot_product_attention(q, k.expand(2, 4, 5, 8), v.expand(2, 4, 5, 8), is_causal=True)
    )
    k2, v2 = torch.randn(2, 2, 5, 8), torch.randn(2, 2, 5, 8)
    torch.testing.assert_close(
        causal_attention(q, k2, v2)[0], F.scaled_dot_product_attention(q, k2, v2, is_causal=True, enable_gqa=True)
    )


def test_repeat_kv_is_repeat_interleave_not_repeat():
    x = torch.arange(2 * 3).float().reshape(1, 3, 1, 2)  # (B, G, L, d)
    out = repeat_kv(x, 2)
    assert out.shape == (1, 6, 1, 2)
    assert out[0, :, 0, 0].tolist() == [0, 0, 2, 2, 4, 4]  # head h uses group h // 2
    assert torch.equal(repeat_kv(x, 1), x)


# ---------------------------------------------------------------- RoPE


def test_rope_angles_follow_the_formula():
    angles = rope_angles(torch.arange(5), 8)
    assert angles.shape == (5, 4) and angles.dtype == torch.float64
    for p in range(5):
        for j in range(4):
            assert abs(angles[p, j].item() - p * 10000 ** (-2 * j / 8)) < 1e-6


def test_rope_rotates_each_pair_and_keeps_lengths():
    x = torch.tensor([[1.0, 0.0, 0.0, 2.0]])  # (L=1, d=4)
    out = apply_rope(x, torch.tensor([3]))
    a0, a1 = 3.0, 3.0 * 10000**-0.5
    expected = torch.tensor([[math.cos(a0), math.sin(a0), -2 * math.sin(a1), 2 * math.cos(a1)]])
    torch.testing.assert_close(out, expected)
    y = torch.randn(2, 3, 6, 8)
    torch.testing.assert_close(apply_rope(y, torch.arange(6)).norm(dim=-1), y.norm(dim=-1))
    torch.testing.assert_close(apply_rope(y, torch.zeros(6, dtype=torch.long)), y)  # position 0: no rotation


@pytest.mark.parametrize("shift", [1, 7, 100, 5000])
def test_rope_scores_depend_only_on_offsets(shift):
    torch.manual_seed(5)
    q, k = torch.randn(1, 16, dtype=torch.float64), torch.randn(1, 16, dtype=torch.float64)
    n = 6
    positions = torch.arange(n)
    queries, keys = apply_rope(q.expand(n, 16), positions), apply_rope(k.expand(n, 16), positions)
    scores = queries @ keys.T  # (n, n): score of position i's query with position j's key
    shifted = apply_rope(q.expand(n, 16), positions + shift) @ apply_rope(k.expand(n, 16), positions + shift).T
    torch.testing.assert_close(shifted, scores)
    for offset in range(-n + 1, n):  # constant along every diagonal
        diagonal = scores.diagonal(offset)
        torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal))
    assert (scores - scores.T).abs().max() > 1e-3  # but it does depend on the sign of i - j


def test_sinusoidal_encoding_added_does_not_depend_only_on_offsets():
    from attention_helpers.transformer import positional_encoding

    torch.manual_seed(6)
    q, k = torch.randn(16), torch.randn(16)
    P = positional_encoding(6, 16)
    scores = (q + P) @ (k + P).T  # (6, 6)
    assert (scores.diagonal(0) - scores.diagonal(0)[0]).abs().max() > 1e-2


# ---------------------------------------------------------------- contract: inputs untouched, half precision


def test_no_input_is_modified():
    torch.manual_seed(7)
    layer = CausalSelfAttention(16, 4, 2).eval()
    x = torch.randn(1, 4, 16)
    k, v = torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4)
    q = torch.randn(1, 4, 3, 4)
    positions = torch.arange(3)
    snapshot = [t.clone() for t in (x, k, v, q, positions)]
    cache = KVCache(1, 2, 4, 8)
    cache.append(k, v)
    causal_attention(q, k, v)
    apply_rope(q, positions)
    repeat_kv(k, 2)
    with torch.no_grad():
        layer(x, layer.new_cache(1, 4))
        layer(x)
    for before, after in zip(snapshot, (x, k, v, q, positions), strict=True):
        assert torch.equal(before, after)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision(dtype):
    torch.manual_seed(8)
    layer = CausalSelfAttention(16, 4, 2).eval()
    x = torch.randn(1, 6, 16)
    with torch.no_grad():
        reference = layer(x)
        half = layer.to(dtype)
        full = half(x.to(dtype))
        cached = decode(half, x.to(dtype), 1)
    assert full.dtype == cached.dtype == dtype and torch.isfinite(cached).all()
    torch.testing.assert_close(cached.float(), reference, atol=3e-2, rtol=3e-2)
    torch.testing.assert_close(cached, full, atol=1e-2, rtol=1e-2)
    y = torch.randn(2, 5, 8).to(dtype)
    assert apply_rope(y, torch.arange(5)).dtype == dtype
    torch.testing.assert_close(
        apply_rope(y, torch.arange(5)).float(), apply_rope(y.float(), torch.arange(5)), atol=1e-2, rtol=1e-2
    )


def test_the_cache_refuses_to_silently_drop_gradients():
    layer = CausalSelfAttention(8, 2, 1)
    cache = layer.new_cache(1, 4)
    with pytest.raises(ValueError, match=r"torch.no_grad\(\)"):
        layer(torch.randn(1, 1, 8), cache)
    assert cache.length == 0
    with torch.no_grad():
        layer(torch.randn(1, 1, 8), cache)
    assert cache.length == 1


def test_gradients_flow_without_a_cache():
    layer = CausalSelfAttention(8, 2, 1)
    x = torch.randn(1, 3, 8, requires_grad=True)
    layer(x).sum().backward()
    assert torch.isfinite(x.grad).all() and torch.isfinite(layer.W_k.weight.grad).all()


# ---------------------------------------------------------------- bad input: clear errors naming the argument


def test_the_cache_rejects_tokens_of_the_wrong_shape_or_dtype():
    cache = KVCache(1, 2, 4, 8)
    good = torch.randn(1, 2, 1, 4)
    with pytest.raises(ValueError, match=r"k must have shape \(B=1, G=2, T, d=4\)"):
        cache.append(torch.randn(1, 3, 1, 4), good)
    with pytest.raises(ValueError, match="v must be 4-D"):
        cache.append(good, torch.randn(2, 1, 4))
    with pytest.raises(TypeError, match="k has dtype torch.float64 but the cache holds torch.float32"):
        cache.append(good.double(), good)
    with pytest.raises(TypeError, match="v must be a torch.Tensor"):
        cache.append(good, [1.0])
    layer = CausalSelfAttention(16, 4, 2)
    layer_cache = layer.new_cache(1, 8)
    with pytest.raises(TypeError, match="x has dtype torch.float64"):
        layer(torch.randn(1, 1, 16, dtype=torch.float64), layer_cache)
    with pytest.raises(ValueError, match="d_model=16"):
        layer(torch.randn(1, 1, 12), layer_cache)
    with pytest.raises(ValueError, match="batch_size=1"):
        layer(torch.randn(2, 1, 16), layer_cache)
    with pytest.raises(ValueError, match=r"x must be 3-D"):
        layer(torch.randn(16), layer_cache)
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        layer(torch.randn(1, 1, 16), cache=(torch.zeros(1), torch.zeros(1)))
    assert layer_cache.length == 0 and cache.length == 0  # nothing half-written


def test_num_kv_heads_must_divide_num_heads():
    with pytest.raises(ValueError, match="num_kv_heads=3 must divide num_heads=4"):
        CausalSelfAttention(16, 4, 3)
    with pytest.raises(ValueError, match=r"k and v have G=3 heads \(axis 1\), which must divide q's H=4 heads"):
        causal_attention(torch.randn(1, 4, 2, 8), torch.randn(1, 3, 2, 8), torch.randn(1, 3, 2, 8))
    with pytest.raises(TypeError, match="num_kv_heads must be an int"):
        CausalSelfAttention(16, 4, 2.0)


def test_rope_needs_an_even_d_head():
    with pytest.raises(ValueError, match=r"d_model // num_heads = 15 // 3 = 5 features per head must be even"):
        CausalSelfAttention(15, 3)
    CausalSelfAttention(15, 3, rope=False)  # no rotation: any width
    with pytest.raises(ValueError, match="d_head must be even"):
        rope_angles(torch.arange(3), 5)
    with pytest.raises(ValueError, match="d_head=7"):
        apply_rope(torch.randn(3, 7), torch.arange(3))
    CausalSelfAttention(15, 3, rope=False)  # without RoPE an odd d_head is fine


def test_rope_rejects_bad_positions():
    with pytest.raises(ValueError, match=r"positions must have shape \(4,\)"):
        apply_rope(torch.randn(4, 8), torch.arange(3))
    with pytest.raises(TypeError, match="positions must be an integer tensor"):
        apply_rope(torch.randn(4, 8), torch.arange(4.0))
    with pytest.raises(TypeError, match="positions must be a torch.Tensor of shape \\(L,\\)"):
        apply_rope(torch.randn(4, 8), 3)
    with pytest.raises(ValueError, match="positions must be >= 0"):
        apply_rope(torch.randn(2, 8), torch.tensor([-1, 0]))
    with pytest.raises(ValueError, match="base must be > 1"):
        rope_angles(torch.arange(2), 8, base=1)


def test_positions_beyond_the_capacity_are_refused():
    cache = KVCache(1, 1, 4, 3)
    cache.append(torch.randn(1, 1, 2, 4), torch.randn(1, 1, 2, 4))
    with pytest.raises(ValueError, match=r"positions 2 \.\. 3 are beyond the cache's capacity=3"):
        cache.append(torch.randn(1, 1, 2, 4), torch.randn(1, 1, 2, 4))
    assert cache.length == 2
    layer = CausalSelfAttention(8, 2)
    layer_cache = layer.new_cache(1, 2)
    with torch.no_grad():
        layer(torch.randn(1, 2, 8), layer_cache)
        with pytest.raises(ValueError, match="capacity=2"):
            layer(torch.randn(1, 1, 8), layer_cache)
    with pytest.raises(ValueError, match="capacity must be >= 1"):
        KVCache(1, 1, 4, 0)


def test_other_bad_arguments():
    with pytest.raises(ValueError, match="n_rep must be >= 1"):
        repeat_kv(torch.randn(1, 2, 3, 4), 0)
    with pytest.raises(ValueError, match=r"x must be 4-D \(B, G, L, d\)"):
        repeat_kv(torch.randn(2, 3, 4), 2)
    with pytest.raises(ValueError, match="T=4 positions but k only L=2"):
        causal_attention(torch.randn(1, 1, 4, 8), torch.randn(1, 1, 2, 8), torch.randn(1, 1, 2, 8))
    with pytest.raises(TypeError, match="q, k, v must have one dtype"):
        causal_attention(torch.randn(1, 1, 2, 8), torch.randn(1, 1, 2, 8).double(), torch.randn(1, 1, 2, 8))
    with pytest.raises(TypeError, match="num_tokens must be an int"):
        kv_cache_bytes(1, 1, 1, 2.5)
    with pytest.raises(TypeError, match="dtype must be a floating-point torch.dtype"):
        KVCache(1, 1, 4, 2, dtype=torch.int64)


# ---------------------------------------------------------------- a trained model as a decoder; pooling K/V heads


def test_qk_gives_the_queries_and_keys_their_own_input_and_the_cache_holds_those_keys():
    torch.manual_seed(7)
    layer = CausalSelfAttention(16, 4, 2, rope=False).eval()
    x, extra = torch.randn(2, 5, 16), torch.randn(5, 16)  # a position vector per token
    with torch.no_grad():
        torch.testing.assert_close(layer(x, qk=x), layer(x))
        cache = layer.new_cache(2, 5)
        stepwise = torch.cat([layer(x[:, t : t + 1], cache, qk=x[:, t : t + 1] + extra[t]) for t in range(5)], dim=1)
        full = layer(x, qk=x + extra)
        keys = layer.W_k(x + extra).reshape(2, 5, 2, 4).transpose(1, 2)  # (B, G, L, d): of token plus position
        values = layer.W_v(x).reshape(2, 5, 2, 4).transpose(1, 2)  # of the token alone
    torch.testing.assert_close(stepwise, full)
    torch.testing.assert_close(cache.keys, keys)
    torch.testing.assert_close(cache.values, values)
    assert not torch.allclose(full, layer(x).detach())


def test_pool_kv_heads_averages_each_groups_projections_and_keeps_the_queries():
    torch.manual_seed(8)
    layer = CausalSelfAttention(16, 4, rope=False).eval()
    state = torch.random.get_rng_state()
    one = pool_kv_heads(layer, 1)
    assert torch.equal(torch.random.get_rng_state(), state)  # the copy's random start does not move the caller's RNG
    assert one.num_kv_heads == 1 and one.W_k.weight.shape == (4, 16)
    torch.testing.assert_close(one.W_k.weight, layer.W_k.weight.reshape(4, 4, 16).mean(0))
    torch.testing.assert_close(one.W_v.weight, layer.W_v.weight.reshape(4, 4, 16).mean(0))
    assert torch.equal(one.W_q.weight, layer.W_q.weight) and torch.equal(one.W_o.weight, layer.W_o.weight)
    two = pool_kv_heads(layer, 2)  # heads 0, 1 and 2, 3: neighbours, as repeat_kv groups them
    torch.testing.assert_close(two.W_k.weight[:4], (layer.W_k.weight[:4] + layer.W_k.weight[4:8]) / 2)
    x = torch.randn(1, 6, 16)
    with torch.no_grad():
        torch.testing.assert_close(pool_kv_heads(layer, 4)(x), layer(x))  # G = H: nothing pooled
        assert not torch.allclose(one(x), layer(x))
        torch.testing.assert_close(pool_kv_heads(two, 1)(x), one(x))  # 4 -> 2 -> 1 is 4 -> 1


@pytest.fixture(scope="module")
def trained():
    from attention_helpers.lessons.induction import make_induction_data, trained_model

    return trained_model(0), make_induction_data(32, seed=1234)


def test_cached_decoder_is_the_trained_model_in_one_pass_and_token_by_token(trained):
    model, data = trained
    decoder = CachedDecoder(model)
    with torch.no_grad():
        expected = model(data.tokens)
        torch.testing.assert_close(decoder(data.tokens), expected)
        torch.testing.assert_close(decoder.weights, model.weights)  # (N, L, H, T, T)
        caches = decoder.new_caches(len(data))
        chunks = [decoder(data.tokens[:, a:b], caches) for a, b in ((0, 5), (5, 6), (6, 24))]
    torch.testing.assert_close(torch.cat(chunks, dim=1), expected)
    assert [c.length for c in caches] == [24, 24]
    assert decoder.embed is model.embed and decoder.unembed is model.unembed  # shared, not copied


def test_cached_decoder_pools_only_the_layers_it_is_told(trained):
    model, data = trained
    decoder = CachedDecoder(model, num_kv_heads=1, pool=(1,))
    assert [layer.num_kv_heads for layer in decoder.layers] == [2, 1]
    assert decoder.new_caches(3)[1].keys.shape == (3, 1, 24, 16)  # layer 1's cache: one K/V head
    with torch.no_grad():
        pooled, full = decoder(data.tokens), model(data.tokens)
        torch.testing.assert_close(decoder.weights[:, 0], model.weights[:, 0])  # layer 0 untouched
        assert not torch.allclose(pooled, full)
        torch.testing.assert_close(CachedDecoder(model, num_kv_heads=2)(data.tokens), full)  # G = H: the model
