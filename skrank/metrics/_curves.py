"""Precision-recall curves of rankings: at every cutoff k, interpolated, and their area.

* :func:`precision_recall_at_k_curve`: mean (or per-query) P@k and R@k for
  every k, one pass.
* :func:`interpolated_precision_recall_curve`: the interpolated precision at
  fixed recall levels (trec_eval's ``iprec_at_recall``).
* :func:`pr_auc_score`: the trapezoidal area under each query's PR curve.
* :class:`PrecisionRecallAtKDisplay`: draws them (matplotlib, imported
  lazily: ``pip install matplotlib``).

Why AP is an area: with R relevant rows, recall rises by 1/R exactly at the
relevant ranks, so AP = sum over relevant ranks i of P@i * (1/R) is the area
under the step curve that holds precision P@i over the recall step it
earns (a right Riemann sum of precision against recall). The interpolated
curve replaces each precision by the best precision at that recall or
beyond, so its area is at least AP. The trapezoidal rule joins consecutive
(R@i, P@i) points with straight lines instead; at a relevant rank i > 1,
P@(i-1) <= P@i, so every trapezoid lies under its step: the trapezoidal
area never exceeds AP, and equals it only for a perfect ranking.
"""


import numpy as np

from .._core._params import (
    CUTOFF,
    RANKING_OPTIONS,
)
from .._core._aggregate import (
    apply_no_relevant,
    check_aggregate_options,
    QueryValues,
    score_queries,
    vector_dot,
)
from .._core._layout import rank_queries, segment_sum
from .._core._validation import describe, to_array
from ._average_precision import _average_precision_terms
from .._core._warnings import warn
from ._presets_apply import validate_with_preset

KINDS = ("curve", "k")


# ------------------------------------------------------------- kernels ----


def _pr_auc_per_query(ranked):
    """Expected trapezoidal area between the points (R@i, P@i), i = 0..n, P@0 = 1.

    area = (1 / 2R) sum_i rel_i (P@i + P@(i-1)); E[rel_i P@i] is the AP term
    and E[rel_i P@(i-1)] = (i E[rel_i P@i] - E[rel_i]) / (i - 1) for i > 1,
    E[rel_1] for i = 1: both linear, so the tie average is exact.
    """
    terms = _average_precision_terms(ranked)
    share = ranked.tie_share
    rank = ranked.rank.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        previous = np.where(rank > 1, (rank * terms - share) / (rank - 1), share)
        total = segment_sum(terms + previous, ranked.query_start)
        return total / (2 * ranked.n_relevant)


def _hits_matrix(ranked, max_k):
    """(n_queries, max_k) expected hits@k of every query (k past its end: R)."""
    inside = ranked.rank <= max_k
    hits = np.zeros((ranked.n_queries, max_k))
    np.add.at(hits, (ranked.query[inside], ranked.rank[inside] - 1),
              ranked.tie_share[inside])
    return np.cumsum(hits, axis=1)


def _weighted_hits_curve(ranked, max_k, row_weight):
    """sum over rows of row_weight * tie_share at ranks <= k, for k = 1..max_k."""
    inside = ranked.rank <= max_k
    per_rank = np.bincount(ranked.rank[inside] - 1,
                           weights=(row_weight * ranked.tie_share)[inside],
                           minlength=max_k)
    return np.cumsum(per_rank)


def _no_relevant_fill(ranked, no_relevant):
    """Per query: nan (left out), 0 or 1 for queries without a relevant row, 0 else."""
    undefined = ranked.n_relevant == 0
    return apply_no_relevant(np.zeros(ranked.n_queries), undefined, ranked, no_relevant)


def _warn_nothing_left():
    from sklearn.exceptions import UndefinedMetricWarning  # lazy: costly import

    warn(
        "No query is left to average (every query has no relevant row, or "
        "zero weight); returning nan.",
        UndefinedMetricWarning,
    )


def _mean_curves(ranked, max_k, no_relevant):
    """Weighted mean P@k and R@k over queries in O(n + max_k), no dense matrix."""
    fill = _no_relevant_fill(ranked, no_relevant)
    kept = ~np.isnan(fill)
    weight = np.where(kept, ranked.query_weight, 0.0)
    total = weight.sum()
    if total <= 0:
        _warn_nothing_left()
        nan = np.full(max_k, np.nan)
        return nan, nan.copy()
    undefined = ranked.n_relevant == 0
    filled = vector_dot(weight[undefined & kept], fill[undefined & kept])
    k = np.arange(1, max_k + 1)
    row_weight = ranked.per_row(weight)
    precision = (_weighted_hits_curve(ranked, max_k, row_weight) / k + filled) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        per_relevant = np.where(undefined, 0.0, weight / ranked.n_relevant)
    recall = (_weighted_hits_curve(ranked, max_k, ranked.per_row(per_relevant))
              + filled) / total
    return precision, recall


