"""Tukey's honestly significant difference over all systems at once.

Two tests of every pair of k systems on the same n queries, each holding
the family-wise error rate over all k(k-1)/2 pairs by itself (so their
p-values need no further correction):

* ``"tukey_hsd"``: the randomised Tukey HSD test (Carterette, TOIS 2012).
  Under the null hypothesis that the systems do not differ, each query's k
  scores could have come from any system: permuting them within the query
  (the blocked design) gives the null distribution of the **range** of the
  systems' means, ``max(mean) - min(mean)``. A pair's p-value is the share
  of permutations whose range reaches the pair's observed ``|mean_a -
  mean_b|``.
* ``"tukey_hsd_parametric"``: the blocked Tukey HSD of the two-way analysis
  of variance without interaction (systems x queries): the mean squared
  error of its residuals, ``(k - 1)(n - 1)`` degrees of freedom, and the
  studentized range distribution (``scipy.stats.studentized_range``).

:func:`tukey_p_values` is what :func:`skrank.stats._paired.compare_per_query`
calls; it trusts its input (no NaN, at least two systems).
"""

import math
import warnings
from itertools import permutations

import numpy as np
from scipy import stats

from .._core._params import Rule
from .._core._validation import describe

#: the tests of all systems at once, in the order of their columns
TUKEY_TESTS = ("tukey_hsd", "tukey_hsd_parametric")
#: their names in a result's text
TEST_NAMES = {"tukey_hsd": "Tukey HSD", "tukey_hsd_parametric": "Tukey HSD (ANOVA)"}

# largest number of cells (resamples x queries x systems) held at once
_CHUNK_CELLS = 2_000_000


def check_test(name, value):
    """``test`` of :func:`compare`: the tuple of tests asked for, in column order."""
    asked = [value] if isinstance(value, str) else value
    if value is None:
        asked = []
    message = (
        f"`{name}` must be None, 'tukey_hsd', 'tukey_hsd_parametric' or a list of "
        f"them, got {describe(value)}."
    )
    if not isinstance(asked, (list, tuple)):
        raise ValueError(message)
    for test in asked:
        if not isinstance(test, str) or test not in TUKEY_TESTS:
            raise ValueError(message)
    return tuple(test for test in TUKEY_TESTS if test in asked)


TEST = Rule(check_test, ("no-such-test", 1.5, ["tukey_hsd", "t_test"], {"tukey_hsd"}))


def tukey_p_values(values, a_index, b_index, tests, n_resamples, rng):
    """``{column: p-values of the pairs (a_index[j], b_index[j])}`` for ``tests``.

    ``values`` is ``(n_systems, n_queries)``, without NaN. With no query
    every p-value is NaN.
    """
    n = values.shape[1]
    out = {}
    for test in tests:
        if n == 0:
            p = np.full(len(a_index), np.nan)
        elif test == "tukey_hsd":
            p = randomised_tukey_p_values(values, a_index, b_index, n_resamples, rng)
        else:
            p = parametric_tukey_p_values(values, a_index, b_index)
        out[f"p_{test}"] = p
    return out


def _ranges(rows, order):
    """Range of the system means for each set of within-query permutations.

    ``rows`` is ``(n_queries, n_systems)``; ``order`` is ``(n_sets, n_queries,
    n_systems)``: system j of set s takes the score ``rows[q, order[s, q, j]]``
    on query q.
    """
    n, k = rows.shape
    start = (np.arange(n, dtype=np.intp) * k)[:, None]  # of each query in rows.ravel()
    sums = rows.ravel()[order + start].sum(axis=1)
    return (sums.max(axis=1) - sums.min(axis=1)) / n


def _count_reaching(ranges, observed, tolerance):
    """How many ``ranges`` reach each observed difference (up to rounding)."""
    ranges = np.sort(ranges)
    below = np.searchsorted(ranges, observed - tolerance, side="left")
    return ranges.shape[0] - below


def randomised_tukey_p_values(values, a_index, b_index, n_resamples, rng):
    """The randomised Tukey HSD p-value of each pair.

    Exact (every one of the ``(k!)**n`` sets of within-query permutations,
    p = hits / total) when that number is at most ``n_resamples``; otherwise
    ``n_resamples`` random sets, p = (1 + hits) / (1 + n_resamples).
    """
    k, n = values.shape
    rows = np.ascontiguousarray(values.T)
    means = values.mean(axis=1)
    observed = np.abs(means[a_index] - means[b_index])
    tolerance = 1e-9 * float(np.abs(values).max())
    hits = np.zeros(observed.shape[0])
    per_set = n * k
    size = max(1, _CHUNK_CELLS // per_set)
    orders = math.factorial(k)
    # (k!)**n, computed only when the logarithms say it is small
    small = n * math.log(orders) <= math.log(n_resamples) + 1e-9
    total = orders**n if small else n_resamples + 1
    if total <= n_resamples:
        every = np.array(list(permutations(range(k))), dtype=np.intp)  # (k!, k)
        powers = orders ** np.arange(n, dtype=np.int64)
        for start in range(0, total, size):
            codes = np.arange(start, min(total, start + size), dtype=np.int64)
            digits = (codes[:, None] // powers[None, :]) % orders  # (size, n)
            hits += _count_reaching(_ranges(rows, every[digits]), observed, tolerance)
        return hits / total
    # few systems: draw each query's permutation from the table of all k!
    every = np.array(list(permutations(range(k))), dtype=np.intp) if k <= 7 else None
    for start in range(0, n_resamples, size):
        count = min(size, n_resamples - start)
        if every is None:
            order = np.argsort(rng.random((count, n, k)), axis=2)
        else:
            order = every[rng.integers(0, orders, size=(count, n))]
        hits += _count_reaching(_ranges(rows, order), observed, tolerance)
    return (1.0 + hits) / (1.0 + n_resamples)


def parametric_tukey_p_values(values, a_index, b_index):
    """The blocked (two-way ANOVA residual) Tukey HSD p-value of each pair.

    NaN with fewer than two queries; 1 for a pair with equal means, 0 for
    a pair with different means when the residuals are all 0 (up to
    rounding: the systems differ by a constant on every query).
    """
    k, n = values.shape
    means = values.mean(axis=1)
    difference = np.abs(means[a_index] - means[b_index])
    if n < 2:
        return np.full(difference.shape[0], np.nan)
    residuals = values - means[:, None] - values.mean(axis=0)[None, :] + values.mean()
    df = (k - 1) * (n - 1)
    mse = float(np.sum(residuals**2)) / df
    if mse <= (1e-12 * float(np.abs(values).max())) ** 2:  # zero but for rounding
        mse = 0.0
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        q = difference / np.sqrt(mse / n)
        p = np.asarray(stats.studentized_range.sf(q, k, df), dtype=float)
    p = np.where(np.isinf(q), 0.0, p)
    return np.where(difference == 0, 1.0, p)
