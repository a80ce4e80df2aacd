"""Train, save, load and measure the date translator of `attention_helpers.lessons.dates` (notebook 06).

Vocabulary: N dates, T = 10 output characters, L input characters, S checkpoints.
`python -m attention_helpers.lessons.dates_train train --attention additive` retrains one model and rewrites its committed weights
(`attention_helpers/lessons/data/dates_<attention>.pt`) and record (`.json`: the command, seed, seconds, held-out accuracy).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from .. import _validate as check
from .dates import (
    ATTENTIONS,
    FIELDS,
    OUTPUT_FIELDS,
    DateSet,
    DateTranslator,
    decode_outputs,
    encode_inputs,
    encode_outputs,
    make_dates,
    not_a_date,
    unreadable,
)
from .optim import Adam

__all__ = [
    "CHECKPOINT_STEPS",
    "DATA_DIR",
    "HELD_OUT_SIZE",
    "DateWarning",
    "TrainingLog",
    "alignment_by_order",
    "alignment_report",
    "exact_match",
    "field_mass",
    "load_checkpoints",
    "load_record",
    "load_translator",
    "peak_weight",
    "train_translator",
    "translate",
    "translation_notes",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
HELD_OUT_SIZE = 2000  # the held-out set every record and notebook measures: make_dates(2000, "held_out", seed=0)
CHECKPOINT_STEPS = (0, 60, 120, 180)  # the additive model's saved checkpoints (float16), for the explorer


@dataclass
class TrainingLog:
    """Loss at every step, checkpoints {step: state_dict}, and the training's wall-clock seconds."""

    losses: list[float] = field(default_factory=list)
    checkpoints: dict[int, dict[str, torch.Tensor]] = field(default_factory=dict)
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # this process's CPU time: what an idle core would take, on a busy machine

    def __post_init__(self) -> None:
        check.sequence_of("losses", self.losses, float, "float", "a float")
        if not isinstance(self.checkpoints, dict):
            raise TypeError(f"checkpoints must be a dict {{step: state_dict}}, got {check.describe(self.checkpoints)}")
        check.real("seconds", self.seconds, low=0.0)
        check.real("cpu_seconds", self.cpu_seconds, low=0.0)


def _state(model: DateTranslator) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def train_translator(
    attention: str = "additive",
    steps: int = 600,
    batch_size: int = 256,
    lr: float = 3e-3,
    seed: int = 0,
    train_size: int = 30_000,
    checkpoint_steps: object = (),
) -> tuple[DateTranslator, TrainingLog]:
    """Adam (learning rate decaying linearly to lr / 10) with teacher forcing on make_dates(train_size, seed=seed), one thread -> (model, log)."""
    attention = check.one_of("attention", attention, ATTENTIONS)
    steps, batch_size = check.int_at_least("steps", steps, 0), check.positive_int("batch_size", batch_size)
    lr = check.real("lr", lr, low=0.0, low_open=True, high=1e6)  # above: steps of a million per parameter, or overflow
    seed, train_size = check.seed("seed", seed), check.positive_int("train_size", train_size)
    checkpoint_steps = {
        check.int_at_least(f"checkpoint_steps[{i}]", s, 0)
        for i, s in enumerate(check.sequence("checkpoint_steps", checkpoint_steps, "int"))
    }
    if checkpoint_steps and max(checkpoint_steps) > steps:
        raise ValueError(
            f"checkpoint_steps must lie in 0 .. steps={steps} (a checkpoint is saved before that step), got "
            f"{sorted(checkpoint_steps)}"
        )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the same sums in the same order on every run
    try:
        start, cpu = time.perf_counter(), time.process_time()
        data = make_dates(train_size, "train", seed)
        src, valid_lens = encode_inputs(data.inputs)  # (N, L), (N,)
        targets = encode_outputs(data.outputs)  # (N, T)
        model = DateTranslator(attention, seed=seed)
        optimizer = Adam(model.parameters(), lr=lr)
        generator = torch.Generator().manual_seed(seed)
        order = torch.randperm(train_size, generator=generator)
        log = TrainingLog()
        position = 0
        for step in range(steps + 1):
            if step in checkpoint_steps:
                log.checkpoints[step] = _state(model)
            if step == steps:
                break
            if position + batch_size > train_size:
                order, position = torch.randperm(train_size, generator=generator), 0
            batch = order[position : position + batch_size]  # (B,)
            position += batch_size
            length = int(valid_lens[batch].max())
            logits = model(src[batch, :length], valid_lens[batch], targets[batch])  # (B, T, V)
            loss = F.cross_entropy(logits.flatten(0, 1), targets[batch].flatten())  # (B T, V), (B T,)
            optimizer.zero_grad()
            loss.backward()
            optimizer.lr = lr * (1 - 0.9 * step / steps)  # decays linearly to lr / 10
            optimizer.step()
            log.losses.append(loss.item())
        log.seconds, log.cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
    finally:
        torch.set_num_threads(threads)
    model.eval()
    return model, log


