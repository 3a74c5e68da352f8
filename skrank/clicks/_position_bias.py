"""Position bias of click logs: estimate_position_bias and its PositionBias result."""

from functools import partial
from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._core._layout import segment_ids
from .._core._optional import import_optional
from .._core._validation import check_option, check_positive_int, first_position
from ._harvest import all_pairs, pair_statistics
from ._identify import (
    check_identifiable,
    check_pair_observations,
    check_resampling_units,
)
from ._pbm_em import bootstrap_theta, informative_cells, pbm_conditional, pbm_em
from ._validation import (
    check_clicks,
    check_positions,
    check_propensity_values,
    numbers,
    propensity_of_positions,
    tabulated_positions,
    check_same_rows,
    list_codes,
)

METHODS = ("conditional", "em", "harvest", "randomized")


class PositionBias:
    """Examination propensities of positions 1..K, relative to position 1.

    Made by :func:`estimate_position_bias`. Call it with positions to get
    each row's propensity: it can be passed wherever a propensity is
    taken (:func:`skrank.clicks.evaluate`).

    Parameters
    ----------
    propensity : array-like of shape (K,)
        Positive propensities of positions 1..K (relative to position 1,
        as estimated; values above 1 are allowed: a position examined
        more often than the first).
    interval, n_impressions, n_clicks, method, confidence_level, n_resamples
        As the attributes below; :func:`estimate_position_bias` fills them.

    Attributes
    ----------
    propensity : ndarray of shape (K,)
        ``theta[k] / theta[1]`` for positions ``k = 1..K``; position 1 is 1.
    interval : ndarray of shape (K, 2) or None
        Percentile bootstrap interval of each propensity (resampling
        queries); None when ``n_resamples=0``. Position 1 is ``[1, 1]``.
    n_impressions, n_clicks : ndarray of shape (K,)
        Rows and clicks logged at each position.
    method : str
    confidence_level : float
    n_resamples : int

    Examples
    --------
    >>> from skrank.clicks import PositionBias
    >>> bias = PositionBias([1.0, 0.5, 0.25], method="randomized")
    >>> bias([3, 1, 2])
    array([0.25, 1.  , 0.5 ])
    >>> bias.max_position
    3
    """

    def __init__(self, propensity, *, interval=None, n_impressions=None,
                 n_clicks=None, method="given", confidence_level=0.95,
                 n_resamples=0):
        propensity = np.asarray(propensity, dtype=np.float64)
        if propensity.ndim != 1 or propensity.shape[0] == 0:
            raise ValueError(
                "`propensity` must be a non-empty 1-D array: one value per "
                f"position 1..K, got shape {propensity.shape}."
            )
        bad = ~(np.isfinite(propensity) & (propensity > 0))
        if bad.any():
            raise ValueError(
                "`propensity` must be positive and finite at every position, got "
                f"{propensity[bad][0]!r} at position {int(np.flatnonzero(bad)[0]) + 1}."
            )
        self.propensity = propensity
        self.interval = None if interval is None else np.asarray(interval, dtype=float)
        size = propensity.shape[0]
        self.n_impressions = (np.zeros(size, dtype=np.int64) if n_impressions is None
                              else np.asarray(n_impressions))
        self.n_clicks = (np.zeros(size, dtype=np.int64) if n_clicks is None
                         else np.asarray(n_clicks))
        self.method = method
        self.confidence_level = confidence_level
        self.n_resamples = n_resamples

    @property
    def max_position(self):
        """K, the last position covered."""
        return self.propensity.shape[0]

    @property
    def positions(self):
        """The positions covered, 1..K."""
        return np.arange(1, self.max_position + 1)

    def __call__(self, position):
        """The propensity of each row's position (an array like ``position``).

        A position outside 1..K is a ValueError naming its first row.
        """
        return self._lookup(check_positions(position))

    def _lookup(self, position):
        """``__call__`` on positions already checked (int64, >= 1)."""
        beyond = position > self.max_position
        if beyond.any():
            raise ValueError(
                f"The PositionBias covers positions 1..{self.max_position}, but "
                f"`position` has {int(position[beyond][0])} at "
                f"{first_position(beyond)}. Estimate it with a larger "
                "`max_position`, or drop the rows below position "
                f"{self.max_position}."
            )
        return self.propensity[position - 1]

    def __repr__(self):
        shown = min(self.max_position, 10)
        values = ", ".join(f"{value:.3g}" for value in self.propensity[:shown])
        more = ", ..." if self.max_position > shown else ""
        text = (f"PositionBias(method={self.method!r}, "
                f"positions=1..{self.max_position}, propensity=[{values}{more}]")
        if self.interval is not None:
            text += (f", {self.confidence_level:.0%} interval by {self.n_resamples} "
                     "resamples")
        clicks = int(np.sum(self.n_clicks))
        impressions = int(np.sum(self.n_impressions))
        if impressions:
            text += f", {clicks} clicks in {impressions} impressions"
        return text + ")"

    def plot(self, ax=None):
        """Draw the propensity of each position, with its interval.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Where to draw; a new figure's axes by default.

        Returns
        -------
        ax : matplotlib Axes
        """
        if ax is None:
            plt = import_optional("matplotlib.pyplot", "PositionBias.plot")
            _, ax = plt.subplots()
        positions = self.positions
        ax.plot(positions, self.propensity, marker="o", label=self.method)
        if self.interval is not None:
            ax.fill_between(positions, self.interval[:, 0], self.interval[:, 1],
                            alpha=0.25,
                            label=f"{self.confidence_level:.0%} bootstrap interval")
        ax.set_xlabel("position")
        ax.set_ylabel("propensity (relative to position 1)")
        ax.set_ylim(bottom=0)
        ax.legend()
        return ax


