"""Loaded by `pytest` before its other plugins (`-p attention_helpers.tools.pytest_plugin` in pyproject.toml), to
make the test command start faster; it changes no result.

Notebook kernels are forked from a process that has imported torch once (`kernel_zygote`; see `pytest_configure`).

jsonschema checks the "iri" string formats with `rfc3987_syntax` where that is installed (jupyter-events asks for it),
and importing it builds a grammar: about 1 s in every pytest-xdist worker, since nbval loads nbformat, whose notebook
schema uses no such format. Marked missing before nbval loads, jsonschema leaves those formats unchecked, its own
fallback when the package is absent.
"""

from __future__ import annotations

import sys

__all__ = ["pytest_configure"]

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]


def pytest_configure(config) -> None:  # noqa: ANN001
    """Notebook kernels forked from one process that has imported torch (`kernel_zygote`): about 2 s less a notebook.

    Off with `AH_PLAIN_KERNELS=1`, and wherever nbval is not the one starting kernels from this environment.
    """
    import os

    if os.environ.get("AH_PLAIN_KERNELS") == "1" or not getattr(config.option, "nbval_current_env", False):
        return
    from nbval import kernel

    from attention_helpers.tools import _zygote_client

    _zygote_client.install(kernel)
