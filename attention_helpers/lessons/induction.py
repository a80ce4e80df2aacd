"""Watch an induction head form: random tokens with a repeated segment, and a 2-layer attention-only transformer.

Vocabulary: N sequences, T positions, V tokens, L layers, H heads per layer, d model size, S snapshots.
A sequence holds random tokens, except that a segment of n tokens starting at `start` is repeated right after
itself: tokens[start + n + i] = tokens[start + i] for i < n. Inside the second copy the next token can be known
(it followed the current token last time); everywhere else it is random. A model that predicts it there must
find the earlier copy of the current token and read the token after it: an *induction head*, which needs a
*previous-token head* in the layer below (Olsson et al., 2022, "In-context learning and induction heads").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import numbers
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from .. import _validate as check
from ..layers import MultiHeadAttention
from .optim import Adam

__all__ = [
    "AttentionOnlyTransformer",
    "InductionData",
    "InductionLog",
    "causal_valid_lens",
    "copying_score",
    "duplicate_token_score",
    "head_scores",
    "in_context_accuracy",
    "in_context_loss",
    "induction_keys",
    "induction_score",
    "make_induction_data",
    "ov_circuit",
    "previous_token_score",
    "previous_token_weights",
    "train_induction",
    "trained_model",
]


def _check_layout(seq_len: int, vocab_size: int, min_len: int, max_len: int) -> None:
    """The sizes of `make_induction_data`: positive, and two copies of the longest segment fit in seq_len."""
    for name, value in (("seq_len", seq_len), ("vocab_size", vocab_size), ("min_len", min_len), ("max_len", max_len)):
        check.positive_int(name, value)
    if vocab_size < 2:
        raise ValueError(f"vocab_size must be >= 2 so that random tokens differ, got {vocab_size}")
    if min_len < 2:
        raise ValueError(f"min_len must be >= 2: a segment of one token has no next token to copy, got {min_len}")
    if max_len < min_len:
        raise ValueError(f"max_len must be >= min_len={min_len}, got {max_len}")
    if 2 * max_len > seq_len:
        raise ValueError(
            f"max_len={max_len} does not fit: a segment and its copy need 2 * max_len = {2 * max_len} positions, "
            f"but seq_len is {seq_len}"
        )


@dataclass(frozen=True)
class InductionData:
    """Sequences `tokens` (N, T) in 0..V-1 whose segment tokens[start : start + n] repeats at start + n.

    `starts` (N,) and `lengths` (N,) hold each sequence's start and n; checked on construction."""

    tokens: torch.Tensor
    starts: torch.Tensor
    lengths: torch.Tensor
    vocab_size: int

    def __post_init__(self) -> None:
        check.positive_int("vocab_size", self.vocab_size)
        tokens = check.integer_tensor("tokens", self.tokens, dims=2, shape="(N, T)")
        _check_tokens(tokens, self.vocab_size)
        N, T = tokens.shape  # sequences, positions
        for name in ("starts", "lengths"):
            value = check.integer_tensor(name, getattr(self, name), dims=1, shape=f"({N},)")
            if value.shape != (N,):
                raise ValueError(f"{name} must have shape ({N},), one per sequence, got {tuple(value.shape)}")
            check.same_device([("tokens", tokens), (name, value)])
        if N and int(self.lengths.min()) < 2:
            raise ValueError(f"lengths must be >= 2, got {int(self.lengths.min())}")
        if N and (int(self.starts.min()) < 0 or int((self.starts + 2 * self.lengths).max()) > T):
            raise ValueError(f"starts and lengths do not fit: every start + 2 * length must lie in 0..T={T}")
        copy = self.second_copy  # (N, T)
        p = torch.arange(T, device=tokens.device)  # (T,)
        source = torch.where(copy, p - self.lengths[:, None], p)  # (N, T): where each position's token came from
        if not torch.equal(tokens.gather(1, source), tokens):
            raise ValueError("tokens must repeat tokens[start : start + n] at start + n (given starts and lengths)")

    def __len__(self) -> int:
        return self.tokens.shape[0]

    def __getitem__(self, index: object) -> InductionData:
        """A subset, e.g. data[:4], data[2] (one sequence, kept 2-D) or data[torch.tensor([0, 5])]."""
        wrong = TypeError(f"index must be an int, a slice or an integer or bool tensor, got {check.describe(index)}")
        if isinstance(index, bool) or not isinstance(index, (int, slice, torch.Tensor)):
            raise wrong
        if isinstance(index, torch.Tensor) and (index.is_floating_point() or index.is_complex() or index.dim() > 1):
            raise wrong
        if isinstance(index, torch.Tensor):
            check.has_values("index", index)
            if (
                index.dtype != torch.bool
                and index.numel()
                and not -len(self) <= int(index.min()) <= int(index.max()) < len(self)
            ):
                raise IndexError(f"index holds {index.tolist()}, out of range for {len(self)} sequences")
            if index.dtype == torch.bool and index.shape != (len(self),):
                raise ValueError(
                    f"index must be a bool tensor of shape ({len(self)},), one per sequence, got {tuple(index.shape)}"
                )
        if isinstance(index, int):
            if not -len(self) <= index < len(self):
                raise IndexError(f"index {index} is out of range for {len(self)} sequences")
            index = slice(index, index + 1 if index != -1 else None)
        return InductionData(self.tokens[index], self.starts[index], self.lengths[index], self.vocab_size)

    def __repr__(self) -> str:
        N, T = self.tokens.shape  # sequences, positions
        lens = sorted(set(self.lengths.tolist()))
        return f"InductionData({N} sequences of {T} tokens out of {self.vocab_size}, repeated segments of {lens})"

    @property
    def second_copy(self) -> torch.Tensor:
        """(N, T) bool: the positions of the second copy, start + n <= p < start + 2n."""
        p = torch.arange(self.tokens.shape[1], device=self.tokens.device)  # (T,)
        begin = (self.starts + self.lengths)[:, None]  # (N, 1): where the second copy begins
        return (p >= begin) & (p < begin + self.lengths[:, None])  # (N, T)

    @property
    def in_context(self) -> torch.Tensor:
        """(N, T) bool: positions whose *next* token is a copy, start + n <= p <= start + 2n - 2."""
        p = torch.arange(self.tokens.shape[1], device=self.tokens.device)  # (T,)
        begin = (self.starts + self.lengths)[:, None]  # (N, 1)
        return (p >= begin) & (p < begin + self.lengths[:, None] - 1)  # (N, T)


