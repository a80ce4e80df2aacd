"""The exercise self-checks must fail wrong answers, say why, and pass right ones."""

import torch

from attention_helpers import masked_softmax, sequence_mask
from attention_helpers.checks import CheckResult, check_1_1, check_1_2, check_1_3


def unsolved(*args):
    raise NotImplementedError


def test_unsolved_is_reported_not_raised():
    for check in (check_1_1, check_1_2, check_1_3):
        result = check(unsolved)
        assert isinstance(result, CheckResult) and not result and repr(result).startswith("⏳")


def test_1_1_right_and_wrong():
    assert check_1_1(lambda lens, K: torch.arange(K)[None, :] >= lens[:, None])
    wrong = check_1_1(lambda lens, K: torch.arange(K)[None, :] < lens[:, None])  # polarity flipped
    assert not wrong and "wrong value" in repr(wrong)
    wrong_dtype = check_1_1(lambda lens, K: (torch.arange(K)[None, :] >= lens[:, None]).long())
    assert not wrong_dtype and "dtype" in repr(wrong_dtype)


def test_1_2_catches_uniform_empty_rows_and_input_mutation():
    assert check_1_2(masked_softmax)

    def d2l_style(X, lens):  # uniform weights on empty rows
        flat = sequence_mask(X.reshape(-1, X.shape[-1]), lens.repeat_interleave(X.shape[1]), value=-1e6)
        return torch.softmax(flat.reshape(X.shape), -1)

    result = check_1_2(d2l_style)
    assert not result and "wrong value" in repr(result)

    def mutates(X, lens):
        X.mul_(1.0).add_(0.0)
        X[0, 0, 0] = 123.0
        return masked_softmax(X, lens)

    result = check_1_2(mutates)
    assert not result and "modified its input" in repr(result)


def test_1_3_right_wrong_and_not_callable():
    assert check_1_3(lambda B, Q: torch.arange(1, Q + 1).repeat(B, 1))
    assert not check_1_3(lambda B, Q: torch.arange(Q).repeat(B, 1))
    shape = check_1_3(lambda B, Q: torch.arange(1, Q + 1))
    assert not shape and "shape" in repr(shape)
    raised = check_1_3(lambda B, Q: 1 / 0)
    assert not raised and "ZeroDivisionError" in repr(raised)
    assert "pass your function itself" in repr(check_1_3(torch.ones(2)))
