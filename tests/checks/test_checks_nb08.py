"""The self-checks of notebook 8 must pass right answers and fail each wrong one they claim to catch, saying why."""

import math

import pytest
import torch
from check_helpers import says, unsolved

from attention_helpers.checks import CheckResult, check_8_1, check_8_2, check_8_3
from attention_helpers.checks.nb08 import _peak_mib
from attention_helpers.lessons.efficient import merge


def right_merge(a, b):
    (m_a, s_a, o_a), (m_b, s_b, o_b) = a, b
    m = torch.maximum(m_a, m_b)
    safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    alpha, beta = torch.exp(m_a - safe), torch.exp(m_b - safe)
    return m, alpha * s_a + beta * s_b, alpha[:, None] * o_a + beta[:, None] * o_b


def right_online(q, k, v, block, *, rescale_o=True):
    """The online loop over blocks of keys; rescale_o=False is the notebook's bug (o kept unscaled when a block
    raises the running max)."""
    m = torch.full(q.shape[:1], -math.inf)
    s, o = torch.zeros(q.shape[:1]), torch.zeros(q.shape[0], v.shape[1])
    for start in range(0, k.shape[0], block):
        x = q @ k[start : start + block].T / math.sqrt(q.shape[1])
        m_new = torch.maximum(m, x.amax(-1))
        p = torch.exp(x - m_new[:, None])
        rescale = torch.exp(m - m_new)
        o = (o * rescale[:, None] if rescale_o else o) + p @ v[start : start + block]
        s, m = s * rescale + p.sum(-1), m_new
    return o / s[:, None]


def test_unsolved_is_reported_not_raised():
    for result in (check_8_1(unsolved), check_8_2(unsolved), check_8_3(None)):
        assert isinstance(result, CheckResult) and not result and repr(result).startswith("⏳")


def test_8_1_right():
    assert check_8_1(right_merge)
    assert check_8_1(lambda a, b: list(right_merge(a, b)))  # a list of (m, s, o) is right too, not a crash


def test_8_1_nan_on_empty_sides():
    def no_safe_max(a, b):
        (m_a, s_a, o_a), (m_b, s_b, o_b) = a, b
        m = torch.maximum(m_a, m_b)
        alpha, beta = torch.exp(m_a - m), torch.exp(m_b - m)  # -inf - -inf = NaN
        return m, alpha * s_a + beta * s_b, alpha[:, None] * o_a + beta[:, None] * o_b

    result = check_8_1(no_safe_max)
    assert not result and "nan" in repr(result) and "safe max" in repr(result)


def test_8_1_unrescaled_and_wrong_max():
    result = check_8_1(lambda a, b: (torch.maximum(a[0], b[0]), a[1] + b[1], a[2] + b[2]))
    assert not result and "common max" in repr(result)

    def min_instead_of_max(a, b):
        (m_a, s_a, o_a), (m_b, s_b, o_b) = a, b
        m = torch.minimum(m_a, m_b)
        return m, s_a * torch.exp(m_a - m) + s_b * torch.exp(m_b - m), o_a + o_b

    result = check_8_1(min_instead_of_max)
    assert not result and "wrong value at index (0, 0)" in repr(result) and "common max" in repr(result)


def test_8_1_bringing_the_larger_max_down_fails_on_overflow():
    def keep_a_max(a, b):  # right ratios, but the sums follow a's max: exp(m_b - m_a) overflows when b's is far larger
        (m_a, s_a, o_a), (m_b, s_b, o_b) = a, b
        safe = torch.where(torch.isneginf(m_a), torch.zeros_like(m_a), m_a)
        beta = torch.exp(m_b - safe)
        return m_a, torch.exp(m_a - safe) * s_a + beta * s_b, torch.exp(m_a - safe)[:, None] * o_a + beta[:, None] * o_b

    result = check_8_1(keep_a_max)
    assert not result and "100 apart" in repr(result) and "larger max" in repr(result)


