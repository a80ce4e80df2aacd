"""The README's picture: `python -m attention_helpers.tools.gallery` writes notebooks/figures/gallery.png.

Notebook 10's induction head forming, recomputed with the package: the same model, seed, training run and probe
sequence as notebook 10 (`train_induction`, 150 steps of Adam, one CPU thread; about a second). Two heads over
training: layer 0 head 0 learns to look at the previous token; layer 1 head 0, the induction head, learns to look
at the token that followed the earlier copy of the current token. Outlined cells are where each head should look;
each panel's title gives the step and the mean weight on the outlined cells (1 when perfect).

Only the probe is evaluated while training. Notebook 10 also evaluates 256 held-out sequences, which costs time
but never touches the model's parameters or the batches' random numbers, so the probe's weights are the same.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .refresh import pin_numerics

if TYPE_CHECKING:
    import torch

    from ..plotting import Heatmaps

__all__ = [
    "DPI",
    "HEADS",
    "OUT",
    "PROBE_LENGTH",
    "PROBE_START",
    "PROBE_TOKENS",
    "STEPS",
    "draw",
    "gallery_weights",
    "main",
    "on_target",
    "probe",
    "render",
    "targets",
]

OUT = Path(__file__).resolve().parents[2] / "notebooks" / "figures" / "gallery.png"
PROBE_TOKENS = (7, 20, 3, 14, 25, 20, 3, 14, 25, 9)  # notebook 10's probe: 20 3 14 25 at 1..4, repeated at 5..8
PROBE_START, PROBE_LENGTH = 1, 4
STEPS = (0, 50, 70, 90, 150)  # the training steps shown, as in notebook 10's strip (section 10.4)
HEADS = ((0, 0, "previous-token head"), (1, 0, "induction head"))  # (layer, head, role) per row
DPI = 80


def probe():
    """Notebook 10's probe sequence, as InductionData (1, T)."""
    import torch

    from ..lessons.induction import InductionData

    return InductionData(
        torch.tensor([PROBE_TOKENS]), torch.tensor([PROBE_START]), torch.tensor([PROBE_LENGTH]), vocab_size=32
    )


def gallery_weights() -> torch.Tensor:
    """(R=2, C=5, T, T): the two heads of HEADS (rows) at the training steps of STEPS (columns), on the probe."""
    import torch

    from ..lessons.induction import AttentionOnlyTransformer, train_induction

    data = probe()
    model = AttentionOnlyTransformer(vocab_size=32, seq_len=24, d_model=32, num_heads=2, num_layers=2, seed=0)
    log = train_induction(model, data, steps=max(STEPS), record_every=10, probe=data, seed=0)
    rows = [torch.stack([log.at(step)[0, layer, head] for step in STEPS]) for layer, head, _ in HEADS]  # (C, T, T)
    return torch.stack(rows)  # (R, C, T, T)


def targets() -> torch.Tensor:
    """(R=2, T, T) bool: where each head of HEADS should look, the previous token, then the token after the copy."""
    import torch

    T = len(PROBE_TOKENS)  # positions
    p = torch.arange(T)  # (T,)
    previous = p[:, None] - 1 == p[None, :]  # (T, T): query p, key p - 1
    second = (p >= PROBE_START + PROBE_LENGTH) & (p < PROBE_START + 2 * PROBE_LENGTH)  # (T,): the second copy
    induction = second[:, None] & (p[:, None] - PROBE_LENGTH + 1 == p[None, :])  # (T, T): query p, key p - n + 1
    return torch.stack([previous, induction])  # (R, T, T)


def on_target(weights: torch.Tensor) -> torch.Tensor:
    """Weights (R, C, T, T) -> (R, C): the mean weight that the rows with a target put on it."""
    mask = targets()[:, None].to(weights.dtype)  # (R, 1, T, T)
    return (weights * mask).sum(dim=(-2, -1)) / mask.sum(dim=(-2, -1))  # (R, C)


def draw(weights: torch.Tensor) -> Heatmaps:
    """The picture: show_heatmaps of (R, C, T, T), each head's target cells outlined, its score in each title."""
    from matplotlib.patches import Rectangle

    from ..plotting import show_heatmaps

    labels = [str(t) for t in PROBE_TOKENS]
    heatmaps = show_heatmaps(
        weights, "key (token)", "query (token)", figsize=(12, 4.7), xticklabels=labels, yticklabels=labels
    )
    scores = on_target(weights)  # (R, C)
    for r, (layer, head, role) in enumerate(HEADS):
        heatmaps.axes[r, 0].set_ylabel(f"layer {layer} head {head}\n{role}\n\nquery (token)")
        for c, step in enumerate(STEPS):
            ax = heatmaps.axes[r, c]
            ax.set_title(f"step {step}: {scores[r, c]:.2f}", fontsize=11)
            for q, k in targets()[r].nonzero().tolist():
                ax.add_patch(Rectangle((k - 0.5, q - 0.5), 1, 1, fill=False, edgecolor="tab:blue", linewidth=1.5))
    return heatmaps


def render(path: Path = OUT, weights: torch.Tensor | None = None) -> Path:
    """Draw `weights` (default: train and compute them) and save the PNG, with no timestamp or version, to path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heatmaps = draw(gallery_weights() if weights is None else weights)
    path.parent.mkdir(parents=True, exist_ok=True)
    heatmaps.fig.savefig(path, dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    plt.close(heatmaps.fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m attention_helpers.tools.gallery", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write the PNG (default: {OUT})")
    args = parser.parse_args(argv)
    pin_numerics()  # before torch loads: the same numbers as the notebooks and the test (see refresh.py)
    print(render(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
