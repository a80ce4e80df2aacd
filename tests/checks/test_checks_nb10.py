"""Notebook 10's self-checks fail each wrong answer they claim to catch, say why, and pass right ones."""

import math

import pytest
import torch
from check_helpers import unsolved

from attention_helpers.checks import HeadQuiz, check_10_1, check_10_2, check_10_3
from attention_helpers.lessons.induction import InductionData, causal_valid_lens, induction_score
from attention_helpers.masking import masked_softmax


def score_by_hand(weights, starts, lengths, shift=1):
    N, T, _ = weights.shape  # sequences, positions
    p = torch.arange(T)
    begin = (starts + lengths)[:, None]
    second = (p >= begin) & (p < begin + lengths[:, None])  # (N, T)
    key = (p - lengths[:, None] + shift).clamp(min=0)  # (N, T)
    on_key = weights.gather(2, key[..., None])[..., 0]  # (N, T)
    return on_key[second].mean()


# --- 10.1 ---------------------------------------------------------------------------------------------------------


def test_10_1_right_answer_passes():
    assert check_10_1(score_by_hand)


def test_10_1_fails_wrong_values_dtype_mutation_forbidden_helper_and_unsolved():
    wrong_key = check_10_1(lambda w, s, n: score_by_hand(w, s, n, shift=0))  # the earlier copy, not the token after
    assert not wrong_key and "wrong value" in repr(wrong_key)
    double = check_10_1(lambda w, s, n: score_by_hand(w, s, n).double())
    assert not double and "dtype" in repr(double)

    def mutates(w, s, n):
        w.mul_(1.0).add_(0.0)
        w[0, 0, 0] += 1.0
        return score_by_hand(w, s, n)

    assert "modified its input" in repr(check_10_1(mutates))

    def library(w, s, n):
        data = InductionData(torch.zeros(len(s), w.shape[-1], dtype=torch.long), s, n, 2)
        return induction_score(w, data)

    forbidden = check_10_1(library)
    assert not forbidden and "calls induction_score" in repr(forbidden)
    assert repr(check_10_1(unsolved)).startswith("⏳")


# --- 10.2 ---------------------------------------------------------------------------------------------------------


@pytest.fixture
def quiz():
    data = InductionData(torch.tensor([[9, 1, 2, 3, 1, 2, 3, 5]]), torch.tensor([1]), torch.tensor([3]), 10)
    T, n = 8, 3
    in_second = lambda p: 4 <= p < 7

    def pattern(key_of):
        weights = torch.zeros(T, T)
        for p in range(T):
            weights[p, key_of(p)] = 1.0
        return weights

    uniform = masked_softmax(torch.zeros(1, T, T), causal_valid_lens(1, T))[0]
    weights = torch.stack(
        [
            torch.stack([pattern(lambda p: max(p - 1, 0)), uniform]),  # layer 0: previous-token, uniform
            torch.stack([pattern(lambda p: p - n + 1 if in_second(p) else p), pattern(lambda p: p)]),  # induction, self
        ]
    )  # (L=2, H=2, T, T)
    return HeadQuiz(weights, data)


def letter_of(quiz, layer, head):
    return next(k for k, v in quiz._heads.items() if v == (layer, head))


def test_quiz_hides_the_order_and_keeps_the_panels(quiz):
    assert quiz.letters == ["A", "B", "C", "D"] and quiz.panels.shape == (4, 8, 8)
    assert [quiz._heads[k] for k in quiz.letters] != [(0, 0), (0, 1), (1, 0), (1, 1)]  # shuffled


