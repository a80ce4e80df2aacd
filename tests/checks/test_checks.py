"""The exercise self-checks must fail wrong answers, say why, and pass right ones."""

import copy
import math
import warnings

import numpy as np
import pytest
import test_checks_nb00 as nb00
import test_checks_nb01 as nb01
import test_checks_nb02 as nb02
import test_checks_nb03 as nb03
import test_checks_nb04 as nb04
import test_checks_nb05 as nb05
import test_checks_nb06 as nb06
import test_checks_nb07 as nb07
import test_checks_nb08 as nb08
import test_checks_nb09 as nb09
import test_checks_nb10 as nb10
import torch
import torch.nn.functional as F

from attention_helpers import DotProductAttention, checks, masked_softmax, sequence_mask, valid_lens_to_mask
from attention_helpers.checks import (
    CheckResult,
    HeadQuiz,
    check_0_1,
    check_0_2,
    check_1_1,
    check_1_2,
    check_1_3,
    check_1_4,
    check_2_1,
    check_2_2,
    check_2_3,
    check_3_1,
    check_3_2,
    check_3_3,
    check_6_1,
    check_6_3,
    check_8_3,
    check_9_3,
    check_10_2,
)
from attention_helpers.checks._runner import _wrong_output, check_answer, combine
from attention_helpers.lessons.induction import InductionData


def own_masked_softmax(X, lens, fill=None):  # a right answer to 1.2 (with fill=None), without masked_softmax
    keep = torch.arange(X.shape[-1])[None, None, :] < lens[:, None, None]  # (B, 1, K)
    if fill is None:  # 1.10.1's recipe: -inf where the row has a real key, 0 where it has none
        filled = torch.where(keep, X, torch.where(lens[:, None, None] > 0, float("-inf"), 0.0).to(X.dtype))
    else:  # one fill everywhere (masked_fill raises where it does not fit the dtype)
        filled = X.masked_fill(~keep, fill)
    return torch.softmax(filled, -1).masked_fill(~keep, 0.0)


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
        (check_3_3, lambda q, k, v, lens: DotProductAttention()(q, k, v, lens), "calls DotProductAttention"),
        (check_3_2, valid_lens_to_mask, "passed valid_lens_to_mask itself"),
        (check_3_2, lambda lens, Q, K: valid_lens_to_mask(lens, Q, K), "calls valid_lens_to_mask"),
    ]

    def sdpa(q, k, v, lens):
        mask = None if lens is None else valid_lens_to_mask(lens, q.shape[1], k.shape[1])
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

    cases.append((check_3_3, sdpa, "calls F.scaled_dot_product_attention"))
    for check, answer, message in cases:
        result = check(answer)
        assert not result and message in repr(result), (check.__name__, repr(result))


def test_allowed_routes_pass():
    # sequence_mask is allowed in 1.1 and 1.2 although it builds its mask with the library's own code
    assert check_1_1(lambda lens, K: ~sequence_mask(torch.ones(len(lens), K, dtype=torch.bool), lens, value=False))
    assert check_1_2(own_masked_softmax)
    assert check_3_3(lambda q, k, v, lens: masked_softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), lens) @ v)
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


def test_1_2_half_precision_fails_a_minus_1e6_fill_and_names_the_dtype():
    assert check_1_2(own_masked_softmax)
    result = check_1_2(lambda X, lens: own_masked_softmax(X, lens, fill=-1e6))  # right in float32
    assert not result and "float16" in repr(result) and "65504" in repr(result), repr(result)
    upcast = check_1_2(lambda X, lens: own_masked_softmax(X.float(), lens))  # returns float32 for half inputs
    assert not upcast and "expected dtype torch.float16" in repr(upcast)

    def bf16_only_wrong(X, lens):  # rounds through float16: fine in float16, off by far in bfloat16's range
        out = own_masked_softmax(X, lens)
        return out if X.dtype != torch.bfloat16 else (out * 0.9).to(X.dtype)

    bf16 = check_1_2(bf16_only_wrong)
    assert not bf16 and "in bfloat16" in repr(bf16)


def tanh_after_w_v(queries, keys, W_q, W_k, w_v):  # the notebook's buggy "fast" scores of Exercise 2.2
    q_part, k_part = queries @ W_q.T @ w_v, keys @ W_k.T @ w_v  # (B, Q), (B, K)
    return torch.tanh(q_part[:, :, None] + k_part[:, None, :])  # (B, Q, K)


