"""Expectations over the orders of tied rows, shared by several metric families.

A tie block of ``m`` rows holding ``r`` relevant ones, cut by a cutoff after
``t`` of its positions, holds a hypergeometric number of relevant rows in
those positions; these helpers give the expectations the kernels need.
"""

import numpy as np
from ._layout import segment_sum


def log_choose(n, k):
    """log of the binomial coefficient C(n, k), for 0 <= k <= n (arrays)."""
    from scipy.special import gammaln  # lazy: not needed without ties

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _log_hypergeometric_none(m, r, t):
    """log P(no relevant row among ``t`` positions of a block of ``m`` rows, ``r`` relevant).

    P = C(m - r, t) / C(m, t) = prod_{i < t} (1 - r / (m - i)), and by
    symmetry the same product with r and t swapped, so it is summed as
    min(t, r) terms log1p(-max(t, r) / (m - i)): exact to rounding even
    in a block of millions of rows, where differences of gammaln values
    (each ~1e7) cancel. The terms number at most the block's relevant rows
    (or t), so over all blocks at most the number of rows. -inf when
    t > m - r (a relevant row is sure to be there).
    """
    m, r, t = (np.asarray(a, dtype=np.float64) for a in (m, r, t))
    shape = np.broadcast_shapes(m.shape, r.shape, t.shape)
    m, r, t = (np.broadcast_to(a, shape).reshape(-1) for a in (m, r, t))
    possible = t <= m - r
    n_terms = np.where(possible, np.minimum(t, r), 0.0).astype(np.intp)
    other = np.maximum(t, r)
    owner = np.repeat(np.arange(m.shape[0]), n_terms)
    i = np.arange(owner.shape[0]) - np.repeat(np.cumsum(n_terms) - n_terms, n_terms)
    terms = np.log1p(-other[owner] / (m[owner] - i))
    out = np.bincount(owner, weights=terms, minlength=m.shape[0])
    return np.where(possible, out, -np.inf).reshape(shape)


def _hypergeometric_none(m, r, t):
    """P(no relevant row among ``t`` positions of a block of ``m`` rows, ``r`` relevant)."""
    return np.exp(_log_hypergeometric_none(m, r, t))


def hypergeometric_some(m, r, t):
    """P(at least one relevant row among the ``t`` positions), with expm1: no cancellation."""
    return -np.expm1(_log_hypergeometric_none(m, r, t))


def expected_hits_at_k(ranked, k):
    """Expected number of relevant rows in each query's top k."""
    if k is None:
        return ranked.n_relevant_retrieved
    if not ranked.has_ties:  # the relevant rows ranked k or better, counted
        rows = ranked.relevant_rows_within(k)
        return np.bincount(ranked.query[rows], minlength=ranked.n_queries).astype(np.float64)
    return segment_sum(np.where(ranked.rank <= k, ranked.tie_share, 0.0), ranked.query_start)


def first_relevant_block(ranked):
    """Index of each query's first tie block holding a relevant row (-1 if none)."""
    # untied, each row is its own block
    blocks = (ranked.relevant_rows if not ranked.has_ties
              else np.flatnonzero(ranked.block_relevant > 0))
    queries = ranked.block_query[blocks]
    first = np.ones(blocks.shape[0], dtype=bool)
    np.not_equal(queries[1:], queries[:-1], out=first[1:])
    out = np.full(ranked.n_queries, -1, dtype=np.intp)
    out[queries[first]] = blocks[first]
    return out
