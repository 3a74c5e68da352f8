"""Intervention harvesting: the interventional sets' weighted counts, and AllPairs."""

import numpy as np
import pytest

from skrank.clicks import estimate_position_bias
from skrank.clicks._harvest import all_pairs, pair_statistics

from ._designs import adjacent_swaps, deterministic, rand_pair, shuffled_lists


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


def _objective(theta, r, clicks, shown):
    """AllPairs' log-likelihood, written out pair by pair (the reference)."""
    total = 0.0
    size = theta.shape[0]
    for k in range(size):
        for j in range(size):
            if k != j and shown[k, j] > 0:
                p = theta[k] * r[min(k, j), max(k, j)]
                misses = shown[k, j] - clicks[k, j]
                total += clicks[k, j] * np.log(p) + misses * np.log1p(-p)
    return total


def _noisy_counts():
    rng = np.random.default_rng(0)
    size = 4
    theta = np.array([1.0, 0.7, 0.5, 0.2])
    shown = rng.integers(5, 40, (size, size)).astype(float)
    shown = np.triu(shown, 1) + np.triu(shown, 1).T
    r = rng.uniform(0.2, 0.8, (size, size))
    r = (r + r.T) / 2
    clicks = rng.binomial(shown.astype(int), np.clip(0.9 * theta[:, None] * r, 0, 1))
    return clicks * (1 - np.eye(size)), shown


# every impression of the set S(1, 2) clicked at 1: the maximum lies on
# theta_1 r_12 = 1, where an unguarded Newton step stalls
BOUNDARY = (np.array([[0.0, 1, 4], [0, 0, 1], [4, 3, 0]]),
            np.array([[0.0, 1, 14], [1, 0, 10], [14, 10, 0]]))


@pytest.mark.parametrize("counts", [_noisy_counts(), BOUNDARY],
                         ids=["noisy", "boundary"])
def test_all_pairs_maximises_the_likelihood_scipy_finds(counts):
    # scipy's optimisers on the same objective, written out: for each theta
    # the best r of each pair set (a bounded 1-D search), then the best theta
    from scipy.optimize import minimize, minimize_scalar

    clicks, shown = counts
    size = clicks.shape[0]
    fitted = all_pairs(np.concatenate([clicks.ravel(), shown.ravel()]), size)[0]

    def profile(log_theta):
        theta = np.exp(np.r_[0.0, log_theta])
        total = 0.0
        for k in range(size):
            for j in range(k + 1, size):
                def negative(log_r, k=k, j=j):
                    r = np.zeros((size, size))
                    r[k, j] = np.exp(log_r)
                    part = np.zeros((size, size))  # the set {k, j} alone
                    part[[k, j], [j, k]] = shown[[k, j], [j, k]]
                    return -_objective(theta, r, clicks * (part > 0), part)
                top = -np.log(max(theta[k], theta[j])) - 1e-12
                total -= minimize_scalar(negative, bounds=(-30.0, top),
                                         method="bounded",
                                         options={"xatol": 1e-12}).fun
        return -total

    best = min((minimize(profile, start, method="Nelder-Mead",
                         options={"xatol": 1e-10, "fatol": 1e-13, "maxiter": 5000})
                for start in (np.zeros(size - 1), np.full(size - 1, -1.0))),
               key=lambda found: found.fun)
    # (all_pairs adds a millionth of a miss per impression: ratios within 1e-5)
    np.testing.assert_allclose(fitted, np.exp(np.r_[0.0, best.x]), rtol=1e-4)


