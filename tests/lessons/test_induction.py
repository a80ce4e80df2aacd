"""Notebook 10's pieces: repeated-segment data, the attention-only transformer, scores, ablation, training."""

import math

import pytest
import torch
import torch.nn.functional as F

from attention_helpers.lessons.induction import (
    AttentionOnlyTransformer,
    InductionData,
    causal_valid_lens,
    copying_score,
    duplicate_token_score,
    head_scores,
    in_context_accuracy,
    in_context_loss,
    induction_keys,
    induction_score,
    make_induction_data,
    ov_circuit,
    previous_token_score,
    previous_token_weights,
    train_induction,
)
from attention_helpers.masking import masked_softmax


def tiny_model(**kwargs) -> AttentionOnlyTransformer:
    return AttentionOnlyTransformer(vocab_size=8, seq_len=12, d_model=8, num_heads=2, num_layers=2, **kwargs)


# --- data -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seq_len, min_len, max_len", [(24, 4, 10), (8, 2, 4), (5, 2, 2)])
def test_data_repeats_its_segment(seq_len, min_len, max_len):
    data = make_induction_data(64, seq_len, 16, min_len, max_len, seed=1)
    assert data.tokens.shape == (64, seq_len) and data.tokens.dtype == torch.int64
    assert int(data.tokens.min()) >= 0 and int(data.tokens.max()) < 16
    assert min_len <= int(data.lengths.min()) and int(data.lengths.max()) <= max_len
    assert int(data.starts.min()) >= 0 and int((data.starts + 2 * data.lengths).max()) <= seq_len
    for b in range(64):
        s, n = int(data.starts[b]), int(data.lengths[b])
        assert torch.equal(data.tokens[b, s : s + n], data.tokens[b, s + n : s + 2 * n])
        assert data.second_copy[b].nonzero()[:, 0].tolist() == list(range(s + n, s + 2 * n))
        assert data.in_context[b].nonzero()[:, 0].tolist() == list(range(s + n, s + 2 * n - 1))


def test_data_varies_length_and_start_and_is_deterministic():
    data = make_induction_data(512, seed=0)
    assert len(set(data.lengths.tolist())) == 7 and len(set(data.starts.tolist())) > 10
    again = make_induction_data(512, seed=0)
    assert torch.equal(data.tokens, again.tokens) and torch.equal(data.starts, again.starts)
    assert not torch.equal(data.tokens, make_induction_data(512, seed=1).tokens)
    g = torch.Generator().manual_seed(5)
    first, second = make_induction_data(4, generator=g), make_induction_data(4, generator=g)
    assert not torch.equal(first.tokens, second.tokens)  # a generator draws batch after batch


def test_data_indexing_keeps_two_dims():
    data = make_induction_data(6, seed=0)
    assert data[2].tokens.shape == (1, 24) and data[-1].tokens.shape == (1, 24)
    assert len(data[:3]) == 3 and len(data[torch.tensor([0, 5])]) == 2
    assert "6 sequences of 24 tokens out of 32" in repr(data)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(seq_len=10, max_len=6), ValueError, "max_len=6 does not fit"),
        (dict(min_len=1, max_len=4), ValueError, "min_len must be >= 2"),
        (dict(min_len=5, max_len=4), ValueError, "max_len must be >= min_len"),
        (dict(vocab_size=1), ValueError, "vocab_size must be >= 2"),
        (dict(vocab_size=0), ValueError, "vocab_size must be >= 1"),
        (dict(seq_len=-3), ValueError, "seq_len must be >= 1"),
        (dict(seq_len=24.0), TypeError, "seq_len must be an int"),
    ],
)
def test_make_data_rejects_sizes_that_do_not_fit(kwargs, error, words):
    with pytest.raises(error, match=words):
        make_induction_data(4, **kwargs)


def test_make_data_rejects_non_positive_count():
    with pytest.raises(ValueError, match="num must be >= 1"):
        make_induction_data(0)


