"""Metrics for incomplete judgments: bpref_score and rbp_score.

Both take an ``unjudged`` mask: True marks a row nobody judged (a document
outside the pool, absent from the qrels). bpref leaves such rows out
entirely; RBP counts them as non-relevant and reports the weight they could
add as its *residual*. Both are exact expectations over the orders of tied
rows, from closed forms on the shared layout.
"""

import numpy as np

from .._core._params import (
    choice,
    CUTOFF_OPTIONS,
    FLAG,
    FRACTION,
    RANKING_OPTIONS,
    RBP_GAINS,
)
from .._core._aggregate import (
    aggregate_queries,
    apply_no_relevant,
    check_aggregate_options,
)
from .._core._layout import rank_queries, segment_cumsum, segment_sum
from .._core._validation import (
    check_same_shape_as_y_true,
)
from ._presets_apply import validate_with_preset


def check_row_mask(name, mask, shape):
    """A boolean row mask of the same shape as ``y_true`` (bool or 0/1 values)."""
    if mask is None:
        return None
    array = check_same_shape_as_y_true(name, mask, shape)
    if array.dtype != bool:
        if array.dtype.kind not in "biuf" or not np.isin(array, (0, 1)).all():
            raise ValueError(
                f"`{name}` must be a boolean mask (True/False or 1/0 per row)."
            )
        array = array.astype(bool)
    return array


def _judged_in_ranked_order(ranked, unjudged):
    """1.0 for a judged row, 0.0 for an unjudged one, in ranked order (None: all)."""
    if unjudged is None:
        return None
    return (~unjudged.reshape(-1))[ranked.order].astype(np.float64)


def _exclusive_block_cumsum(ranked, block_values):
    """Sum of ``block_values`` over the tie blocks above each block in its query."""
    first_block = np.searchsorted(ranked.block_start, ranked.query_start)
    running = segment_cumsum(block_values, first_block)
    return running - block_values


def _bpref_per_query(ranked, *, judged=None):
    """Expected bpref per query, and R (judged relevant rows) per query.

    A relevant row r scores 1 - min(n_r, R) / min(R, N), with n_r the judged
    non-relevant rows ranked above it and N those of the query. With B judged
    non-relevant rows above r's tie block and b inside it, the number of
    them that land above r is uniform on 0..b, whatever the other rows do.
    """
    # R and N count the rows scored -inf (judged, not retrieved) too; they
    # sort below every retrieved row, so they are never above a relevant one
    if not ranked.has_ties:
        return _bpref_untied(ranked, judged)
    relevant = (ranked.relevance > 0).astype(np.float64)
    non_relevant = 1.0 - relevant
    found = ranked.is_relevant  # relevant and retrieved
    if judged is not None:
        relevant = relevant * judged
        non_relevant = non_relevant * judged
        found = found * judged
    n_rel = segment_sum(relevant, ranked.query_start)
    n_non = segment_sum(non_relevant, ranked.query_start)
    block_rel = segment_sum(found, ranked.block_start)
    b = segment_sum(non_relevant, ranked.block_start)
    above = _exclusive_block_cumsum(ranked, b)
    cap = n_rel[ranked.block_query]
    # sum over x = 0..b of min(above + x, cap): the first j + 1 terms are
    # above + x, the remaining b - j terms are cap
    j = np.clip(cap - above - 1, -1, b)
    total = (j + 1) * above + j * (j + 1) / 2 + (b - j) * cap
    expected_min = total / (b + 1)
    denominator = np.minimum(n_rel, n_non)[ranked.block_query]
    with np.errstate(invalid="ignore", divide="ignore"):
        # with no judged non-relevant row every relevant row scores 1
        share = np.where(denominator > 0, 1.0 - expected_min / denominator, 1.0)
        values = (
            np.bincount(ranked.block_query, weights=block_rel * share,
                        minlength=ranked.n_queries)
            / n_rel
        )
    return values, n_rel


def _bpref_untied(ranked, judged):
    """:func:`_bpref_per_query` when no scores tie, from the judged rows only.

    Each relevant row r scores 1 - min(n_r, R) / min(R, N), n_r the judged
    non-relevant rows above it (the tied formula with every block one row
    long). The few judged rows are found once and counted by query, and
    n_r is a search among the judged non-relevant rows: no arithmetic over
    every row. ``judged``: None (every row judged) or 0/1 per row.
    """
    relevant = ranked.relevance > 0
    non_relevant = ~relevant
    hits = ranked.relevant_rows  # relevant and retrieved
    if judged is not None:
        is_judged = judged > 0
        relevant &= is_judged
        non_relevant &= is_judged
        hits = hits[is_judged[hits]]
    n_queries = ranked.n_queries
    non_rows = np.flatnonzero(non_relevant)
    n_rel = np.bincount(ranked.query[np.flatnonzero(relevant)], minlength=n_queries)
    n_non = np.bincount(ranked.query[non_rows], minlength=n_queries)
    query = ranked.query[hits]
    # judged non-relevant rows above each hit, in its own query
    above = (np.searchsorted(non_rows, hits)
             - np.searchsorted(non_rows, ranked.query_start)[query])
    cap, denominator = n_rel[query], np.minimum(n_rel, n_non)[query]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(denominator > 0, 1.0 - np.minimum(above, cap) / denominator, 1.0)
        values = np.bincount(query, weights=share, minlength=n_queries) / n_rel
    return values, n_rel.astype(np.float64)


