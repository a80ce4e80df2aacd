"""`python -m attention_helpers.tools.reading_time`: the README's reading table shows the times it computes, and it
counts what a reader sees (no speaker notes, no folded code), exercises, and the first reading before "Going further"."""

from __future__ import annotations

import json

from attention_helpers.tools import reading_time as rt


def _notebook(tmp_path, cells):
    path = tmp_path / "00_x.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _md(text, **meta):
    return {"cell_type": "markdown", "source": text, "metadata": meta}


def _code(text, outputs=(), **meta):
    return {"cell_type": "code", "source": text, "metadata": meta, "outputs": list(outputs)}


def _printed(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def _result(**data):
    return {"output_type": "execute_result", "data": data, "metadata": {}, "execution_count": 1}


def test_readme_table_shows_the_computed_times():
    readme = (rt.ROOT / "README.md").read_text(encoding="utf-8")
    assert rt.readme_table(readme, rt.reading_times()) == readme, (
        "run python -m attention_helpers.tools.reading_time --readme"
    )


def test_it_counts_what_a_reader_sees(tmp_path):
    path = _notebook(
        tmp_path,
        [
            _md("one two three four"),
            _md("**Speaker notes.** not counted at all", slideshow={"slide_type": "notes"}, tags=["remove-cell"]),
            _code("x = 1\n\ny = 2\n", [_printed("printed words\n"), _result(**{"text/plain": "a result"})]),
            _code(
                "assert x == 1\n",
                [_printed("a folded cell's output is read\n")],
                tags=["hide-input"],
                jupyter={"source_hidden": True},
            ),
            _code("show()\n", [_result(**{"text/plain": "<Figure>", "image/png": "..."})]),  # a picture: not words
            _md("## 0.3 Exercises\n\n**Exercise 0.1.** five six\n\n**Exercise 0.2.** seven"),
            _md("## 0.4 Going further\n\neight nine"),
            _code("z = 3\n"),
            _md("**Exercise 0.3.** ten"),
        ],
    )
    first, whole = rt.notebook_reading(path)
    assert (first.words, first.code_lines, first.exercises, first.output_words) == (4 + 10, 3, 2, 2 + 2 + 6)
    assert (whole.words, whole.code_lines, whole.exercises, whole.output_words) == (4 + 10 + 6 + 3, 4, 3, 10)
    assert whole.minutes == (23 + 10) / 120 + 4 / 15 + 3 * 5
    assert rt.notebook_reading(_notebook(tmp_path, [_md("## Going further")]))[0].words == 0  # unnumbered heading


def test_the_readme_shows_both_times_once_a_notebook_has_a_first_reading():
    line = "| 3 | [X](notebooks/00_x.ipynb) | ~50 min | 01 | what |\n"
    first, whole = rt.Reading(1200, 0, 1), rt.Reading(2400, 30, 2)  # 15 and 32 minutes
    assert (
        rt.readme_table(line, {"00_x.ipynb": (first, whole)})
        == "| 3 | [X](notebooks/00_x.ipynb) | ~15 min (all: ~32 min) | 01 | what |\n"
    )
    assert (
        rt.readme_table(line, {"00_x.ipynb": (whole, whole)})
        == "| 3 | [X](notebooks/00_x.ipynb) | ~32 min | 01 | what |\n"
    )


def test_every_first_reading_takes_at_most_25_minutes_and_all_of_them_240():
    times = rt.reading_times()
    assert len(times) == 11
    for name, (first, whole) in times.items():
        assert first != whole, f"{name} has no 'Going further' heading"
        assert first.minutes <= 25, f"{name}: first reading {first.minutes:.2f} min"
    total = sum(first.minutes for first, _ in times.values())
    assert total <= 240, f"the first readings take {total:.1f} min together (issue 34: at most 240)"
