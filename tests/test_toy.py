"""The reversal task: data, the right alignment, the metrics, the model, Adam and the recorded training run."""

import time

import pytest
import torch
import torch.nn.functional as F

from attention_helpers.toy import (
    IGNORE,
    PAD,
    Adam,
    ReversalData,
    Reverser,
    TrainingLog,
    alignment_accuracy,
    alignment_mass,
    make_reversal_data,
    reversal_alignment,
    reverse_targets,
    train_reverser,
)


def padded(N: int, T: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    lens = torch.randint(1, T + 1, (N,), generator=g)
    digits = torch.randint(0, 10, (N, T), generator=g)
    return torch.where(torch.arange(T) < lens[:, None], digits, PAD), lens


# ---------------------------------------------------------------- reverse_targets, reversal_alignment


def test_reverse_targets_example():
    src = torch.tensor([[3, 1, 4, PAD, PAD], [1, 2, 3, 4, 5]])
    assert reverse_targets(src, torch.tensor([3, 5])).tolist() == [[4, 1, 3, IGNORE, IGNORE], [5, 4, 3, 2, 1]]


@pytest.mark.parametrize(("N", "T", "seed"), [(1, 1, 0), (3, 4, 1), (8, 6, 2), (5, 9, 3)])
def test_reverse_targets_matches_python_and_leaves_input_alone(N, T, seed):
    src, lens = padded(N, T, seed)
    before = src.clone(), lens.clone()
    got = reverse_targets(src, lens)
    expected = [
        [row[n - 1 - i] if i < n else IGNORE for i in range(T)]
        for row, n in zip(src.tolist(), lens.tolist(), strict=True)
    ]
    assert got.tolist() == expected
    assert got.dtype == torch.int64
    assert torch.equal(src, before[0]) and torch.equal(lens, before[1])


@pytest.mark.parametrize(
    ("src", "lens", "error", "match"),
    [
        (torch.ones(2, 3), torch.tensor([1, 2]), TypeError, "src"),
        (torch.ones(3, dtype=torch.long), torch.tensor([1]), ValueError, "src must be 2-D"),
        (torch.ones(2, 3, dtype=torch.long), torch.tensor([1, 4]), ValueError, "valid_lens"),
        (torch.ones(2, 3, dtype=torch.long), [1, 2], TypeError, "valid_lens"),
    ],
)
def test_reverse_targets_bad_input(src, lens, error, match):
    with pytest.raises(error, match=match):
        reverse_targets(src, lens)


@pytest.mark.parametrize("T", [1, 2, 6])
def test_reversal_alignment_full_length_is_the_anti_diagonal(T):
    assert torch.equal(reversal_alignment(torch.tensor([T]), T)[0], torch.eye(T).flip(1))


@pytest.mark.parametrize(("N", "T", "seed"), [(4, 6, 0), (7, 3, 1)])
def test_reversal_alignment_points_where_the_targets_come_from(N, T, seed):
    src, lens = padded(N, T, seed)
    right = reversal_alignment(lens, T)  # (N, T, T)
    real = torch.arange(T) < lens[:, None]  # (N, T)
    assert torch.equal(right.sum(dim=-1), real.float())  # one 1 per real step, padding rows all 0
    copied = (right * src[:, None, :]).sum(dim=-1).long()  # the digit each real step points at
    assert torch.equal(torch.where(real, copied, IGNORE), reverse_targets(src, lens))
    assert (right[:, :, :][~real[:, None, :].expand(N, T, T)] == 0).all()  # no weight on padding inputs


@pytest.mark.parametrize(
    ("lens", "T", "match"), [(torch.tensor([2]), 0, "num_steps"), (torch.tensor([[2]]), 3, "valid_lens")]
)
def test_reversal_alignment_bad_input(lens, T, match):
    with pytest.raises(ValueError, match=match):
        reversal_alignment(lens, T)


# ---------------------------------------------------------------- alignment_mass, alignment_accuracy


def test_metrics_on_the_right_weights_and_on_uniform_ones():
    lens = torch.tensor([6, 3, 1])
    right = reversal_alignment(lens, 6)
    assert alignment_mass(right, lens) == 1.0 and alignment_accuracy(right, lens) == 1.0
    uniform = F.one_hot(torch.zeros(3, 6, dtype=torch.long), 6).float() * 0 + 1 / 6
    assert alignment_mass(uniform, torch.tensor([6, 6, 6])) == pytest.approx(1 / 6)


@pytest.mark.parametrize(("N", "T", "seed"), [(1, 1, 0), (4, 5, 1), (9, 6, 2)])
def test_metrics_match_a_python_loop(N, T, seed):
    _, lens = padded(N, T, seed)
    weights = torch.softmax(torch.randn(N, T, T, generator=torch.Generator().manual_seed(seed)) * 3, dim=-1)
    on_target = [weights[b, i, n - 1 - i].item() for b, n in enumerate(lens.tolist()) for i in range(n)]
    hits = [int(weights[b, i].argmax()) == n - 1 - i for b, n in enumerate(lens.tolist()) for i in range(n)]
    before = weights.clone()
    assert alignment_mass(weights, lens) == pytest.approx(sum(on_target) / len(on_target), rel=1e-6)
    assert alignment_accuracy(weights, lens) == pytest.approx(sum(hits) / len(hits))
    assert torch.equal(weights, before)


@pytest.mark.parametrize(
    ("weights", "lens", "error", "match"),
    [
        (torch.ones(2, 3, 4), torch.tensor([1, 2]), ValueError, "square"),
        (torch.ones(2, 3), torch.tensor([1, 2]), ValueError, "weights must be 3-D"),
        (torch.ones(2, 3, 3, dtype=torch.long), torch.tensor([1, 2]), TypeError, "weights"),
        (torch.ones(2, 3, 3), torch.tensor([0, 2]), ValueError, "valid_lens must be >= 1"),
        (torch.ones(2, 3, 3), torch.tensor([1, 2, 3]), ValueError, "valid_lens"),
    ],
)
def test_metrics_bad_input(weights, lens, error, match):
    for metric in (alignment_mass, alignment_accuracy):
        with pytest.raises(error, match=match):
            metric(weights, lens)


# ---------------------------------------------------------------- make_reversal_data, ReversalData


@pytest.mark.parametrize(("seq_len", "min_len"), [(6, None), (6, 3), (4, 1)])
def test_make_reversal_data(seq_len, min_len):
    train, test = make_reversal_data(300, 50, seq_len=seq_len, min_len=min_len, seed=5)
    assert len(train) == 300 and len(test) == 50
    rows = [tuple(r) for r in torch.cat([train.src, test.src]).tolist()]
    assert len(set(rows)) == len(rows)  # distinct, so train and test share nothing
    for data in (train, test):
        low = seq_len if min_len is None else min_len
        assert ((data.valid_lens >= low) & (data.valid_lens <= seq_len)).all()
        assert torch.equal(data.valid_lens, (data.src != PAD).sum(dim=1))
        assert torch.equal(data.tgt, reverse_targets(data.src, data.valid_lens))
    again, _ = make_reversal_data(300, 50, seq_len=seq_len, min_len=min_len, seed=5)
    assert torch.equal(again.src, train.src)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(num_train=0, num_test=5), "num_train"),
        (dict(num_train=5, num_test=5, seq_len=0), "seq_len"),
        (dict(num_train=5, num_test=5, seq_len=3, min_len=4), "min_len"),
        (dict(num_train=60, num_test=5, seq_len=2, min_len=2), "too many"),
    ],
)
def test_make_reversal_data_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_reversal_data(**kwargs)