def _curve_output(values, ranked, no_relevant, aggregate):
    """(n_queries, n_points) values -> weighted mean curve or per-query QueryValues."""
    undefined = ranked.n_relevant == 0
    values = apply_no_relevant(values, undefined, ranked, no_relevant)
    weights = ranked.query_weight
    if aggregate is None:
        return QueryValues(ranked.query_ids, values, weights)
    keep = ~np.isnan(values[:, 0])
    total = weights[keep].sum()
    if not keep.any() or total <= 0:
        _warn_nothing_left()
        return np.full(values.shape[1], np.nan)
    return vector_dot(weights[keep], values[keep]) / total


def _interpolated_precision_per_query(ranked, levels):
    """(n_queries, n_levels): max precision over the points whose recall >= level.

    The points are the ends of the tie blocks (every row with
    ``ties="input"``): the places where a score threshold can cut.
    """
    hits = ranked.relevant_before_block + ranked.block_relevant
    end = ranked.block_first_rank + ranked.block_size - 1
    precision = hits / end
    query = ranked.block_query
    # best precision from each block to the end of its query
    offset = 2.0 * (ranked.n_queries - 1 - query[::-1])
    best_after = (np.maximum.accumulate(precision[::-1] + offset) - offset)[::-1]
    first_block = np.searchsorted(ranked.block_start, ranked.query_start)
    n_blocks = hits.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = hits / ranked.n_relevant[query]
    out = np.zeros((ranked.n_queries, levels.shape[0]))
    index = np.arange(n_blocks)
    for j, level in enumerate(levels):
        reached = np.where(recall >= level, index, n_blocks)
        first = np.minimum.reduceat(reached, first_block)
        found = first < n_blocks
        out[found, j] = best_after[first[found]]
    return out


# ------------------------------------------------------------ functions ----


def _check_recall_levels(recall_levels):
    if recall_levels is None:
        return np.arange(11) / 10  # i / 10: equal to the literals 0.1, 0.2, ...
    levels = to_array("recall_levels", recall_levels)
    try:
        levels = levels.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("`recall_levels` must contain numbers.") from None
    if (
        levels.ndim != 1
        or levels.shape[0] == 0
        or not np.isfinite(levels).all()
        or (levels < 0).any()
        or (levels > 1).any()
    ):
        raise ValueError(
            "`recall_levels` must be a non-empty 1-D array of numbers in [0, 1], "
            f"got {describe(recall_levels)}."
        )
    return levels


