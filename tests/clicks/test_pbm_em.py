"""The PBM EM reaches the maximum of the position-based model's likelihood."""

import numpy as np
import pytest
from scipy.optimize import minimize

from skrank.clicks._pbm_em import informative_cells, pbm_conditional, pbm_em


def _log_likelihood(theta, gamma, position, item, clicks, shown):
    p = np.clip(theta[position] * gamma[item], 1e-12, 1 - 1e-12)
    return float(np.sum(clicks * np.log(p) + (shown - clicks) * np.log(1 - p)))


@pytest.mark.parametrize("seed", range(3))
def test_em_matches_a_direct_maximisation(seed):
    rng = np.random.default_rng(seed)
    n_positions, n_items = 3, 6
    position = np.tile(np.arange(n_positions), n_items)
    item = np.repeat(np.arange(n_items), n_positions)
    shown = rng.integers(20, 60, position.shape[0]).astype(float)
    truth = np.array([0.9, 0.5, 0.3])[position] * rng.uniform(0.2, 0.9, n_items)[item]
    clicks = rng.binomial(shown.astype(int), truth).astype(float)
    theta, gamma, _ = pbm_em(position, item, clicks, shown, n_positions=n_positions,
                             n_items=n_items, tol=1e-12, max_iter=100000)

    def negative(z):  # logits of theta (position 1 fixed at 1 - tiny) and gamma
        t = 1 / (1 + np.exp(-np.r_[12.0, z[:n_positions - 1]]))
        g = 1 / (1 + np.exp(-z[n_positions - 1:]))
        return -_log_likelihood(t, g, position, item, clicks, shown)

    best = minimize(negative, np.zeros(n_positions - 1 + n_items), method="BFGS",
                    options={"gtol": 1e-9, "maxiter": 10000})
    ours = _log_likelihood(theta, gamma, position, item, clicks, shown)
    assert ours >= -best.fun - 1e-6
    t = 1 / (1 + np.exp(-np.r_[12.0, best.x[:n_positions - 1]]))
    np.testing.assert_allclose(theta / theta[0], t / t[0], rtol=1e-3)


def _exact_cells(theta, gamma, seen, n=50.0):
    """Cells whose clicks equal their expectation ``n * theta[k] * gamma[d]``."""
    position, item = np.nonzero(seen)
    shown = np.full(position.shape, n)
    return position, item, shown * theta[position] * gamma[item], shown


@pytest.mark.parametrize("fit", [pbm_em, pbm_conditional])
@pytest.mark.parametrize("theta", [[1.0, 0.6], [0.6, 1.0], [0.5, 0.9, 0.3],
                                   [0.3, 0.2, 1.0, 0.1]])
def test_exact_counts_give_theta_exactly(theta, fit):
    # every pair at every position; expected counts are the likelihood's
    # maximum, so EM must return theta (relative to position 1) to 1e-6,
    # also where a lower position is examined more than the first
    theta = np.asarray(theta)
    gamma = np.array([0.2, 0.5, 0.8, 1.0])
    position, item, clicks, shown = _exact_cells(
        theta, gamma, np.ones((theta.shape[0], gamma.shape[0]), bool))
    fitted, _, _ = fit(position, item, clicks, shown, n_positions=theta.shape[0],
                       n_items=4, tol=1e-12, max_iter=100000)
    np.testing.assert_allclose(fitted / fitted[0], theta / theta[0], rtol=1e-6)