class DateWarning(UserWarning):
    """`translate` was given a text the model was never trained on, or wrote something that is not a date."""


warnings.simplefilter("always", DateWarning)  # every call says it, not only the first from each line


def translation_notes(texts: object, outputs: object) -> list[str]:
    """N input texts and the N outputs a model wrote for them -> N notes, "" where there is nothing to say: why an
    input is unlike every date of the training data (`dates.unreadable`: the output is a guess), and why an output
    is not a date (`dates.not_a_date`)."""
    texts = check.sequence_of("texts", texts, str, "str", "a str")
    outputs = check.sequence_of("outputs", outputs, str, "str", "a str")
    if len(texts) != len(outputs):
        raise ValueError(f"texts and outputs must hold one entry per date, got {len(texts)} and {len(outputs)}")
    notes = []
    for text, output in zip(texts, outputs, strict=True):
        said, quoted = [], repr(text) if len(text) <= 60 else repr(text[:57]) + "..."
        if reason := unreadable(text):
            said.append(f"The model was never trained on an input like {quoted}: {reason}. Its output is a guess")
        if reason := not_a_date(output):
            said.append(f"The output {output!r} is not a date: {reason}")
        notes.append(". ".join(said))
    return notes


def translate(model: DateTranslator, texts: object, *, warn: bool = True) -> tuple[list[str], torch.Tensor | None]:
    """N input texts -> (N predicted ISO texts, attention weights (N, T, L) or None), L = the longest text.

    With `warn` (the default), a `DateWarning` lists each text the model was never trained on (a word that is not a
    date, an impossible date, a format the data does not hold) and each output that is not a date: the model
    answers every input, and would otherwise answer these silently (`translation_notes` gives the same notes as a
    list). Measurements over many dates, which count wrong outputs themselves, pass warn=False."""
    if not isinstance(model, DateTranslator):
        raise TypeError(f"model must be a DateTranslator, got {check.describe(model)}")
    warn = check.boolean("warn", warn)
    src, valid_lens = encode_inputs(texts)  # (N, L), (N,)
    outputs, weights = model.translate(src, valid_lens)  # (N, T), (N, T, L)
    predictions = decode_outputs(outputs)
    if warn:
        said = [(i, note) for i, note in enumerate(translation_notes(texts, predictions)) if note]
        if said:
            lines = [f"texts[{i}]: {note}" for i, note in said[:5]]
            lines += [f"... and {len(said) - 5} more (translation_notes lists them all)"] if len(said) > 5 else []
            warnings.warn("\n".join(lines), DateWarning, stacklevel=2)
    return predictions, weights


def _data(data: object) -> DateSet:
    if not isinstance(data, DateSet):
        raise TypeError(f"data must be a DateSet (from make_dates), got {check.describe(data)}")
    return data


def exact_match(model: DateTranslator, data: object) -> float:
    """The fraction of `data`'s dates whose whole ISO output is right."""
    data = _data(data)
    predictions, _ = translate(model, list(data.inputs), warn=False)  # a wrong output, a non-date included, counts
    return sum(p == t for p, t in zip(predictions, data.outputs, strict=True)) / len(data)