def test_8_1_right_answers_written_differently_pass():
    def log_sum_exp_form(a, b):  # m holds the log of the whole sum, s = 1
        (m_a, s_a, o_a), (m_b, s_b, o_b) = a, b
        la, lb = m_a + torch.log(s_a), m_b + torch.log(s_b)
        m = torch.logaddexp(la, lb)
        safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        wa, wb = torch.exp(m_a - safe), torch.exp(m_b - safe)
        return m, torch.where(torch.isneginf(m), 0.0, 1.0), wa[:, None] * o_a + wb[:, None] * o_b

    def nan_to_num_form(a, b):
        (m_a, s_a, o_a), (m_b, s_b, o_b) = a, b
        m = torch.maximum(m_a, m_b)
        alpha, beta = torch.exp(m_a - m).nan_to_num(0.0), torch.exp(m_b - m).nan_to_num(0.0)
        return m, alpha * s_a + beta * s_b, alpha[:, None] * o_a + beta[:, None] * o_b

    assert check_8_1(log_sum_exp_form), check_8_1(log_sum_exp_form)
    assert check_8_1(nan_to_num_form), check_8_1(nan_to_num_form)


def test_8_1_forbidden_merge_modified_inputs_and_bad_return():
    assert "passed merge itself" in repr(check_8_1(merge))
    assert "calls merge" in repr(check_8_1(lambda a, b: tuple(merge(a, b))))

    def in_place(a, b):
        result = right_merge(a, b)
        a[1].mul_(2.0)
        return result

    assert "modified its input" in repr(check_8_1(in_place))
    assert "tuple (m, s, o)" in repr(check_8_1(lambda a, b: a[2]))
    assert "pass your function itself" in repr(check_8_1(right_merge(*[(torch.zeros(1),) * 3] * 2)))


def online_no_rescale(q, k, v, block):
    """The notebook's buggy loop: o is not rescaled when a block raises the running max."""
    return right_online(q, k, v, block, rescale_o=False)


DIAGNOSIS = "o was not"  # what the success message says the bug was


def test_8_2_right_and_the_notebook_bug():
    right = check_8_2(right_online)
    assert right and DIAGNOSIS in repr(right) and "of the (Q, K) scores at once" in repr(right)
    result = check_8_2(online_no_rescale)  # the symptom only: on which cases it is right and wrong
    says(result, "Exercise 8.2", "wrong value at index (0, 0)", "(case: blocks of 3, 3, 3 and 1 keys)")
    assert "Right on: each row's max in its first block; one key; one block holds every key." in repr(result)
    assert "Wrong on: blocks of 3, 3, 3 and 1 keys; random scores; scores increasing" in repr(result)
    assert DIAGNOSIS not in repr(result) and "rescale" not in repr(result)


def test_8_2_a_hand_written_softmax_over_whole_rows_fails():
    def whole_row_by_hand(q, k, v, block):  # amax, exp, sum over every key at once; `block` ignored
        x = q @ k.T / math.sqrt(q.shape[1])  # (Q, K)
        p = torch.exp(x - x.amax(-1, keepdim=True))
        return (p @ v) / p.sum(-1, keepdim=True)

    def scores_by_block_then_whole_rows(q, k, v, block):  # blocks for the scores, then one softmax over all of them
        x = torch.cat([q @ k[s : s + block].T for s in range(0, k.shape[0], block)], dim=1) / math.sqrt(q.shape[1])
        p = torch.exp(x - x.amax(-1, keepdim=True))
        return (p @ v) / p.sum(-1, keepdim=True)

    for wrong in (whole_row_by_hand, scores_by_block_then_whole_rows):
        result = check_8_2(wrong)
        says(result, "Exercise 8.2", "right values, but with 16 queries, 1024 keys and blocks of 32", "(Q, K) scores")
        assert DIAGNOSIS not in repr(result)


