"""Bootstrap intervals read from resamples drawn elsewhere.

The percentile, basic and BCa intervals of ``scipy.stats.bootstrap``, for
many cells at once (segments x metrics), with BCa's acceleration from a
jackknife over strata; and the one way every face of ``stats`` makes its
random generator from scikit-learn's ``random_state``.
"""

import numpy as np
from scipy.special import ndtr, ndtri
from sklearn.utils import check_random_state


def _quantiles(sorted_boot, n_finite, q):
    """numpy's "linear" quantile of each column (nan sorted last), q per column."""
    n_finite = np.asarray(n_finite)
    q = np.broadcast_to(np.asarray(q, dtype=float), n_finite.shape)
    with np.errstate(invalid="ignore"):
        virtual = (n_finite - 1) * q
        ok = (n_finite > 0) & np.isfinite(virtual)
        below = np.where(ok, np.floor(virtual), 0).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(n_finite - 1, 0))
        t = np.where(ok, virtual - below, 0.0)
        cols = np.arange(n_finite.shape[0])
        a = sorted_boot[below, cols]
        b = sorted_boot[above, cols]
        diff = b - a
        out = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    return np.where(ok, out, np.nan)


def confidence_intervals(boot, estimate, level, method, acceleration=None):
    """(low, high) of each column of ``boot`` (resamples x cells; nan left out).

    The percentile, basic and BCa intervals of ``scipy.stats.bootstrap``
    (two-sided), computed from resamples drawn elsewhere. ``acceleration``
    (BCa's a-hat, one per cell) comes from the jackknife.
    """
    alpha = (1.0 - level) / 2.0
    finite = ~np.isnan(boot)
    n_finite = finite.sum(axis=0)
    if method == "BCa":
        with np.errstate(invalid="ignore", divide="ignore"):
            share = ((boot < estimate) & finite).sum(axis=0) + (
                (boot <= estimate) & finite
            ).sum(axis=0)
            z0 = ndtri(share / (2.0 * n_finite))
            z_alpha = float(ndtri(alpha))
            low_z = z0 + z_alpha
            high_z = z0 - z_alpha
            q_low = ndtr(z0 + low_z / (1 - acceleration * low_z))
            q_high = ndtr(z0 + high_z / (1 - acceleration * high_z))
    else:
        q_low, q_high = alpha, 1.0 - alpha
    ordered = np.sort(boot, axis=0)
    low = _quantiles(ordered, n_finite, q_low)
    high = _quantiles(ordered, n_finite, q_high)
    if method == "basic":
        low, high = 2 * estimate - high, 2 * estimate - low
    return low, high


def jackknife_acceleration(theta_i, cell, group, n_cells):
    """BCa's a-hat per cell from jackknife values ``theta_i`` (one per query).

    Queries belong to groups (strata) nested in cells; scipy's formula for
    several samples: U = (n_g - 1)(mean_g - theta_i),
    a = sum(U**3 / n_g**3) / (6 * sum(U**2 / n_g**2) ** 1.5) over the cell.
    """
    n_groups = int(group.max()) + 1 if group.shape[0] else 0
    n_g = np.bincount(group, minlength=n_groups).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_g = np.bincount(group, weights=theta_i, minlength=n_groups) / n_g
        u = (n_g[group] - 1) * (mean_g[group] - theta_i)
        num = np.bincount(cell, weights=u**3 / n_g[group] ** 3, minlength=n_cells)
        den = np.bincount(cell, weights=u**2 / n_g[group] ** 2, minlength=n_cells)
        return num / (6.0 * den**1.5)


def make_rng(random_state):
    """A numpy Generator from scikit-learn's ``random_state`` conventions."""
    seed = check_random_state(random_state).randint(0, 2**31 - 1, size=4)
    return np.random.default_rng(seed)
