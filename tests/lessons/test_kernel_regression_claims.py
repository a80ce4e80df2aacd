"""kernel_regression_claims measures notebook 0's kernel regression on other draws of its data: draw 0 is the
notebook's own, so each measure gives the notebook's printed numbers there."""

import math

from attention_helpers.lessons import kernel_regression_claims as kr


def test_draw_0_is_the_notebooks_data_and_gives_its_numbers():
    x, y = kr._data(0)
    assert len(x) == 20 and bool((x[1:] >= x[:-1]).all()) and 0 <= x.min() and x.max() <= 5
    assert math.isclose(kr._miss(0), 0.41 / 0.93, abs_tol=0.01)  # "misses them by 0.41 at most; the noise 0.93"
    assert round(kr._nearest_weight(0), 2) == 0.52  # "each query's largest weight is 0.52 to 1.00"
    assert kr._best_bandwidth(0) == 0.5  # "smallest error at σ = 0.5"
    assert kr._neighbour(0, "miss") < 2  # the largest miss: a neighbour closer than 2σ


def test_each_measure_tells_its_story_from_the_wrong_one():
    # a wider bandwidth averages more: it misses the points by more and gives the nearest one less weight
    assert kr._miss(0, 0.2) > kr._miss(0) and kr._nearest_weight(0, 0.2) < kr._nearest_weight(0)
    assert kr._best_bandwidth(0, "training values") == kr._BANDWIDTHS[0]  # the training error always wants the sharpest


def test_the_measures_run_on_one_thread_and_restore_the_thread_count():
    import torch

    threads = torch.get_num_threads()
    seen = []
    measure = kr._one_thread(lambda: seen.append(torch.get_num_threads()) or 0.0)
    assert measure() == 0.0 and seen == [1] and torch.get_num_threads() == threads
    assert math.isclose(kr._miss(0), 0.41 / 0.93, abs_tol=0.01) and torch.get_num_threads() == threads
