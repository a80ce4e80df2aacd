"""A task whose right alignment is known in advance: reverse a short sequence of digits with one attention layer.

Vocabulary: N sequences, T positions (queries = output steps, keys = input positions), h hidden size, S snapshots.
Input positions past a sequence's valid length hold `PAD`; targets there hold `IGNORE` (cross-entropy skips them).
Output step i of a sequence of length n should copy input position n - 1 - i: the anti-diagonal when n = T.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from . import _validate as check
from .layers import AdditiveAttention, MultiHeadAttention
from .masking import check_valid_lens

__all__ = [
    "Adam",
    "IGNORE",
    "NUM_DIGITS",
    "PAD",
    "ReversalData",
    "Reverser",
    "TrainingLog",
    "alignment_accuracy",
    "alignment_mass",
    "make_reversal_data",
    "reversal_alignment",
    "reverse_targets",
    "train_reverser",
]

NUM_DIGITS = 10  # tokens 0..9
PAD = NUM_DIGITS  # the padding token, 10
IGNORE = -100  # the target at padding positions: F.cross_entropy's default ignore_index


def _check_lens(valid_lens: object, num_steps: int) -> torch.Tensor:
    num_steps = check.positive_int("num_steps", num_steps)
    if isinstance(valid_lens, torch.Tensor):
        check.has_values("valid_lens", valid_lens)
    batch_size = valid_lens.shape[0] if isinstance(valid_lens, torch.Tensor) and valid_lens.dim() == 1 else -1
    return check_valid_lens(valid_lens, batch_size, None, num_steps, getattr(valid_lens, "device", None))


def _source_index(valid_lens: torch.Tensor, num_steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """-> (index (N, T): the input position output step i copies, n - 1 - i, clamped at 0; valid (N, T): i < n)."""
    steps = torch.arange(num_steps, device=valid_lens.device)  # (T,)
    valid = steps < valid_lens[:, None]  # (T,) vs (N, 1) -> (N, T)
    index = (valid_lens[:, None] - 1 - steps).clamp(min=0)  # (N, T)
    return index, valid


def reverse_targets(src: torch.Tensor, valid_lens: torch.Tensor) -> torch.Tensor:
    """Inputs (N, T), lengths (N,) -> targets (N, T): src[n, len - 1 - i] for i < len, IGNORE past the length."""
    _check_tokens("src", src)
    check_valid_lens(valid_lens, src.shape[0], None, src.shape[1], src.device)
    index, valid = _source_index(valid_lens, src.shape[1])  # (N, T) each
    return torch.where(valid, src.gather(1, index), IGNORE)  # (N, T)


def reversal_alignment(valid_lens: torch.Tensor, num_steps: int) -> torch.Tensor:
    """Lengths (N,) -> the right attention weights (N, T, T): 1 at (i, len - 1 - i) for i < len, 0 elsewhere."""
    valid_lens = _check_lens(valid_lens, num_steps)
    index, valid = _source_index(valid_lens, num_steps)  # (N, T) each
    one_hot = F.one_hot(index, num_steps).float()  # (N, T, T)
    return one_hot * valid[..., None]  # padding steps (rows) stay all 0


def _check_tokens(name: str, src: object) -> torch.Tensor:
    """Inputs (N, T): digits 0..9 and PAD, on a device that holds values."""
    check.integer_tensor(name, src, dims=2, shape="(N, T) of tokens")
    check.has_values(name, src)
    if src.numel() and not (0 <= int(src.min()) and int(src.max()) <= PAD):
        raise ValueError(
            f"{name} must hold tokens 0..{PAD} (digits and PAD={PAD}), got values {int(src.min())}..{int(src.max())}"
        )
    return src


def _check_weights(weights: object, valid_lens: object) -> tuple[torch.Tensor, torch.Tensor]:
    check.floating_tensor("weights", weights, dims=3, shape="(N, T, T)")
    N, T, K = weights.shape  # sequences, output steps, input positions
    if T != K:
        raise ValueError(f"weights must be square (N, T, T): one output step per input position, got {(N, T, K)}")
    if N == 0:
        raise ValueError("weights must hold at least one sequence (N >= 1): a mean over no steps is undefined")
    if isinstance(valid_lens, torch.Tensor):
        check.same_device([("weights", weights), ("valid_lens", valid_lens)])
    check.has_values("weights", weights)
    check_valid_lens(valid_lens, N, None, T, weights.device)
    check.finite("weights", weights)  # NaN would pick an arbitrary argmax, a silently wrong accuracy
    if not bool((valid_lens > 0).all()):
        raise ValueError("valid_lens must be >= 1: every sequence has at least one digit")
    return weights, valid_lens


def alignment_mass(weights: torch.Tensor, valid_lens: torch.Tensor) -> float:
    """Weights (N, T, T), lengths (N,) -> mean weight that a real output step puts on the input it should copy."""
    weights, valid_lens = _check_weights(weights, valid_lens)
    index, valid = _source_index(valid_lens, weights.shape[1])  # (N, T) each
    on_target = weights.gather(2, index[..., None])[..., 0]  # (N, T)
    return on_target[valid].mean().item()


def alignment_accuracy(weights: torch.Tensor, valid_lens: torch.Tensor) -> float:
    """Weights (N, T, T), lengths (N,) -> fraction of real output steps whose largest weight is on the right input."""
    weights, valid_lens = _check_weights(weights, valid_lens)
    index, valid = _source_index(valid_lens, weights.shape[1])  # (N, T) each
    return (weights.argmax(dim=-1) == index)[valid].float().mean().item()


@dataclass(frozen=True)
class ReversalData:
    """Sequences to reverse: inputs `src` (N, T) with PAD past each length, targets `tgt` (N, T), `valid_lens` (N,)."""

    src: torch.Tensor
    tgt: torch.Tensor
    valid_lens: torch.Tensor

    def __post_init__(self) -> None:
        src = _check_tokens("src", self.src)
        tgt = check.integer_tensor("tgt", self.tgt, dims=2, shape="(N, T)")
        if tgt.shape != src.shape:
            raise ValueError(f"tgt must have src's shape {tuple(src.shape)}, got {tuple(tgt.shape)}")
        check.same_device([("src", src), ("tgt", tgt)])
        check_valid_lens(self.valid_lens, src.shape[0], None, src.shape[1], src.device)
        if not bool(((tgt == IGNORE) | ((tgt >= 0) & (tgt < NUM_DIGITS))).all()):
            raise ValueError(
                f"tgt must hold digits 0..{NUM_DIGITS - 1} and IGNORE={IGNORE}, got {tgt.unique().tolist()}"
            )

    def __len__(self) -> int:
        return self.src.shape[0]

    def __getitem__(self, index: object) -> ReversalData:
        """A subset, e.g. data[:4] or data[torch.tensor([0, 5])]."""
        return ReversalData(self.src[index], self.tgt[index], self.valid_lens[index])

    def __repr__(self) -> str:
        N, T = self.src.shape  # sequences, positions
        lens = sorted(set(self.valid_lens.tolist()))
        return f"ReversalData({N} sequences of length {T}, valid lengths {lens})"

    def digits(self, n: int) -> str:
        """Sequence n's real digits, e.g. '3 1 4'."""
        check.int_at_least("n", n, 0)
        if n >= len(self):
            raise ValueError(f"n must be a sequence number in 0..{len(self) - 1}, got {n}")
        return " ".join(str(d) for d in self.src[n, : int(self.valid_lens[n])].tolist())


