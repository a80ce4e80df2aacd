"""`python -m attention_helpers.tools.claims`: every registered claim over its draws or seeds, as a table.

For each claim: notebook, section, its words, how often it held (of how many draws or seeds), the range of its
measure, the stated rate, and how often a plausible wrong story would hold. Exits 1 if any claim holds on less
than its stated rate or its wrong story holds as often (the claim could not fail), or if a notebook's quoted
numbers are not the measured ones.

Claims on trained models read the committed per-seed records (`attention_helpers/lessons/data/records/`);
`--retrain FAMILY` re-creates a family's records by training (`--seeds` to limit, `--jobs` processes).

`--held-out` asks how a sentence would have fared on seeds nobody chose its words on: each claim's draws or seeds are
split in two, and the range and share read off the first half are checked on the second (how many of its values fall
outside that range; how often the claim holds there). A range read off n seeds misses a new seed with probability
about 2/(n + 1) when the seeds are exchangeable: the table prints that too. It reports and never fails.

A fresh reader's round (CONTRIBUTING, "Seeds nobody chose the words on") uses two more options:
`--retrain FAMILY --seeds ... --out DIR` trains seeds into DIR (records in DIR/records, weights in DIR/cache) and
leaves the repository's records alone; `--fresh DIR` then runs every claim on trained models whose family has records
in DIR on those seeds, beside the committed ones: how often it holds there against its stated rate, and how many fresh
values fall outside the committed range. It reports and never fails.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CLAIM_MODULES",
    "ROOT",
    "HeldOut",
    "fresh_seeds",
    "held_out",
    "load_claims",
    "main",
    "quote_problems",
    "use_dir",
]

ROOT = Path(__file__).resolve().parents[2]
# the lesson modules that register claims: every attention_helpers/lessons/<topic>_claims.py
CLAIM_MODULES = tuple(
    f"attention_helpers.lessons.{p.stem}" for p in sorted((ROOT / "attention_helpers" / "lessons").glob("*_claims.py"))
)


def load_claims() -> list:
    """Import every claim module; return the registered claims."""
    from attention_helpers.lessons import claims

    for name in CLAIM_MODULES:
        importlib.import_module(name)
    return claims.CLAIMS


def _notebook_text(number: str) -> str:
    path = next((ROOT / "notebooks").glob(f"{number}_*.ipynb"))
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    parts = []
    for cell in cells:
        parts.append("".join(cell["source"]))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return " ".join(" ".join(parts).split())  # whitespace folded: markdown wraps lines anywhere


def quote_problems(claims: list, results: list) -> list[str]:
    """The claims whose quoted words (from the measured results) are not in their notebook."""
    problems, texts = [], {}
    for c, r in zip(claims, results, strict=True):
        if c.quote is None:
            continue
        text = texts.setdefault(c.notebook, _notebook_text(c.notebook))
        words = " ".join(c.quote(r).split())
        if words not in text:
            problems.append(f"{c.notebook} §{c.section}: the notebook does not say {words!r}")
    return problems


@dataclass(frozen=True)
class HeldOut:
    """A claim read off the first half of its draws or seeds, checked on the second half."""

    first: tuple[float, ...]  # the measure on the first half
    second: tuple[float, ...]  # ... and on the second
    held_second: int  # how many of the second half the claim holds on

    @property
    def outside(self) -> int:
        """How many of the second half's values lie outside the first half's range."""
        low, high = min(self.first), max(self.first)
        return sum(not low <= v <= high for v in self.second)

    @property
    def miss_chance(self) -> float:
        """The chance that one more exchangeable seed falls outside the range of all n: 2 / (n + 1)."""
        return 2 / (len(self.first) + len(self.second) + 1)


def held_out(made, result) -> HeldOut:
    """Split a claim's measured result in two halves, in the order of its draws or seeds."""
    half = result.n // 2
    return HeldOut(result.values[:half], result.values[half:], sum(result.held[half:]))


def _print_held_out(chosen: list, results: list) -> None:
    print(
        f"{'nb':<3} {'§':<6} {'n':>4} {'1st-half range':>19} {'2nd outside':>11} {'2nd held':>9} {'P(miss)':>7}  claim"
    )
    for c, r in zip(chosen, results, strict=True):
        h = held_out(c, r)
        print(
            f"{c.notebook:<3} {c.section:<6} {r.n:>4} {min(h.first):>9.4g}-{max(h.first):<9.4g} "
            f"{h.outside:>5}/{len(h.second):<5} {h.held_second:>4}/{len(h.second):<4} {h.miss_chance:>7.2f}  {c.words}"
        )


def use_dir(out: Path) -> None:
    """Read and write records under out/records, and keep trained weights under out/cache (a fresh reader's seeds)."""
    from attention_helpers.lessons import claims, dates_claims, induction, self_attention

    out = Path(out)
    claims.RECORDS_DIR = out / "records"
    dates_claims.CACHE = induction._CACHE = self_attention._CACHE = out / "cache"