def test_10_2_right_and_wrong_answers(quiz):
    previous, induction = letter_of(quiz, 0, 0), letter_of(quiz, 1, 0)
    right = check_10_2(previous, induction.lower(), quiz)
    assert right and "layer 0 head 0" in repr(right)
    wrong_previous = check_10_2(letter_of(quiz, 1, 1), induction, quiz)
    assert not wrong_previous and "not the previous-token head" in repr(wrong_previous)
    wrong_induction = check_10_2(previous, letter_of(quiz, 0, 1), quiz)
    assert not wrong_induction and "not an induction head" in repr(wrong_induction)
    assert repr(check_10_2("?", "?", quiz)).startswith("⏳")
    assert "must be one of A, B, C, D" in repr(check_10_2("E", induction, quiz))
    assert "pass the quiz itself" in repr(check_10_2(previous, induction, None))


def test_quiz_rejects_bad_input(quiz):
    data = InductionData(torch.tensor([[9, 1, 2, 3, 1, 2, 3, 5]]), torch.tensor([1]), torch.tensor([3]), 10)
    with pytest.raises(ValueError, match=r"shape \(L, H, T, T\) with T = 8"):
        HeadQuiz(torch.rand(2, 2, 7, 7), data)
    with pytest.raises(TypeError, match="one sequence"):
        HeadQuiz(torch.rand(2, 2, 8, 8), data.tokens)


# --- 10.3 ---------------------------------------------------------------------------------------------------------


def fixed_head(x, W_q, W_k, W_v):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.transpose(1, 2) / math.sqrt(k.shape[-1])
    N, T, _ = scores.shape
    return masked_softmax(scores, torch.arange(1, T + 1).repeat(N, 1)) @ v


def test_10_3_passes_the_fix():
    result = check_10_3(fixed_head)
    assert result and repr(result).startswith("✅") and "The bug was the missing mask" in repr(result)
    is_causal = lambda x, W_q, W_k, W_v: torch.nn.functional.scaled_dot_product_attention(
        x @ W_q, x @ W_k, x @ W_v, is_causal=True
    )
    assert check_10_3(is_causal)  # any correct route


def test_10_3_explains_the_missing_mask():
    def no_mask(x, W_q, W_k, W_v):
        q, k, v = x @ W_q, x @ W_k, x @ W_v
        scores = q @ k.transpose(1, 2) / math.sqrt(k.shape[-1])
        N, T, _ = scores.shape
        return masked_softmax(scores, torch.full((N, T), T)) @ v

    result = check_10_3(no_mask)
    assert not result and "reads a later position" in repr(result) and "causal head must not" in repr(result)
    assert "mask" not in repr(result).lower()  # the symptom only: the fix is the learner's to find


def test_10_3_catches_other_bugs():
    def off_by_one(x, W_q, W_k, W_v):  # query i sees keys 0..i-1: not the future, but wrong
        q, k, v = x @ W_q, x @ W_k, x @ W_v
        scores = q @ k.transpose(1, 2) / math.sqrt(k.shape[-1])
        N, T, _ = scores.shape
        return masked_softmax(scores, torch.arange(T).repeat(N, 1)) @ v

    result = check_10_3(off_by_one)
    assert not result and "wrong value" in repr(result)
    unscaled = check_10_3(lambda x, W_q, W_k, W_v: fixed_head(x, W_q, W_k, W_v) * 1.5)
    assert not unscaled and "wrong value" in repr(unscaled)
    raised = check_10_3(lambda x, W_q, W_k, W_v: torch.bmm(x, W_q))  # W_q is 2-D
    assert not raised and "RuntimeError" in repr(raised)
    assert repr(check_10_3(unsolved)).startswith("⏳")


# --- every failure mode not met above -------------------------------------------------------------------------------


def test_10_1_the_helper_itself_a_vector_and_not_a_function():
    assert "you passed induction_score itself" in repr(check_10_1(induction_score))
    vector = check_10_1(lambda w, s, n: score_by_hand(w, s, n)[None])
    assert not vector and "expected shape (), got (1,) (case: a perfect induction head" in repr(vector)
    assert repr(check_10_1(3)) == "❌ Exercise 10.1: pass your function itself (without calling it), got int"


