"""trec_eval's shared kernels: sums in trec_eval's order, interpolated precision, AP, bpref.

The measures of :mod:`._measures` and :mod:`._trec_measures` are built on
these; they take a piece's ``parts`` (the layouts of :mod:`._join`).
"""

import numpy as np

from ..metrics._average_precision import _average_precision_terms
from ..metrics._incomplete import _bpref_per_query


def zero_nan(values):
    return np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0)


def iprec_at_recall(parts, level):
    """trec_eval's interpolated precision at a recall level, per query.

    The level becomes a number of relevant documents, ``c = lround(level R)``
    (trec_eval 10.0; older copies use ``(long)(level R + 0.9)``); the value
    is the best precision at or after the rank of the ``max(c, 1)``-th
    relevant document retrieved, 0 when fewer than ``c`` were retrieved.
    Rows in trec_eval's order have no tie blocks: positions are ranks. With
    ``ties="average"``, a query whose tie block mixes relevant and other
    rows gets the exact expected value over the orders of its ties
    (:func:`_expected_iprec`); every other query is computed as without ties.
    """
    ranked = parts.binary
    cut = np.floor(level * ranked.n_relevant + 0.5).astype(np.int64)  # lround, >= 0
    found = np.rint(ranked.n_relevant_retrieved).astype(np.int64)
    wanted = np.maximum(cut, 1)
    # position in the query (tied rows in layout order): in a block of only
    # relevant rows, or of none, the relevant rows hold these positions in
    # every order of the ties
    position = np.arange(ranked.n_rows) - ranked.query_start[ranked.query] + 1
    # the best precision at or after a relevant row is reached at a relevant
    # row (it falls at every other one): only those rows are looked at
    relevant_rows = np.flatnonzero(ranked.is_relevant > 0)
    query = ranked.query[relevant_rows]
    hits = np.arange(1, relevant_rows.shape[0] + 1, dtype=np.int64)
    first = np.searchsorted(relevant_rows, ranked.query_start)
    hits -= first[query]  # relevant rows so far in the query, this one included
    precision = hits / position[relevant_rows]
    best_after = _suffix_max_by_query(precision, query, ranked.n_queries)
    ok = wanted <= found
    out = np.zeros(ranked.n_queries)
    out[ok] = best_after[first[ok] + wanted[ok] - 1]
    if ranked.has_ties:
        mixed = (ranked.block_relevant > 0) & (ranked.block_relevant < ranked.block_size)
        mixed &= np.isfinite(ranked.score[ranked.block_start]) if ranked.score is not None \
            else True
        for q in np.unique(ranked.block_query[mixed]):
            if ok[q]:
                out[q] = _expected_iprec(ranked, q, int(wanted[q]))
    return out


#: work (thresholds x block rows x relevant rows) above which a tie block is
#: refused rather than averaged exactly
_IPREC_WORK = 50_000_000


def _expected_iprec(ranked, q, wanted):
    """E[max_{j >= wanted} j / pos_j] over the orders of query ``q``'s tied rows.

    Blocks are independent, and the relevant rows counted before a block do
    not depend on the orders, so the maximum's distribution function is the
    product of the blocks' own, ``P(M_B <= t)``. For a block of ``b`` rows
    with ``r`` relevant, ``s`` rows and ``j0`` relevant rows above it,
    ``M_B <= t`` holds when the i-th relevant row's place ``p_i`` in the
    block satisfies ``(j0 + i) / (s + p_i) <= t``; the share of the
    ``C(b, r)`` equally likely places that do is counted by a recurrence
    over i. Thresholds are fractions of integers, compared exactly.
    """
    blocks = np.flatnonzero(ranked.block_query == q)
    if ranked.score is not None:
        blocks = blocks[np.isfinite(ranked.score[ranked.block_start[blocks]])]
    first_rank = ranked.query_start[q]
    constants, random = [], []
    for block in blocks:
        r, b = int(ranked.block_relevant[block]), int(ranked.block_size[block])
        j0 = int(ranked.relevant_before_block[block])
        s = int(ranked.block_start[block] - first_rank)
        low = max(1, wanted - j0)
        if r == 0 or low > r:
            continue
        if r == b:  # relevant rows fill the block: their places are fixed
            constants += [((j0 + i), (s + i)) for i in range(low, r + 1)]
        else:
            random.append((s, j0, r, b, low))
    floor = max((a / c for a, c in constants), default=0.0)
    points, cdfs = [], []
    for s, j0, r, b, low in random:
        pairs = {}
        for i in range(low, r + 1):
            for p in range(i, b - r + i + 1):
                a, c = j0 + i, s + p
                pairs.setdefault(a / c, (a, c))
        values = np.array(sorted(pairs))
        if values.shape[0] * b * r > _IPREC_WORK:
            raise ValueError(
                f"iprec_at_recall with ties='average': query {ranked.query_ids[q]!r} has a "
                f"block of {b} tied rows ({r} relevant), too large to average over its "
                "orders exactly; pass ties='input' or compat='trec_eval'."
            )
        fractions = np.array([pairs[v] for v in values], dtype=np.int64)
        points.append(values)
        cdfs.append(_share_below(fractions, s, j0, r, b, low))
    grid = np.unique(np.concatenate([[floor], *points]))
    grid = grid[grid >= floor]
    cdf = np.ones(grid.shape[0])
    for values, own in zip(points, cdfs):
        index = np.searchsorted(values, grid, side="right") - 1
        cdf *= np.where(index >= 0, own[np.maximum(index, 0)], 0.0)
    if not constants:
        cdf[grid < floor] = 0.0
    jumps = np.diff(np.r_[0.0, cdf])
    return float(np.dot(grid, jumps))


