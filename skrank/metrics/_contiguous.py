"""``RankingAccumulator(contiguous=True)``'s check: a query's rows arrive together.

A stream grouped by query completes a query when the next one starts. An id
that comes back later (a second run of rows, within one update or in a
later one) would be scored as another query; the accumulator refuses it,
which needs the ids of every completed query: :class:`CompletedIds` keeps
them exactly, in 8 bytes per id for numbers.
"""

import numpy as np

from .._core._factorize import factorize
from .._core._sort import distinct_sorted

# integral floats in (-2**63, 2**63) are ints (3.0 is query 3, as in evaluate)
_INT64_BOUND = 2.0**63


def codes(ids):
    """Integer keys of ids (equal ids, equal keys), in ascending id order."""
    keys, _ = factorize(ids, ids.shape[0])
    return keys


def run_ids(ids):
    """The id of each run of equal ids (as many as the distinct ids when grouped)."""
    if not ids.shape[0]:
        return ids
    return ids[np.r_[0, np.flatnonzero(ids[1:] != ids[:-1]) + 1]]


def _shown(value):
    return value.item() if isinstance(value, np.generic) else value


def check_runs_differ(runs):
    """Every run of rows (``runs``: their ids, in order) is another query."""
    if runs.shape[0] < 3:  # two adjacent runs always differ
        return
    keys = codes(runs)
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not repeated.shape[0]:
        return
    back = _shown(runs[np.flatnonzero(keys == repeated[0])[0]])
    raise ValueError(
        f"contiguous=True, but query id {back!r} appears in two separate runs "
        "of rows: with contiguous=True the rows of each query must arrive "
        "together. Sort the rows by query, or use contiguous=False."
    )


def check_not_completed(completed, ids, how):
    """Refuse ``ids`` (an array) when one is in ``completed`` (:class:`CompletedIds`)."""
    back = completed.first_member(ids)
    if back is None:
        return
    raise ValueError(
        f"contiguous=True, but query id {_shown(back)!r} {how} and has rows "
        "again: with contiguous=True the rows of each query must arrive "
        "together (the accumulator keeps every completed id to check this). "
        "Sort the rows by query, or use contiguous=False."
    )


def grouped_by_first_row(rows, ids):
    """Index that puts each query's rows together, queries in order of first row.

    None when ``ids`` already form one run per query.
    """
    keys = codes(ids)
    unique, first = np.unique(keys, return_index=True)
    if unique.shape[0] == run_ids(keys).shape[0]:
        return None
    return np.argsort(first[np.searchsorted(unique, keys)], kind="stable")


def _split(ids):
    """``ids`` as (int64 keys, their positions), (float keys, positions), other ids.

    Numbers equal in Python share a key (``3``, ``3.0``, ``np.int64(3)``);
    strings and other objects stay Python objects, with their positions.
    """
    positions = np.arange(ids.shape[0])
    kind = ids.dtype.kind
    if kind in "biu":
        if kind == "u" and ids.shape[0] and ids.max() >= 2**63:
            small = ids < 2**63
            big = np.flatnonzero(~small)
            return ((ids[small].astype(np.int64), positions[small]),
                    (np.empty(0), positions[:0]),
                    (ids[big].tolist(), big))
        none = positions[:0]
        return (ids.astype(np.int64), positions), (np.empty(0), none), ([], none)
    if kind == "f":
        values = ids.astype(np.float64) + 0.0  # -0.0 is 0
        integral = (np.floor(values) == values) & (np.abs(values) < _INT64_BOUND)
        return ((values[integral].astype(np.int64), positions[integral]),
                (values[~integral], positions[~integral]), ([], positions[:0]))
    if kind in "US":
        return ((np.empty(0, np.int64), positions[:0]), (np.empty(0), positions[:0]),
                (ids.tolist(), positions))
    ints, floats, others = ([], []), ([], []), ([], [])
    for position, value in enumerate(ids.tolist()):
        target = others
        if isinstance(value, (int, np.integer, np.bool_)):  # bool too: True == 1
            if -2**63 <= value < 2**63:
                target, value = ints, int(value)
        elif isinstance(value, (float, np.floating)):
            value = float(value) + 0.0
            if value.is_integer() and abs(value) < _INT64_BOUND:
                target, value = ints, int(value)
            else:
                target = floats
        target[0].append(value)
        target[1].append(position)
    return ((np.array(ints[0], dtype=np.int64), np.array(ints[1], dtype=np.intp)),
            (np.array(floats[0], dtype=np.float64), np.array(floats[1], dtype=np.intp)),
            (others[0], np.array(others[1], dtype=np.intp)))


