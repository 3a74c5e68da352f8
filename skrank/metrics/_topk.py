"""evaluate()'s top-k path: DCG@k and nDCG@k from each query's best k rows.

A cutoff metric reads a query's first k positions only. Under
``ties="average"`` a position holds the mean gain of its tie block, so DCG@k
needs, per query, the k best rows in order, their tie blocks, and the tie
block cut by the cutoff in full (its rows below position k count in its
mean gain). The ideal DCG@k needs the k largest grades: for whole grades a
count per query and grade (:func:`_ideal_dcg_per_query`), no sort; when the
grades ride through the sort, one sum of per-grade fields a query
(:func:`_grade_counts`).

Nothing else of the full layout (:func:`rank_queries`: ranks, tie blocks
and the tie blocks' canonical order over every row) is built: the rows are
ordered by one packed sort (:func:`packed_order`; on the runs' numbers when
each query's rows come together), and the window of every query's first k
positions is one flat array. The values are the full layout's to the last
bit: with whole grades a tie block's gain sum is exact in any order, each
position's value is the same product, and each query's sum is taken over
the window padded to the length whose pairwise sum groups the values as
the sum over all the query's rows does (:func:`summed_width`). Tests
compare the two, and an enumeration of tie orders.

The sort takes the cheapest form the layout allows: grouped rows (each
query's rows together) are ranked run by run; when every query has the
same length, side by side as the rows of a 2-D array, and DCG@k is taken
position by position (:mod:`skrank.metrics._topk_columns`); shuffled rows
with ids of a wide span are grouped by one sort of (id, row) first, then
ranked as grouped rows (of one length: position by position as well). Numpy string ids are factorised only as a last resort:
grouped, only the runs' ids are ordered; shuffled, their varying bits are
packed into ordered integer keys (:func:`~skrank._core._factorize.string_keys`)
when they fit in 40 bits.
"""

from functools import partial

import numpy as np

from .._core._factorize import factorize, string_keys
from .._core._layout import segment_ids
from .._core._sort import key_order, packed_order, sorted_with_payload
from .._core._validation import (
    check_relevance,
    check_same_length,
    check_score,
    warn_if_label_scores,
)
from ._gain import (
    _check_gain_range,
    _discount,
    _gain,
    _ideal_dcg_from_counts,
    _ideal_dcg_per_query,
)
from ._topk_columns import (
    OneLength,
    _Rows,
    binary_ideal_dcg,
    column_scores,
    sorted_side_by_side,
)

#: the metric stems this path computes
STEMS = ("ndcg", "dcg")


class TopQueries:
    """What :func:`~skrank._core._aggregate.aggregate_queries` reads of a layout.

    ``query_ids`` is made on first reading (from a callable): a mean over
    the queries does not read it, and the ids of grouped string queries in
    key order are a gather of 1.4e5 ``U`` items (4 ms) for 2e6 rows.
    """

    __slots__ = ("_query_ids", "n_relevant", "query_weight")

    def __init__(self, query_ids, n_relevant, query_weight):
        self._query_ids = query_ids
        self.n_relevant = n_relevant
        self.query_weight = query_weight

    @property
    def query_ids(self):
        if callable(self._query_ids):
            self._query_ids = self._query_ids()
        return self._query_ids


def applies(requests, query_id, sample_weight, y_true):
    """Whether every request is DCG/nDCG at a cutoff on the plain layout."""
    if query_id is None or sample_weight is not None or np.ndim(y_true) != 1:
        return False
    return all(
        r.spec.stem in STEMS and r.k is not None and not r.function_options
        and r.ties == "average" and r.peer is None and r.score_dtype is None
        and r.retrieved == "all"
        for r in requests
    )


#: rows read first to tell grouped rows from shuffled ones
_HEAD_ROWS = 1 << 12


