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

over ``theta`` and the symmetric ``r``. In ``x = log theta`` and ``y =
log r`` each term is concave in ``eta = x[k] + y[k, k']``, so the whole
objective is concave: :func:`all_pairs` maximises it by Newton's method
(with ``theta[1] = 1`` pinned, a step halved until it stays inside ``theta
r < 1`` and gains), which has no fixed point but the maximum. (An EM on
these counts, rescaled so that the largest ``theta`` is 1, stalls there:
``theta = 1`` is a fixed point of the EM update.) Its estimating equations
``sum c - (n - c) p / (1 - p) = 0`` have mean zero at the true ``theta``
whatever the pairs' relevance, so the estimate is consistent when the
pairs moved for reasons unrelated to their relevance.

Only pairs of positions with a click on either side inform ``theta``; a
position is estimated when such pairs link it to position 1, else it is
nan (0 when its pairs were never clicked at it).
"""

import numpy as np
import scipy.sparse as sp

from ._validation import check_evidence


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


#: a fitted theta this many times position 1's is a likelihood without a
#: maximum (it grows as theta does), not an estimate
UNBOUNDED = 1e8


def all_pairs(totals, n_positions, *, tol=1e-10, max_iter=200):
    """AllPairs' ``theta`` (``theta[1] = 1``) from summed pair statistics.

    ``totals`` has shape (n_sets, 2 K^2): one row per data set (the full
    sample, or bootstrap resamples), fitted together. Returns ``theta`` of
    shape (n_sets, K): nan at positions that no clicked pair links to
    position 1, 0 at a linked position whose pairs were never clicked there
    (at position 1 itself: then every other position is nan), nan where the
    likelihood grows without bound (above :data:`UNBOUNDED` times position
    1: a position clicked only where its partners were not).
    """
    totals = np.atleast_2d(np.asarray(totals, dtype=np.float64))
    n_sets, size = totals.shape[0], n_positions
    square = size * size
    clicks = totals[:, :square].reshape(n_sets, size, size)
    shown = totals[:, square:].reshape(n_sets, size, size)
    off = ~np.eye(size, dtype=bool)
    # pairs of positions with a click on either side
    informative = (clicks + clicks.transpose(0, 2, 1) > 0) & (shown > 0) & off
    clicked_at = np.where(informative, clicks, 0.0).sum(axis=2) > 0
    linked = linked_to_top(informative)
    theta = np.where(linked, 1.0, np.nan)
    theta[linked & ~clicked_at] = 0.0
    top_clicked = clicked_at[:, 0]
    theta[:, 0] = np.where(top_clicked, 1.0, 0.0)
    theta[~top_clicked, 1:] = np.nan  # relative to a position 1 never clicked
    free = linked & clicked_at
    free[:, 0] = True
    free[~top_clicked] = False
    use = informative & free[:, :, None] & free[:, None, :]
    # a position left without a usable pair (its partners never clicked)
    free &= linked_to_top(use)
    use &= free[:, :, None] & free[:, None, :]
    theta[linked & ~free & clicked_at] = np.nan
    log_theta = _newton(clicks, shown, use, free, tol, max_iter)
    fitted = np.where(log_theta > np.log(UNBOUNDED), np.nan, np.exp(log_theta))
    return np.where(free, fitted, theta)


def linked_to_top(edges):
    """Which positions ``edges`` (n_sets, K, K), symmetric, connect to position 1."""
    reached = np.zeros(edges.shape[:2], dtype=bool)
    reached[:, 0] = True
    adjacency = edges.astype(np.float64)
    for _ in range(edges.shape[1]):
        grown = reached | (np.einsum("sk,skj->sj", reached.astype(np.float64),
                                     adjacency) > 0)
        if (grown == reached).all():
            break
        reached = grown
    return reached


def _objective(clicks, misses, use, eta):
    """The AllPairs log-likelihood of each set at ``eta`` (n_sets, K, K)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        terms = clicks * eta + misses * np.log1p(-np.exp(np.minimum(eta, 0.0)))
    return np.where(use, terms, 0.0).sum(axis=(1, 2))


def _newton(clicks, shown, use, free, tol, max_iter):
    """``log theta`` (n_sets, K) maximising the AllPairs likelihood on ``use``.

    Newton on ``x = log theta`` (``x[0] = 0``) and the symmetric ``y = log
    r``; the Hessian's ``y`` block is diagonal, so the step solves the
    ``x`` block's Schur complement (K - 1 unknowns per set) and gives ``y``
    by substitution.
    """
    n_sets, size = free.shape
    # a millionth of a miss per impression keeps the maximum inside theta r <
    # 1 when a pair set's every impression was clicked (its optimum would
    # sit on that boundary, where Newton's steps stall); with counts
    # consistent with the model it scales every theta r alike and leaves
    # the ratios as they are
    misses = np.maximum(shown - clicks, 0.0) + 1e-6 * shown
    both_clicks = clicks + clicks.transpose(0, 2, 1)
    both_shown = shown + shown.transpose(0, 2, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(use, both_clicks / both_shown, 0.5)
    x = np.zeros((n_sets, size))
    y = np.log(np.clip(rate, 1e-6, 0.9))
    unknown = free.copy()
    unknown[:, 0] = False
    eye = np.eye(size, dtype=bool)
    value = _objective(clicks, misses, use, x[:, :, None] + y)
    active = np.ones(n_sets, dtype=bool)
    for _ in range(max_iter):
        eta = np.where(use, x[:, :, None] + y, -1.0)  # (unused pairs: any value)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            odds = np.exp(eta) / -np.expm1(eta)        # p / (1 - p)
        gradient = np.where(use, clicks - misses * odds, 0.0)
        curvature = np.where(use, misses * odds * (1.0 + odds), 1e-300)
        curvature = np.maximum(curvature, 1e-12 * (both_clicks + 1.0))
        grad_x = gradient.sum(axis=2)
        grad_y = gradient + gradient.transpose(0, 2, 1)
        hess_y = np.where(use, curvature + curvature.transpose(0, 2, 1), 1.0)
        h = np.where(use, curvature, 0.0)
        schur = -h * h.transpose(0, 2, 1) / hess_y
        schur[:, eye] = (h.sum(axis=2) - (h * h / hess_y).sum(axis=2))
        rhs = grad_x - (h * grad_y / hess_y).sum(axis=2)
        # fixed and unknown-free positions: the identity, no step
        fixed = ~unknown
        schur = np.where(fixed[:, :, None] | fixed[:, None, :], 0.0, schur)
        schur[:, eye] = np.where(fixed, 1.0, schur[:, eye])
        rhs = np.where(fixed, 0.0, rhs)
        # a ridge of a millionth of a millionth keeps near-flat directions
        # (a theta growing without bound) solvable; sets gone non-finite stop
        schur[:, eye] += 1e-12 * (1.0 + np.abs(schur[:, eye]))
        finite = np.isfinite(schur).all(axis=(1, 2)) & np.isfinite(rhs).all(axis=1)
        active &= finite
        schur[~finite], rhs[~finite] = np.eye(size), 0.0
        step_x = np.linalg.solve(schur, rhs[:, :, None])[:, :, 0]
        step_y = np.where(
            use, (grad_y - h * step_x[:, :, None]
                  - h.transpose(0, 2, 1) * step_x[:, None, :]) / hess_y, 0.0)
        step_x[~active], step_y[~active] = 0.0, 0.0
        # halve each set's step until it stays feasible and does not lose
        length = np.ones(n_sets)
        for _ in range(60):
            new_x = x + length[:, None] * step_x
            new_y = y + length[:, None, None] * step_y
            new_eta = new_x[:, :, None] + new_y
            feasible = ~np.any(use & (new_eta >= 0.0), axis=(1, 2))
            new_value = _objective(clicks, misses, use, new_eta)
            good = feasible & (new_value >= value - 1e-12 * np.abs(value))
            if good.all():
                break
            length = np.where(good, length, length / 2)
        good = feasible & (new_value >= value - 1e-12 * np.abs(value))
        x = np.where(good[:, None], new_x, x)
        y = np.where(good[:, None, None], new_y, y)
        value = np.where(good, new_value, value)
        moved = np.maximum(np.abs(length[:, None] * step_x).max(axis=1),
                           np.abs(length[:, None, None] * step_y).max(axis=(1, 2)))
        # beyond UNBOUNDED the estimate is reported as nan: no need to go on
        active &= good & (moved > tol) & (x.max(axis=1) < np.log(UNBOUNDED) + 1.0)
        if not active.any():
            break
    return x


def check_harvest_evidence(theta, has_max):
    """Refuse a position that AllPairs could not estimate (nan or 0), saying why."""
    check_evidence(theta, lambda value: (
        "no click there on a (query, document) pair also shown at another "
        "position" if value == 0 else
        "no chain of (query, document) pairs, each shown at two positions and "
        "clicked at one, links it to position 1, or its pairs were clicked "
        "there only: no finite estimate"), has_max)
