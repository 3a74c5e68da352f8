"""The top-k path for grouped queries all of one length: DCG@k column by column.

When every query has the same number of rows (each query's rows
together, or shuffled rows once grouped), :func:`sorted_side_by_side`
sorts the queries side by side as the rows of a 2-D array, each value a
score's image with the row's grade in its low bits. Position j of every
query is then column j of that array: transposed, a few thousand queries
at a time, the window's columns are short contiguous arrays that stay in
the CPU's cache, and the whole DCG@k is a few operations per position,
with no per-row segment bookkeeping
(:func:`~skrank.metrics._topk.window_dcg` makes a dozen passes over the
rows, each through memory).

The values are the full layout's to the last bit. A tie block's gain sum
and row count are whole numbers, exact in any order (the grades are
whole, as :func:`~skrank.metrics._topk.top_layout` checks), so each
position's mean gain is the same quotient and its value the same product.
Each query's sum repeats, column for column, the additions
``np.add.reduceat`` makes over the query's rows in the full layout: its
first value plus numpy's pairwise sum of the others
(:func:`_pairwise_columns`), the positions past the cutoff being zeros
that add nothing.
"""

from typing import NamedTuple

import numpy as np

from .._core._layout import segment_ids
from ._gain import (
    _check_gain_range,
    _cumulative_discount,
    _discount,
    _gain,
    _ideal_dcg_from_counts,
    _ideal_dcg_per_query,
)

#: the longest queries taken column by column (a Python step per position
#: of the window, and the pairwise sum's grouping written out per column)
MAX_LENGTH = 4096


class _Rows:
    """Rows grouped by query, for :func:`_ideal_dcg_per_query` and the gain check.

    ``query`` (each row's query number) is made when first read: only the
    ideal DCG of many grades reads it.
    """

    __slots__ = ("relevance", "query_start", "query_size", "n_queries", "_query", "grades")

    def __init__(self, relevance, query, query_start, query_size, n_queries, grades=None):
        self.relevance = relevance  # grouped by query
        self.query_start, self.query_size = query_start, query_size
        self.n_queries = n_queries
        self._query = query  # None: made from query_start when read
        self.grades = grades  # whole grades as integers, rows as relevance's (or None)

    @property
    def query(self):  # each row's query (0..n_queries-1)
        if self._query is None:
            self._query = segment_ids(self.query_start, self.n_rows)
        return self._query

    @property
    def n_rows(self):
        return self.relevance.shape[0]

    @property
    def rank(self):  # the ideal DCG of many grades sorts by relevance (no count)
        start = np.repeat(self.query_start, self.query_size)
        return np.arange(1, self.n_rows + 1) - start


class OneLength(NamedTuple):
    """Grouped queries of one length, sorted side by side (:func:`top_layout`)."""

    packed: np.ndarray  # (n_queries, length) uint64: descending score's image, grade below
    grade_bits: int
    relevance: np.ndarray  # the grades in the input's order (grouped by query)
    top: int  # the largest grade


