"""Sphinx configuration of the book (read by `python -m attention_helpers.tools.book`; a folder of its own, not a module
of the package).

Sphinx + myst-nb + sphinx-book-theme, notebooks read as committed (never executed), everything served from the
book itself: the vendored widget manager and MathJax (`vendor.py`), Sphinx's own offline search, no launch or
Thebe buttons (nothing that would reach a server), and a download button per notebook.
"""

project = "Attention, interactively"
author = "the contributors"
copyright = "the contributors"
extensions = ["myst_nb"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "reveal.js"]  # reveal.js: in static/, for the decks
root_doc = "index"
language = "en"

# myst-nb: read the stored outputs and widget state, never run a cell
nb_execution_mode = "off"
nb_ipywidgets_js = {"embed.js": {"defer": "defer"}}  # html-manager 1.0.15, from _static (see vendor.py)
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

# math: the vendored MathJax 3 (a relative mathjax_path is read relative to _static)
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "sphinx_book_theme"
html_title = "Attention, interactively"
html_static_path = ["../static", "../theme"]
html_css_files = ["book.css"]
html_js_files = ["book.js"]  # before MathJax and the widget manager: see theme/book.js
html_sourcelink_suffix = ""  # the download button hands out the .ipynb itself
html_last_updated_fmt = None
html_permalinks_icon = "#"
html_theme_options = {
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "launch_buttons": {},
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "show_prev_next": True,
}
