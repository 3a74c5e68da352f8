"""Average precision (MAP): average_precision_score and the AP kernels others reuse.

It is an exact expectations over the orders of tied rows, from closed forms
(McSherry & Najork, 2008) evaluated with whole-array arithmetic.
"""

import numpy as np

from .._core._params import (
    choice,
    CUTOFF_OPTIONS,
    NORMALIZE,
    TIE_BLOCKS,
)
from .._core._aggregate import score_queries
from .._core._layout import segment_sum
from .._core._ties import expected_hits_at_k, log_choose
from ._presets_apply import validate_with_preset


def _average_precision_terms(ranked):
    """Expected ``rel_i * P@i`` at each position i of the ranked rows.

    For position i, the t-th of a tie block of m rows holding r relevant
    rows with H relevant rows ranked above the block::

        E[rel_i * hits@i] / i = ((r/m)(H + 1) + (t - 1) r(r-1) / (m(m-1))) / i
    """
    if not ranked.has_ties:  # rel_i * hits@i / i, nonzero at the relevant rows only
        rows = ranked.relevant_rows
        # a relevant row's hits@i: its place among its query's relevant rows
        first = np.searchsorted(rows, ranked.query_start)
        hits = np.arange(1, rows.shape[0] + 1) - first[ranked.query[rows]]
        terms = np.zeros(ranked.n_rows)
        terms[rows] = hits / ranked.rank[rows]
        return terms
    m = ranked.block_size.astype(np.float64)
    r = ranked.block_relevant
    alone = (r / m) * (ranked.relevant_before_block + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = np.where(m > 1, r * (r - 1) / (m * (m - 1)), 0.0)
    block = ranked.block
    offset = ranked.rank - ranked.block_first_rank[block]  # t - 1
    return (alone[block] + offset * pair[block]) / ranked.rank


def _average_precision_sum(ranked, k, terms=None):
    """Expected sum of P@i over the relevant positions i <= k, per query."""
    if terms is None:
        terms = _average_precision_terms(ranked)
    if k is not None:
        terms = np.where(ranked.rank <= k, terms, 0.0)
    return segment_sum(terms, ranked.query_start)


def _threshold_average_precision_sum(ranked, k):
    """Sum over tie blocks of (relevant rows added) x (precision at the block's end).

    scikit-learn's ``average_precision_score`` steps once per distinct
    score: a tie block counts once, at its last position. A block that
    straddles position ``k`` counts its expected share of relevant rows in
    the top k, at position k.
    """
    first = ranked.block_first_rank.astype(np.float64)
    size = ranked.block_size.astype(np.float64)
    end = first + size - 1
    relevant = ranked.block_relevant
    if k is not None:
        end = np.minimum(end, float(k))
        inside = np.clip(end - first + 1, 0.0, None)
        relevant = relevant * inside / size
    hits_at_end = ranked.relevant_before_block + relevant
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = np.where(relevant > 0, relevant * hits_at_end / end, 0.0)
    return np.bincount(ranked.block_query, weights=terms, minlength=ranked.n_queries)


def _average_precision_per_query(ranked, *, k, normalize="relevant",
                                 tie_blocks="expected"):
    """Expected AP@k per query under the chosen normalisation."""
    relevant = ranked.n_relevant
    if tie_blocks == "threshold":
        total = _threshold_average_precision_sum(ranked, k)
        with np.errstate(invalid="ignore", divide="ignore"):
            if normalize == "relevant":
                return total / relevant
            if normalize == "min":
                return total / (relevant if k is None else np.minimum(relevant, k))
            hits = expected_hits_at_k(ranked, k)
            return np.where(hits > 0, total / hits, 0.0)
    terms = _average_precision_terms(ranked)
    total = _average_precision_sum(ranked, k, terms)
    with np.errstate(invalid="ignore", divide="ignore"):
        if normalize == "relevant":
            return total / relevant
        if normalize == "min":
            return total / (relevant if k is None else np.minimum(relevant, k))
        return _retrieved_average_precision(ranked, k, terms, total)


def _retrieved_average_precision(ranked, k, terms, total):
    """Expected AP@k normalised by hits@k (0 when nothing relevant is retrieved).

    hits@k is random only through the tie block that straddles position k;
    conditioning on the number x of its relevant rows that fall inside the
    top k (hypergeometric) makes every term a closed form.
    """
    sizes = ranked.query_size
    hits = expected_hits_at_k(ranked, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(hits > 0, total / hits, 0.0)
    if k is None:
        return values
    # the block holding position k, for queries longer than k
    long = np.flatnonzero(sizes > k)
    block_k = ranked.block[ranked.query_start[long] + k - 1]
    first = ranked.block_first_rank[block_k]
    m = ranked.block_size[block_k]
    t = k - first + 1
    r = ranked.block_relevant[block_k].astype(np.intp)
    straddle = (t < m) & (r > 0)
    if not straddle.any():
        return values
    queries = long[straddle]
    first, m, t, r = first[straddle], m[straddle], t[straddle], r[straddle]
    above = ranked.relevant_before_block[block_k[straddle]]

    # expected sum over the full blocks above the straddling block, and the
    # two position sums of the straddling block's top part
    lookup = np.full(ranked.n_queries, -1, dtype=np.intp)
    lookup[queries] = np.arange(queries.shape[0])
    row_first = lookup[ranked.query]
    in_set = row_first >= 0
    start_rank = np.zeros(ranked.n_queries, dtype=np.intp)
    start_rank[queries] = first
    rank = ranked.rank
    before = in_set & (rank < start_rank[ranked.query])
    inside = in_set & (rank >= start_rank[ranked.query]) & (rank <= k)
    n_set = queries.shape[0]
    s_pre = np.bincount(row_first[before], weights=terms[before], minlength=n_set)
    u = (rank - start_rank[ranked.query] + 1)[inside]
    a1 = np.bincount(row_first[inside], weights=1.0 / rank[inside], minlength=n_set)
    a2 = np.bincount(row_first[inside], weights=(u - 1) / rank[inside], minlength=n_set)

    # expand (query, x) pairs, x = 0..min(r, t)
    n_x = np.minimum(r, t) + 1
    owner = np.repeat(np.arange(n_set), n_x)
    x = np.arange(owner.shape[0]) - np.repeat(np.cumsum(n_x) - n_x, n_x)
    mm, rr, tt = m[owner], r[owner], t[owner]
    feasible = (t[owner] - x) <= (mm - rr)
    log_pmf = (
        log_choose(rr, x)
        + log_choose(mm - rr, np.where(feasible, tt - x, 0))
        - log_choose(mm, tt)
    )
    pmf = np.where(feasible, np.exp(log_pmf), 0.0)
    hits_x = above[owner] + x
    with np.errstate(invalid="ignore", divide="ignore"):
        pair = np.where(tt > 1, x * (x - 1) / (tt * (tt - 1.0)), 0.0)
        expected_sum = (
            s_pre[owner]
            + (x / tt) * (above[owner] + 1) * a1[owner]
            + pair * a2[owner]
        )
        ratio = np.where(hits_x > 0, expected_sum / hits_x, 0.0)
    values[queries] = np.bincount(owner, weights=pmf * ratio, minlength=n_set)
    return values


@validate_with_preset({
    "normalize": choice(*NORMALIZE), "tie_blocks": choice(*TIE_BLOCKS),
    **CUTOFF_OPTIONS,
}, stem="map")
def average_precision_score(
    y_true,
    y_score,
    *,
    k=None,
    normalize="relevant",
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
    tie_blocks="expected",
):
    """Average precision (AP@k); with ``query_id``, mean average precision (MAP).

    Parameters
    ----------
    {y_true, y_score, k}
    normalize : {"relevant", "min", "retrieved"}, default="relevant"
        What the sum of precisions is divided by: R, the query's number of
        relevant rows (trec_eval's ``map`` and ``map_cut``); ``min(k, R)``;
        or hits@k, the relevant rows retrieved in the top k (0 when there is
        none).
    {query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}
    tie_blocks : {"expected", "threshold"}, default="expected"
        With ``ties="average"``: ``"expected"`` is the exact expected AP
        over the orders of tied rows; ``"threshold"`` counts each tie block
        once, as the precision at the block's end times the recall it adds
        (scikit-learn's ``average_precision_score``, one step per distinct
        score). Both agree without ties.

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    fap_score : AP combined with F@k, which also rewards stopping at k.
    precision_at_k_score : the precision at one cutoff.

    Notes
    -----
    .. math::

        \\mathrm{AP@k} = \\frac{1}{D} \\sum_{i \\le k,\\ rel_i > 0} \\mathrm{P@}i

    With ``ties="average"`` the value is the exact expectation over all
    orders of tied rows, from the closed form of McSherry & Najork (2008);
    with ``normalize="retrieved"`` the random denominator is handled exactly
    too. Without ties and with ``k=None`` it equals scikit-learn's
    ``average_precision_score`` of the query, and trec_eval's ``map``
    (``map_cut_k`` with ``k``). Graded relevance counts ``y_true > 0`` as
    relevant.

    References
    ----------
    .. [1] F. McSherry and M. Najork. Computing information retrieval
       performance measures efficiently in the presence of tied scores.
       ECIR 2008.

    Examples
    --------
    >>> from skrank import average_precision_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> average_precision_score(relevance, scores)   # (1/1 + 2/3 + 3/4 + 4/6) / 4
    0.7708...
    >>> average_precision_score([1, 0, 0, 1], [2, 1, 1, 2], query_id=[1, 1, 2, 2])
    1.0
    """
    return score_queries(
        _average_precision_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k, normalize=normalize,
        tie_blocks=tie_blocks,
    )


