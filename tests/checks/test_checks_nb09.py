"""Notebook 9's self-checks must pass right answers and fail each wrong one they claim to catch, saying why."""

import math

import pytest
import torch
from check_helpers import says, unsolved

from attention_helpers.checks import check_9_1, check_9_2, check_9_3, check_9_4, check_9_5
from attention_helpers.lessons.generation import apply_rope, rope_angles


def attend(q, cache_k, cache_v):
    weights = torch.softmax(q @ cache_k.transpose(1, 2) / math.sqrt(q.shape[-1]), dim=-1)  # (B, 1, t + 1)
    return weights @ cache_v  # (B, 1, d_v)


def right_step(x_new, cache_k, cache_v, W_q, W_k, W_v):
    cache_k = torch.cat([cache_k, x_new @ W_k], dim=1)
    cache_v = torch.cat([cache_v, x_new @ W_v], dim=1)
    return attend(x_new @ W_q, cache_k, cache_v), cache_k, cache_v


def right_rope_step(x_new, cache_k, cache_v, W_q, W_k, W_v):
    position = torch.tensor([cache_k.shape[1]])
    cache_k = torch.cat([cache_k, apply_rope(x_new @ W_k, position)], dim=1)
    cache_v = torch.cat([cache_v, x_new @ W_v], dim=1)
    return attend(apply_rope(x_new @ W_q, position), cache_k, cache_v), cache_k, cache_v


def append_after_attention(x_new, cache_k, cache_v, W_q, W_k, W_v):
    out = attend(x_new @ W_q, cache_k, cache_v)  # the new token's key is not there yet
    return out, torch.cat([cache_k, x_new @ W_k], dim=1), torch.cat([cache_v, x_new @ W_v], dim=1)


def query_one_ahead(x_new, cache_k, cache_v, W_q, W_k, W_v):
    t = cache_k.shape[1]
    cache_k = torch.cat([cache_k, apply_rope(x_new @ W_k, torch.tensor([t]))], dim=1)
    cache_v = torch.cat([cache_v, x_new @ W_v], dim=1)
    q = apply_rope(x_new @ W_q, torch.tensor([cache_k.shape[1]]))  # the length after appending: t + 1
    return attend(q, cache_k, cache_v), cache_k, cache_v


def test_9_1_right_and_each_failure_mode():
    assert check_9_1(right_step)
    assert repr(check_9_1(unsolved)).startswith("⏳")
    result = check_9_1(append_after_attention)
    assert not result and "not to itself" in repr(result)

    def no_cache_growth(x_new, cache_k, cache_v, W_q, W_k, W_v):
        _, k, v = right_step(x_new, cache_k, cache_v, W_q, W_k, W_v)
        return attend(x_new @ W_q, k, v), cache_k, cache_v  # forgets to return the grown cache

    result = check_9_1(no_cache_growth)
    assert not result and "cache_k has shape" in repr(result) and "append" in repr(result)

    def modifies(x_new, cache_k, cache_v, W_q, W_k, W_v):
        W_q.mul_(1.0).add_(1e-3)
        return right_step(x_new, cache_k, cache_v, W_q, W_k, W_v)

    result = check_9_1(modifies)
    assert not result and "modified its input" in repr(result)

    def values_reversed(x_new, cache_k, cache_v, W_q, W_k, W_v):
        cache_k = torch.cat([x_new @ W_k, cache_k], dim=1)
        cache_v = torch.cat([x_new @ W_v, cache_v], dim=1)
        return attend(x_new @ W_q, cache_k, cache_v), cache_k, cache_v

    result = check_9_1(values_reversed)
    assert not result and "cache_v is not the values" in repr(result)

    def unscaled(x_new, cache_k, cache_v, W_q, W_k, W_v):
        _, k, v = right_step(x_new, cache_k, cache_v, W_q, W_k, W_v)
        return torch.softmax(x_new @ W_q @ k.transpose(1, 2), dim=-1) @ v, k, v

    result = check_9_1(unscaled)
    assert not result and "differs from full causal attention" in repr(result)

    result = check_9_1(lambda *args: right_step(*args)[0])
    assert not result and "tuple of three tensors" in repr(result)
    assert not check_9_1(
        right_step(torch.zeros(1, 1, 4), torch.zeros(1, 0, 4), torch.zeros(1, 0, 4), *[torch.eye(4)] * 3)
    )


def own_rope(x, positions):  # a right answer to 9.2
    d = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    angles = positions[:, None].double() * theta  # (L, d/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2)


