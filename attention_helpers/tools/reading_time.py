"""`python -m attention_helpers.tools.reading_time`: how long each notebook takes to work through, from the committed
notebooks, by the README's rule: 120 words of text a minute, 15 shown lines of code a minute, 5 minutes an exercise.

What a reader sees counts: markdown cells but the speaker notes (slide type "notes" or the tag `remove-cell`), code
cells that are not folded (`hide-input` or `jupyter.source_hidden`; a folded cell's code is not read), and the text
every code cell prints, folded or not (its stream output and plain-text results, read at the rate of text; pictures,
explorers and HTML tables are not counted, nor the time spent moving an explorer's controls). Lines of code are the
non-empty ones. An exercise is a line of markdown that starts "**Exercise N.k".

Each notebook's **first reading** is what comes before its level-2 heading "Going further" (`## 6.10 Going further`
or `## Going further`), where the optional sections start; without one, the whole notebook. `--readme` rewrites the
README's reading table's time column from these numbers; `tests/tools/test_reading_time.py` checks that it agrees.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CODE_LINES_A_MINUTE",
    "EXERCISE",
    "EXERCISE_MINUTES",
    "GOING_FURTHER",
    "ROOT",
    "WORDS_A_MINUTE",
    "Reading",
    "main",
    "notebook_reading",
    "readme_table",
    "reading_times",
]

ROOT = Path(__file__).resolve().parents[2]
WORDS_A_MINUTE, CODE_LINES_A_MINUTE, EXERCISE_MINUTES = 120, 15, 5
GOING_FURTHER = re.compile(r"^##\s+(\d+\.\d+\s+)?Going further\b", re.MULTILINE)
EXERCISE = re.compile(r"^\*\*Exercise \d+\.\d+", re.MULTILINE)


@dataclass(frozen=True)
class Reading:
    """Words of text, shown lines of code and exercises of a stretch of a notebook, and the minutes they take."""

    words: int
    code_lines: int
    exercises: int
    output_words: int = 0  # words of printed output

    @property
    def minutes(self) -> float:
        return (
            (self.words + self.output_words) / WORDS_A_MINUTE
            + self.code_lines / CODE_LINES_A_MINUTE
            + EXERCISE_MINUTES * self.exercises
        )

    def __add__(self, other: Reading) -> Reading:
        return Reading(
            self.words + other.words,
            self.code_lines + other.code_lines,
            self.exercises + other.exercises,
            self.output_words + other.output_words,
        )


def _is_notes(cell: dict) -> bool:
    meta = cell.get("metadata", {})
    return meta.get("slideshow", {}).get("slide_type") == "notes" or "remove-cell" in meta.get("tags", [])


def _is_folded(cell: dict) -> bool:
    meta = cell.get("metadata", {})
    return "hide-input" in meta.get("tags", []) or bool(meta.get("jupyter", {}).get("source_hidden"))


def _printed_words(cell: dict) -> int:
    """Words of a code cell's printed output: streams, and results shown as plain text only."""
    words = 0
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            words += len("".join(output.get("text", "")).split())
        elif output.get("output_type") in ("execute_result", "display_data"):
            data = output.get("data", {})
            if set(data) == {"text/plain"}:  # not a picture, an explorer or an HTML table drawn in its place
                words += len("".join(data["text/plain"]).split())
    return words


def _cell_reading(cell: dict) -> Reading:
    text = "".join(cell["source"])
    if cell["cell_type"] == "markdown":
        if _is_notes(cell):
            return Reading(0, 0, 0)
        return Reading(len(text.split()), 0, len(EXERCISE.findall(text)))
    if cell["cell_type"] == "code":
        shown = 0 if _is_folded(cell) else sum(1 for line in text.splitlines() if line.strip())
        return Reading(0, shown, 0, _printed_words(cell))
    return Reading(0, 0, 0)


def notebook_reading(path: Path) -> tuple[Reading, Reading]:
    """(first reading, whole notebook) of one notebook."""
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    first = whole = Reading(0, 0, 0)
    further = False
    for cell in cells:
        if cell["cell_type"] == "markdown" and GOING_FURTHER.search("".join(cell["source"])):
            further = True
        reading = _cell_reading(cell)
        whole += reading
        if not further:
            first += reading
    return first, whole


def reading_times(folder: Path = ROOT / "notebooks") -> dict[str, tuple[Reading, Reading]]:
    """{notebook file name: (first reading, whole)} for every lesson notebook, in order."""
    return {p.name: notebook_reading(p) for p in sorted(Path(folder).glob("[0-9][0-9]_*.ipynb"))}


def _minutes(reading: Reading) -> str:
    return f"~{math.ceil(reading.minutes)} min"


def readme_table(readme: str, times: dict[str, tuple[Reading, Reading]]) -> str:
    """The README with its reading table's "time" cells set to "first reading / whole" from `times`."""
    out = []
    for line in readme.splitlines(keepends=True):
        match = re.match(r"^\| (\d+) \| \[[^\]]*\]\(notebooks/([^)]+\.ipynb)\) \| ([^|]*) \|", line)
        if match and match.group(2) in times:
            first, whole = times[match.group(2)]
            cell = _minutes(whole) if first == whole else f"{_minutes(first)} (all: {_minutes(whole)})"
            line = line[: match.start(3)] + cell + line[match.end(3) :]
        out.append(line)
    return "".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m attention_helpers.tools.reading_time", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--readme", action="store_true", help="rewrite the README's reading table's time column")
    args = parser.parse_args(argv)
    times = reading_times()
    print(f"{'notebook':<40} {'first reading':>37}   {'whole notebook':>37}")
    head = "words printed  code  ex.   minutes"
    print(f"{'':<40} {head:>37}   {head:>37}")
    total_first = total_whole = Reading(0, 0, 0)
    for name, (first, whole) in times.items():
        total_first, total_whole = total_first + first, total_whole + whole
        print(
            f"{name:<40} {first.words:>7} {first.output_words:>7} {first.code_lines:>5} {first.exercises:>4} "
            f"{first.minutes:>9.1f}   {whole.words:>7} {whole.output_words:>7} {whole.code_lines:>5} "
            f"{whole.exercises:>4} {whole.minutes:>9.1f}"
        )
    print(f"{'all':<40} {'':>28}{total_first.minutes:>9.1f}   {'':>28}{total_whole.minutes:>9.1f}")
    if args.readme:
        path = ROOT / "README.md"
        path.write_text(readme_table(path.read_text(encoding="utf-8"), times), encoding="utf-8")
        print("README.md: reading table updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