def test_2_2_names_the_bug_or_passes_the_repair():
    result = check_2_2(tanh_after_w_v)
    assert not result and "ranks the keys in the same order" in repr(result)

    def same_order(queries, keys, W_q, W_k, w_v):  # another separable score: every query ranks keys alike
        return (keys @ W_k.T @ w_v)[:, None, :].expand(queries.shape[0], queries.shape[1], keys.shape[1]) * 2

    result = check_2_2(same_order)
    assert not result and "same order" in repr(result)
    other = check_2_2(lambda q, k, W_q, W_k, w_v: torch.tanh((q @ W_q.T)[:, :, None] + (k @ W_k.T)[:, None]) @ -w_v)
    assert not other and "wrong value" in repr(other) and "Bug:" not in repr(other)
    assert check_2_2(lambda q, k, W_q, W_k, w_v: torch.tanh((q @ W_q.T)[:, :, None] + (k @ W_k.T)[:, None]) @ w_v)
    assert repr(check_2_2(unsolved)).startswith("⏳")


def test_2_3_catches_the_large_intermediate():
    def at_once(queries, keys, W_q, W_k, w_v):
        return torch.tanh((queries @ W_q.T)[:, :, None] + (keys @ W_k.T)[:, None]) @ w_v

    result = check_2_3(at_once)
    assert not result and "as large as all" in repr(result)


def test_3_1_predictions():
    assert repr(check_3_1(..., ...)).count("⏳") == 2
    assert check_3_1(16, 4) and check_3_1(16.0, 4.1)
    wrong = check_3_1(4, 16)  # sqrt and square mixed up
    assert not wrong and "you said 4" in repr(wrong) and "you said 16" in repr(wrong)
    half = check_3_1(16, 16)
    assert not half and "✅ Exercise 3.1 (a)" in repr(half) and "❌ Exercise 3.1 (b)" in repr(half)
    assert "expected a number" in repr(check_3_1("16", True))


def test_check_answer_kinds():
    assert check_answer("x", 2.0, 2, "why")
    assert not check_answer("x", 2.5, 2, "why", rel_tol=0.1)
    assert check_answer("x", (2, 3), (2, 3), "why") and check_answer("x", torch.Size([2, 3]), (2, 3), "why")
    assert "expected a shape" in repr(check_answer("x", "2, 3", (2, 3), "why"))
    assert check_answer("x", " NaN ", "nan", "why") and not check_answer("x", "zeros", "nan", "why")
    assert "choices as a string" in repr(check_answer("x", 0, "nan", "why"))
    assert "because" in repr(check_answer("x", 1, 2, "because"))
    both = combine([check_answer("a", 1, 1, "w"), check_answer("b", 1, 2, "w")])
    assert not both and repr(both).count("\n") == 1


def test_1_4_predictions():
    assert repr(check_1_4(..., ...)).count("⏳") == 2
    assert check_1_4("uniform", "zeros") and check_1_4(" Uniform", "ZEROS")
    wrong = check_1_4("error", "NaN")  # the two traps people expect
    assert not wrong and "you said 'error'" in repr(wrong) and "you said 'NaN'" in repr(wrong)
    assert "choices as a string" in repr(check_1_4(0.25, "zeros"))


# --- every check answers every answer (issue 24) ------------------------------------------------------------------
# A learner's function may return a list, None, another shape or dtype (float8, complex ...), a numpy array, NaN, or
# raise; it may also be wrong the first time and return something else the next (a check looks twice to name a
# bug). Each check must answer with a ❌ (never raise), and never need its last resort (`never_raises`).

RIGHT = {  # a right answer to every check that takes a function (each is tested as right in its own file)
    "0.3": nb00.right,
    "1.1": nb01.padding_mask,
    "1.2": own_masked_softmax,
    "1.3": nb01.causal_lengths,
    "2.1": nb02.broadcast,
    "2.2": nb02.broadcast,
    "2.3": nb02.one_query_at_a_time,
    "3.2": nb03.attn_mask,
    "3.3": lambda q, k, v, lens: nb03.scaled(q, k, v, lens),
    "4.1": lambda lens, H: lens.repeat_interleave(H, dim=0),
    "4.2": nb04.from_torch_mha,
    "4.3": lambda w, H: w.reshape(-1, H, *w.shape[1:]).mean(1),
    "5.1": nb05.scaled,
    "5.2": lambda Q, K: torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q,
    "5.3": nb05.encoding,
    "6.2": nb06.month_alignment,
    "7.1": nb07.slope,
    "7.2": nb07.chunked,
    "8.1": nb08.right_merge,
    "8.2": nb08.right_online,
    "9.1": nb09.right_step,
    "9.2": nb09.own_rope,
    "9.4": nb09.right_rope_step,
    "9.5": nb09.right_step,
    "10.1": nb10.score_by_hand,
    "10.3": nb10.fixed_head,
}