def test_reversal_data_subsets_and_text():
    src = torch.tensor([[3, 1, 4, PAD], [2, 7, 1, 8]])
    lens = torch.tensor([3, 4])
    data = ReversalData(src, reverse_targets(src, lens), lens)
    assert data.digits(0) == "3 1 4" and data.digits(1) == "2 7 1 8"
    assert torch.equal(data[1:].src, src[1:]) and len(data[torch.tensor([1, 0])]) == 2
    assert repr(data) == "ReversalData(2 sequences of length 4, valid lengths [3, 4])"


# ---------------------------------------------------------------- Reverser


@pytest.mark.parametrize("attention", ["dot", "additive"])
def test_reverser_shapes_and_padding(attention):
    src, lens = padded(5, 6, 0)
    model = Reverser(attention, seq_len=6, num_hiddens=8, seed=1).eval()
    with torch.no_grad():
        logits = model(src, lens)
    weights = model.attention_weights
    assert logits.shape == (5, 6, 10) and weights.shape == (5, 6, 6)
    padding = torch.arange(6) >= lens[:, None]  # (N, T)
    assert (weights.masked_select(padding[:, None, :]) == 0).all() and (weights[padding] == 0).all()
    assert ((weights.sum(dim=-1) - (~padding).float()).abs() < 1e-6).all()  # real rows sum to 1
    other = torch.where(padding, (src + 3) % 10, src)  # different digits in the padding
    with torch.no_grad():
        assert torch.equal(model(other, lens), logits)


def test_reverser_seeded_and_leaves_the_global_generator_alone():
    state = torch.random.get_rng_state()
    a, b = Reverser("dot", seed=3), Reverser("dot", seed=3)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(Reverser("dot", seed=4).embed.weight, a.embed.weight)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [(dict(attention="cosine"), "attention"), (dict(seq_len=0), "seq_len"), (dict(num_hiddens=-1), "num_hiddens")],
)
def test_reverser_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Reverser(**kwargs)


def test_reverser_bad_input():
    model = Reverser(seq_len=4)
    with pytest.raises(ValueError, match="src"):
        model(torch.zeros(2, 5, dtype=torch.long), torch.tensor([1, 2]))
    with pytest.raises(ValueError, match="valid_lens"):
        model(torch.zeros(2, 4, dtype=torch.long), torch.tensor([1, 5]))


# ---------------------------------------------------------------- Adam


