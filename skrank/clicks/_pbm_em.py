"""Fitting the position-based click model on aggregated cells: EM and conditional.

The position-based model (PBM) says a document ``d`` shown at position
``k`` is clicked with probability ``theta[k] * gamma[d]``: examined with
probability ``theta[k]``, and then clicked when relevant (``gamma[d]``).
The data come as *cells*: one per (item, position) pair with its click
and impression counts (weighted counts are fine). Each EM step is a few
whole-array passes over the cells and two ``np.bincount`` sums; the only
loop is over the iterations.

For a cell with ``c`` clicks out of ``n`` impressions and ``u = n - c``
non-clicks, the E step gives, for each non-click, the posterior
probability that the document was examined but not relevant,
``theta (1 - gamma) / (1 - theta gamma)``, and that it was relevant but not
examined, ``(1 - theta) gamma / (1 - theta gamma)``; a click means both.
The M step averages them (Chuklin, Markov and de Rijke, 2015, ch. 4;
Wang et al., WSDM 2018):

    theta[k] = (C_k + theta[k] sum_{cells at k} u (1 - gamma) / (1 - theta gamma)) / N_k
    gamma[d] = (C_d + gamma[d] sum_{cells of d} u (1 - theta) / (1 - theta gamma)) / N_d

Both stay in [0, 1]. Only ratios of ``theta`` are identified (``theta * s``
and ``gamma / s`` fit equally well), which is why the estimators report
``theta`` relative to position 1; each step picks the scale that keeps
both away from the bound 1 (:func:`balance`).

:func:`pbm_conditional` fits the same model by the Poisson (conditional)
likelihood, which has no per-pair ``gamma`` bias; :func:`bootstrap_theta`
refits either on query-bootstrap resamples.
"""

import numpy as np
import scipy.sparse as sp

from .._core._resample import resampled_counts

#: EM stops when no position's theta (relative to the largest) moves more than this
TOLERANCE = 1e-6
#: and after this many iterations at most
MAX_ITER = 2000


def pbm_em(position, item, clicks, impressions, *, n_positions, n_items,
           theta=None, gamma=None, tol=TOLERANCE, max_iter=MAX_ITER, n_sets=1):
    """Fit the PBM by EM on cells; returns ``(theta, gamma, n_iter)``.

    Parameters
    ----------
    position : ndarray of int, shape (n_cells,)
        0-based position of each cell, in ``0..n_positions-1``.
    item : ndarray of int, shape (n_cells,)
        The item (query-document pair) of each cell, in ``0..n_items-1``.
    clicks, impressions : ndarray of float, shape (n_cells,)
        Counts (or weighted counts) of each cell; ``clicks <= impressions``.
    theta, gamma : ndarray, default=None
        Starting values (a warm start); by default the click rate of each
        position divided by the largest, and 0.5.
    n_sets : int, default=1
        Independent data sets stacked in the cells (set ``b`` owns
        positions ``b * K .. b * K + K - 1``, ``K = n_positions / n_sets``):
        convergence is judged on each set's theta relative to its own
        largest.

    Positions or items without impressions keep their starting values;
    their estimates mean nothing and the caller leaves them out.
    """
    clicks = np.asarray(clicks, dtype=np.float64)
    impressions = np.asarray(impressions, dtype=np.float64)
    misses = impressions - clicks
    position_clicks = np.bincount(position, clicks, n_positions)
    position_shown = np.bincount(position, impressions, n_positions)
    item_clicks = np.bincount(item, clicks, n_items)
    item_shown = np.bincount(item, impressions, n_items)
    shown_at = position_shown > 0
    item_seen = item_shown > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        if theta is None:
            rate = np.where(shown_at, position_clicks / position_shown, 0.0)
            top = rate.max()
            theta = np.where(rate > 0, 0.9 * rate / top if top > 0 else 0.5, 0.5)
        if gamma is None:
            gamma = np.full(n_items, 0.5)
        theta = np.array(theta, dtype=np.float64)
        gamma = np.array(gamma, dtype=np.float64)
        step = _EMStep(position, item, misses, position_clicks, item_clicks,
                       np.where(shown_at, position_shown, 1.0),
                       np.where(item_seen, item_shown, 1.0), shown_at, item_seen,
                       n_sets)
        n_iter = 0
        # SQUAREM (Varadhan and Roland, Scand. J. Statist. 2008): two EM
        # steps give a direction r and a curvature v; the point extrapolated
        # along them (step length alpha <= -1; -1 is the two plain steps) is
        # clipped to [0, 1] and polished by a third EM step. With the scale
        # pinned (each set's largest theta is 1) this needs about a fifth of
        # the EM steps of plain EM for the same accuracy.
        while n_iter < max_iter:
            theta1, gamma1 = step(theta, gamma)
            theta2, gamma2 = step(theta1, gamma1)
            r_t, r_g = theta1 - theta, gamma1 - gamma
            v_t, v_g = theta2 - theta1 - r_t, gamma2 - gamma1 - r_g
            norm_v = np.sqrt(np.dot(v_t, v_t) + np.dot(v_g, v_g))
            norm_r = np.sqrt(np.dot(r_t, r_t) + np.dot(r_g, r_g))
            alpha = min(-norm_r / norm_v, -1.0) if norm_v > 0 else -1.0
            new_theta = np.clip(theta - 2 * alpha * r_t + alpha * alpha * v_t,
                                1e-12, 1.0)
            new_gamma = np.clip(gamma - 2 * alpha * r_g + alpha * alpha * v_g, 0.0, 1.0)
            new_theta, new_gamma = step(new_theta, new_gamma)
            if not (np.isfinite(new_theta).all() and np.isfinite(new_gamma).all()):
                new_theta, new_gamma = theta2, gamma2  # plain EM steps instead
            n_iter += 3
            # only ratios of theta are identified: watch theta relative to
            # its largest value (the scale may drift along the ridge)
            change = np.abs(
                _relative(new_theta, n_sets) - _relative(theta, n_sets)).max()
            theta, gamma = new_theta, new_gamma
            if change < tol:
                break
    return theta, gamma, n_iter


