"""Helpers for the notebook series "Attention, interactively".

`sequence_mask`, `masked_softmax` and `show_heatmaps` keep d2l's names and signatures, and the layers take
either edition's: `import attention_helpers as d2l` runs d2l-zh's attention code, and the porting module
`from attention_helpers import d2l` (not part of this namespace) runs d2l-en's (d2l.ai) chapter cells. Unlike
d2l's, these never modify their inputs and reject bad input with an error that names the argument.

The contract, kept by every public function and class of every module (tests/test_contract.py and the bad-input
matrices tests/test_bad_input*.py check it over the whole public API):
- No mutation: inputs are never modified; results are new tensors. What changes on purpose: a KV cache's
  `append` writes into the cache, training changes the model it trains, and an explorer lays out the control
  widgets it is given (a minimum width; kernel-driven ones disabled until a kernel answers).
- Empty rows: a query with nothing to attend to (valid length 0, or every key masked) gets weights of exactly 0
  and an output of 0, with finite gradients, never NaN and never uniform weights over padding (except, on purpose,
  `transformer.MultiHeadAttentionSublayer`, which keeps the third-party code's uniform weights: notebook 4).
- Half precision: float16 and bfloat16 inputs work. Masks never use a fill the dtype cannot hold (`masked_softmax`
  fills with -inf, and 0 in a row with no key, then zeroes masked weights; the others use the dtype's own
  minimum), scores are scaled before the product (as `F.scaled_dot_product_attention` does) and softmax statistics are kept in float32
  where they could overflow, so scores that fit the dtype give finite outputs.
- Clear errors: bad input raises `TypeError` (wrong type) or `ValueError` (wrong value or shape) whose message
  names the argument, says what was expected and what was given; never a raw error from deep inside torch, and
  never a silently wrong answer (bools are not sizes, NaN is not a weight, lengths are never clamped).

Names are imported on first use (PEP 562), so `from attention_helpers import masked_softmax` does not pay for
matplotlib and ipywidgets: each notebook's kernel starts a little faster.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

_SOURCES = {
    "layers": ["AdditiveAttention", "DotProductAttention", "MultiHeadAttention", "transpose_output", "transpose_qkv"],
    "masking": ["check_valid_lens", "masked_softmax", "sequence_mask", "valid_lens_to_mask"],
    "plotting": ["Heatmaps", "heatmaps_svg", "lecture_mode", "show_heatmaps"],
    "transformer": ["PositionalEncoding", "positional_encoding"],
    "explore": [
        "HeatmapExplorer",
        "LabelledSVG",
        "PictureExplorer",
        "current_valid_lens",
        "explore_masked_softmax",
        "explore_valid_lens",
    ],
}
_WHERE = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "AdditiveAttention",
    "DotProductAttention",
    "HeatmapExplorer",
    "Heatmaps",
    "LabelledSVG",
    "MultiHeadAttention",
    "PictureExplorer",
    "PositionalEncoding",
    "check_valid_lens",
    "current_valid_lens",
    "explore_masked_softmax",
    "explore_valid_lens",
    "heatmaps_svg",
    "lecture_mode",
    "masked_softmax",
    "positional_encoding",
    "sequence_mask",
    "show_heatmaps",
    "transpose_output",
    "transpose_qkv",
    "valid_lens_to_mask",
]  # the same names as in _SOURCES (a test checks)

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names come from __getattr__
    from .explore import (
        HeatmapExplorer,
        LabelledSVG,
        PictureExplorer,
        current_valid_lens,
        explore_masked_softmax,
        explore_valid_lens,
    )
    from .layers import AdditiveAttention, DotProductAttention, MultiHeadAttention, transpose_output, transpose_qkv
    from .masking import check_valid_lens, masked_softmax, sequence_mask, valid_lens_to_mask
    from .plotting import Heatmaps, heatmaps_svg, lecture_mode, show_heatmaps
    from .transformer import PositionalEncoding, positional_encoding


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'attention_helpers' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _describe_figures_when_shown() -> None:
    """In an IPython kernel, before its figures are shown after each cell, give every matplotlib figure a text
    alternative (`plotting._with_alt_text`); loads nothing unless the cell itself loaded matplotlib."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "_ah_figure_hook", False):
        return
    shell._ah_figure_hook = True

    def before_figures_show() -> None:
        if "matplotlib.figure" in sys.modules:
            from .plotting import _with_alt_text

            _with_alt_text()

    shell.events.register("post_execute", before_figures_show)


_describe_figures_when_shown()