def _each(out, change):
    """change applied to a tensor, to each tensor of a tuple (merge's (m, s, o), a decode step's), or to a module."""
    return tuple(change(t) for t in out) if isinstance(out, tuple) else change(out)


def _other_dtype(t):
    return t.float() if t.dtype == torch.float64 else t.double()  # never the dtype a check expects


def _complex(t):
    with warnings.catch_warnings(action="ignore"):  # 4.2's module: "complex modules are a new feature"
        return t.to(torch.complex64)


def _off(t):
    return ~t if t.dtype == torch.bool else t + 1  # wrong values, same shape and dtype


SPOILED = {  # name -> what the learner's function returns instead of the right output
    "None": lambda out: None,
    "list": lambda out: (
        [t.tolist() if isinstance(t, torch.Tensor) else t for t in _each(out, lambda t: t)]
        if isinstance(out, tuple)
        else out.tolist()
        if isinstance(out, torch.Tensor)
        else [out]
    ),
    "unsqueezed": lambda out: _each(out, lambda t: t[None]) if not isinstance(out, torch.nn.Module) else None,
    "other dtype": lambda out: _each(out, _other_dtype),
    "float8": lambda out: _each(out, lambda t: t.to(torch.float8_e4m3fn)),
    "complex": lambda out: _each(out, _complex),
    "numpy": lambda out: _each(out, lambda t: t.detach().numpy()) if not isinstance(out, torch.nn.Module) else 3,
    "meta": lambda out: _each(out, lambda t: t.to("meta")),
    "NaN": lambda out: _each(out, lambda t: torch.full_like(t, math.nan) if t.is_floating_point() else _off(t)),
}


def spoiled(right, change, right_calls=0):
    """A learner's function: right for its first `right_calls` calls, then `change`(right output)."""
    calls = []

    def learner(*args):
        calls.append(1)
        out = right(*args)
        if isinstance(out, torch.nn.Module) and len(calls) > right_calls:  # 4.2: a module, spoiled as a whole
            out = copy.deepcopy(out)
        return out if len(calls) <= right_calls else change(out)

    return learner


def flaky(right, then):
    """Wrong values on its first call, then `then`(right output): a check's second look meets another answer."""
    calls = []

    def learner(*args):
        calls.append(1)
        out = right(*args)
        if isinstance(out, torch.nn.Module):
            out = copy.deepcopy(out)
            if len(calls) == 1:
                with torch.no_grad():
                    out.W_o.weight.add_(1.0)
                return out
        return _each(out, _off) if len(calls) == 1 else then(out)

    return learner


def raises(error):
    def learner(*args):
        raise error

    return learner


# The checks that call the learner's function again after a wrong answer, to name the bug (7.2 times it on a large
# input once every case is right: its learners are right on its 5 cases first).
SECOND_LOOK = {"0.3": 1, "2.2": 1, "3.3": 1, "4.1": 1, "7.2": 5, "8.2": 1, "10.3": 1}


def learners(exercise, right):
    """Every wrong answer the table puts to a check, by name."""
    found = {name: spoiled(right, change) for name, change in SPOILED.items()}
    found["raises ValueError"] = raises(ValueError("boom"))
    found["raises torch's NotImplementedError"] = raises(NotImplementedError('"softmax" not implemented for Float8'))
    found["raises RecursionError"] = raises(RecursionError("deep"))
    if exercise == "7.2":
        found |= {f"right, then {name}": spoiled(right, change, SECOND_LOOK["7.2"]) for name, change in SPOILED.items()}
        found["right, then raises"] = spoiled(right, lambda out: 1 / 0, SECOND_LOOK["7.2"])
    elif exercise in SECOND_LOOK:
        found |= {f"wrong, then {name}": flaky(right, change) for name, change in SPOILED.items()}
    return found


