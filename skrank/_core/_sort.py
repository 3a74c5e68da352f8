"""Sort primitives: rows by (key, score descending) in one sort of packed uint64.

:func:`rank_queries` sorts through :func:`packed_order`; the TREC engine
(``skrank.io``) uses the same primitives for trec_eval's order of a run,
for its pieces and for the duplicate check.
"""

import numpy as np


def exact_score_key(score):
    """``(values, key)``: float64 scores and a float64 key with their exact order.

    ``score`` comes from :func:`check_score`. A float64 array is its own key
    (the fast path, no work). Scores float64 can't hold exactly (int64
    beyond 2**53, datetime ticks, longdouble, Python integers) are ranked by
    their dense rank instead, ``np.unique``'s inverse: equal scores share a
    key, and the key is an integer below 2**53, exact in float64. ``values``
    is the nearest float64 of each score, for the few metrics that use the
    scores' values rather than their order.
    """
    if score.dtype == np.float64:
        return score, score
    with np.errstate(over="ignore"):
        values = score.astype(np.float64)
    _, inverse = np.unique(score.reshape(-1), return_inverse=True)
    key = inverse.reshape(score.shape).astype(np.float64)
    return values, key


def _descending_bits(score):
    """uint64 keys whose ascending order is the descending order of ``score``."""
    return _flip_descending((score + 0.0).view(np.uint64))  # -0.0 becomes +0.0


def _flip_descending(bits, work=None):
    """:func:`_descending_bits` of float64 ``bits`` (their uint64 view), in place.

    ``work``: a buffer of ``bits``' shape for the mask (else a new array).
    """
    mask = np.right_shift(bits, np.uint64(63), out=work)
    mask -= np.uint64(1)  # 0 if negative, else all ones
    mask >>= np.uint64(1)
    bits ^= mask
    return bits


#: the fewest bits of a score's image that a packed sort keeps beside the
#: row index (:func:`packed_order`); fewer, and the score goes by itself
_MIN_SCORE_BITS = 24


#: the fewest rows per run of one key, on average, for which each run is
#: sorted on its own (:func:`_sort_by_run`): a Python step per run
_MIN_RUN_ROWS = 64


def key_runs(keys):
    """``(starts, by_key)`` when each key's rows are together (one run per key), else None.

    ``starts`` are the runs' first rows, ``by_key`` the runs in ascending
    key order. None as well for runs too short to sort one by one.
    """
    n_rows = keys.shape[0]
    starts = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    if (starts.shape[0] + 1) * _MIN_RUN_ROWS > n_rows:
        return None
    starts = np.r_[0, starts]
    run_keys = keys[starts]
    by_key = np.argsort(run_keys, kind="stable")
    ordered = run_keys[by_key]
    if (ordered[1:] == ordered[:-1]).any():  # a key in two runs
        return None
    return starts, by_key


def key_order(keys):
    """``np.argsort(keys, kind="stable")`` of integer keys, by one plain sort when it can.

    Each key's offset from the smallest, shifted above the row index, packed
    into a uint64: sorting those values orders the rows by (key, row), and
    a plain sort costs about a third of an argsort. Keys whose span leaves
    no room for the row index are argsorted.
    """
    n_rows = keys.shape[0]
    if keys.dtype.kind not in "iu" or n_rows < 2:
        return np.argsort(keys, kind="stable")
    low = keys.min()
    offset = (keys - low).astype(np.uint64)
    row_bits = (n_rows - 1).bit_length()
    if int(offset.max()).bit_length() + row_bits > 64:
        return np.argsort(keys, kind="stable")
    offset <<= np.uint64(row_bits)
    offset |= np.arange(n_rows, dtype=np.uint64)
    offset.sort()
    return (offset & np.uint64((1 << row_bits) - 1)).astype(np.intp)


def sort_each_run(values, starts):
    """Sort, in place, each run of ``values`` (runs begin at ``starts``, ascending, the first 0).

    Small sorts stay in the CPU's cache: sorting the runs of a piece one by
    one takes about a third of the time of one sort of all its values. A
    Python step per run: for runs of tens of values or more.
    """
    bounds = np.r_[starts, values.shape[0]].tolist()
    for begin, end in zip(bounds[:-1], bounds[1:]):
        values[begin:end].sort()


def distinct_sorted(values):
    """The values of an ascending array, each once (``np.unique`` imports numpy.ma: 7 ms)."""
    if values.shape[0] == 0:
        return values
    return values[np.r_[True, values[1:] != values[:-1]]]


