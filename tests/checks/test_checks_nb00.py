"""Notebook 0's self-checks: right answers pass, each wrong answer fails and says why."""

import pytest
import torch
import torch.nn.functional as F
from check_helpers import says

from attention_helpers.checks import check_0_1, check_0_2, check_0_3
from attention_helpers.lessons.kernel_regression import nadaraya_watson, nadaraya_watson_weights


def test_0_1_predictions():
    assert not check_0_1(None) and repr(check_0_1(None)).startswith("⏳")
    assert check_0_1(0.95) and check_0_1(0.9503) and check_0_1(0.950) and check_0_1(0.9503 + 0.005)
    assert not check_0_1(0.96) and not check_0_1(0.94)  # the next two decimals either side: wrong, as both are
    unchanged = check_0_1(0.79)
    assert not unchanged and "before doubling" in repr(unchanged)
    assert not check_0_1(1.57) and "[0, 1]" in repr(check_0_1(1.57))
    assert not check_0_1(0.6) and "Hint" in repr(check_0_1(0.6))
    assert not check_0_1("0.95") and "number" in repr(check_0_1("0.95"))


def test_0_2_choices():
    assert not check_0_2(None) and repr(check_0_2(None)).startswith("⏳")
    assert check_0_2("b") and check_0_2(" B ")
    for wrong in ("a", "c"):
        result = check_0_2(wrong)
        assert not result and "uniform" in repr(result)
    assert not check_0_2("d") and "letters" in repr(check_0_2("d"))


def right(queries, keys, bandwidth):
    return torch.softmax(-((queries[:, None] - keys) ** 2) / (2 * bandwidth**2), dim=-1)


def test_0_3_right_and_each_bug():
    solved = check_0_3(right)
    assert solved and "correct on all 9 cases" in repr(solved) and "dim=-1" in repr(solved)  # the diagnosis, once right
    over_queries = check_0_3(lambda q, k, s: torch.softmax(-((q[:, None] - k) ** 2) / (2 * s**2), dim=0))
    assert not over_queries and "sum to [1.15, 1.24, 1.61]" in repr(over_queries)  # the symptom ...
    assert "dim" not in repr(over_queries) and "column" not in repr(over_queries)  # ... but not the cause
    plus = check_0_3(lambda q, k, s: torch.softmax(((q[:, None] - k) ** 2) / (2 * s**2), dim=-1))
    assert not plus and "farthest key" in repr(plus)
    no_half = check_0_3(lambda q, k, s: torch.softmax(-((q[:, None] - k) ** 2) / s**2, dim=-1))
    assert not no_half and "wrong value" in repr(no_half)
    library = check_0_3(lambda q, k, s: nadaraya_watson_weights(q, k, s))
    assert not library and "calls nadaraya_watson_weights" in repr(library)

    def modifies(q, k, s):
        q.mul_(1.0).add_(1.0)
        return right(q, k, s)

    assert "modified its input" in repr(check_0_3(modifies))


def test_0_1_and_0_2_reject_answers_of_the_wrong_kind():
    assert not check_0_1(True) and "answer with a number such as 0.5, got bool" in repr(check_0_1(True))
    negative = check_0_1(-0.2)
    assert not negative and "-0.2 cannot be a weight" in repr(negative) and "[0, 1]" in repr(negative)
    assert not check_0_2(2) and "one of the letters ['a', 'b', 'c'], got 2" in repr(check_0_2(2))


def test_0_3_each_forbidden_helper_passed_or_called():
    itself = check_0_3(nadaraya_watson_weights)
    assert not itself and "you passed nadaraya_watson_weights itself" in repr(itself)
    predictor = check_0_3(lambda q, k, s: right(q, k, s) + 0 * nadaraya_watson(q, k, torch.zeros_like(k), s).sum())
    assert not predictor and "calls nadaraya_watson," in repr(predictor)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda q, k, s: right(q, k, s).T, "expected shape (3, 4), got (4, 3)"),  # (K, Q): keys along the rows
        (lambda q, k, s: right(q, k, s).half(), "expected dtype torch.float32, got torch.float16"),
        (lambda q, k, s: right(q, k, s).numpy(), "expected a torch.Tensor, got numpy.ndarray"),
        (lambda q, k, s: torch.softmax(-((q[:, None] - k) ** 2), dim=2), "raised IndexError"),
    ],
    ids=["transposed", "float16", "numpy", "raises"],
)
def test_0_3_shape_dtype_type_and_errors_are_named_with_the_case(answer, message):
    result = check_0_3(answer)
    assert not result and message in repr(result), repr(result)
    assert "(case: 3 queries, 4 keys, bandwidth 1)" in repr(result)
    assert "column" not in repr(result) and "farthest" not in repr(result)  # no bug story for these