def _grouped_runs(keys):
    """``(starts, by_key, run_keys)`` when every query's rows are one run, else None.

    ``starts``: each run's first row; ``by_key``: the runs in ascending key
    order (the order of the full layout's queries); ``run_keys``: each
    run's key, in the runs' order. ``keys``: integers, or
    numpy string ids as they are (no factorisation: the runs' ids only are
    ordered).
    """
    n_rows = keys.shape[0]
    head = keys[:_HEAD_ROWS + 1]
    if np.count_nonzero(head[1:] != head[:-1]) * 2 >= head.shape[0]:
        return None  # mostly single rows at the start: shuffled, most likely
    new_run = keys[1:] != keys[:-1]
    n_runs = np.count_nonzero(new_run) + 1
    if n_runs * 2 > n_rows:  # mostly single rows: not worth it
        return None
    length = n_rows // n_runs
    if length * n_runs == n_rows and new_run[length - 1::length].all():
        starts = np.arange(0, n_rows, length)  # runs of one length (no other run starts)
    else:
        starts = np.r_[0, np.flatnonzero(new_run) + 1]
    run_keys = _taken(keys, starts)
    packed = string_keys(run_keys)  # string ids: sorted as integers
    sortable = run_keys if packed is None else packed[0]
    if (sortable[1:] > sortable[:-1]).all():  # runs in ascending key order already
        return starts, np.arange(starts.shape[0]), run_keys
    by_key = key_order(sortable)  # distinct if grouped
    ordered = sortable[by_key]
    if (ordered[1:] == ordered[:-1]).any():  # a query in two runs
        return None
    return starts, by_key, run_keys


def _taken(ids, index):
    """``ids[index]``; numpy string ids gathered as fixed-width bytes (the same values).

    A gather of ``U`` strings copies each item through the string dtype's
    own routine; as opaque ``V`` items of the same width it is a plain copy
    (30% less time for the runs' ids of 2e6 rows).
    """
    if ids.dtype.kind == "U" and ids.ndim == 1 and ids.flags.c_contiguous and ids.itemsize:
        return ids.view(f"V{ids.itemsize}")[index].view(ids.dtype)
    return ids[index]


def _grades_carried(score, keys, runs, relevance, top):
    """The ranked layout from one sort of values carrying each row's grade, or None.

    Returns ``(scores, grades as int64, query_start, first_keys, by_key)``
    (``first_keys`` as :func:`_labels` reads them).

    Whole grades below 256 ride in the low bits of the packed sort
    (:func:`sorted_with_payload`), when no bit of a score is lost beside
    them and the key: no row index, no gather. The ranked "scores" are the
    packed values without the grade (equal within a query exactly where
    the scores are), which is all the window compares. ``keys``: the ids'
    keys of shuffled rows, or None with ``runs`` (grouped rows: the runs'
    numbers are the keys). ``relevance``: whole grades, the largest ``top``.
    """
    top = int(top)
    grade_bits = max(1, top.bit_length())
    if grade_bits > 8 or (keys is not None and keys.dtype != np.int64):
        return None
    n_rows = score.shape[0]
    if keys is None:  # runs of one length: no key; else each row's run number
        length = _one_length(runs[0], n_rows)
        found = sorted_with_payload(score, None, relevance, grade_bits, run_length=length,
                                    run_starts=None if length else runs[0],
                                    payload_apart=True)
    else:
        found = sorted_with_payload(score, keys, relevance, grade_bits, payload_apart=True)
    if found is None:
        return None
    packed, key_bits, low, grade = found  # the grades as int64: no float copy
    if keys is None:  # the runs, in input order: each run's first key is its id's
        return packed, grade, runs[0], (runs[2], runs[1]), runs[1]
    new_query = np.zeros(n_rows, dtype=bool)
    new_query[0] = True
    if key_bits:
        key = packed >> np.uint64(64 - key_bits - grade_bits)
        np.not_equal(key[1:], key[:-1], out=new_query[1:])
    query_start = np.flatnonzero(new_query)
    first_keys = np.zeros(query_start.shape[0], dtype=np.int64)
    if key_bits:
        first_keys = key[query_start].astype(np.int64)
    first_keys += low
    return packed, grade, query_start, first_keys, None


#: a key span of more bits than this leaves too few bits of score beside the
#: row index in one packed sort (:func:`packed_order` then argsorts)
_WIDE_KEY_BITS = 64 - 24


