"""Notebook 2's self-checks fail each wrong answer they claim to catch, say what is wrong, and pass right ones.

Complements tests/checks/test_checks.py (2.1's for and while loops, 2.2's bug and repair, 2.3's tensor of shape
(B, Q, K, h)).
"""

import math

import pytest
import torch
from check_helpers import says, unsolved

from attention_helpers.checks import TooLargeIntermediate, check_2_1, check_2_2, check_2_3


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


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


def shape_assert_with_a_generator(queries, keys, W_q, W_k, w_v):
    scores = broadcast(queries, keys, W_q, W_k, w_v)
    assert all(n == m for n, m in zip(scores.shape, (len(queries), queries.shape[1], keys.shape[1]), strict=True))
    return scores


def projections_in_a_loop_of_two(queries, keys, W_q, W_k, w_v):  # a loop over two things, not over the data
    q, k = (x @ W.T for x, W in ((queries, W_q), (keys, W_k)))
    return torch.tanh(q.unsqueeze(2) + k.unsqueeze(1)) @ w_v


def einsum_read_out(queries, keys, W_q, W_k, w_v):
    features = torch.einsum("bqd,hd->bqh", queries, W_q)[:, :, None] + torch.einsum("bkd,hd->bkh", keys, W_k)[:, None]
    return torch.einsum("bqkh,h->bqk", torch.tanh(features), w_v)


def vmapped_over_queries(queries, keys, W_q, W_k, w_v):  # no Python loop: 2.1 takes it, 2.3 does not
    q, k = queries @ W_q.T, keys @ W_k.T  # (B, Q, h), (B, K, h)
    return torch.vmap(lambda q_i: torch.tanh(q_i[:, None] + k) @ w_v, in_dims=1, out_dims=1)(q)


def one_query_special_cased(queries, keys, W_q, W_k, w_v):  # a branch on a size is no loop
    if queries.shape[1] == 1:
        return (torch.tanh(queries @ W_q.T + keys @ W_k.T) @ w_v)[:, None]  # (B, 1, h) + (B, K, h) -> (B, 1, K)
    return broadcast(queries, keys, W_q, W_k, w_v)


@pytest.mark.parametrize(
    "answer",
    [
        broadcast,
        shape_assert_with_a_generator,
        projections_in_a_loop_of_two,
        einsum_read_out,
        vmapped_over_queries,
        one_query_special_cased,
    ],
    ids=["broadcast", "shape assert with a generator", "loop over the two projections", "einsum", "vmap", "a branch"],
)
def test_2_1_right_answers_written_differently_pass(answer):
    result = check_2_1(answer)
    assert result and repr(result) == "✅ Exercise 2.1: correct on all 15 cases.", repr(result)


def mapped_over_the_batch(queries, keys, W_q, W_k, w_v):  # map and a lambda: no loop in any code of its own
    return torch.stack(list(map(lambda q, k: broadcast(q[None], k[None], W_q, W_k, w_v)[0], queries, keys)))


def recursive_over_the_batch(queries, keys, W_q, W_k, w_v):
    if len(queries) == 1:
        return broadcast(queries, keys, W_q, W_k, w_v)
    first = broadcast(queries[:1], keys[:1], W_q, W_k, w_v)
    return torch.cat([first, recursive_over_the_batch(queries[1:], keys[1:], W_q, W_k, w_v)])


def in_plain_python(queries, keys, W_q, W_k, w_v):  # one torch call whatever the sizes, the loops in Python
    q, k, w = (queries @ W_q.T).tolist(), (keys @ W_k.T).tolist(), w_v.tolist()
    return torch.tensor(
        [
            [[sum(w_j * math.tanh(a + b) for w_j, a, b in zip(w, q_i, k_j, strict=True)) for k_j in ks] for q_i in qs]
            for qs, ks in zip(q, k, strict=True)
        ]
    )


def summed_over_hidden_units(queries, keys, W_q, W_k, w_v):
    q, k = queries @ W_q.T, keys @ W_k.T  # (B, Q, h), (B, K, h)
    return sum(torch.tanh(q[..., j, None] + k[:, None, :, j]) * w_v[j] for j in range(len(w_v)))