def _weights(weights: object, data: DateSet) -> torch.Tensor:
    weights = check.finite("weights", check.floating_tensor("weights", weights))  # NaN would count as "not here"
    if weights.numel() and (float(weights.min()) < 0 or float(weights.max()) > 1 + 1e-3):
        raise ValueError(
            f"weights must be attention weights, in [0, 1], got values {float(weights.min()):.3g} .. "
            f"{float(weights.max()):.3g}"
        )
    longest = max(len(t) for t in data.inputs)
    if weights.dim() != 3 or weights.shape[0] != len(data) or weights.shape[1] != 10 or weights.shape[2] < longest:
        raise ValueError(
            f"weights must be (N, T, L) = ({len(data)}, 10, >= {longest}) for these {len(data)} dates, "
            f"got {tuple(weights.shape)}"
        )
    return weights


def _unwritten(data: DateSet, name: str) -> torch.Tensor:
    """(N, digits) True for the field's output digits the input does not write: the century of a two-digit year,
    the leading 0 of "3" or "3rd" (a month name writes both of its digits)."""
    digits = len(OUTPUT_FIELDS[name])
    spans = [text[slice(*span[name])] for text, span in zip(data.inputs, data.spans, strict=True)]
    written = torch.tensor([sum(c.isdigit() for c in span) or digits for span in spans])  # (N,)
    return torch.arange(digits) < digits - written[:, None]  # (N, digits): the leading ones


def field_mass(weights: object, data: object, margin: int = 0) -> dict[str, torch.Tensor]:
    """{field: (N, digits) weight that each of the field's output digits puts on the field's input characters};
    NaN for the digits the input does not write (the century of a two-digit year, the 0 of "3" or "3rd").
    margin > 0 widens each field by that many characters on each side (its neighbours count as the field)."""
    data = _data(data)
    weights = _weights(weights, data)
    margin = check.int_at_least("margin", margin, 0)
    masks = data.span_masks(weights.shape[2])  # field -> (N, L)
    masses = {}
    for name in FIELDS:
        mask = masks[name].float()[:, None, :]  # (N, 1, L)
        if margin:  # a character counts if the field is within `margin` of it
            mask = F.max_pool1d(mask, 2 * margin + 1, stride=1, padding=margin)  # (N, 1, L)
        mass = (weights[:, list(OUTPUT_FIELDS[name]), :] * mask).sum(-1)  # (N, digits, L) -> (N, digits)
        masses[name] = mass.masked_fill(_unwritten(data, name), float("nan"))
    return masses


def peak_weight(weights: object, data: object) -> dict[str, float]:
    """{field: the largest weight of the field's written output digits, averaged over dates and digits}:
    1 for a digit that looks at one character only, 1 / L for one that looks everywhere."""
    data = _data(data)
    weights = _weights(weights, data)
    peaks = {}
    for name in FIELDS:
        top = weights[:, list(OUTPUT_FIELDS[name]), :].amax(-1)  # (N, digits)
        peaks[name] = top[~_unwritten(data, name)].mean().item()
    return peaks


def alignment_report(weights: object, data: object, by: str = "mass", threshold: float = 0.5) -> dict[str, float]:
    """{field: fraction of dates where every output digit of the field that the input writes looks at the field}.

    by="mass": puts more than `threshold` of its weight on the field's input characters;
    by="argmax": puts its largest weight on one of them."""
    by = check.one_of("by", by, ("mass", "argmax"))
    threshold = check.real("threshold", threshold, low=0.0, high=1.0, high_open=True)
    data = _data(data)
    weights = _weights(weights, data)
    if by == "mass":
        hits = {name: mass > threshold for name, mass in field_mass(weights, data).items()}  # NaN > t is False
    else:
        masks = data.span_masks(weights.shape[2])  # field -> (N, L)
        top = weights.argmax(-1)  # (N, T)
        hits = {name: masks[name].gather(1, top[:, list(OUTPUT_FIELDS[name])]) for name in FIELDS}  # (N, digits)
    return {name: (hits[name] | _unwritten(data, name)).all(-1).float().mean().item() for name in FIELDS}


