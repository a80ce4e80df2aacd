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
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CLAIM_MODULES", "ROOT", "HeldOut", "held_out", "load_claims", "main", "quote_problems"]

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


def _retrain_one(name: str, seed: int) -> str:
    from attention_helpers.lessons import claims

    load_claims()
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
    args = parser.parse_args(argv)
    registered = load_claims()
    from attention_helpers.lessons import claims

    if args.retrain:
        names = list(claims.FAMILIES) if args.retrain == "all" else [args.retrain]
        for name in names:
            if name not in claims.FAMILIES:
                parser.error(f"--retrain: no family {name!r}; there are {sorted(claims.FAMILIES)}")
        jobs = [(n, s) for n in names for s in (args.seeds or claims.FAMILIES[n].seeds)]
        with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for path in pool.map(_retrain_one, *zip(*jobs, strict=True)):
                print("wrote", Path(path).relative_to(ROOT))
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
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
