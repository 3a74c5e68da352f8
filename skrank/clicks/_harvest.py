"""Intervention harvesting: the AllPairs estimator of Agarwal et al. (WSDM 2019).

A (query, document) pair that the logs show at two positions ``k`` and
``k'`` (different rankers, or the same ranker at different times) is an
intervention: the same relevance, examined at two positions. Its
*interventional set* ``S(k, k')`` holds every such pair. With the paper's
weighting, each impression of a pair at ``k`` weighs one over the pair's
impressions at ``k``, so every pair of the set counts once:

    c[k, k'] = sum_{(q, d) in S(k, k')} clicks(q, d, k) / impressions(q, d, k)
    n[k, k'] = |S(k, k')|

Under the position-based model ``E c[k, k'] = theta[k] * R(k, k')`` with
``R(k, k') = R(k', k)`` the summed relevance of the set, so ``c[k, k'] /
c[k', k]`` estimates ``theta[k] / theta[k']``. AllPairs combines every
ordered pair by maximising

    sum_{k != k'} c[k, k'] log(theta[k] r[k, k'])
                  + (n[k, k'] - c[k, k']) log(1 - theta[k] r[k, k'])

over ``theta`` and the symmetric ``r``: the likelihood of a position-based
model whose items are the unordered pairs ``{k, k'}``, fitted here by the
same EM as :func:`~skrank.clicks._pbm_em.pbm_em`.
"""

import numpy as np
import scipy.sparse as sp

from ._pbm_em import pbm_em


def pair_statistics(cell_item, cell_position, cell_rate, cell_query, *, n_positions,
                    n_queries):
    """Per-query sums of ``c[k, k']``, ``n[k, k']``: a sparse (n_queries, 2 K^2) matrix.

    ``cell_*`` describe one cell per (query-document pair, position) seen,
    sorted by ``cell_item``: its 0-based position, its click rate and the
    query code of its pair. Columns ``k * K + k'`` hold ``c[k, k']``, the
    next ``K * K`` columns ``n[k, k']``; the diagonal stays empty.
    """
    n_cells = cell_item.shape[0]
    starts = np.flatnonzero(np.r_[True, cell_item[1:] != cell_item[:-1]])
    sizes = np.diff(np.r_[starts, n_cells])
    # every ordered pair (i, j) of cells of one item: i repeated size times
    per_cell = np.repeat(sizes, sizes)
    first = np.repeat(np.arange(n_cells), per_cell)
    block_start = np.repeat(np.repeat(starts, sizes), per_cell)
    offset = np.arange(first.shape[0]) - np.repeat(np.cumsum(per_cell) - per_cell,
                                                   per_cell)
    second = block_start + offset
    keep = first != second
    first, second = first[keep], second[keep]
    square = n_positions * n_positions
    column = cell_position[first] * n_positions + cell_position[second]
    rows = cell_query[first]
    data = np.concatenate([cell_rate[first], np.ones(first.shape[0])])
    matrix = sp.csr_matrix(
        (data, (np.concatenate([rows, rows]),
                np.concatenate([column, column + square]))),
        shape=(n_queries, 2 * square),
    )
    matrix.sum_duplicates()
    return matrix


def all_pairs(totals, n_positions):
    """AllPairs' ``theta`` (absolute scale) from summed pair statistics.

    ``totals`` has shape (n_sets, 2 K^2): one row per data set (the full
    sample, or bootstrap resamples), fitted together. Returns ``theta`` of
    shape (n_sets, K); positions that no pair reaches are nan.
    """
    totals = np.atleast_2d(totals)
    n_sets = totals.shape[0]
    square = n_positions * n_positions
    k, k2 = np.divmod(np.arange(square), n_positions)
    off_diagonal = k != k2
    k, k2 = k[off_diagonal], k2[off_diagonal]
    clicks = totals[:, :square][:, off_diagonal]
    shown = totals[:, square:][:, off_diagonal]
    # the unordered pair {k, k'} is the item
    low, high = np.minimum(k, k2), np.maximum(k, k2)
    pair = low * n_positions + high
    n_pairs = square
    set_index = np.arange(n_sets)[:, None]
    position = (set_index * n_positions + k[None, :]).ravel()
    item = (set_index * n_pairs + pair[None, :]).ravel()
    theta, _, _ = pbm_em(position, item, clicks.ravel(), shown.ravel(),
                         n_positions=n_sets * n_positions, n_items=n_sets * n_pairs,
                         n_sets=n_sets)
    theta = theta.reshape(n_sets, n_positions)
    reached = np.bincount(
        position, shown.ravel() > 0, n_sets * n_positions
    ).reshape(n_sets, n_positions) > 0
    return np.where(reached, theta, np.nan)
