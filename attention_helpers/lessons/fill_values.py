"""Notebook 1's explorer: what a fill value does to a masked softmax, per dtype, with and without an empty row.

`fill_outcome` runs the common recipe (fill the masked scores, softmax, optionally zero the masked weights) and a
backward pass through a shared weight matrix, and reports the weights, whether the gradient is finite, or the error
raised; `outcome_svg` and `outcome_caption` draw and summarise one outcome.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import torch

from .. import _validate as check

__all__ = ["DTYPES", "FILLS", "FillOutcome", "fill_outcome", "outcome_caption", "outcome_svg"]

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
FILLS = ("-1e6", "-1e9", "finfo.min", "-inf")  # finfo.min: torch.finfo(dtype).min, the dtype's own minimum


@dataclass
class FillOutcome:
    """Weights (B, Q, K) as float32 (None if the recipe raised), the valid-key mask, finite gradient?, error."""

    weights: torch.Tensor | None
    keep: torch.Tensor
    grad_finite: bool
    error: str | None

    def __post_init__(self) -> None:
        if not isinstance(self.keep, torch.Tensor) or self.keep.dtype != torch.bool or self.keep.dim() != 3:
            raise TypeError(f"keep must be a bool tensor (B, Q, K), got {check.describe(self.keep)}")
        check.has_values("keep", self.keep)
        if 0 in self.keep.shape:
            raise ValueError(f"keep must hold at least one sequence, query and key, got shape {tuple(self.keep.shape)}")
        if self.weights is not None:
            check.floating_tensor("weights", self.weights, dims=3, shape="(B, Q, K)")
            check.has_values("weights", self.weights)
            if self.weights.shape != self.keep.shape:
                raise ValueError(
                    f"weights must have keep's shape {tuple(self.keep.shape)}, got {tuple(self.weights.shape)}"
                )
        check.boolean("grad_finite", self.grad_finite)
        if self.error is not None and not check.text("error", self.error).strip():
            raise ValueError("error must say what the recipe raised (a non-empty text), got an empty one")
        if (self.weights is None) == (self.error is None):
            raise ValueError("a FillOutcome holds either weights or an error, not both nor neither")


def fill_outcome(
    scores: torch.Tensor, valid_lens: torch.Tensor, dtype: str, fill: str, zero_masked: bool
) -> FillOutcome:
    """Scores (B, Q, K), lengths (B,): masked_fill(fill) -> softmax -> (zero masked weights) -> @ values -> backward."""
    check.floating_tensor("scores", scores, dims=3, shape="(B, Q, K)")
    check.one_of("dtype", dtype, list(DTYPES))
    check.one_of("fill", fill, FILLS)
    check.boolean("zero_masked", zero_masked)
    B, Q, K = scores.shape  # batch, queries, keys
    if 0 in scores.shape:
        raise ValueError(f"scores must hold at least one sequence, query and key, got shape {tuple(scores.shape)}")
    check.integer_tensor("valid_lens", valid_lens, dims=1, shape=f"({B},)")
    if valid_lens.shape != (B,):
        raise ValueError(f"valid_lens must have shape ({B},), one length per sequence, got {tuple(valid_lens.shape)}")
    if scores.device.type != "cpu" or valid_lens.device.type != "cpu":
        raise ValueError(f"scores and valid_lens must be on the CPU, got {scores.device} and {valid_lens.device}")
    if B and not (0 <= int(valid_lens.min()) and int(valid_lens.max()) <= K):
        raise ValueError(f"valid_lens must lie in 0..K={K}, got {valid_lens.tolist()}")
    scores = scores.detach()  # the recipe's own backward pass must not reach the caller's tensor (or its .grad)
    keep = torch.arange(K) < valid_lens[:, None, None]  # (B, 1, K), True = a real key
    value = {"-1e6": -1e6, "-1e9": -1e9, "finfo.min": torch.finfo(DTYPES[dtype]).min, "-inf": float("-inf")}[fill]
    g = torch.Generator().manual_seed(0)
    W = torch.randn(3, 3, generator=g).requires_grad_()  # a weight shared by every sequence, like a layer's
    values = torch.randn(B, K, 3, generator=g) @ W  # (B, K, 3)
    try:
        filled = scores.to(DTYPES[dtype]).masked_fill(~keep, value)  # (B, Q, K)
    except RuntimeError as error:
        return FillOutcome(None, keep.expand(B, Q, K), False, f"{type(error).__name__}: {error}")
    weights = torch.softmax(filled, dim=-1)  # (B, Q, K)
    if zero_masked:
        weights = weights.masked_fill(~keep, 0.0)
    (weights.float() @ values).sum().backward()  # (B, Q, K) @ (B, K, 3) -> (B, Q, 3)
    return FillOutcome(weights.detach().float(), keep.expand(B, Q, K), bool(W.grad.isfinite().all()), None)


def _check_outcome(outcome: object) -> FillOutcome:
    if not isinstance(outcome, FillOutcome):
        raise TypeError(f"outcome must be a FillOutcome (from fill_outcome), got {check.describe(outcome)}")
    return outcome


def _cell_colour(weight: float) -> str:
    level = round(255 - 200 * min(max(weight, 0.0), 1.0))  # white (0) to red (1)
    return f"#ff{level:02x}{level:02x}"


def outcome_svg(outcome: FillOutcome, title: str = "", cell: int = 44) -> str:
    """One outcome under a title: each sequence's weights (numbers, NaN in yellow, padding keys outlined dashed)
    and the gradient's verdict, or the error -> SVG; text in currentColor."""
    _check_outcome(outcome)
    check.text("title", title)
    check.positive_int("cell", cell)
    if cell > 10_000:
        raise ValueError(f"cell must be at most 10000 pixels, got {cell}")
    B, Q, K = outcome.keep.shape  # batch, queries, keys
    left, top = 84, 40
    width, height = max(left + K * cell + 10, 380), top + B * Q * cell + 56
    if outcome.weights is None:
        said = [
            f"{B} sequences × {K} keys, no weights: {(outcome.error or '').splitlines()[0] if outcome.error else ''}"
        ]
    else:
        said = [
            f"sequence {b}: "
            + " ".join(
                ("padding " if not outcome.keep[b, q, k] else "") + f"{float(outcome.weights[b, q, k]):.2f}"
                for k in range(K)
            )
            for b in range(B)
            for q in range(Q)
        ]
        said.append(f"gradient {'finite' if outcome.grad_finite else 'NaN'}")
    alt = html.escape(f"{title + ': ' if title else ''}" + "; ".join(said), quote=True)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
        f'font-size="12" fill="currentColor" role="img" aria-label="{alt}">'
    ]
    parts.append(f'<text x="4" y="14" font-weight="bold">{html.escape(title)}</text>')
    for k in range(K):
        parts.append(f'<text x="{left + (k + 0.5) * cell}" y="32" text-anchor="middle">key {k}</text>')
    for b in range(B):
        for q in range(Q):
            y = top + (b * Q + q) * cell
            parts.append(f'<text x="{left - 6}" y="{y + cell / 2 + 4}" text-anchor="end">sequence {b}</text>')
            for k in range(K):
                x, padded = left + k * cell, not bool(outcome.keep[b, q, k])
                if outcome.weights is None:
                    fill, text = "none", ""
                else:
                    w = outcome.weights[b, q, k].item()
                    fill, text = ("#f0e442", "NaN") if w != w else (_cell_colour(w), f"{w:.2f}")
                dash = ' stroke-dasharray="4 3"' if padded else ""
                parts.append(
                    f'<rect x="{x + 1}" y="{y + 1}" width="{cell - 2}" height="{cell - 2}" fill="{fill}" '
                    f'stroke="currentColor"{dash}/>'
                )
                if text:
                    parts.append(
                        f'<text x="{x + cell / 2}" y="{y + cell / 2 + 4}" text-anchor="middle" fill="#222">{text}</text>'
                    )
    y = top + B * Q * cell + 20
    if outcome.error is not None:
        kind, _, message = outcome.error.splitlines()[0].partition(": ")
        parts.append(f'<text x="4" y="{y}">masked_fill raises {html.escape(kind)}:</text>')
        parts.append(f'<text x="4" y="{y + 16}" font-size="11">{html.escape(message[:64])}</text>')
    else:
        verdict = "finite" if outcome.grad_finite else "NaN (one bad row spoils the update)"
        parts.append(f'<text x="4" y="{y}">gradient of shared weights: {verdict}</text>')
    parts.append(f'<text x="4" y="{y + 32}" font-size="10">dashed: padding keys</text>')
    parts.append("</svg>")
    return "".join(parts)


def outcome_caption(outcome: FillOutcome) -> str:
    """One line: what went wrong (or right) for the empty or padded rows."""
    _check_outcome(outcome)
    if outcome.error is not None:
        return "the fill does not fit in this dtype: masked_fill refuses (torch.where would write -inf instead)"
    w, keep = outcome.weights, outcome.keep
    if w.isnan().any():
        return "NaN weights: every score of a row is -inf, and softmax divides 0 by 0"
    empty = ~keep.any(-1)  # (B, Q): rows with no real key
    if empty.any() and (w[empty] > 0).any():
        return f"the empty row attends to padding only: uniform weights {w[empty].max().item():.2f}, not zeros"
    return "masked weights are exactly 0 and the gradient is finite, as with masked_softmax"
