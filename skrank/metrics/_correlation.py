"""Per-query correlation of scores with relevance: rank_correlation_score.

Spearman's rho, Kendall's tau-b and Pearson's r of each query, averaged over
queries, all tie-corrected as in scipy.stats, computed on the shared layout
without a loop over queries.
"""

import numpy as np

from .._core._params import (
    AGGREGATE,
    choice,
    CONVENTION_OPTIONS,
    CORRELATION_METHODS,
)
from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries, segment_ids, segment_sum
from .._core._validation import check_score
from ._presets_apply import validate_with_preset


def _standardised(x, ranked):
    """``x`` centred on its query's mean and divided by its query's largest |value|.

    Scaling before centring keeps the sums finite for values near 1e308 and
    scaling after keeps the products away from underflow for values near
    1e-300, as scipy's ``pearsonr`` normalises before it multiplies.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        x = x / ranked.per_row(np.maximum.reduceat(np.abs(x), ranked.query_start))
        x = x - ranked.per_row(segment_sum(x, ranked.query_start) / ranked.query_size)
        return x / ranked.per_row(np.maximum.reduceat(np.abs(x), ranked.query_start))


def _pearson_per_query(x, y, ranked):
    """Pearson's r of x and y (rows in ranked order) within each query."""
    x = _standardised(x, ranked)
    y = _standardised(y, ranked)
    sxy = segment_sum(x * y, ranked.query_start)
    sxx = segment_sum(x * x, ranked.query_start)
    syy = segment_sum(y * y, ranked.query_start)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)  # sxx, syy in [1, n]


def _exact_score_offsets(y_score, ranked):
    """Each score minus its query's lowest score, exact before the float64 rounding.

    For scores float64 can't hold exactly (int64 beyond 2**53, datetime
    ticks, longdouble, Python integers): the difference is taken in their
    own type, so values 100 ns apart stay 100 apart. None for float64 scores.
    """
    score = check_score("y_score", y_score).reshape(-1)
    if score.dtype == np.float64:
        return None
    score = score[ranked.order]
    lowest = score[ranked.query_start + ranked.query_size - 1][ranked.query]  # ranked descending
    if score.dtype.kind == "i":  # the difference fits uint64 exactly
        return (score.astype(np.uint64) - lowest.astype(np.uint64)).astype(np.float64)
    try:
        return (score - lowest).astype(np.float64)
    except (TypeError, ValueError, OverflowError):  # mixed Python number types
        return ranked.score


def _groups(new_group):
    """Group index of each element and each group's start, from 'starts here' flags."""
    starts = np.flatnonzero(new_group)
    return segment_ids(starts, new_group.shape[0]), starts


def _relevance_order(ranked):
    """Rows ordered by (query, relevance ascending) and the equal-relevance groups."""
    order = np.lexsort((ranked.relevance, ranked.query))
    relevance = ranked.relevance[order]
    query = ranked.query[order]
    new = np.ones(ranked.n_rows, dtype=bool)
    new[1:] = (relevance[1:] != relevance[:-1]) | (query[1:] != query[:-1])
    return order, new


def _tied_pairs(group, starts, query, n_queries):
    """Sum over groups of size*(size-1)/2, per query."""
    size = np.diff(starts, append=group.shape[0]).astype(np.float64)
    pairs = size * (size - 1) / 2
    return np.bincount(query[starts], weights=pairs, minlength=n_queries)


def _n_distinct(starts, query, n_queries):
    return np.bincount(query[starts], minlength=n_queries)


def _midrank_of_relevance(ranked, order, new):
    """Ascending mid-rank of each row's relevance within its query (ranked order)."""
    group, starts = _groups(new)
    position = np.arange(ranked.n_rows) - ranked.query_start[ranked.query[order]] + 1.0
    size = np.diff(starts, append=ranked.n_rows)
    mid = position[starts] + (size - 1) / 2.0
    out = np.empty(ranked.n_rows)
    out[order] = mid[group]
    return out


def _concordant_pairs(ranked):
    """Per query, pairs with score_i > score_j and relevance_i > relevance_j.

    Rows ordered by (query, score descending, relevance ascending): a
    concordant pair is a pair i before j with y_i > y_j (pairs tied in
    score are ordered by relevance, so they never count). These inversions
    are counted by merging halves of each query level by level: at level l
    each row of the right half of a 2**(l+1)-row chunk counts the rows of
    the left half with larger relevance (one sort and two searchsorted per
    level, log2 of the longest query levels in all).
    """
    order = np.lexsort((ranked.relevance, ranked.block))
    query = ranked.query[order]
    _, y = np.unique(ranked.relevance[order], return_inverse=True)
    y = y.reshape(-1).astype(np.int64)
    n_values = int(y.max()) + 1
    position = np.arange(ranked.n_rows) - ranked.query_start[query]
    concordant = np.zeros(ranked.n_queries)
    longest = int(ranked.query_size.max())
    level = 0
    while (1 << level) < longest:
        right = ((position >> level) & 1).astype(bool)
        chunk = ranked.query_start[query] + ((position >> (level + 1)) << (level + 1))
        keys = np.sort(chunk[~right] * n_values + y[~right])
        base = chunk[right] * n_values
        larger = np.searchsorted(keys, base + n_values, side="left") - np.searchsorted(
            keys, base + y[right], side="right"
        )
        concordant += np.bincount(query[right], weights=larger,
                                  minlength=ranked.n_queries)
        level += 1
    # pairs tied in both score and relevance
    new = np.ones(ranked.n_rows, dtype=bool)
    sorted_y = y
    block = ranked.block[order]
    new[1:] = (block[1:] != block[:-1]) | (sorted_y[1:] != sorted_y[:-1])
    group, starts = _groups(new)
    tied_both = _tied_pairs(group, starts, query, ranked.n_queries)
    return concordant, tied_both


