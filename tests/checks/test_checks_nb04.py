"""Notebook 4's self-checks fail each wrong answer they claim to catch, say why, and pass right ones."""

import pytest
import torch
from check_helpers import unsolved

from attention_helpers import MultiHeadAttention
from attention_helpers.checks import check_4_1, check_4_2, check_4_3


def test_4_1_right_answer_passes():
    result = check_4_1(lambda lens, H: lens.repeat_interleave(H, dim=0))
    assert result, result
    assert "[2, 2, 4, 4]" in repr(result) and "head-major" in repr(result)  # the diagnosis, once right


def test_4_1_repeat_gets_its_symptom_not_the_answer():
    result = check_4_1(lambda lens, H: lens.repeat(H, *[1] * (lens.dim() - 1)))
    assert not result and "you return [2, 4, 2, 4]" in repr(result) and "padding" in repr(result)
    assert "repeat_interleave" not in repr(result) and "[2, 2, 4, 4]" not in repr(result)  # no spoiler


def test_4_1_other_failures():
    one_d_only = check_4_1(lambda lens, H: lens.repeat_interleave(H))  # flattens 2-D lengths
    assert not one_d_only and "shape" in repr(one_d_only)
    booleans = check_4_1(lambda lens, H: lens.repeat_interleave(H, dim=0) > 0)  # masked_softmax refuses bool
    assert not booleans and "expected dtype torch.int64, got torch.bool" in repr(booleans)

    def modifies(lens, H):
        lens += 0
        lens[..., 0] = 1
        return lens.repeat_interleave(H, dim=0)

    assert "modified its input" in repr(check_4_1(modifies))
    assert repr(check_4_1(lambda lens, H: 1 / 0)).startswith("❌")


def from_torch_mha(mha, swap=False):  # a right answer to 4.2 (swap: a wrong one)
    E, H = mha.embed_dim, mha.num_heads
    bias = mha.in_proj_bias is not None
    ours = MultiHeadAttention(E, E, E, num_hiddens=E, num_heads=H, dropout=0.0, bias=bias)
    chunks = list(mha.in_proj_weight.chunk(3))
    if swap:
        chunks[0], chunks[1] = chunks[1], chunks[0]
    with torch.no_grad():
        for linear, w in zip((ours.W_q, ours.W_k, ours.W_v), chunks, strict=True):
            linear.weight.copy_(w)
        ours.W_o.weight.copy_(mha.out_proj.weight)
        if bias:
            for linear, b in zip((ours.W_q, ours.W_k, ours.W_v), mha.in_proj_bias.chunk(3), strict=True):
                linear.bias.copy_(b)
            ours.W_o.bias.copy_(mha.out_proj.bias)
    return ours


def test_4_2_right_and_wrong():
    assert check_4_2(from_torch_mha)
    swapped = check_4_2(lambda m: from_torch_mha(m, swap=True))
    assert not swapped and "wrong value" in repr(swapped)
    wrong_type = check_4_2(lambda m: m)
    assert not wrong_type and "MultiHeadAttention" in repr(wrong_type)


def test_4_3_right_and_head_major():
    assert check_4_3(lambda w, H: w.reshape(-1, H, *w.shape[1:]).mean(1))
    head_major = check_4_3(lambda w, H: w.reshape(H, -1, *w.shape[1:]).mean(0))
    assert not head_major and "wrong value" in repr(head_major)


def test_4_1_another_wrong_value_gets_no_repeat_story():
    result = check_4_1(lambda lens, H: (lens + 1).repeat_interleave(H, dim=0))
    assert not result and "wrong value at index (0,): expected 2, got 3" in repr(result)
    assert "(case: valid_lens=[2, 4], num_heads=2)" in repr(result) and "repeat_interleave" not in repr(result)
    raised = check_4_1(lambda lens, H: 1 / 0)
    assert "raised ZeroDivisionError: division by zero  (case: valid_lens=[2, 4], num_heads=2)" in repr(raised)


