"""Claims that go beyond the run a notebook shows, checked over many draws or training seeds (issue 35's standard).

A notebook's asserts check the run it shows. A sentence such as "the day is the weakest field" or "in most random
layers" says more: it is about other seeds and other draws. Each such sentence is registered here as a `Claim`,
beside the lesson code it measures (`dates_claims`, `induction_claims`, ...), with:

- `measure(i)`: one number per draw or seed i (a random layer's statistic, a trained model's accuracy ...);
- `holds(value)`: whether the sentence is true of that draw or seed;
- `rate`: the share of the draws or seeds on which the notebook says it holds (1.0 for "every seed" or "always");
- `wrong`: the same measure under a plausible wrong story, which must hold *less* often than `rate` (so the claim
  can fail);
- `quote`: the words the notebook prints about it, rebuilt from the measured results, so that a test can check
  that the notebook's numbers are the measured ones.

Two kinds of source: `draws` (cheap: computed every time the harness runs, seeds 0 .. n-1) and `seeds` (trained
models: read from committed per-seed records, `data/records/<family>_seed<N>.json`, which
`python -m attention_helpers.tools.claims --retrain FAMILY` re-creates by training).

The standard (CONTRIBUTING, "Claims beyond the run shown"): a claim about a random draw holds on most of at least 50
draws and says how many; a claim about a trained model holds on at least 5 seeds or gives their range; "every seed"
or "always" is checked on at least 10.
"""

from __future__ import annotations

import copy
import json
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "CLAIMS",
    "FALLBACK_DIR",
    "FAMILIES",
    "MIN_DRAWS",
    "MIN_SEEDS",
    "MIN_SEEDS_FOR_ALL",
    "RECORDS_DIR",
    "Claim",
    "Family",
    "Result",
    "claim",
    "family",
    "load_records",
    "percent_floor",
    "record",
    "rounded",
    "write_record",
]

RECORDS_DIR = Path(__file__).resolve().parent / "data" / "records"
# where `record` looks for a seed that RECORDS_DIR lacks: `claims --fresh DIR` points RECORDS_DIR at a fresh reader's
# records and this at the committed ones, for the claims that compare each seed with the committed model (seed 0)
FALLBACK_DIR: Path | None = None
MIN_DRAWS, MIN_SEEDS, MIN_SEEDS_FOR_ALL = 50, 5, 10