@pytest.mark.parametrize("fit", [pbm_em, pbm_conditional])
def test_exact_counts_on_sparse_designs(fit):
    # random thetas, gammas and sets of positions per pair (pair 0 at every
    # position, so every position is connected): the fixed point of the old
    # "largest theta = 1" scaling missed 12% of these by up to 29%
    rng = np.random.default_rng(0)
    for _ in range(100):
        n_positions, n_items = int(rng.integers(2, 6)), int(rng.integers(2, 8))
        theta = rng.uniform(0.05, 1.0, n_positions)
        gamma = rng.uniform(0.05, 1.0, n_items)
        seen = rng.random((n_positions, n_items)) < 0.6
        seen[:, 0] = True
        position, item, clicks, shown = _exact_cells(theta, gamma, seen)
        fitted, _, _ = fit(position, item, clicks, shown, n_positions=n_positions,
                           n_items=n_items, tol=1e-12, max_iter=100000)
        np.testing.assert_allclose(fitted / fitted[0], theta / theta[0], rtol=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_conditional_matches_a_direct_maximisation(seed):
    # the conditional likelihood written out: each pair's clicks given its
    # total are multinomial over its positions, p_k = n_k theta_k / sum n theta
    rng = np.random.default_rng(seed)
    n_positions, n_items = 4, 30
    seen = rng.random((n_positions, n_items)) < 0.7
    position, item = np.nonzero(seen)
    order = np.argsort(item, kind="stable")
    position, item = position[order], item[order]
    shown = rng.integers(1, 8, position.shape[0]).astype(float)
    gamma = rng.uniform(0.1, 0.9, n_items)
    truth = np.array([0.9, 0.5, 0.6, 0.2])[position] * gamma[item]
    clicks = rng.binomial(shown.astype(int), truth).astype(float)
    theta, _, _ = pbm_conditional(position, item, clicks, shown,
                                  n_positions=n_positions, n_items=n_items, tol=1e-12,
                                  max_iter=100000)

    def negative(z):  # log theta of positions 2..K, position 1 at 0
        log_theta = np.r_[0.0, z]
        weight = shown * np.exp(log_theta[position])
        total = np.bincount(item, weight, n_items)
        return -float(np.sum(clicks * (np.log(weight) - np.log(total[item]))))

    best = minimize(negative, np.zeros(n_positions - 1), method="BFGS",
                    options={"gtol": 1e-10})
    np.testing.assert_allclose(theta / theta[0], np.exp(np.r_[0.0, best.x]),
                               rtol=1e-5)


@pytest.mark.parametrize("conditional", [False, True])
def test_uninformative_cells_change_nothing(conditional):
    # a pair never clicked has gamma 0 at the maximum of both likelihoods, and
    # a pair seen at one position is constant in the conditional one: the
    # fit on informative_cells equals the fit on every cell
    rng = np.random.default_rng(5)
    position = np.r_[np.tile(np.arange(3), 8), 2]  # pair 8: once, at position 3
    item = np.r_[np.repeat(np.arange(8), 3), 8]
    shown = rng.integers(5, 30, 25).astype(float)
    clicks = rng.binomial(shown.astype(int), 0.3 * np.array([1.0, 0.6, 0.3])[position])
    clicks = clicks.astype(float)
    clicks[item == 0] = 0  # pair 0 has no click
    clicks[-1] = 1.0
    fit = pbm_conditional if conditional else pbm_em
    options = dict(n_positions=3, tol=1e-12, max_iter=100000)
    full, _, _ = fit(position, item, clicks, shown, n_items=9, **options)
    cells = (item, position, clicks, shown, np.zeros(25, dtype=int))
    item2, position2, clicks2, shown2, _ = informative_cells(cells,
                                                              conditional=conditional)
    kept = 7 if conditional else 8  # pair 0 goes; pair 8 too for the conditional fit
    np.testing.assert_array_equal(np.unique(item2), np.arange(kept))
    fitted, _, _ = fit(position2, item2, clicks2, shown2, n_items=kept, **options)
    np.testing.assert_allclose(fitted / fitted[0], full / full[0], rtol=1e-6)


def _swap_log(n_queries, n_sessions, theta, rng):
    """PBM clicks of a fixed ranker whose adjacent results swap at random.

    Each session swaps each pair (1, 2), (3, 4), ... with probability 1/2
    and then (2, 3), (4, 5), ...: every position meets its neighbours, few
    sessions per query, attractiveness from a beta distribution.
    """
    n_positions = theta.shape[0]
    gamma = rng.beta(1.0, 2.5, size=(n_queries, n_positions))
    n = n_queries * n_sessions
    order = np.tile(np.arange(n_positions), (n, 1))
    rows = np.arange(n)
    for start in (0, 1):
        for k in range(start, n_positions - 1, 2):
            swap = rng.random(n) < 0.5
            a, b = order[rows, k].copy(), order[rows, k + 1].copy()
            order[swap, k], order[swap, k + 1] = b[swap], a[swap]
    query = np.repeat(np.arange(n_queries), n_sessions)
    click = rng.random((n, n_positions)) < theta[None, :] * gamma[query[:, None], order]
    return (click.ravel().astype(int), np.tile(np.arange(1, n_positions + 1), n),
            np.repeat(query, n_positions), order.ravel())


def _sessions(click, theta):
    """The displayed list of each row of :func:`_swap_log`: one a session."""
    return np.arange(click.shape[0]) // theta.shape[0]


def test_conditional_is_unbiased_with_few_sessions():
    # 3 sessions per query: per-pair gammas from 3 impressions are where
    # em's maximum likelihood goes wrong; the conditional fit should not
    from skrank.clicks import estimate_position_bias
    theta = np.array([0.8, 0.9, 0.5, 0.45, 0.2])  # position 2 examined most
    rng = np.random.default_rng(11)
    click, position, query, doc = _swap_log(20000, 3, theta, rng)
    bias = estimate_position_bias(click, position, list_id=_sessions(click, theta),
                                  query_id=query, doc_id=doc,
                                  method="conditional", n_resamples=0)
    np.testing.assert_allclose(bias.propensity, theta / theta[0], rtol=0.04)


@pytest.mark.slow
def test_conditional_interval_coverage():
    # 60 logs of a design unlike those the estimator was developed on: the
    # 90% interval of positions 2..5 should cover the truth about 90% of
    # the time (240 intervals, 4 per log and correlated: a wide band)
    from skrank.clicks import estimate_position_bias
    theta = np.array([1.0, 0.9, 0.9, 0.5, 0.3])
    covered = []
    for rep in range(60):
        rng = np.random.default_rng(100 + rep)
        click, position, query, doc = _swap_log(300, 4, theta, rng)
        bias = estimate_position_bias(click, position,
                                      list_id=_sessions(click, theta),
                                      query_id=query, doc_id=doc,
                                      method="conditional", confidence_level=0.9,
                                      n_resamples=200, random_state=rep)
        covered.append((bias.interval[1:, 0] <= theta[1:] / theta[0])
                       & (theta[1:] / theta[0] <= bias.interval[1:, 1]))
    assert 0.82 <= np.mean(covered) <= 0.97


@pytest.mark.parametrize("method", ["em", "conditional"])
@pytest.mark.parametrize("theta, gamma, seen", [
    # the old "largest theta = 1" scaling gave [1, 1, 0.523] here (stuck at 1)
    ([0.8, 0.7, 0.4], [0.8, 0.1, 0.5, 0.4], [[1, 1, 1, 1], [1, 0, 0, 0], [1, 0, 1, 0]]),
    # and [1, 3.72, 3.72] here: position 2 examined 4 times as often as 1
    ([0.2, 0.8, 0.7], [0.6, 0.1, 0.5, 0.7], [[1, 1, 1, 1], [1, 1, 1, 0], [1, 1, 0, 1]]),
])
def test_a_log_of_exact_counts_gives_theta(method, theta, gamma, seen):
    # one query, documents d shown at the positions k of `seen`, 100 times
    # each, clicked exactly 100 * theta[k] * gamma[d] times (whole numbers)
    from skrank.clicks import estimate_position_bias
    theta, gamma = np.array(theta), np.array(gamma)
    click, position, doc = [], [], []
    for k, d in zip(*np.nonzero(seen)):
        clicked = int(round(100 * theta[k] * gamma[d]))
        click += [1] * clicked + [0] * (100 - clicked)
        position += [k + 1] * 100
        doc += [d] * 100
    # each row its own impression, all of one query
    bias = estimate_position_bias(click, position, list_id=np.arange(len(click)),
                                  query_id=np.zeros(len(click)), doc_id=doc,
                                  method=method, n_resamples=0)
    np.testing.assert_allclose(bias.propensity, theta / theta[0], rtol=1e-6)


def test_conditional_converges_on_a_chain_of_adjacent_swaps():
    # positions joined only through their neighbours: alternating updates
    # crawl there (and stop short); the fit at its default tolerance must
    # match a direct maximisation of the conditional likelihood
    from skrank.clicks._position_bias import _cells
    theta = 1 / np.arange(1, 13) ** 0.8
    click, position, query, doc = _swap_log(400, 6, theta, np.random.default_rng(3))
    item, cell_position, clicks, shown, _ = informative_cells(
        _cells(click, position - 1, query, doc, 12), conditional=True)
    n_items = int(item.max()) + 1
    fitted, _, n_iter = pbm_conditional(cell_position, item, clicks, shown,
                                        n_positions=12, n_items=n_items)
    assert n_iter < 20

    def negative(z):
        weight = shown * np.exp(np.r_[0.0, z])[cell_position]
        total = np.bincount(item, weight, n_items)
        return -float(np.sum(clicks * (np.log(weight) - np.log(total[item]))))

    def gradient(z):
        weight = shown * np.exp(np.r_[0.0, z])[cell_position]
        total = np.bincount(item, weight, n_items)
        expected = np.bincount(item, clicks, n_items)[item] * weight / total[item]
        return -(np.bincount(cell_position, clicks - expected, 12))[1:]

    best = minimize(negative, np.zeros(11), jac=gradient, method="BFGS",
                    options={"gtol": 1e-10, "maxiter": 10000})
    np.testing.assert_allclose(fitted / fitted[0], np.exp(np.r_[0.0, best.x]),
                               rtol=1e-6)