def test_4_2_an_answer_that_drops_the_biases_fails_where_they_count():
    def no_bias(mha):
        E, H = mha.embed_dim, mha.num_heads
        ours = MultiHeadAttention(E, E, E, num_hiddens=E, num_heads=H, dropout=0.0, bias=False)
        with torch.no_grad():
            for linear, w in zip((ours.W_q, ours.W_k, ours.W_v), mha.in_proj_weight.chunk(3), strict=True):
                linear.weight.copy_(w)
            ours.W_o.weight.copy_(mha.out_proj.weight)
        return ours

    result = check_4_2(no_bias)  # right on the first case, which has no bias
    assert not result and "wrong value" in repr(result) and "bias=True" in repr(result)
    wrong_type = check_4_2(lambda m: m)
    assert "return an attention_helpers.MultiHeadAttention, got MultiheadAttention" in repr(wrong_type)


def test_4_3_sum_and_kept_head_axis():
    summed = check_4_3(lambda w, H: w.reshape(-1, H, *w.shape[1:]).sum(1))  # right only for one head
    assert not summed and "wrong value" in repr(summed) and "num_heads=2" in repr(summed)
    kept = check_4_3(lambda w, H: w.reshape(-1, H, *w.shape[1:]))
    assert not kept and "expected shape (1, 1, 2), got (1, 1, 1, 2)" in repr(kept)
    double = check_4_3(lambda w, H: w.reshape(-1, H, *w.shape[1:]).mean(1).double())
    assert not double and "expected dtype torch.float32, got torch.float64" in repr(double)


@pytest.mark.parametrize("check", [check_4_1, check_4_2, check_4_3])
def test_unsolved_and_not_a_function(check):
    label = f"Exercise 4.{check.__name__[-1]}"
    assert repr(check(unsolved)).startswith(f"⏳ {label}: not attempted yet")
    not_function = check(None)
    assert (
        not not_function
        and repr(not_function) == f"❌ {label}: pass your function itself (without calling it), got NoneType"
    )


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        lambda lens, H: lens.repeat_interleave(H, dim=0),
        lambda lens, H: lens.repeat_interleave(H, dim=0).float(),  # float lengths: masked_softmax takes them
        lambda lens, H: lens.repeat_interleave(H, dim=0).double(),
        lambda lens, H: lens.repeat_interleave(H, dim=0).int(),
        lambda lens, H: lens.long().repeat_interleave(H, dim=0),  # float lengths in, int64 out
        lambda lens, H: lens[:, None].expand(len(lens), H, *lens.shape[1:]).reshape(-1, *lens.shape[1:]),
        lambda lens, H: lens[torch.arange(len(lens)).repeat_interleave(H)],
    ],
    ids=["repeat_interleave", "float32", "float64", "int32", "int64 from floats", "expand", "indexing"],
)
def test_4_1_right_answers_written_differently_pass(answer):
    result = check_4_1(answer)
    assert result and repr(result).startswith("✅ Exercise 4.1: correct on all 14 cases."), repr(result)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda lens, H: lens.repeat(H, *[1] * (lens.dim() - 1)), "you return [2, 4, 2, 4]"),
        (lambda lens, H: lens.repeat(H, *[1] * (lens.dim() - 1)).float(), "you return [2, 4, 2, 4]"),
        (lambda lens, H: lens.repeat_interleave(H, dim=0) + 0.5, "wrong value at index (0,): expected 2, got 2.5"),
        (lambda lens, H: lens.repeat_interleave(H, dim=0) > 0, "expected dtype torch.int64, got torch.bool"),
        (lambda lens, H: lens.repeat_interleave(H), "expected shape (6, 3), got (18,)"),
    ],
    ids=["repeat (as handed out)", "repeat, as floats", "not whole numbers", "bool", "flattened 2-D lengths"],
)
def test_4_1_wrong_answers_say_what_is_wrong(answer, message):
    result = check_4_1(answer)
    assert not result and message in repr(result), repr(result)
    assert "repeat_interleave" not in repr(result) and "[2, 2, 4, 4]" not in repr(result)  # no spoiler