def estimate_position_bias(
    click,
    position,
    *,
    query_id,
    doc_id=None,
    method=None,
    max_position=None,
    confidence_level=0.95,
    n_resamples=1000,
    random_state=None,
):
    """Estimate the examination propensity of each position from click logs.

    The position-based model says a document ``d`` of query ``q`` shown at
    position ``k`` is clicked with probability ``theta(k) * gamma(q, d)``:
    the position is examined, and the document is relevant. This function
    estimates ``theta`` for positions 1..K, relative to position 1.

    Parameters
    ----------
    click : array-like of shape (n_rows,)
        1 if the displayed document was clicked, else 0. One row per
        displayed document.
    position : array-like of shape (n_rows,)
        The 1-based rank at which the logger showed the document.
    query_id : array-like of shape (n_rows,)
        The query (or user) whose relevance the document has; the
        bootstrap resamples queries.
    doc_id : array-like of shape (n_rows,), default=None
        The document. Needed by ``"conditional"``, ``"em"`` and
        ``"harvest"``, which pair each document with its query.
    method : {"conditional", "em", "harvest", "randomized"}
        Required (``None``, the default, is a ``ValueError`` that lists the
        choices): the right method depends on how the log was collected,
        which the clicks cannot show, and a wrong one gives wrong numbers
        without a sign.

        * ``"randomized"``: the rows come from a randomisation experiment
          (documents placed at random positions, a shuffled top-n, random
          swaps), so relevance does not depend on position and
          ``theta(k)`` is proportional to the click rate at ``k``.
        * ``"harvest"``: intervention harvesting with the AllPairs
          estimator (Agarwal et al., 2019): (query, document) pairs shown
          at more than one position, across rankers or time.
        * ``"conditional"``: the position-based model with one ``gamma``
          per (query, document) pair, fitted by the likelihood of each
          pair's clicks given its total (Poisson fixed effects): free of
          the per-pair ``gamma`` bias of ``"em"``, whatever the number of
          sessions per query. Needs pairs seen at several positions.
        * ``"em"``: expectation-maximisation of the position-based model
          with one ``gamma`` per (query, document) pair (Chuklin et al.,
          2015; Wang et al., 2018): the Bernoulli maximum likelihood, which
          is biased when pairs are seen a few times each (it warns).
          Needs pairs seen at several positions.
    max_position : int, default=None
        The last position to estimate; rows below it are left out. By
        default the deepest logged position.
    confidence_level : float, default=0.95
        Of the percentile bootstrap interval.
    n_resamples : int, default=1000
        Bootstrap resamples of the queries; 0 computes no interval. For
        ``"em"`` and ``"conditional"`` each resample is a refit,
        warm-started from the estimate: on 1e6 impressions about 0.1 s a
        resample for ``"em"`` and 0.03 s for ``"conditional"``.
    random_state : int, numpy Generator or None, default=None
        Seed of the bootstrap.

    Returns
    -------
    bias : PositionBias
        ``propensity`` of positions 1..K (1 at position 1), ``interval``,
        ``n_impressions``, ``n_clicks``; call it with positions to get each
        row's propensity.

    Raises
    ------
    ValueError
        For a position of 1..K without evidence (no click there, or for
        ``"harvest"`` no pair shown there and elsewhere): its propensity
        would be 0 or unknown. Pass ``max_position`` to leave it and those
        below it out. A zero propensity is never returned.
    ValueError
        For ``"conditional"`` and ``"em"``, when a position is not connected
        to position 1 through (query, document) pairs with a click shown at
        both (a logger that never moves documents): the message names the
        positions and what the log needs. And when the bootstrap would
        resample a single query (a zero-width interval).

    Warns
    -----
    UserWarning
        For ``"em"``, when the pairs seen at several positions were shown
        fewer than 50 times each (median): the per-pair ``gamma`` then
        biases the propensities upwards; use ``"conditional"``. For any
        method with fewer than 20 queries to resample.

    Notes
    -----
    Only ratios of ``theta`` are identified from clicks, so every method
    reports ``theta(k) / theta(1)`` (above 1 for a position examined more
    than the first). ``"randomized"`` is unbiased when the randomisation
    holds; ``"harvest"``, ``"conditional"`` and ``"em"`` are consistent
    under the position-based model when pairs move between positions for
    reasons unrelated to their clicks (the logger does not learn from the
    clicks it logs). A deterministic logger that always shows a document at
    the same place gives no evidence to any of them.

    ``"em"`` maximises the Bernoulli likelihood over ``theta`` and one
    ``gamma`` per pair; with few impressions per pair these incidental
    parameters bias ``theta`` upwards (Neyman and Scott, 1948).
    ``"conditional"`` maximises the likelihood of each pair's clicks across
    its positions given its total, free of ``gamma``: consistent with any
    number of sessions per query [4]_. The user guide reports both methods'
    bias and interval coverage in simulations.

    ``"harvest"`` weighs each impression of a (query, document) pair at
    position ``k`` by one over the pair's impressions at ``k`` (the
    paper's weighting), so every pair of an interventional set counts
    once, however popular its query.

    The interval is a percentile bootstrap over queries (``n_resamples``
    resamples, with replacement); a resample in which a position lacks
    evidence is left out for that position.

    References
    ----------
    .. [1] A. Agarwal, I. Zaitsev, X. Wang, C. Li, M. Najork and T. Joachims.
       Estimating position bias without intrusive interventions. WSDM 2019.
    .. [2] X. Wang, N. Golbandi, M. Bendersky, D. Metzler and M. Najork.
       Position bias estimation for unbiased learning to rank in personal
       search. WSDM 2018.
    .. [3] A. Chuklin, I. Markov and M. de Rijke. Click Models for Web
       Search. Morgan & Claypool, 2015.
    .. [4] J. M. Wooldridge. Distribution-free estimation of some nonlinear
       panel data models. Journal of Econometrics 90, 1999.

    Examples
    --------
    Position 2 of a randomised experiment gets half the clicks of position 1:

    >>> from skrank.clicks import estimate_position_bias
    >>> click    = [1, 1, 0, 0, 1, 0, 1, 0]
    >>> position = [1, 2, 1, 2, 1, 2, 1, 2]
    >>> query    = [1, 1, 2, 2, 3, 3, 4, 4]
    >>> bias = estimate_position_bias(click, position, query_id=query,
    ...                               method="randomized", n_resamples=0)
    >>> bias.propensity                       # (1/4) / (3/4)
    array([1.    , 0.3333])
    >>> bias([2, 1])
    array([0.3333, 1.    ])
    """
    max_position = check_bias_options(method, max_position, confidence_level,
                                      n_resamples)
    click = check_clicks(click)
    position = check_positions(position)
    check_same_rows(click=click, position=position)
    query, _ = list_codes(query_id, click.shape[0])
    doc = None
    if method != "randomized":
        check_doc_id(method, doc_id)
        doc, _ = list_codes(doc_id, click.shape[0], name="doc_id")
    if max_position is not None:
        keep = position <= max_position
        if not keep.all():
            click, position = click[keep], position[keep]
            # the bootstrap draws the queries left (codes 0..n-1 again)
            query = np.unique(query[keep], return_inverse=True)[1].reshape(-1)
            doc = None if doc is None else doc[keep]
    n_positions = int(position.max()) if max_position is None else max_position
    shown, clicked, size = tabulated_positions(position, click, n_positions)
    n_impressions = np.bincount(shown - 1, minlength=size)
    n_clicks = np.bincount(shown - 1, clicked, size).astype(np.int64)
    check_click_evidence(n_clicks, max_position)
    rng = np.random.default_rng(random_state)
    estimator = {"randomized": _randomized, "harvest": _harvest, "em": _em,
                 "conditional": partial(_em, method="conditional")}[method]
    theta, draws = estimator(click, position - 1, query, doc, n_positions,
                             n_resamples, rng)
    return finish_position_bias(method, theta, draws, n_impressions, n_clicks,
                                max_position, confidence_level, n_resamples)


