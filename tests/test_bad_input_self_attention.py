"""Bad input to notebook 5's trained self-attention layer (attention_helpers.lessons.self_attention): a clear
TypeError or ValueError naming the argument. `COVERED` lists the names these cases reach; tests/test_contract.py
checks that the union over tests/test_bad_input*.py covers every public name."""

from __future__ import annotations

import pytest
import torch

from attention_helpers.lessons import self_attention as sa

CASES = [
    ("lessons.self_attention.ReverserLog", lambda: sa.ReverserLog((1.0,)), TypeError, "losses must be a list"),
    ("lessons.self_attention.ReverserLog", lambda: sa.ReverserLog(["a"]), TypeError, r"losses\[0\] must be a real"),
    (
        "lessons.self_attention.ReverserLog",
        lambda: sa.ReverserLog(cpu_seconds=-1),
        ValueError,
        "cpu_seconds must be >= 0",
    ),
    ("lessons.self_attention.encode", lambda: sa.encode("dogs fly"), ValueError, "words must be among"),
    ("lessons.self_attention.encode", lambda: sa.encode(""), ValueError, "at least one word"),
    ("lessons.self_attention.encode", lambda: sa.encode(5), TypeError, "words must be a list"),
    ("lessons.self_attention.encode", lambda: sa.encode(["dogs", 3]), ValueError, "words must be among"),
    (
        "lessons.self_attention.decode",
        lambda: sa.decode(torch.tensor([0.0])),
        TypeError,
        "tokens must be an integer tensor",
    ),
    ("lessons.self_attention.decode", lambda: sa.decode(torch.tensor([[0]])), ValueError, "tokens must be 1-D"),
    ("lessons.self_attention.decode", lambda: sa.decode(torch.tensor([16])), ValueError, "tokens must be word ids"),
    ("lessons.self_attention.make_sequences", lambda: sa.make_sequences(0), ValueError, "num must be >= 1"),
    ("lessons.self_attention.make_sequences", lambda: sa.make_sequences(2, seed="a"), TypeError, "seed must be an int"),
    ("lessons.self_attention.held_out_set", lambda: sa.held_out_set(0), ValueError, "num must be >= 1"),
    ("lessons.self_attention.held_out_set", lambda: sa.held_out_set(1001), ValueError, "num must be <= 1000"),
    (
        "lessons.self_attention.Reverser",
        lambda: sa.Reverser(positions="yes"),
        TypeError,
        "positions must be True or False",
    ),
    ("lessons.self_attention.Reverser", lambda: sa.Reverser(d_model=0), ValueError, "d_model must be >= 1"),
    (
        "lessons.self_attention.Reverser",
        lambda: sa.Reverser()(torch.zeros(1, 5)),
        TypeError,
        "tokens must be an integer tensor",
    ),
    (
        "lessons.self_attention.Reverser",
        lambda: sa.Reverser()(torch.zeros(1, 6, dtype=torch.long)),
        ValueError,
        "seq_len=5",
    ),
    (
        "lessons.self_attention.Reverser",
        lambda: sa.Reverser()(torch.zeros(0, 5, dtype=torch.long)),
        ValueError,
        "at least one sequence",
    ),
    (
        "lessons.self_attention.Reverser",
        lambda: sa.Reverser()(torch.full((1, 5), 16)),
        ValueError,
        "tokens must be word ids",
    ),
    (
        "lessons.self_attention.train_reverser",
        lambda: sa.train_reverser("model"),
        TypeError,
        "model must be a Reverser",
    ),
    (
        "lessons.self_attention.train_reverser",
        lambda: sa.train_reverser(sa.Reverser(), steps=0),
        ValueError,
        "steps must be >= 1",
    ),
    (
        "lessons.self_attention.train_reverser",
        lambda: sa.train_reverser(sa.Reverser(), lr=0.0),
        ValueError,
        "lr must be > 0",
    ),
    (
        "lessons.self_attention.train_reverser",
        lambda: sa.train_reverser(sa.Reverser(), seed=-1),
        ValueError,
        "seed must be >= 0",
    ),
    (
        "lessons.self_attention.trained_reverser",
        lambda: sa.trained_reverser("sideways"),
        ValueError,
        "variant must be one of",
    ),
    (
        "lessons.self_attention.trained_reverser",
        lambda: sa.trained_reverser("positions", seed=1.5),
        TypeError,
        "seed must be an int",
    ),
    ("lessons.self_attention.rule_keys", lambda: sa.rule_keys("mirror"), ValueError, "rule must be one of"),
    ("lessons.self_attention.rule_keys", lambda: sa.rule_keys("reverse", 0), ValueError, "seq_len must be >= 1"),
    (
        "lessons.self_attention.largest_weight_share",
        lambda: sa.largest_weight_share(torch.ones(2, 5, 5, dtype=torch.long), torch.arange(5)),
        TypeError,
        "weights must be a floating-point tensor",
    ),
    (
        "lessons.self_attention.largest_weight_share",
        lambda: sa.largest_weight_share(torch.ones(5, 5), torch.arange(5)),
        ValueError,
        "weights must be 3-D",
    ),
    (
        "lessons.self_attention.largest_weight_share",
        lambda: sa.largest_weight_share(torch.ones(2, 5, 5), torch.arange(4)),
        ValueError,
        "keys must name one key",
    ),
    (
        "lessons.self_attention.largest_weight_share",
        lambda: sa.largest_weight_share(torch.ones(2, 5, 5), torch.arange(5.0)),
        TypeError,
        "keys must be an integer",
    ),
    (
        "lessons.self_attention.largest_weight_share",
        lambda: sa.largest_weight_share(torch.ones(2, 5, 5), torch.arange(1, 6)),
        ValueError,
        "keys must lie in",
    ),
    (
        "lessons.self_attention.largest_weight_share",
        lambda: sa.largest_weight_share(torch.ones(0, 5, 5), torch.arange(5)),
        ValueError,
        "at least one query",
    ),
    (
        "lessons.self_attention.reversal_report",
        lambda: sa.reversal_report(None, sa.held_out_set(2)),
        TypeError,
        "model must be a Reverser",
    ),
    (
        "lessons.self_attention.reversal_report",
        lambda: sa.reversal_report(sa.Reverser(), [[0, 1]]),
        TypeError,
        "tokens must be",
    ),
]
COVERED = {name for name, *_ in CASES}


@pytest.mark.parametrize(
    "name, call, error, match", CASES, ids=[f"{c[0].rsplit('.', 1)[1]}-{i}" for i, c in enumerate(CASES)]
)
def test_bad_input_gets_a_clear_error_naming_the_argument(name, call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_every_public_function_has_a_case():
    public = {name for name in sa.__all__ if callable(getattr(sa, name))}  # WORDS, PROBE ...: constants
    assert COVERED == {f"lessons.self_attention.{name}" for name in public}
