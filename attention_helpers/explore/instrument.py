"""Opt-in hooks for the browser test and the benchmark: an instance registry, kernel timings, creation numbers.

Off by default (production explorers carry none of it). Turn on with `instrument(True)` before making explorers,
or with the environment variable `ATTENTION_HELPERS_INSTRUMENT=1`, read when this module is first imported (a
kernel inherits it from the Jupyter server). Instrumented explorers are listed in `Explorer.instances` (weak
references), carry the CSS class `ah-explorer-N` (N = creation order in this kernel) and record
`render_seconds` (each full pre-draw) and `update_seconds` (each recomputation of `.weights`).
"""

from __future__ import annotations

import os

from .. import _validate as check

__all__ = ["enabled", "instrument"]

_STATE = {"on": os.environ.get("ATTENTION_HELPERS_INSTRUMENT", "") == "1"}


def instrument(on: bool = True) -> None:
    """Turn the test/benchmark hooks on (or off) for explorers made from now on."""
    _STATE["on"] = check.boolean("on", on)


def enabled() -> bool:
    """Whether explorers made now are instrumented."""
    return _STATE["on"]