def make_reversal_data(
    num_train: int, num_test: int, seq_len: int = 6, min_len: int | None = None, seed: int = 0
) -> tuple[ReversalData, ReversalData]:
    """Distinct random digit sequences, lengths min_len..seq_len (default: all seq_len) -> (train, held-out test)."""
    for name, value in (("num_train", num_train), ("num_test", num_test), ("seq_len", seq_len)):
        check.positive_int(name, value)
    min_len = seq_len if min_len is None else check.positive_int("min_len", min_len)
    if min_len > seq_len:
        raise ValueError(f"min_len must be an int in 1..seq_len={seq_len}, got {min_len!r}")
    check.seed("seed", seed)
    total = num_train + num_test
    available = sum(NUM_DIGITS**n for n in range(min_len, seq_len + 1))
    if total > available // 2:
        raise ValueError(f"num_train + num_test = {total} is too many: only {available} distinct sequences exist")
    g = torch.Generator().manual_seed(seed)
    seen: set[tuple[int, ...]] = set()
    rows: list[torch.Tensor] = []
    while len(rows) < total:  # draw more than needed and keep first occurrences: train and test never share one
        digits = torch.randint(0, NUM_DIGITS, (2 * total, seq_len), generator=g)  # (2N, T)
        lens = torch.randint(min_len, seq_len + 1, (2 * total,), generator=g)  # (2N,)
        src = torch.where(torch.arange(seq_len) < lens[:, None], digits, PAD)  # (2N, T)
        for row in src:
            key = tuple(row.tolist())
            if key not in seen and len(rows) < total:
                seen.add(key)
                rows.append(row)
    src = torch.stack(rows)  # (N, T)
    valid_lens = (src != PAD).sum(dim=1)  # (N,)
    data = ReversalData(src, reverse_targets(src, valid_lens), valid_lens)
    return data[:num_train], data[num_train:]


