"""The exercise self-checks must fail wrong answers, say why, and pass right ones."""

import math

import torch
import torch.nn.functional as F

from attention_helpers import DotProductAttention, masked_softmax, sequence_mask, valid_lens_to_mask
from attention_helpers.checks import (
    CheckResult,
    check_1_1,
    check_1_2,
    check_1_3,
    check_2_1,
    check_3_1,
    check_3_2,
)


def own_masked_softmax(X, lens):  # a right answer to 1.2, without masked_softmax
    keep = torch.arange(X.shape[-1])[None, None, :] < lens[:, None, None]
    return torch.softmax(X.masked_fill(~keep, float("-inf")), -1).nan_to_num(0.0)


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
    assert check_1_2(own_masked_softmax)

    def d2l_style(X, lens):  # uniform weights on empty rows
        flat = sequence_mask(X.reshape(-1, X.shape[-1]), lens.repeat_interleave(X.shape[1]), value=-1e6)
        return torch.softmax(flat.reshape(X.shape), -1)

    result = check_1_2(d2l_style)
    assert not result and "wrong value" in repr(result)

    def mutates(X, lens):
        X.mul_(1.0).add_(0.0)
        X[0, 0, 0] = 123.0
        return own_masked_softmax(X, lens)

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


def test_what_an_exercise_forbids_fails_the_check():
    # right values, by a route the exercise rules out: each check must say so
    cases = [
        (check_1_1, lambda lens, K: ~valid_lens_to_mask(lens, 1, K)[:, 0], "calls valid_lens_to_mask"),
        (check_1_2, masked_softmax, "passed masked_softmax itself"),
        (check_1_2, lambda X, lens: masked_softmax(X, lens), "calls masked_softmax"),
        (check_3_1, lambda q, k, v, lens: DotProductAttention()(q, k, v, lens), "calls DotProductAttention"),
        (check_3_2, valid_lens_to_mask, "passed valid_lens_to_mask itself"),
        (check_3_2, lambda lens, Q, K: valid_lens_to_mask(lens, Q, K), "calls valid_lens_to_mask"),
    ]

    def sdpa(q, k, v, lens):
        mask = None if lens is None else valid_lens_to_mask(lens, q.shape[1], k.shape[1])
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    cases.append((check_3_1, sdpa, "calls F.scaled_dot_product_attention"))
    for check, answer, message in cases:
        result = check(answer)
        assert not result and message in repr(result), (check.__name__, repr(result))


def test_allowed_routes_pass():
    # sequence_mask is allowed in 1.1 and 1.2 although it builds its mask with the library's own code
    assert check_1_1(lambda lens, K: ~sequence_mask(torch.ones(len(lens), K, dtype=torch.bool), lens, value=False))
    assert check_1_2(own_masked_softmax)
    assert check_3_1(lambda q, k, v, lens: masked_softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), lens) @ v)
    assert check_3_2(
        lambda lens, Q, K: (torch.arange(K) < (lens[:, None, None] if lens.dim() == 1 else lens[:, :, None])).expand(
            len(lens), Q, K
        )
    )


def test_2_1_loops_fail_broadcasting_passes():
    def looped(queries, keys, W_q, W_k, w_v):
        return torch.stack(
            [torch.tanh((q @ W_q.T)[:, None] + (k @ W_k.T)[None]) @ w_v for q, k in zip(queries, keys, strict=True)]
        )

    def while_loop(queries, keys, W_q, W_k, w_v):
        rows, b = [], 0
        while b < len(queries):
            rows.append(torch.tanh((queries[b] @ W_q.T)[:, None] + (keys[b] @ W_k.T)[None]) @ w_v)
            b += 1
        return torch.stack(rows)

    for answer, loop in ((looped, "a for loop or comprehension"), (while_loop, "a while loop")):
        result = check_2_1(answer)
        assert not result and f"uses {loop}" in repr(result)
    assert check_2_1(
        lambda queries, keys, W_q, W_k, w_v: torch.tanh((queries @ W_q.T)[:, :, None] + (keys @ W_k.T)[:, None]) @ w_v
    )