def _kendall_per_query(ranked):
    """Kendall's tau-b per query (nan where score or relevance is constant)."""
    n = ranked.query_size.astype(np.float64)
    pairs = n * (n - 1) / 2
    tied_score = _tied_pairs(ranked.block, ranked.block_start, ranked.query,
                             ranked.n_queries)
    order, new = _relevance_order(ranked)
    group, starts = _groups(new)
    tied_relevance = _tied_pairs(group, starts, ranked.query[order], ranked.n_queries)
    concordant, tied_both = _concordant_pairs(ranked)
    untied = pairs - tied_score - tied_relevance + tied_both  # concordant + discordant
    discordant = untied - concordant
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (concordant - discordant) / np.sqrt(
            (pairs - tied_score) * (pairs - tied_relevance)
        )
    return np.clip(tau, -1.0, 1.0)


def _rank_correlation_per_query(ranked, *, method, y_score=None):
    """Correlation per query; nan where the score or the relevance is constant."""
    order, new = _relevance_order(ranked)
    constant = (
        (_n_distinct(ranked.block_start, ranked.query, ranked.n_queries) < 2)
        | (_n_distinct(np.flatnonzero(new), ranked.query[order], ranked.n_queries) < 2)
    )
    if method == "pearson":
        if ranked.retrieved is not None:
            raise ValueError(
                "`y_score` contains -inf (rows judged but not retrieved): Pearson's "
                "r needs finite scores; use method='spearman' or 'kendall', which "
                "rank those rows last, tied."
            )
        offsets = None if y_score is None else _exact_score_offsets(y_score, ranked)
        score = ranked.score if offsets is None else offsets
        values = _pearson_per_query(score, ranked.relevance, ranked)
    elif method == "spearman":
        # descending mid-rank of the score, negated: ascending like the relevance
        score_rank = -ranked.block_mean(ranked.rank.astype(np.float64))
        values = _pearson_per_query(
            score_rank, _midrank_of_relevance(ranked, order, new), ranked
        )
    else:
        values = _kendall_per_query(ranked)
    return np.where(constant, np.nan, values)


@validate_with_preset({
    "method": choice(*CORRELATION_METHODS), "aggregate": choice(*AGGREGATE),
    **CONVENTION_OPTIONS,
}, stem=None)
def rank_correlation_score(
    y_true,
    y_score,
    *,
    method="spearman",
    query_id=None,
    sample_weight=None,
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Correlation of scores with relevance inside each query, averaged over queries.

    Parameters
    ----------
    {y_true, y_score}
    method : {"spearman", "kendall", "pearson"}, default="spearman"
        Spearman's rho (Pearson's r of the mid-ranks), Kendall's tau-b, or
        Pearson's r of the values themselves.
    {query_id, sample_weight, aggregate, compat, score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over the queries where the correlation is defined
        (``nan`` with an ``UndefinedMetricWarning`` when there is none), or
        per-query values (``nan`` where undefined) when ``aggregate=None``.

    See Also
    --------
    scipy.stats.spearmanr, scipy.stats.kendalltau, scipy.stats.pearsonr :
        the correlation of one query.

    Notes
    -----
    Each query's value equals scipy's ``spearmanr``, ``kendalltau``
    (variant ``"b"``) or ``pearsonr`` statistic on that query's rows. Ties
    are handled the way these statistics define it: mid-ranks for
    Spearman, the tau-b denominator for Kendall; no ``ties`` option
    applies. The correlation of a query whose scores or relevance are all
    equal (one row, no relevant row, a constant scorer) is undefined: the
    query is left out of the mean, as with ``no_relevant="skip"``.

    Kendall's tau-b is computed for all queries at once in O(n log^2 n):
    the concordant pairs are counted by merging halves of each query, level
    by level (one sort of the rows per level, log2 of the longest query
    levels).

    Examples
    --------
    >>> from skrank import rank_correlation_score
    >>> y_true = [3, 2, 0, 1]
    >>> y_score = [0.9, 0.7, 0.4, 0.1]
    >>> rank_correlation_score(y_true, y_score)        # 1 - 6 * (1 + 1) / (4 * 15)
    0.8
    >>> rank_correlation_score(y_true, y_score, method="kendall")   # (5 - 1) / 6
    0.6666...
    """
    check_aggregate_options("skip", aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight
    )
    values = _rank_correlation_per_query(ranked, method=method, y_score=y_score)
    return aggregate_queries(
        values, ranked, aggregate=aggregate, undefined=np.isnan(values)
    )