def _share_below(fractions, s, j0, r, b, low):
    """For each threshold a/c, P(every (j0+i)/(s+p_i) <= a/c, i >= low)."""
    a, c = fractions[:, 0:1], fractions[:, 1:2]
    i = np.arange(1, r + 1)[None, :]
    # p_i >= ceil(((j0 + i) c - s a) / a), exact in integers; no bound below low
    bound = -((s * a - (j0 + i) * c) // a)
    bound = np.where(i >= low, bound, 1)
    place = np.arange(1, b + 1)[None, :]
    ways = (place >= bound[:, 0:1]).astype(np.float64)
    total = np.ones((1, b))
    for k in range(1, r):
        ways = np.concatenate([np.zeros((ways.shape[0], 1)), np.cumsum(ways, axis=1)[:, :-1]],
                              axis=1) * (place >= bound[:, k:k + 1])
        total = np.concatenate([np.zeros((1, 1)), np.cumsum(total, axis=1)[:, :-1]], axis=1)
    return ways.sum(axis=1) / total.sum()


def _suffix_max_by_query(values, query, n_queries):
    """Largest of ``values`` from each position to the end of its query, exactly.

    ``query`` is non-decreasing. Each value becomes its rank among the
    distinct values, and the ranks of later queries (in reverse) are lifted
    above every earlier one, so one running max over int64 keys restarts at
    each query with no float arithmetic on the values.
    """
    distinct, rank = np.unique(values, return_inverse=True)
    n = max(distinct.shape[0], 1)
    key = (n_queries - 1 - query).astype(np.int64) * n + rank.reshape(-1)
    best = np.maximum.accumulate(key[::-1])[::-1]
    return distinct[best % n] if distinct.shape[0] else values.copy()


def sequential_sum(values, query, n_queries):
    """Per-query sums of ``values``, added one after the other in row order.

    trec_eval adds a query's terms in a C loop; numpy's sums are pairwise,
    which can differ in the last bit and move a printed 4th decimal.
    ``np.bincount`` adds its weights in that same way, one row after the
    other into each query's total; only the nonzero terms are added
    (adding 0.0 changes no sum).
    """
    rows = np.flatnonzero(values != 0)  # a bool array's nonzero is 6x a float array's
    return np.bincount(query[rows], weights=values[rows], minlength=n_queries)


def trec_average_precision(parts, k=None):
    """trec_eval's map / map_cut_k: precision summed at each relevant rank, over R."""
    ranked = parts.binary
    terms = _average_precision_terms(ranked)
    if ranked.has_ties:  # expected terms: a tie block spreads them over its rows
        if k is not None:
            terms = np.where(ranked.rank <= k, terms, 0.0)
        total = sequential_sum(terms, ranked.query, ranked.n_queries)
    else:  # the terms of the relevant rows (ranked k or better), in rank order
        rows = ranked.relevant_rows_within(k)
        total = np.bincount(ranked.query[rows], weights=terms[rows],
                            minlength=ranked.n_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        return zero_nan(total / ranked.n_relevant)


def bpref(parts):
    return zero_nan(_bpref_per_query(parts.binary, judged=parts.judged)[0])
