"""Notebook 5's trained self-attention: one layer that writes five words backwards.

The task says where each output must look: output `i` of "dogs bark at the moon" writes "moon the at bark dogs"'s
word `i`, the input's word `4 - i`. So the right pattern is the anti-diagonal, and a learner can predict it before
seeing it. The model is the series' own parts: word embeddings plus 05's sinusoidal `positional_encoding`, one
`MultiHeadAttention` with one head (queries = keys = values = the sequence), and a linear read-out; no residual, so
an output holds only what attention brought it. Three variants, trained the same way: with the positional encoding,
without it (self-attention cannot tell the positions apart, 5.4), and with it and a causal mask (5.3: the first
outputs cannot see the words they must write).

`python -m attention_helpers.lessons.self_attention --seed 0` trains the three (about a second of one core) and writes
the committed weights and their record (`data/self_attention_seed0.pt`, `.json`).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import nn

from .. import _validate as check
from ..layers import MultiHeadAttention
from ..transformer import positional_encoding
from .optim import Adam

__all__ = [
    "PROBE",
    "RULES",
    "VARIANTS",
    "WORDS",
    "Reverser",
    "ReverserLog",
    "decode",
    "encode",
    "held_out_set",
    "largest_weight_share",
    "make_sequences",
    "reversal_report",
    "rule_keys",
    "train_reverser",
    "trained_reverser",
]

WORDS = (
    "the", "cat", "sat", "on", "mat", "dogs", "bark", "at", "moon", "a", "man", "bites", "dog", "sun", "sees", "runs",
)  # fmt: skip
_SEQ_LEN = 5
PROBE = "dogs bark at the moon"  # row 0 of the held-out set
_HELD_OUT_SIZE = 1000
_STEPS = 300
VARIANTS = ("positions", "no positions", "causal")  # the model with the encoding; without it; with it and a causal mask
RULES = ("reverse", "itself", "previous")  # where output i looks: key 4 - i (the task's); key i; key i - 1
_DATA_DIR = Path(__file__).resolve().parent / "data"
_CACHE = Path(__file__).resolve().parents[2] / "artifacts" / "claims"  # other seeds' weights, kept out of git
_TRAINED_COMMAND = "python -m attention_helpers.lessons.self_attention --seed 0"
_SHAPE = {"vocab_size": len(WORDS), "seq_len": _SEQ_LEN, "d_model": 16}


def encode(words: str | Sequence[str]) -> torch.Tensor:
    """ "dogs bark at the moon" (or its list of words) -> word ids (T,), int64."""
    if isinstance(words, str):
        words = words.split()
    words = check.sequence("words", words, "words (str)")
    unknown = [w for w in words if not isinstance(w, str) or w not in WORDS]
    if unknown:
        raise ValueError(f"words must be among the {len(WORDS)} words {list(WORDS)}, got {unknown!r}")
    if not words:
        raise ValueError("words must hold at least one word, got none")
    return torch.tensor([WORDS.index(w) for w in words])  # (T,)


def decode(tokens: torch.Tensor) -> list[str]:
    """Word ids (T,) -> the words."""
    tokens = check.integer_tensor("tokens", tokens, dims=1, shape="(T,)")
    _check_ids(tokens)
    return [WORDS[i] for i in tokens.tolist()]


def _check_ids(tokens: torch.Tensor) -> None:
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= len(WORDS)):
        raise ValueError(
            f"tokens must be word ids in 0 .. {len(WORDS) - 1}, got values from {int(tokens.min())} to "
            f"{int(tokens.max())}"
        )


def make_sequences(num: int, seed: int = 0) -> torch.Tensor:
    """(num, 5) word ids, each word drawn uniformly and independently (repeats allowed)."""
    check.positive_int("num", num)
    check.seed("seed", seed)
    return torch.randint(0, len(WORDS), (num, _SEQ_LEN), generator=torch.Generator().manual_seed(seed))  # (N, T)


def held_out_set(num: int = _HELD_OUT_SIZE) -> torch.Tensor:
    """The first `num` of the 1,000 held-out sequences (num, 5), "dogs bark at the moon" first; training never sees
    any of them."""
    check.positive_int("num", num)
    if num > _HELD_OUT_SIZE:
        raise ValueError(f"num must be <= {_HELD_OUT_SIZE} (the held-out sequences), got {num}")
    tokens = make_sequences(_HELD_OUT_SIZE, seed=1234)  # (M, T)
    tokens[0] = encode(PROBE)
    return tokens[:num]  # (N, T)


def _codes(tokens: torch.Tensor) -> torch.Tensor:
    """(N, T) word ids -> (N,): one int per sequence (its ids as digits base 16)."""
    weights = len(WORDS) ** torch.arange(tokens.shape[1] - 1, -1, -1)  # (T,)
    return (tokens * weights).sum(-1)


class Reverser(nn.Module):
    """Word embeddings (+ the sinusoidal positional encoding) -> one self-attention layer, one head -> a linear read-out.

    The layer is the series' `MultiHeadAttention`, called as `layer(x, x, x)`; `causal=True` gives query `i` the
    lengths `i + 1` (5.3). No residual connection: output `i` holds only what attention brought it. Parameters come
    from their own `seed`; `.weights` (N, T, T) are the last call's attention weights.
    """

    def __init__(
        self,
        vocab_size: int = len(WORDS),
        seq_len: int = _SEQ_LEN,
        d_model: int = 16,
        *,
        positions: bool = True,
        causal: bool = False,
        seed: int = 0,
    ):
        super().__init__()
        for name, value in (("vocab_size", vocab_size), ("seq_len", seq_len), ("d_model", d_model)):
            check.positive_int(name, value)
        self.positions, self.causal = check.boolean("positions", positions), check.boolean("causal", causal)
        check.seed("seed", seed)
        self.vocab_size, self.seq_len, self.d_model = vocab_size, seq_len, d_model
        with torch.random.fork_rng(devices=[]):  # the same parameters whatever ran before
            torch.manual_seed(seed)
            self.embed = nn.Embedding(vocab_size, d_model)
            self.attention = MultiHeadAttention(d_model, d_model, d_model, d_model, 1, dropout=0.0)
            self.readout = nn.Linear(d_model, vocab_size)
        self.register_buffer("P", positional_encoding(seq_len, d_model), persistent=False)  # (T, d)
        self.weights: torch.Tensor | None = None

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Word ids (N, T), T <= seq_len -> logits (N, T, V) for each output's word; weights in `.weights`."""
        check.integer_tensor("tokens", tokens, dims=2, shape="(N, T)")
        N, T = tokens.shape  # sequences, positions
        if N == 0 or not 1 <= T <= self.seq_len:
            raise ValueError(
                f"tokens must hold at least one sequence of 1 .. seq_len={self.seq_len} words, got shape "
                f"{tuple(tokens.shape)}"
            )
        if tokens.min() < 0 or tokens.max() >= self.vocab_size:
            raise ValueError(f"tokens must be word ids in 0 .. {self.vocab_size - 1}, got {check.describe(tokens)}")
        x = self.embed(tokens.long())  # (N, T, d)
        if self.positions:
            x = x + self.P[:T]  # (N, T, d) + (T, d): where each word sits
        lens = torch.arange(1, T + 1).expand(N, T) if self.causal else None  # (N, Q): query i sees keys 0 .. i
        y = self.attention(x, x, x, lens)  # (N, T, d): queries = keys = values = the sequence
        self.weights = self.attention.head_weights[:, 0]  # (N, 1, T, T) -> (N, T, T)
        return self.readout(y)  # (N, T, V)