def check_bias_options(method, max_position, confidence_level, n_resamples,
                       methods=METHODS):
    """Validate the options of a position-bias estimate; returns ``max_position``."""
    if method is None:  # no default: the right one depends on how the log was made
        raise ValueError(
            "`method` is required: which one is right depends on how the log was "
            "collected, which the clicks cannot show. 'randomized' for a "
            "randomisation experiment (documents placed at random positions); "
            + ("'conditional' (or 'em') or 'harvest' " if "conditional" in methods
               else "'harvest' ")
            + "for logs of rankings that vary, with `doc_id`. "
            f"Choose one of {', '.join(map(repr, methods))}."
        )
    check_option("method", method, methods)
    max_position = check_positive_int("max_position", max_position)
    if isinstance(confidence_level, (bool, np.bool_)) or not isinstance(
        confidence_level, Real
    ) or not 0 < confidence_level < 1:
        raise ValueError(
            f"`confidence_level` must be a number in (0, 1), got {confidence_level!r}."
        )
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(
        n_resamples, (int, np.integer)
    ) or n_resamples < 0:
        raise ValueError(
            f"`n_resamples` must be a non-negative integer, got {n_resamples!r}."
        )
    return max_position


def check_doc_id(method, doc_id):
    """``doc_id`` is needed by every method but ``"randomized"``."""
    if doc_id is None:
        raise ValueError(
            f"`doc_id` is required for method={method!r}: it pairs each "
            "document with its query. method='randomized' needs none."
        )