def test_induction_data_validates_itself():
    good = dict(tokens=torch.tensor([[1, 2, 3, 2, 3]]), starts=torch.tensor([1]), lengths=torch.tensor([2]))
    InductionData(**good, vocab_size=4)
    with pytest.raises(ValueError, match="tokens must lie in 0..vocab_size-1 = 0..2"):
        InductionData(**good, vocab_size=3)
    with pytest.raises(ValueError, match="must repeat"):
        InductionData(torch.tensor([[1, 2, 3, 2, 0]]), good["starts"], good["lengths"], 4)
    with pytest.raises(ValueError, match="do not fit"):
        InductionData(good["tokens"], torch.tensor([2]), good["lengths"], 4)
    with pytest.raises(TypeError, match="tokens must be an integer tensor"):
        InductionData(good["tokens"].float(), good["starts"], good["lengths"], 4)
    with pytest.raises(ValueError, match="starts must have shape \\(1,\\)"):
        InductionData(good["tokens"], torch.tensor([1, 1]), good["lengths"], 4)


# --- model --------------------------------------------------------------------------------------------------------


def test_causal_valid_lens():
    assert causal_valid_lens(2, 3).tolist() == [[1, 2, 3], [1, 2, 3]]
    with pytest.raises(ValueError, match="num_steps must be >= 1"):
        causal_valid_lens(2, 0)


def test_model_shapes_causality_and_determinism():
    model = tiny_model(seed=3)
    tokens = make_induction_data(5, 12, 8, 2, 5, seed=0).tokens
    logits = model(tokens)
    assert logits.shape == (5, 12, 8) and model.weights.shape == (5, 2, 2, 12, 12)
    assert (model.weights.triu(diagonal=1) == 0).all()
    torch.testing.assert_close(model.weights.sum(dim=-1), torch.ones(5, 2, 2, 12))
    changed = tokens.clone()
    changed[:, 7:] = (changed[:, 7:] + 1) % 8
    torch.testing.assert_close(model(changed)[:, :7], logits[:, :7])  # no position sees a later one
    torch.testing.assert_close(tiny_model(seed=3)(tokens), logits)  # same seed, same parameters
    assert not torch.allclose(tiny_model(seed=4)(tokens), logits)
    assert model(tokens[:, :4]).shape == (5, 4, 8)  # shorter sequences are fine


def test_non_causal_model_sees_the_future():
    model = tiny_model(causal=False)
    tokens = make_induction_data(3, 12, 8, 2, 5, seed=0).tokens
    logits = model(tokens)
    changed = tokens.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 8
    assert not torch.allclose(model(changed)[:, 0], logits[:, 0])


def test_layer_matches_a_reference_built_from_pytorch():
    model = tiny_model(seed=1)
    tokens = make_induction_data(2, 12, 8, 2, 5, seed=0).tokens
    with torch.no_grad():
        logits = model(tokens)
        x = model.embed(tokens)  # (N, T, d)
        pos = model.pos(torch.arange(12))  # (T, d)
        for layer in model.layers:
            qk = x + pos
            q = layer.W_q(qk).reshape(2, 12, 2, 4).transpose(1, 2)  # (N, H, T, d/H)
            k = layer.W_k(qk).reshape(2, 12, 2, 4).transpose(1, 2)
            v = layer.W_v(x).reshape(2, 12, 2, 4).transpose(1, 2)
            heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (N, H, T, d/H)
            x = x + layer.W_o(heads.transpose(1, 2).reshape(2, 12, 8))
        torch.testing.assert_close(model.unembed(x), logits)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        (dict(d_model=9), ValueError, "divisible by num_heads"),
        (dict(num_layers=0), ValueError, "num_layers must be >= 1"),
        (dict(vocab_size=-1), ValueError, "vocab_size must be >= 1"),
        (dict(num_heads=2.0), TypeError, "num_heads must be an int"),
    ],
)
def test_model_rejects_bad_sizes(kwargs, error, words):
    with pytest.raises(error, match=words):
        AttentionOnlyTransformer(**kwargs)


