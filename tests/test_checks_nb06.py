"""Notebook 6's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import pytest
import torch
from check_helpers import unsolved

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


FIRST_6_1 = "(case: src=[[3, 1, 4, 10, 10]], valid_lens=[3])"
FIRST_WEIGHTS = "(case: weights of shape (1, 5, 5), valid_lens=[3])"


def test_6_1_names_the_padding_step_dtype_shape_and_modified_input():
    zero_fill = check_6_1(lambda src, lens: targets(src, lens, fill=0))  # padding 0 is a real digit
    assert "wrong value at index (0, 3): expected -100, got 0 " + FIRST_6_1 in repr(zero_fill)
    int32 = check_6_1(lambda src, lens: targets(src, lens).int())  # cross_entropy wants int64 targets
    assert not int32 and "expected dtype torch.int64, got torch.int32 " + FIRST_6_1 in repr(int32)
    short = check_6_1(lambda src, lens: targets(src, lens)[:, :-1])
    assert not short and "expected shape (1, 5), got (1, 4)" in repr(short)

    def overwrites_padding(src, lens):
        out = targets(src, lens)
        src[src == 10] = -100
        return out

    assert "modified its input " + FIRST_6_1 in repr(check_6_1(overwrites_padding))


def test_6_2_float64_and_a_one_element_vector():
    double = check_6_2(lambda w, lens: accuracy(w, lens).double())
    assert not double and "expected dtype torch.float32, got torch.float64 " + FIRST_WEIGHTS in repr(double)
    vector = check_6_2(lambda w, lens: accuracy(w, lens)[None])
    assert not vector and "expected shape (), got (1,)" in repr(vector)


def test_6_3_log_of_zero_weights_is_nan_and_other_kinds():
    def w_log_w(weights, lens):  # 0 * log 0 = 0 * -inf = NaN: the reason for xlogy
        h = -(weights * weights.log()).sum(-1)
        return h[torch.arange(weights.shape[1]) < lens[:, None]].mean()

    nan = check_6_3(w_log_w)
    assert not nan and "wrong value at index (): expected 0.3633, got nan " + FIRST_WEIGHTS in repr(nan)
    per_step = check_6_3(lambda w, lens: -torch.special.xlogy(w, w).sum(-1)[torch.arange(w.shape[1]) < lens[:, None]])
    assert not per_step and "expected shape (), got (3,)" in repr(per_step)
    double = check_6_3(lambda w, lens: entropy(w, lens).double())
    assert not double and "expected dtype torch.float32, got torch.float64" in repr(double)


@pytest.mark.parametrize("check", [check_6_1, check_6_2, check_6_3])
def test_unsolved_and_not_a_function(check):
    label = f"Exercise 6.{check.__name__[-1]}"
    assert repr(check(unsolved)).startswith(f"⏳ {label}: not attempted yet")
    assert repr(check("f")) == f"❌ {label}: pass your function itself (without calling it), got str"
