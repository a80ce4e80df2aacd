"""Bad input to every public function and class of masking, layers, transformer, plotting and d2l (issue 17).

Each case asserts the exception type (TypeError: wrong type; ValueError: wrong value or shape) and that the
message names the argument. `COVERED` lists the public names ("module.name") the matrix covers; a contract test
elsewhere checks that the union of such sets reaches every public name of the package. Data names (constants, a
dtype, `d2l.plt`) take no input: their entry in `COVERED` is backed by `test_data_names_are_what_they_say`.
d2l's one-line torch aliases are torch's own functions (as in d2l): their cases pin torch's errors, which name the
argument too.
"""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from attention_helpers import d2l, layers, masking, plotting, transformer  # noqa: E402

COVERED = {
    "masking.check_valid_lens",
    "masking.masked_softmax",
    "masking.sequence_mask",
    "masking.valid_lens_to_mask",
    "layers.AdditiveAttention",
    "layers.DotProductAttention",
    "layers.MultiHeadAttention",
    "layers.check_qkv",
    "layers.transpose_output",
    "layers.transpose_qkv",
    "transformer.MultiHeadAttentionSublayer",
    "transformer.PositionalEncoding",
    "transformer.PositionwiseFeedForward",
    "transformer.ScaledDotProductAttention",
    "transformer.positional_encoding",
    "plotting.DEFAULT_CMAP",
    "plotting.Heatmaps",
    "plotting.SVG_MASKED",
    "plotting.WHITE_INK",
    "plotting.as_panels",
    "plotting.colour_limits",
    "plotting.heatmap_cell_colours",
    "plotting.heatmaps_svg",
    "plotting.lecture_mode",
    "plotting.show_heatmaps",
    "plotting.static_png",
    "d2l.AdditiveAttention",
    "d2l.DotProductAttention",
    "d2l.MultiHeadAttention",
    "d2l.PositionalEncoding",
    "d2l.masked_softmax",
    "d2l.sequence_mask",
    "d2l.show_heatmaps",
    "d2l.add_to_class",
    "d2l.check_shape",
    "d2l.plot",
    "d2l.plt",
    "d2l.set_axes",
    "d2l.set_figsize",
    "d2l.use_svg_display",
    "d2l.abs",
    "d2l.arange",
    "d2l.argmax",
    "d2l.astype",
    "d2l.batch_matmul",
    "d2l.concat",
    "d2l.cos",
    "d2l.cosh",
    "d2l.exp",
    "d2l.expand_dims",
    "d2l.eye",
    "d2l.float32",
    "d2l.int32",
    "d2l.int64",
    "d2l.linspace",
    "d2l.log",
    "d2l.matmul",
    "d2l.meshgrid",
    "d2l.normal",
    "d2l.numpy",
    "d2l.ones",
    "d2l.ones_like",
    "d2l.rand",
    "d2l.randn",
    "d2l.reduce_mean",
    "d2l.reduce_sum",
    "d2l.repeat",
    "d2l.reshape",
    "d2l.sigmoid",
    "d2l.sin",
    "d2l.sinh",
    "d2l.size",
    "d2l.stack",
    "d2l.swapaxes",
    "d2l.tanh",
    "d2l.tensor",
    "d2l.to",
    "d2l.transpose",
    "d2l.zeros",
    "d2l.zeros_like",
}

DATA_NAMES = {
    "plotting.DEFAULT_CMAP": "Reds",
    "plotting.SVG_MASKED": "#c8c8c8",
    "plotting.WHITE_INK": ' fill="#fff"',
    "d2l.float32": torch.float32,
    "d2l.int32": torch.int32,
    "d2l.int64": torch.int64,
    "d2l.plt": plt,
}

MODULES = {"masking": masking, "layers": layers, "transformer": transformer, "plotting": plotting, "d2l": d2l}

LENS = torch.tensor([1, 2])
X234 = torch.rand(2, 3, 4)
Q, K, V = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6)
META = torch.randn(2, 5, 4, device="meta")
W = torch.rand(1, 1, 2, 3)  # (rows, cols, Q, K) for the heatmaps