@pytest.mark.parametrize(
    "settings", [{}, dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6)], ids=["defaults", "other lr, betas, eps"]
)
def test_adam_matches_torch_optim_adam(settings):
    # toy.Adam exists only to spare the notebooks torch.optim's first-use import (see its docstring): it must take
    # the very steps that the public torch.optim.Adam takes, from the same start on the same losses.
    g = torch.Generator().manual_seed(0)
    start = [torch.randn(4, 3, generator=g), torch.randn(3, generator=g)]  # a weight and a bias
    ours = [p.clone().requires_grad_() for p in start]
    theirs = [p.clone().requires_grad_() for p in start]
    frozen = torch.ones(2, requires_grad=False)  # skipped by both
    ours_opt = Adam([*ours, frozen], **settings)
    theirs_opt = torch.optim.Adam(theirs, **settings)
    x = torch.randn(5, 4, generator=g)
    for _ in range(25):
        for params, opt in ((ours, ours_opt), (theirs, theirs_opt)):
            opt.zero_grad()
            ((x @ params[0] + params[1]).sin().sum() + (params[1] ** 2).sum()).backward()
            opt.step()
    for a, b in zip(ours, theirs, strict=True):
        torch.testing.assert_close(a.detach(), b.detach(), rtol=0, atol=1e-6)
    assert not torch.equal(ours[0].detach(), start[0])  # it moved: the comparison is not of two untouched tensors


# ---------------------------------------------------------------- train_reverser


@pytest.fixture(scope="module")
def data():
    return make_reversal_data(512, 128, seq_len=5, seed=0)


def test_training_learns_and_is_reproducible(data):
    train, test = data
    threads = torch.get_num_threads()
    logs = [train_reverser(Reverser("dot", seq_len=5, seed=0), train, test, steps=80, record_every=8) for _ in range(2)]
    assert torch.get_num_threads() == threads
    log = logs[0]
    assert isinstance(log, TrainingLog) and log.name == "dot"
    assert log.steps == list(range(0, 81, 8))
    assert len(log.test_loss) == len(log.test_accuracy) == len(log.alignment) == len(log.steps)
    assert log.weights.shape == (len(log.steps), 3, 5, 5)  # three probe sequences by default
    assert log.test_accuracy[-1] > 0.99 and log.alignment[-1] > 0.8 and log.alignment[0] < 0.3
    assert log.steps_to(0.99) is not None
    with pytest.raises(ValueError, match="accuracy must be <= 1"):
        log.steps_to(1.5)
    assert torch.equal(log.at(80), log.snapshots[-1])
    assert logs[1].test_loss == log.test_loss and torch.equal(logs[1].weights, log.weights)  # bit for bit


def test_training_records_the_last_step_and_a_given_probe(data):
    train, test = data
    before = time.perf_counter()
    log = train_reverser(Reverser("additive", seq_len=5), train, test, steps=5, record_every=4, probe=test[:2])
    took = time.perf_counter() - before
    assert log.steps == [0, 4, 5] and log.weights.shape == (3, 2, 5, 5)
    assert 0 < log.seconds <= took  # the training's own wall-clock time, measured inside the call
    assert torch.equal(log.at(3), log.snapshots[0]) and torch.equal(log.at(99), log.snapshots[2])
    with pytest.raises(ValueError, match="step"):
        log.at(-1)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        (dict(steps=0), ValueError, "steps"),
        (dict(batch_size=0), ValueError, "batch_size"),
        (dict(record_every=0), ValueError, "record_every"),
        (dict(lr=0.0), ValueError, "lr"),
    ],
)
def test_training_bad_arguments(data, kwargs, error, match):
    train, test = data
    with pytest.raises(error, match=match):
        train_reverser(Reverser(seq_len=5), train, test, **kwargs)


def test_training_bad_data(data):
    train, test = data
    with pytest.raises(TypeError, match="model"):
        train_reverser(torch.nn.Linear(2, 2), train, test)
    with pytest.raises(ValueError, match="train must hold sequences of length seq_len=6"):
        train_reverser(Reverser(seq_len=6), train, test)


# ---------------------------------------------------------------- the exercises' checks


def not_attempted(*args):
    raise NotImplementedError


def test_check_6_1():
    from attention_helpers.checks import check_6_1

    assert check_6_1(not_attempted).message.startswith("⏳")
    assert check_6_1(reverse_targets) and "✅" in repr(check_6_1(reverse_targets))
    wrong = check_6_1(lambda src, lens: src.flip(1))  # ignores the lengths
    assert not wrong and wrong.message.startswith("❌ Exercise 6.1: wrong value")


def test_check_6_2_and_6_3():
    from attention_helpers.checks import check_6_2, check_6_3

    assert check_6_2(lambda w, lens: torch.tensor(alignment_accuracy(w, lens)))
    assert not check_6_2(lambda w, lens: torch.tensor(alignment_mass(w, lens)))

    def entropy(weights, lens):
        real = torch.arange(weights.shape[1]) < lens[:, None]
        return -torch.special.xlogy(weights, weights).sum(-1)[real].mean()

    assert check_6_3(entropy)
    padding_rows_too = check_6_3(lambda w, lens: -torch.special.xlogy(w, w).sum(-1).mean())
    assert not padding_rows_too and padding_rows_too.message.startswith("❌")
    assert check_6_3(not_attempted).message.startswith("⏳")