def test_all_pairs_without_a_finite_or_a_reference_estimate():
    # position 4 is clicked only on its side of its one pair set (with 1):
    # the likelihood grows without bound as theta_4 does -> nan
    clicks = np.array([[0.0, 3, 0, 0], [1, 0, 1, 0], [2, 2, 0, 0], [5, 0, 0, 0]])
    shown = np.array([[0.0, 5, 4, 5], [5, 0, 2, 0], [4, 2, 0, 0], [5, 0, 0, 0]])
    fitted = all_pairs(np.concatenate([clicks.ravel(), shown.ravel()]), 4)[0]
    assert np.isfinite(fitted[:3]).all() and np.isnan(fitted[3])
    # position 1 never clicked on a moved pair: nothing is relative to it
    clicks = np.array([[0.0, 0], [2, 0]])
    shown = np.array([[0.0, 4], [4, 0]])
    fitted = all_pairs(np.concatenate([clicks.ravel(), shown.ravel()]), 2)[0]
    assert fitted[0] == 0 and np.isnan(fitted[1])


def test_all_pairs_leaves_position_1_when_another_is_examined_more():
    # exact expected counts of theta = [0.8, 1.0, 0.5]: position 2 is examined
    # most; an EM pinned at its largest theta stalled there (the fixed point 1)
    theta = np.array([0.8, 1.0, 0.5])
    r = np.array([[0, 0.5, 0.6], [0.5, 0, 0.3], [0.6, 0.3, 0]])
    shown = 10.0 * (1 - np.eye(3))
    clicks = theta[:, None] * r * shown
    fitted = all_pairs(np.concatenate([clicks.ravel(), shown.ravel()]), 3)[0]
    np.testing.assert_allclose(fitted, theta / theta[0], rtol=1e-8)


def test_all_pairs_marks_positions_without_evidence():
    # positions 1-2 share clicked pairs; 3 is linked to 4 only; 4-5: position
    # 5's pairs were never clicked at 5
    size = 5
    clicks = np.zeros((size, size))
    shown = np.zeros((size, size))
    for k, j, c_kj, c_jk in [(0, 1, 2, 1), (2, 3, 1, 1), (0, 4, 1, 0)]:
        shown[k, j] = shown[j, k] = 4
        clicks[k, j], clicks[j, k] = c_kj, c_jk
    fitted = all_pairs(np.concatenate([clicks.ravel(), shown.ravel()]), size)[0]
    # one interventional set: theta2 / theta1 = c[2, 1] / c[1, 2] = 1 / 2
    np.testing.assert_allclose(fitted[:2], [1.0, 0.5], rtol=1e-8)
    assert np.isnan(fitted[2]) and np.isnan(fitted[3])
    assert fitted[4] == 0.0


THETA = np.array([1.0, 0.6, 0.3, 0.2])
DESIGNS = {"rand_pair": rand_pair, "adjacent_swaps": adjacent_swaps,
           "shuffled_lists": shuffled_lists}


@pytest.mark.parametrize("design", DESIGNS)
def test_designs_the_guide_lists_are_estimated_right(design):
    # RandPair (the top result swapped with a random lower one: the issue's
    # [1, 1, 0.47] for [1, 0.6, 0.3]), swaps of neighbours, shuffles; each
    # query logged in 8 lists
    click, position, lists, query, doc = DESIGNS[design](
        THETA, n_queries=2000, n_lists=8, rng=11)
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  doc_id=doc, method="harvest", n_resamples=200,
                                  confidence_level=0.99, random_state=0)
    np.testing.assert_allclose(bias.propensity, THETA, rtol=0.12)
    assert ((bias.interval[:, 0] <= THETA) & (THETA <= bias.interval[:, 1])).all()


def test_rand_pair_mixed_with_the_loggers_own_lists():
    # a fifth of the traffic swapped, the rest in the logger's order
    theta = np.array([1.0, 0.6, 0.3])
    click, position, lists, query, doc = rand_pair(theta, n_queries=3000, n_lists=6,
                                                   rng=12, swapped=0.2)
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  doc_id=doc, method="harvest", n_resamples=200,
                                  confidence_level=0.99, random_state=1)
    assert ((bias.interval[:, 0] <= theta) & (theta <= bias.interval[:, 1])).all()
    np.testing.assert_allclose(bias.propensity, theta, rtol=0.1)


