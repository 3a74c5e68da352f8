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
    is biased by its per-pair ``gamma`` (Neyman and Scott, 1948). The fit
    alternates the two closed-form maximisations (each raises the
    likelihood), with each set's largest theta scaled to 1.

    Positions without clicks get theta 0 and items without clicks gamma 0.
    ``gamma`` is not used (the fit starts from ``theta``; it is accepted so
    that both fits take the same arguments).
    """
    clicks = np.asarray(clicks, dtype=np.float64)
    impressions = np.asarray(impressions, dtype=np.float64)
    position_clicks = np.bincount(position, clicks, n_positions)
    item_clicks = np.bincount(item, clicks, n_items)
    theta = (np.ones(n_positions) if theta is None
             else np.array(theta, dtype=np.float64))
    n_iter = 0
    gamma = np.zeros(n_items)
    while n_iter < max_iter:
        exposure = np.bincount(item, impressions * theta[position], n_items)
        gamma = item_clicks / np.where(exposure > 0, exposure, 1.0)
        exposure = np.bincount(position, impressions * gamma[item], n_positions)
        new_theta = position_clicks / np.where(exposure > 0, exposure, 1.0)
        by_set = new_theta.reshape(n_sets, -1)
        top = by_set.max(axis=1, keepdims=True)
        new_theta = (by_set / np.where(top > 0, top, 1.0)).ravel()
        n_iter += 1
        change = np.abs(new_theta - theta).max()
        theta = new_theta
        if change < tol:
            break
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
    draws ``n_queries`` queries with replacement and weighs each cell by
    its query's count. Resamples are fitted together, as one fit on
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
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        picks = rng.integers(0, n_queries, size=(size, n_queries))
        picks += (np.arange(size) * n_queries)[:, None]
        counts = np.bincount(picks.ravel(), minlength=size * n_queries)
        weight = counts.reshape(size, n_queries)[:, cell_query].astype(np.float64)
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
