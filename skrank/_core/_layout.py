"""The one shared model of a ranking: rows ordered by (query, descending score).

:func:`rank_queries` validates the inputs once, turns any ``query_id`` into
integer codes, sorts once, and returns a :class:`RankedQueries`. Every metric
kernel is whole-array arithmetic on that layout: segment sums with
``np.add.reduceat`` over query or tie-block offsets, never a Python loop over
queries or rows.

Tie policy lives in the data: with ``ties="average"`` rows of equal score in
a query form one *tie block*; with ``ties="input"`` every row is its own block,
so no kernel needs to know which policy is in force. ``ties="pessimistic"``
and ``"optimistic"`` are input order with another tie-breaking key: among
equal scores the lower (higher) ``y_true`` ranks first, CatBoost's rule
(pessimistic), so each row is its own block too.

Judged but not retrieved: a row scored ``-inf`` is one the system did not
return (a relevant document missing from a TREC run). It sorts below every
retrieved row of its query and stays in the layout, so it counts in R
(:attr:`RankedQueries.n_relevant`) and in the ideal ranking, but it is never
a hit: :attr:`RankedQueries.is_relevant` (and everything built on it: tie
shares, hits@k, first relevant rank) and :attr:`RankedQueries.ranked_relevance`
are 0 there, so no cutoff ever finds it.
"""

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from ._params import TIES
from ._factorize import factorize
from ._sort import exact_score_key, packed_order, sort_runs
from ._validation import (
    check_option,
    check_relevance,
    check_same_length,
    check_sample_weight,
    check_score,
    warn_if_label_scores,
)


def segment_sum(values, starts):
    """Sum of ``values`` over the segments that begin at ``starts``.

    Segments are never empty in a layout, which is what ``np.add.reduceat``
    needs to be a plain segment sum.
    """
    return np.add.reduceat(values, starts)


def segment_cumsum(values, starts):
    """Running sum of ``values`` restarting at each segment start.

    Segments begin at ``starts`` (ascending, the first at 0, none empty).
    Each segment's sums depend on its own values only, never on the
    segments before it: whole numbers are summed exactly by one global
    running sum; floats segment by segment (:func:`_local_cumsum`), since a
    global running sum would round each segment differently depending on
    what precedes it, and the same query would score differently in
    memory, on Dask and on Spark.
    """
    if values.dtype.kind in "biu":
        running = np.cumsum(values)
        offset = running[starts] - values[starts]
        running -= np.repeat(offset, np.diff(starts, append=values.shape[0]))
        return running
    return _local_cumsum(values, starts)


def _local_cumsum(values, starts):
    """Running sums that restart at ``starts``, each computed from its segment alone.

    Segments are grouped by size, rounded up to a power of two; each group
    is the rows of a zero-padded matrix, summed along its rows. All the
    groups share one buffer (at most twice the values), filled and read
    back with one scatter and one gather; the Python loop is over the
    sizes' powers of two only.
    """
    n = values.shape[0]
    dtype = np.result_type(values.dtype, np.float64)
    sizes = np.diff(starts, append=n)
    if n == 0 or sizes.max() == 1:
        return values.astype(dtype)
    widths = np.left_shift(1, np.ceil(np.log2(sizes)).astype(np.intp))
    by_width = np.argsort(widths, kind="stable")
    base = np.empty_like(widths)
    base[by_width] = np.cumsum(widths[by_width]) - widths[by_width]
    # where each value goes: its segment's row, its offset in the segment
    position = np.repeat(base - starts, sizes) + np.arange(n)
    padded = np.zeros(int(widths.sum()), dtype=dtype)
    padded[position] = values
    sorted_widths = widths[by_width]
    edges = np.flatnonzero(np.diff(sorted_widths, prepend=0, append=0))
    offsets = np.concatenate([[0], np.cumsum(sorted_widths)])
    for first, last in zip(edges[:-1].tolist(), edges[1:].tolist()):
        width = int(sorted_widths[first])
        if width > 1:
            rows = padded[offsets[first]:offsets[last]].reshape(-1, width)
            np.cumsum(rows, axis=1, out=rows)
    return padded[position]