def _rows_by_key(keys):
    """Shuffled rows grouped by key: ``(rows, query_start, first_keys)``, or None.

    For keys too wide for :func:`packed_order` to keep the row index beside
    the score (it would argsort): one sort of (key, row) packed groups the
    rows, and the queries are then ranked as grouped rows, their numbers
    for keys (two plain sorts cost less than one argsort).
    """
    n_rows = keys.shape[0]
    low = keys.min()
    offset = (keys - low).astype(np.uint64)
    key_bits = int(offset.max()).bit_length()
    row_bits = (n_rows - 1).bit_length()
    if key_bits + row_bits <= _WIDE_KEY_BITS or key_bits + row_bits > 64:
        return None
    offset <<= np.uint64(row_bits)
    offset |= np.arange(n_rows, dtype=np.uint64)
    offset.sort()
    rows = (offset & np.uint64((1 << row_bits) - 1)).astype(np.intp)
    offset >>= np.uint64(row_bits)
    new_query = np.empty(n_rows, dtype=bool)
    new_query[0] = True
    np.not_equal(offset[1:], offset[:-1], out=new_query[1:])
    query_start = np.flatnonzero(new_query)
    first_keys = offset[query_start].astype(keys.dtype) + low
    return rows, query_start, first_keys


def _one_length(starts, n_rows):
    """The runs' common length, or None when they differ (runs begin at ``starts``)."""
    length = n_rows // starts.shape[0]
    if length * starts.shape[0] != n_rows or starts[-1] != n_rows - length:
        return None
    return length if np.array_equal(starts, np.arange(0, n_rows, length)) else None


def top_layout(y_true, y_score, query_id, binary=False):
    """Validate as :func:`rank_queries` does; the sorted rows, or None to fall back.

    Returns ``(rows, score, relevance, query_start, by_key, query_ids)``:
    ``score`` and ``relevance`` in ranked order (by query, descending
    score), ``rows`` grouped by query (for the ideal DCG), ``by_key`` the
    queries' order by id (None: by id already), ``query_ids`` a callable
    that makes the queries' ids (see :class:`TopQueries`), or None for input
    the full layout handles (scores other than float64, ``-inf`` scores,
    fractional grades, keys that do not pack).
    """
    relevance, top = _grades(y_true, binary)
    score = check_score("y_score", y_score)
    if relevance.shape != score.shape:
        return None  # rank_queries words the error
    if (score.dtype != np.float64 or relevance.ndim != 1 or score.shape[0] < 2
            or np.isinf(score).any()):  # -inf: check_score refused +inf
        return None  # before the ids' factorisation, which the full path does again
    integer_input = getattr(y_true, "dtype", np.dtype(float)).kind in "biu"
    if not _whole_gains(relevance, integer_input, top):
        return None
    n_rows = score.shape[0]
    keys, labels, runs = _query_keys(query_id, n_rows)
    check_same_length(y_true=relevance, query_id=keys)
    if runs is None:
        if keys.dtype.kind not in "iu":
            return None
        runs = _grouped_runs(keys)
    length = None if runs is None else _one_length(runs[0], n_rows)
    columns = None if length is None else sorted_side_by_side(score, relevance, length, top)
    if columns is not None:  # queries of one length: position by position
        query_ids = partial(_labels, labels, (runs[2], runs[1]))
        warn_if_label_scores(score, relevance, runs[0].shape[0])
        return columns, None, None, None, runs[1], query_ids
    carried = _grades_carried(score, keys if runs is None else None, runs, relevance, top)
    if carried is not None:  # the ranked grades as integers (window_dcg takes them)
        ranked_score, ranked_relevance, query_start, first_keys, by_key = carried
        sizes = np.diff(query_start, append=n_rows)
        rows = _Rows(ranked_relevance, None, query_start, sizes, query_start.shape[0],
                     grades=ranked_relevance)
        query_ids = partial(_labels, labels, first_keys)
        warn_if_label_scores(score, relevance, rows.n_queries)
        return rows, ranked_score, ranked_relevance, query_start, by_key, query_ids
    grades, relevance = relevance, relevance.astype(np.float64, copy=False)  # as checked
    by_rows = _rows_by_key(keys) if runs is None else None
    if by_rows is not None:  # wide keys: rows grouped first, then ranked within
        rows, query_start, first_keys = by_rows
        length = _one_length(query_start, n_rows)
        columns = None if length is None else sorted_side_by_side(
            score, grades, length, top, rows=rows)
        if columns is not None:  # queries of one length: position by position
            warn_if_label_scores(score, relevance, query_start.shape[0])
            return columns, None, None, None, None, partial(_labels, labels, first_keys)
        query = segment_ids(query_start, n_rows)
        grouped_score = score[rows]  # the only gathers from the input's order
        found = packed_order(grouped_score, query, sorted_keys=False)
        if found is None:
            return None
        grouped = relevance[rows]
        ranked_score, ranked_relevance = grouped_score[found[0]], grouped[found[0]]
        by_key = None
    elif runs is None:
        found = packed_order(score, keys)
        if found is None:
            return None
        order, sorted_keys = found
        new_query = np.empty(n_rows, dtype=bool)
        new_query[0] = True
        np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new_query[1:])
        query_start = np.flatnonzero(new_query)
        first_keys = sorted_keys[query_start]
        grouped = ranked_relevance = relevance[order]
        ranked_score = score[order]
        by_key = None
        query = segment_ids(query_start, n_rows)
    else:
        query_start, by_key, run_keys = runs
        query = segment_ids(query_start, n_rows)
        found = packed_order(score, query, sorted_keys=False)
        if found is None:
            return None
        order = found[0]
        first_keys = (run_keys, by_key)
        grouped, ranked_relevance, ranked_score = relevance, relevance[order], score[order]
    n_queries = query_start.shape[0]
    query_ids = partial(_labels, labels, first_keys)
    warn_if_label_scores(score, relevance, n_queries)
    sizes = np.diff(query_start, append=n_rows)
    rows = _Rows(grouped, query, query_start, sizes, n_queries)
    return rows, ranked_score, ranked_relevance, query_start, by_key, query_ids


