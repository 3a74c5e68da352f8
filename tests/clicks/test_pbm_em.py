"""The PBM EM reaches the maximum of the position-based model's likelihood."""

import numpy as np
import pytest
from scipy.optimize import minimize

from skrank.clicks._pbm_em import pbm_em


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


@pytest.mark.parametrize("theta", [[1.0, 0.6], [0.6, 1.0], [0.5, 0.9, 0.3],
                                   [0.3, 0.2, 1.0, 0.1]])
def test_exact_counts_give_theta_exactly(theta):
    # every pair at every position; expected counts are the likelihood's
    # maximum, so EM must return theta (relative to position 1) to 1e-6,
    # also where a lower position is examined more than the first
    theta = np.asarray(theta)
    gamma = np.array([0.2, 0.5, 0.8, 1.0])
    position, item, clicks, shown = _exact_cells(
        theta, gamma, np.ones((theta.shape[0], gamma.shape[0]), bool))
    fitted, _, _ = pbm_em(position, item, clicks, shown, n_positions=theta.shape[0],
                          n_items=4, tol=1e-12, max_iter=100000)
    np.testing.assert_allclose(fitted / fitted[0], theta / theta[0], rtol=1e-6)


def test_exact_counts_on_sparse_designs():
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
        fitted, _, _ = pbm_em(position, item, clicks, shown, n_positions=n_positions,
                              n_items=n_items, tol=1e-12, max_iter=100000)
        np.testing.assert_allclose(fitted / fitted[0], theta / theta[0], rtol=1e-6)
