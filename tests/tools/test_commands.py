"""Every `python -m ...` command that the README, CONTRIBUTING, a notebook or the package's own docs print runs:
its module answers `--help` with its usage and exits 0, without doing its work (issue 35)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"python -m ([a-zA-Z_][\w.]*)")


def printed_modules() -> list[str]:
    """The modules of every `python -m` command the series prints, each once."""
    texts = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "notebooks").rglob("*.ipynb"))]
    texts += sorted((ROOT / "attention_helpers").rglob("*.py")) + sorted((ROOT / "attention_helpers").rglob("*.json"))
    found = {m.rstrip(".") for path in texts for m in COMMAND.findall(path.read_text(encoding="utf-8"))}
    return sorted(m for m in found if m.startswith("attention_helpers"))


def test_the_scan_finds_the_commands():
    modules = printed_modules()
    for expected in (
        "attention_helpers.tools.slides",
        "attention_helpers.lessons.dates_train",
        "attention_helpers.tools.gallery",
    ):
        assert expected in modules, modules


@pytest.mark.slow  # a subprocess per module, each importing the package: run by .ci/run outside the 60 s budget
@pytest.mark.parametrize("module", printed_modules())
def test_a_printed_command_answers_help(module, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage:"), done.stdout[:300]
    assert list(tmp_path.iterdir()) == [], "--help wrote files"
