"""Notebook 5's self-checks fail the wrong answers they claim to catch, say why, and pass right ones."""

import math
import sys
import types

import pytest
import torch
from check_helpers import unsolved

from attention_helpers import valid_lens_to_mask
from attention_helpers.checks import check_5_1, check_5_2, check_5_3
from attention_helpers.transformer import PositionalEncoding, positional_encoding


def scaled(X, W_q, W_k, W_v):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    return torch.softmax(Q @ K.T / K.shape[-1] ** 0.5, dim=-1) @ V


def test_5_1_scaled_passes_unscaled_fails():
    assert check_5_1(scaled)
    unscaled = check_5_1(lambda X, W_q, W_k, W_v: torch.softmax((X @ W_q) @ (X @ W_k).T, dim=-1) @ (X @ W_v))
    assert not unscaled and "wrong value" in repr(unscaled) and "worked example" in repr(unscaled)
    batched = check_5_1(lambda X, W_q, W_k, W_v: scaled(X, W_q, W_k, W_v)[None])
    assert not batched and "shape" in repr(batched)


def test_5_2_bottom_right_passes_top_left_fails():
    assert check_5_2(lambda Q, K: torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q)
    top_left = check_5_2(lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril())
    assert not top_left and "wrong value" in repr(top_left)
    as_int = check_5_2(lambda Q, K: (torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q).long())
    assert not as_int and "dtype" in repr(as_int)


def encoding(n, d, swap=False, dtype=torch.float32):
    angles = torch.arange(n, dtype=torch.float64)[:, None] / 10000 ** (torch.arange(0, d, 2) / d)
    P = torch.zeros(n, d, dtype=torch.float64)
    P[:, 0::2], P[:, 1::2] = (angles.cos(), angles.sin()) if swap else (angles.sin(), angles.cos())
    return P.to(dtype)


def test_5_3_right_swapped_and_dtype():
    assert check_5_3(encoding)
    swapped = check_5_3(lambda n, d: encoding(n, d, swap=True))
    assert not swapped and "wrong value" in repr(swapped)
    double = check_5_3(lambda n, d: encoding(n, d, dtype=torch.float64))
    assert not double and "dtype" in repr(double)


def test_5_1_softmax_over_the_queries_dtype_and_modified_input():
    over_queries = check_5_1(lambda X, W_q, W_k, W_v: torch.softmax((X @ W_q) @ (X @ W_k).T / 3**0.5, 0) @ (X @ W_v))
    assert not over_queries and "wrong value at index (0, 0): expected 1.864" in repr(over_queries)
    assert "(case: the worked example of 5.2)" in repr(over_queries)
    double = check_5_1(lambda *args: scaled(*args).double())
    assert not double and "expected dtype torch.float32, got torch.float64" in repr(double)

    def modifies(X, W_q, W_k, W_v):
        X[0, 0] += 1.0
        return scaled(X, W_q, W_k, W_v)

    assert "modified its input (case: the worked example of 5.2)" in repr(check_5_1(modifies))


def test_5_2_transposed_and_not_a_tensor():
    right = lambda Q, K: torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q
    transposed = check_5_2(lambda Q, K: right(Q, K).T)  # (K, Q): keys along the rows
    assert not transposed and "wrong value at index (0, 1): expected False, got True" in repr(transposed)
    assert "(case: num_queries=3, num_keys=3)" in repr(transposed)
    as_list = check_5_2(lambda Q, K: right(Q, K).tolist())
    assert not as_list and "expected a torch.Tensor, got list" in repr(as_list)


def test_5_3_transposed_and_another_base():
    transposed = check_5_3(lambda n, d: encoding(n, d).T)
    assert not transposed and "expected shape (1, 2), got (2, 1)" in repr(transposed)

    def base_1000(n, d):
        angles = torch.arange(n, dtype=torch.float64)[:, None] / 1000 ** (torch.arange(0, d, 2) / d)
        return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(1).float()

    other_base = check_5_3(base_1000)
    assert not other_base and "wrong value at index (1, 2): expected 0.01, got 0.03162" in repr(other_base)
    assert "(case: num_steps=6, num_hiddens=4)" in repr(other_base)


@pytest.mark.parametrize("check", [check_5_1, check_5_2, check_5_3])
def test_unsolved_and_not_a_function(check):
    label = f"Exercise 5.{check.__name__[-1]}"
    assert repr(check(unsolved)).startswith(f"⏳ {label}: not attempted yet")
    assert repr(check(1.0)) == f"❌ {label}: pass your function itself (without calling it), got float"


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


BIAS = "torch.nn.attention.bias"  # PyTorch's causal_lower_right lives here; importing it loads the compiler (1 s+)


class StandInCausalBias:  # what the tests put in sys.modules for torch.nn.attention.bias: its two names, cheaply
    def __init__(self, Q, K):
        self.Q, self.K = Q, K

    def _materialize(self):
        return torch.ones(self.Q, self.K, dtype=torch.bool).tril(diagonal=self.K - self.Q)


