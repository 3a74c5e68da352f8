"""Co-occurrence similarity looked up pair by pair, from a sparse table of the history.

``sim(i, j) = c_ij / sqrt(n_i n_j)``: ``c_ij`` sums ``n_ui n_uj`` over the
history users (the users who interacted with both items, when each
interaction is one row), ``n_i`` counts the item's interactions (Microsoft
recommenders' ``item_cooccurrence_count``). The table holds only the pairs
that co-occur: building it costs the sum over history users of their
number of items squared, never the catalog squared; a list's pairs (and a
list item's pairs with its user's history) are then looked up in it, O(k²)
per list. (Summing the items' user vectors instead, as the feature
similarities do, costs the recommended items' history sizes, which is far
more for popular items.)
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class Cooccurrence:
    """The history's co-occurring item pairs, as sorted keys ``i * n_codes + j``."""

    keys: np.ndarray
    counts: np.ndarray
    interactions: np.ndarray  # (n_codes,) n_i
    n_codes: int

    def similarity(self, first, second):
        """``sim(first, second)`` for item code arrays (0 for pairs never together)."""
        if len(self.keys) == 0:
            return np.zeros(len(first))
        key = first.astype(np.int64) * self.n_codes + second
        where = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        found = self.keys[where] == key
        together = np.where(found, self.counts[where], 0.0)
        scale = np.sqrt(self.interactions[first] * self.interactions[second])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(together > 0, together / scale, 0.0)


def cooccurrence_table(history_code, history_user, n_codes):
    """:class:`Cooccurrence` of the history (items coded ``0..n_codes-1``)."""
    n_users = int(history_user.max()) + 1 if len(history_user) else 0
    counts = sp.csr_matrix(
        (np.ones(len(history_code)), (history_code, history_user)), shape=(n_codes, n_users))
    table = sp.coo_matrix(counts @ counts.T)
    keys = table.row.astype(np.int64) * n_codes + table.col
    order = np.argsort(keys, kind="stable")
    interactions = np.bincount(history_code, minlength=n_codes).astype(np.float64)
    return Cooccurrence(keys[order], table.data[order], interactions, n_codes)


def pairs_within(group, rows):
    """Every pair ``(a, b)``, ``a`` before ``b``, of ``rows`` of the same ``group``.

    ``rows`` are row indices, ``group`` their group codes; returns two index
    arrays into ``rows``' rows.
    """
    order = np.argsort(group, kind="stable")
    rows, group = rows[order], group[order]
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    sizes = np.diff(np.r_[starts, len(rows)])
    local = np.arange(len(rows)) - np.repeat(starts, sizes)
    after = np.repeat(sizes, sizes) - 1 - local
    first = np.repeat(np.arange(len(rows)), after)
    offset = np.arange(len(first)) - np.repeat(np.cumsum(after) - after, after)
    second = first + offset + 1
    return rows[first], rows[second]
