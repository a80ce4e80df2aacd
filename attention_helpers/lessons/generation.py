"""Attention while generating: a KV cache, grouped-query attention (`repeat_kv`) and rotary position embeddings.

Vocabulary: B batch, H query heads, G key/value heads (the groups; G divides H), T new tokens, L tokens so far
(cached and new), d features per head. `CausalSelfAttention` puts the pieces together the way Llama-style
decoders do (Meta's `llama/model.py`): project, rotate queries and keys (RoPE), write the new keys and values into
the cache, then let the T new queries attend causally (bottom-right aligned) to all L keys.
For inference: the cache is written in place and keeps no gradients, so decoding with one needs `torch.no_grad()`.
`pool_kv_heads` turns a layer's key/value heads into fewer by mean-pooling (Ainslie et al., 2023), and
`CachedDecoder` runs notebook 10's trained transformer with these layers, a cache per layer.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .. import _validate as check

__all__ = [
    "CachedDecoder",
    "CausalSelfAttention",
    "KVCache",
    "apply_rope",
    "causal_attention",
    "kv_cache_bytes",
    "pool_kv_heads",
    "repeat_kv",
    "rope_angles",
]


def kv_cache_bytes(
    num_layers: int, num_kv_heads: int, d_head: int, num_tokens: int, bytes_per_value: int = 2, batch_size: int = 1
) -> int:
    """Bytes a KV cache holds: 2 (keys and values) · layers · kv_heads · d_head · tokens · bytes (· batch)."""
    for name, value in (("num_layers", num_layers), ("num_kv_heads", num_kv_heads), ("d_head", d_head)):
        check.positive_int(name, value)
    check.int_at_least("num_tokens", num_tokens, 0)
    check.positive_int("bytes_per_value", bytes_per_value)
    check.positive_int("batch_size", batch_size)
    return 2 * num_layers * num_kv_heads * d_head * num_tokens * bytes_per_value * batch_size


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """Keys or values (B, G, L, d) -> (B, G * n_rep, L, d): each K/V head repeated for the n_rep query heads of its group."""
    check.floating_tensor("x", x, dims=4, shape="(B, G, L, d)")
    check.positive_int("n_rep", n_rep)
    return x.repeat_interleave(n_rep, dim=1)  # (B, G, L, d) -> (B, G*n_rep, L, d): heads 0,0,..,1,1,..


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """q (B, H, T, d), k and v (B, G, L, d), T <= L -> outputs (B, H, T, d), weights (B, H, T, L).

    The T queries are the last T positions: query t sees keys 0 .. L - T + t (the bottom-right causal mask).
    Query head h uses K/V head h // (H / G)."""
    check.floating_tensor("q", q, dims=4, shape="(B, H, T, d)")
    check.floating_tensor("k", k, dims=4, shape="(B, G, L, d)")
    check.floating_tensor("v", v, dims=4, shape="(B, G, L, d)")
    check.same_device_and_dtype([("q", q), ("k", k), ("v", v)])
    B, H, T, d = q.shape  # batch, query heads, new tokens, features per head
    G, L = k.shape[1], k.shape[2]  # key/value heads, tokens so far
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape (B, G, L, d), got {tuple(k.shape)} and {tuple(v.shape)}")
    if k.shape[0] != B or k.shape[3] != d:
        raise ValueError(f"k must be (B={B}, G, L, d={d}) to match q {tuple(q.shape)}, got {tuple(k.shape)}")
    if G == 0 or H % G:
        raise ValueError(
            f"k and v have G={G} heads (axis 1), which must divide q's H={H} heads: each K/V head serves H / G query "
            f"heads; got q {tuple(q.shape)}, k {tuple(k.shape)}"
        )
    if T > L:
        raise ValueError(f"q has T={T} positions but k only L={L}: the new tokens must be among the keys (T <= L)")
    k, v = repeat_kv(k, H // G), repeat_kv(v, H // G)  # (B, H, L, d) each
    scale = 1 / math.sqrt(d) if d else 1.0  # d = 0: every score is 0 whatever the scale
    scores = (q * scale) @ k.transpose(-2, -1)  # (B, H, T, d) @ (B, H, d, L) -> (B, H, T, L), scaled first (float16)
    if bool(scores.isinf().any()):  # softmax would give NaN (inf - inf): say so instead
        raise ValueError(
            f"q and k give scores q·k/√d beyond {q.dtype}'s range (inf): scale them down, or compute in a wider dtype"
        )
    keep = torch.ones(T, L, dtype=torch.bool, device=q.device).tril(diagonal=L - T)  # (T, L), True = may attend
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)  # a new tensor
    weights = torch.softmax(scores, dim=-1, dtype=torch.float32).to(q.dtype)  # (B, H, T, L), float32 inside
    return weights @ v, weights  # (B, H, T, L) @ (B, H, L, d) -> (B, H, T, d)


