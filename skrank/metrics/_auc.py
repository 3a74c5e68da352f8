"""Group AUC: the ROC AUC of each query, averaged over queries (gauc_score)."""

import numpy as np

from .._core._params import (
    AGGREGATE,
    choice,
    CONVENTION_OPTIONS,
    ONE_CLASS,
    TIES,
    WEIGHTING,
)
from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries, segment_cumsum, segment_sum
from ._presets_apply import validate_with_preset


def _auc_per_query(ranked):
    """ROC AUC of each query: weighted share of (positive, negative) pairs in order.

    A pair counts 1 when the positive row ranks above the negative one and
    1/2 when they share a tie block. Returns ``(auc, positive_weight,
    negative_weight)`` per query; auc is nan for a single-class query.
    """
    weight = np.ones(ranked.n_rows) if ranked.row_weight is None else ranked.row_weight
    weight = _moderate(weight)  # AUC is the same for weights times any constant
    # rows scored -inf (not retrieved) are the lowest scores: one tie block
    positive = weight * (ranked.relevance > 0)
    negative = weight - positive
    pos_block = segment_sum(positive, ranked.block_start)
    neg_block = segment_sum(negative, ranked.block_start)
    pos_query = segment_sum(positive, ranked.query_start)
    neg_query = segment_sum(negative, ranked.query_start)
    # negative weight ranked strictly below each block, within its query
    # (running sums of the query's own blocks: no rounding from other queries)
    first_block = np.searchsorted(ranked.block_start, ranked.query_start)
    running = segment_cumsum(neg_block, first_block)
    last_block = np.append(first_block[1:] - 1, ranked.block_start.shape[0] - 1)
    below = running[last_block][ranked.block_query] - running
    pairs_in_order = pos_block * (below + 0.5 * neg_block)
    numerator = np.bincount(
        ranked.block_query, weights=pairs_in_order, minlength=ranked.n_queries
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = numerator / (pos_query * neg_query)
    return auc, pos_query, neg_query


def _one_class(auc, one_class):
    """AUC with the single-class queries (nan) scored 0 under ``one_class="zero"``."""
    if one_class == "zero":
        return np.where(np.isnan(auc), 0.0, auc)
    return auc


def _moderate(weight):
    """Weights divided by their largest when they are extreme (products, sums).

    Pair weights multiply two row weights and query weights add them, which
    over- or underflows for weights near 1e308 or 5e-324; ratios of weights
    are all that AUC and the weighted mean need.
    """
    largest = weight.max() if weight.shape[0] else 0.0
    if largest > 0 and not 1e-100 < largest < 1e100:
        return weight / largest
    return weight


def _gauc_weights(ranked, weighting="samples"):
    """Query weights of GAUC: rows (or row-weight sums) per query, or 1 each."""
    if weighting == "uniform":
        return np.ones(ranked.n_queries)
    if ranked.row_weight is None:
        return ranked.query_size.astype(np.float64)
    return segment_sum(_moderate(ranked.row_weight), ranked.query_start)


@validate_with_preset({
    "ties": choice(*TIES), "weighting": choice(*WEIGHTING),
    "one_class": choice(*ONE_CLASS), "aggregate": choice(*AGGREGATE),
    **CONVENTION_OPTIONS,
}, stem="gauc")
def gauc_score(
    y_true,
    y_score,
    *,
    query_id=None,
    sample_weight=None,
    ties="average",
    weighting="samples",
    one_class="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Group AUC: the ROC AUC of each query, weighted mean over queries.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items)
        Binary labels (0/1 or bool): 1 marks a positive (relevant) row.
    {y_score}
    query_id : array-like of shape (n_rows,)
        Query (or user) of each row: ints, strings or any hashable ids,
        rows in any order. Required for 1-D input; 2-D input is one query
        per row.
    sample_weight : array-like, default=None
        One weight per row (1-D input) or per ranking (2-D input). Rows are
        weighted inside each query's AUC, as in
        ``sklearn.metrics.roc_auc_score(sample_weight=...)``.
    {ties}
    weighting : {"samples", "uniform"}, default="samples"
        A query's weight in the mean: its number of rows (its sum of row
        weights with ``sample_weight``), or 1 for every query.
    one_class : {"skip", "zero"}, default="skip"
        A query whose rows are all positive or all negative: left out of the
        mean (its AUC is undefined), or scored 0 and counted (CatBoost's
        ``QueryAUC``).
    {aggregate, compat, score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean AUC over the queries that have both classes
        (``nan`` with an ``UndefinedMetricWarning`` when there is none), or
        per-query values (``nan`` for single-class queries) when
        ``aggregate=None``.

    See Also
    --------
    sklearn.metrics.roc_auc_score : the AUC of one ranking.

    Notes
    -----
    .. math::

        \\mathrm{GAUC} = \\frac{\\sum_q W_q\\, \\mathrm{AUC}_q}{\\sum_q W_q}

    over the queries with at least one positive and one negative row
    (single-class queries have no AUC and are left out). A tied
    (positive, negative) pair counts 1/2, which is the expectation over the
    orders of tied rows, so ``ties="average"`` equals scikit-learn's
    ``roc_auc_score`` per query. This is the "GAUC" of click-through-rate
    models (Zhou et al., 2018), computed in one pass instead of a loop over
    users.

    References
    ----------
    .. [1] G. Zhou et al. Deep Interest Network for Click-Through Rate
       Prediction. KDD 2018.

    Examples
    --------
    >>> from skrank import gauc_score
    >>> gauc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], query_id=[7, 7, 7, 7])
    0.75
    >>> gauc_score([0, 0, 1, 1, 1], [0.1, 0.4, 0.4, 0.8, 0.3],
    ...            query_id=["u", "u", "u", "u", "v"])   # v has one class
    0.875
    """
    check_aggregate_options("skip", aggregate)
    if query_id is None and np.ndim(y_true) == 1:
        raise ValueError(
            "`query_id` is required by gauc_score for 1-D input (one id per row); "
            "for a single ranking use sklearn.metrics.roc_auc_score."
        )
    ranked = rank_queries(
        y_true,
        y_score,
        query_id=query_id,
        sample_weight=sample_weight,
        ties=ties,
        binary="gauc_score",
    )
    auc = _one_class(_auc_per_query(ranked)[0], one_class)
    return aggregate_queries(
        auc,
        ranked,
        aggregate=aggregate,
        undefined=np.isnan(auc),
        weights=_gauc_weights(ranked, weighting),
    )
