"""Notebook 6's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import torch

from attention_helpers.checks import check_6_1, check_6_2, check_6_3


def targets(src, lens, fill=-100):
    steps = torch.arange(src.shape[1])
    index = (lens[:, None] - 1 - steps).clamp(min=0)
    return torch.where(steps < lens[:, None], src.gather(1, index), fill)


def test_6_1_right_and_padding_not_ignored():
    assert check_6_1(targets)
    zero_fill = check_6_1(lambda src, lens: targets(src, lens, fill=0))
    assert not zero_fill and "wrong value" in repr(zero_fill)
    whole_row = check_6_1(lambda src, lens: src.flip(1))  # reverses the padding too
    assert not whole_row


def accuracy(weights, lens, real_only=True):
    steps = torch.arange(weights.shape[1])
    hits = weights.argmax(-1) == lens[:, None] - 1 - steps
    real = steps < lens[:, None]
    return (hits[real] if real_only else hits).float().mean()


def test_6_2_right_padding_counted_and_not_a_tensor():
    assert check_6_2(accuracy)
    padding_counted = check_6_2(lambda w, lens: accuracy(w, lens, real_only=False))
    assert not padding_counted and "wrong value" in repr(padding_counted)
    python_float = check_6_2(lambda w, lens: accuracy(w, lens).item())
    assert not python_float and "expected a torch.Tensor" in repr(python_float)


def entropy(weights, lens, base=None, real_only=True):
    h = -torch.special.xlogy(weights, weights).sum(-1)
    if base is not None:
        h = h / torch.log(torch.tensor(base))
    real = torch.arange(weights.shape[1]) < lens[:, None]
    return h[real].mean() if real_only else h.mean()


def test_6_3_right_wrong_base_and_padding():
    assert check_6_3(entropy)
    bits = check_6_3(lambda w, lens: entropy(w, lens, base=2.0))
    assert not bits and "wrong value" in repr(bits)
    padding = check_6_3(lambda w, lens: entropy(w, lens, real_only=False))
    assert not padding and "wrong value" in repr(padding)
