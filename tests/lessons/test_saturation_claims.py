"""Notebook 3's claims over draws and seeds (attention_helpers.lessons.saturation_claims): the explorer draw 0 is the
notebook's own, the steadiness count tells a steady series from a wobbly one, and every 03 claim holds at its rate
while its wrong story does not."""

from __future__ import annotations

from attention_helpers.lessons import saturation_claims as sc
from attention_helpers.lessons.claims import CLAIMS


def test_steady_steps_counts_both_directions():
    steady = ((0.1, 3.0), (0.2, 2.0), (0.3, 1.0), (0.4, 0.5), (0.9, 0.1))
    wobbly = ((0.1, 3.0), (0.3, 2.0), (0.2, 2.5), (0.4, 0.5), (0.9, 0.1))
    assert sc._steady_steps(steady) == 8 and sc._steady_steps(wobbly) == 6


def test_unscaled_rows_sharpen_with_d_and_scaled_ones_do_not():
    assert sc._rise(0, scaled=False) > 0.25 and abs(sc._rise(0, scaled=True)) < 0.25


def test_every_03_claim_on_seeds_passes():
    for made in (c for c in CLAIMS if c.notebook == "03" and c.source == "seeds"):
        assert made.passes(made.run()), made.words
