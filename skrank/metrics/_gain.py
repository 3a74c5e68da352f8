"""Discounted cumulative gain: dcg_score and ndcg_score."""

import numpy as np

from .._core._params import (
    choice,
    CUTOFF_OPTIONS,
    DISCOUNTS,
    GAINS,
)
from .._core._aggregate import score_queries
from .._core._layout import segment_sum
from ._presets_apply import validate_with_preset


def _gain(relevance, gain):
    """Gain of each relevance grade: 2**rel - 1 or rel.

    Below 1, 2**rel - 1 is computed as expm1(rel ln 2), so a tiny relevant
    grade keeps a tiny positive gain instead of rounding to 0 (a 0/0 nDCG).
    """
    if gain == "exponential":
        out = np.exp2(relevance) - 1.0
        small = (relevance < 1.0) & (relevance != 0.0)  # rare: fractional grades
        if small.any():
            out[small] = np.expm1(relevance[small] * np.log(2.0))
        return out
    return relevance


def _check_gain_range(ranked, gain):
    """Refuse grades whose gain (or a query's DCG) would overflow float64."""
    top = float(ranked.relevance.max())
    if gain == "linear":
        if top * (ranked.n_rows + 1.0) >= 1e307:
            raise ValueError(
                f"`y_true` has a relevance grade of {top:g}: a DCG made of such "
                "gains overflows float64; rescale the grades."
            )
        return
    # a DCG adds at most n_rows gains of at most 2**top
    if top + np.log2(ranked.n_rows + 1.0) >= 1023.0:
        raise ValueError(
            f"`y_true` has a relevance grade of {top:g}: with gain='exponential' "
            "its gain 2**y_true - 1 (or a DCG made of it) overflows float64. "
            "Use gain='linear', or smaller grades."
        )


def _discount(rank, discount="log2"):
    """The discount of each 1-based rank: 1/log2(i + 1), or 1/i (``"position"``)."""
    rank = np.asarray(rank, dtype=np.float64)
    if discount == "position":
        return 1.0 / rank
    return 1.0 / np.log2(rank + 1.0)


def _cumulative_discount(n, discount="log2"):
    """``out[i]`` = sum of the discounts of ranks 1..i, for i = 0..n."""
    out = np.zeros(n + 1)
    np.cumsum(_discount(np.arange(1, n + 1), discount), out=out[1:])
    return out


def _dcg_per_query(ranked, *, k, gain, discount="log2"):
    """Expected DCG@k per query: a tie block's mean gain fills each of its positions."""
    _check_gain_range(ranked, gain)
    if not ranked.has_ties:
        # gains and discounts of the rows with a gain only (relevant and
        # retrieved, at rank k or better); summed as the tied path sums, so
        # a query scores the same bits whatever the other queries' ties
        rows = ranked.relevant_rows_within(k)
        contribution = np.zeros(ranked.n_rows)
        contribution[rows] = _gain(ranked.relevance[rows], gain) * _discount(
            ranked.rank[rows], discount)
        return segment_sum(contribution, ranked.query_start)
    contribution = ranked.block_mean(_gain(ranked.ranked_relevance, gain)) * _discount(
        ranked.rank, discount
    )
    if k is not None:
        contribution = np.where(ranked.rank <= k, contribution, 0.0)
    return segment_sum(contribution, ranked.query_start)


def _ideal_dcg_per_query(ranked, *, k, gain, discount="log2"):
    """DCG@k of each query's rows sorted by relevance (the ideal ranking).

    Integer grades take a counting path (no sort): the ideal ranking is the
    grades in descending order, so each grade fills a run of positions
    whose discounts come from one cumulative table. Other grades sort the
    rows by relevance within their query.
    """
    relevance = ranked.relevance
    sizes = ranked.query_size
    cap = sizes if k is None else np.minimum(sizes, k)
    # the rows of grade 0 add no gain and come last in an ideal ranking:
    # only the others are counted
    rows = np.flatnonzero(relevance != 0)  # a bool array's nonzero is 6x a float array's
    grades = relevance[rows]
    top = grades.max() if rows.shape[0] else 0.0
    n_grades = int(top) + 1
    integral = n_grades * ranked.n_queries <= max(4 * ranked.n_rows, 1 << 20) and (
        not rows.shape[0] or (grades.min() > 0 and np.array_equal(grades, np.floor(grades)))
    )
    if integral:
        codes = ranked.query[rows] * n_grades + (n_grades - 1 - grades.astype(np.intp))
        counts = np.bincount(codes, minlength=ranked.n_queries * n_grades)
        counts = counts.reshape(ranked.n_queries, n_grades)  # descending grades
        return _ideal_dcg_from_counts(counts, cap, gain=gain, discount=discount)
    order = np.lexsort((-relevance, ranked.query))
    contribution = _gain(relevance[order], gain) * _discount(ranked.rank, discount)
    if k is not None:
        contribution = np.where(ranked.rank <= k, contribution, 0.0)
    return segment_sum(contribution, ranked.query_start)