def _segment_mean(values, starts, sizes):
    """Mean of non-negative ``values`` over segments, safe at float64's extremes.

    Huge values are divided by their maximum before summing (no overflow
    for 1e308), and the mean scaled back.
    """
    largest = values.max() if values.shape[0] else 0.0
    if not largest > 0 or largest < 1e290:
        return segment_sum(values, starts) / sizes
    return segment_sum(values / largest, starts) / sizes * largest


def segment_ids(starts, n_rows):
    """Each row's segment (query, tie block) number, from the segments' first rows.

    ``starts`` ascend from 0. One ``np.repeat``: a running sum of a
    boolean "starts here" array costs about eight times as much (its cast).
    """
    sizes = np.diff(starts, append=n_rows)
    return np.repeat(np.arange(starts.shape[0]), sizes)


@dataclass(frozen=True, eq=False)
class RankedQueries:
    """Rows ordered by (query, descending score); made by :func:`rank_queries`.

    Row arrays have one entry per row in ranked order; query arrays one per
    query (queries in ascending order of id); block arrays one per tie block.
    """

    relevance: np.ndarray  # (n_rows,) y_true in ranked order, non-negative
    query: np.ndarray  # (n_rows,) query code of each row, 0..n_queries-1
    query_start: np.ndarray  # (n_queries,) index of each query's first row
    block_start: np.ndarray  # (n_blocks,) index of each tie block's first row
    query_ids: np.ndarray  # (n_queries,) the user's id of each query
    order: np.ndarray  # (n_rows,) input row index of each ranked row
    row_weight: np.ndarray | None  # (n_rows,) sample_weight in ranked order
    # (n_rows,) y_score in ranked order, as float64: the nearest float64 for
    # scores ranked by their exact key (int64 past 2**53, datetimes, ...)
    score: np.ndarray | None = None
    # (n_rows,) False for the rows scored -inf (judged, not retrieved), in
    # ranked order; None when every row was retrieved (the usual case)
    retrieved: np.ndarray | None = None

    @property
    def n_rows(self):
        return self.relevance.shape[0]

    @property
    def n_queries(self):
        return self.query_start.shape[0]

    # cached properties that depend on the order and the blocks only, never
    # on ``relevance``: another relevance on the same layout can share them
    _STRUCTURE = ("query_size", "rank", "n_retrieved", "query_weight", "has_ties",
                  "block", "block_size", "block_first_rank", "block_query")

    def with_relevance(self, relevance):
        """The same layout with ``relevance`` (ranked order) instead.

        The structure already computed (ranks, blocks, sizes) is shared, not
        computed again.
        """
        other = replace(self, relevance=relevance)
        for name in self._STRUCTURE:
            if name in self.__dict__:
                other.__dict__[name] = self.__dict__[name]
        return other

    @cached_property
    def query_size(self):
        """Number of rows of each query."""
        return np.diff(self.query_start, append=self.n_rows)

    @cached_property
    def rank(self):
        """1-based position of each row inside its query."""
        rank = np.arange(1, self.n_rows + 1)
        rank -= np.repeat(self.query_start, self.query_size)
        return rank

    @cached_property
    def _relevant_mask(self):
        relevant = self.relevance > 0
        if self.retrieved is not None:
            relevant &= self.retrieved
        return relevant

    @cached_property
    def is_relevant(self):
        """1.0 for a relevant row found at its rank (retrieved), else 0.0."""
        return self._relevant_mask.astype(np.float64)

    @cached_property
    def relevant_rows(self):
        """The rows of :attr:`is_relevant`, ascending: few, and shared by the kernels."""
        return np.flatnonzero(self._relevant_mask)

    def relevant_rows_within(self, k):
        """:attr:`relevant_rows` ranked ``k`` or better (all of them for ``k=None``)."""
        rows = self.relevant_rows
        return rows if k is None else rows[self.rank[rows] <= k]

    @cached_property
    def ranked_relevance(self):
        """``relevance`` where the row was retrieved, 0 where it was not."""
        if self.retrieved is None:
            return self.relevance
        return np.where(self.retrieved, self.relevance, 0.0)

    @cached_property
    def n_relevant(self):
        """R: number of relevant rows (``y_true > 0``) of each query, retrieved or not."""
        if self.retrieved is None:
            return segment_sum(self.is_relevant, self.query_start)
        return segment_sum((self.relevance > 0).astype(np.float64), self.query_start)

    @cached_property
    def n_relevant_retrieved(self):
        """Relevant rows each query retrieved (R without the ``-inf`` rows)."""
        if self.retrieved is None:
            return self.n_relevant
        return segment_sum(self.is_relevant, self.query_start)

    @cached_property
    def n_retrieved(self):
        """Rows each query retrieved: its length without the ``-inf`` rows."""
        if self.retrieved is None:
            return self.query_size
        return segment_sum(self.retrieved.astype(np.intp), self.query_start)

    @cached_property
    def query_weight(self):
        """Each query's weight: the mean of its rows' weights (1 without weights)."""
        if self.row_weight is None:
            return np.ones(self.n_queries)
        return _segment_mean(self.row_weight, self.query_start, self.query_size)

    # -- tie blocks -------------------------------------------------------
    @cached_property
    def has_ties(self):
        """Whether any tie block holds more than one row."""
        return self.block_start.shape[0] < self.n_rows

    @cached_property
    def block(self):
        """Tie-block index of each row."""
        if not self.has_ties:
            return np.arange(self.n_rows)
        return segment_ids(self.block_start, self.n_rows)

    @cached_property
    def block_size(self):
        """Rows of each tie block."""
        if not self.has_ties:
            return np.ones(self.n_rows, dtype=np.intp)
        return np.diff(self.block_start, append=self.n_rows)

    @cached_property
    def block_first_rank(self):
        """Rank of the first row of each tie block."""
        if not self.has_ties:
            return self.rank
        return self.rank[self.block_start]

    @cached_property
    def block_query(self):
        if not self.has_ties:
            return self.query
        return self.query[self.block_start]

    @cached_property
    def block_relevant(self):
        """Relevant rows of each tie block."""
        if not self.has_ties:
            return self.is_relevant
        return segment_sum(self.is_relevant, self.block_start)

    @cached_property
    def tie_share(self):
        """Relevant fraction of each row's tie block: P(row's position holds a relevant row)."""
        if not self.has_ties:
            return self.is_relevant
        return (self.block_relevant / self.block_size)[self.block]

    def block_mean(self, values):
        """Mean of a row array over each row's tie block, spread back to rows.

        This is the expected value found at a position when the tied rows are
        shuffled uniformly at random.
        """
        if not self.has_ties:  # nothing to spread
            return values
        return (segment_sum(values, self.block_start) / self.block_size)[self.block]

    def per_row(self, per_query):
        """Spread a per-query array to the rows of each query."""
        return per_query[self.query]

    @cached_property
    def relevant_before_block(self):
        """Relevant rows ranked above each tie block in its query."""
        cumulative = np.cumsum(self.block_relevant) - self.block_relevant
        first_block_of_query = np.searchsorted(self.block_start, self.query_start)
        return cumulative - cumulative[first_block_of_query][self.block_query]