@dataclass
class ReverserLog:
    """What `train_reverser` recorded: the training loss at every step, and the time it took."""

    losses: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.losses, list):
            raise TypeError(f"losses must be a list (filled while training), got {check.describe(self.losses)}")
        for i, loss in enumerate(self.losses):
            check.real(f"losses[{i}]", loss, finite=False)
        check.real("cpu_seconds", self.cpu_seconds, low=0.0)


def train_reverser(
    model: Reverser, *, steps: int = _STEPS, batch_size: int = 64, lr: float = 0.01, seed: int = 0
) -> ReverserLog:
    """Adam on the cross-entropy of the reversed words, fresh random batches (the held-out sequences left out), on
    one CPU thread (bit-reproducible on one machine)."""
    if not isinstance(model, Reverser):
        raise TypeError(f"model must be a Reverser, got {check.describe(model)}")
    for name, value in (("steps", steps), ("batch_size", batch_size)):
        check.positive_int(name, value)
    lr = check.real("lr", lr, low=0.0, low_open=True, high=1e6)
    check.seed("seed", seed)
    held_out = _codes(held_out_set())  # (M,)
    log = ReverserLog()
    started = time.process_time()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order on every run
    try:
        g = torch.Generator().manual_seed(seed)
        optimizer = Adam(model.parameters(), lr=lr)
        model.train()
        for _ in range(steps):
            tokens = torch.randint(0, model.vocab_size, (batch_size, model.seq_len), generator=g)  # (N, T)
            seen = ~torch.isin(_codes(tokens), held_out)  # (N,): a held-out sequence is never trained on
            logits = model(tokens)  # (N, T, V)
            losses = nn.functional.cross_entropy(logits.transpose(1, 2), tokens.flip(1), reduction="none")  # (N, T)
            loss = losses[seen].mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            log.losses.append(loss.item())
    finally:
        torch.set_num_threads(threads)
        model.eval()
        log.cpu_seconds = time.process_time() - started
    return log