def check_click_evidence(n_clicks, max_position):
    """Refuse a position of 1..K without a click, before estimating."""
    _check_evidence(n_clicks, "no click", max_position is not None)


def finish_position_bias(method, theta, draws, n_impressions, n_clicks, max_position,
                         confidence_level, n_resamples):
    """The :class:`PositionBias` of an estimate ``theta`` and its bootstrap draws.

    The last step of every method, in memory and in skrank.dask: refuse
    positions without evidence, scale to position 1, take the interval.
    """
    if method == "harvest":
        _check_evidence(theta, "no (query, document) pair shown there and at "
                        "another position", max_position is not None)
    propensity = theta / theta[0]
    interval = None
    if draws is not None:
        interval = _percentile_interval(draws / draws[:, :1], confidence_level)
    return PositionBias(
        propensity, interval=interval, n_impressions=n_impressions,
        n_clicks=n_clicks, method=method, confidence_level=confidence_level,
        n_resamples=n_resamples,
    )


def statistic_estimates(method, totals, stats, n_positions, n_resamples, rng):
    """``(theta, draws)`` of ``"randomized"`` or ``"harvest"`` from their statistics.

    ``totals`` are the summed sufficient statistics (one row), ``stats``
    the per-query ones, a sparse (n_queries, n_columns) matrix whose rows
    the bootstrap draws (used only when ``n_resamples``): for
    ``"randomized"`` clicks then impressions at each position (2 K
    columns), for ``"harvest"`` :func:`pair_statistics`' 2 K^2 columns.
    The step from statistics to estimates that the in-memory estimator and
    skrank.dask share; draws is None without resamples.
    """
    totals = np.asarray(totals, dtype=np.float64).reshape(1, -1)
    theta = _theta(method, totals, n_positions)[0]
    if method == "harvest":
        square = n_positions * n_positions
        evidence = totals[0, :square].reshape(n_positions, n_positions).sum(axis=1)
        theta = np.where(evidence > 0, theta, np.nan)
    if not n_resamples:
        return theta, None
    draws = _theta(method, _resampled_totals(stats, n_resamples, rng), n_positions)
    if method == "randomized":
        draws = np.where(draws > 0, draws, np.nan)
    return theta, draws


