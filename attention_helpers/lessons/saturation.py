"""Notebook 3's saturation experiment and explorer: softmax saturation as d grows, with a temperature.

`saturation_per_query` is section 3.7.1's measurement (the notebook defines it as `saturation`; the claims harness,
`saturation_claims`, repeats it over many draws). `nested_weights` keeps one draw of queries and keys of the largest
size and uses their first d entries for each d, so that raising d only adds terms to the same dot products;
`row_stats` gives each row's largest weight and entropy; `weights_svg` draws the unscaled and scaled weights side by
side with those numbers beside every row.
"""

from __future__ import annotations

import html
import math

import numpy as np
import torch

from .. import _validate as check
from .landscape import pixel_image

__all__ = ["nested_weights", "row_stats", "saturation_per_query", "weights_svg"]


def saturation_per_query(
    d: int, scale: float, g: torch.Generator, B: int = 20, Q: int = 50, K: int = 64
) -> list[torch.Tensor]:
    """Random queries (B, Q, d) against keys (B, K, d), scores times `scale` -> per query (B*Q,): largest weight,
    entropy, gradient norms at the scores and the queries (loss: weights times a random upstream gradient), and the
    best score minus the second best. Notebook 3's `saturation`, with its draws from `g` in the same order."""
    d, B, Q = check.positive_int("d", d), check.positive_int("B", B), check.positive_int("Q", Q)
    K = check.int_at_least("K", K, 2)  # the best score minus the second best needs two keys
    scale = check.real("scale", scale, low=0.0, low_open=True)
    if not isinstance(g, torch.Generator):
        raise TypeError(f"g must be a torch.Generator, got {check.describe(g)}")
    queries = torch.randn(B, Q, d, generator=g, requires_grad=True)  # (B, Q, d)
    keys = torch.randn(B, K, d, generator=g)  # (B, K, d)
    scores = torch.bmm(queries, keys.transpose(1, 2)) * scale  # (B, Q, d) @ (B, d, K) -> (B, Q, K)
    scores.retain_grad()
    weights = torch.softmax(scores, dim=-1)  # (B, Q, K)
    (weights * torch.randn(B, Q, K, generator=g)).sum().backward()
    entropy = -(weights * weights.clamp_min(1e-30).log()).sum(-1)  # (B, Q)
    best_two = scores.detach().topk(2, dim=-1).values  # (B, Q, 2)
    per_query = (
        weights.max(-1).values,
        entropy,
        scores.grad.norm(dim=-1),
        queries.grad.norm(dim=-1),
        best_two[..., 0] - best_two[..., 1],
    )  # (B, Q) each
    return [x.detach().flatten() for x in per_query]  # 5 tensors (B*Q,)


def nested_weights(queries: torch.Tensor, keys: torch.Tensor, d: int, tau: float, scaled: bool) -> torch.Tensor:
    """Queries (Q, D), keys (K, D): softmax(q[:d] · k[:d] / (τ √d if scaled else τ)) over the keys -> (Q, K)."""
    for name, x in (("queries", queries), ("keys", keys)):
        check.floating_tensor(name, x, dims=2, shape="(n, D)")
        check.has_values(name, x)
    if queries.shape[1] != keys.shape[1]:
        raise ValueError(f"queries and keys must have the same size D, got {queries.shape[1]} and {keys.shape[1]}")
    if keys.shape[0] == 0:
        raise ValueError("keys must hold at least one key: a softmax over no keys is undefined")
    check.positive_int("d", d)
    if d > queries.shape[1]:
        raise ValueError(f"d must be an int in 1..{queries.shape[1]} (the prefix length), got {d!r}")
    tau = check.real("tau", tau, low=0.0, low_open=True)  # the temperature
    check.boolean("scaled", scaled)
    q, k = (
        queries[:, :d].detach().cpu().double().numpy(),
        keys[:, :d].detach().cpu().double().numpy(),
    )  # numpy: tiny arrays, no thread start-up
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.isfinite(q @ k.T).all():
            raise ValueError(
                "queries and keys must have finite dot products (in float64) over their first d entries; these "
                "overflow or hold NaN: scale them down"
            )
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # an extreme tau is handled below
        scores = q @ k.T / (tau * math.sqrt(d) if scaled else tau)  # (Q, d) @ (d, K) -> (Q, K)
        e = np.exp(scores - scores.max(-1, keepdims=True))  # (Q, K), the row max subtracted as torch.softmax does
        if not np.isfinite(e).all():  # a tiny tau: scores overflow to inf, and inf - inf is NaN. Subtract first,
            gap = q @ k.T  # then divide by tau and √d in turn: 0 stays 0 (the largest), the others go to -inf
            gap = (gap - gap.max(-1, keepdims=True)) / tau / (math.sqrt(d) if scaled else 1.0)  # (Q, K), <= 0
            e = np.exp(gap)  # (Q, K), 1 at each row's largest score
    return torch.from_numpy(e / e.sum(-1, keepdims=True)).to(queries.dtype)  # (Q, K)