def alignment_by_order(
    weights: object, data: object, by: str = "mass", threshold: float = 0.5
) -> dict[str, dict[str, float]]:
    """{order: alignment_report of the dates written in that field order ("DMY", "MDY", "YMD")}: a field found
    in one order only (say, the year at the end of the text) shows up here, not in the whole-set report."""
    data = _data(data)
    weights = _weights(weights, data)
    reports = {}
    for order in ("DMY", "MDY", "YMD"):
        keep = [i for i, f in enumerate(data.formats) if f.order == order]
        if keep:
            subset = DateSet(
                *(
                    tuple(column[i] for i in keep)
                    for column in (data.inputs, data.outputs, data.spans, data.formats, data.unseen_format)
                )
            )
            reports[order] = alignment_report(weights[keep], subset, by=by, threshold=threshold)
    return reports


def _path(attention: str, suffix: str) -> Path:
    return DATA_DIR / f"dates_{check.one_of('attention', attention, ATTENTIONS)}{suffix}"


def load_record(attention: str = "additive") -> dict[str, object]:
    """The committed record of a trained model: command, seed, seconds, held-out exact match."""
    return json.loads(_path(attention, ".json").read_text())


def _model(attention: str, state: dict[str, torch.Tensor]) -> DateTranslator:
    model = DateTranslator(attention)
    model.load_state_dict({k: v.float() for k, v in state.items()})
    return model.eval()


def load_translator(attention: str = "additive") -> DateTranslator:
    """The committed trained model (weights in attention_helpers/lessons/data/), in eval mode."""
    return _model(attention, torch.load(_path(attention, ".pt"), weights_only=True))


def load_checkpoints(steps: object = None) -> dict[int, DateTranslator]:
    """{step: the additive model during its training} for `steps` (default: all of CHECKPOINT_STEPS), from the
    committed float16 checkpoints."""
    wanted = list(CHECKPOINT_STEPS) if steps is None else check.sequence_of("steps", steps, int, "int", "an int")
    for i, step in enumerate(wanted):
        if isinstance(step, bool):
            raise TypeError(f"steps[{i}] must be an int, got {check.describe(step)}")
        if step not in CHECKPOINT_STEPS:
            raise ValueError(f"steps must be among the saved CHECKPOINT_STEPS {list(CHECKPOINT_STEPS)}, got {step}")
    states = torch.load(_path("additive", "_checkpoints.pt"), weights_only=True)
    return {step: _model("additive", states[step]) for step in wanted}


def _main(argv: list[str] | None = None) -> None:
    """`python -m attention_helpers.lessons.dates_train train --attention additive [--steps N] [--out DIR]`."""
    parser = argparse.ArgumentParser(
        prog="python -m attention_helpers.lessons.dates_train", description=__doc__.splitlines()[0]
    )
    parser.add_argument("command", choices=["train"])
    parser.add_argument("--attention", choices=ATTENTIONS, default="additive")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="folder for the weights and record")
    args = parser.parse_args(argv)
    checkpoints = CHECKPOINT_STEPS if args.attention == "additive" else ()
    model, log = train_translator(args.attention, steps=args.steps, seed=args.seed, checkpoint_steps=checkpoints)
    accuracy = exact_match(model, make_dates(HELD_OUT_SIZE, "held_out", seed=0))
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"dates_{args.attention}"
    torch.save({k: v.float() for k, v in model.state_dict().items()}, stem.with_suffix(".pt"))
    if log.checkpoints:
        half = {s: {k: v.half() for k, v in state.items()} for s, state in log.checkpoints.items()}
        torch.save(half, args.out / f"dates_{args.attention}_checkpoints.pt")
    command = f"python -m attention_helpers.lessons.dates_train train --attention {args.attention} --steps {args.steps} --seed {args.seed}"
    record = {
        "command": command,
        "seed": args.seed,
        "steps": args.steps,
        "training_seconds": round(log.seconds, 1),
        "training_cpu_seconds": round(log.cpu_seconds, 1),
        "threads": 1,
        "final_loss": round(log.losses[-1], 4) if log.losses else None,
        "held_out_size": HELD_OUT_SIZE,
        "held_out_exact_match": round(accuracy, 4),
        "torch": torch.__version__,
    }
    stem.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n")
    print(json.dumps(record, indent=2), file=sys.stdout)


if __name__ == "__main__":
    _main()
