"""Notebook 5's trained self-attention layer (attention_helpers.lessons.self_attention): words and sequences, the
reversing model built on the series' layers, its training, the rule measure (which fails for wrong stories), and
the committed weights."""

import json

import pytest
import torch

from attention_helpers.layers import MultiHeadAttention
from attention_helpers.lessons import self_attention as sa
from attention_helpers.lessons import self_attention_claims  # noqa: F401  (registers the claims)
from attention_helpers.lessons.claims import CLAIMS
from attention_helpers.masking import masked_softmax
from attention_helpers.transformer import positional_encoding

# --- words and sequences -----------------------------------------------------------------------------------------


def test_encode_and_decode_are_inverse():
    ids = sa.encode(sa.PROBE)
    assert ids.dtype == torch.int64 and ids.shape == (5,)
    assert sa.decode(ids) == sa.PROBE.split() == sa.decode(sa.encode(sa.PROBE.split()))
    assert len(set(sa.WORDS)) == len(sa.WORDS) == 16


def test_sequences_are_seeded_and_the_held_out_set_starts_with_the_probe():
    a, b = sa.make_sequences(8, seed=3), sa.make_sequences(8, seed=3)
    assert torch.equal(a, b) and a.shape == (8, 5) and int(a.min()) >= 0 and int(a.max()) < 16
    assert not torch.equal(a, sa.make_sequences(8, seed=4))
    held_out = sa.held_out_set()
    assert held_out.shape == (1000, 5) and sa.decode(held_out[0]) == sa.PROBE.split()
    assert torch.equal(sa.held_out_set(10), held_out[:10])
    assert len({tuple(row) for row in held_out.tolist()}) > 990  # nearly all distinct: 16^5 sequences to draw from


# --- the model ------------------------------------------------------------------------------------------------------


def test_the_model_is_the_series_layer_called_on_one_sequence():
    model = sa.Reverser(seed=1).eval()
    tokens = sa.make_sequences(3, seed=0)
    logits = model(tokens)
    assert logits.shape == (3, 5, 16) and model.weights.shape == (3, 5, 5)
    assert isinstance(model.attention, MultiHeadAttention)
    x = model.embed(tokens) + positional_encoding(5, 16)  # (N, T, d)
    layer = model.attention
    torch.testing.assert_close(model.readout(layer(x, x, x)), logits)  # queries = keys = values = the sequence
    q, k = layer.W_q(x), layer.W_k(x)  # one head: (N, T, d)
    torch.testing.assert_close(model.weights, torch.softmax(q @ k.transpose(1, 2) / 16**0.5, -1))


def test_without_positions_permuting_the_words_permutes_the_outputs_and_the_causal_mask_hides_the_future():
    plain = sa.Reverser(positions=False, seed=2).eval()
    tokens = sa.make_sequences(4, seed=1)
    perm = torch.tensor([3, 0, 4, 1, 2])
    torch.testing.assert_close(plain(tokens[:, perm]), plain(tokens)[:, perm])  # 5.4: order-blind
    positional = sa.Reverser(seed=2).eval()
    assert not torch.allclose(positional(tokens[:, perm]), positional(tokens)[:, perm])
    causal = sa.Reverser(causal=True, seed=2).eval()
    causal(tokens)
    assert (causal.weights.triu(1) == 0).all()
    x = causal.embed(tokens) + positional_encoding(5, 16)
    q, k = causal.attention.W_q(x), causal.attention.W_k(x)
    expected = masked_softmax(q @ k.transpose(1, 2) / 4, torch.arange(1, 6).expand(4, 5))
    torch.testing.assert_close(causal.weights, expected)


def test_parameters_come_from_the_seed_alone():
    torch.manual_seed(123)
    a = sa.Reverser(seed=5)
    torch.manual_seed(456)
    b = sa.Reverser(seed=5)
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


# --- training -------------------------------------------------------------------------------------------------------


def test_training_is_reproducible_lowers_the_loss_and_never_sees_the_held_out_set(monkeypatch):
    runs = []
    for _ in range(2):
        model = sa.Reverser(seed=0)
        runs.append((model, sa.train_reverser(model, steps=20, seed=0)))
    (a, log_a), (b, log_b) = runs
    assert (
        isinstance(log_a, sa.ReverserLog)
        and log_a.losses == log_b.losses
        and len(log_a.losses) == 20
        and log_a.cpu_seconds >= 0
    )
    assert all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))
    assert log_a.losses[-1] < log_a.losses[0] and not a.training
    first_batch = torch.randint(0, 16, (8, 5), generator=torch.Generator().manual_seed(0))  # step 1's batch
    monkeypatch.setattr(sa, "held_out_set", lambda: first_batch)  # as if all of it were held out
    log = sa.train_reverser(sa.Reverser(seed=0), steps=1, batch_size=8, seed=0)
    assert log.losses[0] != log.losses[0]  # NaN: the mean over no rows; no held-out row is trained on


# --- the rule measure: the right story passes, the wrong ones fail ---------------------------------------------------


