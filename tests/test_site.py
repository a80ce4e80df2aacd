"""The static HTML copy: every picture visible, live widgets replaced by their stored PNG, an index in order."""

import re

import nbformat

from attention_helpers.refresh import NOTEBOOKS
from attention_helpers.site import WIDGET_VIEW, render, static_notebook


def test_render_one_notebook_with_index(tmp_path):
    path = NOTEBOOKS / "01_masking.ipynb"
    nb = nbformat.read(path, as_version=4)
    pictures = sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    widgets = sum(WIDGET_VIEW in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))
    assert pictures >= 2 and widgets >= 1  # a heatmap and an explorer (with its PNG) at least
    index, page = render(tmp_path, [path])
    text = page.read_text()
    assert text.count('src="data:image/png;base64,') == pictures
    assert WIDGET_VIEW not in text
    assert re.findall(r'href="([^"]+)"', index.read_text()) == ["01_masking.html"]
    # the title carries its number ("1. Masking: ..."), so the list must not number it again
    assert re.search(r">1\. Masking", index.read_text()) and "<ol" not in index.read_text()


def test_static_notebook_rewrites_links_and_leaves_original_alone():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "see [solutions](solutions/solutions.ipynb#1.-Masking), [next](02_additive_attention.ipynb), "
            "[pytorch](https://pytorch.org/docs/stable/index.html)"
        )
    ]
    out = static_notebook(nb)
    assert "(solutions/solutions.html#1.-Masking)" in out.cells[0].source
    assert "(02_additive_attention.html)" in out.cells[0].source
    assert "(https://pytorch.org/docs/stable/index.html)" in out.cells[0].source
    assert "ipynb" in nb.cells[0].source