def rule_keys(rule: str, seq_len: int = _SEQ_LEN) -> torch.Tensor:
    """The key each query must look at under a rule, (T,): "reverse" T - 1 - i, "itself" i, "previous" i - 1 (-1: none)."""
    check.one_of("rule", rule, RULES)
    check.positive_int("seq_len", seq_len)
    i = torch.arange(seq_len)  # (T,)
    return {"reverse": seq_len - 1 - i, "itself": i, "previous": i - 1}[rule]


def largest_weight_share(weights: torch.Tensor, keys: torch.Tensor) -> float:
    """The share of queries whose largest weight lands on the key a rule names: weights (N, T, T), keys (T,) from
    `rule_keys` (a query whose key is -1 counts as a miss)."""
    weights = check.floating_tensor("weights", weights, dims=3, shape="(N, Q, K)")
    keys = check.integer_tensor("keys", keys, dims=1, shape="(Q,)")
    N, Q, K = weights.shape  # sequences, queries, keys
    if N == 0 or Q == 0 or K == 0:
        raise ValueError(f"weights must hold at least one query and one key, got shape {tuple(weights.shape)}")
    if keys.shape[0] != Q:
        raise ValueError(f"keys must name one key per query (Q={Q}), got {keys.shape[0]}")
    if keys.min() < -1 or keys.max() >= K:
        raise ValueError(f"keys must lie in -1 .. K - 1 = {K - 1}, got {keys.tolist()}")
    return (weights.argmax(-1) == keys).float().mean().item()  # (N, Q) == (Q,)


def _most_frequent_share(tokens: torch.Tensor, written: torch.Tensor, vocab_size: int = len(WORDS)) -> float:
    """On the sequences (N, T) whose most frequent word is unique (it occurs more often than any other word), the
    share of the outputs `written` (N, T) that write that word: 1.0 for a layer that cannot tell the positions apart
    and bets on the sentence's most frequent word; about 0.4 for one that copies its own word or writes the right
    word (both write it only at the positions it fills); nan if no sequence has a unique most frequent word."""
    counts = nn.functional.one_hot(tokens, vocab_size).sum(1)  # (N, V): how often each word occurs
    top = counts.topk(2, dim=-1).values  # (N, 2)
    unique = top[:, 0] > top[:, 1]  # (N,)
    most = counts.argmax(-1)  # (N,)
    return (written[unique] == most[unique, None]).float().mean().item()


