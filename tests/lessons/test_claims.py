"""The claims harness (attention_helpers.lessons.claims, python -m attention_helpers.tools.claims): its standard is
enforced when a claim is registered, a claim fails below its stated rate or when its wrong story holds as often,
and every claim read from committed records holds and is quoted by its notebook with the recorded numbers."""

from __future__ import annotations

import pytest

from attention_helpers.lessons import claims
from attention_helpers.tools import claims as harness

REGISTERED = harness.load_claims()
FROM_RECORDS = [c for c in REGISTERED if c.source == "seeds"]


def _claim(**changes):
    base = dict(
        notebook="00",
        section="0.0",
        words="a test claim",
        source="draws",
        n=50,
        measure=lambda i: i % 10,
        holds=lambda v: v < 9,
        rate=0.8,
        wrong_story="every draw is large",
        wrong=lambda i: 9,
    )
    return claims.Claim(**(base | changes))


def test_the_standard_is_enforced_when_a_claim_is_made():
    with pytest.raises(ValueError, match="at least 50"):
        _claim(n=49)  # a random draw: 50 of them
    with pytest.raises(ValueError, match="at least 10"):
        _claim(source="seeds", n=5, every=True, rate=1.0)  # "every seed": 10 of them
    with pytest.raises(ValueError, match="at least 5"):
        _claim(source="seeds", n=4, rate=1.0, quote=lambda r: "x")
    with pytest.raises(ValueError, match="quote"):
        _claim(source="seeds", n=5, rate=1.0)  # "in all 5 seeds" must say how many
    with pytest.raises(ValueError, match="source"):
        _claim(source="one run")


def test_a_claim_fails_below_its_rate_and_when_its_wrong_story_holds_too():
    good = _claim()
    assert good.passes(good.run())  # 45 of 50 hold (0.9 >= 0.8); the wrong story never does
    below = _claim(rate=0.95)
    assert not below.passes(below.run())
    unfalsified = _claim(wrong=lambda i: 0)  # the wrong story passes as often: the claim could not fail
    assert not unfalsified.passes(unfalsified.run())


def test_the_harness_exits_1_on_a_failing_claim_and_on_a_misquote(monkeypatch, capsys):
    monkeypatch.setattr(harness, "load_claims", lambda: [_claim(rate=0.95)])
    assert harness.main([]) == 1
    assert "FAILS" in capsys.readouterr().out
    misquoted = _claim(quote=lambda r: f"in {r.count} of {r.n} random draws of nothing")
    monkeypatch.setattr(harness, "load_claims", lambda: [misquoted])
    assert harness.main([]) == 1
    assert "does not say" in capsys.readouterr().out


def test_held_out_checks_the_first_halfs_range_on_the_second(monkeypatch, capsys):
    steady = _claim(measure=lambda i: i % 10)  # both halves see 0..9
    widening = _claim(measure=lambda i: i)  # the second half's values all lie above the first half's range
    assert harness.held_out(steady, steady.run()).outside == 0
    late = harness.held_out(widening, widening.run())
    assert (late.outside, len(late.second)) == (25, 25)
    assert late.miss_chance == 2 / 51
    monkeypatch.setattr(harness, "load_claims", lambda: [steady])
    assert harness.main(["--held-out"]) == 0
    assert "0/25" in capsys.readouterr().out


@pytest.mark.parametrize("made", FROM_RECORDS, ids=lambda c: f"{c.notebook}:{c.section}:{c.words[:40]}")
def test_every_claim_on_trained_models_holds_and_is_quoted(made):
    result = made.run()
    assert made.passes(result), (made.words, result)
    assert not harness.quote_problems([made], [result])


def test_every_notebook_with_seed_claims_has_them_registered():
    assert {c.notebook for c in FROM_RECORDS} >= {"06", "10"}
    for name, family in claims.FAMILIES.items():
        assert set(claims.load_records(name)) == set(family.seeds), name
        for seed, record in claims.load_records(name).items():
            assert record["seed"] == seed and record["command"].startswith(family.command)


def test_a_fresh_readers_seeds_go_to_their_own_folder_and_are_reported_beside_the_committed(tmp_path, capsys):
    import json

    from attention_helpers.lessons import dates_claims, induction, self_attention

    committed = claims.RECORDS_DIR / "efficient_seed0.json"
    before = committed.read_text()
    places = (claims.RECORDS_DIR, dates_claims.CACHE, induction._CACHE, self_attention._CACHE)
    try:
        assert harness.main(["--retrain", "efficient", "--seeds", "0", "--out", str(tmp_path)]) == 0
    finally:  # the command points the modules at the folder: put them back for the other tests
        claims.RECORDS_DIR, dates_claims.CACHE, induction._CACHE, self_attention._CACHE = places
    written = json.loads((tmp_path / "records" / "efficient_seed0.json").read_text())
    assert committed.read_text() == before  # the repository's record is left alone ...
    mine = json.loads(before)
    assert {k: v for k, v in written.items() if k != "torch"} == {k: v for k, v in mine.items() if k != "torch"}
    assert harness.fresh_seeds(tmp_path) == {"efficient": [0]}
    capsys.readouterr()
    assert harness.main(["--notebook", "08", "--fresh", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "claims on the seeds of efficient 0-0" in out and " 1/1 " in out
    assert claims.RECORDS_DIR == places[0]  # the report reads the folder, then the committed records again


def test_out_goes_with_retrain(capsys):
    with pytest.raises(SystemExit):
        harness.main(["--out", "somewhere"])
    assert "--out goes with --retrain" in capsys.readouterr().err


def test_a_fresh_report_reads_seed_0_from_the_committed_records(tmp_path, capsys):
    # exercise 6.1's claim compares each seed with the committed model (seed 0), which a reader's folder lacks
    import shutil

    (tmp_path / "records").mkdir()
    shutil.copy(claims.RECORDS_DIR / "dates_seed1.json", tmp_path / "records")
    capsys.readouterr()
    assert harness.main(["--notebook", "06", "--fresh", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "claims on the seeds of dates 1-1" in out and "exercise 6.1" in out.split("claims on the seeds")[0]
    assert claims.FALLBACK_DIR is None  # and looks in the committed records alone again
    with pytest.raises(FileNotFoundError, match="no record dates_seed9999.json"):
        claims.record("dates", 9999)
