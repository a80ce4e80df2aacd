"""Helpers for the notebook series "Attention, interactively".

`sequence_mask`, `masked_softmax` and `show_heatmaps` keep d2l's names and signatures, so d2l code runs with
`attention_helpers` in place of `d2l`; unlike d2l's they never modify their inputs and reject bad lengths.
"""

from .layers import AdditiveAttention, DotProductAttention, MultiHeadAttention, transpose_output, transpose_qkv
from .masking import check_valid_lens, masked_softmax, sequence_mask, valid_lens_to_mask
from .plotting import Heatmaps, heatmaps_svg, lecture_mode, show_heatmaps
from .widgets import HeatmapExplorer, current_valid_lens, explore_masked_softmax, explore_valid_lens

__all__ = [
    "AdditiveAttention",
    "DotProductAttention",
    "MultiHeadAttention",
    "transpose_output",
    "transpose_qkv",
    "HeatmapExplorer",
    "Heatmaps",
    "check_valid_lens",
    "current_valid_lens",
    "explore_masked_softmax",
    "explore_valid_lens",
    "heatmaps_svg",
    "lecture_mode",
    "masked_softmax",
    "sequence_mask",
    "show_heatmaps",
    "valid_lens_to_mask",
]
