"""The cutoff search of :class:`skrank.FAPCutoffClassifier` over pooled scores.

The rank cutoff comes from :func:`skrank.fap_curve`; the score threshold
from :func:`_threshold_curve`, which lets each query's set size differ.
"""

import numpy as np

from .._core._layout import rank_queries
from ..metrics._fap import _parts_at_each_rank, fap_curve


def _fap_at_each_rank(ranked, beta):
    """FAP of each query's top ``rank`` rows, at every row; nan without a relevant row."""
    fap = _parts_at_each_rank(ranked, beta)[2]
    return np.where(ranked.per_row(ranked.n_relevant) > 0, fap, np.nan)


def _threshold_curve(relevance, score, query_id, beta):
    """Mean FAP of the sets ``{score >= t}`` of every query, for every threshold t.

    The candidate thresholds are the distinct values of ``score``, highest
    first. For a threshold t, each query returns its rows scoring at least
    t: whole tie blocks, so its FAP is FAP@k_q(t) with k_q(t) the size of
    that set, an exact (tie-averaged) value, and 0 when the set is empty.
    Queries with no relevant row are left out, as in :func:`skrank.fap_curve`.
    The rank curve fixes one k for all queries; this curve lets k differ.

    Returns
    -------
    thresholds, mean_fap, mean_set_size : ndarray of shape (n_thresholds,)
    """
    ranked = rank_queries(relevance, score, query_id=query_id, ties="average")
    value = _fap_at_each_rank(ranked, beta)
    n_rows = ranked.n_rows
    block_end = np.append(ranked.block_start[1:], n_rows) - 1
    scored = ranked.n_relevant[ranked.block_query] > 0
    at_end = np.where(scored, value[block_end], 0.0)
    # what a block adds to its query's FAP: the value at its end minus the
    # value at the end of the block before it (0 for a query's first block)
    before = np.zeros_like(at_end)
    not_first = ranked.block_start != ranked.query_start[ranked.block_query]
    before[1:] = at_end[:-1]
    gain = at_end - np.where(not_first, before, 0.0)
    block_score = ranked.score[ranked.block_start]

    by_score = np.argsort(-block_score, kind="stable")
    sorted_score = block_score[by_score]
    running_fap = np.cumsum(gain[by_score])
    running_size = np.cumsum(ranked.block_size[by_score])
    new_value_next = np.append(sorted_score[1:] != sorted_score[:-1], True)
    last_of_value = np.flatnonzero(new_value_next)
    n_scored = int((ranked.n_relevant > 0).sum())
    return (
        sorted_score[last_of_value],
        running_fap[last_of_value] / n_scored,
        running_size[last_of_value] / ranked.n_queries,
    )


def _first_max(values, tolerance=1e-12):
    """Index of the first value within ``tolerance`` of the maximum (nan ignored)."""
    values = np.asarray(values, dtype=np.float64)
    return int(np.flatnonzero(values >= np.nanmax(values) - tolerance)[0])


def _threshold_sets_fap(relevance, score, query_id, beta, threshold):
    """Mean FAP of the sets ``{score >= threshold}`` (queries with a relevant row)."""
    ranked = rank_queries(relevance, score, query_id=query_id, ties="average")
    value = _fap_at_each_rank(ranked, beta)
    inside = ranked.score >= threshold
    size = np.add.reduceat(inside.astype(np.intp), ranked.query_start)
    last = ranked.query_start + np.maximum(size, 1) - 1
    per_query = np.where(size > 0, value[last], 0.0)
    return float(per_query[ranked.n_relevant > 0].mean())


def _top_k_mask(score, query_id, k):
    """Rows whose tie block starts within the top ``k`` of their query.

    Rows tied with the k-th row of a query are all inside, so a set can be
    longer than k only when scores tie at the cutoff; a query with fewer
    than k rows returns all of them.
    """
    ranked = rank_queries(
        np.zeros_like(score), score, query_id=query_id, ties="average"
    )
    inside_ranked = ranked.block_first_rank[ranked.block] <= k
    inside = np.empty(ranked.n_rows, dtype=bool)
    inside[ranked.order] = inside_ranked
    return inside


def search_cutoff(folds, fold_scores, relevance, groups, *, beta, max_k, cutoff):
    """The cutoff of best mean FAP over the pooled out-of-fold scores.

    Each (fold, query) pair is one query of the curve. Returns
    ``(cv_results, best_k, best_score, best_threshold)``, the threshold
    None with ``cutoff="rank"``.
    """
    # pool the folds; a query of one fold is one query of the curve
    test_rows = np.concatenate([test for _, test in folds])
    pooled_score = np.concatenate(fold_scores)
    pooled_relevance = relevance[test_rows]
    fold_of_row = np.repeat(np.arange(len(folds)), [len(t) for _, t in folds])
    if groups is None:
        pooled_query = fold_of_row
    else:
        query_code = np.unique(groups, return_inverse=True)[1].reshape(-1)
        pooled_query = fold_of_row * (query_code.max() + 1) + query_code[test_rows]
    if not np.isfinite(pooled_score).all():
        raise ValueError("`estimator` returned NaN or infinite scores.")
    if not pooled_relevance.any():
        raise ValueError(
            "No out-of-fold query has a relevant row, so FAP is undefined; "
            "use more data or other folds (`cv`)."
        )

    k, fap, f, ap = fap_curve(
        pooled_relevance, pooled_score, max_k=max_k, beta=beta,
        query_id=pooled_query, return_parts=True,
    )
    best = _first_max(fap)
    best_k = int(k[best])
    cv_results = {"k": k, "fap": fap, "f": f, "ap": ap}
    if cutoff == "rank":
        return cv_results, best_k, float(fap[best]), None
    thresholds, threshold_fap, set_size = _threshold_curve(
        pooled_relevance, pooled_score, pooled_query, beta
    )
    best_t = _first_max(threshold_fap)
    threshold = float(thresholds[best_t])
    # recomputed at the chosen sets, free of the running sums' rounding
    best_score = _threshold_sets_fap(
        pooled_relevance, pooled_score, pooled_query, beta, threshold
    )
    cv_results.update(
        thresholds=thresholds, threshold_fap=threshold_fap,
        mean_set_size=set_size,
    )
    return cv_results, best_k, best_score, threshold