@pytest.mark.parametrize(
    ("answer", "loop"),
    [
        (mapped_over_the_batch, "a Python loop over the data (map, recursion, or a loop in a function it calls)"),
        (recursive_over_the_batch, "a Python loop over the data"),
        (summed_over_hidden_units, "a for loop or comprehension"),
        (one_query_at_a_time, "a for loop or comprehension"),
        (in_plain_python, "a for loop or comprehension"),
    ],
    ids=["map", "recursion", "a generator over the hidden units", "one query at a time", "plain Python"],
)
def test_2_1_loops_over_the_data_in_any_form_fail(answer, loop):
    says(check_2_1(answer), "Exercise 2.1", f"uses {loop}", "no Python loops")


def test_2_2_as_handed_out_says_the_symptom_not_where_the_bug_is():
    def as_handed_out(queries, keys, W_q, W_k, w_v):
        q_part, k_part = queries @ W_q.T @ w_v, keys @ W_k.T @ w_v  # (B, Q), (B, K)
        return torch.tanh(q_part[:, :, None] + k_part[:, None, :])  # (B, Q, K)

    result = check_2_2(as_handed_out)
    says(result, "Exercise 2.2", "wrong value at index (0, 0, 0)", "Symptom: every query of a sequence still ranks")
    for spoiler in ("tanh", "w_v", "meet", "before that", "Where", "Bug"):  # nothing points at the line to change
        assert spoiler not in repr(result), (spoiler, repr(result))


def test_2_2_right_answers_written_differently_pass():
    for answer in (broadcast, einsum_read_out, projections_in_a_loop_of_two, one_query_at_a_time):
        assert check_2_2(answer), answer.__name__


def over_unbound_queries(queries, keys, W_q, W_k, w_v):  # the queries' axis unbound: one (B, h) at a time
    k = keys @ W_k.T  # (B, K, h)
    return torch.stack([torch.tanh((q_i @ W_q.T)[:, None] + k) @ w_v for q_i in queries.unbind(1)], dim=1)


def vmapped_one_query_at_a_time(queries, keys, W_q, W_k, w_v):  # vmap's chunk_size=1: one query at a time
    q, k = queries @ W_q.T, keys @ W_k.T
    return torch.vmap(lambda q_i: torch.tanh(q_i[:, None] + k) @ w_v, in_dims=1, out_dims=1, chunk_size=1)(q)


def preallocated(queries, keys, W_q, W_k, w_v):
    q, k = queries @ W_q.T, keys @ W_k.T
    out = queries.new_empty(queries.shape[0], queries.shape[1], keys.shape[1])  # (B, Q, K)
    for i in range(q.shape[1]):
        out[:, i] = torch.tanh(q[:, i, None] + k) @ w_v
    return out


@pytest.mark.parametrize(
    "answer",
    [one_query_at_a_time, over_unbound_queries, vmapped_one_query_at_a_time, preallocated],
    ids=["one query at a time", "unbind", "vmap, chunk_size=1", "preallocated output"],
)
def test_2_3_right_answers_written_differently_pass(answer):
    result = check_2_3(answer)
    assert result and "never held all the hidden values at once" in repr(result), repr(result)


def every_query_kept(queries, keys, W_q, W_k, w_v):  # one query at a time, but every query's hidden values kept
    q, k = queries @ W_q.T, keys @ W_k.T
    hidden = [torch.tanh(q[:, i, None] + k) for i in range(q.shape[1])]  # Q tensors of (B, K, h)
    return torch.stack([h @ w_v for h in hidden], dim=1)


@pytest.mark.parametrize(
    ("answer", "phrases"),
    [
        (broadcast, ["TooLargeIntermediate", "shape (2, 3, 4, 6)", "as large as all B·Q·K·h"]),
        (
            vmapped_over_queries,
            ["TooLargeIntermediate", "shape (3, 2, 4, 6) (torch.vmap runs the queries side by side"],
        ),
        (every_query_kept, ["right values, but it held", "as much as all B·Q·K·h hidden values at once (256 KiB)"]),
    ],
    ids=["broadcast", "vmap over the queries", "every query's hidden values kept"],
)
def test_2_3_holding_every_hidden_value_at_once_fails_however_it_is_built(answer, phrases):
    says(check_2_3(answer), "Exercise 2.3", *phrases, "one query at a time")
