"""The rows a RankingAccumulator keeps for its open queries, and their top-k summary.

Open rows stay in arrival order as one :class:`Rows`; :func:`top_k_rows`
replaces, when every metric reads only the top k, the rows that can no
longer reach a query's top k by a summary (their count, weight sum,
relevant count and k largest grades) in rows scored ``-inf``, which
:func:`rank_rows` turns into the query's R and weight.
"""

from typing import NamedTuple

import numpy as np

from .._core._layout import rank_queries, segment_sum
from ._contiguous import codes as _codes


class Rows(NamedTuple):
    """Rows kept for open queries (or about to be scored), in arrival order.

    ``count``, ``n_relevant`` are None for plain rows (each row is one row,
    relevant when ``relevance > 0``); summary rows of a top-k state carry
    them: a grade row (count 0) or a totals row (relevance 0).
    """

    relevance: np.ndarray
    score: np.ndarray
    ids: np.ndarray
    weight: np.ndarray | None
    count: np.ndarray | None = None
    n_relevant: np.ndarray | None = None

    def __len__(self):
        return self.relevance.shape[0]

    def take(self, index):
        return Rows(*(None if a is None else a[index] for a in self))


def concat_ids(parts):
    parts = [p for p in parts if p.shape[0]]
    if not parts:
        return np.empty(0)
    kinds = {p.dtype.kind for p in parts}
    if len(kinds) > 1 and not kinds <= set("iuf"):
        # ints and strings stay different ids: never let numpy cast them to str
        parts = [p.astype(object) for p in parts]
    return np.concatenate(parts)


def concat_rows(parts):
    """One :class:`Rows` from several; missing weights or counts are filled."""
    parts = [p for p in parts if p is not None and len(p)]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]

    def column(field, fill):
        arrays = [getattr(p, field) for p in parts]
        if all(a is None for a in arrays):
            return None
        return np.concatenate([
            fill(p) if a is None else a for p, a in zip(parts, arrays)
        ])

    return Rows(
        np.concatenate([p.relevance for p in parts]),
        np.concatenate([p.score for p in parts]),
        concat_ids([p.ids for p in parts]),
        column("weight", lambda p: np.ones(len(p))),
        column("count", lambda p: np.ones(len(p))),
        column("n_relevant", lambda p: (p.relevance > 0).astype(np.float64)),
    )


def member(ids, of):
    """Boolean mask of the ``ids`` that occur in ``of``."""
    if not ids.shape[0] or not of.shape[0]:
        return np.zeros(ids.shape[0], dtype=bool)
    if ids.dtype.kind in "iuf" and of.dtype.kind in "iuf":
        return np.isin(ids, of)
    keys = _codes(concat_ids([of, ids]))
    return np.isin(keys[of.shape[0]:], keys[:of.shape[0]])


def rank_rows(rows, ties, binary):
    """The layout of whole queries' rows; summaries fix R and the query weight."""
    ranked = rank_queries(
        rows.relevance, rows.score, query_id=rows.ids, sample_weight=rows.weight,
        ties=ties, binary=binary,
    )
    if rows.count is not None:
        # summary rows stand for rows let go: R and the query weight count
        # them (the layout's cached properties, set as with_relevance does)
        order, starts = ranked.order, ranked.query_start
        ranked.__dict__["n_relevant"] = segment_sum(rows.n_relevant[order], starts)
        if rows.weight is not None:
            n = segment_sum(rows.count[order], starts)
            ranked.__dict__["query_weight"] = segment_sum(rows.weight[order], starts) / n
    return ranked


def top_k_rows(rows, k):
    """Open rows reduced to what top-k metrics read: top rows and a summary.

    A query keeps its plain rows scored at least as high as its k-th row.
    Everything else (rows below, earlier summaries) becomes one totals row
    (count, weight sum, relevant count) and up to k grade rows (the largest
    grades), all scored ``-inf``.
    """
    if rows.count is None:
        plain = np.ones(len(rows), dtype=bool)
    else:
        plain = (rows.count == 1) & (rows.n_relevant == (rows.relevance > 0))
    keys = _codes(rows.ids)
    # the plain rows by (query, descending score); a query's k-th score
    index = np.flatnonzero(plain)
    score = rows.score[index]
    order = np.lexsort((-score, keys[index]))
    score = score[order]
    sorted_keys = keys[index][order]
    start = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    size = np.diff(start, append=order.shape[0])
    threshold = np.full(start.shape[0], -np.inf)
    long = size > k
    threshold[long] = score[start[long] + k - 1]
    keep = np.zeros(len(rows), dtype=bool)
    keep[index[order[score >= np.repeat(threshold, size)]]] = True
    if keep.all():
        return rows
    gone = rows.take(~keep)
    keys = keys[~keep]
    count = np.ones(len(gone)) if gone.count is None else gone.count
    if gone.n_relevant is None:
        n_relevant = (gone.relevance > 0).astype(np.float64)
    else:
        n_relevant = gone.n_relevant
    # one totals row per query
    by_query = np.argsort(keys, kind="stable")
    sorted_keys = keys[by_query]
    first = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    n_queries = first.shape[0]
    totals = Rows(
        np.zeros(n_queries), np.full(n_queries, -np.inf), gone.ids[by_query[first]],
        None if gone.weight is None else segment_sum(gone.weight[by_query], first),
        segment_sum(count[by_query], first),
        segment_sum(n_relevant[by_query], first),
    )
    # and the k largest positive grades of each query
    by_grade = np.lexsort((-gone.relevance, keys))
    sorted_keys = keys[by_grade]
    first = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    rank = np.arange(by_grade.shape[0]) - np.repeat(
        first, np.diff(first, append=by_grade.shape[0])
    )
    top = by_grade[(rank < k) & (gone.relevance[by_grade] > 0)]
    m = top.shape[0]
    grades = Rows(
        gone.relevance[top], np.full(m, -np.inf), gone.ids[top],
        None if gone.weight is None else np.zeros(m), np.zeros(m), np.zeros(m),
    )
    kept = rows.take(keep)
    if kept.count is None:
        kept = Rows(
            kept.relevance, kept.score, kept.ids, kept.weight,
            np.ones(len(kept)), (kept.relevance > 0).astype(np.float64),
        )
    return concat_rows([kept, totals, grades])