def pattern(keys: torch.Tensor, n: int = 7, sharp: float = 0.6) -> torch.Tensor:
    """Weights (n, 5, 5) whose rows put `sharp` on the given key and spread the rest evenly."""
    rows = torch.full((5, 5), (1 - sharp) / 4)
    rows[torch.arange(5), keys.clamp(min=0)] = sharp
    return rows.expand(n, 5, 5).clone()


def test_rule_keys():
    assert sa.rule_keys("reverse").tolist() == [4, 3, 2, 1, 0]
    assert sa.rule_keys("itself").tolist() == [0, 1, 2, 3, 4]
    assert sa.rule_keys("previous", 3).tolist() == [-1, 0, 1]


def test_the_reversal_rule_holds_only_for_the_anti_diagonal():
    reverse, itself = sa.rule_keys("reverse"), sa.rule_keys("itself")
    anti = pattern(reverse)
    assert sa.largest_weight_share(anti, reverse) == 1.0
    assert sa.largest_weight_share(anti, itself) == pytest.approx(0.2)  # the middle word is its own mirror
    # wrong stories fail the claim's check (>= 0.99): a head that looks at itself, one at the previous word, a flat one
    for keys in (itself, sa.rule_keys("previous")):
        assert sa.largest_weight_share(pattern(keys), reverse) < 0.2 + 1e-6 < 0.99
    flat = torch.full((7, 5, 5), 0.2)
    assert sa.largest_weight_share(flat, reverse) == pytest.approx(0.2)  # argmax of a tie: the first key
    previous = sa.rule_keys("previous")
    assert sa.largest_weight_share(pattern(previous), previous) == pytest.approx(0.8)  # query 0 has no previous key


def test_report_of_an_untrained_model_is_far_from_the_rule():
    report = sa.reversal_report(sa.Reverser(seed=0), sa.held_out_set())
    assert set(report) == {
        "accuracy", "accuracy_by_position", "reverse_share", "itself_share", "previous_share", "weight_on_reverse",
        "largest_weight", "most_frequent_share",
    }  # fmt: skip
    assert report["accuracy"] < 0.2 and report["reverse_share"] < 0.5


def test_the_bet_on_the_most_frequent_word_tells_a_position_blind_layer_from_wrong_stories():
    """5.5's why-30 %: a layer blind to positions bets on its sentence's most frequent word. The measure gives 1.0 to
    that bet, and far less to the wrong stories: copying its own word, writing the right (reversed) word, writing one
    word of the sentence (the first) everywhere, or a fixed word; the claim's check (>= 0.95) passes only the bet."""
    tokens = sa.held_out_set()  # (N, T)
    counts = torch.nn.functional.one_hot(tokens, 16).sum(1)  # (N, V)
    bet = counts.argmax(-1, keepdim=True).expand_as(tokens)  # (N, T): the most frequent word at every output
    (claimed,) = [c for c in CLAIMS if c.family == "self_attention" and "most frequent" in c.words]
    assert sa._most_frequent_share(tokens, bet) == 1.0 and claimed.holds(1.0)
    wrong = {
        "copies itself": tokens,
        "writes the right word": tokens.flip(1),
        "the first word everywhere": tokens[:, :1].expand_as(tokens),
        "one fixed word": torch.zeros_like(tokens),
    }
    for story, written in wrong.items():
        share = sa._most_frequent_share(tokens, written)
        assert share < 0.7 and not claimed.holds(share), story
    # why the bet gets about 30 %: it is right on count / 5 of a sentence's outputs, 1 in 5 when the words differ
    right = (bet == tokens.flip(1)).float().mean().item()
    assert right == pytest.approx((counts.max(-1).values / 5).float().mean().item()) and round(right, 3) == 0.308
    # and no rule that sees only a word and its sentence's words (not where they sit) can expect more: over every
    # sequence of 5 words from a 3-word vocabulary, the best such rule is right exactly as often as the bet
    every = torch.cartesian_prod(*[torch.arange(3)] * 5)  # (243, 5)
    bags = torch.nn.functional.one_hot(every, 3).sum(1)  # (243, 3)
    tally: dict[tuple, dict[int, int]] = {}
    for seq, bag in zip(every.tolist(), bags.tolist(), strict=True):
        for i, word in enumerate(seq):
            targets = tally.setdefault((word, *bag), {})
            targets[seq[4 - i]] = targets.get(seq[4 - i], 0) + 1
    best = sum(max(t.values()) for t in tally.values()) / every.numel()
    assert best == pytest.approx((bags.max(-1).values / 5).float().mean().item())


# --- the committed weights ------------------------------------------------------------------------------------------


def test_committed_models_are_the_ones_their_record_describes():
    record = json.loads((sa._DATA_DIR / "self_attention_seed0.json").read_text())
    assert record["command"] == sa._TRAINED_COMMAND and record["steps"] == sa._STEPS
    held_out = sa.held_out_set()
    for variant in sa.VARIANTS:
        model = sa.trained_reverser(variant)
        assert model.positions == (variant != "no positions") and model.causal == (variant == "causal")
        accuracy = sa.reversal_report(model, held_out)["accuracy"]
        assert abs(accuracy - record["held_out_accuracy"][variant]) < 1e-4
    assert (sa._DATA_DIR / "self_attention_seed0.pt").stat().st_size <= 500_000
