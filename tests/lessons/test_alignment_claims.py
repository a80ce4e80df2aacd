"""Notebook 0's claim about the committed translator's alignment (attention_helpers.lessons.alignment_claims): it holds
on the share of the 2,000 held-out dates it states, and fails when each date's columns are shuffled."""

from __future__ import annotations

from attention_helpers.lessons import alignment_claims  # noqa: F401  (registers the claim)
from attention_helpers.lessons.claims import CLAIMS


def test_the_claim_holds_at_its_rate_and_fails_for_shuffled_columns():
    (made,) = [c for c in CLAIMS if c.notebook == "00" and c.section == "0"]
    result = made.run()
    assert result.count == 1703 and made.passes(result)
    assert sum(result.wrong_held) < 0.01 * result.n  # as sharp, in the wrong places: almost never