def _positions(positions: object, length: int | None = None) -> torch.Tensor:
    """A 1-D integer tensor of positions >= 0 (of `length` entries if given), or a clear error."""
    check.integer_tensor("positions", positions, shape="(L,), e.g. torch.arange(L)")
    if positions.dim() != 1 or (length is not None and positions.shape[0] != length):
        wanted = f"({length},), one per row of x" if length is not None else "(L,)"
        raise ValueError(f"positions must have shape {wanted}, got {tuple(positions.shape)}")
    check.has_values("positions", positions)
    if (positions < 0).any():
        raise ValueError(f"positions must be >= 0, got {positions.min().item()}")
    return positions


def rope_angles(positions: torch.Tensor, d_head: int, base: float = 10000.0) -> torch.Tensor:
    """Positions (L,) -> angles (L, d_head / 2), float64: position p turns feature pair j by p · base^(-2j / d_head)."""
    check.positive_int("d_head", d_head)
    if d_head % 2:
        raise ValueError(f"d_head must be even: RoPE rotates pairs of features, got d_head={d_head}")
    base = check.real("base", base, low=1.0, low_open=True)  # 10000 in the RoPE paper
    positions = _positions(positions)
    theta = base ** (-torch.arange(0, d_head, 2, dtype=torch.float64, device=positions.device) / d_head)  # (d/2,)
    return positions.double()[:, None] * theta  # (L, 1) * (d/2,) -> (L, d/2)


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """x (..., L, d) at positions (L,) -> rotated x, same shape and dtype: pair (2j, 2j+1) turned by rope_angles."""
    check.floating_tensor("x", x, shape="(..., L, d)")
    if x.dim() < 2:
        raise ValueError(f"x must have at least 2 dims (..., L, d), got shape {tuple(x.shape)}")
    *lead, L, d = x.shape  # any leading axes (batch, heads), positions, features per head
    if d % 2:
        raise ValueError(f"x's last axis must be even (d_head): RoPE rotates pairs of features, got d_head={d}")
    positions = _positions(positions, L)
    check.same_device([("x", x), ("positions", positions)])
    work = torch.promote_types(x.dtype, torch.float32)  # float16/bfloat16 are rotated in float32
    angles = rope_angles(positions, d, base)  # (L, d/2), float64
    cos, sin = angles.cos().to(work), angles.sin().to(work)  # (L, d/2) each
    pairs = x.to(work).reshape(*lead, L, d // 2, 2)  # (..., L, d/2, 2)
    x0, x1 = pairs[..., 0], pairs[..., 1]  # (..., L, d/2) each
    rotated = torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1)  # (..., L, d/2, 2)
    return rotated.reshape(x.shape).to(x.dtype)  # (..., L, d)


class KVCache:
    """The keys and values of the tokens seen so far: buffers (B, G, capacity, d) filled up to `length`."""

    def __init__(
        self,
        batch_size: int,
        num_kv_heads: int,
        d_head: int,
        capacity: int,
        dtype: torch.dtype = torch.float32,
        device: torch.device | str = "cpu",
    ):
        for name, value in (("batch_size", batch_size), ("num_kv_heads", num_kv_heads), ("d_head", d_head)):
            check.positive_int(name, value)
        check.positive_int("capacity", capacity)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point or dtype not in check.COMPUTABLE_DTYPES:
            raise TypeError(
                f"dtype must be a floating-point torch.dtype PyTorch computes with (float32, float64, float16 or "
                f"bfloat16), got {check.describe(dtype)}"
            )
        device = check.device("device", device)
        shape = (batch_size, num_kv_heads, capacity, d_head)  # (B, G, capacity, d)
        self.keys = torch.zeros(shape, dtype=dtype, device=device)
        self.values = torch.zeros(shape, dtype=dtype, device=device)
        self.length = 0  # positions filled so far

    @property
    def capacity(self) -> int:
        """How many positions the buffers hold."""
        return self.keys.shape[2]

    @property
    def nbytes(self) -> int:
        """Bytes of the two buffers (kv_cache_bytes for one layer at `capacity` tokens)."""
        return self.keys.numel() * self.keys.element_size() * 2

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """k, v (B, G, T, d) of T new tokens -> all keys and values so far, (B, G, length + T, d) each."""
        B, G, capacity, d = self.keys.shape  # batch, K/V heads, positions it holds, features per head
        for name, x in (("k", k), ("v", v)):
            check.floating_tensor(name, x, dims=4, shape=f"(B={B}, G={G}, T, d={d})")
            if x.shape[0] != B or x.shape[1] != G or x.shape[3] != d:
                raise ValueError(
                    f"{name} must have shape (B={B}, G={G}, T, d={d}) for this cache, got {tuple(x.shape)}"
                )
            if x.dtype != self.keys.dtype:
                raise TypeError(f"{name} has dtype {x.dtype} but the cache holds {self.keys.dtype}")
            if x.device != self.keys.device:
                raise ValueError(f"{name} is on {x.device} but the cache on {self.keys.device}; move it with .to()")
        if k.shape != v.shape:
            raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
        if torch.is_grad_enabled() and (k.requires_grad or v.requires_grad):
            raise ValueError(
                "the KV cache is for inference and keeps no gradients: decode under `with torch.no_grad():` "
                "(k or v requires grad here)"
            )
        T = k.shape[2]  # new tokens
        if self.length + T > capacity:
            raise ValueError(
                f"positions {self.length} .. {self.length + T - 1} are beyond the cache's capacity={capacity}: "
                f"it holds {self.length} tokens and was given {T} more; make it with a larger capacity"
            )
        self.keys[:, :, self.length : self.length + T] = k  # the cache's own buffers; k and v are only read
        self.values[:, :, self.length : self.length + T] = v
        self.length += T
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]  # (B, G, L, d) each

    def __repr__(self) -> str:
        B, G, capacity, d = self.keys.shape
        return f"KVCache(B={B}, G={G}, d={d}, {self.length}/{capacity} positions, {self.keys.dtype})"


