"""Maintainer tooling, for whoever changes the series rather than reads it; it may use every other part:

- `refresh` (`python -m attention_helpers.tools.refresh`): re-execute notebooks and store their outputs;
- `fold`: fold the plumbing cells (`hide-input`, `jupyter.source_hidden`);
- `fragility`: which committed outputs depend on the processor;
- `book` (`python -m attention_helpers.tools.book`): the offline book, and `book.vendor` for its pinned scripts;
- `gallery`: the README's picture;
- `slides` (`python -m attention_helpers.tools.slides`): the lecture decks (reveal.js, offline, live explorers);
- `widget_state`, `save_hook`: the explorers' stored widget state, pruned on save in JupyterLab.
"""

__all__: list[str] = []  # a folder of modules: import them by name