def _grades(y_true, binary):
    """``(relevance, top)``: :func:`check_relevance`'s grades and the largest one.

    A plain int64 array is checked by its minimum and kept as it is (whole
    grades, finite): no float64 copy, no pass for finiteness; the paths
    other than :func:`sorted_side_by_side` take its float64 copy, which
    :func:`check_relevance` would have made. Any other input, and a
    negative grade (whose error :func:`check_relevance` words), goes
    through :func:`check_relevance`.
    """
    if (not binary and type(y_true) is np.ndarray and y_true.dtype == np.int64
            and y_true.ndim == 1 and y_true.shape[0] and y_true.min() >= 0):
        return y_true, y_true.max()
    relevance = check_relevance(y_true, binary=binary)
    return relevance, (relevance.max() if relevance.size else 0.0)


def _query_keys(query_id, n_rows):
    """:func:`factorize`'s ``(keys, labels)``, and the runs of grouped string ids.

    Numpy string ids, no factorisation: grouped, they are their own keys
    (``labels`` None; the runs of :func:`_grouped_runs`, which orders the
    runs' ids only); shuffled, those whose varying bits pack into an
    integer (:func:`string_keys`) are packed keys, in the ids' order, and
    ``labels`` is the function that turns keys back into ids.
    """
    if (isinstance(query_id, np.ndarray) and query_id.dtype.kind == "U"
            and query_id.shape == (n_rows,)):
        runs = _grouped_runs(query_id)
        if runs is not None:
            return query_id, None, runs
        found = string_keys(query_id)
        if found is not None:
            return (*found, None)
    return (*factorize(query_id, n_rows), None)


def _labels(labels, first_keys):
    """Each query's id from its key (see :func:`_query_keys`).

    ``first_keys``: the keys, or ``(run_keys, by_key)``, the runs' keys and
    the runs in key order (the keys are ``run_keys[by_key]``).
    """
    if isinstance(first_keys, tuple):
        first_keys = _taken(*first_keys)
    if labels is None:
        return first_keys
    return labels(first_keys) if callable(labels) else labels[first_keys]


#: below this share of the window's rows in shared tie blocks, only those
#: rows' means are computed (a one-row block's mean is its gain)
_TIED_SHARE = 0.5


def _gains(relevance, gain, top):
    """Each grade's gain, in float64: whole grades as integers (largest ``top``) by a table.

    The table holds the gains of the grades ``0..top`` as float64 values,
    made by :func:`_gain` itself: each row's gain is the same value.
    """
    if relevance.dtype.kind in "iu":
        return _gain(np.arange(int(top) + 1, dtype=np.float64), gain)[relevance]
    return _gain(relevance, gain)


#: one query in this many or more of one row: the window leaves them out
_SINGLE_SHARE = 4


