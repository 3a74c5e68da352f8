"""Intervention harvesting: the interventional sets' weighted counts, and AllPairs."""

import numpy as np

from skrank.clicks._harvest import all_pairs, pair_statistics


def test_pair_statistics_by_hand():
    # query 0, doc A at positions 1 (1 click / 2 shown) and 2 (1/4);
    # query 1, doc B at positions 1 (0/1), 2 (1/1) and 3 (1/2)
    item = np.array([0, 0, 1, 1, 1])
    position = np.array([0, 1, 0, 1, 2])
    rate = np.array([1 / 2, 1 / 4, 0.0, 1.0, 1 / 2])
    query = np.array([0, 0, 1, 1, 1])
    stats = pair_statistics(item, position, rate, query, n_positions=3,
                            n_queries=2).toarray()
    c = stats[:, :9].reshape(2, 3, 3)
    n = stats[:, 9:].reshape(2, 3, 3)
    # query 0: c[1,2] = 1/2, c[2,1] = 1/4, one pair each way
    np.testing.assert_allclose(c[0], [[0, 1 / 2, 0], [1 / 4, 0, 0], [0, 0, 0]])
    np.testing.assert_allclose(n[0], [[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    # query 1: every ordered pair of {1, 2, 3}, c[k, k'] = rate at k
    np.testing.assert_allclose(c[1], [[0, 0, 0], [1, 0, 1], [1 / 2, 1 / 2, 0]])
    np.testing.assert_allclose(n[1], np.ones((3, 3)) - np.eye(3))


def test_all_pairs_on_consistent_ratios():
    # c[k, k'] = theta_k * r_kk' exactly, with n = 1: AllPairs recovers theta
    theta = np.array([1.0, 0.5, 0.25])
    r = np.array([[0, 0.8, 0.6], [0.8, 0, 0.4], [0.6, 0.4, 0]])
    clicks = theta[:, None] * r
    shown = 1.0 - np.eye(3)
    totals = np.concatenate([clicks.ravel(), shown.ravel()])
    fitted = all_pairs(totals, 3)[0]
    np.testing.assert_allclose(fitted / fitted[0], theta, rtol=1e-5)
