"""Notebook 1's self-checks 1.1, 1.3 and 1.4 fail each wrong answer they claim to catch, and say what is wrong.

Complements tests/checks/test_checks.py (which has the right answers, the flipped polarity, the dtype and the forbidden
call of 1.1, and the predictions of 1.4); check_1_2 is tested with its exercise.
"""

import pytest
import torch
from check_helpers import says

from attention_helpers import valid_lens_to_mask
from attention_helpers.checks import check_1_1, check_1_3, check_1_4


def padding_mask(lens, K):  # a right answer to 1.1: True = ignore
    return torch.arange(K)[None, :] >= lens[:, None]


def causal_lengths(B, Q):  # a right answer to 1.3
    return torch.arange(1, Q + 1).repeat(B, 1)


FIRST_1_1 = "(case: valid_lens=[0, 3], num_keys=3)"  # the first case of 1.1: a length 0 and a full length
FIRST_1_3 = "(case: batch_size=1, num_queries=1)"


def test_right_answers_pass():
    assert check_1_1(padding_mask) and check_1_3(causal_lengths)


# --- 1.1 ---------------------------------------------------------------------------------------------------------


def test_1_1_off_by_one_names_the_index_expected_and_got():
    result = check_1_1(lambda lens, K: torch.arange(K)[None, :] > lens[:, None])  # key == length kept
    says(result, "Exercise 1.1", "wrong value at index (0, 0): expected True, got False", FIRST_1_1)


def test_1_1_passing_the_forbidden_helper_itself():
    says(check_1_1(valid_lens_to_mask), "Exercise 1.1", "you passed valid_lens_to_mask itself")


def test_1_1_mask_with_a_query_axis_is_the_wrong_shape():
    result = check_1_1(lambda lens, K: padding_mask(lens, K)[:, None, :])  # (B, 1, K): SDPA's shape, not MHA's
    says(result, "Exercise 1.1", "expected shape (2, 3), got (2, 1, 3)", FIRST_1_1)


def test_1_1_modifying_the_lengths_is_caught():
    def clamps(lens, K):
        lens.clamp_(max=K - 1)
        return padding_mask(lens, K)

    says(check_1_1(clamps), "Exercise 1.1", "modified its input", FIRST_1_1, "return a new tensor")


def test_1_1_a_list_is_not_a_tensor():
    says(check_1_1(lambda lens, K: padding_mask(lens, K).tolist()), "Exercise 1.1", "expected a torch.Tensor, got list")


def test_1_1_errors_and_non_functions_are_reported():
    result = check_1_1(lambda lens, K: torch.arange(K) >= lens)  # (K,) against (B,): broadcasting fails
    says(result, "Exercise 1.1", "raised RuntimeError", FIRST_1_1)
    says(check_1_1(padding_mask(torch.tensor([1]), 2)), "Exercise 1.1", "pass your function itself", "got Tensor")


# --- 1.3 ---------------------------------------------------------------------------------------------------------


def test_1_3_lengths_from_zero_name_the_index():
    result = check_1_3(lambda B, Q: torch.arange(Q).repeat(B, 1))  # query i sees i keys: itself left out
    says(result, "Exercise 1.3", "wrong value at index (0, 0): expected 1, got 0", FIRST_1_3)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
def test_1_3_lengths_must_be_int64(dtype):
    result = check_1_3(lambda B, Q: causal_lengths(B, Q).to(dtype))
    says(result, "Exercise 1.3", f"expected dtype torch.int64, got {dtype}", FIRST_1_3)


def test_1_3_a_list_is_not_a_tensor():
    says(check_1_3(lambda B, Q: causal_lengths(B, Q).tolist()), "Exercise 1.3", "expected a torch.Tensor, got list")


# --- 1.4 ---------------------------------------------------------------------------------------------------------


def test_1_4_each_part_is_judged_on_its_own():
    first_only = check_1_4("uniform", "NaN")
    right, wrong = repr(first_only).split("\n")
    assert not first_only and right.startswith("✅ Exercise 1.4 (a): right, 'uniform'")
    assert wrong.startswith("❌ Exercise 1.4 (b): you said 'NaN', but it is 'zeros'") and "row max is finite" in wrong
    second_only = check_1_4("zeros", "zeros")
    wrong, right = repr(second_only).split("\n")
    assert not second_only and right.startswith("✅ Exercise 1.4 (b): right, 'zeros'")
    assert wrong.startswith("❌ Exercise 1.4 (a): you said 'zeros', but it is 'uniform'")
    assert "softmax of equal scores is uniform" in wrong


def test_1_4_half_attempted_is_reported_per_part():
    result = check_1_4("uniform", ...)
    assert not result and "✅ Exercise 1.4 (a)" in repr(result)
    assert "⏳ Exercise 1.4 (b): not attempted yet" in repr(result)


def test_1_4_answers_are_what_pytorch_does():
    # the check's right answers come from running the code; here the same facts, computed independently
    scores = torch.tensor([0.4, 0.3, 0.2, 0.1], dtype=torch.float16)
    empty = torch.softmax(scores.masked_fill(torch.ones(4, dtype=torch.bool), -1e4), -1)
    assert torch.equal(empty, torch.full((4,), 0.25, dtype=torch.float16))  # uniform
    padded = torch.softmax(scores.masked_fill(torch.arange(4) >= 2, float("-inf")), -1)
    assert torch.equal(padded[2:], torch.zeros(2, dtype=torch.float16)) and not padded.isnan().any()  # zeros
    assert check_1_4("uniform", "zeros")