def _check_tokens(tokens: torch.Tensor, vocab_size: int) -> None:
    check.has_values("tokens", tokens)
    if tokens.numel() and not (0 <= int(tokens.min()) and int(tokens.max()) < vocab_size):
        raise ValueError(
            f"tokens must lie in 0..vocab_size-1 = 0..{vocab_size - 1}, got values {int(tokens.min())}.."
            f"{int(tokens.max())}"
        )


def make_induction_data(
    num: int,
    seq_len: int = 24,
    vocab_size: int = 32,
    min_len: int = 4,
    max_len: int = 10,
    *,
    seed: int = 0,
    generator: torch.Generator | None = None,
) -> InductionData:
    """`num` random sequences (N, T) of tokens 0..V-1, each with a segment of random length n in min_len..max_len at
    a random start, repeated right after itself. Pass `generator` instead of `seed` to draw batch after batch."""
    check.positive_int("num", num)
    _check_layout(seq_len, vocab_size, min_len, max_len)
    check.seed("seed", seed)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {check.describe(generator)}")
    g = torch.Generator().manual_seed(seed) if generator is None else generator
    tokens = torch.randint(0, vocab_size, (num, seq_len), generator=g)  # (N, T)
    lengths = torch.randint(min_len, max_len + 1, (num,), generator=g)  # (N,)
    room = seq_len - 2 * lengths + 1  # (N,): how many starts leave room for both copies
    starts = (torch.rand(num, generator=g) * room).long()  # (N,), uniform in 0..room-1
    p = torch.arange(seq_len)  # (T,)
    second = (p >= (starts + lengths)[:, None]) & (p < (starts + 2 * lengths)[:, None])  # (N, T)
    source = torch.where(second, p - lengths[:, None], p)  # (N, T): the second copy reads the first
    return InductionData(tokens.gather(1, source), starts, lengths, vocab_size)


