"""simulate_clicks: the click models' rules, checked on their definitions."""

import numpy as np
import pytest

from skrank.datasets import simulate_clicks


def test_positions_follow_the_logger_and_sessions_repeat():
    log = simulate_clicks([0, 1, 0, 1, 1], [0.1, 0.9, 0.5, 0.3, 0.8],
                          query_id=["b", "b", "b", "a", "a"], n_sessions=2,
                          random_state=0)
    # query "a" (rows 3, 4) ranks row 4 first; "b" ranks rows 1, 2, 0
    np.testing.assert_array_equal(log.row, [4, 3, 1, 2, 0] * 2)
    np.testing.assert_array_equal(log.position, [1, 2, 1, 2, 3] * 2)
    np.testing.assert_array_equal(log.query_id, ["a", "a", "b", "b", "b"] * 2)
    np.testing.assert_array_equal(log.session_id, [0, 0, 1, 1, 1, 2, 2, 3, 3, 3])
    np.testing.assert_allclose(log.examination, [1, 1 / 2, 1, 1 / 2, 1 / 3] * 2)


def test_pbm_click_rate_is_theta_times_gamma():
    # 2 labels: gamma = noise + (1 - noise) * label = 0.2 or 1
    n = 20000
    log = simulate_clicks([1, 0, 1], [3, 2, 1], query_id=[0, 0, 0], noise=0.2,
                          propensity=[0.9, 0.5, 0.3], n_sessions=n, random_state=1)
    rate = np.bincount(log.position - 1, log.click) / n
    expected = np.array([0.9 * 1.0, 0.5 * 0.2, 0.3 * 1.0])
    np.testing.assert_allclose(rate, expected, atol=4 * np.sqrt(0.25 / n))


def test_cascade_clicks_the_first_attractive_row_only():
    log = simulate_clicks([0, 1, 0, 1], [4, 3, 2, 1], query_id=[0, 0, 0, 0],
                          model="cascade", noise=0.0, n_sessions=3, random_state=0)
    # noise 0: rows of label 0 never attract; the first relevant is position 2
    np.testing.assert_array_equal(log.click, [0, 1, 0, 0] * 3)
    np.testing.assert_array_equal(log.examination, [1, 1, 0, 0] * 3)


def test_to_frame():
    pytest.importorskip("pandas")
    frame = simulate_clicks([1, 0], [1, 0], query_id=[0, 0], random_state=0).to_frame()
    assert list(frame.columns)[:5] == ["session_id", "query_id", "row", "position",
                                       "click"]


@pytest.mark.parametrize("change, message", [
    (dict(model="dbn"), "`model` must be one of"),
    (dict(noise=1.5), "`noise` must be a number in"),
    (dict(n_sessions=0), "`n_sessions` must be a positive integer"),
    (dict(propensity=[1.0]), "covers positions 1..1"),
    (dict(propensity=lambda k: 2.0 / k), r"probabilities in \[0, 1\]"),
])
def test_bad_input(change, message):
    with pytest.raises(ValueError, match=message):
        simulate_clicks([1, 0], [1, 0], query_id=[0, 0], **change)