def test_0_3_unsolved_and_not_a_function():
    def unsolved(queries, keys, bandwidth):
        raise NotImplementedError

    assert repr(check_0_3(unsolved)).startswith("⏳ Exercise 0.3: not attempted yet")
    assert "pass your function itself (without calling it), got str" in repr(check_0_3("right"))


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "b",
        " B ",
        "(b)",
        "b)",
        "(B)",
        "B.",
        "(b).",
        '"b"',
        "the mean of all the training values",
        "(b) the mean of all the training values",
        "b) the mean of all the training values.",
    ],
)
def test_0_2_the_right_letter_written_as_learners_write_it(answer):
    result = check_0_2(answer)
    assert result and repr(result).startswith("✅ Exercise 0.2: right"), repr(result)


@pytest.mark.parametrize(
    ("answer", "choice"),
    [
        ("a", "the median of the training values"),
        ("(a)", "the median of the training values"),
        ("c)", "the mean of the true function over [0, 5]"),
        ("C", "the mean of the true function over [0, 5]"),
        ("the median of the training values", "the median of the training values"),
        ("(a) the median of the training values", "the median of the training values"),
    ],
)
def test_0_2_a_wrong_letter_in_any_form_is_wrong_and_says_why(answer, choice):
    says(check_0_2(answer), "Exercise 0.2", f"not {choice}:", "uniform")


@pytest.mark.parametrize(
    "answer", ["d", "(d)", "(b", "bb", "", "b or c", "mean", "(b) the median of the training values"]
)
def test_0_2_what_names_no_choice_asks_for_a_letter(answer):
    says(check_0_2(answer), "Exercise 0.2", "answer with one of the letters ['a', 'b', 'c']")


def scores_of(q, k, s):
    return -((q[:, None] - k) ** 2) / (2 * s**2)  # (Q, K)


@pytest.mark.parametrize(
    "answer",
    [
        lambda q, k, s: right(q.double(), k.double(), s),  # float64: right too
        lambda q, k, s: right(q, k, s).double(),
        lambda q, k, s: F.softmax(scores_of(q, k, s), dim=1),
        lambda q, k, s: torch.softmax(scores_of(q, k, s).T, dim=0).T,
        lambda q, k, s: scores_of(q, k, s).exp() / scores_of(q, k, s).exp().sum(-1, keepdim=True),
        lambda q, k, s: torch.softmax(-(((q.unsqueeze(1) - k.unsqueeze(0)) / s) ** 2) / 2, dim=-1),
    ],
    ids=["float64 inputs", "float64 output", "F.softmax dim=1", "transposed twice", "exp by hand", "unsqueeze"],
)
def test_0_3_right_answers_written_differently_pass(answer):
    result = check_0_3(answer)
    assert result and "correct on all 9 cases" in repr(result), repr(result)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda q, k, s: torch.softmax(scores_of(q, k, s), dim=0), "yours sum to [1.15, 1.24, 1.61]"),
        (lambda q, k, s: torch.softmax(scores_of(q, k, s).double(), dim=0), "yours sum to [1.15, 1.24, 1.61]"),
        (lambda q, k, s: torch.softmax(-scores_of(q, k, s), dim=-1), "farthest key"),
        (lambda q, k, s: torch.softmax(2 * scores_of(q, k, s), dim=-1), "wrong value"),
        (lambda q, k, s: torch.softmax(scores_of(q, k, s), dim=-1).half(), "expected dtype torch.float32"),
    ],
    ids=["dim=0 (as handed out)", "dim=0 in float64", "sign flipped", "no 1/2", "float16"],
)
def test_0_3_wrong_answers_say_what_is_wrong_never_the_cause(answer, message):
    result = check_0_3(answer)
    says(result, "Exercise 0.3", message)
    for spoiler in ("dim", "axis", "column", "softmax", "Which numbers"):  # the committed output names no cause
        assert spoiler not in repr(result), (spoiler, repr(result))