def causal_valid_lens(batch_size: int, num_steps: int) -> torch.Tensor:
    """(B, T) lengths for `masked_softmax`: query i may see keys 0..i, so its valid length is i + 1."""
    check.positive_int("batch_size", batch_size)
    check.positive_int("num_steps", num_steps)
    return torch.arange(1, num_steps + 1).repeat(batch_size, 1)  # (B, T)


class AttentionOnlyTransformer(nn.Module):
    """Token embeddings, L causal multi-head self-attention layers that add to the residual stream, a linear read-out.

    No MLPs and no LayerNorm (which act on each position alone): every layer is attention. Each layer is
    the series' `MultiHeadAttention`, with queries, keys and values all read from the residual stream. Learned
    positional embeddings are added to the input of the queries and keys of every layer, not to the stream itself
    (as in the toy models of Elhage et al., 2021, after Press et al.'s Shortformer): position can steer where a head
    looks, but the values, what a head copies, carry content only. Parameters come from their own `seed`.
    """

    def __init__(
        self,
        vocab_size: int = 32,
        seq_len: int = 24,
        d_model: int = 32,
        num_heads: int = 2,
        num_layers: int = 2,
        *,
        causal: bool = True,
        seed: int = 0,
    ):
        super().__init__()
        for name, value in (
            ("vocab_size", vocab_size),
            ("seq_len", seq_len),
            ("d_model", d_model),
            ("num_heads", num_heads),
            ("num_layers", num_layers),
        ):
            check.positive_int(name, value)
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} must be divisible by num_heads={num_heads}")
        check.boolean("causal", causal)
        check.seed("seed", seed)
        self.vocab_size, self.seq_len, self.causal = vocab_size, seq_len, causal
        self.num_heads, self.num_layers = num_heads, num_layers
        with torch.random.fork_rng(devices=[]):  # the same parameters whatever ran before
            torch.manual_seed(seed)
            self.embed = nn.Embedding(vocab_size, d_model)
            self.pos = nn.Embedding(seq_len, d_model)
            self.layers = nn.ModuleList(
                MultiHeadAttention(d_model, d_model, d_model, d_model, num_heads, dropout=0.0)
                for _ in range(num_layers)
            )
            self.unembed = nn.Linear(d_model, vocab_size)
        self.weights: torch.Tensor | None = None

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Tokens (N, T) with T <= seq_len -> next-token logits (N, T, V); every head's weights in `.weights`."""
        check.integer_tensor("tokens", tokens, dims=2, shape="(N, T)")
        N, T = tokens.shape  # sequences, positions
        if not 1 <= T <= self.seq_len:
            raise ValueError(f"tokens must have 1..seq_len={self.seq_len} positions, got {T}")
        if N == 0:
            raise ValueError(f"tokens must hold at least one sequence, got shape {tuple(tokens.shape)}")
        if tokens.device != self.embed.weight.device:
            raise ValueError(f"tokens are on {tokens.device} but the model on {self.embed.weight.device}")
        _check_tokens(tokens, self.vocab_size)
        tokens = tokens.long()  # int8, uint8 ...: nn.Embedding takes int64 (or int32) indices
        device = tokens.device
        lens = causal_valid_lens(N, T).to(device) if self.causal else None  # (N, T): query i sees keys 0..i
        pos = self.pos(torch.arange(T, device=device))  # (T, d)
        x = self.embed(tokens)  # (N, T, d): the residual stream
        weights = []
        for layer in self.layers:
            qk = x + pos  # (N, T, d) + (T, d) -> (N, T, d): where to look depends on content and position
            x = x + layer(qk, qk, x, lens)  # (N, T, d): each layer adds what its heads read to the stream
            weights.append(layer.head_weights)  # (N, H, T, T)
        self.weights = torch.stack(weights, dim=1)  # (N, L, H, T, T)
        return self.unembed(x)  # (N, T, V)

    def _heads(self, heads: object, name: str = "heads") -> list[tuple[int, int]]:
        """A list of (layer, head) pairs of this model, or a clear error naming the argument `name`."""
        if isinstance(heads, (str, bytes)) or not hasattr(heads, "__iter__"):
            raise TypeError(f"{name} must be a list of (layer, head) pairs, got {check.describe(heads)}")
        heads = list(heads)
        for pair in heads:
            if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__"):
                raise TypeError(f"{name} must be (layer, head) pairs, got {check.describe(pair)}")
        heads = [tuple(pair) for pair in heads]
        for pair in heads:
            if len(pair) == 2 and not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in pair):
                raise TypeError(f"{name} must be (layer, head) pairs of ints, got {pair!r}")
            ok = len(pair) == 2 and all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in pair)
            if not ok or not (0 <= pair[0] < self.num_layers and 0 <= pair[1] < self.num_heads):
                raise ValueError(
                    f"{name} must be (layer, head) pairs with 0 <= layer < {self.num_layers} and "
                    f"0 <= head < {self.num_heads}, got {pair!r}"
                )
        return [(int(layer), int(head)) for layer, head in heads]  # numpy's ints as Python's

    @contextlib.contextmanager
    def ablate(self, heads: Iterable[tuple[int, int]]) -> Iterator[None]:
        """`with model.ablate([(layer, head), ...]):` zeroes those heads' outputs (before W_o) inside the block."""
        heads = self._heads(heads)
        hooks = []
        for index, layer in enumerate(self.layers):
            keep = torch.ones(self.num_heads)  # (H,)
            keep[[h for lay, h in heads if lay == index]] = 0.0
            if bool((keep == 0).any()):

                def zero(
                    module: nn.Module, args: object, output: torch.Tensor, keep: torch.Tensor = keep
                ) -> torch.Tensor:
                    BH, T, d = output.shape  # batch*heads, positions, per-head size
                    H = len(keep)
                    return (output.reshape(BH // H, H, T, d) * keep[:, None, None]).reshape(BH, T, d)  # (B*H, T, d)

                hooks.append(layer.attention.register_forward_hook(zero))  # on the heads' outputs, before W_o
        try:
            yield
        finally:
            for hook in hooks:
                hook.remove()


def _check_logits(logits: object, data: object) -> None:
    if not isinstance(data, InductionData):
        raise TypeError(f"data must be InductionData, got {check.describe(data)}")
    check.floating_tensor("logits", logits, dims=3, shape="(N, T, V)")
    if logits.shape[:2] != data.tokens.shape or logits.shape[2] != data.vocab_size:
        raise ValueError(
            f"logits must have shape (N, T, V) = {(*data.tokens.shape, data.vocab_size)} to match data, got "
            f"{tuple(logits.shape)}"
        )
    if len(data) == 0:
        raise ValueError("data must hold at least one sequence: a mean over no positions is undefined")
    check.same_device([("logits", logits), ("data.tokens", data.tokens)])


def in_context_loss(logits: torch.Tensor, data: InductionData) -> torch.Tensor:
    """Logits (N, T, V) -> mean cross-entropy of the next token over the in-context positions (0-d tensor)."""
    _check_logits(logits, data)
    where = data.in_context[:, :-1]  # (N, T-1): position p predicts token p + 1
    return F.cross_entropy(logits[:, :-1][where], data.tokens[:, 1:][where])


def in_context_accuracy(logits: torch.Tensor, data: InductionData) -> float:
    """Logits (N, T, V) -> fraction of in-context positions whose next token is predicted right."""
    _check_logits(logits, data)
    check.finite("logits", logits)  # NaN would pick an arbitrary argmax, a silently wrong accuracy
    right = logits[:, :-1].argmax(dim=-1) == data.tokens[:, 1:]  # (N, T-1)
    return right[data.in_context[:, :-1]].float().mean().item()


def _check_weights(weights: object, min_dim: int, shape: str) -> torch.Tensor:
    check.floating_tensor("weights", weights, shape=shape)
    check.finite("weights", weights)  # a measure of NaN weights would be NaN, or a mean of what is left
    if weights.dim() < min_dim or weights.shape[-1] != weights.shape[-2] or weights.shape[-1] < 2:
        raise ValueError(f"weights must have shape {shape} with T >= 2, got {tuple(weights.shape)}")
    return weights


def previous_token_weights(weights: torch.Tensor) -> torch.Tensor:
    """Weights (..., T, T) -> (..., T-1): the weight that each position 1..T-1 puts on the position just before it."""
    _check_weights(weights, 2, "(..., T, T)")
    return weights.diagonal(offset=-1, dim1=-2, dim2=-1).clone()  # (..., T-1), not a view of the input


def previous_token_score(weights: torch.Tensor) -> torch.Tensor:
    """Weights (..., T, T) -> (...): the mean weight that positions 1..T-1 put on the position just before them."""
    return previous_token_weights(weights).mean(dim=-1)  # (..., T-1) -> (...)


def _score_at(weights: torch.Tensor, data: InductionData, shift: int) -> torch.Tensor:
    """Mean weight that second-copy positions p put on key p - n + shift, over all sequences -> (...)."""
    _check_weights(weights, 3, "(..., N, T, T)")
    if not isinstance(data, InductionData):
        raise TypeError(f"data must be InductionData, got {check.describe(data)}")
    check.same_device([("weights", weights), ("data.tokens", data.tokens)])
    if tuple(weights.shape[-3:-1]) != tuple(data.tokens.shape):
        raise ValueError(
            f"weights (..., N, T, T) must match data.tokens (N, T) = {tuple(data.tokens.shape)}, "
            f"got {tuple(weights.shape)}"
        )
    if len(data) == 0:
        raise ValueError("data must hold at least one sequence: a mean over no positions is undefined")
    T = weights.shape[-1]  # positions
    target = (torch.arange(T, device=weights.device) - data.lengths[:, None] + shift).clamp(min=0)  # (N, T)
    index = target[..., None].expand(*weights.shape[:-1], 1)  # (..., N, T, 1)
    on_target = weights.gather(-1, index)[..., 0]  # (..., N, T)
    second = data.second_copy  # (N, T)
    return (on_target * second).sum(dim=(-2, -1)) / second.sum()  # (...)


def induction_keys(data: InductionData) -> torch.Tensor:
    """(N, T) long: for each position p of the second copy, the key p - n + 1 an induction head must read (the token
    that followed the earlier occurrence of p's token); -1 at every other position."""
    if not isinstance(data, InductionData):
        raise TypeError(f"data must be InductionData, got {check.describe(data)}")
    p = torch.arange(data.tokens.shape[1], device=data.tokens.device)  # (T,)
    return torch.where(data.second_copy, p - data.lengths[:, None] + 1, -1)  # (N, T)


def induction_score(weights: torch.Tensor, data: InductionData) -> torch.Tensor:
    """Weights (..., N, T, T) -> (...): the mean weight that a position p of the second copy puts on p - n + 1, the
    token that followed the earlier occurrence of its own token."""
    return _score_at(weights, data, 1)


def duplicate_token_score(weights: torch.Tensor, data: InductionData) -> torch.Tensor:
    """Weights (..., N, T, T) -> (...): the mean weight that a position p of the second copy puts on p - n, the
    earlier occurrence of its own token."""
    return _score_at(weights, data, 0)


def _check_head(model: object, layer: object, head: object) -> None:
    if not isinstance(model, AttentionOnlyTransformer):
        raise TypeError(f"model must be an AttentionOnlyTransformer, got {check.describe(model)}")
    check.int_at_least("layer", layer, 0)
    check.int_at_least("head", head, 0)
    if layer >= model.num_layers or head >= model.num_heads:
        raise ValueError(
            f"(layer, head) must satisfy layer < {model.num_layers} and head < {model.num_heads}, got ({layer}, {head})"
        )


def ov_circuit(model: AttentionOnlyTransformer, layer: int, head: int) -> torch.Tensor:
    """(V, V): row t is what one head adds to the logits when it puts all its weight on a position holding token t
    (the direct path W_U W_O^h W_V^h W_E of Elhage et al., 2021; no bias, and nothing that earlier layers wrote)."""
    _check_head(model, layer, head)
    attention = model.layers[layer]
    d_head = attention.W_v.out_features // model.num_heads  # features per head
    rows = slice(head * d_head, (head + 1) * d_head)
    with torch.no_grad():
        values = model.embed.weight @ attention.W_v.weight[rows].T  # (V, d) @ (d, d/H) -> (V, d/H): this head's values
        written = values @ attention.W_o.weight[:, rows].T  # (V, d/H) @ (d/H, d) -> (V, d): added to the stream
        return written @ model.unembed.weight.T  # (V, d) @ (d, V) -> (V, V)


def copying_score(ov: torch.Tensor) -> torch.Tensor:
    """OV circuit (V, V) -> 0-d tensor: the fraction of tokens t whose own logit is the one that row t raises most
    (1 for a head that copies every token it attends to, about 1/V for a random one, 0 for one that maps each token to
    another)."""
    check.floating_tensor("ov", ov, dims=2, shape="(V, V)")
    if ov.shape[0] != ov.shape[1] or ov.shape[0] < 2:
        raise ValueError(f"ov must have shape (V, V) with V >= 2, got {tuple(ov.shape)}")
    check.finite("ov", ov)
    tokens = torch.arange(ov.shape[0], device=ov.device)  # (V,)
    return (ov.argmax(dim=-1) == tokens).float().mean()  # (V,) -> 0-d


def head_scores(
    model: AttentionOnlyTransformer, data: InductionData, ablate: Iterable[tuple[int, int]] = ()
) -> tuple[torch.Tensor, torch.Tensor]:
    """(previous-token scores, induction scores), each (L, H), of every head on `data`, with the heads in `ablate`
    switched off (`model.ablate`): what switching a head off does to the other heads' patterns."""
    if not isinstance(model, AttentionOnlyTransformer):
        raise TypeError(f"model must be an AttentionOnlyTransformer, got {check.describe(model)}")
    if not isinstance(data, InductionData):
        raise TypeError(f"data must be InductionData, got {check.describe(data)}")
    if data.vocab_size != model.vocab_size or not 1 <= data.tokens.shape[1] <= model.seq_len or len(data) == 0:
        raise ValueError(
            f"data must hold at least one sequence of at most seq_len={model.seq_len} tokens over the model's "
            f"vocabulary of {model.vocab_size} tokens, got {data!r}"
        )
    ablate = model._heads(ablate, "ablate")
    with torch.no_grad(), model.ablate(ablate):
        model(data.tokens)
    weights = model.weights.permute(1, 2, 0, 3, 4)  # (N, L, H, T, T) -> (L, H, N, T, T)
    return previous_token_score(weights).mean(dim=-1), induction_score(weights, data)  # (L, H) each


@dataclass
class InductionLog:
    """What `train_induction` recorded every `record_every` steps (step 0 = before training)."""

    probe: InductionData  # the sequences whose weights are recorded
    steps: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)  # test in-context loss
    accuracy: list[float] = field(default_factory=list)  # test in-context accuracy
    previous: list[torch.Tensor] = field(
        default_factory=list
    )  # S tensors (L, H): previous-token scores on the test set
    induction: list[torch.Tensor] = field(default_factory=list)  # S tensors (L, H): induction scores on the test set
    snapshots: list[torch.Tensor] = field(default_factory=list)  # S tensors (P, L, H, T, T): the probe's weights
    seconds: float = field(default=0.0, compare=False)  # wall-clock time of `train_induction`, evaluations included
    cpu_seconds: float = field(default=0.0, compare=False)  # processor time of this process over the same span

    def __post_init__(self) -> None:
        if not isinstance(self.probe, InductionData):
            raise TypeError(f"probe must be InductionData, got {check.describe(self.probe)}")
        for name in ("steps", "loss", "accuracy", "previous", "induction", "snapshots"):
            if not isinstance(getattr(self, name), list):
                raise TypeError(
                    f"{name} must be a list (filled while training), got {check.describe(getattr(self, name))}"
                )
        check.real("seconds", self.seconds, low=0.0)
        check.real("cpu_seconds", self.cpu_seconds, low=0.0)
        for i, step in enumerate(self.steps):
            check.int_at_least(f"steps[{i}]", step, 0)
        if self.steps != sorted(set(self.steps)):
            raise ValueError(f"steps must increase, got {self.steps}")
        for name in ("loss", "accuracy", "previous", "induction", "snapshots"):
            if len(getattr(self, name)) != len(self.steps):
                raise ValueError(
                    f"{name} must hold one entry per recorded step ({len(self.steps)}), got {len(getattr(self, name))}"
                )
        for name in ("previous", "induction", "snapshots"):
            for i, value in enumerate(getattr(self, name)):
                check.floating_tensor(f"{name}[{i}]", value)
                if value.shape != getattr(self, name)[0].shape:
                    raise ValueError(f"{name}[{i}] must have {name}[0]'s shape {tuple(getattr(self, name)[0].shape)}")

    def _recorded(self, name: str) -> list[torch.Tensor]:
        if not getattr(self, name):
            raise ValueError(f"this log holds no {name} yet: train_induction records them (at step 0 and every "
                             "record_every steps)")  # fmt: skip
        return getattr(self, name)

    @property
    def weights(self) -> torch.Tensor:
        """All snapshots, (S, P, L, H, T, T)."""
        return torch.stack(self._recorded("snapshots"))

    @property
    def scores(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(previous-token scores, induction scores), each (S, L, H)."""
        return torch.stack(self._recorded("previous")), torch.stack(self._recorded("induction"))

    def at(self, step: int) -> torch.Tensor:
        """The probe's weights (P, L, H, T, T) recorded at `step`, or at the last recorded step before it."""
        check.int_at_least("step", step, 0)
        if not self.steps or step < self.steps[0]:
            raise ValueError(f"step must be >= the first recorded step, got {step}; recorded: {self.steps}")
        index = max(i for i, recorded in enumerate(self.steps) if recorded <= step)
        return self.snapshots[index]

    def steps_to(self, accuracy: float = 0.8) -> int | None:
        """The first recorded step at which the test in-context accuracy reached `accuracy` (None if it never did)."""
        check.real("accuracy", accuracy, low=0.0, high=1.0)
        return next((s for s, a in zip(self.steps, self.accuracy, strict=True) if a >= accuracy), None)


def train_induction(
    model: AttentionOnlyTransformer,
    test: InductionData,
    *,
    steps: int = 150,
    batch_size: int = 64,
    lr: float = 0.01,
    record_every: int = 10,
    probe: InductionData | None = None,
    min_len: int = 4,
    max_len: int = 10,
    seed: int = 0,
) -> InductionLog:
    """Adam on the in-context cross-entropy of fresh random batches, on one CPU thread (bit-reproducible); records the
    test loss and accuracy, every head's previous-token and induction scores, and the probe's weights."""
    if not isinstance(model, AttentionOnlyTransformer):
        raise TypeError(f"model must be an AttentionOnlyTransformer, got {check.describe(model)}")
    for name, data in (("test", test), ("probe", probe)):
        if data is None and name == "probe":
            continue
        if not isinstance(data, InductionData):
            raise TypeError(f"{name} must be InductionData (from make_induction_data), got {check.describe(data)}")
        if data.vocab_size != model.vocab_size:
            raise ValueError(f"{name} must be over the model's {model.vocab_size} tokens, got {data!r}")
        if data.tokens.shape[1] > model.seq_len or len(data) == 0:
            raise ValueError(
                f"{name} must hold at least one sequence of at most seq_len={model.seq_len} positions, got {data!r}"
            )
    for name, value in (("steps", steps), ("batch_size", batch_size), ("record_every", record_every)):
        check.positive_int(name, value)
    lr = check.real("lr", lr, low=0.0, low_open=True, high=1e6)  # above: steps of a million per parameter, or overflow
    check.seed("seed", seed)
    _check_layout(model.seq_len, model.vocab_size, min_len, max_len)
    probe = test[:1] if probe is None else probe
    log = InductionLog(probe)

    def record(step: int) -> None:
        model.eval()
        with torch.no_grad():
            logits = model(test.tokens)  # (N, T, V)
            log.loss.append(in_context_loss(logits, test).item())
            log.accuracy.append(in_context_accuracy(logits, test))
            weights = model.weights.permute(1, 2, 0, 3, 4)  # (N, L, H, T, T) -> (L, H, N, T, T)
            log.previous.append(previous_token_score(weights).mean(dim=-1))  # (L, H, N) -> (L, H)
            log.induction.append(induction_score(weights, test))  # (L, H)
            model(probe.tokens)
            log.snapshots.append(model.weights.clone())  # (P, L, H, T, T)
        log.steps.append(step)
        model.train()

    started, started_cpu = time.perf_counter(), time.process_time()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order, so the same numbers on every run
    try:
        g = torch.Generator().manual_seed(seed)
        optimizer = Adam(model.parameters(), lr=lr)
        record(0)
        for step in range(1, steps + 1):
            batch = make_induction_data(batch_size, model.seq_len, model.vocab_size, min_len, max_len, generator=g)
            loss = in_context_loss(model(batch.tokens), batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % record_every == 0 or step == steps:
                record(step)
    finally:
        torch.set_num_threads(threads)
        model.eval()
        log.seconds = time.perf_counter() - started
        log.cpu_seconds = time.process_time() - started_cpu
    return log


_DATA_DIR = Path(__file__).resolve().parent / "data"
_CACHE = Path(__file__).resolve().parents[2] / "artifacts" / "claims"  # other seeds' weights, kept out of git
_TRAINED_COMMAND = "python -m attention_helpers.lessons.induction --seed 0"
_TRAINED_SHAPE = {"vocab_size": 32, "seq_len": 24, "d_model": 32, "num_heads": 2, "num_layers": 2}


def _train_seed(seed: int) -> tuple[AttentionOnlyTransformer, InductionLog]:
    """Notebook 10's training, exactly: 150 steps of Adam from `seed`, tested on make_induction_data(256, seed=1234)."""
    test = make_induction_data(256, seed=1234)
    model = AttentionOnlyTransformer(**_TRAINED_SHAPE, seed=seed)
    return model, train_induction(model, test, steps=150, record_every=10, seed=seed)


def _from_state(state: dict) -> AttentionOnlyTransformer:
    model = AttentionOnlyTransformer(**_TRAINED_SHAPE, seed=0)
    model.load_state_dict(state)
    return model.eval()


def _load_committed() -> AttentionOnlyTransformer:
    """Notebook 10's trained model (seed 0), from its committed weights (data/induction_seed0.pt), in eval mode.

    Made by `_TRAINED_COMMAND`; training again on another processor may differ in the last bits, so notebooks that
    show this model load it rather than train it."""
    return _from_state(torch.load(_DATA_DIR / "induction_seed0.pt", weights_only=True))


def trained_model(seed: int = 0) -> AttentionOnlyTransformer:
    """Notebook 10's model trained from `seed`: seed 0 is the committed one; other seeds are trained (about 5 s) and
    kept in artifacts/claims/ (git-ignored) for the claims harness."""
    check.seed("seed", seed)
    if seed == 0:
        return _load_committed()
    path = _CACHE / f"induction_model_seed{seed}.pt"
    if path.exists():
        return _from_state(torch.load(path, weights_only=True))
    model, _ = _train_seed(seed)
    _CACHE.mkdir(parents=True, exist_ok=True)
    torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, path)
    return model.eval()


def _main(argv: list[str] | None = None) -> None:
    """Train notebook 10's model and save its weights and record to data/ (or --out)."""
    parser = argparse.ArgumentParser(prog="python -m attention_helpers.lessons.induction", description=_main.__doc__)
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0, the committed model)")
    parser.add_argument("--out", type=Path, default=_DATA_DIR, help="folder for the weights and record")
    args = parser.parse_args(argv)
    model, log = _train_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"induction_seed{args.seed}"
    torch.save({k: v.detach().clone() for k, v in model.state_dict().items()}, stem.with_suffix(".pt"))
    record = {
        "command": f"python -m attention_helpers.lessons.induction --seed {args.seed}",
        "seed": args.seed,
        "steps": 150,
        "shape": _TRAINED_SHAPE,
        "test_accuracy": round(log.accuracy[-1], 4),
        "training_cpu_seconds": round(log.cpu_seconds, 1),
        "torch": torch.__version__,
    }
    stem.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    print(
        f"wrote {stem.with_suffix('.pt')} ({stem.with_suffix('.pt').stat().st_size} bytes); test accuracy "
        f"{record['test_accuracy']}"
    )


if __name__ == "__main__":
    _main()
