"""The ``"randomized"`` and ``"harvest"`` estimates from per-query statistics.

Both estimators reduce a click log to sums: per query, a few numbers per
position (``"randomized"``) or pair of positions (``"harvest"``). The
estimate is a function of the summed statistics, and the query bootstrap
draws queries and sums their statistics again
(:class:`~skrank._core._resample.Resampler`), so in-memory arrays and a
Dask DataFrame (whose partitions send their sums to the client) share
this step.
"""

import numpy as np

from .._core._resample import Resampler
from ._harvest import all_pairs
from ._randomized import randomized_theta


def statistic_estimates(method, totals, stats, n_positions, n_resamples, rng):
    """``(theta, draws)`` of ``"randomized"`` or ``"harvest"`` from their statistics.

    ``totals`` are the summed sufficient statistics (one row), ``stats``
    the per-query ones, a sparse (n_queries, n_columns) matrix whose rows
    the bootstrap draws (used only when ``n_resamples``): for
    ``"randomized"`` :func:`randomized_statistics`' 2 K columns, for
    ``"harvest"`` :func:`pair_statistics`' 2 K^2 columns. The step from
    statistics to estimates that the in-memory estimator and skrank.dask
    share; draws is None without resamples.
    """
    totals = np.asarray(totals, dtype=np.float64).reshape(1, -1)
    if method == "harvest":
        check_moved_pairs(totals, n_positions)
    theta = _theta(method, totals, n_positions)[0]
    if not n_resamples:
        return theta, None
    draws = _theta(method, resampled_totals(stats, n_resamples, rng), n_positions)
    # a resample without evidence at a position leaves it out there
    draws = np.where(np.isfinite(draws) & (draws > 0), draws, np.nan)
    return theta, draws


def check_moved_pairs(totals, n_positions):
    """Refuse, saying why, a log where no (query, document) pair changes position."""
    if not totals[0, n_positions * n_positions:].any():
        raise ValueError(
            "No (query, document) pair is shown at more than one position: the "
            "logger never moves documents, so a position's effect cannot be told "
            "apart from the relevance of what the logger puts there, and "
            "method='harvest' has no evidence. Log a randomisation experiment "
            "(shuffled lists: method='randomized') or swaps (a result moved to "
            "another position on queries seen more than once), or rows of "
            "several rankers of the same queries."
        )


def _theta(method, totals, n_positions):
    """``theta`` (n_sets, K) of summed statistics, one row per data set."""
    if method == "harvest":
        return all_pairs(totals, n_positions)
    return randomized_theta(totals, n_positions)


def resampled_totals(stats, n_resamples, rng):
    """Bootstrap sums of per-query statistics (sparse): (n_resamples, n_columns)."""
    return Resampler([stats.shape[0]], n_resamples, rng).sums(stats)[:, 0, :]
