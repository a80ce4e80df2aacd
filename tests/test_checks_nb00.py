"""Notebook 0's self-checks: right answers pass, each wrong answer fails and says why."""

import torch

from attention_helpers.checks import check_0_1, check_0_2, check_0_3
from attention_helpers.kernel_regression import nadaraya_watson_weights


def test_0_1_predictions():
    assert not check_0_1(None) and repr(check_0_1(None)).startswith("⏳")
    assert check_0_1(0.95) and check_0_1(0.9503)
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
    assert check_0_3(right)
    over_queries = check_0_3(lambda q, k, s: torch.softmax(-((q[:, None] - k) ** 2) / (2 * s**2), dim=0))
    assert not over_queries and "dim=0" in repr(over_queries)
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