def mha_zh(**change):
    args = {"key_size": 4, "query_size": 4, "value_size": 6, "num_hiddens": 8, "num_heads": 2, "dropout": 0.0}
    return layers.MultiHeadAttention(**{**args, **change})


def sublayer():
    return transformer.MultiHeadAttentionSublayer(2, 8, 4, 4)


def heatmaps_of(**change):
    made = plotting.show_heatmaps(W, "k", "q")
    parts = {"fig": made.fig, "axes": made.axes, "images": made.images, "colorbar": made.colorbar, **change}
    return plotting.Heatmaps(**parts)


# (name, call, exception, a regex the message must match: it names the argument)
# fmt: off
CASES = [
    # ---------------------------------------------------------------- masking
    ("masking.check_valid_lens", lambda: masking.check_valid_lens([1, 2], 2, None, 3), TypeError, r"^valid_lens must be an integer torch.Tensor"),
    ("masking.check_valid_lens", lambda: masking.check_valid_lens(LENS, "2", None, 3), TypeError, r"^batch_size must be an int"),
    ("masking.check_valid_lens", lambda: masking.check_valid_lens(LENS, 2, None, None), TypeError, r"^num_keys must be an int"),
    ("masking.check_valid_lens", lambda: masking.check_valid_lens(LENS, 2, None, 3, 3), TypeError, r"^device must be a torch.device"),
    ("masking.check_valid_lens", lambda: masking.check_valid_lens(LENS, 2, None, 1), ValueError, r"^valid_lens must be <= the number of keys K=1"),
    ("masking.valid_lens_to_mask", lambda: masking.valid_lens_to_mask(LENS, 2, True), TypeError, r"^num_keys must be an int >= 0, got bool"),
    ("masking.valid_lens_to_mask", lambda: masking.valid_lens_to_mask([1, 2], 2, 3), TypeError, r"^valid_lens must be a torch.Tensor"),
    ("masking.valid_lens_to_mask", lambda: masking.valid_lens_to_mask(torch.tensor([1.5]), 1, 3), ValueError, r"^valid_lens must hold whole numbers"),
    ("masking.valid_lens_to_mask", lambda: masking.valid_lens_to_mask(torch.tensor(1), 1, 3), ValueError, r"^valid_lens must be 1-D or 2-D"),
    ("masking.sequence_mask", lambda: masking.sequence_mask([[1, 2]], LENS), TypeError, r"^X must be a torch.Tensor"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(3), LENS), ValueError, r"^X must have at least 2 dimensions"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(2, 3), LENS, value="0"), TypeError, r"^value must be a real number"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(2, 3, dtype=torch.int8), LENS, value=-1e6), ValueError, r"^value must be a whole number in \[-128, 127\] for X of dtype torch.int8"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(2, 3), torch.tensor([0.5, 1.0])), ValueError, r"^valid_len must hold whole numbers"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(torch.ones(2, 3, 4, dtype=torch.long)), TypeError, r"^X must be a floating-point"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(torch.ones(2, 4)), ValueError, r"^X must be 3-D"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234, [1, 2]), TypeError, r"^valid_lens must be an integer torch.Tensor"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234, torch.tensor([1, 2], device="meta")), ValueError, r"^valid_lens is on meta but the scores are on cpu"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234.to(torch.float8_e4m3fn), LENS), TypeError, r"^X has dtype torch.float8_e4m3fn, which PyTorch stores but does not compute with .*\.float\(\)"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234, LENS.to(torch.float8_e5m2)), TypeError, r"^valid_lens has dtype torch.float8_e5m2, which PyTorch stores"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234, torch.tensor([1e30, 2.0])), ValueError, r"^valid_lens must be <= the number of keys K=4, got 1e\+30;"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234, torch.tensor([2.0, -1e30])), ValueError, r"^valid_lens must be >= 0, got a negative length -1e\+30$"),
    ("masking.masked_softmax", lambda: masking.masked_softmax(X234, torch.tensor([[2.0, 1e30, 0.0], [1.0, 2.0, 3.0]], dtype=torch.float16)), ValueError, r"^valid_lens must hold whole numbers of keys, got inf"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(2, 3).to(torch.float8_e5m2fnuz), LENS), TypeError, r"^X has dtype torch.float8_e5m2fnuz, which PyTorch stores"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(2, 3), LENS.to(torch.float8_e4m3fnuz)), TypeError, r"^valid_len has dtype torch.float8_e4m3fnuz"),
    ("masking.sequence_mask", lambda: masking.sequence_mask(torch.ones(2, 3), torch.tensor([1e30, 1.0], dtype=torch.float64)), ValueError, r"^valid_len must be <= the number of keys K=3, got 1e\+30;"),
    ("masking.valid_lens_to_mask", lambda: masking.valid_lens_to_mask(LENS.to(torch.uint16), 2, 3), TypeError, r"^valid_lens has dtype torch.uint16, which PyTorch stores .*\.long\(\)"),
    ("masking.valid_lens_to_mask", lambda: masking.valid_lens_to_mask(torch.tensor([-1e30]), 1, 3), ValueError, r"^valid_lens must be >= 0, got a negative length -1e\+30$"),
    ("masking.check_valid_lens", lambda: masking.check_valid_lens(LENS.to(torch.float8_e8m0fnu), 2, None, 3, allow_float=True), TypeError, r"^valid_lens has dtype torch.float8_e8m0fnu"),
    # ---------------------------------------------------------------- layers
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(8), TypeError, r"AdditiveAttention\(8\) fits neither signature:.*\(key_size, query_size, num_hiddens, dropout\).*\(num_hiddens, dropout\)"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(0, 4, 8, 0.0), ValueError, r"^key_size must be >= 1"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(8, "x"), TypeError, r"^dropout must be a float"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(4, 4, 8, 0.0)(Q, K.double(), V), TypeError, r"^queries, keys, values must have one dtype"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(4, 4, 8, 0.0)(Q, META, V), ValueError, r"^queries, keys, values must be on one device"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(4, 4, 8, 0.0)(Q, K, V, LENS.float() + 0.5), ValueError, r"^valid_lens must hold whole numbers"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(4, 4, 8, 0.0)(Q.double(), K.double(), V.double()), TypeError, r"^queries, keys, values are torch.float64 but the layer's parameters are torch.float32"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention(2), ValueError, r"^dropout must be <= 1.0"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention()(Q.to(torch.float8_e4m3fn), K, V), TypeError, r"^queries has dtype torch.float8_e4m3fn, which PyTorch stores"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention()(Q, K, V, torch.tensor([1e30, 2.0])), ValueError, r"^valid_lens must be <= the number of keys K=5, got 1e\+30;"),
    ("layers.AdditiveAttention", lambda: layers.AdditiveAttention(4, 4, 8, 0.0)(Q, K, V.to(torch.float8_e5m2)), TypeError, r"^values has dtype torch.float8_e5m2"),
    ("layers.MultiHeadAttention", lambda: mha_zh()(Q, K.to(torch.float8_e5m2), V), TypeError, r"^keys has dtype torch.float8_e5m2"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention()(Q, torch.randn(2, 5, 3), V), ValueError, r"^queries and keys must have the same feature size d"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention()(META[:, :3], K, V), ValueError, r"^queries, keys, values must be on one device"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention()(Q[..., :0], K[..., :0], V), ValueError, r"^queries must have at least one feature"),
    ("layers.DotProductAttention", lambda: layers.DotProductAttention()(Q, K, V[:1]), ValueError, r"^queries, keys and values must share the batch size B"),
    ("layers.MultiHeadAttention", lambda: mha_zh(bias="no"), TypeError, r"^bias must be True or False"),
    ("layers.MultiHeadAttention", lambda: mha_zh(num_hiddens=7), ValueError, r"^num_hiddens=7 must be divisible by num_heads=2"),
    ("layers.MultiHeadAttention", lambda: layers.MultiHeadAttention(8, 2), TypeError, r"MultiHeadAttention\(8, 2\) fits neither signature:.*num_heads, dropout"),
    ("layers.MultiHeadAttention", lambda: mha_zh()(Q, K, V[:, :4]), ValueError, r"^keys and values must have as many positions"),
    ("layers.MultiHeadAttention", lambda: mha_zh()(torch.randn(2, 3, 5), K, V), ValueError, r"^queries has feature size 5 but the layer was built with query_size=4"),
    ("layers.MultiHeadAttention", lambda: mha_zh()(Q, K, V, torch.tensor([[1, 2]])), ValueError, r"^valid_lens of shape \(1, 2\) does not match"),
    ("layers.MultiHeadAttention", lambda: mha_zh()(Q, META, V), ValueError, r"^queries, keys, values must be on one device"),
    ("layers.transpose_qkv", lambda: layers.transpose_qkv([[[1.0]]], 1), TypeError, r"^X must be a torch.Tensor"),
    ("layers.transpose_qkv", lambda: layers.transpose_qkv(Q, True), TypeError, r"^num_heads must be an int >= 1, got bool"),
    ("layers.transpose_qkv", lambda: layers.transpose_qkv(Q, 3), ValueError, r"^num_heads=3 must divide the feature size h=4"),
    ("layers.transpose_output", lambda: layers.transpose_output(Q, 0), ValueError, r"^num_heads must be >= 1"),
    ("layers.transpose_output", lambda: layers.transpose_output(Q[0], 1), ValueError, r"^X must be 3-D"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q.long(), K, V), TypeError, r"^queries must be a floating-point"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, "v"), TypeError, r"^values must be a torch.Tensor"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, (5, None, None)), ValueError, r"^queries has feature size 4 but the layer was built with query_size=5"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, 4), TypeError, r"^sizes must be \(d_q, d_k, d_v\), each an int >= 1 or None, got int 4"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, (4, 4)), TypeError, r"^sizes must be \(d_q, d_k, d_v\)"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, (4, 4, True)), TypeError, r"^sizes\[2\] must be an int"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, (4, 0, 6)), ValueError, r"^sizes\[1\] must be >= 1"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, names="query_size"), TypeError, r"^names must be three str"),
    ("layers.check_qkv", lambda: layers.check_qkv(Q, K, V, names=("q", "k", None)), TypeError, r"^names\[2\] must be a str"),
    # ---------------------------------------------------------------- transformer
    ("transformer.positional_encoding", lambda: transformer.positional_encoding(-1, 4), ValueError, r"^num_steps must be >= 0"),
    ("transformer.positional_encoding", lambda: transformer.positional_encoding(3, True), TypeError, r"^num_hiddens must be an int"),
    ("transformer.PositionalEncoding", lambda: transformer.PositionalEncoding(8, "x"), TypeError, r"^dropout must be a float"),
    ("transformer.PositionalEncoding", lambda: transformer.PositionalEncoding(8, 0.0, max_len=0), ValueError, r"^max_len must be >= 1"),
    ("transformer.PositionalEncoding", lambda: transformer.PositionalEncoding(8, 0.0)(torch.ones(1, 3, 4)), ValueError, r"^X has 4 features but the encoding was built with num_hiddens=8"),
    ("transformer.PositionalEncoding", lambda: transformer.PositionalEncoding(8, 0.0)("X"), TypeError, r"^X must be a torch.Tensor"),
    ("transformer.ScaledDotProductAttention", lambda: transformer.ScaledDotProductAttention("2"), TypeError, r"^temperature must be a real number"),
    ("transformer.ScaledDotProductAttention", lambda: transformer.ScaledDotProductAttention(2.0, attn_dropout="x"), TypeError, r"^attn_dropout must be a float"),
    ("transformer.ScaledDotProductAttention", lambda: transformer.ScaledDotProductAttention(2.0)(Q, K, None), TypeError, r"^v must be a torch.Tensor"),
    ("transformer.ScaledDotProductAttention", lambda: transformer.ScaledDotProductAttention(2.0)(Q, K, V, [[1]]), TypeError, r"^mask must be a torch.Tensor"),
    ("transformer.ScaledDotProductAttention", lambda: transformer.ScaledDotProductAttention(2.0)(Q, K, V[:1]), ValueError, r"^q, k and v must share their leading axes"),
    ("transformer.MultiHeadAttentionSublayer", lambda: transformer.MultiHeadAttentionSublayer(2, 8, 4, 4, dropout="x"), TypeError, r"^dropout must be a float"),
    ("transformer.MultiHeadAttentionSublayer", lambda: transformer.MultiHeadAttentionSublayer(2, 8, 4.5, 4), TypeError, r"^d_k must be an int"),
    ("transformer.MultiHeadAttentionSublayer", lambda: sublayer()(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(1, 10, 8)), ValueError, r"^q, k and v must share the batch size B"),
    ("transformer.MultiHeadAttentionSublayer", lambda: sublayer()(torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8), torch.ones(2, 5)), ValueError, r"^mask must be 3-D"),
    ("transformer.MultiHeadAttentionSublayer", lambda: sublayer()(*(torch.randn(2, 3, 8).double() for _ in range(3))), TypeError, r"^q, k, v are torch.float64 but the layer's parameters"),
    ("transformer.PositionwiseFeedForward", lambda: transformer.PositionwiseFeedForward(4, 0), ValueError, r"^d_hid must be >= 1"),
    ("transformer.PositionwiseFeedForward", lambda: transformer.PositionwiseFeedForward(4, 8, dropout=None), TypeError, r"^dropout must be a float"),
    ("transformer.PositionwiseFeedForward", lambda: transformer.PositionwiseFeedForward(4, 8)(torch.ones(2, 3, 5)), ValueError, r"^x has 5 features but the layer was built with d_in=4"),
    # ---------------------------------------------------------------- plotting
    ("plotting.Heatmaps", lambda: heatmaps_of(fig=None), TypeError, r"^fig must be a matplotlib Figure"),
    ("plotting.Heatmaps", lambda: heatmaps_of(images=np.empty((2, 2), dtype=object)), ValueError, r"^axes and images must have one shape"),
    ("plotting.Heatmaps", lambda: heatmaps_of(colorbar="bar"), TypeError, r"^colorbar must be a matplotlib Colorbar"),
    ("plotting.as_panels", lambda: plotting.as_panels([[[[0.5]]]]), TypeError, r"^matrices must be a torch.Tensor or numpy array"),
    ("plotting.as_panels", lambda: plotting.as_panels(torch.rand(2, 3)), ValueError, r"^matrices must be 4-D"),
    ("plotting.as_panels", lambda: plotting.as_panels(torch.rand(1, 1, 0, 3)), ValueError, r"^matrices must not be empty"),
    ("plotting.as_panels", lambda: plotting.as_panels(W.to("meta")), ValueError, r"^matrices is on the meta device, which holds no values"),
    ("plotting.colour_limits", lambda: plotting.colour_limits([0.5]), TypeError, r"^panels must be a float numpy array"),
    ("plotting.colour_limits", lambda: plotting.colour_limits(np.ones((1, 1, 1, 2)) / 2, vmin=1), ValueError, r"^vmin must be smaller than vmax"),
    ("plotting.colour_limits", lambda: plotting.colour_limits(np.ones((1, 1, 1, 2)), vmax="1"), TypeError, r"^vmax must be a real number"),
    ("plotting.as_panels", lambda: plotting.as_panels(W.to(torch.complex64)), TypeError, r"^matrices must hold real numbers, got dtype torch.complex64; pass its .real, .abs\(\) or .angle\(\)"),
    ("plotting.as_panels", lambda: plotting.as_panels(W.numpy().astype(complex)), TypeError, r"^matrices must hold real numbers, got dtype complex128"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W.to(torch.complex64) * 1j, "k", "q"), TypeError, r"^matrices must hold real numbers, got dtype torch.complex64"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W.to(torch.float8_e4m3fn), "k", "q"), TypeError, r"^matrices has dtype torch.float8_e4m3fn, which PyTorch stores"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W.to(torch.complex128), "k", "q"), TypeError, r"^matrices must hold real numbers, got dtype torch.complex128"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W.to(torch.float8_e5m2), "k", "q"), TypeError, r"^matrices has dtype torch.float8_e5m2, which PyTorch stores"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", mask=torch.ones(1, 1, 2, 3).to(torch.float8_e4m3fn)), TypeError, r"^mask has dtype torch.float8_e4m3fn"),
    ("plotting.static_png", lambda: plotting.static_png(W.to(torch.complex64), "k", "q"), TypeError, r"^matrices must hold real numbers"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W, "k", "q", vmin=1, vmax=0), ValueError, r"^vmin must be smaller than vmax"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W, "k", "q", vmin=0.5, vmax=0.5), ValueError, r"^vmin must be smaller than vmax"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W, "k", "q", figsize=3), TypeError, r"^figsize must be a \(width, height\) pair"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W, "k", "q", cmap="nope"), ValueError, r"^cmap must be a matplotlib colour map name"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W, None, "q"), TypeError, r"^xlabel must be a str"),
    ("plotting.show_heatmaps", lambda: plotting.show_heatmaps(W, "k", "q", titles=["a", "b"]), ValueError, r"^titles must be a sequence of 1 titles"),
    ("plotting.static_png", lambda: plotting.static_png(W, "k", None), TypeError, r"^ylabel must be a str"),
    ("plotting.static_png", lambda: plotting.static_png(W, "k", "q", vmin=2, vmax=1), ValueError, r"^vmin must be smaller than vmax"),
    ("plotting.static_png", lambda: plotting.static_png(W.to("meta"), "k", "q"), ValueError, r"^matrices is on the meta device"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", vmin=1, vmax=0), ValueError, r"^vmin must be smaller than vmax"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", vmin=0.5, vmax=0.5), ValueError, r"^vmin must be smaller than vmax"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", cell=0), ValueError, r"^cell \(pixels per cell\) must be >= 1"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", cell=-5), ValueError, r"^cell \(pixels per cell\) must be >= 1"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", cmap="nope"), ValueError, r"^cmap must be a matplotlib colour map name"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, None, "q"), TypeError, r"^xlabel must be a str"),
    ("plotting.heatmaps_svg", lambda: plotting.heatmaps_svg(W, "k", "q", xticklabels=4), TypeError, r"^xticklabels must be a sequence of 3 labels"),
    ("plotting.heatmap_cell_colours", lambda: plotting.heatmap_cell_colours(None), TypeError, r"^svg must be a str"),
    ("plotting.lecture_mode", lambda: plotting.lecture_mode(scale=float("inf")), ValueError, r"^scale must be a finite number"),
    ("plotting.lecture_mode", lambda: plotting.lecture_mode(scale="2"), TypeError, r"^scale must be a real number"),
    ("plotting.lecture_mode", lambda: plotting.lecture_mode(cmap=["Reds"]), TypeError, r"^cmap must be a matplotlib colour map name"),
    ("plotting.lecture_mode", lambda: plotting.lecture_mode("yes"), TypeError, r"^on must be True or False"),
    # ---------------------------------------------------------------- d2l: the attention pieces (the same objects)
    ("d2l.AdditiveAttention", lambda: d2l.AdditiveAttention(2, 20, 8), TypeError, r"fits neither signature.*key_size, query_size, num_hiddens, dropout"),
    ("d2l.AdditiveAttention", lambda: d2l.AdditiveAttention(8, 0.1)(Q, K, V, torch.tensor([1, 9])), ValueError, r"^valid_lens must be <= the number of keys K=5"),
    ("d2l.DotProductAttention", lambda: d2l.DotProductAttention(dropout="0.5"), TypeError, r"^dropout must be a float"),
    ("d2l.MultiHeadAttention", lambda: d2l.MultiHeadAttention(100, 5, 0.5, "no"), TypeError, r"^bias must be True or False"),
    ("d2l.MultiHeadAttention", lambda: d2l.MultiHeadAttention(100, 3, 0.5), ValueError, r"^num_hiddens=100 must be divisible by num_heads=3"),
    ("d2l.PositionalEncoding", lambda: d2l.PositionalEncoding(32, 0)(torch.zeros(1, 1001, 32)), ValueError, r"^X has 1001 positions but the encoding was built with max_len=1000"),
    ("d2l.masked_softmax", lambda: d2l.masked_softmax(torch.rand(2, 2, 4), torch.tensor([2.5, 3.0])), ValueError, r"^valid_lens must hold whole numbers"),
    ("d2l.sequence_mask", lambda: d2l.sequence_mask(torch.ones(2, 3), torch.tensor([1, 4])), ValueError, r"^valid_len must be <= the number of keys K=3"),
    ("d2l.show_heatmaps", lambda: d2l.show_heatmaps(W, xlabel="k", ylabel="q", vmin=2, vmax=1), ValueError, r"^vmin must be smaller than vmax"),
    # ---------------------------------------------------------------- d2l: plumbing
    ("d2l.add_to_class", lambda: d2l.add_to_class("Toy"), TypeError, r"^Class must be a class"),
    ("d2l.add_to_class", lambda: d2l.add_to_class(type("Toy", (), {}))(3), TypeError, r"^obj must be callable"),
    ("d2l.check_shape", lambda: d2l.check_shape([1, 2], (2,)), TypeError, r"^a must be a tensor or array"),
    ("d2l.check_shape", lambda: d2l.check_shape(torch.ones(2), 2), TypeError, r"^shape must be a tuple of ints"),
    ("d2l.plot", lambda: d2l.plot(None), TypeError, r"^X must be a series"),
    ("d2l.plot", lambda: d2l.plot([1, 2], fmts="-"), TypeError, r"^fmts must be a non-empty sequence"),
    ("d2l.plot", lambda: d2l.plot([1, 2], axes="ax"), TypeError, r"^axes must be a matplotlib Axes"),
    ("d2l.plot", lambda: d2l.plot([1, 2, 3], [1, 2]), ValueError, r"^X and Y must pair up"),
    ("d2l.plot", lambda: d2l.plot(torch.ones(3, device="meta")), ValueError, r"^X is on the meta device"),
    ("d2l.plot", lambda: d2l.plot(np.arange(3) * (1 + 1j)), TypeError, r"^X must hold real numbers, got dtype complex128"),
    ("d2l.plot", lambda: d2l.plot(torch.arange(3.0), [torch.ones(3, dtype=torch.complex64)]), TypeError, r"^Y must hold real numbers, got dtype complex64"),
    ("d2l.plot", lambda: d2l.plot(torch.arange(3.0).to(torch.float8_e4m3fn)), TypeError, r"^X has dtype torch.float8_e4m3fn"),
    ("d2l.masked_softmax", lambda: d2l.masked_softmax(torch.rand(2, 2, 4), torch.tensor([1e30, 3.0])), ValueError, r"^valid_lens must be <= the number of keys K=4, got 1e\+30;"),
    ("d2l.reduce_sum", lambda: d2l.reduce_sum(torch.ones(2).to(torch.float8_e4m3fn)), TypeError, r"^x has dtype torch.float8_e4m3fn, which PyTorch stores"),
    ("d2l.plot", lambda: d2l.plot(torch.ones(3), [torch.ones(3), torch.ones(3, device="meta")]), ValueError, r"^Y is on the meta device"),
    ("d2l.numpy", lambda: d2l.numpy(torch.ones(3, device="meta")), ValueError, r"^x is on the meta device, which holds no values"),
    ("d2l.set_axes", lambda: d2l.set_axes(None, "x", "y", None, None, "linear", "linear", None), TypeError, r"^axes must be a matplotlib Axes"),
    ("d2l.set_figsize", lambda: d2l.set_figsize(3), TypeError, r"^figsize must be a \(width, height\) pair"),
    ("d2l.set_figsize", lambda: d2l.set_figsize((3, -1)), ValueError, r"^figsize\[1\] must be > 0.0"),
    ("d2l.use_svg_display", lambda: d2l.use_svg_display("svg"), TypeError, r"use_svg_display\(\) takes 0 positional arguments"),
    *[
        (f"d2l.{name}", (lambda name=name: getattr(d2l, name)("a")), TypeError, r"^x must be a torch.Tensor, got str 'a'")
        for name in ["numpy", "size", "reshape", "to", "reduce_sum", "reduce_mean", "argmax", "astype", "transpose", "expand_dims", "swapaxes", "repeat"]
    ],
    # ---------------------------------------------------------------- d2l: torch's own functions, torch's errors
    ("d2l.ones", lambda: d2l.ones("a"), TypeError, r"argument 'size'"),
    ("d2l.zeros", lambda: d2l.zeros("a"), TypeError, r"argument 'size'"),
    ("d2l.rand", lambda: d2l.rand("a"), TypeError, r"argument 'size'"),
    ("d2l.randn", lambda: d2l.randn("a"), TypeError, r"argument 'size'"),
    ("d2l.ones_like", lambda: d2l.ones_like("a"), TypeError, r"argument 'input'"),
    ("d2l.zeros_like", lambda: d2l.zeros_like(3), TypeError, r"argument 'input'"),
    ("d2l.arange", lambda: d2l.arange("a"), TypeError, r"argument 'end'"),
    ("d2l.eye", lambda: d2l.eye("a"), TypeError, r"argument 'n'"),
    ("d2l.tensor", lambda: d2l.tensor("a"), TypeError, r"invalid data type 'str'"),
    ("d2l.linspace", lambda: d2l.linspace("a", 1, 3), TypeError, r"linspace\(\) received an invalid combination of arguments .*start"),
    ("d2l.normal", lambda: d2l.normal("a", 1, (2,)), TypeError, r"normal\(\) received an invalid combination of arguments .*mean"),
    ("d2l.meshgrid", lambda: d2l.meshgrid("a"), TypeError, r"expected Tensor as element 0 in argument 0"),
    *[
        (f"d2l.{name}", (lambda name=name: getattr(d2l, name)("a")), TypeError, r"argument 'input' \(position 1\) must be Tensor")
        for name in ["sin", "sinh", "cos", "cosh", "tanh", "sigmoid", "exp", "log", "abs"]
    ],
    ("d2l.matmul", lambda: d2l.matmul("a", Q), TypeError, r"argument 'input'"),
    ("d2l.batch_matmul", lambda: d2l.batch_matmul("a", Q), TypeError, r"argument 'input'"),
    ("d2l.concat", lambda: d2l.concat("a"), TypeError, r"argument 'tensors'"),
    ("d2l.stack", lambda: d2l.stack(3), TypeError, r"argument 'tensors'"),
]
# fmt: on


@pytest.fixture(autouse=True)
def _clean_up():
    yield
    plt.close("all")
    plotting.lecture_mode(False)


@pytest.mark.parametrize(("name", "call", "error", "match"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_raises_a_named_error(name, call, error, match):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error, f"{name}: {type(info.value).__name__}: {info.value}"
    assert re.search(match, str(info.value), flags=re.S), f"{name}: {info.value}"


def test_data_names_are_what_they_say():
    for name, expected in DATA_NAMES.items():
        module, attr = name.split(".")
        assert getattr(MODULES[module], attr) is expected or getattr(MODULES[module], attr) == expected, name


def test_covered_is_what_the_matrix_tests():
    assert {case[0] for case in CASES} | set(DATA_NAMES) == COVERED