def row_stats(weights: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Weights (Q, K) -> (largest weight (Q,), entropy in nats (Q,))."""
    check.floating_tensor("weights", weights, dims=2, shape="(Q, K)")
    if weights.shape[1] == 0:
        raise ValueError(f"weights must hold at least one key per row (K >= 1), got shape {tuple(weights.shape)}")
    check.finite("weights", weights)
    w = weights.detach().cpu().double().numpy()  # (Q, K)
    entropy = -(w * np.log(np.maximum(w, 1e-30))).sum(-1)  # (Q,)
    return torch.from_numpy(w.max(-1)), torch.from_numpy(entropy)


def weights_svg(panels: list[tuple[str, torch.Tensor]], cell: int = 16) -> str:
    """Panels [(title, weights (Q, K))] side by side, each row followed by its largest weight and entropy -> SVG."""
    if isinstance(panels, (str, bytes)) or not isinstance(panels, (list, tuple)) or not panels:
        raise TypeError(f"panels must be a non-empty list of (title, weights (Q, K)), got {check.describe(panels)}")
    for i, panel in enumerate(panels):
        if not isinstance(panel, (list, tuple)) or len(panel) != 2:
            raise TypeError(f"panels[{i}] must be a pair (title, weights (Q, K)), got {check.describe(panel)}")
        check.text(f"panels[{i}] title", panel[0])
        row_stats(check.floating_tensor(f"panels[{i}] weights", panel[1], dims=2, shape="(Q, K)"))
        if panel[1].shape[0] == 0:
            raise ValueError(
                f"panels[{i}] weights must hold at least one query (row), got shape {tuple(panel[1].shape)}"
            )
        if panel[1].shape != panels[0][1].shape:
            raise ValueError(
                f"panels[{i}] weights must have the first panel's shape {tuple(panels[0][1].shape)}, got "
                f"{tuple(panel[1].shape)}"
            )
    check.positive_int("cell", cell)
    if cell > 10_000:
        raise ValueError(f"cell must be at most 10000 pixels, got {cell}")
    font, top, label_w, stats_w, gap = 11, 30, 26, 92, 12
    Q, K = panels[0][1].shape
    panel_w = label_w + K * cell + stats_w
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{len(panels) * (panel_w + gap)}" '
        f'height="{top + Q * cell + 20}" font-family="sans-serif" font-size="{font}" fill="currentColor">'
    ]
    for i, (title, weights) in enumerate(panels):
        x0 = i * (panel_w + gap) + label_w
        top_weight, entropy = row_stats(weights)
        parts.append(f'<text x="{x0 + K * cell / 2}" y="12" text-anchor="middle">{html.escape(title)}</text>')
        parts.append(f'<text x="{x0 + K * cell + 4}" y="{top - 5}" font-size="10">max</text>')
        parts.append(f'<text x="{x0 + K * cell + 38}" y="{top - 5}" font-size="10">entropy</text>')
        parts.append(pixel_image(weights.detach().cpu().double().numpy(), "Reds", x0, top, K * cell, Q * cell))
        for q in range(Q):
            y = top + q * cell
            parts.append(f'<text x="{x0 - 4}" y="{y + cell - 4}" text-anchor="end">{q}</text>')
            parts.append(f'<text x="{x0 + K * cell + 4}" y="{y + cell - 4}">{top_weight[q]:.2f}</text>')
            parts.append(f'<text x="{x0 + K * cell + 38}" y="{y + cell - 4}">{entropy[q]:.2f}</text>')
        parts.append(
            f'<rect x="{x0}" y="{top}" width="{K * cell}" height="{Q * cell}" fill="none" stroke="currentColor"/>'
        )
        parts.append(f'<text x="{x0 + K * cell / 2}" y="{top + Q * cell + 14}" text-anchor="middle">keys</text>')
    parts.append("</svg>")
    return "".join(parts)