def _sort_by_run(packed, starts, by_key):
    """``packed`` sorted, from its runs (each of one key) sorted one by one, then put in key order.

    A run's values share their high (key) bits: sorting the runs apart
    (:func:`sort_each_run`) and ordering the runs by key is one sort of all
    values.
    """
    n_rows = packed.shape[0]
    sort_each_run(packed, starts)
    if (by_key[1:] > by_key[:-1]).all():  # the runs are in key order already
        return packed
    size = np.diff(np.r_[starts, n_rows])[by_key]
    # each position's row: the runs' ranges, concatenated in key order
    source = np.repeat(starts[by_key] - (np.cumsum(size) - size), size)
    source += np.arange(n_rows)
    return packed[source]


def _in_order(score, keys):
    """Whether the rows are by key ascending, then score descending, already."""
    following = keys[1:]
    if not (following >= keys[:-1]).all():
        return False
    rising = score[1:] > score[:-1]
    rising &= following == keys[:-1]
    return not rising.any()


def packed_order(score, keys, max_key_bits=40, sorted_keys=True):
    """Rows by (key ascending, score descending) with one sort of packed uint64.

    The key's offset fills the high bits of a uint64 and the top bits of the
    score's order-preserving image the bits below. When the row index fits
    in the low bits as well (with at least ``_MIN_SCORE_BITS`` of the score
    left), the packed values themselves are sorted and carry their rows
    along: a plain sort costs a fraction of an argsort; rows that
    come in runs of one key each are sorted run by run
    (:func:`_sort_by_run`). Otherwise, or when the scores turn out too
    crowded for the bits left beside the row index, one unstable argsort
    orders the packed values, the score keeping every bit below the key.
    Rows of equal packed value but different
    scores (truncation collisions) are re-sorted exactly by a lexsort of
    just those runs. Rows of equal score keep no particular order, which
    ``ties="average"`` does not need. Rows in that order already (a ranked
    run) are left as they are, with nothing packed. Returns ``(order, sorted_keys)``, or
    None when the keys can't be packed (float keys, a span over
    ``max_key_bits`` bits, or crowded scores); ``sorted_keys=False``: ``(order,
    None)``, for a caller that knows where each key's rows are.
    """
    if keys.dtype.kind not in "iu" or keys.shape[0] < 2:
        return None
    n_rows = keys.shape[0]
    if _in_order(score, keys):  # a ranked run, as systems write them: nothing to pack
        return np.arange(n_rows), keys
    low = keys.min()
    offset = (keys - low).astype(np.uint64)
    key_bits = int(offset.max()).bit_length()
    if key_bits > max_key_bits:
        return None
    row_bits = (n_rows - 1).bit_length()
    if 64 - key_bits - row_bits < _MIN_SCORE_BITS:
        row_bits = 0  # an argsort of the packed values instead
    if key_bits:
        offset <<= np.uint64(64 - key_bits)
    found = _sorted_packed(score, keys, offset, key_bits, row_bits)
    if found is None and row_bits:  # crowded beside the row index: every bit, an argsort
        found = _sorted_packed(score, keys, offset, key_bits, 0)
    if found is None:
        return None
    order, packed = found
    if not sorted_keys:
        return order, None
    if key_bits:
        packed >>= np.uint64(64 - key_bits)
    else:
        packed[:] = 0
    sorted_keys = packed.astype(keys.dtype, copy=False)
    sorted_keys += low
    return order, sorted_keys


def _colliding_runs(same, differ):
    """The rows of the runs of equal packed values that hide unequal scores.

    ``same`` holds each ``i`` (ascending) whose packed value equals that of
    ``i + 1``, ``differ`` whether their scores differ. A run of equal
    values is a stretch of consecutive entries of ``same`` (``i .. j``
    cover rows ``i .. j + 1``). Returns the rows of the runs with a
    differing pair, ascending, and a run number for each: made from
    ``same`` alone, never a pass over every row.
    """
    group = np.cumsum(np.r_[True, same[1:] != same[:-1] + 1]) - 1
    bad = np.zeros(group[-1] + 1, dtype=bool)
    bad[group[differ]] = True
    kept = bad[group]
    first, group = same[kept], group[kept]
    last = np.r_[group[1:] != group[:-1], True]  # each run's last pair
    rows = np.concatenate([first, first[last] + 1])
    run = np.concatenate([group, group[last]])
    by_row = np.argsort(rows, kind="stable")
    return rows[by_row], run[by_row]