def test_model_rejects_bad_tokens():
    model = tiny_model()
    with pytest.raises(ValueError, match=r"tokens must lie in 0..vocab_size-1 = 0..7, got values 0..8"):
        model(torch.tensor([[0, 8]]))
    with pytest.raises(ValueError, match="tokens must lie in"):
        model(torch.tensor([[-1, 3]]))
    with pytest.raises(ValueError, match="1..seq_len=12 positions, got 13"):
        model(torch.zeros(1, 13, dtype=torch.long))
    with pytest.raises(TypeError, match="tokens must be an integer tensor"):
        model(torch.zeros(1, 4))


# --- ablation -----------------------------------------------------------------------------------------------------


def test_ablation_zeroes_exactly_that_heads_output():
    model = tiny_model(seed=2)
    tokens = make_induction_data(3, 12, 8, 2, 5, seed=0).tokens
    layer = model.layers[1]
    seen = []
    hook = layer.attention.register_forward_hook(lambda m, a, out: seen.append(out.clone()))
    with torch.no_grad():
        plain = model(tokens)
        with model.ablate([(1, 0)]):
            ablated = model(tokens)
    hook.remove()
    assert len(seen) == 2 and torch.equal(seen[0], seen[1])  # recorded before the ablation's hook runs
    heads = seen[0].reshape(3, 2, 12, 4)  # what W_o receives, (N*H, T, d/H) -> (N, H, T, d/H)
    # recompute layer 1's contribution with head 0 zeroed and check the ablated logits
    with torch.no_grad():
        x = model.embed(tokens)
        pos = model.pos(torch.arange(12))
        x = x + model.layers[0](x + pos, x + pos, x, causal_valid_lens(3, 12))
        kept = heads.clone()
        kept[:, 0] = 0
        expected = model.unembed(x + layer.W_o(kept.transpose(1, 2).reshape(3, 12, 8)))
    torch.testing.assert_close(ablated, expected)
    assert not torch.allclose(ablated, plain)
    torch.testing.assert_close(model(tokens), plain)  # the hooks are gone after the block


def test_ablating_every_head_leaves_only_the_embedding():
    model = tiny_model(seed=2)
    tokens = make_induction_data(3, 12, 8, 2, 5, seed=0).tokens
    with torch.no_grad(), model.ablate([(layer, head) for layer in range(2) for head in range(2)]):
        logits = model(tokens)
    torch.testing.assert_close(logits, model.unembed(model.embed(tokens)))


@pytest.mark.parametrize("heads", [[(2, 0)], [(0, 2)], [(0,)], [(-1, 0)]])
def test_ablation_rejects_heads_that_do_not_exist(heads):
    with pytest.raises(ValueError, match=r"heads must be \(layer, head\) pairs"), tiny_model().ablate(heads):
        pass


def test_ablation_takes_numpy_ints_and_refuses_floats():
    import numpy as np

    with tiny_model().ablate([(np.int64(0), np.int32(1))]):
        pass
    with pytest.raises(TypeError, match=r"heads must be \(layer, head\) pairs of ints, got \(0.0, 1\)"):
        with tiny_model().ablate([(0.0, 1)]):
            pass


# --- scores -------------------------------------------------------------------------------------------------------


def _pattern(T: int, key_of) -> torch.Tensor:
    weights = torch.zeros(T, T)
    for p in range(T):
        weights[p, key_of(p)] = 1.0
    return weights


