"""Repository hygiene: lint, committed notebooks executed and stripped, the refresh command's stripping."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from attention_helpers.tools.refresh import LANGUAGE_INFO, NOTEBOOKS, all_notebooks, strip
from attention_helpers.tools.widget_state import canonical, displayed_ids, state_of

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_lint_and_format():
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    lint = subprocess.run([ruff, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run([ruff, "format", "--check", "."], cwd=ROOT, capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


@pytest.mark.parametrize("path", all_notebooks(), ids=lambda p: p.name)
def test_notebook_committed_executed_and_stripped(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code and all(c.execution_count is not None for c in code), "run `python -m attention_helpers.tools.refresh`"
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "cells must be run top to bottom"
    # explorers live without running: the state of every displayed widget is stored, under content-hash ids
    shown = displayed_ids(nb)
    assert ("widgets" in nb.metadata) == bool(shown)
    assert all(i in state_of(nb) for i in shown), (
        "widget state missing: run `python -m attention_helpers.tools.refresh`"
    )
    assert json.dumps(canonical(nb), sort_keys=True) == json.dumps(nb, sort_keys=True), "widget state not canonical"
    # what JupyterLab writes as the kernel starts, so that opening the notebook does not mark it modified
    assert LANGUAGE_INFO.items() <= nb.metadata["language_info"].items() and "version" in nb.metadata["language_info"]
    assert all(set(c.metadata) <= {"tags", "jupyter", "slideshow"} for c in nb.cells)  # jupyter: only source_hidden
    assert not any(o.output_type == "error" for c in code for o in c.outputs)
    # every SVG picture also carries an <img> whose alt is its text alternative: JupyterLab renders no raw SVG in an
    # untrusted notebook (a fresh clone) and would show `<IPython.core.display.SVG object>` (use LabelledSVG)
    for c in code:
        for o in c.outputs:
            data = o.get("data", {})
            if "image/svg+xml" in data:
                assert re.match(r'<img alt="[^"]*\d', data.get("text/html", "")), (
                    f"an SVG output without an <img alt> (with its numbers) in text/html: {c.source[:80]!r}"
                )


def test_series_is_numbered_and_has_solutions():
    """Every lesson's exercises have a section in solutions/solutions.ipynb that runs and asserts each check."""
    lessons = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert lessons and all(p.name[:2].isdigit() for p in lessons)
    assert [p.name for p in NOTEBOOKS.glob("solutions/*.ipynb")] == ["solutions.ipynb"]
    solutions = nbformat.read(NOTEBOOKS / "solutions" / "solutions.ipynb", as_version=4)
    sections, current = {}, None
    for cell in solutions.cells:
        heading = re.match(r"## (\d+)\. (.+)", cell.source) if cell.cell_type == "markdown" else None
        if heading:
            current = sections.setdefault(int(heading.group(1)), {"title": heading.group(2), "code": ""})
        elif cell.cell_type == "code" and current is not None:
            current["code"] += cell.source + "\n"
    for path in lessons:
        number = int(path.name[:2])
        lesson = nbformat.read(path, as_version=4)
        checks = set(
            re.findall(r"\bcheck_\d+_\d+\b", "\n".join(c.source for c in lesson.cells if c.cell_type == "code"))
        )
        assert checks, f"{path.name} has no exercises"
        assert number in sections, f"solutions.ipynb has no section '## {number}. ...' for {path.name}"
        for check in sorted(checks):
            assert f"result = {check}(" in sections[number]["code"], f"section {number} does not run {check}"
        assert sections[number]["code"].count("assert result, result") >= len(checks)
        anchor = f"solutions/solutions.ipynb#{number}.-{sections[number]['title'].replace(' ', '-')}"
        assert any(anchor in c.source for c in lesson.cells if c.cell_type == "markdown"), (
            f"{path.name}: no link {anchor}"
        )


def test_strip_removes_volatile_metadata():
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"papermill": {"duration": 2.5}, "language_info": {"name": "python", "version": "3.11.7"}}
    cell = nbformat.v4.new_code_cell("1")
    cell.metadata = {"execution": {"iopub.status.busy": "2026"}, "tags": ["nbval-ignore-output"]}
    nb.cells = [cell]
    strip(nb)
    assert set(nb.metadata) == {"kernelspec", "language_info"}  # no timings; no widget state when none is shown
    assert nb.metadata["language_info"] == {**LANGUAGE_INFO, "version": "3.11.7"}
    assert nb.cells[0].metadata == {"tags": ["nbval-ignore-output"]}


def test_strip_keeps_the_slide_metadata_and_the_speaker_notes_cells():
    """A deck's metadata survives `refresh`: each cell's slide type, and a notes cell's tag and fold."""
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("1")
    code.metadata = {"slideshow": {"slide_type": "slide"}, "tags": ["slide-show-input"], "scrolled": True}
    notes = nbformat.v4.new_markdown_cell("**Speaker notes.** Ask the room.")
    notes.metadata = {
        "slideshow": {"slide_type": "notes"},
        "tags": ["remove-cell"],
        "jupyter": {"source_hidden": True, "outputs_hidden": False},
        "editable": True,
    }
    nb.cells = [code, notes]
    strip(nb)
    assert code.metadata == {"slideshow": {"slide_type": "slide"}, "tags": ["slide-show-input"]}
    assert notes.metadata == {
        "slideshow": {"slide_type": "notes"},
        "tags": ["remove-cell"],
        "jupyter": {"source_hidden": True},
    }


def test_package_exports_resolve_lazily():

    import attention_helpers

    assert sorted(attention_helpers.__all__) == sorted(attention_helpers._WHERE)
    for name in attention_helpers.__all__:
        assert getattr(attention_helpers, name).__name__ == name
    # what the solutions notebooks import must not pull in matplotlib or ipywidgets (kernel start-up time)
    code = (
        "import sys, attention_helpers.masking, attention_helpers.layers, attention_helpers.checks\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]", f"importing masking, layers and checks loads {loaded}"


def test_jupyter_config_installs_every_file_it_holds():
    """jupyter-config/pyproject.toml's data-files list every file of the folder (setuptools silently leaves out a
    file not listed: a RISE extension without its script would load nothing), each where Jupyter reads it, and the
    RISE extension's package.json names the name its script registers and a script that exists."""
    import tomllib

    folder = ROOT / "jupyter-config"
    config = tomllib.loads((folder / "pyproject.toml").read_text())
    data_files = config["tool"]["setuptools"]["data-files"]
    listed = {source: target for target, sources in data_files.items() for source in sources}
    held = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    held = {p for p in held if p.split("/")[0] in {"overrides.d", "jupyter_server_config.d", "labextensions"}}
    assert set(listed) == held
    places = {
        "overrides.d": "share/jupyter/lab/settings/overrides.d",
        "jupyter_server_config.d": "etc/jupyter/jupyter_server_config.d",
    }
    for source, target in listed.items():  # labextensions/NAME/static/x.js -> share/jupyter/labextensions/NAME/static
        assert target == places.get(source.split("/")[0], "share/jupyter/" + source.rsplit("/", 1)[0]), source
    extension = folder / "labextensions" / "attention-helpers-rise"
    package = json.loads((extension / "package.json").read_text())
    assert package["name"] == extension.name and package["jupyterlab"]["extension"] is True
    script = extension / package["jupyterlab"]["_build"]["load"]
    assert script.is_file() and f"var NAME = '{package['name']}';" in script.read_text()
