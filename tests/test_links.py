"""Links between notebooks land on a heading: `[7.4](../07_cost_of_attention.ipynb#7.4-Exercises)` needs a
"## 7.4 Exercises" in notebook 07. Renumbering a section breaks such links silently in JupyterLab; the book's build
fails on them, minutes into CI. This finds them in a second."""

from __future__ import annotations

import json
import re
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LINK = re.compile(r"\]\((?:\.\./)?(\d\d_[a-z0-9_]+\.ipynb)#([^)\s\"]+)\)")


def anchors(path: Path) -> set[str]:
    """The anchors JupyterLab gives a notebook's headings: the heading's text, spaces as '-'."""
    found = set()
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if (match := re.match(r"#{1,6} (.+)", line)) is not None:
                    found.add(match.group(1).strip().replace(" ", "-"))
    return found


def broken_links(paths: list[Path]) -> list[str]:
    known = {p.name: anchors(p) for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    broken = []
    for path in paths:
        for target, anchor in LINK.findall(path.read_text()):
            if target not in known:
                broken.append(f"{path.name}: {target} does not exist")
            elif anchor not in known[target]:
                broken.append(f"{path.name}: {target}#{anchor} is no heading there")
    return broken


def test_every_link_between_notebooks_lands_on_a_heading():
    paths = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/*.ipynb"))
    assert len(paths) >= 12
    assert broken_links(paths) == []


def test_a_link_to_a_renumbered_section_is_found(tmp_path):
    page = tmp_path / "page.ipynb"
    cell = {
        "cell_type": "markdown",
        "metadata": {},
        "source": [
            "see [8.7.4](../08_attention_without_the_matrix.ipynb#8.7.4-More-exercises) and [x](99_nothing.ipynb#a)"
        ],
    }
    page.write_text(json.dumps({"cells": [cell]}))
    assert broken_links([page]) == [
        "page.ipynb: 08_attention_without_the_matrix.ipynb#8.7.4-More-exercises is no heading there",
        "page.ipynb: 99_nothing.ipynb does not exist",
    ]
