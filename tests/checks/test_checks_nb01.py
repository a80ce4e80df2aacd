"""Notebook 1's self-checks fail each wrong answer they claim to catch, say what is wrong, and pass right ones.

Complements tests/checks/test_checks.py (which has the right answers, the flipped polarity, the dtype and the forbidden
call of 1.1, 1.2's float16 fills and modified input, and the predictions of 1.4).
"""

import pytest
import torch
from check_helpers import says

from attention_helpers import valid_lens_to_mask
from attention_helpers.checks import check_1_1, check_1_2, check_1_3, check_1_4


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


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


def fill_then_zero(X, lens, fill):  # 1.2 by a fill, a softmax, then the masked weights set to 0
    keep = torch.arange(X.shape[-1])[None, None, :] < lens[:, None, None]  # (B, 1, K)
    return torch.softmax(X.masked_fill(~keep, fill), dim=-1).masked_fill(~keep, 0.0)


def recipe_of_1_7_2(X, lens):  # -inf where a row has a real key, 0 where it has none, then zeroed
    keep = torch.arange(X.shape[-1])[None, None, :] < lens[:, None, None]  # (B, 1, K)
    fill = torch.where(lens[:, None, None] > 0, float("-inf"), 0.0).to(X.dtype)  # (B, 1, 1)
    return torch.softmax(torch.where(keep, X, fill), dim=-1).masked_fill(~keep, 0.0)


@pytest.mark.parametrize(
    "answer",
    [
        recipe_of_1_7_2,
        lambda X, lens: fill_then_zero(X, lens, float("-inf")),  # NaN in an empty row, overwritten by the zeros
    ],
    ids=["recipe of 1.10.1", "-inf then zeroed"],
)
def test_1_2_right_answers_written_differently_pass(answer):
    result = check_1_2(answer)
    assert result and "float32, float16 and bfloat16" in repr(result), repr(result)


@pytest.mark.parametrize(
    ("answer", "where"),
    [
        (lambda X, lens: fill_then_zero(X, lens, -1e6), "in float16"),
        (lambda X, lens: fill_then_zero(X, lens, -1e9), "in float16"),
    ],
    ids=["-1e6", "-1e9"],
)
def test_1_2_half_precision_hint_is_the_recipe_of_1_7_2_not_finfo_min(answer, where):
    result = check_1_2(answer)
    says(
        result,
        "Exercise 1.2 in float16",
        where,
        "the recipe at the end of 1.10.1",
        "-inf in the rows that have a real key",
    )
    assert "finfo" not in repr(result), repr(result)  # 1.10.1 shows finfo.min tying with a real key: not the advice


@pytest.mark.parametrize("fill", ["finfo.min", -1e4], ids=["finfo.min", "-1e4"])
def test_1_2_a_finite_fill_fails_where_a_real_key_scores_as_low(fill):
    # 1.10.1: a real key scoring the dtype's minimum ties with (or falls below) a finite fill, and the padding takes
    # its weight; -inf in the rows that have a real key cannot tie
    def answer(X, lens):
        return fill_then_zero(X, lens, torch.finfo(X.dtype).min if fill == "finfo.min" else fill)

    says(check_1_2(answer), "Exercise 1.2 in float16", "one real key scoring float16's minimum")


def test_1_2_bfloat16_hint_is_the_recipe_of_1_7_2_too():
    def bf16_only_wrong(X, lens):
        out = recipe_of_1_7_2(X, lens)
        return out if X.dtype != torch.bfloat16 else (out * 0.9).to(X.dtype)

    result = check_1_2(bf16_only_wrong)
    says(result, "Exercise 1.2 in bfloat16", "the recipe at the end of 1.10.1")
    assert "finfo" not in repr(result), repr(result)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("uniform", "zeros"),
        ("Uniform", "Zero"),
        ("uniform weights", "zeroes"),
        ("equal weights", "all zeros"),
        ("uniform.", "0"),
        (" UNIFORM ", "exactly 0"),
        ("uniform over the padding", "zeros"),  # 1.10.1's table says "uniform over padding"
    ],
)
def test_1_4_right_answers_in_other_words_pass(a, b):
    result = check_1_4(a, b)
    assert result and repr(result).count("✅") == 2, repr(result)


@pytest.mark.parametrize(
    ("a", "b", "part", "said"),
    [
        ("zero", "zeros", "(a)", "you said 'zeros', but it is 'uniform'"),
        ("an error", "zeros", "(a)", "you said 'error', but it is 'uniform'"),
        ("raises", "zeros", "(a)", "you said 'error'"),
        ("uniform", "NaNs", "(b)", "you said 'NaN', but it is 'zeros'"),
        ("uniform", "uniform weights", "(b)", "you said 'uniform', but it is 'zeros'"),
    ],
)
def test_1_4_wrong_answers_in_other_words_are_wrong_and_say_why(a, b, part, said):
    result = check_1_4(a, b)
    assert not result and f"❌ Exercise 1.4 {part}: {said}" in repr(result), repr(result)


@pytest.mark.parametrize("word", ["ones", "infinity", "uniformish", "0.25", ""])
def test_1_4_a_word_for_no_choice_asks_for_one_and_gives_nothing_away(word):
    result = check_1_4(word, "zeros")
    text = repr(result)
    assert not result and '❌ Exercise 1.4 (a): answer with one of "zeros", "uniform", "NaN" or "error"' in text
    assert "but it is" not in text.split("\n")[0]  # no verdict, so no answer, for a word it cannot read
    assert "✅ Exercise 1.4 (b)" in text  # the other part is judged on its own