def _tie_breaker(relevance, ties):
    """The secondary sort key of a tie-breaking policy, or None.

    Policy goes in the data: ``"pessimistic"`` ranks the lower ``y_true``
    first among equal scores, ``"optimistic"`` the higher; ``"input"`` and
    ``"average"`` need no key (a stable sort keeps the input order).
    """
    if ties == "pessimistic":
        return relevance
    if ties == "optimistic":
        return -relevance
    return None


def _canonical_tie_order(order, relevance, row_weight, block_start):
    """Rows of each tie block in an order of their values alone.

    Under ``ties="average"`` a tie block's rows may come in any order, and
    sums and recursions over them round differently in different orders
    (numpy's sums are pairwise, so even where zeros fall matters). Sorting
    them by their values makes a query's numbers depend on its rows' values
    only, not on the order they arrived in or the queries beside them: the
    same rows give the same bits in memory, on Dask and on Spark.

    Only the rows of blocks of two or more move: by descending relevance or,
    with weights, by descending weight, then descending relevance (every
    path below gives that one order, so the size of the input, which
    decides the path, does not change the bits). Whole-number relevance is one
    stable sort of (block, relevance) codes, a merge of the already ordered
    blocks; otherwise one packed sort (:func:`packed_order`), with a small
    lexsort for the runs of equal weights.
    """
    n_rows = order.shape[0]
    size = np.diff(block_start, append=n_rows)
    rows = np.flatnonzero(np.repeat(size > 1, size))
    if rows.shape[0] == 0:
        return order, relevance, row_weight
    block = segment_ids(block_start, n_rows)[rows]
    value = relevance[rows]
    local = None
    weight = None if row_weight is None else row_weight[rows]
    if weight is not None and not (
        (weight[1:] != weight[:-1]) & (block[1:] == block[:-1])
    ).any():
        weight = None  # one weight per block (per query, say): relevance decides
    if weight is None:
        low, high = float(value.min()), float(value.max())
        span = high - low + 1.0
        if span * block_start.shape[0] < 2.0**62 and np.array_equal(value, np.floor(value)):
            key = block * np.int64(span) + (high - value).astype(np.int64)
            local = np.argsort(key, kind="stable")
        else:
            packed = packed_order(value.astype(np.float64), block)
            local = None if packed is None else packed[0]
    else:
        packed = packed_order(weight.astype(np.float64), block)
        if packed is not None:
            local = packed[0]
            # rows of one block with equal weights: by relevance
            b, w = block[local], weight[local]
            same = np.flatnonzero((b[1:] == b[:-1]) & (w[1:] == w[:-1]))
            sort_runs(local, same, lambda where: -value[local[where]])
    if local is None:  # ids or values that don't pack: three stable sorts
        keys = (-value, block) if weight is None else (-value, -weight, block)
        local = np.lexsort(keys)
    moved = rows[local]
    order = order.copy()
    order[rows] = order[moved]
    relevance = relevance.copy()
    relevance[rows] = relevance[moved]
    if row_weight is not None:
        row_weight = row_weight.copy()
        row_weight[rows] = row_weight[moved]
    return order, relevance, row_weight