def sorted_side_by_side(score, relevance, length, top, rows=None):
    """:class:`OneLength` of grouped queries of ``length`` rows each, or None.

    Each row's value is its score's float64 bits with the grade in place
    of the lowest bits, made to sort as the scores do (a negative score's
    bits flipped above the grade), then the rows of each query are sorted
    as a row of a 2-D array: ascending, so the ranked positions are the
    columns read from the last. When those low bits of every score are
    zeros (scores of few mantissa bits) distinct scores keep distinct high
    bits, and the grade never moves a row past another score. When some
    are not (real-valued scores), cutting them keeps the order of scores
    whose high bits differ: that holds if no two rows of a query, side by
    side once sorted, share their high bits (then no two share a score
    either); if two do, they may be a tie or two scores the cut made
    equal, and None sends the input to the other paths. None as well for
    queries too long (:data:`MAX_LENGTH`), grades of more than 8 bits, or
    a ``-inf`` score.

    ``rows``: the input's rows grouped by query (shuffled input): the
    values are made in the input's order, then gathered once.
    """
    grade_bits = max(1, int(top).bit_length())
    if grade_bits > 8 or length > MAX_LENGTH:
        return None
    mask = (1 << grade_bits) - 1
    n_rows = score.shape[0]
    packed = np.empty(n_rows, dtype=np.int64)
    step = max(1, _PREPARED_ROWS // length) * length
    work = np.empty(min(step, n_rows), dtype=np.int64)
    cut = False
    if rows is not None and _refused_at_the_head(score, relevance, rows[:step], work,
                                                 mask, length):
        return None  # ties of real-valued scores, found before the whole gather
    for first in range(0, n_rows, step):  # a piece at a time, in the CPU's cache
        piece = packed[first:first + step]
        spare = work[:piece.shape[0]]
        cut_here = _prepare(score[first:first + step], relevance[first:first + step],
                            piece, spare, mask)
        cut = cut or cut_here
        if rows is None:
            piece.reshape(-1, length).sort(axis=1)
            if cut_here and _shared_high_bits(piece, spare, mask, length):
                return None
    if rows is not None:
        packed = packed[rows]
        for first in range(0, n_rows, step):
            piece = packed[first:first + step]
            piece.reshape(-1, length).sort(axis=1)
            if cut and _shared_high_bits(piece, work[:piece.shape[0]], mask, length):
                return None
    packed = packed.reshape(-1, length)
    lowest = packed[:, 0] >> grade_bits  # a -inf score sorts first in its query
    if (lowest == (_NEGATIVE_INFINITY ^ 0x7FFF_FFFF_FFFF_FFFF) >> grade_bits).any():
        return None
    return OneLength(packed.view(np.uint64)[:, ::-1], grade_bits, relevance if rows is None
                     else relevance[rows], int(top))


def _refused_at_the_head(score, relevance, head, work, mask, length):
    """Whether the first grouped rows (``head``) alone show cut scores sharing high bits."""
    piece = np.empty(head.shape[0], dtype=np.int64)
    spare = work[:head.shape[0]]
    if not _prepare(score[head], relevance[head], piece, spare, mask):
        return False
    piece.reshape(-1, length).sort(axis=1)
    return _shared_high_bits(piece, spare, mask, length)


def _prepare(score, relevance, piece, spare, mask):
    """Write into ``piece`` the scores' sortable bits with the grades below ``mask``.

    Returns whether a score had a set bit there (cut: real-valued scores).
    """
    np.add(score, 0.0, out=piece.view(np.float64))  # -0.0 as +0.0
    cut = bool(np.bitwise_and(piece, mask, out=spare).any())
    if cut:
        piece ^= spare  # the low bits cleared
    spare[...] = relevance
    piece |= spare
    np.right_shift(piece, 63, out=spare)  # all ones where the score is negative
    spare &= np.int64(0x7FFF_FFFF_FFFF_FFFF ^ mask)  # the bits between sign and grade
    piece ^= spare
    return cut


def _shared_high_bits(piece, spare, mask, length):
    """Whether two neighbours of a sorted query in ``piece`` differ only below ``mask``."""
    differ = np.bitwise_xor(piece[1:], piece[:-1], out=spare[:-1]).view(np.uint64)
    shared = differ <= np.uint64(mask)
    shared[length - 1::length] = False  # the last row of a query and the next query's first
    return bool(shared.any())


#: rows prepared and sorted at a time by :func:`sorted_side_by_side`
_PREPARED_ROWS = 1 << 16


#: the bits of -inf, as int64
_NEGATIVE_INFINITY = int(np.array(-np.inf).view(np.int64))


def n_relevant(columns):
    """Each query's count of rows with a grade above 0 (float64, as the full layout's)."""
    n_rows, length = columns.relevance.shape[0], columns.packed.shape[1]
    relevant = (columns.relevance > 0).view(np.uint8)
    count = np.add.reduceat(relevant, np.arange(0, n_rows, length),
                            dtype=np.uint8 if length < 256 else np.intp)
    return count.astype(np.float64)


def grade_counts(columns, n_grades):
    """``(n_queries, n_grades)``: each grade's count, grades descending, 0 not counted.

    The counts :func:`~skrank.metrics._gain._ideal_dcg_per_query` takes by a
    bincount of (query, grade): here the query is the row of the 2-D array.
    """
    n_queries, length = columns.packed.shape
    grades = columns.relevance.reshape(n_queries, length).astype(np.intp, copy=False)
    codes = (n_grades - 1) - grades  # descending grades
    codes += (np.arange(n_queries) * n_grades)[:, None]
    counts = np.bincount(codes.ravel(), minlength=n_queries * n_grades)
    counts = counts.reshape(n_queries, n_grades)
    counts[:, -1] = 0  # grade 0 adds no gain, and is not counted
    return counts


def _add(a, b):
    """``a + b`` of two columns, None standing for a column of zeros."""
    if a is None:
        return b
    return a if b is None else a + b


def _pairwise_columns(columns, first, n):
    """numpy's pairwise sum of ``columns[first:first + n]``, done across the columns.

    numpy sums n values in order below 8, with eight accumulators up to 128
    (then the accumulators pairwise, then the rest in order), and above that
    as two halves cut at a multiple of 8. A None column is zeros: adding
    zeros to non-negative values changes no bit, so they are skipped.
    """
    if n < 8:
        out = None
        for column in columns[first:first + n]:
            out = _add(out, column)
        return out
    if n <= 128:
        r = list(columns[first:first + 8])
        i = 8
        while i < n - n % 8:
            for j in range(8):
                r[j] = _add(r[j], columns[first + i + j])
            i += 8
        out = _add(_add(_add(r[0], r[1]), _add(r[2], r[3])),
                   _add(_add(r[4], r[5]), _add(r[6], r[7])))
        for column in columns[first + i:first + n]:
            out = _add(out, column)
        return out
    half = n // 2
    half -= half % 8
    return _add(_pairwise_columns(columns, first, half),
                _pairwise_columns(columns, first + half, n - half))


def _past_window(columns, edge, width, gain_table):
    """Rows, and their gain sum, of each query's tie block at the cutoff below it."""
    packed, bits = columns.packed, np.uint64(columns.grade_bits)
    n_queries, length = packed.shape
    count = np.zeros(n_queries)
    total = np.zeros(n_queries)
    going = np.arange(n_queries)
    mask = np.uint64((1 << columns.grade_bits) - 1)
    for position in range(width, length):
        column = packed[going, position]
        same = (column >> bits) == edge[going]
        going, column = going[same], column[same]
        if not going.shape[0]:
            break
        count[going] += 1.0
        total[going] += gain_table[(column & mask).astype(np.intp)]
    return count, total


#: queries taken at a time: the window's columns of that many queries stay
#: in the CPU's cache, and the work arrays are reused rather than mapped
#: afresh (a whole-array pass faulted in some 40 MB at 2e6 rows per call)
_CHUNK = 8192


def columns_dcg(columns, k, gain, discount):
    """Expected DCG@k per query (tie orders averaged), position by position."""
    packed, bits = columns.packed, columns.grade_bits
    n_queries, length = packed.shape
    width = min(k, length)
    weight = _discount(np.arange(1, width + 1), discount)[:, None]
    gain_table = _gain(np.arange(1 << bits, dtype=np.float64), gain)
    past = None
    if width < length:  # the tie blocks the cutoff cuts: their rows below it
        edge = packed[:, width - 1] >> np.uint64(bits)
        past = _past_window(columns, edge, width, gain_table)
    out = np.empty(n_queries)
    for first in range(0, n_queries, _CHUNK):
        chunk = slice(first, min(first + _CHUNK, n_queries))
        extra = None if past is None else (past[0][chunk], past[1][chunk])
        out[chunk] = _chunk_dcg(packed[chunk, :width], bits, extra, length, weight,
                                gain == "linear" or bits == 1, gain_table)
    return out


def _chunk_dcg(packed, bits, extra, length, weight, grade_is_gain, gain_table):
    """:func:`columns_dcg` of some queries (``packed``: their window, in rows)."""
    n_queries, width = packed.shape
    window = np.ascontiguousarray(packed.T)  # (width, n_queries)
    grade = window & np.uint64((1 << bits) - 1)
    # the gains, then each position's block so far: its gain sum (``total``)
    # and row count, whole numbers exact in any order (a product by 0.0 or
    # 1.0 picks)
    if grade_is_gain:  # the grade is its gain (0 and 1: either gain)
        total = grade.astype(np.float64)
    else:
        total = gain_table[grade.astype(np.intp)]
    window >>= np.uint64(bits)  # the scores' images: equal where the scores are
    # 1.0 where position j + 1 is in the tie block of position j
    tied = (window[1:] == window[:-1]).astype(np.float64)
    rows = np.ones((width, n_queries))
    step = np.empty(n_queries)
    for j in range(1, width):
        total[j] += np.multiply(total[j - 1], tied[j - 1], out=step)
        rows[j] += np.multiply(rows[j - 1], tied[j - 1], out=step)
    if extra is not None:  # the block at the cutoff goes on below it
        rows[width - 1] += extra[0]
        total[width - 1] += extra[1]
    # back from the cutoff: each position takes its whole block's totals
    # where position j + 1 shares its block
    for j in range(width - 2, -1, -1):
        np.subtract(total[j + 1], total[j], out=step)
        total[j] += np.multiply(step, tied[j], out=step)
        np.subtract(rows[j + 1], rows[j], out=step)
        rows[j] += np.multiply(step, tied[j], out=step)
    total /= rows  # each position's mean gain
    total *= weight
    values = [*total, *[None] * (length - width)]
    return _add(values[0], _pairwise_columns(values, 1, length - 1))


def binary_ideal_dcg(length, n_relevant, k, discount):
    """The ideal DCG@k of grades 0 and 1: the cumulative discount of the relevant count."""
    table = _cumulative_discount(int(min(k, length)), discount)
    return table[np.minimum(n_relevant, k).astype(np.intp)]


class _Grades(NamedTuple):
    """What :func:`~skrank.metrics._gain._check_gain_range` reads (the largest grade)."""

    relevance: np.ndarray
    n_rows: int


def column_scores(columns, requests):
    """``({key: values per query}, n_relevant)``, queries in the runs' order."""
    relevance, top = columns.relevance, columns.top
    n_queries, length = columns.packed.shape
    relevant = n_relevant(columns)
    out = {}
    for request in requests:
        options = {**request.spec.defaults, **request.kernel_options}
        gain, discount = options["gain"], options["discount"]
        _check_gain_range(_Grades(np.array([top]), relevance.shape[0]), gain)
        values = columns_dcg(columns, request.k, gain, discount)
        if request.spec.stem == "ndcg":
            if top <= 1:
                ideal = binary_ideal_dcg(length, relevant, request.k, discount)
            elif (top + 1) * n_queries <= max(4 * relevance.shape[0], 1 << 20):
                # the full layout counts too (:func:`_ideal_dcg_per_query`)
                cap = np.full(n_queries, min(length, request.k))
                ideal = _ideal_dcg_from_counts(grade_counts(columns, top + 1), cap,
                                               gain=gain, discount=discount)
            else:
                starts = np.arange(0, relevance.shape[0], length)
                rows = _Rows(relevance.astype(np.float64, copy=False), None, starts,
                             np.full(n_queries, length), n_queries)
                ideal = _ideal_dcg_per_query(rows, k=request.k, gain=gain,
                                             discount=discount)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = values / ideal
        out[request.key] = values
    return out, relevant