def window_dcg(score, relevance, query_start, sizes, k, gain, discount, top=None):
    """Expected DCG@k per query (tie orders averaged), from the first k positions.

    ``score`` and ``relevance`` are in ranked order: by query, then by
    descending score, the queries starting at ``query_start``. Every
    position of a tie block holds the block's mean gain; the block cut by
    the cutoff is followed past it.
    The window (each query's first k positions) is one flat array: tie
    blocks are its runs of equal scores inside a query. ``relevance``:
    float64, or whole grades as integers, the largest ``top`` (the same
    gains, made in float64).

    When the window is cut (some query is longer than k) and a quarter or
    more of the queries are one row, those queries' DCG is their row's
    gain times the first position's weight (1.0): the value the window
    gives them (a one-row tie block, a sum of one value); the others'
    windows are made without them.
    """
    width = int(min(k, sizes.max()))
    if width < sizes.max():
        single = sizes == 1
        if np.count_nonzero(single) * _SINGLE_SHARE >= sizes.shape[0]:
            out = np.empty(sizes.shape[0])
            ones, others = np.flatnonzero(single), np.flatnonzero(~single)
            first = _discount(np.arange(1, 2), discount)
            out[ones] = _gains(relevance[query_start[ones]], gain, top) * first
            out[others] = window_dcg(score, relevance, query_start[others], sizes[others],
                                     k, gain, discount, top=top)
            return out
    if width == sizes.max():  # every query fits the window: all positions
        start, size = query_start, sizes
        value, gains = score, _gains(relevance, gain, top)
        column = _counted(start, size, sizes.sum())
    else:
        size = np.minimum(sizes, width)
        start = np.cumsum(size) - size
        rows = _counted(start, size, int(size.sum()), query_start)
        value, gains = score[rows], _gains(relevance[rows], gain, top)
        column = _counted(start, size, rows.shape[0], out=rows)  # rows read: reused
    n_window = value.shape[0]
    weight = _discount(np.arange(1, width + 1), discount)[column]
    new = np.empty(n_window, dtype=bool)
    new[0] = True
    np.not_equal(value[1:], value[:-1], out=new[1:])
    new[start] = True
    edge = value[start + size - 1]  # each query's score at the cutoff
    extra_rows, extra_gain = _past_window(score, relevance, query_start, sizes,
                                          edge, width, gain)
    # the rows that share a tie block, or whose block the cutoff cuts: the
    # others (one-row blocks) keep their own gain
    shared = np.empty(n_window, dtype=bool)
    np.logical_and(new[1:], new[:-1], out=shared[:-1])
    shared[-1] = new[-1]
    np.logical_not(shared, out=shared)
    shared[(start + size - 1)[extra_rows > 0]] = True
    tied = np.flatnonzero(shared)
    cut = np.flatnonzero(extra_rows)
    if tied.shape[0] and tied.shape[0] < _TIED_SHARE * n_window:  # few: those rows only
        gains = gains.copy() if gains is relevance else gains
        gains[tied] = _block_means(gains[tied], new[tied], np.searchsorted(
            tied, (start + size - 1)[cut]), extra_rows[cut], extra_gain[cut])
    elif tied.shape[0]:
        gains = _block_means(gains, new, (start + size - 1)[cut], extra_rows[cut],
                             extra_gain[cut])
    return _sum_as_full_query(gains * weight, start, size, sizes)


def _counted(start, size, total, first=None, out=None):
    """``first[i] + j`` at ``start[i] + j`` for ``j < size[i]`` (``first`` None: ``j``).

    The segments (``size`` >= 1 each) tile ``total`` positions from 0: one
    cumulative sum of steps of 1 that jump at each segment's start (less
    than half the time of ``np.repeat`` over 1.4e5 short segments).
    """
    step = np.ones(int(total), dtype=np.intp) if out is None else out
    if out is not None:
        step.fill(1)
    step[0] = 0 if first is None else first[0]
    jump = 1 - size[:-1]
    if first is not None:
        jump += first[1:] - first[:-1]
    step[start[1:]] = jump
    return np.cumsum(step, out=step)


def _block_means(gains, new, cut_at, extra_rows, extra_gain):
    """Each position's tie block's mean gain, over whole blocks (``new``: a block starts).

    The positions at ``cut_at`` are in the blocks that the cutoff cuts: those
    blocks go on past the window with ``extra_rows`` more rows of gain sum
    ``extra_gain``. A block's gains are whole numbers: its sum is exact in
    any order, and a one-row block's mean is its gain.
    """
    block_start = np.flatnonzero(new)
    block_gain = np.add.reduceat(gains, block_start)
    in_block = np.diff(block_start, append=gains.shape[0])
    block_size = in_block.astype(np.float64)
    cut = np.searchsorted(block_start, cut_at, side="right") - 1
    block_gain[cut] += extra_gain
    block_size[cut] += extra_rows
    return np.repeat(block_gain / block_size, in_block)