CHECKS = {name.removeprefix("check_").replace("_", "."): getattr(checks, name) for name in checks.__all__ if name.startswith("check_")}  # fmt: skip


# Spoiled answers that are right after all: merge may keep its partials in float64 (finish still returns float32);
# 0.3's weights may come back in float64, and 4.1's lengths as floats (masked_softmax takes whole-number floats).
STILL_RIGHT = {("8.1", "other dtype"), ("0.3", "other dtype"), ("4.1", "other dtype")}


@pytest.mark.parametrize("exercise", sorted(RIGHT, key=lambda e: tuple(map(int, e.split(".")))))
def test_every_wrong_function_gets_a_verdict_never_an_error(exercise):
    check, right = CHECKS[exercise], RIGHT[exercise]
    for name, learner in learners(exercise, right).items():
        if exercise == "8.1" and name == "meta":  # merge would compute on meta tensors: 2 s to load their kernels
            continue
        if (exercise, name) in STILL_RIGHT:
            assert check(learner), (exercise, name)
            continue
        try:
            result = check(learner)
        except Exception as error:  # noqa: BLE001  (what this test is about)
            pytest.fail(f"check_{exercise} raised on a learner's function that {name}: {error!r}")
        text = repr(result)
        assert isinstance(result, checks.CheckResult) and not result, (name, text)
        assert text.startswith(f"❌ Exercise {exercise}"), (name, text)
        assert "the check could not read your answer" not in text, (name, text)  # its last resort: not needed


QUIZ = HeadQuiz(
    torch.softmax(torch.randn(1, 2, 4, 4, generator=torch.Generator().manual_seed(0)), -1),
    InductionData(torch.tensor([[1, 2, 1, 2]]), torch.tensor([0]), torch.tensor([2]), 3),
)
ODD_ANSWERS = {  # answers no prediction exercise takes as right
    "list": [1],
    "empty list": [],
    "dict": {"a": 1},
    "numpy float": np.float64(-7.25),
    "numpy array": np.array([-7.25, 1.0]),
    "0-d tensor": torch.tensor(-7.25),
    "1-d tensor": torch.tensor([-7.25]),
    "float8 tensor": torch.tensor(-7.25).to(torch.float8_e5m2),
    "complex tensor": torch.tensor(-7.25 + 1j),
    "meta tensor": torch.empty((), device="meta"),
    "huge int": 10**400,
    "huge negative int": -(10**400),
    "NaN": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "complex": 1 + 2j,
    "bytes": b"x",
    "object": object(),
    "True": True,
    "a function": len,
}
PREDICTIONS = {  # exercise -> a call with the odd answer in every place
    "0.1": lambda a: check_0_1(a),
    "0.2": lambda a: check_0_2(a),
    "1.4": lambda a: check_1_4(a, a),
    "3.1": lambda a: check_3_1(a, a),
    "6.1": lambda a: check_6_1(a),
    "6.3": lambda a: check_6_3(a),
    "8.3": lambda a: check_8_3(a),
    "9.3": lambda a: check_9_3(a),
    "10.2": lambda a: check_10_2(a, a, QUIZ),
    "10.2 quiz": lambda a: check_10_2("A", "B", a),
}


@pytest.mark.parametrize("exercise", list(PREDICTIONS))
def test_every_odd_prediction_gets_a_verdict_never_an_error(exercise):
    for name, answer in ODD_ANSWERS.items():
        try:
            result = PREDICTIONS[exercise](answer)
        except Exception as error:  # noqa: BLE001  (what this test is about)
            pytest.fail(f"check {exercise} raised on the answer {name}: {error!r}")
        text = repr(result)
        assert isinstance(result, checks.CheckResult) and not result, (name, text)
        assert text.startswith(f"❌ Exercise {exercise.split()[0]}"), (name, text)
        assert "the check could not read your answer" not in text, (name, text)


def test_a_value_of_the_wrong_kind_is_named_with_its_module():
    expected = torch.tensor(1.0, dtype=torch.float64)
    assert _wrong_output([1.0], expected, torch.float64) == "expected a torch.Tensor, got list"
    # numpy's float64 is not the float64 tensor asked for: "got float64" read as if the dtype were right
    assert _wrong_output(np.float64(1.0), expected, torch.float64) == "expected a torch.Tensor, got numpy.float64"