class Reverser(nn.Module):
    """Embeddings + one attention layer + a linear read-out: output step i attends over the input positions.

    Queries: embeddings of the output step and of the length; keys: digit + input position embeddings; values:
    digit embeddings. `attention` is "dot" (`MultiHeadAttention` with one head: scaled dot-product over learned
    projections W_q, W_k) or "additive" (`AdditiveAttention`). Parameters are drawn from their own seed;
    embeddings start small (std 0.1), so all scores start near 0 and the weights near uniform.
    """

    def __init__(self, attention: str = "dot", seq_len: int = 6, num_hiddens: int = 32, seed: int = 0):
        super().__init__()
        check.one_of("attention", attention, ("dot", "additive"))
        for name, value in (("seq_len", seq_len), ("num_hiddens", num_hiddens)):
            check.positive_int(name, value)
        check.seed("seed", seed)
        self.kind, self.seq_len = attention, seq_len
        h = num_hiddens
        # The same parameters whatever ran before, without touching the caller's random number generator.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.embed = nn.Embedding(NUM_DIGITS + 1, h)  # digits and PAD
            self.key_pos = nn.Embedding(seq_len, h)  # input position j
            self.query_pos = nn.Embedding(seq_len, h)  # output step i
            self.query_len = nn.Embedding(seq_len + 1, h)  # the length n: step i must find position n - 1 - i
            if attention == "dot":
                self.attention = MultiHeadAttention(h, h, h, h, num_heads=1, dropout=0.0)
            else:
                self.attention = AdditiveAttention(h, h, h, dropout=0.0)
            self.out = nn.Linear(h, NUM_DIGITS)
            for embedding in (self.embed, self.key_pos, self.query_pos, self.query_len):
                nn.init.normal_(embedding.weight, std=0.1)  # small: every score starts near 0, the weights near uniform

    @property
    def attention_weights(self) -> torch.Tensor | None:
        """Weights of the last call, (N, T, T): output steps down, input positions across."""
        return self.attention.attention_weights

    def forward(self, src: torch.Tensor, valid_lens: torch.Tensor) -> torch.Tensor:
        """Inputs (N, T), lengths (N,) -> logits (N, T, NUM_DIGITS)."""
        check.integer_tensor("src", src, dims=2, shape=f"(N, {self.seq_len}) of tokens")
        if src.shape[1] != self.seq_len:
            raise ValueError(f"src must have shape (N, seq_len={self.seq_len}), got {tuple(src.shape)}")
        if src.device != self.embed.weight.device:
            raise ValueError(f"src is on {src.device} but the model on {self.embed.weight.device}; move one with .to()")
        _check_tokens("src", src)
        N, T = src.shape  # sequences, positions
        check_valid_lens(valid_lens, N, None, T, src.device)
        positions = torch.arange(T, device=src.device)  # (T,)
        keys = self.embed(src) + self.key_pos(positions)  # (N, T, h) + (T, h) -> (N, T, h)
        values = self.embed(src)  # (N, T, h)
        queries = self.query_pos(positions) + self.query_len(valid_lens)[:, None]  # (T, h) + (N, 1, h) -> (N, T, h)
        # Step i < n may see the n real inputs; a padding step sees nothing (its row of weights is all 0).
        step_lens = torch.where(positions < valid_lens[:, None], valid_lens[:, None], 0)  # (N, T)
        context = self.attention(queries, keys, values, step_lens)  # (N, T, h)
        return self.out(context)  # (N, T, NUM_DIGITS)