def _rbp_per_query(ranked, *, k, p, gain="binary", judged=None):
    """Expected RBP@k per query: (1 - p) sum_{i <= k} gain_i p^(i - 1)."""
    gains = ranked.is_relevant if gain == "binary" else ranked.ranked_relevance
    if judged is not None:
        gains = gains * judged
    if gain == "scaled":
        gains = gains / _top_grade_above_one(ranked, judged)[ranked.query]
    discount = (1.0 - p) * np.power(p, ranked.rank - 1.0)
    if k is not None:
        discount = np.where(ranked.rank <= k, discount, 0.0)
    return segment_sum(ranked.block_mean(gains) * discount, ranked.query_start)


def _top_grade_above_one(ranked, judged=None):
    """Per query, the top judged grade of its rows (retrieved or not), or 1 if below 1.

    trec_eval's rbp divides each grade by it: its gains are the grades,
    brought into [0, 1] when the top one passes 1 (``gain="scaled"``).
    """
    if ranked.n_rows == 0:
        return np.ones(ranked.n_queries)
    grade = ranked.relevance if judged is None else ranked.relevance * judged
    return np.maximum(np.maximum.reduceat(grade, ranked.query_start), 1.0)


def _rbp_residual_per_query(ranked, *, k, p, judged=None):
    """Weight RBP@k leaves unknown: unjudged rows within depth k, p^depth past it."""
    depth = ranked.n_retrieved if k is None else np.minimum(ranked.n_retrieved, k)
    residual = np.power(p, depth.astype(np.float64))
    if judged is not None:
        unknown = ranked.block_mean(1.0 - judged)
        discount = (1.0 - p) * np.power(p, ranked.rank - 1.0)
        if k is not None:
            discount = np.where(ranked.rank <= k, discount, 0.0)
        residual = residual + segment_sum(unknown * discount, ranked.query_start)
    return residual


