"""simulate_clicks: click logs drawn from a click model over labelled rankings."""

from numbers import Real

import numpy as np
from sklearn.utils import Bunch

from .._core._factorize import factorize
from .._core._optional import import_optional
from .._core._params import COUNT, Rule, choice, validate_params
from .._core._validation import check_relevance

MODELS = ("pbm", "cascade")


def _check_noise(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not (
        0 <= value <= 1
    ):
        raise ValueError(f"`{name}` must be a number in [0, 1], got {value!r}.")
    return float(value)


NOISE = Rule(_check_noise, (-0.1, 1.5, float("nan"), "0.1", True))


@validate_params({"model": choice(*MODELS), "noise": NOISE, "n_sessions": COUNT})
def simulate_clicks(
    y_true,
    logger_score,
    *,
    query_id,
    model="pbm",
    propensity=None,
    noise=0.1,
    n_sessions=1,
    random_state=None,
):
    """Simulate click logs of a ranker over labelled data (for examples and tests).

    Each query's rows are ranked by ``logger_score`` (descending; ties in
    input order) and shown, whole, in ``n_sessions`` sessions; a simulated
    user clicks following a click model. The simulation knows the truth
    (which positions were examined, how attractive each document is), so
    estimates made from the clicks can be checked against it.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Relevance labels (non-negative), one per row.
    logger_score : array-like of shape (n_rows,)
        The logging ranker's score of each row: it decides the positions.
    query_id : array-like of shape (n_rows,)
        The query of each row.
    model : {"pbm", "cascade"}, default="pbm"
        * ``"pbm"``: the position-based model; a row at position ``k`` is
          examined with probability ``propensity(k)``, independently, and
          clicked when examined with probability ``gamma`` (below).
        * ``"cascade"``: the user reads from the top, clicks the first
          attractive document (probability ``gamma``) and stops;
          ``propensity`` is not used.
    propensity : callable, array-like or None, default=None
        Examination probability of each position for ``"pbm"``: a
        callable of an array of 1-based positions, or an array whose entry
        ``k - 1`` is position ``k``'s (it must cover the longest list). By
        default ``1 / position``.
    noise : float, default=0.1
        Click probability of an examined non-relevant row. An examined row
        of relevance ``y`` is clicked with probability
        ``gamma = noise + (1 - noise) * (2**y - 1) / (2**y_max - 1)``, where
        ``y_max`` is the largest label (so with 0/1 labels a relevant row
        is always clicked when examined).
    n_sessions : int, default=1
        Sessions per query; each shows the query's whole ranked list.
    random_state : int, numpy Generator or None, default=None
        Seeds the simulated users' draws (examination, attractiveness):
        an int gives the same log on every call; a
        ``numpy.random.Generator`` is used as it is (and advanced); None
        draws fresh entropy, a different log each call. Passed to
        ``numpy.random.default_rng``.

    Returns
    -------
    log : sklearn.utils.Bunch
        Arrays of one entry per displayed row, ordered by session and
        position: ``session_id`` (one per query and session), ``query_id``,
        ``row`` (index of the input row shown), ``position`` (1-based),
        ``click`` (0/1), and the truth: ``examination`` (the probability
        that the position was examined, under ``"pbm"``; for ``"cascade"``
        1 for the rows the user read) and ``attractiveness`` (``gamma``).
        ``log.to_frame()`` gives a pandas DataFrame of them.

    Notes
    -----
    This is a simulator: real users are neither position-based nor
    cascade models, and the examples and tests use it because the truth
    is known. Under ``"pbm"``, ``P(click) = propensity(position) * gamma``.

    Examples
    --------
    >>> from skrank.datasets import simulate_clicks
    >>> log = simulate_clicks([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6],
    ...                       query_id=[1, 1, 1, 1], noise=0.0, random_state=0,
    ...                       propensity=[1.0, 1.0, 1.0, 1.0])
    >>> log.position, log.click                  # everything examined
    (array([1, 2, 3, 4]), array([1, 0, 0, 1]))
    """
    relevance = check_relevance(y_true)
    score = np.asarray(logger_score, dtype=np.float64)
    if relevance.ndim != 1 or score.shape != relevance.shape:
        raise ValueError(
            "`y_true` and `logger_score` must be 1-D and of the same length, got "
            f"shapes {relevance.shape} and {score.shape}."
        )
    if not np.isfinite(score).all():
        raise ValueError("`logger_score` must be finite.")
    keys, labels = factorize(query_id, relevance.shape[0])
    distinct, query = np.unique(keys, return_inverse=True)
    query = query.reshape(-1)
    ids = distinct if labels is None else labels[distinct]
    rng = np.random.default_rng(random_state)

    order = np.lexsort((-score, query))
    sorted_query = query[order]
    starts = np.flatnonzero(np.r_[True, sorted_query[1:] != sorted_query[:-1]])
    sizes = np.diff(np.r_[starts, order.shape[0]])
    position = np.arange(order.shape[0]) - np.repeat(starts, sizes) + 1

    top = relevance.max()
    scale = np.exp2(top) - 1.0
    gain = (np.exp2(relevance) - 1.0) / scale if scale > 0 else np.zeros_like(relevance)
    gamma = noise + (1.0 - noise) * gain

    n_queries = starts.shape[0]
    row = np.tile(order, n_sessions)
    position = np.tile(position, n_sessions)
    session = (np.repeat(np.arange(n_sessions), order.shape[0]) * n_queries
               + np.tile(sorted_query, n_sessions))
    attractive = rng.random(row.shape[0]) < gamma[row]
    if model == "pbm":
        theta = _examination(propensity, position)
        examined = rng.random(row.shape[0]) < theta
        click = (examined & attractive).astype(np.int64)
        examination = theta
    else:
        # the first attractive row of each session is clicked; the user read
        # every row down to it (or all rows without a click)
        session_start = np.flatnonzero(np.r_[True, session[1:] != session[:-1]])
        lengths = np.diff(np.r_[session_start, row.shape[0]])
        running = np.cumsum(attractive)
        before = np.repeat(running[session_start] - attractive[session_start], lengths)
        seen_before = running - attractive - before  # attractive rows above this one
        click = (attractive & (seen_before == 0)).astype(np.int64)
        examination = (seen_before == 0).astype(np.float64)
    log = ClickLog(
        session_id=session,
        query_id=ids[np.tile(sorted_query, n_sessions)],
        row=row,
        position=position,
        click=click,
        examination=examination,
        attractiveness=gamma[row],
    )
    return log


class ClickLog(Bunch):
    """A simulated click log: arrays by name (also as attributes)."""

    def to_frame(self):
        """The arrays as a pandas DataFrame (needs pandas)."""
        pd = import_optional("pandas", "simulate_clicks(...).to_frame()")
        return pd.DataFrame({name: self[name] for name in _COLUMNS})


_COLUMNS = ("session_id", "query_id", "row", "position", "click", "examination",
            "attractiveness")


def _examination(propensity, position):
    """The examination probability of each position (1/position by default)."""
    if propensity is None:
        return 1.0 / position
    if callable(propensity):
        values = np.asarray(propensity(position), dtype=np.float64)
    else:
        table = np.asarray(propensity, dtype=np.float64)
        if table.ndim != 1:
            raise ValueError("`propensity` must be 1-D: entry k-1 is position k's.")
        if table.shape[0] < position.max():
            raise ValueError(
                f"`propensity` covers positions 1..{table.shape[0]}, but a list has "
                f"{int(position.max())} rows."
            )
        values = table[position - 1]
    bad = ~((values >= 0) & (values <= 1))
    if bad.any():
        raise ValueError(
            "`propensity` must give probabilities in [0, 1], got "
            f"{values[bad][0]!r} at position {int(position[bad][0])}."
        )
    return values