def reversal_report(model: Reverser, tokens: torch.Tensor) -> dict:
    """On sequences (N, T): accuracy (every output, and per position), the share of queries whose largest weight
    lands where each rule says, the mean weight on the reversed key, the mean largest weight, and, where a sequence's
    most frequent word is unique, the share of outputs that write it (`_most_frequent_share`)."""
    if not isinstance(model, Reverser):
        raise TypeError(f"model must be a Reverser, got {check.describe(model)}")
    with torch.no_grad():
        written = model(tokens).argmax(-1)  # (N, T); model() checks tokens
        right = written == tokens.flip(1)  # (N, T)
    weights, T = model.weights, tokens.shape[1]  # (N, T, T)
    reverse = rule_keys("reverse", T)
    return {
        "accuracy": right.float().mean().item(),
        "accuracy_by_position": right.float().mean(0).tolist(),
        **{f"{rule}_share": largest_weight_share(weights, rule_keys(rule, T)) for rule in RULES},
        "weight_on_reverse": weights[:, torch.arange(T), reverse].mean().item(),
        "largest_weight": weights.max(-1).values.mean().item(),
        "most_frequent_share": _most_frequent_share(tokens, written, model.vocab_size),
    }


def _variant(variant: str, seed: int) -> Reverser:
    check.one_of("variant", variant, VARIANTS)
    return Reverser(**_SHAPE, positions=variant != "no positions", causal=variant == "causal", seed=seed)


def _train_seed(seed: int) -> dict[str, tuple[Reverser, ReverserLog]]:
    """The three variants, each trained from `seed` as the notebook's are."""
    out = {}
    for variant in VARIANTS:
        model = _variant(variant, seed)
        out[variant] = model, train_reverser(model, seed=seed)
    return out


def _state(model: Reverser) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _from_states(states: dict, seed: int) -> dict[str, Reverser]:
    models = {}
    for variant in VARIANTS:
        model = _variant(variant, seed)
        model.load_state_dict(states[variant])
        models[variant] = model.eval()
    return models


def trained_reverser(variant: str = "positions", seed: int = 0) -> Reverser:
    """A variant ("positions", "no positions", "causal") trained from `seed`: seed 0 is the committed one
    (`data/self_attention_seed0.pt`, made by `python -m attention_helpers.lessons.self_attention --seed 0`); other seeds are trained (about a second for the
    three) and kept in artifacts/claims/ (git-ignored) for the claims harness."""
    check.one_of("variant", variant, VARIANTS)
    check.seed("seed", seed)
    path = _DATA_DIR / "self_attention_seed0.pt" if seed == 0 else _CACHE / f"self_attention_model_seed{seed}.pt"
    if not path.exists() and seed != 0:
        trained = _train_seed(seed)
        _CACHE.mkdir(parents=True, exist_ok=True)
        torch.save({v: _state(m) for v, (m, _) in trained.items()}, path)
    return _from_states(torch.load(path, weights_only=True), seed)[variant]


def _main(argv: list[str] | None = None) -> None:
    """Train notebook 5's three reversers and save their weights and record to data/ (or --out)."""
    parser = argparse.ArgumentParser(
        prog="python -m attention_helpers.lessons.self_attention", description=_main.__doc__
    )
    parser.add_argument("--seed", type=int, default=0, help="training seed (default 0, the committed models)")
    parser.add_argument("--out", type=Path, default=_DATA_DIR, help="folder for the weights and record")
    args = parser.parse_args(argv)
    check.seed("--seed", args.seed)
    trained = _train_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"self_attention_seed{args.seed}"
    torch.save({v: _state(m) for v, (m, _) in trained.items()}, stem.with_suffix(".pt"))
    held_out = held_out_set()
    record = {
        "command": f"python -m attention_helpers.lessons.self_attention --seed {args.seed}",
        "seed": args.seed,
        "steps": _STEPS,
        "shape": _SHAPE,
        "held_out_accuracy": {v: round(reversal_report(m, held_out)["accuracy"], 4) for v, (m, _) in trained.items()},
        "training_cpu_seconds": round(sum(log.cpu_seconds for _, log in trained.values()), 1),
        "torch": torch.__version__,
    }
    stem.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    size = stem.with_suffix(".pt").stat().st_size
    print(f"wrote {stem.with_suffix('.pt')} ({size} bytes); held-out accuracy {record['held_out_accuracy']}")


if __name__ == "__main__":
    _main()