def test_scores_on_hand_made_patterns():
    data = InductionData(torch.tensor([[7, 1, 2, 3, 1, 2, 3, 5]]), torch.tensor([1]), torch.tensor([3]), 8)
    T, n = 8, 3
    second = lambda p: 4 <= p < 7
    previous = _pattern(T, lambda p: max(p - 1, 0))[None]  # (1, T, T)
    induction = _pattern(T, lambda p: p - n + 1 if second(p) else p)[None]
    duplicate = _pattern(T, lambda p: p - n if second(p) else p)[None]
    assert previous_token_score(previous).item() == 1.0
    assert induction_score(induction, data).item() == 1.0
    assert duplicate_token_score(duplicate, data).item() == 1.0
    assert induction_score(previous, data).item() == 0.0 and induction_score(duplicate, data).item() == 0.0
    assert previous_token_score(induction).item() == pytest.approx(0.0)
    uniform = masked_softmax(torch.zeros(1, T, T), causal_valid_lens(1, T))  # (1, T, T)
    expected = sum(1 / (p + 1) for p in range(4, 7)) / 3  # key p - n + 1 among p + 1 equal keys
    assert induction_score(uniform, data).item() == pytest.approx(expected)
    assert previous_token_score(uniform).item() == pytest.approx(sum(1 / (p + 1) for p in range(1, T)) / (T - 1))


def test_scores_keep_leading_dimensions():
    data = make_induction_data(5, 12, 8, 2, 5, seed=0)
    model = tiny_model()
    model(data.tokens)
    weights = model.weights.permute(1, 2, 0, 3, 4)  # (L, H, N, T, T)
    scores = induction_score(weights, data)
    assert scores.shape == (2, 2)
    torch.testing.assert_close(scores[1, 0], induction_score(weights[1, 0], data))
    assert previous_token_score(weights).shape == (2, 2, 5)


def test_scores_reject_bad_input():
    data = make_induction_data(2, 12, 8, 2, 5, seed=0)
    with pytest.raises(ValueError, match="must match data.tokens"):
        induction_score(torch.rand(3, 12, 12), data)
    with pytest.raises(ValueError, match=r"shape \(..., T, T\)"):
        previous_token_score(torch.rand(4, 5))
    with pytest.raises(TypeError, match="weights must be a floating-point tensor"):
        previous_token_score(torch.ones(4, 4, dtype=torch.long))
    with pytest.raises(TypeError, match="data must be InductionData"):
        induction_score(torch.rand(2, 12, 12), data.tokens)


def test_in_context_loss_and_accuracy():
    data = make_induction_data(4, 12, 8, 2, 5, seed=0)
    perfect = F.one_hot(data.tokens.roll(-1, dims=1), 8).float() * 50  # (N, T, V): predicts every next token
    assert in_context_accuracy(perfect, data) == 1.0
    assert in_context_loss(perfect, data).item() < 1e-6
    flat = torch.zeros(4, 12, 8)
    assert in_context_loss(flat, data).item() == pytest.approx(math.log(8))
    with pytest.raises(ValueError, match="logits must have shape"):
        in_context_accuracy(torch.zeros(4, 11, 8), data)


# --- training -----------------------------------------------------------------------------------------------------


def test_training_records_and_is_bit_reproducible():
    test = make_induction_data(16, 12, 8, 2, 5, seed=1)
    runs = []
    for _ in range(2):
        model = tiny_model(seed=0)
        runs.append(train_induction(model, test, steps=6, record_every=3, min_len=2, max_len=5, seed=0))
    a, b = runs
    assert a.steps == [0, 3, 6] and a.weights.shape == (3, 1, 2, 2, 12, 12)
    assert a.loss == b.loss and a.accuracy == b.accuracy
    assert torch.equal(a.weights, b.weights)
    previous, induction = a.scores
    assert previous.shape == induction.shape == (3, 2, 2)
    assert a.loss[-1] < a.loss[0]  # six Adam steps already lower the loss
    assert a.at(4) is a.snapshots[1] and a.steps_to(0.0) == 0
    reached = a.steps_to(max(a.accuracy))
    assert reached == a.steps[a.accuracy.index(max(a.accuracy))]
    with pytest.raises(ValueError, match="accuracy must be <= 1"):
        a.steps_to(2.0)
    assert torch.get_num_threads() >= 1