def summed_width(sizes, window):
    """Per query, how many leading values of its rows to sum (zeros past ``window``).

    ``np.add.reduceat`` sums a segment of n values as its first value plus
    numpy's pairwise sum of the others (eight accumulators below 129
    values, halves cut at multiples of 8 above), and the full layout sums
    the contributions of all n rows of a query, zeros past the cutoff.
    Adding zeros changes no value, but the grouping of the nonzero ones
    depends on n. This is the shortest length, ending in zeros, whose sum
    groups the first ``window`` values as the sum of all n does: the same
    bits from the window alone (a test checks it against the full layout).
    """
    n = np.asarray(sizes)
    rest, leading = n - 1, np.asarray(window) - 1
    long = np.flatnonzero(rest > 128)  # the queries summed in halves: few, as a rule
    part, part_leading = rest[long], np.broadcast_to(leading, rest.shape)[long]
    halving = np.ones(long.shape[0], dtype=bool)
    while halving.any():  # halves while the left one holds every nonzero value
        left = part // 2
        left -= left % 8
        halving &= left >= part_leading
        part = np.where(halving, left, part)
        halving &= part > 128
    rest[long] = part
    lead = np.maximum(8, -(-leading // 8) * 8)
    shorter = lead + rest % 8
    out = np.where((shorter < rest) & (rest <= 128), shorter, rest) + 1
    out = np.where(n - 1 < 8, n, out)  # summed one by one: all of them
    return np.where(leading <= 0, 1, out)


def _sum_as_full_query(values, start, size, sizes):
    """Per-query sums of the window's ``values``, with the full layout's rounding.

    A query the window holds whole is summed as it is (its summed width is
    its size): :func:`summed_width` runs on the cut queries only, and only
    those whose summed width is longer than the window are summed again,
    padded with zeros.
    """
    sums = np.add.reduceat(values, start)
    cut = np.flatnonzero(size < sizes)
    width = summed_width(sizes[cut], size[cut])
    padded_ones = width != size[cut]
    cut, width = cut[padded_ones], width[padded_ones]
    if not cut.shape[0]:
        return sums
    size, start = size[cut], start[cut]
    padded_start = np.cumsum(width) - width
    padded = np.zeros(int(width.sum()))
    at, total = np.cumsum(size) - size, int(size.sum())
    padded[_counted(at, size, total, padded_start)] = values[_counted(at, size, total, start)]
    sums[cut] = np.add.reduceat(padded, padded_start)
    return sums


def _past_window(score, relevance, query_start, sizes, edge, width, gain):
    """Rows, and their gain sum, of each query's tie block at the cutoff below it."""
    n_queries = query_start.shape[0]
    count = np.zeros(n_queries, dtype=np.intp)
    total = np.zeros(n_queries)
    longer = np.flatnonzero(sizes > width)
    if not longer.shape[0]:
        return count, total
    start = query_start[longer]
    go_on = score[start + width] == edge[longer]
    longer, start = longer[go_on], start[go_on]
    if not longer.shape[0]:
        return count, total
    # bisection over the positions past the window, every such query at once:
    # the block ends at the first position scored below its value
    value = edge[longer]
    low = np.full(longer.shape[0], width + 1)
    high = sizes[longer].copy()
    while True:
        open_ = low < high
        if not open_.any():
            break
        middle = (low + high) // 2
        same = score[start + np.minimum(middle, high - 1)] == value
        low = np.where(open_ & same, middle + 1, low)
        high = np.where(open_ & ~same, middle, high)
    n_past = low - width
    count[longer] = n_past
    owner = np.repeat(np.arange(longer.shape[0]), n_past)
    offset = np.arange(owner.shape[0]) - np.repeat(np.cumsum(n_past) - n_past, n_past)
    past_rows = start[owner] + width + offset
    total[longer] = np.bincount(owner, weights=_gain(relevance[past_rows], gain),
                                minlength=longer.shape[0])
    return count, total


def _whole_gains(relevance, integer_input, top):
    """Whether every gain, and every sum of gains, is a whole number held exactly.

    Then a tie block's gain sum is exact in any order of its rows, as the
    full layout's (in its canonical order) is: the two give the same bits.
    Whole grades below 2**53 / rows (exponential gains 2**grade - 1 below
    it too). ``integer_input``: ``y_true`` came as integers (whole already);
    ``top``: the largest grade.
    """
    top = float(top)
    if top + np.log2(relevance.shape[0] + 1.0) >= 52.0:
        return False
    return integer_input or np.array_equal(relevance, np.floor(relevance))


def top_k_scores(y_true, y_score, requests, query_id, binary=False):
    """Key -> (values, undefined, weights, policy, layout) of each request, or None.

    None: the input is one the full layout handles (see :func:`top_layout`).
    """
    found = top_layout(y_true, y_score, query_id, binary=binary)
    if found is None:
        return None
    rows, score, relevance, query_start, by_key, query_ids = found
    if isinstance(rows, OneLength):
        out, n_relevant = column_scores(rows, requests)
    else:
        out, n_relevant = _window_scores(rows, score, relevance, query_start, requests)
    if by_key is not None:
        out = {key: values[by_key] for key, values in out.items()}
        n_relevant = n_relevant[by_key]
    return out, TopQueries(query_ids, n_relevant, np.ones(n_relevant.shape[0]))


#: bits of one grade's count in :func:`_grade_counts`' packed sums
_WORD_BITS = 64


def _grade_counts(rows, top):
    """``(counts, n_relevant)``: each query's count of each grade, and of relevant rows.

    ``counts`` has the top grade first (0 for grade 0); None instead of the
    pair when the counts are not taken here.

    The counts :func:`_ideal_dcg_per_query` takes of whole grades (its
    ``integral`` case: it counts the nonzero grades only, so grade 0's
    column is 0), summed in fields of one integer a row: grade g adds
    ``1 << (g - 1) * bits`` (a table lookup), one ``reduceat`` over the
    rows, then the fields read apart. ``rows.grades``: the integer grades
    (None: not known). None too when the fields would not fit in 64 bits
    or :func:`_ideal_dcg_per_query` would sort instead of counting.
    """
    grades = rows.grades
    if grades is None or not rows.n_rows:
        return None
    top = int(top)
    n_grades = top + 1
    if n_grades * rows.n_queries > max(4 * rows.n_rows, 1 << 20):
        return None  # _ideal_dcg_per_query sorts
    bits = int(rows.query_size.max()).bit_length()
    if top * bits > _WORD_BITS:
        return None
    table = np.zeros(n_grades, dtype=np.uint64)
    table[1:] = np.uint64(1) << (np.arange(top, dtype=np.uint64) * np.uint64(bits))
    words = np.add.reduceat(table[grades], rows.query_start)
    counts = np.zeros((rows.n_queries, n_grades), dtype=np.intp)
    relevant = np.zeros(rows.n_queries, dtype=np.intp)
    mask = np.uint64((1 << bits) - 1)
    for grade in range(1, n_grades):  # column 0 the top grade
        count = (words >> np.uint64((grade - 1) * bits)) & mask
        counts[:, top - grade] = count
        relevant += count.view(np.intp)
    return counts, relevant


def _window_scores(rows, score, relevance, query_start, requests):
    """``({key: values per query}, n_relevant)`` from the ranked rows' windows."""
    top = rows.relevance.max()
    counts = _grade_counts(rows, top)
    if counts is None:
        n_relevant = np.add.reduceat((rows.relevance > 0).astype(np.float64), query_start)
    else:  # whole numbers: the same sums
        counts, n_relevant = counts[0], counts[1].astype(np.float64)
    binary_grades = top <= 1.0
    out = {}
    for request in requests:
        options = {**request.spec.defaults, **request.kernel_options}
        gain, discount = options["gain"], options["discount"]
        _check_gain_range(rows, gain)
        values = window_dcg(score, relevance, query_start, rows.query_size,
                            request.k, gain, discount, top=top)
        if request.spec.stem == "ndcg":
            with np.errstate(invalid="ignore", divide="ignore"):
                values = values / (
                    binary_ideal_dcg(rows.query_size.max(), n_relevant, request.k, discount)
                    if binary_grades else
                    _ideal_dcg_per_query(rows, k=request.k, gain=gain, discount=discount)
                    if counts is None else
                    _ideal_dcg_from_counts(counts, np.minimum(rows.query_size, request.k),
                                           gain=gain, discount=discount))
        out[request.key] = values
    return out, n_relevant