@validate_with_preset(RANKING_OPTIONS, stem="bpref")
def bpref_score(
    y_true,
    y_score,
    *,
    unjudged=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Binary preference (bpref): how often judged relevant rows beat non-relevant ones.

    Parameters
    ----------
    {y_true, y_score}
    unjudged : array-like of bool of the same shape as ``y_true``, default=None
        True marks a row nobody judged (a document outside the judged pool,
        absent from the qrels); its ``y_true`` is ignored. None means every
        row is judged.
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
    rbp_score : rank-biased precision, with the residual of unjudged rows.
    average_precision_score : counts unjudged rows as non-relevant.

    Notes
    -----
    trec_eval's ``bpref`` (Buckley & Voorhees, 2004):

    .. math::

        \\mathrm{bpref} = \\frac{1}{R} \\sum_{r\\ \\mathrm{relevant}}
            \\left(1 - \\frac{\\min(n_r, R)}{\\min(R, N)}\\right)

    where R and N are the query's judged relevant and judged non-relevant
    rows and n_r the judged non-relevant rows ranked above r; a relevant
    row with none above it scores 1 (also when N = 0). Unjudged rows take
    no part at all, so passing ``unjudged`` gives the same value as dropping
    those rows; the mask saves the filtering and keeps the rows for other
    metrics and scorers. A query with no judged relevant row is handled by
    ``no_relevant`` (trec_eval scores it 0: ``no_relevant="zero"``).

    Every row is ranked, so R and N count the judged rows of the query
    (trec_eval also counts judged documents the run did not retrieve). With
    ``ties="average"`` the value is the exact expectation over the orders of
    tied rows: the number of a tie block's judged non-relevant rows that
    land above a relevant row of the block is uniform, which gives a closed
    form. trec_eval breaks ties by document id instead.

    References
    ----------
    .. [1] C. Buckley and E. M. Voorhees. Retrieval evaluation with
       incomplete information. SIGIR 2004.

    Examples
    --------
    >>> from skrank import bpref_score
    >>> relevance = [1, 0, 1, 0, 1]                      # in score order
    >>> bpref_score(relevance, [5, 4, 3, 2, 1])      # (1 + (1 - 1/2) + (1 - 2/2)) / 3
    0.5
    >>> # the row ranked second was never judged: it is left out
    >>> bpref_score(relevance, [5, 4, 3, 2, 1],
    ...             unjudged=[False, True, False, False, False])   # (1 + 1 + 0) / 3
    0.6666...
    """
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    unjudged = check_row_mask("unjudged", unjudged, np.shape(y_true))
    values, n_rel = _bpref_per_query(
        ranked, judged=_judged_in_ranked_order(ranked, unjudged)
    )
    return aggregate_queries(
        values, ranked, no_relevant=no_relevant, aggregate=aggregate,
        undefined=n_rel == 0,
    )


@validate_with_preset({
    "p": FRACTION, "gain": choice(*RBP_GAINS), "return_residual": FLAG,
    **CUTOFF_OPTIONS,
}, stem="rbp")
def rbp_score(
    y_true,
    y_score,
    *,
    p=0.8,
    k=None,
    gain="binary",
    unjudged=None,
    return_residual=False,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Rank-biased precision (RBP): the rate of relevant rows a patient user sees.

    Parameters
    ----------
    {y_true, y_score}
    p : float, default=0.8
        Persistence: the probability that the user goes on from one rank to
        the next, in (0, 1). The expected depth viewed is 1 / (1 - p).
    {k}
    gain : {"binary", "linear", "scaled"}, default="binary"
        What a row contributes: 1 when relevant (Moffat & Zobel's binary
        RBP), ``y_true`` itself (graded RBP, as ranx's ``rbp``; use grades
        in [0, 1] to keep the score in [0, 1]), or ``y_true`` over the top
        grade of the row's query (its rows retrieved or not, unjudged ones
        left out) when that top grade is above 1, so that gains lie in
        [0, 1]: trec_eval's ``rbp``, which ``compat="trec_eval"`` selects
        with ``p=0.9``.
    unjudged : array-like of bool of the same shape as ``y_true``, default=None
        True marks a row nobody judged (a document outside the judged pool,
        absent from the qrels); its ``y_true`` is ignored. None means every
        row is judged.
    return_residual : bool, default=False
        Also return the residual: the most the score could still rise if
        every unjudged row, and every row past the evaluated depth, were
        relevant.
    {query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.
    residual : float or QueryValues
        Only with ``return_residual=True``: the residual, averaged over the
        same queries with the same weights as ``score`` (per query with
        ``aggregate=None``, ``nan`` where the score is left out).

    See Also
    --------
    dcg_score : another discounted sum of gains.
    bpref_score : a measure that ignores unjudged rows.

    Notes
    -----
    .. math::

        \\mathrm{RBP@k} = (1 - p) \\sum_{i \\le k} g_i\\, p^{i - 1},
        \\qquad
        \\mathrm{residual} = (1 - p) \\sum_{i \\le k,\\ i\\ \\mathrm{unjudged}}
            p^{i - 1} + p^{d}

    with d = min(k, rows of the query) the depth evaluated (Moffat & Zobel,
    2008). RBP needs no ideal ranking: a perfect ranking of R relevant rows
    scores 1 - p^R, not 1, and ``score + residual`` bounds the value a
    complete judgment could give (for binary gains). Unjudged rows count as
    non-relevant in the score. A query with no relevant row scores 0 but is
    handled by ``no_relevant`` like every skrank metric (ranx scores it 0:
    ``no_relevant="zero"``). The score is linear in the ranking, so tied
    rows share their block's mean gain and the tie average is exact.

    References
    ----------
    .. [1] A. Moffat and J. Zobel. Rank-biased precision for measurement of
       retrieval effectiveness. ACM TOIS 27(1), 2008.

    Examples
    --------
    >>> from skrank import rbp_score
    >>> relevance = [1, 0, 1, 0]                          # in score order
    >>> rbp_score(relevance, [4, 3, 2, 1], p=0.5)         # 0.5 * (1 + 0.5**2)
    0.625
    >>> rbp_score(relevance, [4, 3, 2, 1], p=0.5, k=2,
    ...           return_residual=True)                   # residual 0.5**2
    (0.5, 0.25)
    >>> # trec_eval's gains: grades over the top grade 2: 0.5 * (2/2 + 0.5**2 * 1/2)
    >>> rbp_score([2, 0, 1, 0], [4, 3, 2, 1], p=0.5, gain="scaled")
    0.5625
    """
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    unjudged = check_row_mask("unjudged", unjudged, np.shape(y_true))
    judged = _judged_in_ranked_order(ranked, unjudged)
    values = _rbp_per_query(ranked, k=k, p=p, gain=gain, judged=judged)
    relevant = (ranked.relevance > 0).astype(np.float64)  # retrieved or not
    if judged is not None:
        relevant *= judged
    undefined = segment_sum(relevant, ranked.query_start) == 0
    score = aggregate_queries(
        values, ranked, no_relevant=no_relevant, aggregate=aggregate,
        undefined=undefined,
    )
    if not return_residual:
        return score
    residual = _rbp_residual_per_query(ranked, k=k, p=p, judged=judged)
    # the residual of a query left out of the score is left out too
    kept = apply_no_relevant(np.zeros(ranked.n_queries), undefined, ranked, no_relevant)
    residual = np.where(np.isnan(kept), np.nan, residual)
    return score, aggregate_queries(
        residual, ranked, aggregate=aggregate, undefined=np.isnan(residual)
    )