@validate_with_preset({"max_k": CUTOFF, **RANKING_OPTIONS}, stem=None)
def precision_recall_at_k_curve(
    y_true,
    y_score,
    *,
    max_k=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Precision and recall at every cutoff k = 1..max_k, per query or averaged.

    Parameters
    ----------
    {y_true, y_score}
    max_k : int, default=None
        Largest cutoff of the curve; None means the length of the longest
        query.
    {query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    k : ndarray of shape (max_k,)
        The cutoffs 1, 2, ..., max_k.
    precision : ndarray of shape (max_k,) or QueryValues
        ``precision[i]`` equals ``precision_at_k_score(..., k=k[i])``. With
        ``aggregate=None`` a :class:`QueryValues` whose ``value`` has shape
        (n_queries, max_k), one curve per query.
    recall : ndarray of shape (max_k,) or QueryValues
        ``recall[i]`` equals ``recall_at_k_score(..., k=k[i])``; per query
        as for ``precision``.

    See Also
    --------
    interpolated_precision_recall_curve : precision at fixed recall levels.
    pr_auc_score : the area under each query's precision-recall curve.
    PrecisionRecallAtKDisplay : draws these curves.

    Notes
    -----
    Plotting ``precision`` against ``recall`` gives the query-averaged
    precision-recall curve of the ranking, one point per cutoff. P@k
    divides by k also past the end of a short query (trec_eval's ``P_k``),
    where R@k stays at 1. Both are linear in the ranking, so the tie
    average is exact. The mean curves cost O(n + max_k); the per-query
    curves fill an (n_queries, max_k) array.

    Examples
    --------
    >>> from skrank import precision_recall_at_k_curve
    >>> k, precision, recall = precision_recall_at_k_curve([1, 0, 1, 0], [4, 3, 2, 1])
    >>> precision                # 1/1, 1/2, 2/3, 2/4
    array([1.    , 0.5   , 0.6667, 0.5   ])
    >>> recall
    array([0.5, 0.5, 1. , 1. ])
    """
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    if max_k is None:
        max_k = int(ranked.query_size.max())
    k = np.arange(1, max_k + 1)
    if aggregate is None:
        hits = _hits_matrix(ranked, max_k)
        with np.errstate(invalid="ignore", divide="ignore"):
            recall = hits / ranked.n_relevant[:, None]
        return (
            k,
            _curve_output(hits / k, ranked, no_relevant, None),
            _curve_output(recall, ranked, no_relevant, None),
        )
    precision, recall = _mean_curves(ranked, max_k, no_relevant)
    return k, precision, recall


@validate_with_preset(RANKING_OPTIONS, stem=None)
def interpolated_precision_recall_curve(
    y_true,
    y_score,
    *,
    recall_levels=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Interpolated precision at fixed recall levels, per query or averaged.

    Parameters
    ----------
    {y_true, y_score}
    recall_levels : array-like of shape (n_levels,), default=None
        Recall levels in [0, 1]; None means the 11 levels 0, 0.1, ..., 1.
    {query_id, sample_weight}
    ties : {"average", "input", "pessimistic", "optimistic"}, default="average"
        ``"average"``: a tie block is one point of the curve (its rows can
        only be cut together). ``"input"``: rows with equal scores keep
        their input order.
    {no_relevant, aggregate, compat, score_dtype, retrieved}

    Returns
    -------
    recall_levels : ndarray of shape (n_levels,)
        The recall levels.
    precision : ndarray of shape (n_levels,) or QueryValues
        The mean interpolated precision at each level; with
        ``aggregate=None`` a :class:`QueryValues` whose ``value`` has shape
        (n_queries, n_levels).

    See Also
    --------
    precision_recall_at_k_curve : the curve before interpolation.
    average_precision_score : the area under the step curve.

    Notes
    -----
    The interpolated precision at recall r is the highest precision at any
    cutoff whose recall is at least r, 0 if none (Manning, Raghavan &
    Schuetze, ch. 8). trec_eval's ``iprec_at_recall`` (same 11 default
    levels) asks instead for round(r R) relevant rows, R the query's
    relevant rows; the two agree whenever r R is a whole number or rounds
    up (always for R = 10), and otherwise trec_eval's value can be higher.
    The mean over the 11 levels is the classic 11-point interpolated
    average precision.

    A maximum is not linear, so it has no cheap exact expectation over the
    orders of tied rows; with ``ties="average"`` the cutoffs are instead
    the ends of the tie blocks, the only places a score threshold can cut
    (scikit-learn's ``precision_recall_curve`` does the same). The value
    still does not depend on the input order of tied rows.

    Examples
    --------
    >>> from skrank import interpolated_precision_recall_curve
    >>> levels, precision = interpolated_precision_recall_curve(
    ...     [1, 0, 1, 0], [4, 3, 2, 1], recall_levels=[0, 0.5, 0.75, 1])
    >>> precision                # recall 1 is first reached at rank 3: P = 2/3
    array([1.    , 1.    , 0.6667, 0.6667])
    """
    levels = _check_recall_levels(recall_levels)
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    values = _interpolated_precision_per_query(ranked, levels)
    return levels, _curve_output(values, ranked, no_relevant, aggregate)


@validate_with_preset(RANKING_OPTIONS, stem="pr_auc")
def pr_auc_score(
    y_true,
    y_score,
    *,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Area under each query's precision-recall curve by the trapezoidal rule.

    Parameters
    ----------
    {y_true, y_score, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    average_precision_score : the area under the step curve.
    precision_recall_at_k_curve : the points joined here.

    Notes
    -----
    The curve runs through (0, 1) and then (R@i, P@i) for every rank i, as
    ``sklearn.metrics.auc(recall, precision)`` on the output of
    ``precision_recall_curve`` does when the scores have no ties:

    .. math::

        \\mathrm{PR\\,AUC} = \\sum_{i:\\ rel_i > 0} \\frac{1}{R}
            \\cdot \\frac{\\mathrm{P@}(i-1) + \\mathrm{P@}i}{2},
        \\qquad \\mathrm{P@}0 = 1

    Average precision is the same sum with P@i alone (the step curve). As
    P@(i-1) <= P@i at a relevant rank i > 1 (equal only when every row above
    is relevant), the trapezoids lie under the steps: the value never
    exceeds AP and equals it only for a perfect ranking. With
    ``ties="average"`` the value is the exact expectation over the orders
    of tied rows (both sums are linear in the ranking);
    scikit-learn instead joins the points at the ends of tie blocks.

    Examples
    --------
    >>> from skrank import average_precision_score, pr_auc_score
    >>> y_true, y_score = [1, 0, 1, 0], [4, 3, 2, 1]
    >>> pr_auc_score(y_true, y_score)          # ((1 + 1) / 2 + (1/2 + 2/3) / 2) / 2
    0.7916...
    >>> average_precision_score(y_true, y_score)   # (1 + 2/3) / 2
    0.8333...
    """
    return score_queries(
        _pr_auc_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate,
    )


# -------------------------------------------------------------- display ----