def rank_queries(
    y_true,
    y_score,
    *,
    query_id=None,
    sample_weight=None,
    ties="average",
    binary=False,
    id_name="query_id",
    canonical=True,
):
    """Validate inputs and build the query-sorted layout with one sort.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n_rows,) or (n_queries, n_items)
    query_id : array-like of shape (n_rows,), default=None
    sample_weight : array-like, default=None
        One weight per row for 1-D input, one per ranking for 2-D input.
    ties : {"average", "input", "pessimistic", "optimistic"}
    binary : bool or str
        Whether ``y_true`` must be 0/1; a string names the metrics that need
        it, for the error message.
    id_name : str, default="query_id"
        The caller's name of ``query_id``, for the error messages (such as
        ``"list_id"`` for the displayed lists of a click log).
    canonical : bool, default=True
        Under ``ties="average"``, put each tie block's rows in the order of
        their values (:func:`_canonical_tie_order`). A caller whose numbers
        depend on the blocks' counts only, never on which row holds which
        position inside a block, can skip it (False).

    Returns
    -------
    RankedQueries

    Notes
    -----
    Scores rank by their exact values: those float64 can't hold exactly
    (see :func:`check_score`) are sorted and split into tie blocks by the
    exact key of :func:`exact_score_key`; float64 scores are their own key.
    """
    check_option("ties", ties, TIES)
    relevance = check_relevance(y_true, binary=binary)
    score_values, score = exact_score_key(check_score("y_score", y_score))
    keyed = score_values is not score  # ranked by the exact key, not the values
    if relevance.shape != score.shape:
        raise ValueError(
            f"`y_true` and `y_score` have different shapes: {relevance.shape} "
            f"and {score.shape}."
        )

    if relevance.ndim == 2:
        if query_id is not None:
            raise ValueError(
                "`query_id` must be None for 2-D input: each row of a 2-D "
                "`y_true`/`y_score` is already one query."
            )
        n_queries, n_items = score.shape
        weight = check_sample_weight(sample_weight, n_queries, what="queries (rows)")
        breaker = _tie_breaker(relevance, ties)
        if breaker is None:
            # per-row stable sorts; the flattened result is query-sorted already
            order = np.argsort(-score, axis=1, kind="stable")
            order += (np.arange(n_queries) * n_items)[:, None]
            order = order.reshape(-1)
        else:
            order = np.lexsort((
                breaker.reshape(-1), -score.reshape(-1),
                np.repeat(np.arange(n_queries), n_items),
            ))
        query = np.repeat(np.arange(n_queries), n_items)
        query_start = np.arange(0, n_queries * n_items, n_items)
        query_ids = np.arange(n_queries)
        row_weight = None if weight is None else np.repeat(weight, n_items)
        sorted_score = score.reshape(-1)[order]
        relevance = relevance.reshape(-1)[order]
    else:
        n_rows = score.shape[0]
        weight = check_sample_weight(sample_weight, n_rows)
        breaker = _tie_breaker(relevance, ties)
        if query_id is None:
            order = (
                np.argsort(-score, kind="stable") if breaker is None
                else np.lexsort((breaker, -score))
            )
            query = np.zeros(n_rows, dtype=np.intp)
            query_start = np.zeros(1, dtype=np.intp)
            query_ids = np.zeros(1, dtype=np.intp)
        else:
            keys, labels = factorize(query_id, n_rows, name=id_name)
            check_same_length(**{"y_true": relevance, id_name: keys})
            packed = packed_order(score, keys) if ties == "average" else None
            if breaker is not None:
                order = np.lexsort((breaker, -score, keys))
                sorted_keys = keys[order]
            elif packed is None:
                order = np.lexsort((-score, keys))
                sorted_keys = keys[order]
            else:
                order, sorted_keys = packed
            new_query = np.empty(n_rows, dtype=bool)
            new_query[0] = True
            np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new_query[1:])
            query_start = np.flatnonzero(new_query)
            query = segment_ids(query_start, n_rows)
            first_keys = sorted_keys[query_start]
            query_ids = first_keys if labels is None else labels[first_keys]
        row_weight = None if weight is None else weight[order]
        sorted_score = score[order]
        relevance = relevance[order]

    n_rows = order.shape[0]
    if ties == "average":
        new_block = np.empty(n_rows, dtype=bool)
        new_block[0] = True
        np.not_equal(sorted_score[1:], sorted_score[:-1], out=new_block[1:])
        new_block[query_start] = True
        block_start = np.flatnonzero(new_block)
        if canonical and block_start.shape[0] < n_rows:
            order, relevance, row_weight = _canonical_tie_order(
                order, relevance, row_weight, block_start
            )
        warn_if_label_scores(score_values, relevance, query_start.shape[0])
    else:
        block_start = np.arange(n_rows)
    if keyed:  # blocks came from the exact key; the layout reports the values
        sorted_score = score_values.reshape(-1)[order]
    retrieved = None  # -inf rows (judged, not retrieved) sort last in their query
    query_last = np.append(query_start[1:], n_rows) - 1
    if np.isneginf(sorted_score[query_last]).any():
        retrieved = sorted_score != -np.inf

    return RankedQueries(
        relevance=relevance,
        query=query,
        query_start=query_start,
        block_start=block_start,
        query_ids=query_ids,
        order=order,
        row_weight=row_weight,
        score=sorted_score,
        retrieved=retrieved,
    )