def test_training_rejects_bad_input():
    test = make_induction_data(4, 12, 8, 2, 5, seed=1)
    model = tiny_model()
    with pytest.raises(TypeError, match="model must be an AttentionOnlyTransformer"):
        train_induction(torch.nn.Linear(2, 2), test)
    with pytest.raises(ValueError, match="test must be over the model's 8 tokens"):
        train_induction(model, make_induction_data(4, 12, 16, 2, 5))
    with pytest.raises(ValueError, match="steps must be >= 1"):
        train_induction(model, test, steps=0, min_len=2, max_len=5)
    with pytest.raises(ValueError, match="max_len=10 does not fit"):
        train_induction(model, test, steps=1, min_len=2, max_len=10)
    with pytest.raises(ValueError, match="lr must be > 0"):
        train_induction(model, test, steps=1, lr=0.0, min_len=2, max_len=5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_scores_in_half_precision_and_inputs_untouched(dtype):
    data = make_induction_data(8, 12, 8, 2, 5, seed=0)
    weights = masked_softmax(
        torch.randn(8, 12, 12, generator=torch.Generator().manual_seed(0)), causal_valid_lens(8, 12)
    )
    low = weights.to(dtype)
    before = low.clone()
    for score in (lambda w: induction_score(w, data), lambda w: duplicate_token_score(w, data), previous_token_score):
        got = score(low)
        assert got.dtype == dtype and torch.isfinite(got.float()).all()
        torch.testing.assert_close(got.float(), score(weights), atol=1e-2, rtol=1e-2)
    assert torch.equal(low, before)


# --- the measures behind notebook 10's interpretations: each rejects a plausible wrong story ------------------------


def looks_like_notebook_10s_previous_token_head(per_position: torch.Tensor) -> bool:
    """Notebook 10's claim about layer 0 head 0, per position p = 1..23: >= 0.99 on p - 1 up to p = 15, <= 0.1 after 16."""
    return bool((per_position[:15] >= 0.99).all() and (per_position[16:] <= 0.1).all())


def test_previous_token_weights_per_position_reject_wrong_stories():
    T = 24
    uniform = masked_softmax(torch.zeros(1, T, T), causal_valid_lens(1, T))[0]  # (T, T): every earlier key alike
    two_back = _pattern(T, lambda p: max(p - 2, 0))  # looks at p - 2
    everywhere = _pattern(T, lambda p: max(p - 1, 0))  # a previous-token head at every position
    up_to_16 = _pattern(T, lambda p: max(p - 1, 0) if p <= 16 else p)  # one up to p = 16, then looks at itself
    torch.testing.assert_close(previous_token_weights(uniform), 1 / torch.arange(2.0, T + 1))  # 1 / (p + 1)
    assert previous_token_weights(two_back)[1:].sum() == 0 and previous_token_weights(everywhere).min() == 1
    assert looks_like_notebook_10s_previous_token_head(previous_token_weights(up_to_16))
    for wrong in (uniform, two_back, everywhere):  # the claim fails for each wrong story
        assert not looks_like_notebook_10s_previous_token_head(previous_token_weights(wrong))
    weights = torch.softmax(torch.randn(3, 2, T, T), -1)
    torch.testing.assert_close(previous_token_weights(weights).mean(-1), previous_token_score(weights))
    out = previous_token_weights(weights)
    out.zero_()  # a new tensor, not a view: the caller's weights are untouched
    assert previous_token_score(weights).min() > 0


def test_ov_circuit_is_what_the_head_adds_to_the_logits():
    model = tiny_model(seed=3)
    tokens = torch.arange(8)[:, None]  # (V, 1): every token alone, so each head puts weight 1 on it
    others = [(layer, head) for layer in range(2) for head in range(2)]
    for layer, head in others:
        with torch.no_grad(), model.ablate([h for h in others if h != (layer, head)]):
            alone = model(tokens)[:, 0]  # (V, V)
        with torch.no_grad(), model.ablate(others):
            none = model(tokens)[:, 0]  # the embedding and the read-out only
        torch.testing.assert_close(ov_circuit(model, layer, head), alone - none)


def test_copying_score_rejects_heads_that_do_not_copy():
    V = 8
    assert copying_score(torch.eye(V)).item() == 1.0
    assert copying_score(torch.eye(V).roll(1, dims=1)).item() == 0.0  # maps each token to the next one
    assert copying_score(-torch.eye(V)).item() == 0.0  # lowers the token it attends to
    scores = [copying_score(torch.randn(32, 32, generator=torch.Generator().manual_seed(s))).item() for s in range(20)]
    assert sum(scores) / len(scores) < 0.15  # random heads: about 1/32
    with pytest.raises(ValueError, match=r"ov must have shape \(V, V\)"):
        copying_score(torch.zeros(3, 4))
    with pytest.raises(ValueError, match=r"layer < 2 and head < 2"):
        ov_circuit(tiny_model(), 2, 0)


def test_head_scores_show_an_ablation_only_where_the_heads_depend_on_it():
    data = make_induction_data(8, 12, 8, 2, 5, seed=0)
    model = tiny_model(seed=1)
    previous, induction = head_scores(model, data)
    with torch.no_grad():
        model(data.tokens)
    w = model.weights.permute(1, 2, 0, 3, 4)  # (L, H, N, T, T)
    torch.testing.assert_close(previous, previous_token_score(w).mean(-1))
    torch.testing.assert_close(induction, induction_score(w, data))
    # Switching off a layer-0 head changes layer 1's pattern: layer 1 reads what layer 0 wrote...
    assert not torch.equal(head_scores(model, data, [(0, 0)])[1][1], induction[1])
    # ...but a wrong story, "any ablation lowers the scores", fails where layer 1 cannot read layer 0:
    with torch.no_grad():
        model.layers[0].W_o.weight[:, :4] = 0.0  # layer 0 head 0 writes nothing
    _, before = head_scores(model, data)
    _, after = head_scores(model, data, [(0, 0)])
    torch.testing.assert_close(after, before, rtol=0, atol=0)


def test_induction_keys_and_the_split_that_tells_a_late_key_from_a_late_query():
    data = InductionData(torch.tensor([[7, 1, 2, 3, 1, 2, 3, 5]]), torch.tensor([1]), torch.tensor([3]), 8)
    assert induction_keys(data).tolist() == [[-1, -1, -1, -1, 2, 3, 4, -1]]  # p - n + 1 in the second copy
    test = make_induction_data(256, seed=1234)
    keys = induction_keys(test)[:, :-1]  # (N, T-1): the key each position predicting p + 1 must read
    in_ctx = test.in_context[:, :-1]
    late_key, early_key = in_ctx & (keys >= 17), in_ctx & (keys <= 16)
    late_query = torch.zeros_like(in_ctx)
    late_query[:, 20:] = True  # the query positions where a key at 17 or later occurs
    assert late_key.any() and (late_key & ~late_query).sum() == 0

    def notebook_claim(right: torch.Tensor) -> bool:  # notebook 10: late keys fail, early keys at late queries do not
        return bool(right[late_key].float().mean() < 0.15 and right[early_key & late_query].float().mean() > 0.8)

    right_story = ~late_key  # wrong exactly where the previous-token head is missing at the key
    wrong_story = ~late_query  # wrong at the last query positions, whatever the key
    assert notebook_claim(right_story) and not notebook_claim(wrong_story)


def test_committed_model_is_the_one_its_record_describes():
    import json

    from attention_helpers.lessons import induction

    record = json.loads((induction._DATA_DIR / "induction_seed0.json").read_text())
    assert record["command"] == induction._TRAINED_COMMAND
    model = induction.trained_model(0)
    test = induction.make_induction_data(256, seed=1234)
    with torch.no_grad():
        accuracy = induction.in_context_accuracy(model(test.tokens), test)
    assert abs(accuracy - record["test_accuracy"]) < 1e-4
    assert (induction._DATA_DIR / "induction_seed0.pt").stat().st_size <= 500_000