def fresh_seeds(out: Path) -> dict[str, list[int]]:
    """family -> the seeds whose records lie in out/records."""
    found: dict[str, list[int]] = {}
    for path in sorted((Path(out) / "records").glob("*_seed*.json")):
        name, seed = path.stem.rsplit("_seed", 1)
        found.setdefault(name, []).append(int(seed))
    return {name: sorted(seeds) for name, seeds in found.items()}


def _print_fresh(chosen: list, out: Path) -> None:
    import copy

    from attention_helpers.lessons import claims

    seeds = fresh_seeds(out)
    committed = [(c, c.run()) for c in chosen if c.source == "seeds" and c.family in seeds]
    records_dir = claims.RECORDS_DIR
    claims.RECORDS_DIR = out / "records"  # only read: no weights are trained
    claims.FALLBACK_DIR = records_dir  # seed 0's committed record, for the claims that compare a seed with it
    try:
        print(
            f"{'nb':<3} {'§':<6} {'fresh':>9} {'stated':>6} {'committed range':>21} {'fresh range':>21} {'outside':>7}  claim"
        )
        for c, r in committed:
            fresh = copy.copy(c)  # not dataclasses.replace: a report on a few seeds skips the standard's checks
            object.__setattr__(fresh, "seeds", tuple(seeds[c.family]))
            object.__setattr__(fresh, "n", len(seeds[c.family]))
            f = fresh.run()
            outside = sum(not r.low <= v <= r.high for v in f.values)
            print(
                f"{c.notebook:<3} {c.section:<6} {f.count:>4}/{f.n:<4} {c.rate:>6.0%} {r.low:>10.4g}-{r.high:<10.4g} "
                f"{f.low:>10.4g}-{f.high:<10.4g} {outside:>3}/{f.n:<3}  {c.words}"
            )
    finally:
        claims.RECORDS_DIR, claims.FALLBACK_DIR = records_dir, None
    print(f"{len(committed)} claims on the seeds of {', '.join(f'{n} {s[0]}-{s[-1]}' for n, s in seeds.items())}")


def _retrain_one(name: str, seed: int, out: str | None = None) -> str:
    from attention_helpers.lessons import claims

    load_claims()
    if out is not None:
        use_dir(Path(out))
    measurements = claims.FAMILIES[name].retrain(seed)
    return str(claims.write_record(name, seed, measurements))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m attention_helpers.tools.claims", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--notebook", help="only this notebook's claims, e.g. 06")
    parser.add_argument(
        "--retrain", metavar="FAMILY", help="re-create a family's per-seed records by training (or 'all')"
    )
    parser.add_argument("--seeds", type=int, nargs="*", help="with --retrain: only these seeds")
    parser.add_argument("--jobs", type=int, default=1, help="with --retrain: processes (each trains on one thread)")
    parser.add_argument(
        "--held-out",
        action="store_true",
        help="also check each claim's first-half range and share on its second half (a report; never fails)",
    )
    parser.add_argument(
        "--out", metavar="DIR", help="with --retrain: write the records (and weights) under DIR, not the repository's"
    )
    parser.add_argument(
        "--fresh",
        metavar="DIR",
        help="also run the claims on trained models on the seeds recorded under DIR/records (a report; never fails)",
    )
    args = parser.parse_args(argv)
    if args.out and not args.retrain:
        parser.error("--out goes with --retrain")
    registered = load_claims()
    from attention_helpers.lessons import claims

    if args.retrain:
        names = list(claims.FAMILIES) if args.retrain == "all" else [args.retrain]
        for name in names:
            if name not in claims.FAMILIES:
                parser.error(f"--retrain: no family {name!r}; there are {sorted(claims.FAMILIES)}")
        jobs = [(n, s, args.out) for n in names for s in (args.seeds or claims.FAMILIES[n].seeds)]
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for path in pool.map(_retrain_one, *zip(*jobs, strict=True)):
                print("wrote", path if args.out else Path(path).relative_to(ROOT))
        return 0
    chosen = sorted((c for c in registered if args.notebook in (None, c.notebook)), key=lambda c: c.notebook)
    results, failed = [], 0
    print(f"{'nb':<3} {'§':<6} {'held':>9} {'stated':>6} {'range':>17} {'wrong':>7}  claim")
    for c in chosen:
        r = c.run()
        results.append(r)
        ok = c.passes(r)
        failed += not ok
        wrong = f"{sum(r.wrong_held)}/{r.n}"
        print(
            f"{c.notebook:<3} {c.section:<6} {r.count:>4}/{r.n:<4} {c.rate:>6.0%} {r.low:>8.4g}-{r.high:<8.4g} "
            f"{wrong:>7}  {'' if ok else 'FAILS: '}{c.words} ({c.source}; wrong story: {c.wrong_story})"
        )
    problems = quote_problems(chosen, results)
    for p in problems:
        print("QUOTE:", p)
    print(f"{len(chosen)} claims, {failed} below their stated rate or unfalsified, {len(problems)} misquoted")
    if args.held_out:
        print()
        _print_held_out(chosen, results)
    if args.fresh:
        print()
        _print_fresh(chosen, Path(args.fresh))
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