@dataclass
class TrainingLog:
    """What `train_reverser` recorded every `record_every` steps (step 0 = before training)."""

    name: str
    probe: ReversalData  # the held-out sequences whose weights are recorded
    steps: list[int] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)  # fraction of real output digits right
    alignment: list[float] = field(default_factory=list)  # `alignment_mass` on the whole test set
    snapshots: list[torch.Tensor] = field(default_factory=list)  # S tensors (P, T, T): the probe's weights
    seconds: float = field(default=0.0, compare=False)  # wall-clock time `train_reverser` took, evaluations included

    def __post_init__(self) -> None:
        check.text("name", self.name)
        if not isinstance(self.probe, ReversalData):
            raise TypeError(f"probe must be ReversalData, got {check.describe(self.probe)}")
        for name in ("steps", "test_loss", "test_accuracy", "alignment", "snapshots"):
            if not isinstance(getattr(self, name), list):
                raise TypeError(
                    f"{name} must be a list (filled while training), got {check.describe(getattr(self, name))}"
                )
        check.real("seconds", self.seconds, low=0.0)

    @property
    def weights(self) -> torch.Tensor:
        """All snapshots, (S, P, T, T)."""
        return torch.stack(self.snapshots)

    def at(self, step: int) -> torch.Tensor:
        """The probe's weights (P, T, T) recorded at `step`, or at the last recorded step before it."""
        check.int_at_least("step", step, 0)
        if not self.steps or step < self.steps[0]:
            raise ValueError(f"step must be >= the first recorded step, got {step}; recorded: {self.steps}")
        index = max(i for i, recorded in enumerate(self.steps) if recorded <= step)
        return self.snapshots[index]

    def steps_to(self, accuracy: float = 0.99) -> int | None:
        """The first recorded step at which the held-out accuracy reached `accuracy` (None if it never did)."""
        check.real("accuracy", accuracy, low=0.0, high=1.0)
        return next((s for s, a in zip(self.steps, self.test_accuracy, strict=True) if a >= accuracy), None)


class _ProgressBar:
    """An ipywidgets progress bar whose text form (what nbval compares and static readers see) never changes."""

    def __init__(self, total: int, description: str):
        import ipywidgets as widgets

        self.text = f"training {description!r}: {total} steps"
        self.widget = widgets.IntProgress(value=0, min=0, max=total, description=description)

    def _repr_mimebundle_(self, **kwargs: object) -> dict[str, object]:
        bundle = self.widget._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = self.text
        return bundle


