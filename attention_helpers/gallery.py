"""The README's picture: `python -m attention_helpers.gallery` writes notebooks/figures/gallery.png.

Four heatmaps computed with the package (seeded): padding masked by `valid_lens`, a causal mask combined with
that padding (2-D lengths), and two heads of one `MultiHeadAttention` over the same padded sentence, attending
differently.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from .layers import MultiHeadAttention
from .masking import masked_softmax
from .plotting import show_heatmaps

__all__ = ["OUT", "TOKENS", "gallery_weights", "main"]

OUT = Path(__file__).resolve().parent.parent / "notebooks" / "figures" / "gallery.png"
TOKENS = ["the", "cat", "sat", "on", "the", "mat", "<pad>", "<pad>"]


def gallery_weights() -> torch.Tensor:
    """(1, 4, 8, 8): padding mask, causal mask, head 0 and head 1 of multi-head self-attention."""
    g = torch.Generator().manual_seed(0)
    n = len(TOKENS)
    scores = torch.randn(1, n, n, generator=g)  # (1, Q, K)
    padded = masked_softmax(scores, torch.tensor([6]))  # (1, Q, K): keys 6, 7 are padding
    # (1, Q, K): query i sees keys 0..i, and never the padding: lengths min(i + 1, 6)
    causal = masked_softmax(scores, torch.arange(1, n + 1).clamp(max=6)[None])
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 16, 16, 16, 2, 0.0).eval()
    X = torch.randn(1, n, 16, generator=g) * 2  # (1, n, d)
    with torch.no_grad():
        mha(X, X, X, torch.tensor([6]))
    heads = mha.head_weights[0]  # (H, Q, K)
    return torch.stack([padded[0], causal[0], heads[0], heads[1]])[None]  # (1, 4, Q, K)


def main() -> int:
    import matplotlib

    matplotlib.use("Agg")
    heatmaps = show_heatmaps(
        gallery_weights(), "Keys", "Queries", titles=["valid_lens = 6", "causal + valid_lens = 6", "head 0", "head 1"],
        figsize=(12, 3.6), xticklabels=TOKENS, yticklabels=TOKENS,
    )  # fmt: skip
    OUT.parent.mkdir(parents=True, exist_ok=True)
    heatmaps.fig.savefig(OUT, dpi=80, bbox_inches="tight", metadata={"Software": None})
    print(OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