def _sorted_packed(score, keys, offset, key_bits, row_bits):
    """``(order, packed)`` of :func:`packed_order`, ``row_bits`` of row index beside the score.

    ``offset`` is each key's offset, shifted to the top ``key_bits``. The
    packed values come back sorted, the row index shifted out. None when
    more than one row in 64 collides with a different score (crowded).
    """
    n_rows = keys.shape[0]
    packed = _descending_bits(score)
    cut = key_bits + row_bits
    exact = cut == 0 or not _cuts_bits(score, cut)
    if cut:
        packed >>= np.uint64(cut)
    if row_bits:
        packed <<= np.uint64(row_bits)
        packed |= np.arange(n_rows, dtype=np.uint64)
    if key_bits:
        packed |= offset
    if row_bits:
        runs = key_runs(keys)
        if runs is None:
            packed.sort()
        else:
            packed = _sort_by_run(packed, *runs)
        order = (packed & np.uint64((1 << row_bits) - 1)).astype(np.intp)
        packed >>= np.uint64(row_bits)
        packed <<= np.uint64(row_bits)  # the key's bits back in place, the index gone
    else:
        order = np.argsort(packed)
        packed = packed[order]
    if not exact:  # the score was cut: equal values may hide unequal scores
        same = np.flatnonzero(packed[1:] == packed[:-1])
        if same.shape[0]:
            differ = score[order[same]] != score[order[same + 1]]
            if differ.any():
                if np.count_nonzero(differ) * 64 > n_rows:
                    return None  # crowded scores
                rows, run = _colliding_runs(same, differ)
                fixed = rows[np.lexsort((-score[order[rows]], run))]
                order[rows] = order[fixed]
    return order, packed


def sorted_with_payload(score, keys, payload, payload_bits, max_key_bits=40,
                        run_length=None, run_starts=None, payload_apart=False):
    """Sorted uint64 values of (key, descending score, payload): no row index needed.

    ``payload`` (non-negative integers below ``2**payload_bits``) rides in
    the low bits, the key's offset in the high bits, the score's
    order-preserving image in between. Only when no set bit of the score's
    image is cut (scores of few mantissa bits, such as multiples of 0.25):
    then equal middle bits are equal scores, and the sorted values are
    the rows in (key, descending score) order with each row's payload,
    without an index or a gather. Returns ``(packed, key_bits, low)``, each
    key being ``low + (packed >> (64 - key_bits))`` (``low`` when
    ``key_bits`` is 0), or None (a score bit would be cut, or the keys span
    more than ``max_key_bits`` bits).

    ``run_length``: the rows come in runs of that many rows, one key each,
    already in key order (``keys`` is not read): no key is packed, and the
    runs are sorted side by side as the rows of a 2-D array (a sort of
    short rows is several times faster than one sort of them all).

    ``run_starts``: the rows come in runs beginning there, each run's key
    its number (0, 1, ... in row order; ``keys`` is not read): the values
    are packed and sorted a piece of whole runs at a time
    (:func:`_piece_cuts`), which gives the one sort's values.

    ``payload_apart``: the payloads come apart, as int64 in the sorted
    order, and the packed values are shifted down past them: returns
    ``(packed, key_bits, low, payloads)`` (with ``run_starts``, done to
    each piece as it is sorted, in the CPU's cache).
    """
    if run_length is not None:
        if payload_bits >= 64 or _cuts_bits(score, payload_bits):
            return None
        packed = _descending_bits(score)
        packed >>= np.uint64(payload_bits)
        packed <<= np.uint64(payload_bits)
        packed |= payload.astype(np.uint64)
        packed.reshape(-1, run_length).sort(axis=1)
        if payload_apart:
            apart = (packed & np.uint64((1 << payload_bits) - 1)).view(np.int64)
            packed >>= np.uint64(payload_bits)
            return packed, 0, 0, apart
        return packed, 0, 0
    if _cuts_bits(score[:256], payload_bits):  # real-valued scores: told by the first rows
        return None
    n_rows = score.shape[0]
    if run_starts is None:
        low = keys.min()
        key_bits = (int(keys.max()) - int(low)).bit_length()
        cuts = list(range(0, n_rows, _PIECE_ROWS)) + [n_rows]
    else:  # the keys are the runs' numbers: made a piece at a time, never read
        low, key_bits = 0, (run_starts.shape[0] - 1).bit_length()
        bounds = np.r_[run_starts, n_rows]
        run_cuts = _piece_cuts(bounds, n_rows)
        cuts = bounds[run_cuts].tolist()
        run_sizes = np.diff(bounds)
    cut = key_bits + payload_bits
    if key_bits > max_key_bits or cut >= 64:
        return None
    packed = np.empty(n_rows, dtype=np.uint64)
    apart = np.empty(n_rows, dtype=np.uint64) if payload_apart else None
    spare = np.empty(max(b - a for a, b in zip(cuts[:-1], cuts[1:])), dtype=np.uint64)
    for at, (first, last) in enumerate(zip(cuts[:-1], cuts[1:])):  # a piece at a time,
        rows = slice(first, last)  # in the CPU's cache
        piece = packed[rows]
        work = spare[:piece.shape[0]]
        np.add(score[rows], 0.0, out=piece.view(np.float64))  # -0.0 as +0.0
        if np.bitwise_and(piece, np.uint64((1 << cut) - 1), out=work).any():
            return None  # a score bit would be cut
        _flip_descending(piece, work)
        piece >>= np.uint64(cut)  # nothing lost: the scores' cut bits are all zero
        piece <<= np.uint64(payload_bits)
        if key_bits and run_starts is not None:
            runs = slice(run_cuts[at], run_cuts[at + 1])
            work[...] = np.repeat(np.arange(runs.start, runs.stop, dtype=np.uint64),
                                  run_sizes[runs])
            work <<= np.uint64(64 - key_bits)
            piece |= work
        elif key_bits:
            work[...] = keys[rows] - low
            work <<= np.uint64(64 - key_bits)
            piece |= work
        work[...] = payload[rows]
        piece |= work
        if run_starts is not None:  # whole runs: sorted alone, sorted as a whole
            piece.sort()
            if payload_apart:
                np.bitwise_and(piece, np.uint64((1 << payload_bits) - 1), out=apart[rows])
                piece >>= np.uint64(payload_bits)
    if run_starts is None:
        packed.sort()
        if payload_apart:
            np.bitwise_and(packed, np.uint64((1 << payload_bits) - 1), out=apart)
            packed >>= np.uint64(payload_bits)
    if payload_apart:
        return packed, key_bits, low, apart.view(np.int64)
    return packed, key_bits, low