def _theta(method, totals, n_positions):
    """``theta`` (n_sets, K) of summed statistics, one row per data set."""
    if method == "harvest":
        return all_pairs(totals, n_positions)
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals[:, :n_positions] / totals[:, n_positions:]


def _check_evidence(values, what, has_max):
    """Refuse positions whose value is 0 or nan (no evidence), naming the first."""
    bad = ~(np.nan_to_num(values, nan=0.0) > 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0]) + 1
        hint = (f"pass max_position={first - 1} to leave it and the positions "
                "below it out" if first > 1 else "position 1 is the reference")
        raise ValueError(
            f"Position {first} has no evidence ({what}): its propensity cannot "
            f"be estimated and would be 0; {hint}."
            + (" (`max_position` is set: lower it.)" if has_max and first > 1 else "")
        )


def _percentile_interval(draws, confidence_level):
    """(K, 2) percentile interval of bootstrap draws (n_resamples, K), nan-aware."""
    alpha = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = np.nanquantile(draws, [alpha, 1.0 - alpha], axis=0)
    return np.column_stack([low, high])


def _resampled_totals(stats, n_resamples, rng):
    """Bootstrap sums of per-query statistics: (n_resamples, n_columns).

    ``stats`` is a sparse (n_queries, n_columns) matrix; each resample
    draws n_queries queries with replacement. Resamples go in chunks that
    keep the count matrix near 2**22 entries.
    """
    n_queries = stats.shape[0]
    chunk = max(1, min(n_resamples, (1 << 22) // max(n_queries, 1)))
    transposed = stats.T.tocsr()
    out = []
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        draws = rng.integers(0, n_queries, size=(size, n_queries))
        draws += (np.arange(size) * n_queries)[:, None]
        counts = np.bincount(draws.ravel(), minlength=size * n_queries)
        counts = counts.reshape(size, n_queries).astype(np.float64)
        out.append(np.asarray(transposed @ counts.T).T)
    return np.concatenate(out, axis=0)


def randomized_statistics(click, position, query, n_positions, n_queries):
    """Per-query clicks and impressions at each (0-based) position.

    A sparse (n_queries, 2 K) matrix: clicks at positions 0..K-1, then
    impressions.
    """
    return sp.csr_matrix(
        (np.concatenate([click, np.ones(click.shape[0])]),
         (np.concatenate([query, query]),
          np.concatenate([position, position + n_positions]))),
        shape=(n_queries, 2 * n_positions),
    )


def _randomized(click, position, query, doc, n_positions, n_resamples, rng):
    """Click rate per position; bootstrap of the per-query click and row counts."""
    totals = np.r_[np.bincount(position, click, n_positions),
                   np.bincount(position, minlength=n_positions)]
    stats = None
    if n_resamples:
        stats = randomized_statistics(click, position, query, n_positions,
                                      int(query.max()) + 1)
    return statistic_estimates("randomized", totals, stats, n_positions,
                               n_resamples, rng)


def _cells(click, position, query, doc, n_positions):
    """One cell per (query-document pair, position): its counts, item and query.

    Cells come sorted by item (the pair), then position.
    """
    n_docs = int(doc.max()) + 1
    pair = query.astype(np.int64) * n_docs + doc
    key = pair * n_positions + position
    cell_key, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    shown = np.bincount(inverse).astype(np.float64)
    clicks = np.bincount(inverse, click, cell_key.shape[0])
    cell_pair, cell_position = np.divmod(cell_key, n_positions)
    new_item = np.r_[True, cell_pair[1:] != cell_pair[:-1]]
    item = segment_ids(np.flatnonzero(new_item), cell_pair.shape[0])
    cell_query = cell_pair // n_docs
    return item, cell_position, clicks, shown, cell_query


def harvest_statistics(click, position, query, doc, n_positions, n_queries):
    """Per-query AllPairs statistics: :func:`pair_statistics` of the rows' cells."""
    item, cell_position, clicks, shown, cell_query = _cells(
        click, position, query, doc, n_positions)
    return pair_statistics(item, cell_position, clicks / shown, cell_query,
                           n_positions=n_positions, n_queries=n_queries)


def _harvest(click, position, query, doc, n_positions, n_resamples, rng):
    """AllPairs on the interventional sets; bootstrap of per-query pair sums."""
    stats = harvest_statistics(click, position, query, doc, n_positions,
                               int(query.max()) + 1)
    totals = np.asarray(stats.sum(axis=0))
    return statistic_estimates("harvest", totals, stats, n_positions, n_resamples,
                               rng)


def _em(click, position, query, doc, n_positions, n_resamples, rng, *, method="em"):
    """PBM with one gamma per (query, document): ``"em"`` (Bernoulli maximum
    likelihood by EM) or ``"conditional"``; bootstrap by warm-started refits."""
    cells = _cells(click, position, query, doc, n_positions)
    item, cell_position, clicks, shown, _ = cells
    check_identifiable(cell_position, item, n_positions, method, click=clicks,
                       shown=shown)
    n_queries = int(query.max()) + 1
    check_resampling_units(n_queries, n_resamples)
    if method == "em":
        check_pair_observations(item, cell_position, clicks, shown)
    fit = pbm_em if method == "em" else pbm_conditional
    moving = informative_cells(cells, conditional=True)  # pairs clicked, moved
    _check_evidence(np.bincount(moving[1], moving[2], n_positions), "no click of a "
                    "(query, document) pair also shown at another position", False)
    cells = moving if method != "em" else informative_cells(cells, conditional=False)
    item, cell_position, clicks, shown, _ = cells
    theta, gamma, _ = fit(cell_position, item, clicks, shown, n_positions=n_positions,
                          n_items=int(item[-1]) + 1)
    if not n_resamples:
        return theta, None
    return theta, bootstrap_theta(fit, cells, theta, gamma, n_positions=n_positions,
                                  n_queries=n_queries, n_resamples=n_resamples, rng=rng)


def propensity_per_row(propensity, position):
    """The propensity of each row: from a PositionBias, a callable or an array.

    A :class:`~skrank.clicks.PositionBias` gives its estimate of each
    position (refusing positions it does not cover); a callable is called
    with the positions, once per distinct position; an array or a number
    gives the values as they are. Callables and arrays must give positive,
    finite values (above 1 allowed). ``position`` comes from :func:`check_positions`.
    """
    if isinstance(propensity, PositionBias):
        return propensity._lookup(position)
    if callable(propensity):
        return propensity_of_positions(propensity, position)
    if np.ndim(propensity) == 0:
        if isinstance(propensity, (bool, np.bool_)) or not isinstance(propensity, Real):
            raise ValueError(
                "`propensity` must be a PositionBias, a callable of positions, or "
                f"numbers (one per row), got {propensity!r}."
            )
        values = np.full(position.shape, propensity, dtype=np.float64)
    else:
        values = numbers("propensity", propensity)
    if values.shape != position.shape:
        raise ValueError(
            f"`propensity` has {values.shape[0]} values but there are "
            f"{position.shape[0]} rows: give one per row, a PositionBias, or a "
            "callable of positions."
        )
    return check_propensity_values(values.astype(np.float64))
