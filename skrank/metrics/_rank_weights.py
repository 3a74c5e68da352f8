"""Rank weights: rank_decay_weights and weighted_average_precision_score.

``rank_decay_weights`` turns scores into per-row weights ``decay ** (rank -
1)`` within each query; passed as ``sample_weight`` to a scikit-learn metric
they top-weight it (``roc_auc_score`` becomes a top-weighted ROC AUC).
``weighted_average_precision_score`` is AP with such weights on its
relevant rows.
"""

import numpy as np

from .._core._params import (
    choice,
    CUTOFF_OPTIONS,
    FRACTION_TO_ONE,
    TIES,
    validate_params,
)
from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries, segment_sum
from .._core._validation import (
    check_nonnegative,
    check_score,
    check_same_shape_as_y_true,
)
from ._presets_apply import validate_with_preset
from ._average_precision import _average_precision_terms


@validate_params({"decay": FRACTION_TO_ONE, "ties": choice(*TIES)})
def rank_decay_weights(y_score, *, decay=0.8, query_id=None, ties="average"):
    """Per-row weights ``decay ** (rank - 1)``, the rank taken within each query.

    Parameters
    ----------
    y_score : array-like of shape (n_rows,) or (n_queries, n_items)
        Score of each row; within a query, higher scores rank first.
    decay : float, default=0.8
        Weight ratio of consecutive ranks, in (0, 1]: the top row weighs 1,
        the second ``decay``, the third ``decay ** 2``. 1 gives every row
        weight 1.
    {query_id, ties}

    Returns
    -------
    weights : ndarray of the shape of ``y_score``
        The weight of each row, in input row order.

    See Also
    --------
    weighted_average_precision_score : AP with these weights.

    Notes
    -----
    With ``ties="average"`` a tied row gets the mean weight of the positions
    its tie block covers, its expected weight over the orders of tied rows;
    tied rows therefore weigh the same, whatever their input order.

    Passed as ``sample_weight`` to ``sklearn.metrics.roc_auc_score``, the
    weights give the top-weighted ROC AUC: every (positive, negative) pair
    counts with the product of its rows' weights, so mistakes near the top
    of the ranking cost more. With ``query_id`` the weights restart at 1 in
    every query (pair it with :func:`gauc_score` for a per-query AUC).

    Examples
    --------
    >>> from sklearn.metrics import roc_auc_score
    >>> from skrank import rank_decay_weights
    >>> y_true = [1, 0, 1, 0]
    >>> y_score = [0.9, 0.8, 0.7, 0.1]
    >>> rank_decay_weights(y_score, decay=0.5)
    array([1.   , 0.5  , 0.25 , 0.125])
    >>> roc_auc_score(y_true, y_score)                      # 3 of 4 pairs in order
    0.75
    >>> # pairs weigh 1*0.5 (in order), 1*0.125, 0.25*0.5 (reversed), 0.25*0.125
    >>> w = rank_decay_weights(y_score, decay=0.5)
    >>> roc_auc_score(y_true, y_score, sample_weight=w)     # 0.65625 / 0.78125
    0.84
    """
    score = check_score("y_score", y_score)  # exact order kept
    ranked = rank_queries(np.zeros(score.shape), score, query_id=query_id, ties=ties)
    in_ranked_order = ranked.block_mean(np.power(decay, ranked.rank - 1.0))
    weights = np.empty(ranked.n_rows)
    weights[ranked.order] = in_ranked_order
    return weights.reshape(score.shape)


def check_rank_weights(rank_weights, shape):
    """Non-negative finite weights with the shape of ``y_true``."""
    weights = check_same_shape_as_y_true("rank_weights", rank_weights, shape)
    return check_nonnegative("rank_weights", weights)


def _expected_precision_of_relevant_rows(ranked, k):
    """E[P@pos(row) * 1(pos(row) <= k)] of each relevant row, in ranked order.

    The relevant rows of a tie block are exchangeable, so each gets an
    equal share of the block's expected sum of ``rel_i * P@i``.
    """
    terms = _average_precision_terms(ranked)
    if k is not None:
        terms = np.where(ranked.rank <= k, terms, 0.0)
    if not ranked.has_ties:
        return terms
    with np.errstate(invalid="ignore", divide="ignore"):
        share = segment_sum(terms, ranked.block_start) / ranked.block_relevant
    return np.where(ranked.is_relevant > 0, share[ranked.block], 0.0)


def _weighted_average_precision_per_query(ranked, *, k, weights):
    """Sum of w * P over relevant rows (top k), over the sum of w of relevant rows."""
    relevant_weight = weights * (ranked.relevance > 0)  # retrieved or not
    precision = _expected_precision_of_relevant_rows(ranked, k)  # 0 if not
    numerator = segment_sum(relevant_weight * precision, ranked.query_start)
    denominator = segment_sum(relevant_weight, ranked.query_start)
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerator / denominator, denominator


@validate_with_preset(CUTOFF_OPTIONS, stem=None)
def weighted_average_precision_score(
    y_true,
    y_score,
    *,
    rank_weights,
    k=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Weighted average precision: AP with a weight on each relevant row.

    Parameters
    ----------
    {y_true, y_score}
    rank_weights : array-like of the same shape as ``y_true``
        Non-negative weight of each row inside its query, such as
        ``rank_decay_weights(y_score, decay=0.8, query_id=query_id)``. Only
        the weights of relevant rows are used.
    {k, query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    rank_decay_weights : the usual weights, ``decay ** (rank - 1)``.
    average_precision_score : the unweighted AP (equal weights).

    Notes
    -----
    .. math::

        \\mathrm{wAP@k} = \\frac{\\sum_{i \\le k} w_i\\, rel_i\\, \\mathrm{P@}i}
                               {\\sum_{i} w_i\\, rel_i}

    The denominator runs over all relevant rows of the query, also those
    below k, like AP's R (``normalize="relevant"``): it is the score of a
    ranking that puts every relevant row at precision 1, so a perfect
    ranking scores 1 and equal weights give :func:`average_precision_score`.
    With decaying rank weights, precision measured at the top ranks counts
    more. The weights belong to the rows: with ``ties="average"`` the value
    is the exact expectation over the orders of tied rows with each row
    keeping its weight (:func:`rank_decay_weights` gives tied rows their
    block's mean weight). A query whose relevant rows all weigh 0 is
    handled like one with no relevant row.

    Examples
    --------
    >>> from skrank import rank_decay_weights, weighted_average_precision_score
    >>> y_true = [1, 0, 1, 1]                            # in score order
    >>> y_score = [4, 3, 2, 1]
    >>> w = rank_decay_weights(y_score, decay=0.5)       # 1, 0.5, 0.25, 0.125
    >>> # (1 * 1/1 + 0.25 * 2/3 + 0.125 * 3/4) / (1 + 0.25 + 0.125)
    >>> weighted_average_precision_score(y_true, y_score, rank_weights=w)
    0.9166...
    >>> weighted_average_precision_score(y_true, y_score, rank_weights=[1, 1, 1, 1])
    0.8055...
    """
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    weights = check_rank_weights(rank_weights, np.shape(y_true)).reshape(-1)
    values, denominator = _weighted_average_precision_per_query(
        ranked, k=k, weights=weights[ranked.order]
    )
    return aggregate_queries(
        values, ranked, no_relevant=no_relevant, aggregate=aggregate,
        undefined=denominator == 0,
    )
