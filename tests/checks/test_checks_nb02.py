"""Notebook 2's self-checks 2.1 and 2.3 fail each wrong answer they claim to catch, and say what is wrong.

Complements tests/checks/test_checks.py (2.1's for and while loops, 2.3's tensor of shape (B, Q, K, h)); check_2_2 is tested
with its exercise.
"""

import torch
from check_helpers import says, unsolved

from attention_helpers.checks import TooLargeIntermediate, check_2_1, check_2_3


def broadcast(queries, keys, W_q, W_k, w_v):  # a right answer to 2.1: every (query, key) pair at once
    features = (queries @ W_q.T)[:, :, None] + (keys @ W_k.T)[:, None]  # (B, Q, 1, h) + (B, 1, K, h)
    return torch.tanh(features) @ w_v  # (B, Q, K)


def one_query_at_a_time(queries, keys, W_q, W_k, w_v):  # a right answer to 2.3: (B, K, h) at a time
    q, k = queries @ W_q.T, keys @ W_k.T  # (B, Q, h), (B, K, h)
    return torch.stack([torch.tanh(q[:, i, None] + k) @ w_v for i in range(q.shape[1])], dim=1)  # (B, Q, K)


FIRST_2_1 = "(case: B=1, Q=1, K=1, d_q=1, d_k=1, h=2)"
FIRST_2_3 = "(case: B=2, Q=3, K=4, d_q=5, d_k=2, h=6)"  # 2.3 keeps the cases with Q, K, h >= 2


# --- 2.1 ---------------------------------------------------------------------------------------------------------


def test_2_1_without_tanh_names_the_index_expected_and_got():
    result = check_2_1(lambda q, k, W_q, W_k, w_v: ((q @ W_q.T)[:, :, None] + (k @ W_k.T)[:, None]) @ w_v)
    says(result, "Exercise 2.1", "wrong value at index (0, 0, 0): expected -0.7019, got -0.7684", FIRST_2_1)


def test_2_1_w_v_as_a_column_keeps_an_extra_axis():
    result = check_2_1(lambda q, k, W_q, W_k, w_v: broadcast(q, k, W_q, W_k, w_v[:, None]))
    says(result, "Exercise 2.1", "expected shape (1, 1, 1), got (1, 1, 1, 1)", FIRST_2_1)


def test_2_1_a_comprehension_or_a_loop_in_a_nested_function_is_a_loop():
    def comprehension(queries, keys, W_q, W_k, w_v):
        return torch.stack([broadcast(q[None], k[None], W_q, W_k, w_v)[0] for q, k in zip(queries, keys, strict=True)])

    def nested_helper(queries, keys, W_q, W_k, w_v):
        def per_sequence(b):  # the loop hides in a function defined inside the answer
            rows = []
            for i in range(queries.shape[1]):
                rows.append(broadcast(queries[b : b + 1, i : i + 1], keys[b : b + 1], W_q, W_k, w_v)[0, 0])
            return torch.stack(rows)  # (Q, K)

        return torch.stack(list(map(per_sequence, range(len(queries)))))  # map: no loop in this function's own code

    for answer in (comprehension, nested_helper):
        says(check_2_1(answer), "Exercise 2.1", "uses a for loop or comprehension", "no Python loops")


def test_2_1_modifying_an_input_unsolved_and_not_a_function():
    def scales_queries(queries, keys, W_q, W_k, w_v):
        queries.mul_(2.0)
        return broadcast(queries / 2, keys, W_q, W_k, w_v)

    says(check_2_1(scales_queries), "Exercise 2.1", "modified its input", FIRST_2_1)
    assert repr(check_2_1(unsolved)).startswith("⏳ Exercise 2.1: not attempted yet")
    says(check_2_1(5), "Exercise 2.1", "pass your function itself", "got int")


# --- 2.3 ---------------------------------------------------------------------------------------------------------


def test_2_3_one_query_at_a_time_passes():
    result = check_2_3(one_query_at_a_time)
    assert result and repr(result).startswith("✅ Exercise 2.3: correct on all")


def test_2_3_rejects_the_whole_hidden_tensor_naming_its_shape_and_size():
    result = check_2_3(broadcast)  # right values, but builds (B, Q, K, h) at once
    says(
        result,
        "Exercise 2.3",
        "raised TooLargeIntermediate: your function built a tensor of shape (2, 3, 4, 6)",
        "B·Q·K·h = 144",
        "one query at a time",
        FIRST_2_3,
    )


def test_2_3_rejects_it_in_any_shape():
    def flat(queries, keys, W_q, W_k, w_v):  # the same B·Q·K·h values as a (B·Q·K, h) matrix
        B, Q, K = queries.shape[0], queries.shape[1], keys.shape[1]
        pairs = ((queries @ W_q.T)[:, :, None] + (keys @ W_k.T)[:, None]).reshape(B * Q * K, -1)
        return (torch.tanh(pairs) @ w_v).reshape(B, Q, K)

    says(check_2_3(flat), "Exercise 2.3", "TooLargeIntermediate", "as large as all B·Q·K·h")
    assert issubclass(TooLargeIntermediate, Exception)


def test_2_3_wrong_values_are_still_wrong_values():
    result = check_2_3(lambda *args: one_query_at_a_time(*args) * 2)
    says(result, "Exercise 2.3", "wrong value at index (0, 0, 0): expected -3.423, got -6.845", FIRST_2_3)


def test_2_3_modifying_an_input_unsolved_and_not_a_function():
    def zeroes_w_v(queries, keys, W_q, W_k, w_v):
        out = one_query_at_a_time(queries, keys, W_q, W_k, w_v)
        w_v.zero_()
        return out

    says(check_2_3(zeroes_w_v), "Exercise 2.3", "modified its input", FIRST_2_3)
    assert repr(check_2_3(unsolved)).startswith("⏳ Exercise 2.3: not attempted yet")
    says(check_2_3(None), "Exercise 2.3", "pass your function itself", "got NoneType")
