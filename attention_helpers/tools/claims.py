"""`python -m attention_helpers.tools.claims`: every registered claim over its draws or seeds, as a table.

For each claim: notebook, section, its words, how often it held (of how many draws or seeds), the range of its
measure, the stated rate, and how often a plausible wrong story would hold. Exits 1 if any claim holds on less
than its stated rate or its wrong story holds as often (the claim could not fail), or if a notebook's quoted
numbers are not the measured ones.

Claims on trained models read the committed per-seed records (`attention_helpers/lessons/data/records/`);
`--retrain FAMILY` re-creates a family's records by training (`--seeds` to limit, `--jobs` processes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

__all__ = ["CLAIM_MODULES", "ROOT", "load_claims", "main", "quote_problems"]

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
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
