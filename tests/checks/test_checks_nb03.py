"""Notebook 3's self-checks 3.2 and 3.3 fail each wrong answer they claim to catch, and say what is wrong.

Complements tests/checks/test_checks.py (3.2's forbidden valid_lens_to_mask and an allowed route, 3.3's forbidden
DotProductAttention and SDPA); check_3_1 is tested there with the other predict-then-check answers.
"""

import math

import pytest
import torch
from check_helpers import says, unsolved

from attention_helpers import masked_softmax, valid_lens_to_mask
from attention_helpers.checks import check_3_2, check_3_3


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
    assert repr(check_3_2(unsolved)).startswith("⏳ Exercise 3.2: not attempted yet")
    says(check_3_2(attn_mask(torch.tensor([1]), 1, 2)), "Exercise 3.2", "pass your function itself", "got Tensor")


def scaled(q, k, v, lens, *, by_d=False, dim=-1, fill=None, zero=True):  # Exercise 3.3's function, bugs optional
    d = q.shape[-1]
    scores = q @ k.transpose(1, 2) / (d if by_d else math.sqrt(d))  # (B, Q, K)
    if lens is None:
        return torch.softmax(scores, dim=dim) @ v
    keep = valid_lens_to_mask(lens, q.shape[1], k.shape[1])  # (B, Q, K)
    weights = torch.softmax(scores.masked_fill(~keep, torch.finfo(q.dtype).min if fill is None else fill), dim=dim)
    return (weights.masked_fill(~keep, 0.0) if zero else weights) @ v


ALL_BUGS = {"by_d": True, "dim": 1, "fill": -1e9, "zero": False}  # the exercise's function as handed out
SYMPTOMS = {  # what each bug shows on the check's probes, in words that do not name the bug
    "by_d": "queries that clearly match one key",
    "dim": "weights sum to",
    "zero": "a query with valid length 0, which may look at no key, outputs",
}
DIAGNOSES = ["divided by d instead of √d", "dim=1", "-1e9", "65504", "the queries", "uniform"]


def test_3_3_right_answer_passes_and_only_then_names_the_bugs():
    result = check_3_3(scaled)
    assert result and repr(result).startswith("✅ Exercise 3.3: correct on all 15 cases.")
    assert all(d in repr(result) for d in DIAGNOSES), repr(result)


@pytest.mark.parametrize(
    ("bugs", "shown"),
    [
        ({"by_d": True}, "by_d"),
        ({"dim": 1}, "dim"),
        ({"zero": False}, "zero"),
        ({"by_d": True, "dim": 1}, "dim"),
        ({"by_d": True, "zero": False}, "by_d"),
        (ALL_BUGS, "dim"),
    ],
    ids=["by d", "over the queries", "uniform empty rows", "two bugs", "scale and empty rows", "as handed out"],
)
def test_3_3_reports_one_symptom_at_a_time_and_no_diagnosis(bugs, shown):
    result = check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens, **bugs))
    says(result, "Exercise 3.3", "wrong value at index", "on a small probe: ", SYMPTOMS[shown])
    text = repr(result)
    assert not any(SYMPTOMS[name] in text for name in SYMPTOMS if name != shown), text  # one symptom, not one per bug
    assert ("run the check again for what else differs" in text) == (len(bugs) > 1), text
    assert not any(d in text for d in DIAGNOSES), text  # the committed output must not give the answer away


def test_3_3_symptoms_carry_the_measured_numbers():
    flat = repr(check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens, by_d=True)))
    right = float(flat.split("where scaled dot-product attention puts ")[1][:4])
    got = float(flat.split("put ")[1][:4])
    assert got < right - 0.3  # the probe's match is clear when scaled, and blurred when divided by d
    summed = repr(check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens, dim=1)))
    assert abs(float(summed.split("sum to ")[1][:4]) - 1) > 0.05


def test_3_3_float16_overflow_says_where_it_fails_not_why():
    overflow = check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens, fill=-1e9))  # right in float32 only
    says(overflow, "Exercise 3.3", "float16", "right on every float32 case")
    assert "65504" not in repr(overflow) and "finfo" not in repr(overflow)


def test_3_3_other_failures_pass_through():
    assert repr(check_3_3(unsolved)).startswith("⏳")
    says(check_3_3(lambda q, k, v, lens: q.sum()), "Exercise 3.3", "expected shape")
    says(check_3_3(42), "Exercise 3.3", "pass your function itself")


def test_3_3_answers_a_list_or_another_shape_with_a_cross_not_an_error():
    """It looks at a wrong answer twice, to name its bugs: the second look used to fail on anything but a tensor."""
    first = "(case: float32, B=1, Q=1, K=1, d=1, d_v=1, valid_lens=None)"
    says(
        check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens).tolist()),
        "Exercise 3.3",
        "expected a torch.Tensor, got list",
        first,
    )
    says(
        check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens)[0]),
        "Exercise 3.3",
        "expected shape (1, 1, 1), got (1, 1)",
        first,
    )
    says(
        check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens).double()), "Exercise 3.3", "expected dtype torch.float32"
    )
    says(check_3_3(lambda q, k, v, lens: None), "Exercise 3.3", "returned None; did it forget to `return`")
    says(
        check_3_3(lambda q, k, v, lens: scaled(q, k, v, lens).to(torch.float8_e4m3fn)),
        "Exercise 3.3",
        "got torch.float8_e4m3fn",
    )
    says(
        check_3_3(lambda q, k, v, lens: q.to(torch.float8_e5m2).softmax(-1)),
        "Exercise 3.3",
        "raised NotImplementedError",
    )


def minus_inf_then_nan_to_zero(q, k, v, lens):  # -inf fill, and the NaN of an empty row turned to 0
    scores = q @ k.transpose(1, 2) / math.sqrt(q.shape[-1])  # (B, Q, K)
    if lens is not None:
        scores = scores.masked_fill(~valid_lens_to_mask(lens, q.shape[1], k.shape[1]), float("-inf"))
    return torch.softmax(scores, dim=-1).nan_to_num(0.0) @ v


@pytest.mark.parametrize(
    "answer",
    [
        scaled,
        lambda q, k, v, lens: masked_softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), lens) @ v,
        lambda q, k, v, lens: masked_softmax((q / q.shape[-1] ** 0.5) @ k.mT, lens) @ v,  # scaled before the product
        minus_inf_then_nan_to_zero,
    ],
    ids=["finfo.min, then zeroed", "masked_softmax", "queries scaled first", "-inf, then NaN to 0"],
)
def test_3_3_right_answers_written_differently_pass(answer):
    result = check_3_3(answer)
    assert result and repr(result).startswith("✅ Exercise 3.3: correct on all 15 cases."), repr(result)