def stand_in_bias_module():
    module = types.ModuleType(BIAS)
    module.CausalBias = StandInCausalBias
    module.causal_lower_right = lambda Q, K: StandInCausalBias(Q, K)
    return module


def lower_right_from_pytorch(Q, K):  # PyTorch's own bottom-right mask, which the exercise rules out
    from torch.nn.attention.bias import causal_lower_right

    return causal_lower_right(Q, K)._materialize().bool()


def lower_right_by_hand(Q, K):  # a CausalBias built by hand, then materialized
    from torch.nn.attention.bias import CausalBias

    return CausalBias(Q, K)._materialize()


@pytest.mark.parametrize(
    ("answer", "message"),
    [(lower_right_from_pytorch, "calls causal_lower_right"), (lower_right_by_hand, "calls CausalBias")],
    ids=["causal_lower_right", "CausalBias"],
)
def test_5_2_pytorch_s_bottom_right_mask_is_refused(monkeypatch, answer, message):
    monkeypatch.setitem(sys.modules, BIAS, stand_in_bias_module())
    result = check_5_2(answer)
    assert not result and f"{message}, which the exercise asks you to do without" in repr(result), repr(result)


def test_5_2_refuses_causal_lower_right_imported_during_the_check():
    before = sys.modules.pop(BIAS, None)  # as in a kernel that has not imported it: the check cannot watch it yet

    def imports_it_then_calls_it(Q, K):
        sys.modules.setdefault(BIAS, stand_in_bias_module())  # what `import torch.nn.attention.bias` does
        return lower_right_from_pytorch(Q, K)

    try:
        result = check_5_2(imports_it_then_calls_it)
    finally:
        sys.modules.pop(BIAS, None)
        if before is not None:
            sys.modules[BIAS] = before
    assert not result and "calls causal_lower_right" in repr(result), repr(result)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (valid_lens_to_mask, "you passed valid_lens_to_mask itself"),
        (lambda Q, K: valid_lens_to_mask(torch.arange(K - Q + 1, K + 1)[None], Q, K)[0], "calls valid_lens_to_mask"),
        (lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril(), "wrong value at index (0, 1): expected True"),
        (lambda Q, K: torch.ones(Q, K, dtype=torch.bool).triu(diagonal=K - Q), "wrong value at index"),
        (lambda Q, K: torch.ones(Q, K).tril(diagonal=K - Q), "expected dtype torch.bool, got torch.float32"),
    ],
    ids=["valid_lens_to_mask itself", "valid_lens_to_mask", "top-left", "upper", "floats"],
)
def test_5_2_wrong_and_forbidden_answers_say_what_is_wrong(answer, message):
    result = check_5_2(answer)
    assert not result and message in repr(result), repr(result)
    if "calls" in message or "itself" in message:
        assert "which the exercise asks you to do without" in repr(result)


@pytest.mark.parametrize(
    "answer",
    [
        lambda Q, K: torch.arange(K)[None, :] <= torch.arange(Q)[:, None] + K - Q,
        lambda Q, K: torch.ones(Q, K, dtype=torch.bool).tril(diagonal=K - Q),
        lambda Q, K: torch.ones(K, K, dtype=torch.bool).tril()[K - Q :],  # the last Q rows of a K x K mask
        lambda Q, K: ~torch.ones(Q, K, dtype=torch.bool).triu(diagonal=K - Q + 1),
    ],
    ids=["arange", "tril with an offset", "last rows of the square mask", "not triu"],
)
def test_5_2_right_answers_written_differently_pass(answer):
    result = check_5_2(answer)
    assert result and repr(result) == "✅ Exercise 5.2: correct on all 7 cases.", repr(result)


def encoding_by_exp_log(n, d):  # 1 / 10000^(2i/d) = exp(-2i ln(10000) / d), as d2l writes it
    angles = torch.arange(n, dtype=torch.float32)[:, None] * torch.exp(-torch.arange(0, d, 2) * math.log(10000.0) / d)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).reshape(n, d)


@pytest.mark.parametrize(
    "answer",
    [encoding, encoding_by_exp_log, lambda n, d: encoding(n, d, dtype=torch.float64).float()],
    ids=["columns filled", "exp and log", "float64, then float32"],
)
def test_5_3_right_answers_written_differently_pass(answer):
    assert check_5_3(answer)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (positional_encoding, "you passed positional_encoding itself"),
        (lambda n, d: positional_encoding(n, d), "calls positional_encoding"),
        (lambda n, d: PositionalEncoding(d, 0.0, max_len=n).P[0], "calls PositionalEncoding"),
        (lambda n, d: encoding(n, d, swap=True), "wrong value at index (0, 0): expected 0, got 1"),
        (lambda n, d: encoding(n, d, dtype=torch.float64), "expected dtype torch.float32, got torch.float64"),
    ],
    ids=["positional_encoding itself", "positional_encoding", "PositionalEncoding", "sin and cos swapped", "float64"],
)
def test_5_3_wrong_and_forbidden_answers_say_what_is_wrong(answer, message):
    result = check_5_3(answer)
    assert not result and message in repr(result), repr(result)
