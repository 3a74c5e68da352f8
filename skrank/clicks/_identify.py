"""STAND-IN, to be replaced by the "bias" helper's clicks/_identify.py at the merge.

Only the interface the randomized/harvest code calls:
``check_identifiable(position, pair, n_positions, method, click=None,
shown=None)`` and ``check_resampling_units(n_queries, n_resamples)``.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

FEW_QUERIES = 20


def check_identifiable(position, pair, n_positions, method, click=None, shown=None):
    """Refuse positions that no clicked pair seen at two positions links to position 1."""
    pair = np.asarray(pair, dtype=np.int64)
    n_pairs = int(pair.max()) + 1
    keep = np.ones(pair.shape[0], dtype=bool)
    if click is not None:
        keep = (np.bincount(pair, click, n_pairs) > 0)[pair]
    graph = sp.csr_matrix((np.ones(int(keep.sum())),
                           (position[keep], n_positions + pair[keep])),
                          shape=(n_positions + n_pairs,) * 2)
    _, label = connected_components(graph, directed=False)
    missing = np.flatnonzero(label[:n_positions] != label[0]) + 1
    if missing.shape[0]:
        raise ValueError(
            f"method={method!r}: positions {missing.tolist()} are not connected to "
            "position 1: the logger never moves documents between them. Log a "
            "randomisation experiment or swap interventions."
        )


def check_resampling_units(n_queries, n_resamples):
    """Refuse a bootstrap over one query; warn when queries are few."""
    if not n_resamples:
        return
    if n_queries < 2:
        raise ValueError(
            "The bootstrap interval resamples queries, and the log has 1 query: "
            "the interval would have zero width."
        )
    if n_queries < FEW_QUERIES:
        warnings.warn("few queries: the interval is too narrow to trust.",
                      UserWarning, stacklevel=4)
