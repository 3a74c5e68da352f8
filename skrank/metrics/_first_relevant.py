"""Metrics of the first relevant row: reciprocal rank (MRR) and hit rate (success@k).

Under ties both are exact expectations over the orders of the first tie
block that holds a relevant row.
"""

import numpy as np

from .._core._params import CUTOFF_OPTIONS
from .._core._aggregate import score_queries
from .._core._layout import segment_cumsum
from .._core._ties import first_relevant_block, hypergeometric_some
from ._presets_apply import validate_with_preset


def _reciprocal_rank_per_query(ranked, *, k):
    """Expected 1/(rank of the first relevant row) within k, per query.

    Only the first tie block holding a relevant row matters: with m rows, r
    of them relevant, starting at rank s, the first relevant row lands at
    offset j with probability

        P(j) = C(m-1-j, r-1) / C(m, r) = (r/m) prod_{i<j} (1 - (r-1)/(m-1-i)).

    The log of the product is a running sum of log1p terms over the
    offsets of all blocks at once. Each block's terms are followed by
    minus their total, so the running sum returns to ~0 between blocks and
    its rounding stays that of one block's values (differences of gammaln
    values of size ~1e7 lose 8 digits in a block of millions of rows).
    """
    values = np.zeros(ranked.n_queries)
    first_block = first_relevant_block(ranked)
    has = np.flatnonzero(first_block >= 0)
    if not ranked.has_ties:  # the first relevant row is where it is: 1/rank
        rank = ranked.rank[first_block[has]]
        values[has] = np.where(rank <= k, 1.0 / rank, 0.0) if k is not None else 1.0 / rank
        return values
    blocks = first_block[has]
    m = ranked.block_size[blocks].astype(np.float64)
    r = ranked.block_relevant[blocks]
    s = ranked.block_first_rank[blocks]
    n_offsets = (m - r + 1).astype(np.intp)
    if k is not None:  # offsets past the cutoff add nothing
        n_offsets = np.clip(k - s + 1, 0, n_offsets)
    owner = np.repeat(np.arange(blocks.shape[0]), n_offsets)
    first = np.cumsum(n_offsets) - n_offsets
    j = np.arange(owner.shape[0]) - np.repeat(first, n_offsets)
    mm, rr = m[owner], r[owner]
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.log1p(-(rr - 1.0) / (mm - 1.0 - j))  # the factor for offsets past j
    term[j >= mm - rr] = 0.0  # the last offset's factor is never used
    term[np.isnan(term)] = 0.0
    in_use = np.flatnonzero(n_offsets)
    last = first[in_use] + n_offsets[in_use] - 1
    term[last] -= np.add.reduceat(term, first[in_use]) if in_use.shape[0] else 0.0
    # the sum of the block's terms before each offset, from its own terms only
    log_product = segment_cumsum(term, first[in_use]) - term
    probability = np.exp(np.log(rr / mm) + log_product)
    contribution = probability / (s[owner] + j)
    values[has] = np.bincount(owner, weights=contribution, minlength=blocks.shape[0])
    return values


@validate_with_preset(CUTOFF_OPTIONS, stem="mrr")
def reciprocal_rank_score(
    y_true,
    y_score,
    *,
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
    """Reciprocal rank of the first relevant row (RR@k); with ``query_id``, MRR.

    Parameters
    ----------
    {y_true, y_score, k, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    hit_rate_score : whether any relevant row is in the top k.

    Notes
    -----
    RR@k is 1 / (rank of the first relevant row) when that rank is at most
    k, else 0 (trec_eval's ``recip_rank`` with ``k=None``). With
    ``ties="average"`` it is the exact expectation over the orders of tied
    rows: only the first tie block holding a relevant row matters.

    Examples
    --------
    >>> from skrank import reciprocal_rank_score
    >>> reciprocal_rank_score([0, 0, 1, 0], [4, 3, 2, 1])      # 1/3
    0.3333...
    >>> reciprocal_rank_score([0, 1], [1, 1])                   # (1/1 + 1/2) / 2
    0.75
    """
    return score_queries(
        _reciprocal_rank_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
    )


def _hit_rate_per_query(ranked, *, k):
    """P(at least one relevant row in the top k): only the first relevant block matters."""
    values = np.zeros(ranked.n_queries)
    first_block = first_relevant_block(ranked)
    has = np.flatnonzero(first_block >= 0)
    if k is None:
        values[has] = 1.0
        return values
    blocks = first_block[has]
    m = ranked.block_size[blocks]
    inside = np.clip(k - ranked.block_first_rank[blocks] + 1, 0, m)
    values[has] = hypergeometric_some(m, ranked.block_relevant[blocks], inside)
    return values


@validate_with_preset(CUTOFF_OPTIONS, stem="hit_rate")
def hit_rate_score(
    y_true,
    y_score,
    *,
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
    """Hit rate at k ("success@k"): whether a relevant row is in the top k.

    Parameters
    ----------
    {y_true, y_score, k, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    reciprocal_rank_score

    Notes
    -----
    1 if hits@k > 0 else 0 (trec_eval's ``success_k``). With
    ``ties="average"`` it is the probability of a hit over the orders of
    tied rows (hypergeometric in the tie block that straddles k).

    Examples
    --------
    >>> from skrank import hit_rate_score
    >>> hit_rate_score([0, 1, 0, 0], [4, 3, 2, 1], k=1)
    0.0
    >>> hit_rate_score([0, 1, 1, 0, 0], [5, 5, 5, 5, 2], k=2)  # 1 - C(2,2)/C(4,2)
    0.8333...
    """
    return score_queries(
        _hit_rate_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
    )