class Adam:
    """The textbook Adam update (Kingma & Ba, 2015), as `torch.optim.Adam` does it with its default settings.

    Why not `torch.optim.Adam` itself: creating any `torch.optim` optimizer imports `torch._dynamo` the first time,
    2 to 3 s on a laptop, longer than a whole training run of the notebook.
    """

    def __init__(self, params: object, lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        if isinstance(params, torch.Tensor) or not hasattr(params, "__iter__"):
            raise TypeError(
                f"params must be an iterable of tensors, e.g. model.parameters(), got {check.describe(params)}"
            )
        params = list(params)
        for i, p in enumerate(params):
            check.floating_tensor(f"params[{i}]", p)
        lr = check.real("lr", lr, low=0.0, low_open=True)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (beta1, beta2), got {check.describe(betas)}")
        betas = tuple(check.real(f"betas[{i}]", b, low=0.0, high=1.0, high_open=True) for i, b in enumerate(betas))
        eps = check.real("eps", eps, low=0.0, low_open=True)
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]  # running mean of the gradients
        self.v = [torch.zeros_like(p) for p in self.params]  # running mean of their squares
        self.t = 0

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        self.t += 1
        beta1, beta2 = self.betas
        for p, m, v in zip(self.params, self.m, self.v, strict=True):
            if p.grad is None:
                continue
            m.lerp_(p.grad, 1 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            denominator = (v / (1 - beta2**self.t)).sqrt_().add_(self.eps)
            p.addcdiv_(m, denominator, value=-self.lr / (1 - beta1**self.t))


def _evaluate(model: Reverser, data: ReversalData) -> tuple[float, float, float]:
    """-> (loss, accuracy over real digits, alignment mass) on `data`, in eval mode without gradients."""
    model.eval()
    with torch.no_grad():
        logits = model(data.src, data.valid_lens)  # (N, T, NUM_DIGITS)
        loss = F.cross_entropy(logits.reshape(-1, NUM_DIGITS), data.tgt.reshape(-1), ignore_index=IGNORE)
        real = data.tgt != IGNORE  # (N, T)
        accuracy = (logits.argmax(dim=-1) == data.tgt)[real].float().mean()
        mass = alignment_mass(model.attention_weights, data.valid_lens)
    return loss.item(), accuracy.item(), mass


def train_reverser(
    model: Reverser,
    train: ReversalData,
    test: ReversalData,
    *,
    steps: int = 300,
    batch_size: int = 64,
    lr: float = 0.01,
    record_every: int = 10,
    probe: ReversalData | None = None,
    seed: int = 0,
    progress: bool = False,
) -> TrainingLog:
    """Adam on cross-entropy, on one CPU thread (bit-reproducible); records held-out metrics and the probe's weights."""
    if not isinstance(model, Reverser):
        raise TypeError(f"model must be a Reverser, got {check.describe(model)}")
    for name, data in (("train", train), ("test", test), ("probe", probe)):
        if data is None and name == "probe":
            continue
        if not isinstance(data, ReversalData):
            raise TypeError(f"{name} must be ReversalData (from make_reversal_data), got {check.describe(data)}")
        if data.src.shape[1] != model.seq_len or len(data) == 0:
            raise ValueError(
                f"{name} must hold sequences of length seq_len={model.seq_len}, got {len(data)} of length "
                f"{data.src.shape[1]}"
            )
    for name, value in (("steps", steps), ("batch_size", batch_size), ("record_every", record_every)):
        check.positive_int(name, value)
    lr = check.real("lr", lr, low=0.0, low_open=True)
    check.seed("seed", seed)
    check.boolean("progress", progress)
    probe = test[:3] if probe is None else probe
    log = TrainingLog(model.kind, probe)
    bar = None
    if progress:
        from IPython.display import display

        bar = _ProgressBar(steps, model.kind)
        display(bar)

    def record(step: int) -> None:
        loss, accuracy, mass = _evaluate(model, test)
        _evaluate(model, probe)
        log.steps.append(step)
        log.test_loss.append(loss)
        log.test_accuracy.append(accuracy)
        log.alignment.append(mass)
        log.snapshots.append(model.attention_weights.detach().clone())  # (P, T, T)

    started = time.perf_counter()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order, so the same numbers on every run
    try:
        g = torch.Generator().manual_seed(seed)
        optimizer = Adam(model.parameters(), lr=lr)
        record(0)
        for step in range(1, steps + 1):
            batch = train[torch.randint(len(train), (batch_size,), generator=g)]
            model.train()
            logits = model(batch.src, batch.valid_lens)  # (batch, T, NUM_DIGITS)
            loss = F.cross_entropy(logits.reshape(-1, NUM_DIGITS), batch.tgt.reshape(-1), ignore_index=IGNORE)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % record_every == 0 or step == steps:
                record(step)
                if bar is not None:
                    bar.widget.value = step
    finally:
        torch.set_num_threads(threads)
        model.eval()
        log.seconds = time.perf_counter() - started
    if bar is not None:
        bar.widget.bar_style = "success"
    return log
