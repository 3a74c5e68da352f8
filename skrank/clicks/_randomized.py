"""The ``"randomized"`` position-bias estimator: clicks compared within the same lists.

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

from ._validation import check_evidence


def _same_list_terms(click, position, list_):
    """The rows of lists that show position 1, and their list's click at 1."""
    n_lists = int(list_.max()) + 1
    top = position == 0
    shows_top = np.bincount(list_[top], minlength=n_lists) > 0
    top_clicks = np.bincount(list_[top], click[top], n_lists)
    keep = shows_top[list_]
    return keep, top_clicks[list_[keep]]


def randomized_totals(click, position, list_, n_positions):
    """The two terms of the estimate summed over the log: (1, 2 K), as the statistics."""
    keep, top = _same_list_terms(click, position, list_)
    return np.r_[np.bincount(position[keep], click[keep], n_positions),
                 np.bincount(position[keep], top, n_positions)][None, :]


def randomized_statistics(click, position, list_, query, n_positions, n_queries):
    """Per-query sums of the two terms of the estimate, for each position.

    A sparse (n_queries, 2 K) matrix: columns ``k`` hold the clicks at
    (0-based) position ``k`` of the query's lists that show position 1 and
    ``k``, columns ``K + k`` the clicks at position 1 of the same lists.
    ``list_`` and ``query`` are integer codes; every list lies whole in
    the arrays (one row per position), and in one query.
    """
    keep, top = _same_list_terms(click, position, list_)
    rows = query[keep]
    return sp.csr_matrix(
        (np.concatenate([click[keep], top]),
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
    check_evidence(theta, lambda value: (
        "no click there in the lists that also show position 1" if value == 0
        else "no click at position 1 in the lists that show it"), has_max,
        infinite=True)


#: a position whose exchangeability statistic exceeds this many standard
#: deviations is refused as not randomised (about 1e-9 one-sided, normal)
NOT_RANDOMISED_Z = 6.0


def exchangeability_z(position, list_, pair, n_positions):
    """Per position ``k``: how far the pairs' visits to ``k`` and 1 are from coin tosses.

    In a list shuffled uniformly, a (query, document) pair shown at
    position 1 or ``k`` of a list that shows both is at either with
    probability 1/2. Over the lists, a pair seen there ``n = a + b`` times
    (``a`` at 1, ``b`` at ``k``) has ``(a - b)^2 / n`` with mean 1 and
    variance ``2 (1 - 1/n)``; summed over the pairs seen at least twice,
    centred and scaled, this is about standard normal. A logger that keeps
    documents in place (the rows below a shuffled top-n, the unswapped
    results of a swap experiment) brings the same pairs back to ``k``: a
    large positive value. Returns z of shape (K,) (0 at position 1 and
    where no pair is seen twice). ``position`` is 0-based; ``list_`` and
    ``pair`` are integer codes.
    """
    n_lists = int(list_.max()) + 1
    top = position == 0
    top_pair = np.full(n_lists, -1, dtype=np.int64)
    top_pair[list_[top]] = pair[top]
    rows = (top_pair[list_] >= 0) & ~top
    # a: the list's top pair, counted at each other position the list shows;
    # b: the row's own pair at its position
    keys = np.concatenate([top_pair[list_[rows]] * n_positions + position[rows],
                           pair[rows].astype(np.int64) * n_positions + position[rows]])
    at_top = np.r_[np.ones(rows.sum()), -np.ones(rows.sum())]
    n_keys = (int(pair.max()) + 1) * n_positions
    if n_keys <= 4 * keys.shape[0]:  # a dense table: no sort
        seen = np.bincount(keys, minlength=n_keys)
        difference = np.bincount(keys, at_top, n_keys)
        cell = np.flatnonzero(seen)
        seen, difference = seen[cell], difference[cell]
    else:
        cell, inverse = np.unique(keys, return_inverse=True)
        inverse = inverse.reshape(-1)
        seen = np.bincount(inverse, minlength=cell.shape[0])
        difference = np.bincount(inverse, at_top, cell.shape[0])
    k = cell % n_positions
    twice = seen >= 2
    excess = np.bincount(k[twice], difference[twice] ** 2 / seen[twice] - 1.0,
                         n_positions)
    variance = np.bincount(k[twice], 2.0 * (1.0 - 1.0 / seen[twice]), n_positions)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(variance > 0, excess / np.sqrt(variance), 0.0)


def check_randomized_design(position, list_, pair, n_positions, has_max):
    """Refuse positions that the rows show were not randomised (with ``doc_id``)."""
    z = exchangeability_z(position, list_, pair, n_positions)
    bad = np.flatnonzero(z > NOT_RANDOMISED_Z)
    if bad.shape[0]:
        first = int(bad[0]) + 1
        hint = (f" For a shuffled top-{first - 1}, pass max_position={first - 1}."
                if first > 2 and not has_max else "")
        raise ValueError(
            f"Position {first} was not randomised: the same (query, document) "
            f"pairs come back to it far more often than they reach position 1 in "
            f"the same lists (z = {z[first - 1]:.3g}), so its click rate mixes the "
            "logger's choices with the position. method='randomized' needs lists "
            "shown in a uniformly random order; for swap experiments (RandPair) "
            "and other partial randomisations use method='harvest'." + hint
        )