class _SortedKeys:
    """An exact set of numbers of one dtype: sorted arrays, merged as they grow.

    Each added batch is one sorted array; an array is merged into the one
    before while that one is not larger, so there are about log2(n) arrays
    and an id is added in amortised O(log n), found in O(log(n)^2).
    """

    def __init__(self, dtype):
        self.dtype = dtype
        self.levels = []

    def add(self, keys):
        if not keys.shape[0]:
            return
        self.levels.append(distinct_sorted(np.sort(keys.astype(self.dtype))))
        levels = self.levels
        while len(levels) > 1 and levels[-2].shape[0] <= levels[-1].shape[0]:
            top = self.levels.pop()
            # two sorted runs: the stable sort (timsort, radix) merges them in O(n)
            both = np.sort(np.concatenate([self.levels[-1], top]), kind="stable")
            self.levels[-1] = distinct_sorted(both)

    def contains(self, keys):
        found = np.zeros(keys.shape[0], dtype=bool)
        for level in self.levels:
            at = np.minimum(np.searchsorted(level, keys), level.shape[0] - 1)
            found |= level[at] == keys
        return found

    def union(self, other):
        merged = _SortedKeys(self.dtype)
        merged.add(np.concatenate(
            self.levels + other.levels or [np.empty(0, self.dtype)]))
        return merged

    @property
    def nbytes(self):
        return sum(level.nbytes for level in self.levels)


class CompletedIds:
    """The ids of completed queries, exact: numbers compact, other ids in a set.

    Integer ids (and integral floats) take 8 bytes each in sorted int64
    arrays, other floats 8 bytes in float64 arrays; strings and other
    objects are kept in a Python set (the id object and a set entry, some
    60 to 100 bytes for a short string). Ids equal in Python are one id, as
    in :func:`skrank.evaluate`.
    """

    def __init__(self):
        self._ints = _SortedKeys(np.int64)
        self._floats = _SortedKeys(np.float64)
        self._others = set()

    def __bool__(self):
        return bool(self._ints.levels or self._floats.levels or self._others)

    def add(self, ids):
        """Add the ids of a numpy array."""
        (ints, _), (floats, _), (others, _) = _split(ids)
        self._ints.add(ints)
        self._floats.add(floats)
        self._others.update(others)

    def first_member(self, ids):
        """The first of ``ids`` (a numpy array) that is in the set, or None."""
        if not self or not ids.shape[0]:
            return None
        (ints, at_int), (floats, at_float), (others, at_other) = _split(ids)
        hits = [at_int[self._ints.contains(ints)],
                at_float[self._floats.contains(floats)]]
        if self._others:
            hits.append(np.asarray(
                [p for p, value in zip(at_other.tolist(), others)
                 if value in self._others],
                dtype=np.intp,
            ))
        hits = np.concatenate(hits)
        return ids[hits.min()] if hits.shape[0] else None

    def first_common(self, other):
        """An id in both sets, or None."""
        for mine, theirs in ((self._ints, other._ints), (self._floats, other._floats)):
            for level in mine.levels:
                found = theirs.contains(level)
                if found.any():
                    return level[found][0].item()
        common = self._others & other._others
        return next(iter(common)) if common else None

    def union(self, other):
        """A new set holding the ids of both."""
        merged = CompletedIds()
        merged._ints = self._ints.union(other._ints)
        merged._floats = self._floats.union(other._floats)
        merged._others = self._others | other._others
        return merged

    @property
    def nbytes(self):
        """Bytes of the numeric arrays (the set of other ids is not counted)."""
        return self._ints.nbytes + self._floats.nbytes
