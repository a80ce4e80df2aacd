"""Notebook 3's self-check 3.2 fails each wrong answer it claims to catch, and says what is wrong.

Complements tests/test_checks.py (3.2's forbidden valid_lens_to_mask and an allowed route); check_3_1 and check_3_3
are tested with their exercises.
"""

import pytest
import torch
from check_helpers import says

from attention_helpers.checks import check_3_2


def attn_mask(lens, Q, K):  # a right answer: lengths (B,) or (B, Q) -> (B, Q, K), True = may attend
    per_query = lens[:, None] if lens.dim() == 1 else lens  # (B, 1) or (B, Q)
    return (torch.arange(K) < per_query[:, :, None]).expand(len(lens), Q, K)


FIRST = "(case: valid_lens=[0, 4], num_queries=3, num_keys=4)"  # the first case: a length 0 and a full length
FIRST_2D = "(case: valid_lens=[[1, 3], [2, 0]], num_queries=2, num_keys=3)"


def test_3_2_right_answer_passes():
    assert check_3_2(attn_mask)


def test_3_2_flipped_polarity_names_the_index_expected_and_got():
    result = check_3_2(lambda lens, Q, K: ~attn_mask(lens, Q, K))  # nn.MultiheadAttention's True = ignore
    says(result, "Exercise 3.2", "wrong value at index (0, 0, 0): expected False, got True", FIRST)


@pytest.mark.parametrize(
    ("answer", "got"),
    [
        (lambda lens, Q, K: torch.arange(K)[None] < lens[:, None], "(2, 4)"),  # the (B, K) mask: no query axis
        (lambda lens, Q, K: attn_mask(lens, Q, K)[:, :1], "(2, 1, 4)"),  # singleton query axis, not expanded
    ],
    ids=["no query axis", "query axis not expanded"],
)
def test_3_2_masks_without_the_query_axis_are_the_wrong_shape(answer, got):
    says(check_3_2(answer), "Exercise 3.2", f"expected shape (2, 3, 4), got {got}", FIRST)


def test_3_2_2d_lengths_read_as_one_per_sequence_are_wrong():
    def first_query_only(lens, Q, K):  # uses each sequence's first length for every query
        return attn_mask(lens if lens.dim() == 1 else lens[:, 0], Q, K)

    says(check_3_2(first_query_only), "Exercise 3.2", "wrong value at index (0, 1, 1)", FIRST_2D)


def test_3_2_masks_must_be_boolean():
    result = check_3_2(lambda lens, Q, K: attn_mask(lens, Q, K).long())  # SDPA would add 0/1 to the scores
    says(result, "Exercise 3.2", "expected dtype torch.bool, got torch.int64", FIRST)


def test_3_2_modifying_the_lengths_is_reported_not_raised():
    def shortens(lens, Q, K):
        out = attn_mask(lens, Q, K)
        lens.sub_(1)  # now negative where it was 0
        return out

    says(check_3_2(shortens), "Exercise 3.2", "modified its input", FIRST)


def test_3_2_unsolved_and_not_a_function():
    def unsolved(lens, Q, K):
        raise NotImplementedError

    assert repr(check_3_2(unsolved)).startswith("⏳ Exercise 3.2: not attempted yet")
    says(check_3_2(attn_mask(torch.tensor([1]), 1, 2)), "Exercise 3.2", "pass your function itself", "got Tensor")
