"""The output-fragility check: its settings, its report parsing, and that it finds a processor-dependent output."""

import nbformat
import pytest

from attention_helpers.tools import fragility


def test_settings_cover_every_value_of_every_axis():
    assert len(fragility.all_settings()) == 8 and len({tuple(s.items()) for s in fragility.all_settings()}) == 8
    for axis, values in fragility.AXES.items():
        assert {s[axis] for s in fragility.DEFAULT_SETTINGS} == set(values)
    assert fragility.QUICK_SETTINGS[0]["ATEN_CPU_CAPABILITY"] == "default"  # the scalar kernels: .ci/run's setting


def test_report_lists_failed_and_erroring_cells_only(tmp_path):
    report = tmp_path / "report.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="notebooks.a.ipynb" name="Cell 1"/>'
        '<testcase classname="notebooks.a.ipynb" name="Cell 2"><failure message="m">  -   0.363\n  +   0.361\n'
        "context</failure></testcase>"
        '<testcase classname="notebooks.b.ipynb" name="Cell 0"><error message="kernel died"/></testcase>'
        "</testsuite></testsuites>"
    )
    assert fragility.differing_cells(report) == [
        ("notebooks.a.ipynb::Cell 2", "-   0.363\n+   0.361"),
        ("notebooks.b.ipynb::Cell 0", "kernel died"),
    ]


@pytest.mark.slow  # pytest in a subprocess, with a kernel: run by .ci/run outside the 60 s budget
def test_a_cell_that_prints_the_numerics_setting_is_found(tmp_path):
    """A notebook committed under the pinned setting prints 'avx2'; run under the scalar kernels it prints 'default',
    and the check must list that cell (and not the one that prints a constant)."""
    nb = nbformat.v4.new_notebook()
    printed = nbformat.v4.new_code_cell("import os\nprint(os.environ.get('ATEN_CPU_CAPABILITY'))", execution_count=1)
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="avx2\n")]
    constant = nbformat.v4.new_code_cell("print(1 + 1)", execution_count=2)
    constant.outputs = [nbformat.v4.new_output("stream", name="stdout", text="2\n")]
    nb.cells = [printed, constant]
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    cells, _ = fragility.run(fragility.QUICK_SETTINGS[0], [str(path)], workers=0)
    assert [name.rsplit("::", 1)[1] for name, _ in cells] == ["Cell 0"]
    assert "default" in cells[0][1] and "avx2" in cells[0][1]
