"""Position bias of click logs: estimate_position_bias and its PositionBias result."""

from numbers import Real

import numpy as np

from .._core._layout import segment_ids
from .._core._optional import import_optional
from .._core._validation import check_option, check_positive_int, first_position
from ._harvest import check_harvest_evidence, pair_statistics
from ._identify import (
    check_identifiable,
    check_pair_observations,
    check_resampling_units,
)
from ._pbm_em import bootstrap_theta, informative_cells, pbm_conditional, pbm_em
from ._randomized import (
    check_randomized_design,
    check_randomized_evidence,
    randomized_statistics,
    randomized_totals,
)
from ._statistics import statistic_estimates
from ._validation import (
    check_clicks,
    check_evidence,
    check_lists_in_queries,
    check_one_row_per_position,
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
        queries: ``query_id``, by default the lists); None when
        ``n_resamples=0``. Position 1 is ``[1, 1]``.
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
        """The propensity of each row's position.

        Parameters
        ----------
        position : array-like of shape (n_rows,)
            1-based positions, each in 1..K (:attr:`max_position`).

        Returns
        -------
        propensity : ndarray of shape (n_rows,)
            The estimated propensity of each row's position, relative to
            position 1.

        Raises
        ------
        ValueError
            For a position that is not a whole number in 1..K, naming its
            first row.

        Examples
        --------
        >>> from skrank.clicks import PositionBias
        >>> bias = PositionBias([1.0, 0.5, 0.25])
        >>> bias([3, 1, 2, 2])
        array([0.25, 1.  , 0.5 , 0.5 ])
        """
        return self._lookup(check_positions(position))

    def _lookup(self, position, rows=None):
        """``__call__`` on checked positions (int64, >= 1); of ``rows`` alone if given."""
        if position.shape[0] and position.max() > self.max_position:
            beyond = position > self.max_position
            raise ValueError(
                f"The PositionBias covers positions 1..{self.max_position}, but "
                f"`position` has {int(position[beyond][0])} at "
                f"{first_position(beyond)}. Estimate it with a larger "
                "`max_position`, or drop the rows below position "
                f"{self.max_position}."
            )
        # a table indexed by the position itself: no n-row array of position - 1
        table = np.empty(self.max_position + 1, dtype=self.propensity.dtype)
        table[0] = np.nan  # no position 0 (checked)
        table[1:] = self.propensity
        return table[position if rows is None else position[rows]]

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
    list_id,
    query_id=None,
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
    list_id : array-like of shape (n_rows,)
        The displayed list (an impression: one user's view of one ranking)
        the row belongs to; a list shows one document per position.
        ``"randomized"`` compares positions within the same lists.
    query_id : array-like of shape (n_rows,), default=None
        The query each list answers (every row of a list has the same
        one): the document's relevance is that of the (query, document)
        pair, and the bootstrap resamples queries. By default each list is
        its own query.
    doc_id : array-like of shape (n_rows,), default=None
        The document. Needed by ``"conditional"``, ``"em"`` and
        ``"harvest"``, which pair each document with its query. With
        ``"randomized"`` it is optional and checks the randomisation (see
        Raises).
    method : {"conditional", "em", "harvest", "randomized"}
        Required (``None``, the default, is a ``ValueError`` that lists the
        choices): the right method depends on how the log was collected,
        which the clicks cannot show, and a wrong one gives wrong numbers
        without a sign.

        * ``"randomized"``: a randomisation experiment in which every
          displayed list shows its documents in a uniformly random order
          (a shuffled list, of any length; for a shuffled top-n of a longer
          list, pass ``max_position=n``). Position ``k`` is compared with
          position 1 over the lists that show both. Swaps (a result moved
          to a random position, the rest in the logger's order) are not
          this design: use ``"harvest"`` or ``"conditional"``.
        * ``"harvest"``: intervention harvesting with the AllPairs
          estimator (Agarwal et al., 2019): (query, document) pairs shown
          at more than one position, across rankers, time, or swap
          experiments (RandPair: the top result swapped with a random
          lower one, on queries logged more than once).
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
        For a position of 1..K without evidence (no click there; for
        ``"randomized"`` no click there, or at position 1, in the lists
        showing both; for ``"harvest"`` no clicked pair linking it to
        position 1): its propensity would be 0 or unknown. Pass
        ``max_position`` to leave it and those below it out. A zero
        propensity is never returned.
    ValueError
        For ``"conditional"``, ``"em"`` and ``"harvest"``, when a position
        is not connected to position 1 through (query, document) pairs with
        a click shown at both (a logger that never moves documents): the
        message names the positions and what the log needs. With
        ``doc_id``, ``"randomized"`` refuses a position that was not
        randomised: the same (query, document) pairs come back to it far
        more often than to position 1 of the same lists (the rows below a
        shuffled top-n, the unmoved results of a swap experiment on queries
        logged more than once). Also for two rows of one list at one
        position, a list with rows of two queries, and (with
        ``n_resamples > 0``) a bootstrap over a single query, whose interval
        would have zero width.

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
    than the first). ``"randomized"`` is consistent when the randomisation
    holds:

    .. math::

        \\hat\\theta(k) = \\frac{\\sum_{L \\ni 1, k} \\mathrm{clicks}(L, k)}
                               {\\sum_{L \\ni 1, k} \\mathrm{clicks}(L, 1)}

    over the lists ``L`` that show positions 1 and ``k`` (the click rate
    ratio when every list has the same length). ``"harvest"``,
    ``"conditional"`` and ``"em"`` are consistent under the position-based
    model when pairs move between positions for reasons unrelated to their
    clicks (the logger does not learn from the clicks it logs). A
    deterministic logger that always shows a document at the same place
    gives no evidence to any of them.

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
    once, however popular its query; the AllPairs likelihood is concave in
    the logarithms of its parameters and is maximised by Newton's method.

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
    .. [5] T. Joachims, A. Swaminathan and T. Schnabel. Unbiased
       learning-to-rank with biased feedback. WSDM 2017.

    Examples
    --------
    Four shuffled lists of two documents: position 2 gets a third of the
    clicks of position 1.

    >>> from skrank.clicks import estimate_position_bias
    >>> click    = [1, 1, 0, 0, 1, 0, 1, 0]
    >>> position = [1, 2, 1, 2, 1, 2, 1, 2]
    >>> shown_in = [1, 1, 2, 2, 3, 3, 4, 4]    # the displayed list
    >>> bias = estimate_position_bias(click, position, list_id=shown_in,
    ...                               method="randomized", n_resamples=0)
    >>> bias.propensity                       # (1 click) / (3 clicks)
    array([1.    , 0.3333])
    >>> bias([2, 1])
    array([0.3333, 1.    ])
    """
    max_position = check_bias_options(method, max_position, confidence_level,
                                      n_resamples)
    click = check_clicks(click)
    position = check_positions(position)
    check_same_rows(click=click, position=position)
    lists, query = list_and_query_codes(list_id, query_id, position)
    doc = None
    if method != "randomized" or doc_id is not None:
        check_doc_id(method, doc_id)
        doc, _ = list_codes(doc_id, click.shape[0], name="doc_id")
    if max_position is not None:
        keep = position <= max_position
        if not keep.all():
            click, position, lists = click[keep], position[keep], lists[keep]
            # the bootstrap draws the queries left (codes 0..n-1 again)
            query = np.unique(query[keep], return_inverse=True)[1].reshape(-1)
            doc = None if doc is None else doc[keep]
    n_positions = int(position.max()) if max_position is None else max_position
    shown, clicked, size = tabulated_positions(position, click, n_positions)
    n_impressions = np.bincount(shown - 1, minlength=size)
    n_clicks = np.bincount(shown - 1, clicked, size).astype(np.int64)
    check_click_evidence(n_clicks, max_position)
    rng = np.random.default_rng(random_state)
    if method == "randomized" and doc is not None:
        pair = query.astype(np.int64) * (int(doc.max()) + 1) + doc
        check_randomized_design(position - 1, lists, pair, n_positions,
                                max_position is not None)
    if method in ("randomized", "harvest"):
        check_resampling_units(int(query.max()) + 1, n_resamples)
        theta, draws = _statistic_method(method, click, position - 1, lists, query,
                                         doc, n_positions, n_resamples, rng)
    else:  # the methods that refit one gamma per (query, document) pair
        theta, draws = _em(click, position - 1, query, doc, n_positions,
                           n_resamples, rng, method=method)
    return finish_position_bias(method, theta, draws, n_impressions, n_clicks,
                                max_position, confidence_level, n_resamples)


def list_and_query_codes(list_id, query_id, position):
    """Integer codes of each row's list and query (the list's, by default).

    Refuses two rows of one list at one position, and a list with rows of
    two queries.
    """
    n_rows = position.shape[0]
    lists, _ = list_codes(list_id, n_rows, name="list_id")
    check_one_row_per_position(lists, position, name="list_id")
    if query_id is None:
        return lists, lists
    query, query_ids = list_codes(query_id, n_rows, name="query_id")
    check_lists_in_queries(lists, query, query_ids)
    return lists, query


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
    check_evidence(n_clicks, "no click", max_position is not None)


def finish_position_bias(method, theta, draws, n_impressions, n_clicks, max_position,
                         confidence_level, n_resamples):
    """The :class:`PositionBias` of an estimate ``theta`` and its bootstrap draws.

    The last step of every method, in memory and in skrank.dask: refuse
    positions without evidence, scale to position 1, take the interval.
    """
    if method == "harvest":
        check_harvest_evidence(theta, max_position is not None)
    elif method == "randomized":
        check_randomized_evidence(theta, max_position is not None)
    propensity = theta / theta[0]
    interval = None
    if draws is not None:
        interval = _percentile_interval(draws / draws[:, :1], confidence_level)
    return PositionBias(
        propensity, interval=interval, n_impressions=n_impressions,
        n_clicks=n_clicks, method=method, confidence_level=confidence_level,
        n_resamples=n_resamples,
    )




def _percentile_interval(draws, confidence_level):
    """(K, 2) percentile interval of bootstrap draws (n_resamples, K), nan-aware."""
    alpha = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = np.nanquantile(draws, [alpha, 1.0 - alpha], axis=0)
    return np.column_stack([low, high])


def _statistic_method(method, click, position, lists, query, doc, n_positions,
                      n_resamples, rng):
    """``"randomized"`` or ``"harvest"``: per-query statistics, then estimates."""
    n_queries = int(query.max()) + 1
    if method == "randomized":
        if not n_resamples:  # the sums alone
            return statistic_estimates(
                method, randomized_totals(click, position, lists, n_positions), None,
                n_positions, 0, rng)
        stats = randomized_statistics(click, position, lists, query, n_positions,
                                      n_queries)
    else:
        item, cell_position, clicks, shown, cell_query = _cells(
            click, position, query, doc, n_positions)
        check_identifiable(cell_position, item, n_positions, method, click=clicks,
                           shown=shown)
        stats = pair_statistics(item, cell_position, clicks / shown, cell_query,
                                n_positions=n_positions, n_queries=n_queries)
    totals = np.asarray(stats.sum(axis=0))
    return statistic_estimates(method, totals, stats, n_positions, n_resamples, rng)


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
    check_evidence(np.bincount(moving[1], moving[2], n_positions), "no click of a "
                    "(query, document) pair also shown at another position", False)
    cells = moving if method != "em" else informative_cells(cells, conditional=False)
    item, cell_position, clicks, shown, _ = cells
    theta, gamma, _ = fit(cell_position, item, clicks, shown, n_positions=n_positions,
                          n_items=int(item[-1]) + 1)
    if not n_resamples:
        return theta, None
    return theta, bootstrap_theta(fit, cells, theta, gamma, n_positions=n_positions,
                                  n_queries=n_queries, n_resamples=n_resamples, rng=rng)


def propensity_per_row(propensity, position, rows=None):
    """The propensity of each row: from a PositionBias, a callable or an array.

    A :class:`~skrank.clicks.PositionBias` gives its estimate of each
    position (refusing positions it does not cover); a callable is called
    with the positions, once per distinct position; an array or a number
    gives the values as they are. Callables and arrays must give positive,
    finite values (above 1 allowed). ``position`` comes from :func:`check_positions`.
    ``rows`` (indices): only those rows' propensities are returned, every
    row is still checked (the clicked rows are the only ones with a weight).
    """
    if isinstance(propensity, PositionBias):
        return propensity._lookup(position, rows)
    if callable(propensity):
        return propensity_of_positions(propensity, position, rows)
    if np.ndim(propensity) == 0:
        if isinstance(propensity, (bool, np.bool_)) or not isinstance(propensity, Real):
            raise ValueError(
                "`propensity` must be a PositionBias, a callable of positions, or "
                f"numbers (one per row), got {propensity!r}."
            )
        if rows is not None and 0 < propensity < np.inf:  # a valid number
            return np.full(rows.shape, propensity, dtype=np.float64)
        values = np.full(position.shape, propensity, dtype=np.float64)
    else:
        values = numbers("propensity", propensity)
    if values.shape != position.shape:
        raise ValueError(
            f"`propensity` has {values.shape[0]} values but there are "
            f"{position.shape[0]} rows: give one per row, a PositionBias, or a "
            "callable of positions."
        )
    values = check_propensity_values(values.astype(np.float64, copy=False))
    return values if rows is None else values[rows]