class CausalSelfAttention(nn.Module):
    """Causal self-attention for generation: H query heads sharing G K/V heads (GQA), RoPE, an optional KV cache."""

    def __init__(
        self, d_model: int, num_heads: int, num_kv_heads: int | None = None, *, rope: bool = True, base: float = 10000.0
    ):
        super().__init__()
        check.positive_int("d_model", d_model)
        check.positive_int("num_heads", num_heads)
        num_kv_heads = num_heads if num_kv_heads is None else check.positive_int("num_kv_heads", num_kv_heads)
        if d_model % num_heads:
            raise ValueError(
                f"num_heads={num_heads} must divide d_model={d_model}: each head gets d_model // num_heads"
            )
        if num_heads % num_kv_heads:
            raise ValueError(
                f"num_kv_heads={num_kv_heads} must divide num_heads={num_heads}: each K/V head serves a group of "
                f"num_heads // num_kv_heads query heads"
            )
        check.boolean("rope", rope)
        base = check.real("base", base, low=1.0, low_open=True)
        self.d_model, self.num_heads, self.num_kv_heads = d_model, num_heads, num_kv_heads
        self.d_head = d_model // num_heads
        if rope and self.d_head % 2:
            raise ValueError(
                f"d_model // num_heads = {d_model} // {num_heads} = {self.d_head} features per head must be even "
                f"with rope=True: RoPE rotates pairs of features; choose d_model and num_heads so that it is, or "
                f"pass rope=False"
            )
        self.rope, self.base = rope, base
        self.W_q = nn.Linear(d_model, num_heads * self.d_head, bias=False)
        self.W_k = nn.Linear(d_model, num_kv_heads * self.d_head, bias=False)
        self.W_v = nn.Linear(d_model, num_kv_heads * self.d_head, bias=False)
        self.W_o = nn.Linear(num_heads * self.d_head, d_model, bias=False)
        self.attention_weights: torch.Tensor | None = None  # (B, H, T, L) of the last call

    def new_cache(self, batch_size: int, capacity: int, dtype: torch.dtype | None = None) -> KVCache:
        """An empty cache for this layer: (B, G, capacity, d) keys and values."""
        dtype = self.W_k.weight.dtype if dtype is None else dtype
        check.positive_int("batch_size", batch_size)
        check.positive_int("capacity", capacity)
        return KVCache(batch_size, self.num_kv_heads, self.d_head, capacity, dtype, self.W_k.weight.device)

    def forward(self, x: torch.Tensor, cache: KVCache | None = None, qk: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, T, d_model): T new tokens, after the cache's `length` ones -> (B, T, d_model); keeps the weights.

        `qk` (B, T, d_model), if given, is what the queries and keys are read from instead of x (a model that adds
        positions to their input only, as notebook 10's does); the values read x. The cache holds those keys."""
        check.floating_tensor("x", x, dims=3, shape="(B, T, d_model)")
        if qk is not None:
            check.floating_tensor("qk", qk, dims=3, shape="(B, T, d_model), like x")
            if qk.shape != x.shape:
                raise ValueError(f"qk must have x's shape {tuple(x.shape)}, got {tuple(qk.shape)}")
            check.same_device_and_dtype([("x", x), ("qk", qk)])
        B, T, _ = x.shape  # batch, new tokens, model width
        if x.shape[2] != self.d_model:
            raise ValueError(f"x has {x.shape[2]} features but the layer was built with d_model={self.d_model}")
        if x.dtype != self.W_q.weight.dtype:
            raise TypeError(f"x has dtype {x.dtype} but the layer's weights are {self.W_q.weight.dtype}")
        if x.device != self.W_q.weight.device:
            raise ValueError(f"x is on {x.device} but the layer on {self.W_q.weight.device}; move one with .to()")
        if cache is not None and not isinstance(cache, KVCache):
            raise TypeError(f"cache must be a KVCache (layer.new_cache(...)) or None, got {check.describe(cache)}")
        if cache is not None and (cache.keys.shape[1], cache.keys.shape[3]) != (self.num_kv_heads, self.d_head):
            raise ValueError(
                f"cache must hold G={self.num_kv_heads} K/V heads of d={self.d_head} features for this layer, got "
                f"{cache!r}; make it with layer.new_cache(...)"
            )
        if cache is not None and cache.keys.shape[0] != B:
            raise ValueError(f"x has batch size {B} but the cache was made for batch_size={cache.keys.shape[0]}")
        start = 0 if cache is None else cache.length  # tokens already seen
        if cache is not None and start + T > cache.capacity:
            raise ValueError(
                f"positions {start} .. {start + T - 1} are beyond the cache's capacity={cache.capacity}: "
                f"it holds {start} tokens and x brings {T} more"
            )
        H, G, d = self.num_heads, self.num_kv_heads, self.d_head
        qk = x if qk is None else qk  # (B, T, d_model): the queries' and keys' input
        q = self.W_q(qk).reshape(B, T, H, d).transpose(1, 2)  # (B, T, H*d) -> (B, H, T, d)
        k = self.W_k(qk).reshape(B, T, G, d).transpose(1, 2)  # (B, T, G*d) -> (B, G, T, d)
        v = self.W_v(x).reshape(B, T, G, d).transpose(1, 2)  # (B, G, T, d)
        if self.rope:
            positions = torch.arange(start, start + T, device=x.device)  # (T,): where the new tokens sit
            q, k = apply_rope(q, positions, self.base), apply_rope(k, positions, self.base)  # keys cached rotated
        if cache is not None:
            k, v = cache.append(k, v)  # (B, G, L, d) each, L = start + T
        out, self.attention_weights = causal_attention(q, k, v)  # (B, H, T, d), (B, H, T, L)
        return self.W_o(out.transpose(1, 2).reshape(B, T, H * d))  # (B, T, H*d) -> (B, T, d_model)


def pool_kv_heads(layer: CausalSelfAttention, num_kv_heads: int) -> CausalSelfAttention:
    """A copy of `layer` with `num_kv_heads` key/value heads, each the mean of its group's key and value projections
    (the conversion of Ainslie et al., 2023, before any uptraining); the queries and W_o are copied unchanged."""
    if not isinstance(layer, CausalSelfAttention):
        raise TypeError(f"layer must be a CausalSelfAttention, got {check.describe(layer)}")
    G = check.positive_int("num_kv_heads", num_kv_heads)
    G0, d, d_model = layer.num_kv_heads, layer.d_head, layer.d_model  # K/V heads now, features per head, width
    if G0 % G:
        raise ValueError(
            f"num_kv_heads={G} must divide the layer's {G0} key/value heads: each new head pools a group of them"
        )
    with torch.random.fork_rng(devices=[]):  # its random initial weights are overwritten: leave the caller's RNG be
        out = CausalSelfAttention(d_model, layer.num_heads, G, rope=layer.rope, base=layer.base)
    out = out.to(device=layer.W_q.weight.device, dtype=layer.W_q.weight.dtype).train(layer.training)
    with torch.no_grad():
        out.W_q.weight.copy_(layer.W_q.weight)
        out.W_o.weight.copy_(layer.W_o.weight)
        for name in ("W_k", "W_v"):
            W = getattr(layer, name).weight.reshape(G, G0 // G, d, d_model)  # (G, G0/G, d, d_model): heads in groups
            getattr(out, name).weight.copy_(W.mean(dim=1).reshape(G * d, d_model))  # (G*d, d_model)
    return out


class CachedDecoder(nn.Module):
    """Notebook 10's trained attention-only transformer (`induction.AttentionOnlyTransformer`) as a decoder with a KV
    cache: its embeddings and read-out shared, each layer a `CausalSelfAttention` (no RoPE) holding that layer's
    weights, with its key/value heads mean-pooled to `num_kv_heads` if given (`pool_kv_heads`; `pool` picks the
    layers, default all). As in the model, positions are added to the queries' and keys' input only, so the cache
    holds keys of token plus position and values of the residual stream."""

    def __init__(self, model: nn.Module, num_kv_heads: int | None = None, pool: tuple[int, ...] | None = None):
        super().__init__()
        from .induction import AttentionOnlyTransformer

        if not isinstance(model, AttentionOnlyTransformer):
            raise TypeError(f"model must be an AttentionOnlyTransformer, got {check.describe(model)}")
        if not model.causal:
            raise ValueError("model must be causal (AttentionOnlyTransformer(causal=True)): a decoder sees no future")
        H, n_layers = model.num_heads, model.num_layers
        G = H if num_kv_heads is None else check.positive_int("num_kv_heads", num_kv_heads)
        if H % G:
            raise ValueError(f"num_kv_heads={G} must divide the model's num_heads={H}")
        if pool is None:
            pool = tuple(range(n_layers))
        pool = check.sequence_of("pool", pool, int, "layer indices", "a layer index")
        if any(isinstance(i, bool) or not 0 <= i < n_layers for i in pool):
            raise ValueError(f"pool must hold layer indices in 0..{n_layers - 1}, got {list(pool)}")
        self.embed, self.pos, self.unembed = model.embed, model.pos, model.unembed
        self.seq_len, self.num_kv_heads = model.seq_len, G
        d_model = model.embed.embedding_dim
        self.layers = nn.ModuleList()
        for index, source in enumerate(model.layers):
            if any(getattr(source, n).bias is not None for n in ("W_q", "W_k", "W_v", "W_o")):
                raise ValueError("model's layers must have no biases (MultiHeadAttention(..., bias=False))")
            with torch.random.fork_rng(devices=[]):  # initial weights overwritten below: leave the caller's RNG be
                layer = CausalSelfAttention(d_model, H, rope=False)
            layer = layer.to(model.embed.weight.device, model.embed.weight.dtype)
            with torch.no_grad():
                for n in ("W_q", "W_k", "W_v", "W_o"):
                    getattr(layer, n).weight.copy_(getattr(source, n).weight)
            self.layers.append(pool_kv_heads(layer, G) if index in pool else layer)
        self.weights: torch.Tensor | None = None  # (B, layers, H, T, L) of the last call
        self.eval()

    def new_caches(self, batch_size: int) -> list[KVCache]:
        """One empty cache per layer, for up to seq_len tokens."""
        return [layer.new_cache(batch_size, self.seq_len) for layer in self.layers]

    def forward(self, tokens: torch.Tensor, caches: list[KVCache] | None = None) -> torch.Tensor:
        """tokens (B, T), the T tokens after the caches' `length` ones (or the whole sequence) -> logits (B, T, V)."""
        check.integer_tensor("tokens", tokens, dims=2, shape="(B, T)")
        B, T = tokens.shape  # batch, new tokens
        if caches is not None and (
            not isinstance(caches, (list, tuple))
            or len(caches) != len(self.layers)
            or not all(isinstance(c, KVCache) for c in caches)
        ):
            raise TypeError(f"caches must be a list of {len(self.layers)} KVCaches (decoder.new_caches(B)) or None")
        start = 0 if caches is None else caches[0].length  # tokens already seen
        if B == 0 or T == 0 or start + T > self.seq_len:
            raise ValueError(
                f"tokens must hold at least one sequence and the positions {start} .. {start + T - 1} must lie in "
                f"0 .. seq_len - 1 = {self.seq_len - 1}, got shape {tuple(tokens.shape)}"
            )
        if tokens.numel() and not 0 <= int(tokens.min()) <= int(tokens.max()) < self.embed.num_embeddings:
            raise ValueError(f"tokens must lie in 0..{self.embed.num_embeddings - 1}")
        x = self.embed(tokens.long())  # (B, T, d): the residual stream
        pos = self.pos(torch.arange(start, start + T, device=tokens.device))  # (T, d): where the new tokens sit
        weights = []
        for index, layer in enumerate(self.layers):
            cache = None if caches is None else caches[index]
            x = x + layer(x, cache, qk=x + pos)  # (B, T, d): keys and queries see positions, values do not
            weights.append(layer.attention_weights)  # (B, H, T, L)
        self.weights = torch.stack(weights, dim=1)  # (B, layers, H, T, L)
        return self.unembed(x)  # (B, T, V)
