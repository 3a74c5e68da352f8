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
