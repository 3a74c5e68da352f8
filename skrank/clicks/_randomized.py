"""The ``"randomized"`` position-bias estimator: click rates compared within the same lists.

In a randomisation experiment each displayed list shows its documents in
a uniformly random order, so under the position-based model a list ``L``
gets, on average, ``theta[k] * mean(gamma of L)`` clicks at any position
``k`` it has. Two positions compare like with like only over the same
lists: pooled over every list, the click rate at ``k`` mixes the lists
long enough to reach ``k``, whose documents may be better or worse than
those of the short lists that only reach position 1. So the estimate of
``theta[k] / theta[1]`` is

    sum_{L shows 1 and k} clicks(L, k)  /  sum_{L shows 1 and k} clicks(L, 1)

a ratio of sums over the lists that show both positions (with lists of one
length, the click rate at ``k`` over the click rate at 1). The bootstrap
resamples queries (the ``query_id`` a list answers), whose per-query sums of
both terms are the statistics below.
"""

import numpy as np
import scipy.sparse as sp


def randomized_statistics(click, position, list_, query, n_positions, n_queries):
    """Per-query sums of the two terms of the estimate, for each position.

    A sparse (n_queries, 2 K) matrix: columns ``k`` hold the clicks at
    (0-based) position ``k`` of the query's lists that show position 1 and
    ``k``, columns ``K + k`` the clicks at position 1 of the same lists.
    ``list_`` and ``query`` are integer codes; every list lies whole in
    the arrays (one row per position), and in one query.
    """
    n_lists = int(list_.max()) + 1
    top = position == 0
    shows_top = np.bincount(list_[top], minlength=n_lists) > 0
    top_clicks = np.bincount(list_[top], click[top], n_lists)
    keep = shows_top[list_]
    rows = query[keep]
    return sp.csr_matrix(
        (np.concatenate([click[keep], top_clicks[list_[keep]]]),
         (np.concatenate([rows, rows]),
          np.concatenate([position[keep], position[keep] + n_positions]))),
        shape=(n_queries, 2 * n_positions),
    )


def randomized_theta(totals, n_positions):
    """``theta`` (n_sets, K) of summed statistics, one row per data set.

    0 where no list showing position 1 had a click at ``k``; nan (or inf)
    where the lists showing ``k`` had no click at position 1.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals[:, :n_positions] / totals[:, n_positions:]


def check_randomized_evidence(theta, has_max):
    """Refuse a position whose like-with-like ratio is 0, nan or infinite."""
    bad = ~(np.isfinite(theta) & (theta > 0))
    if bad.any():
        first = int(np.flatnonzero(bad)[0]) + 1
        what = ("no click there in the lists that also show position 1"
                if theta[first - 1] == 0 else
                "no click at position 1 in the lists that show it")
        hint = (f"pass max_position={first - 1} to leave it and the positions "
                "below it out" + (" (`max_position` is set: lower it.)"
                                  if has_max else ""))
        raise ValueError(
            f"Position {first} has no evidence ({what}): its propensity cannot "
            f"be estimated and would be 0 or infinite; {hint}."
        )