def _relative(theta, n_sets):
    """Each set's theta over its largest value."""
    by_set = theta.reshape(n_sets, -1)
    return by_set / by_set.max(axis=1, keepdims=True)


class _EMStep:
    """One EM step of the PBM on fixed cells (a callable: (theta, gamma) -> new)."""

    def __init__(self, position, item, misses, position_clicks, item_clicks,
                 position_shown, item_shown, shown_at, item_seen, n_sets=1):
        self.position, self.item, self.misses = position, item, misses
        self.position_clicks, self.item_clicks = position_clicks, item_clicks
        self.position_shown, self.item_shown = position_shown, item_shown
        self.shown_at, self.item_seen = shown_at, item_seen
        self.n_sets = n_sets

    def __call__(self, theta, gamma):
        n_positions, n_items = theta.shape[0], gamma.shape[0]
        t = theta[self.position]
        g = gamma[self.item]
        # non-clicks over the probability of a non-click (kept above 0)
        ratio = self.misses / np.maximum(1.0 - t * g, 1e-300)
        new_theta = (self.position_clicks + theta * np.bincount(
            self.position, ratio * (1.0 - g), n_positions)) / self.position_shown
        new_gamma = (self.item_clicks + gamma * np.bincount(
            self.item, ratio * (1.0 - t), n_items)) / self.item_shown
        new_theta = np.where(self.shown_at, new_theta, theta)
        new_gamma = np.where(self.item_seen, new_gamma, gamma)
        return balance(new_theta, new_gamma, self.n_sets)


def balance(theta, gamma, n_sets=1):
    """The same fit (``theta * s``, ``gamma / s``) with each set's largest theta
    and largest gamma equal.

    Only products ``theta * gamma`` are identified, so the scale ``s`` is
    free; EM leaves it to drift along the ridge of equal likelihood. Pinning
    the largest theta at 1 instead would trap the fit: ``theta = 1`` is a
    fixed point of the EM update (a position examined for sure explains every
    non-click by relevance), so the position that first reaches the top stays
    there, even when another position is examined more. With the two largest
    values equal at ``sqrt(max theta * max gamma)`` neither side sits on the
    bound of 1 unless the data put a product there (a pair always clicked).
    """
    by_set = theta.reshape(n_sets, -1)
    items = gamma.reshape(n_sets, -1)
    top_theta = by_set.max(axis=1)
    top_gamma = items.max(axis=1)
    ok = (top_theta > 0) & (top_gamma > 0)
    scale = np.sqrt(np.where(ok, top_gamma, 1.0) / np.where(ok, top_theta, 1.0))
    return ((by_set * scale[:, None]).ravel(), (items / scale[:, None]).ravel())