@pytest.mark.parametrize("design", ["rand_pair", "adjacent_swaps"])
def test_interval_coverage_near_nominal(design):
    # 100 logs of 300 queries: the 90% intervals of theta(2..4) cover the
    # truth at about 90%
    covered = []
    for rep in range(100):
        click, position, lists, query, doc = DESIGNS[design](
            THETA, n_queries=300, n_lists=6, rng=1000 + rep)
        bias = estimate_position_bias(click, position, list_id=lists,
                                      query_id=query, doc_id=doc, method="harvest",
                                      confidence_level=0.9, n_resamples=200,
                                      random_state=rep)
        covered.extend((bias.interval[1:, 0] <= THETA[1:])
                       & (THETA[1:] <= bias.interval[1:, 1]))
    assert 0.84 <= np.mean(covered) <= 0.96  # 300 intervals, correlated by log


@pytest.mark.parametrize("n_lists", [6, 1])
def test_logs_that_never_move_a_pair_are_refused_saying_why(n_lists):
    # a deterministic logger; RandPair on queries logged once (each pair is
    # seen at one position only)
    design = deterministic if n_lists > 1 else rand_pair
    click, position, lists, query, doc = design(THETA, n_queries=200,
                                                n_lists=n_lists, rng=13)
    with pytest.raises(ValueError, match="the logger never moves documents.*"
                       "randomisation experiment.*swap"):
        estimate_position_bias(click, position, list_id=lists, query_id=query,
                               doc_id=doc, method="harvest")


def test_a_position_not_linked_to_the_first_is_named():
    # query 0's documents move between positions 1 and 2, query 1's between
    # 3 and 4: nothing links 3 and 4 to 1
    #   query 0, positions 1 | 2: doc 0 clicked 2/2 | 1/1, doc 1 1/1 | 0/2,
    #   doc 2 0/1 | 0/1; query 1: docs 0 and 1 at positions 3 and 4
    click = [1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 1]
    position = [1, 2, 2, 1, 1, 2, 2, 1, 3, 4, 4, 3]
    lists = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    query = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    doc = [0, 1, 0, 1, 2, 1, 2, 0, 0, 1, 0, 1]
    with pytest.raises(ValueError, match="3, 4\\]? are not connected to position 1"):
        estimate_position_bias(click, position, list_id=lists, query_id=query,
                               doc_id=doc, method="harvest", n_resamples=0)
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  doc_id=doc, method="harvest", max_position=2,
                                  n_resamples=0)
    # one interventional set S(1, 2) of 3 pairs: c[1, 2] = 1 + 1 + 0 (click
    # rates at 1), c[2, 1] = 1 + 0 + 0: theta2 / theta1 = 1 / 2
    np.testing.assert_allclose(bias.propensity, [1.0, 1 / 2], rtol=1e-8)


def test_no_moved_pair_is_refused_from_the_statistics_too():
    # what skrank.dask checks on the client, where the rows are not
    from skrank.clicks._statistics import statistic_estimates

    totals = np.zeros(2 * 3 * 3)
    with pytest.raises(ValueError, match="No \\(query, document\\) pair is shown "
                       "at more than one position: the logger never moves documents"):
        statistic_estimates("harvest", totals, None, 3, 0, None)


def test_a_linked_position_never_clicked_there_is_named():
    # docs 0 and 1 swap positions 1 and 2, clicked only once, at 1; doc 2 is
    # clicked at 2 but never moves
    with pytest.raises(ValueError, match="Position 2 has no evidence \\(no click "
                       "there on a \\(query, document\\) pair also shown at another"):
        estimate_position_bias([1, 0, 0, 0, 0, 1], [1, 2, 2, 1, 1, 2],
                               list_id=[0, 0, 1, 1, 2, 2], query_id=[0] * 6,
                               doc_id=[0, 1, 0, 1, 3, 2], method="harvest",
                               n_resamples=0)
