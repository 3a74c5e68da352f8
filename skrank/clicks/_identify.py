"""What a click log can tell about position bias, checked before any estimate.

The estimators that learn from observational logs (``"em"``,
``"conditional"``, ``"harvest"``) compare a (query, document) pair's
clicks at the positions where it was shown: its relevance is the same
there, so the ratio of its click rates is the ratio of the positions'
propensities. Two positions are *connected* when some pair with a click
was shown at both; a chain of such pairs connects positions further
apart. A position that no chain connects to position 1 has no propensity
relative to position 1 that the log can estimate: any value fits the
clicks equally well, with the pairs' relevances scaled to match. The
estimators would still return numbers (their starting values, or an
arbitrary point of a flat likelihood), so :func:`check_identifiable`
refuses such logs first, saying what they lack.

:func:`check_resampling_units` guards the bootstrap of every method: it
resamples queries, so one query gives an interval of zero width.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._core._resample import FEW_QUERIES, check_resampled_queries

#: em's per-pair gamma is biased when the pairs that carry the evidence are
#: seen fewer times than this (median impressions per pair): in simulations of
#: a noisy logger (10 positions) em was 50-100% too high below the top with 3
#: impressions per pair, 17-40% with 6, 4-14% with 12, under 5% with 25 and
#: under 2% from 50; see check_pair_observations
FEW_IMPRESSIONS = 50

_WHAT_TO_DO = (
    "Log a randomisation experiment (random positions or a shuffled top-n: "
    "method='randomized'), swap interventions (the result at one position "
    "swapped with one at another, e.g. RandPair), or rankings that vary (several "
    "rankers, or one whose order changes between sessions), so that the same "
    "documents are shown at different positions."
)


def connected_positions(position, pair, n_positions, click=None):
    """Which positions the log connects to position 1, and how.

    Parameters
    ----------
    position : ndarray of int, shape (n_rows,)
        0-based position of each row, in ``0..n_positions-1``.
    pair : ndarray of int, shape (n_rows,)
        The row's (query, document) pair as a code ``0..n_pairs-1``.
    n_positions : int
    click : ndarray, shape (n_rows,), default=None
        When given, only pairs with a click somewhere connect positions (a
        pair never clicked has relevance 0 in the fit and says nothing about
        the positions).

    Returns
    -------
    connected : ndarray of bool, shape (n_positions,)
        True for the positions joined to position 1 (position 1 included).
    n_moving : int
        Pairs (with a click, if ``click`` is given) seen at two positions
        or more.
    """
    position = np.asarray(position, dtype=np.int64)
    pair = np.asarray(pair, dtype=np.int64)
    n_pairs = int(pair.max()) + 1 if pair.shape[0] else 0
    keep = np.ones(pair.shape[0], dtype=bool)
    if click is not None:
        clicked = np.bincount(pair, np.asarray(click, dtype=np.float64), n_pairs) > 0
        keep = clicked[pair]
    # a (pair, position) incidence matrix of the pairs kept (duplicate rows
    # summed), read as a bipartite graph of positions (nodes 0..K-1) and
    # pairs (K..K+P-1)
    incidence = sp.csr_matrix(
        (np.ones(int(keep.sum())), (pair[keep], position[keep])),
        shape=(n_pairs, n_positions))
    incidence.sum_duplicates()
    n_moving = int(np.count_nonzero(np.diff(incidence.indptr) > 1))
    graph = sp.bmat([[None, incidence.T], [incidence, None]], format="csr")
    _, label = connected_components(graph, directed=False)
    return label[:n_positions] == label[0], n_moving


def check_identifiable(position, pair, n_positions, method, click=None, shown=None):
    """Refuse a log whose pairs do not connect every position to position 1.

    For the methods that learn from (query, document) pairs shown at
    several positions (``"em"``, ``"conditional"``, ``"harvest"``): every
    position of ``1..n_positions`` must be joined to position 1 by a chain
    of pairs (with a click, when ``click`` is given) seen at two positions.
    Arguments as :func:`connected_positions` (0-based positions); the
    entries may be rows or cells (one per pair and position, with ``click``
    their clicks and ``shown`` their impressions; ``shown`` defaults to 1
    per entry, as for rows).

    Raises
    ------
    ValueError
        Naming the positions that are not connected, saying why (the logger
        never moves documents between them), and what to do: a
        randomisation experiment, swap interventions or varied rankings;
        ``max_position`` when positions 1..m are connected; and, when every
        pair appears in one row only, that ``query_id`` must be the query
        (the same for every session that answers it), not the session.
    """
    connected, n_moving = connected_positions(position, pair, n_positions, click)
    if connected.all():
        return
    missing = np.flatnonzero(~connected) + 1
    listed = ", ".join(str(k) for k in missing[:10]) + (
        ", ..." if missing.shape[0] > 10 else "")
    which = "Position" if missing.shape[0] == 1 else "Positions"
    verb = "is" if missing.shape[0] == 1 else "are"
    pairs = "(query, document) pair" + (" with a click" if click is not None else "")
    text = (f"method={method!r} cannot estimate the position bias of this log: "
            f"{which} {listed} {verb} not connected to position 1. ")
    seen = np.bincount(np.asarray(pair, dtype=np.int64), weights=shown)
    if seen.shape[0] and seen.max() <= 1:
        text += ("Every (query, document) pair appears in one row only: `query_id` "
                 "must be the query (the same id for every session that answers "
                 "it), not the session or displayed list, so that a document's "
                 "impressions across sessions are pooled. ")
    text += (f"No {pairs} was shown both there and at position 1 (or at a position "
             "connected to it), so the propensities there cannot be told apart "
             "from the documents' relevance: the logger never moves documents "
             f"between these positions ({n_moving} pairs seen at more than one "
             "position). ")
    text += _WHAT_TO_DO
    first_missing = int(missing[0])
    if first_missing > 2 and connected[:first_missing - 1].all():
        text += (f" Or pass max_position={first_missing - 1} to estimate the "
                 "connected positions only.")
    raise ValueError(text)


def check_resampling_units(n_queries, n_resamples, *, stacklevel=4):
    """Refuse a bootstrap over one query of a click log; warn when queries are few.

    :func:`~skrank._core._resample.check_resampled_queries` worded for a log.
    ``stacklevel`` is passed to ``warnings.warn``: the default 4 points at
    the user's call when a method's helper, called by the public function,
    calls this.
    """
    check_resampled_queries(
        n_queries, n_resamples, source="the log", stacklevel=stacklevel,
        advice="Pass `query_id` (the query each list answers), or n_resamples=0 "
               "for no interval.",
    )


def check_pair_observations(cell_item, cell_position, cell_clicks, cell_shown,
                            threshold=FEW_IMPRESSIONS):
    """Warn when em's evidence comes from pairs seen too few times.

    ``"em"`` gives every (query, document) pair its own ``gamma``. Only the
    pairs with a click seen at two positions or more inform ``theta``;
    when they are seen a handful of times each, their fitted ``gamma`` is
    noisy, and the maximum likelihood ``theta`` is biased (the incidental
    parameter problem of Neyman and Scott, 1948) whatever the number of
    pairs. ``cell_*`` describe one cell per (pair, position) seen (as in
    ``_position_bias._cells``). Returns the median impressions of those
    pairs (0 when there are none).
    """
    n_items = int(cell_item.max()) + 1
    positions_seen = np.bincount(cell_item, minlength=n_items)
    clicked = np.bincount(cell_item, cell_clicks, n_items) > 0
    shown = np.bincount(cell_item, cell_shown, n_items)
    informative = (positions_seen > 1) & clicked
    if not informative.any():
        return 0.0
    median = float(np.median(shown[informative]))
    if median < threshold:
        warnings.warn(
            "method='em' fits one relevance (gamma) per (query, document) pair, "
            "and the pairs seen at several positions were shown a median "
            f"{median:g} times each (fewer than {threshold}): their gammas are "
            "noisy and bias the propensities upwards (in simulations of a "
            "noisy logger by 50-100% with 3 impressions per pair, 4-14% with 12, "
            "under 2% from 50). "
            "method='conditional' fits the same model without this bias.",
            UserWarning, stacklevel=4)
    return median