def test_8_2_torch_softmax_within_a_block_is_allowed_over_whole_rows_it_fails():
    def softmax_per_block(q, k, v, block):  # torch.softmax within each block, merged by the running max: right
        m = torch.full(q.shape[:1], -math.inf)
        s, o = torch.zeros(q.shape[:1]), torch.zeros(q.shape[0], v.shape[1])
        for start in range(0, k.shape[0], block):
            x = q @ k[start : start + block].T / math.sqrt(q.shape[1])  # (Q, bk)
            bm = x.amax(-1)  # the block's max: softmax(x) * exp(logsumexp) = exp(x - bm) * sum(exp(x - bm))
            w = torch.softmax(x, dim=-1)
            bs = torch.exp(x - bm[:, None]).sum(-1)
            m_new = torch.maximum(m, bm)
            scale_old, scale_block = torch.exp(m - m_new), torch.exp(bm - m_new) * bs
            s = s * scale_old + scale_block
            o = o * scale_old[:, None] + scale_block[:, None] * (w @ v[start : start + block])
            m = m_new
        return o / s[:, None]

    right = check_8_2(softmax_per_block)
    assert right and DIAGNOSIS in repr(right), repr(right)

    def torch_softmax_over_whole_rows(q, k, v, block):
        return torch.softmax(q @ k.T / math.sqrt(q.shape[1]), dim=-1) @ v

    result = check_8_2(torch_softmax_over_whole_rows)
    says(result, "Exercise 8.2", "right values, but with 16 queries, 1024 keys and blocks of 32", "(Q, K) scores")


def test_8_2_other_bugs_are_wrong_values_without_the_bug_story():
    def forgets_sqrt_d(q, k, v, block):
        return right_online(q * math.sqrt(q.shape[1]), k, v, block)

    result = check_8_2(forgets_sqrt_d)
    assert not result and "wrong value" in repr(result) and DIAGNOSIS not in repr(result)
    assert "Right on: one key; one block holds every key." not in repr(result)  # the scale matters wherever K > 1

    def last_block_only(q, k, v, block):
        start = (k.shape[0] - 1) // block * block
        return right_online(q, k[start:], v[start:], block)

    assert not check_8_2(last_block_only)


def test_8_3_prediction():
    measured = _peak_mib()
    assert measured > 0
    assert check_8_3(measured * 1.05)
    too_far = check_8_3(measured * 1.5)
    assert not too_far and "off by more than 10 %" in repr(too_far)
    quadratic = check_8_3(measured * 2)  # 4 x the L = 2048 peak
    assert not quadratic and "like L²" in repr(quadratic)
    for bad in ("8", -1.0, True):
        assert not check_8_3(bad) and "number of MiB" in repr(check_8_3(bad))


def test_8_2_a_softmax_over_all_keys_fails_on_memory_sdpa_is_forbidden():
    import torch.nn.functional as F

    for softmax in (torch.softmax, F.softmax):  # allowed by name: a softmax within a block is fine; over rows it fails
        result = check_8_2(lambda q, k, v, block, f=softmax: f(q @ k.T / math.sqrt(q.shape[1]), -1) @ v)
        says(result, "Exercise 8.2", "right values, but with 16 queries", "(Q, K) scores")
        assert "calls" not in repr(result)
    sdpa = check_8_2(lambda q, k, v, block: F.scaled_dot_product_attention(q[None], k[None], v[None])[0])
    assert "calls F.scaled_dot_product_attention, which the exercise asks you to do without" in repr(sdpa)


def test_8_2_forbids_every_helper_it_names():
    from attention_helpers.lessons.efficient import tiled_attention

    tiled = check_8_2(
        lambda q, k, v, b: tiled_attention(q[None, None], k[None, None], v[None, None], block_q=b, block_k=b)[0, 0]
    )
    assert not tiled and "calls tiled_attention, which the exercise asks you to do without" in repr(tiled)
    assert "you passed tiled_attention itself" in repr(check_8_2(tiled_attention))


def test_8_2_shape_and_dtype_are_named_with_the_case():
    first = "(case: each row's max in its first block)"
    kept = check_8_2(lambda *args: right_online(*args)[:, None])
    assert not kept and "expected shape (2, 2), got (2, 1, 2) " + first in repr(kept)
    double = check_8_2(lambda *args: right_online(*args).double())
    assert not double and "expected dtype torch.float32, got torch.float64 " + first in repr(double)
    assert DIAGNOSIS not in repr(kept) + repr(double)


# --- issue 35: tables of answers a learner gives -----------------------------------------------------------------