@dataclass(frozen=True)
class Result:
    """A claim measured: one value per draw or seed, which of them hold, and the wrong story's values."""

    values: tuple[float, ...]
    held: tuple[bool, ...]
    wrong_held: tuple[bool, ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def count(self) -> int:
        return sum(self.held)

    @property
    def share(self) -> float:
        return self.count / self.n

    @property
    def low(self) -> float:
        return min(self.values)

    @property
    def high(self) -> float:
        return max(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def middle(self, share: float = 0.9) -> tuple[float, float]:
        """The lowest and highest of the middle `share` of the values (9 in 10 by default). Over random draws, quote
        this rather than `low` and `high`: the extremes of 1,000 draws move whenever the draws are redrawn (a fresh
        reader's 1,000 layers put 02's "1.0 to 7.4" at 7.9), the middle nine tenths barely do."""
        if not 0 < share <= 1:
            raise ValueError(f"share must lie in (0, 1], got {share}")
        ordered = sorted(self.values)
        cut = math.floor(round(self.n * (1 - share) / 2, 6))
        return ordered[cut], ordered[self.n - 1 - cut]


@dataclass(frozen=True)
class Claim:
    """One sentence of a notebook that says more than its run shows."""

    notebook: str  # "06"
    section: str  # "6.4"
    words: str  # the sentence, as the notebook says it (short)
    source: str  # "draws" or "seeds"
    n: int  # how many draws or seeds
    measure: Callable[[int], float]  # draw or seed -> a number
    holds: Callable[[float], bool]  # is the sentence true of that draw or seed?
    rate: float  # the share of draws or seeds the notebook says it holds on (1.0: every one)
    wrong_story: str  # a plausible wrong story the measure rules out
    wrong: Callable[[int], float]  # the same measure under the wrong story
    quote: Callable[[Result], str] | None = None  # the notebook's words about it, from the results
    family: str | None = None  # for source="seeds": the records it reads
    every: bool = False  # the notebook says "every seed" or "always" (needs 10 seeds)
    seeds: Sequence[int] = field(default=())

    def __post_init__(self) -> None:
        if self.source not in ("draws", "seeds"):
            raise ValueError(f"source must be 'draws' or 'seeds', got {self.source!r}")
        if not 0 < self.rate <= 1:
            raise ValueError(f"rate must lie in (0, 1], got {self.rate}")
        # "every seed" or "always" needs 10 seeds; "in all 5 seeds" is a claim about 5 and must quote their number
        least = MIN_DRAWS if self.source == "draws" else (MIN_SEEDS_FOR_ALL if self.every else MIN_SEEDS)
        if self.source == "seeds" and not self.every and self.quote is None:
            raise ValueError(f"{self.words!r}: a claim about some seeds must quote their number or range")
        if self.n < least:
            raise ValueError(
                f"{self.words!r}: a claim about {self.source} stating a rate of {self.rate:.0%} needs at least "
                f"{least} of them, got n={self.n}"
            )

    def ids(self) -> list[int]:
        return list(self.seeds)[: self.n] if self.seeds else list(range(self.n))

    def run(self) -> Result:
        ids = self.ids()
        values = tuple(float(self.measure(i)) for i in ids)
        return Result(
            values,
            tuple(bool(self.holds(v)) for v in values),
            tuple(bool(self.holds(float(self.wrong(i)))) for i in ids),
        )

    def passes(self, result: Result) -> bool:
        """Holds on at least its stated share, and the wrong story on less."""
        wrong_share = sum(result.wrong_held) / result.n
        return result.share >= self.rate - 1e-12 and wrong_share < self.rate


CLAIMS: list[Claim] = []


def claim(**kwargs: object) -> Claim:
    """Register a Claim (keyword arguments as the class) and return it."""
    made = Claim(**kwargs)  # type: ignore[arg-type]
    CLAIMS.append(made)
    return made


@dataclass(frozen=True)
class Family:
    """Trained models whose measurements are recorded per seed: `retrain(seed)` trains and measures one seed."""

    name: str
    seeds: tuple[int, ...]
    retrain: Callable[[int], dict]
    command: str  # how to re-create the records


FAMILIES: dict[str, Family] = {}


def family(name: str, seeds: Sequence[int], retrain: Callable[[int], dict], command: str) -> Family:
    """Register a family of per-seed records."""
    FAMILIES[name] = made = Family(name, tuple(seeds), retrain, command)
    return made


def _path(name: object, seed: object) -> Path:
    if not isinstance(name, str):
        raise TypeError(f"name must be a family's name, a str such as 'dates', got {type(name).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    return RECORDS_DIR / f"{name}_seed{seed}.json"


_READ: dict[Path, dict] = {}  # path -> its record, read once (write_record forgets it): claims read them often


def record(name: str, seed: int) -> dict:
    """The committed record of one seed of a family (its measurements, the command and seed that made them)."""
    path = _path(name, seed)
    if not path.exists() and FALLBACK_DIR is not None and (FALLBACK_DIR / path.name).exists():
        path = FALLBACK_DIR / path.name
    if path not in _READ:
        if not path.exists():
            raise FileNotFoundError(
                f"no record {path.name}: `python -m attention_helpers.tools.claims --retrain {name}` makes it"
            )
        _READ[path] = json.loads(path.read_text())
    return copy.deepcopy(_READ[path])  # the caller may change its copy


def load_records(name: str) -> dict[int, dict]:
    """{seed: record} for every seed of a family: its registered seeds, or else every record on disk."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a family's name, a str such as 'dates', got {type(name).__name__}")
    if name in FAMILIES:
        return {seed: record(name, seed) for seed in FAMILIES[name].seeds}
    seeds = sorted(int(p.stem.rsplit("_seed", 1)[1]) for p in RECORDS_DIR.glob(f"{name}_seed*.json"))
    if not seeds:
        known = sorted({p.stem.rsplit("_seed", 1)[0] for p in RECORDS_DIR.glob("*_seed*.json")})
        raise ValueError(f"name must be a family with records, one of {known}, got {name!r}")
    return {seed: record(name, seed) for seed in seeds}


def rounded(value: object) -> object:
    """Floats to 4 decimals, in dicts and lists; ints and strings as they are: how records store measurements."""
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


def write_record(name: str, seed: int, measurements: dict) -> Path:
    """Save one seed's measurements with the command and seed that made them."""
    import torch

    RECORDS_DIR.mkdir(parents=True, exist_ok=True)
    body = {"command": f"{FAMILIES[name].command} --seeds {seed}", "seed": seed, "torch": torch.__version__}
    path = _path(name, seed)
    path.write_text(json.dumps(body | measurements, indent=1, sort_keys=True) + "\n")
    _READ.pop(path, None)
    return path


def percent_floor(value: float) -> int:
    """A share as whole percent, rounded down ("88 % or more" must not round 0.8799 up), after rounding off float noise
    (0.29 * 100 is 28.999999999999996)."""
    return math.floor(round(value * 100, 6))
