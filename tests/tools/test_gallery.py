"""The README picture is computed, not drawn by hand: check what it shows, and that the committed PNG is exactly what
`python -m attention_helpers.tools.gallery` draws from the package today."""

import numpy as np
import pytest
import torch
from matplotlib import image

from attention_helpers.lessons.induction import induction_score, previous_token_score
from attention_helpers.tools import gallery

T = len(gallery.PROBE_TOKENS)  # positions of the probe sequence


@pytest.fixture(scope="module")
def weights() -> torch.Tensor:
    return gallery.gallery_weights()  # (R=2, C=5, T, T); trains the model once (about a second)


def test_outlines_are_the_package_scores(weights):
    previous, induction = gallery.on_target(weights)  # (C,) each
    torch.testing.assert_close(previous, previous_token_score(weights[0]))  # (C, T, T) -> (C,)
    torch.testing.assert_close(induction, induction_score(weights[1][:, None], gallery.probe()))  # (C, 1, T, T)


def test_gallery_shows_two_heads_forming(weights):
    assert weights.shape == (2, len(gallery.STEPS), T, T)
    assert (weights.triu(diagonal=1) == 0).all()  # causal: no query looks at a later token
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(2, len(gallery.STEPS), T))
    scores = gallery.on_target(weights)  # (R, C)
    assert (scores[:, 0] < 0.25).all()  # before training neither head looks where it should
    assert (scores[:, -1] > 0.9).all()  # after 150 steps both do
    final = weights[:, -1]  # (R, T, T)
    assert (final[0, 1:].argmax(dim=-1) == torch.arange(T - 1)).all()  # every token looks at the one before it
    n, start = gallery.PROBE_LENGTH, gallery.PROBE_START
    second = torch.arange(start + n, start + 2 * n)  # the positions of the second copy
    assert (final[1, second].argmax(dim=-1) == second - n + 1).all()  # ... at the token after its earlier copy


def test_committed_picture_is_what_the_command_draws(weights, tmp_path):
    """Redraw (the same training as `python -m attention_helpers.tools.gallery`) and compare with the committed PNG.

    Tolerance: every colour channel of every pixel within 1/255, one colour level, which a last-bit difference in a
    weight can flip. Moving any one weight by 0.01 changes some pixel by 2/255 or more (20 random trials here: 2 to
    5, or far more where a title's digits change), and so does any change of title, label, outline or layout. Here
    the redrawn picture is identical (difference 0), with and without the pinned numerics of refresh.py."""
    fresh = image.imread(gallery.render(tmp_path / "gallery.png", weights))  # (H, W, 4) floats in [0, 1]
    committed = image.imread(gallery.OUT)
    hint = "run `python -m attention_helpers.tools.gallery` and commit notebooks/figures/gallery.png"
    assert fresh.shape == committed.shape, f"size {fresh.shape[:2]} != committed {committed.shape[:2]}; {hint}"
    difference = np.abs(fresh.astype(np.float64) - committed.astype(np.float64)).max()
    assert difference <= 1 / 255, f"largest channel difference {difference * 255:.0f}/255; {hint}"