def test_9_2_right_and_each_failure_mode():
    assert check_9_2(own_rope)
    result = check_9_2(apply_rope)
    assert not result and "apply_rope" in repr(result)
    result = check_9_2(lambda x, p: apply_rope(x.clone(), p))
    assert not result and "calls apply_rope" in repr(result)

    def uses_angles(x, positions):
        angles = rope_angles(positions, x.shape[-1])
        return own_rope(x, positions) + 0 * angles.sum()

    result = check_9_2(uses_angles)
    assert not result and "calls rope_angles" in repr(result)

    def half_split(x, positions):  # rotates feature j with j + d/2 (another convention), not neighbours
        d = x.shape[-1]
        perm = torch.arange(d).reshape(2, d // 2).T.flatten()  # 0, d/2, 1, d/2+1, ...
        return own_rope(x[..., perm], positions)[..., perm.argsort()]

    result = check_9_2(half_split)
    assert not result and "wrong value" in repr(result)

    result = check_9_2(lambda x, p: own_rope(x, p).float())  # loses float64
    assert not result and "dtype" in repr(result)

    result = check_9_2(lambda x, p: own_rope(x, torch.arange(x.shape[-2])))  # ignores the positions given
    assert not result and "wrong value" in repr(result)

    def in_place(x, positions):
        out = own_rope(x, positions)
        x.zero_()
        return out

    result = check_9_2(in_place)
    assert not result and "modified its input" in repr(result)


def test_9_3_predict_the_cache_size():
    assert check_9_3(10) and check_9_3(10.0)
    assert repr(check_9_3(...)).startswith("⏳")
    assert "64 K/V heads" in repr(check_9_3(80))
    assert "AND values" in repr(check_9_3(5))
    assert "2 bytes" in repr(check_9_3(20))
    assert "multiply" in repr(check_9_3(3))
    assert "a number" in repr(check_9_3("10 GiB"))
    for gb in (10.74, 10.737, 85.9, 5.37, 21.47):  # GB, not GiB (with or without another slip): the unit is named
        assert "in GB (10**9 bytes)" in repr(check_9_3(gb)), gb
    assert not check_9_3(True)


def test_9_4_and_9_5_find_the_bug_symptom_first_diagnosis_once_right():
    result = check_9_4(query_one_ahead)  # the notebook's bug: the symptom, not the diagnosis
    says(result, "Exercise 9.4", "wrong outputs, at step 0 in 0 of 4 sequences, step 1 in 3 of 3", "largest difference")
    assert "position" not in repr(result) and "all zeros" not in repr(result)
    right = check_9_4(right_rope_step)
    assert right and "The bug was: the query was rotated by cache_k.shape[1] read after the append" in repr(right)
    assert not check_9_4(right_step)  # forgets RoPE
    result = check_9_5(append_after_attention)
    says(result, "Exercise 9.5", "at step 0 in 4 of 4 sequences", "largest difference")
    assert "cache" not in repr(result) and "itself" not in repr(result) and "zero" not in repr(result)
    right = check_9_5(right_step)
    assert right and "The bug was: the query attended before the new key and value were in the cache" in repr(right)
    result = check_9_5(right_rope_step)  # RoPE where the exercise has none
    says(result, "Exercise 9.5", "step 0 in 0 of 4 sequences")
    assert "all zeros" not in repr(result)


def test_9_1_output_without_its_token_axis_and_an_error_name_the_step():
    def squeezed(*args):
        out, cache_k, cache_v = right_step(*args)
        return out[:, 0], cache_k, cache_v  # (B, d_v) instead of (B, 1, d_v)

    result = check_9_1(squeezed)
    assert not result and "after step 0 output has shape (1, 4), expected (1, 1, 4)" in repr(result)
    assert "append" not in repr(result)  # the hint is for the caches

    def fails_later(x_new, cache_k, cache_v, W_q, W_k, W_v):
        if cache_k.shape[1] == 2:
            raise IndexError("index 2 is out of bounds")
        return right_step(x_new, cache_k, cache_v, W_q, W_k, W_v)

    result = check_9_1(fails_later)
    assert "raised IndexError: index 2 is out of bounds  (step 2, B=1, L=5, d_model=6, d=4, d_v=3)" in repr(result)


def test_9_2_shape_and_unsolved():
    result = check_9_2(lambda x, positions: x[..., :-1])
    assert not result and "expected shape (1, 1, 1, 2), got (1, 1, 1, 1)" in repr(result)
    assert repr(check_9_2(unsolved)).startswith("⏳ Exercise 9.2: not attempted yet")


def test_9_4_appending_after_attending_has_its_own_symptom():
    def rope_after(x_new, cache_k, cache_v, W_q, W_k, W_v):
        position = torch.tensor([cache_k.shape[1]])
        out = attend(apply_rope(x_new @ W_q, position), cache_k, cache_v)  # the new key is not there yet
        cache_k = torch.cat([cache_k, apply_rope(x_new @ W_k, position)], dim=1)
        return out, cache_k, torch.cat([cache_v, x_new @ W_v], dim=1)

    result = check_9_4(rope_after)  # unlike the notebook's bug, wrong from step 0 (where it gives zeros: not said)
    says(result, "Exercise 9.4", "at step 0 in 4 of 4 sequences")
    assert "zero" not in repr(result)
    result = check_9_1(append_after_attention)  # 9.1 is no find-the-bug: its hint names the mistake
    says(result, "Exercise 9.1", "not to itself", "must be in the cache before the query attends")


@pytest.mark.parametrize("check", [check_9_1, check_9_4, check_9_5])
def test_decode_checks_unsolved_and_not_a_function(check):
    label = f"Exercise 9.{check.__name__[-1]}"
    assert repr(check(unsolved)).startswith(f"⏳ {label}: not attempted yet")
    assert repr(check(None)) == f"❌ {label}: pass your function itself (without calling it), got NoneType"


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


def rope_by_complex_numbers(x, positions):  # Meta's Llama code: pair (2j, 2j + 1) as x_2j + i x_2j+1
    d = x.shape[-1]
    theta = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    turn = torch.polar(torch.ones(len(positions), d // 2, dtype=torch.float64), positions[:, None].double() * theta)
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())  # (..., L, d/2)
    return torch.view_as_real(pairs * turn).flatten(-2).to(x.dtype)


def rope_by_rotation_matrices(x, positions):  # each pair times its 2 x 2 rotation matrix
    d = x.shape[-1]
    angles = positions[:, None].double() * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (L, d/2)
    cos, sin = angles.cos(), angles.sin()
    R = torch.stack([torch.stack([cos, -sin], -1), torch.stack([sin, cos], -1)], -2)  # (L, d/2, 2, 2)
    pairs = x.double().reshape(*x.shape[:-1], d // 2, 2, 1)  # (..., L, d/2, 2, 1)
    return (R @ pairs).reshape(x.shape).to(x.dtype)


@pytest.mark.parametrize(
    "answer",
    [own_rope, rope_by_complex_numbers, rope_by_rotation_matrices],
    ids=["even and odd features", "complex numbers", "rotation matrices"],
)
def test_9_2_right_answers_written_differently_pass(answer):
    result = check_9_2(answer)
    assert result and repr(result) == "✅ Exercise 9.2: correct on all 6 cases.", repr(result)


def rotate_half_pairs(x, positions):  # Hugging Face's convention: feature j paired with j + d/2
    d = x.shape[-1]
    angles = positions[:, None].double() * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (L, d/2)
    cos, sin = angles.cos().repeat(1, 2).to(x.dtype), angles.sin().repeat(1, 2).to(x.dtype)  # (L, d)
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


PAIRING = "Your function pairs feature j with feature j + d/2, as rotate_half does"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (rotate_half_pairs, PAIRING),
        (lambda x, p: rotate_half_pairs(x.float(), p).to(x.dtype), PAIRING),
        (lambda x, p: own_rope(x, -p), "wrong value at index (0, 0, 0, 0)"),  # turned the other way
        (lambda x, p: own_rope(x, torch.arange(x.shape[-2])), "wrong value at index (0, 0, 0, 0)"),  # positions ignored
        (lambda x, p: own_rope(x, p).float(), "expected dtype torch.float64, got torch.float32"),
    ],
    ids=["rotate_half", "rotate_half in float32", "turned the other way", "positions ignored", "float64 lost"],
)
def test_9_2_wrong_answers_say_what_is_wrong(answer, message):
    result = check_9_2(answer)
    says(result, "Exercise 9.2", message)
    assert (PAIRING in repr(result)) == (message == PAIRING), repr(result)  # the pairing is named only when it is so
    if message == PAIRING:
        assert "9.7.3's pairs, neighbours: (2j, 2j + 1)" in repr(result)


def test_9_5_as_handed_out_gives_the_symptom_not_what_the_outputs_hold():
    result = check_9_5(append_after_attention)  # the notebook's bug
    says(result, "Exercise 9.5", "wrong outputs, at step 0 in 4 of 4 sequences", "largest difference")
    for spoiler in ("zero", "cache", "itself", "before", "nothing"):
        assert spoiler not in repr(result), (spoiler, repr(result))


def test_9_4_rotating_query_and_key_one_position_too_far_is_caught_by_the_cache():
    """Both rotated by t + 1: the scores (relative positions) and outputs are right, but the cache holds every key one
    position off, which a later reader of the cache (a trimmed window, 9.7.5) would get wrong."""

    def both_shifted(x_new, cache_k, cache_v, W_q, W_k, W_v):
        position = torch.tensor([cache_k.shape[1] + 1])  # t + 1 for both
        cache_k = torch.cat([cache_k, apply_rope(x_new @ W_k, position)], dim=1)
        cache_v = torch.cat([cache_v, x_new @ W_v], dim=1)
        return attend(apply_rope(x_new @ W_q, position), cache_k, cache_v), cache_k, cache_v

    result = check_9_4(both_shifted)
    assert not result and "cache_k is not the keys of tokens 0 .. 0, each rotated by its own position" in repr(result)
    assert check_9_4(right_rope_step)