def _ideal_dcg_from_counts(counts, cap, *, gain, discount="log2"):
    """The ideal DCG of each query from its count of each whole grade.

    ``counts``: ``(n_queries, n_grades)``, grades descending (column 0 the
    top grade, the last column grade 0); ``cap``: each query's cutoff
    (its size, or k). Each grade fills a run of positions whose discounts
    come from one cumulative table.
    """
    n_grades = counts.shape[1]
    cumulative = _cumulative_discount(int(cap.max()), discount)
    end = np.cumsum(counts, axis=1)
    start = np.minimum(end - counts, cap[:, None])
    end = np.minimum(end, cap[:, None])
    gains = _gain(np.arange(n_grades - 1, -1, -1, dtype=np.float64), gain)
    return (cumulative[end] - cumulative[start]) @ gains


def _ndcg_per_query(ranked, *, k, gain, discount="log2"):
    """DCG@k over the ideal DCG@k, per query (nan without a relevant row)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return _dcg_per_query(
            ranked, k=k, gain=gain, discount=discount
        ) / _ideal_dcg_per_query(ranked, k=k, gain=gain, discount=discount)


@validate_with_preset({
    "gain": choice(*GAINS), "discount": choice(*DISCOUNTS), **CUTOFF_OPTIONS,
}, stem="dcg")
def dcg_score(
    y_true,
    y_score,
    *,
    k=None,
    gain="exponential",
    discount="log2",
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Discounted cumulative gain (DCG@k), averaged over queries.

    Parameters
    ----------
    {y_true, y_score, k}
    gain : {"exponential", "linear"}, default="exponential"
        Gain of a row of relevance ``rel``: ``2**rel - 1`` (as LightGBM and
        XGBoost) or ``rel`` (as trec_eval and scikit-learn). Both agree on
        binary relevance.
    discount : {"log2", "position"}, default="log2"
        Discount of rank ``i``: ``1 / log2(i + 1)``, or ``1 / i``
        (CatBoost's ``denominator=Position``).
    {query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    ndcg_score : DCG divided by the DCG of the ideal ranking.

    Notes
    -----
    .. math::

        \\mathrm{DCG@k} = \\sum_{i=1}^{k} \\frac{\\mathrm{gain}(rel_i)}{\\log_2(i + 1)}

    With ``ties="average"`` each position of a tie block gets the block's
    mean gain, which is the expected DCG over all orders of the tied rows
    (McSherry & Najork, 2008) and what scikit-learn's ``dcg_score`` does.
    With ``gain="linear"`` the result equals ``sklearn.metrics.dcg_score``
    on 2-D input; scikit-learn counts rankings without a relevant row as 0,
    so pass ``no_relevant="zero"`` to match it there.

    References
    ----------
    .. [1] K. Järvelin and J. Kekäläinen. Cumulated gain-based evaluation of
       IR techniques. ACM TOIS 20(4), 2002.
    .. [2] F. McSherry and M. Najork. Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008.

    Examples
    --------
    >>> from skrank import dcg_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> dcg_score(relevance, scores, k=3)              # 1/log2(2) + 1/log2(4)
    1.5
    >>> dcg_score([3, 2, 0, 1], [4, 3, 2, 1], query_id=["a", "a", "b", "b"],
    ...           gain="linear")         # ((3 + 2/log2(3)) + 1/log2(3)) / 2
    2.4463...
    """
    return score_queries(
        _dcg_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k, gain=gain,
        discount=discount,
    )


@validate_with_preset({
    "gain": choice(*GAINS), "discount": choice(*DISCOUNTS), **CUTOFF_OPTIONS,
}, stem="ndcg")
def ndcg_score(
    y_true,
    y_score,
    *,
    k=None,
    gain="exponential",
    discount="log2",
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Normalised discounted cumulative gain (nDCG@k), averaged over queries.

    Parameters
    ----------
    {y_true, y_score, k}
    gain : {"exponential", "linear"}, default="exponential"
        Gain of a row of relevance ``rel``: ``2**rel - 1`` (as LightGBM and
        XGBoost) or ``rel`` (as trec_eval and scikit-learn). Both agree on
        binary relevance.
    discount : {"log2", "position"}, default="log2"
        Discount of rank ``i``: ``1 / log2(i + 1)``, or ``1 / i``
        (CatBoost's ``denominator=Position``).
    {query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    dcg_score : the unnormalised gain.

    Notes
    -----
    nDCG@k = DCG@k / IDCG@k, where IDCG@k is the DCG@k of all the query's
    rows sorted by relevance. It lies in [0, 1]. A query without a relevant
    row has IDCG = 0; ``no_relevant`` says what it scores (scikit-learn
    scores it 0: pass ``no_relevant="zero"`` to match
    ``sklearn.metrics.ndcg_score`` on 2-D input, with ``gain="linear"``).
    Ties are averaged as in :func:`dcg_score`.

    Examples
    --------
    >>> from skrank import ndcg_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> ndcg_score(relevance, scores, k=2)             # 1 / (1 + 1/log2(3))
    0.6131...
    >>> # query 1 ties its two rows: expected DCG (1 + 1/log2(3)) / 2, ideal 1;
    >>> # query 2 ranks its relevant row second: 1/log2(3)
    >>> ndcg_score([1, 0, 0, 1], [0.5, 0.5, 0.9, 0.1], query_id=[1, 1, 2, 2])
    0.7231...
    """
    return score_queries(
        _ndcg_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k, gain=gain,
        discount=discount,
    )