def online_without_a_max(q, k, v, block):
    """The running max deleted altogether: exact in real numbers, but exp overflows or underflows in float32."""
    s, o = torch.zeros(q.shape[:1]), torch.zeros(q.shape[0], v.shape[1])
    for start in range(0, k.shape[0], block):
        p = torch.exp(q @ k[start : start + block].T / math.sqrt(q.shape[1]))  # (Q, block)
        s, o = s + p.sum(-1), o + p @ v[start : start + block]
    return o / s[:, None]


def online_first_block_max(q, k, v, block):
    """The first block's max, never raised: right until a later block scores far higher."""
    m, s, o = None, torch.zeros(q.shape[:1]), torch.zeros(q.shape[0], v.shape[1])
    for start in range(0, k.shape[0], block):
        x = q @ k[start : start + block].T / math.sqrt(q.shape[1])  # (Q, block)
        m = x.amax(-1) if m is None else m
        p = torch.exp(x - m[:, None])
        s, o = s + p.sum(-1), o + p @ v[start : start + block]
    return o / s[:, None]


def online_normalised(q, k, v, block):
    """Right, written differently: o kept as the running weighted mean (normalised at every block)."""
    m, s = torch.full(q.shape[:1], -math.inf), torch.zeros(q.shape[:1])
    o = torch.zeros(q.shape[0], v.shape[1])
    for start in range(0, k.shape[0], block):
        x = q @ k[start : start + block].T / math.sqrt(q.shape[1])  # (Q, block)
        m_new = torch.maximum(m, x.amax(-1))
        p, rescale = torch.exp(x - m_new[:, None]), torch.exp(m - m_new)
        s_new = s * rescale + p.sum(-1)
        o = (o * (s * rescale)[:, None] + p @ v[start : start + block]) / s_new[:, None]
        m, s = m_new, s_new
    return o


def online_by_logsumexp(q, k, v, block):
    """Right, written differently: the running log of the sum (l = m + log s) instead of m and s."""
    lse, o = torch.full(q.shape[:1], -math.inf), torch.zeros(q.shape[0], v.shape[1])
    for start in range(0, k.shape[0], block):
        x = q @ k[start : start + block].T / math.sqrt(q.shape[1])  # (Q, block)
        new = torch.logaddexp(lse, torch.logsumexp(x, -1))
        o = o * torch.exp(lse - new)[:, None] + torch.exp(x - new[:, None]) @ v[start : start + block]
        lse = new
    return o


@pytest.mark.parametrize(
    "answer",
    [right_online, online_normalised, online_by_logsumexp],
    ids=["m, s, o", "o normalised at every block", "log-sum-exp"],
)
def test_8_2_right_answers_written_differently_pass(answer):
    result = check_8_2(answer)
    assert result and repr(result).startswith("✅ Exercise 8.2: correct on all 8 cases"), repr(result)


@pytest.mark.parametrize(
    ("answer", "wrong_on"),
    [
        (online_without_a_max, "Wrong on: large scores, -100 to 100; scores near -1000"),
        (online_first_block_max, "Wrong on: large scores, -100 to 100"),
        (online_no_rescale, "Wrong on: blocks of 3, 3, 3 and 1 keys; random scores; scores increasing"),
    ],
    ids=["no running max", "the first block's max only", "o not rescaled (as handed out)"],
)
def test_8_2_wrong_answers_say_on_which_cases_not_why(answer, wrong_on):
    result = check_8_2(answer)
    says(result, "Exercise 8.2", "wrong value at index", wrong_on)
    assert DIAGNOSIS not in repr(result) and "rescale" not in repr(result)


def test_8_2_the_large_scores_are_exact_in_float32():
    # scores 2 c_j and c_j from q = (1, 1, 1, 1) and (1/2, ...), d = 4: no rounding for the check to hold against anyone
    k = torch.tensor([-30, -5, -50, -15, 50, 10, 47.5, -10, 30, 49.5, 0, 20])[:, None] * torch.ones(12, 4)
    scores = torch.tensor([[1.0] * 4, [0.5] * 4]) @ k.T / 2
    assert torch.equal(scores.double(), torch.tensor([[1.0] * 4, [0.5] * 4]).double() @ k.T.double() / 2)
    assert scores.max() == 100 and scores[0, :4].max() == -10  # the first block's max is 110 below the row's