def pbm_conditional(position, item, clicks, impressions, *, n_positions, n_items,
                    theta=None, gamma=None, tol=TOLERANCE, max_iter=MAX_ITER,
                    n_sets=1):
    """The PBM's ``theta`` by its conditional likelihood: ``(theta, gamma, n_iter)``.

    The same cells as :func:`pbm_em`. It maximises

        sum_cells c log(theta[k] gamma[d]) - n theta[k] gamma[d],

    the Poisson likelihood of the counts, whose maximum over ``gamma[d] =
    C_d / sum_k n_dk theta[k]`` leaves the log-likelihood of each pair's
    clicks given its total clicks: a multinomial over the pair's positions
    with probabilities ``n_dk theta[k] / sum_j n_dj theta[j]``, free of
    ``gamma``. Its score equations hold in expectation whenever
    ``E[c] = n theta gamma``, which the Bernoulli PBM gives exactly, so
    ``theta`` is consistent as pairs grow in number however few times each
    is shown (Wooldridge, J. Econometrics 1999; the Poisson fixed-effects
    estimator), where the Bernoulli maximum likelihood of :func:`pbm_em`
    is biased by its per-pair ``gamma`` (Neyman and Scott, 1948).

    The fit is Newton's method on ``beta = log theta`` of each set (its
    most clicked position held fixed, as only ratios are identified), with
    the step halved while a set's likelihood would fall. With
    ``p[d, k] = n_dk theta[k] / sum_j n_dj theta[j]`` the gradient is
    ``C_k - sum_d C_d p[d, k]`` and the Hessian ``-(diag(sum_d C_d p[d]) -
    sum_d C_d p[d] p[d]^T)``, whose second term is ``M^T M`` for the sparse
    ``M[d, k] = sqrt(C_d) p[d, k]``: a K x K system per set, solved at
    once. Simpler alternating updates of ``gamma`` and ``theta`` converge
    linearly, and slowly when positions are joined only through their
    neighbours (adjacent swaps): hundreds of steps, each stopping rule
    then far from the maximum. Newton needs a handful.

    Positions without clicks get theta 0 and items without clicks gamma 0.
    ``gamma`` is not used (the fit starts from ``theta``; it is accepted so
    that both fits take the same arguments). Returns each set's theta
    over its largest.
    """
    clicks = np.asarray(clicks, dtype=np.float64)
    impressions = np.asarray(impressions, dtype=np.float64)
    k_set = n_positions // n_sets
    position_clicks = np.bincount(position, clicks, n_positions)
    item_clicks = np.bincount(item, clicks, n_items)
    active = position_clicks > 0
    start = (np.ones(n_positions) if theta is None
             else np.array(theta, dtype=np.float64))
    start = np.where(np.isfinite(start) & (start > 0), start, 1.0)
    beta = np.where(active, np.log(start), 0.0)
    # each set's reference: its most clicked position, held fixed
    by_set_clicks = position_clicks.reshape(n_sets, k_set)
    reference = np.arange(n_sets) * k_set + by_set_clicks.argmax(axis=1)
    free = active.copy()
    free[reference] = False
    cell_set = position // k_set
    item_set = np.zeros(n_items, dtype=np.int64)
    item_set[item] = cell_set
    weight_of_item = np.sqrt(item_clicks)[item]
    # the rows of M (items) in order, built once: only the values change
    order = (None if np.all(item[1:] >= item[:-1])
             else np.argsort(item, kind="stable"))
    indices = position if order is None else position[order]
    indptr = np.r_[0, np.cumsum(np.bincount(item, minlength=n_items))]

    def fit_terms(beta):
        """Per-cell probabilities p, per-item totals S and per-set log-likelihood."""
        theta = np.where(active, np.exp(beta), 0.0)
        w = impressions * theta[position]
        total = np.bincount(item, w, n_items)
        p = w / np.where(total > 0, total, 1.0)[item]
        with np.errstate(divide="ignore"):
            log_total = np.where(item_clicks > 0, np.log(total), 0.0)
        loglik = (np.bincount(np.arange(n_positions) // k_set,
                              np.where(active, position_clicks * beta, 0.0), n_sets)
                  - np.bincount(item_set, item_clicks * log_total, n_sets))
        return p, total, loglik

    p, _, loglik = fit_terms(beta)
    n_iter = 0
    rows = np.arange(k_set)
    while n_iter < max_iter:
        n_iter += 1
        expected = item_clicks[item] * p
        expected_at = np.bincount(position, expected, n_positions)
        gradient = np.where(free, position_clicks - expected_at, 0.0)
        values = weight_of_item * p
        outer = sp.csr_matrix((values if order is None else values[order], indices,
                               indptr), shape=(n_items, n_positions))
        outer = (outer.T.tocsr() @ outer).tocoo()
        block = (outer.row // k_set * k_set + outer.row % k_set) * k_set \
            + outer.col % k_set
        hessian = -np.bincount(block, outer.data, n_sets * k_set * k_set).reshape(
            n_sets, k_set, k_set)
        hessian[:, rows, rows] += expected_at.reshape(n_sets, k_set)
        # fixed positions (reference, no click): identity rows, no step
        fixed = ~free.reshape(n_sets, k_set)
        hessian[fixed, :] = 0.0
        hessian.transpose(0, 2, 1)[fixed, :] = 0.0
        hessian[:, rows, rows] += fixed
        # a tiny ridge keeps a set whose positions fall apart (a resample
        # that lost the pairs joining them) solvable: no step along its
        # flat directions, where the gradient is 0
        scale = np.abs(hessian[:, rows, rows]).max(axis=1)
        hessian[:, rows, rows] += 1e-12 * (scale[:, None] + 1.0)
        step = np.linalg.solve(hessian, gradient.reshape(n_sets, k_set, 1))
        step = step.reshape(n_sets, k_set)
        length = np.ones(n_sets)
        for _ in range(30):  # halve the step of the sets whose likelihood falls
            trial = beta + (step * length[:, None]).ravel()
            p_new, _, loglik_new = fit_terms(trial)
            worse = loglik_new < loglik - 1e-12 * np.abs(loglik)
            if not worse.any():
                break
            length = np.where(worse, length / 2, length)
        beta, p, loglik = trial, p_new, loglik_new
        if np.abs(step * length[:, None]).max() < tol:
            break
    theta = np.where(active, np.exp(beta), 0.0).reshape(n_sets, k_set)
    top = theta.max(axis=1, keepdims=True)
    theta = (theta / np.where(top > 0, top, 1.0)).ravel()
    exposure = np.bincount(item, impressions * theta[position], n_items)
    gamma = item_clicks / np.where(exposure > 0, exposure, 1.0)
    return theta, gamma, n_iter


def informative_cells(cells, *, conditional):
    """The cells that move ``theta``, items re-coded ``0..n-1``; the same estimate.

    ``cells`` is ``(item, position, clicks, shown, query)``. A pair never
    clicked has ``gamma = 0`` at the maximum of either likelihood, whatever
    ``theta``: its cells change nothing but slow the fit down (each EM step
    dilutes its position's update with them). For the conditional
    likelihood a pair seen at one position only is a multinomial with one
    outcome, constant in ``theta``: dropped too. (In em's Bernoulli
    likelihood such a pair still matters through the bound ``theta * gamma
    <= 1``, so it stays.)
    """
    item, position, clicks, shown, query = cells
    n_items = int(item.max()) + 1
    keep = (np.bincount(item, clicks, n_items) > 0)
    if conditional:
        keep &= np.bincount(item, minlength=n_items) > 1
    keep = keep[item]
    kept_item = item[keep]
    # items are sorted: a new code wherever the item changes
    new_code = np.cumsum(np.r_[True, kept_item[1:] != kept_item[:-1]]) - 1
    return new_code, position[keep], clicks[keep], shown[keep], query[keep]


def bootstrap_theta(fit, cells, theta, gamma, *, n_positions, n_queries, n_resamples,
                    rng):
    """``theta`` of ``n_resamples`` query-bootstrap resamples: (n_resamples, K).

    ``fit`` is :func:`pbm_em` or :func:`pbm_conditional`; ``cells`` the
    tuple ``(item, position, clicks, shown, query)`` of one cell per
    (pair, position), ``theta``/``gamma`` the full-sample fit. A resample
    draws ``n_queries`` queries with replacement (the draws of
    ``_core._resample.resampled_counts``) and weighs each cell by its
    query's count. Resamples are fitted together, as one fit on
    stacked copies of the cells (copy ``b``: positions ``b * K + k``, items
    ``b * n_items + i``), warm-started from the full-sample fit; chunks keep
    the stack near 2**22 cells. A position without a click in a resample
    is nan there.
    """
    item, cell_position, clicks, shown, cell_query = cells
    n_items = gamma.shape[0]
    n_cells = item.shape[0]
    chunk = max(1, min(n_resamples, (1 << 22) // n_cells))
    draws = []
    # the draws of skrank's query bootstrap (_core._resample), in chunks
    for counts in resampled_counts(n_queries, n_resamples, rng, chunk):
        size = counts.shape[0]
        weight = counts[:, cell_query].astype(np.float64)
        drawn = weight.ravel() > 0  # about 1/e of the cells are not drawn
        weight = weight.ravel()[drawn]
        copy = np.repeat(np.arange(size), n_cells)[drawn]
        stacked_position = copy * n_positions + np.tile(cell_position, size)[drawn]
        stacked_clicks = np.tile(clicks, size)[drawn] * weight
        fitted, _, _ = fit(
            stacked_position, copy * n_items + np.tile(item, size)[drawn],
            stacked_clicks, np.tile(shown, size)[drawn] * weight,
            n_positions=size * n_positions, n_items=size * n_items,
            theta=np.tile(theta, size), gamma=np.tile(gamma, size), tol=1e-4,
            n_sets=size)
        clicked = np.bincount(stacked_position, stacked_clicks,
                              size * n_positions) > 0
        draws.append(np.where(clicked, fitted, np.nan).reshape(size, n_positions))
    return np.concatenate(draws, axis=0)
