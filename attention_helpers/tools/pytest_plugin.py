"""Loaded by `pytest` before its other plugins (`-p attention_helpers.tools.pytest_plugin` in pyproject.toml), to
make the test command start faster; it changes no result.

jsonschema checks the "iri" string formats with `rfc3987_syntax` where that is installed (jupyter-events asks for it),
and importing it builds a grammar: about 1 s in every pytest-xdist worker, since nbval loads nbformat, whose notebook
schema uses no such format. Marked missing before nbval loads, jsonschema leaves those formats unchecked, its own
fallback when the package is absent.
"""

from __future__ import annotations

import sys

__all__: list[str] = []

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]
