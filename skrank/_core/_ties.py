"""Expectations over the orders of tied rows, shared by several metric families.

A tie block of ``m`` rows holding ``r`` relevant ones, cut by a cutoff after
``t`` of its positions, holds a hypergeometric number of relevant rows in
those positions; these helpers give the expectations the kernels need.
"""

import numpy as np
from scipy.special import gammaln

from ._layout import segment_sum


def _log_choose(n, k):
    """log of the binomial coefficient C(n, k), for 0 <= k <= n (arrays)."""
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _hypergeometric_none(m, r, t):
    """P(no relevant row among ``t`` positions of a block of ``m`` rows, ``r`` relevant)."""
    m, r, t = (np.asarray(a, dtype=np.float64) for a in (m, r, t))
    possible = t <= m - r
    safe_t = np.where(possible, t, 0.0)
    log_p = _log_choose(m - r, safe_t) - _log_choose(m, safe_t)
    return np.where(possible, np.exp(log_p), 0.0)


def _expected_hits_at_k(ranked, k):
    """Expected number of relevant rows in each query's top k."""
    if k is None:
        return ranked.n_relevant
    return segment_sum(np.where(ranked.rank <= k, ranked.tie_share, 0.0), ranked.query_start)


def _first_relevant_block(ranked):
    """Index of each query's first tie block holding a relevant row (-1 if none)."""
    blocks = np.flatnonzero(ranked.block_relevant > 0)
    queries = ranked.block_query[blocks]
    first = np.ones(blocks.shape[0], dtype=bool)
    np.not_equal(queries[1:], queries[:-1], out=first[1:])
    out = np.full(ranked.n_queries, -1, dtype=np.intp)
    out[queries[first]] = blocks[first]
    return out