#: rows :func:`sorted_with_payload` packs at a time (arrays that stay in cache)
_PIECE_ROWS = 1 << 16

#: rows of a piece of whole runs (:func:`_piece_cuts`)
_SORTED_PIECE_ROWS = 1 << 14


def _piece_cuts(bounds, n_rows):
    """Pieces of whole runs, about :data:`_SORTED_PIECE_ROWS` rows each: their first runs.

    ``bounds``: the runs' first rows, then ``n_rows``; returns indices into
    it, from 0 to the last. The runs hold values in ascending ranges that
    do not overlap (keys in the high bits, ascending from run to run): each
    piece sorted alone, the whole is sorted. A piece of some thousands of
    values sorts in the CPU's cache, faster than one sort of all.
    """
    at = np.searchsorted(bounds, np.arange(0, n_rows, _SORTED_PIECE_ROWS))
    return np.unique(np.r_[at, bounds.shape[0] - 1]).tolist()


def _cuts_bits(score, cut):
    """Whether some float64 score has a set bit among its low ``cut`` bits.

    When none has (scores of few mantissa bits, such as multiples of 0.25),
    cutting those bits from the scores' order-preserving images (where
    they are all zeros, or all ones for a positive score) keeps distinct
    scores distinct: equal packed values are equal scores, no collision to
    look for. The first rows usually answer at once for real-valued scores.
    """
    bits = np.asarray(score, dtype=np.float64).view(np.uint64)
    mask = np.uint64((1 << cut) - 1)
    if (bits[:256] & mask).any():
        return True
    return bool((bits & mask).any())


def sort_runs(order, same, key):
    """Re-sort, in place, each run of equal neighbours in ``order`` by a second key.

    ``same`` holds the positions ``i`` (ascending) where position ``i + 1``
    belongs to the run of position ``i``; ``key(positions)`` gives those
    positions' second key, ascending. The sort is stable: positions of
    equal keys keep their places, and positions outside any run never move.
    """
    if same.shape[0] == 0:
        return
    equal_previous = np.zeros(order.shape[0], dtype=bool)
    equal_previous[same + 1] = True
    in_run = equal_previous.copy()
    in_run[same] = True
    positions = np.flatnonzero(in_run)
    run = np.cumsum(~equal_previous[positions])
    order[positions] = order[positions[np.lexsort((key(positions), run))]]