def test_10_2_answers_that_are_not_letters(quiz):
    previous, induction = letter_of(quiz, 0, 0), letter_of(quiz, 1, 0)
    assert "previous_token must be one of A, B, C, D, got 1" in repr(check_10_2(1, induction, quiz))
    assert "induction must be one of A, B, C, D, got 'AB'" in repr(check_10_2(previous, "AB", quiz))
    assert repr(check_10_2(previous, None, quiz)).startswith("⏳ Exercise 10.2: not attempted yet")


def test_10_3_shape_modified_input_and_not_a_function():
    narrow = check_10_3(lambda x, W_q, W_k, W_v: fixed_head(x, W_q, W_k, W_v)[..., :1])
    assert not narrow and "expected shape (1, 1, 2), got (1, 1, 1)" in repr(narrow)

    def zeroes_W_v(x, W_q, W_k, W_v):
        out = fixed_head(x, W_q, W_k, W_v)
        W_v.zero_()
        return out

    modified = check_10_3(zeroes_W_v)  # not mistaken for reading the future (its two runs get fresh inputs)
    assert not modified and "modified its input" in repr(modified) and "tokens after it" not in repr(modified)
    assert repr(check_10_3(None)) == "❌ Exercise 10.3: pass your function itself (without calling it), got NoneType"


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


def head_with_lengths(lengths_of):
    """Exercise 10.3's head, its causal lengths (N, T) made by lengths_of(N, T)."""

    def head(x, W_q, W_k, W_v):
        q, k, v = x @ W_q, x @ W_k, x @ W_v
        scores = q @ k.transpose(1, 2) / math.sqrt(k.shape[-1])  # (N, T, T)
        N, T, _ = scores.shape
        return masked_softmax(scores, lengths_of(N, T)) @ v

    return head


def head_with_tril(x, W_q, W_k, W_v):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    T = x.shape[1]
    scores = (q @ k.transpose(1, 2) / math.sqrt(k.shape[-1])).masked_fill(~torch.ones(T, T).bool().tril(), -math.inf)
    return torch.softmax(scores, dim=-1) @ v


@pytest.mark.parametrize(
    "answer",
    [
        fixed_head,
        head_with_lengths(lambda N, T: torch.arange(1, T + 1).expand(N, T)),
        head_with_tril,
        lambda x, W_q, W_k, W_v: torch.nn.functional.scaled_dot_product_attention(
            x @ W_q, x @ W_k, x @ W_v, is_causal=True
        ),
    ],
    ids=["lengths 1..T", "expanded lengths", "-inf above the diagonal", "SDPA is_causal"],
)
def test_10_3_right_answers_written_differently_pass(answer):
    result = check_10_3(answer)
    assert result and repr(result).startswith("✅ Exercise 10.3: correct on all 8 cases."), repr(result)


@pytest.mark.parametrize(
    ("lengths_of", "message"),
    [
        (lambda N, T: torch.arange(1, 25)[:T].repeat(N, 1), "valid_lens of shape (2, 24)"),  # right up to T = 24
        (lambda N, T: torch.arange(1, 33)[:T].repeat(N, 1), "(case: x of shape (1, 37, 5)"),  # up to T = 32
        (lambda N, T: torch.arange(1, 101)[:T].repeat(N, 1), "(case: x of shape (1, 129, 4)"),  # up to T = 100
        (lambda N, T: torch.arange(T).repeat(N, 1), "wrong value"),  # query i sees keys 0..i-1
        (lambda N, T: torch.arange(2, T + 2).clamp(max=T).repeat(N, 1), "position 4's output changed"),  # one ahead
    ],
    ids=["lengths written up to 24", "up to 32", "up to 100", "off by one, behind", "off by one, ahead"],
)
def test_10_3_wrong_answers_say_what_is_wrong(lengths_of, message):
    result = check_10_3(head_with_lengths(lengths_of))
    assert not result and message in repr(result), repr(result)
    assert "The bug was" not in repr(result)
