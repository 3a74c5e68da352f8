"""The F-beta of the set of rows each query returns: set_fbeta_score.

Ranking metrics score an order; this one scores a decision, such as the
rows a :class:`FAPCutoffClassifier` returns (its ``predict``).
"""

import numpy as np

from .._core._params import (
    AGGREGATE,
    choice,
    COMPAT,
    NO_RELEVANT,
    POSITIVE,
)
from .._core._aggregate import score_queries
from .._core._layout import segment_sum
from .._core._validation import check_numeric
from ._presets_apply import validate_with_preset
from ._cutoff import _fbeta_weights


def _set_fbeta_per_query(ranked, *, beta):
    """(1 + b^2) TP / (b^2 R + returned) per query, with returned rows scored > 0."""
    w, v = _fbeta_weights(beta)  # (1 + b^2) divided out: finite for any beta
    returned = (ranked.score > 0).astype(np.float64)
    true_positive = segment_sum(returned * ranked.is_relevant, ranked.query_start)
    size = segment_sum(returned, ranked.query_start)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = true_positive / (w * ranked.n_relevant + v * size)
    return np.where(true_positive > 0, values, 0.0)


@validate_with_preset({
    "beta": POSITIVE, "no_relevant": choice(*NO_RELEVANT),
    "aggregate": choice(*AGGREGATE), "compat": COMPAT,
}, stem="set_f1")
def set_fbeta_score(
    y_true,
    y_pred,
    *,
    beta=1.0,
    query_id=None,
    sample_weight=None,
    no_relevant="skip",
    aggregate="mean",
    compat=None,
):
    """F-beta of each query's returned set (``y_pred == 1``), averaged over queries.

    Parameters
    ----------
    {y_true}
    y_pred : array-like of the same shape as ``y_true``
        1 for a row the system returns for its query, 0 otherwise (the
        ``predict`` output of a :class:`FAPCutoffClassifier`).
    beta : float, default=1.0
        Weight of recall relative to precision (``beta=1``: F1).
    {query_id, sample_weight, no_relevant, aggregate, compat}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    fbeta_at_k_score : the same for the top k rows of a ranking.
    FAPCutoffClassifier : learns how many rows each query returns.

    Notes
    -----
    With TP the relevant rows returned, R the relevant rows and n the rows
    returned by the query, F-beta = (1 + beta^2) TP / (beta^2 R + n), and 0
    when TP = 0 (an empty set included). Unlike scikit-learn's
    ``fbeta_score`` on all rows at once, every query counts the same.
    Its scorer, ``get_scorer("set_f1")``, scores a model's ``predict`` and
    passes the query ids to it when ``predict`` takes them.

    Examples
    --------
    >>> from skrank import set_fbeta_score
    >>> y_true = [1, 1, 0, 0, 1, 0]
    >>> y_pred = [1, 0, 1, 0, 1, 1]
    >>> # query a: TP 1, R 2, returned 2 -> 2/4; query b: TP 1, R 1, returned 2 -> 2/3
    >>> set_fbeta_score(y_true, y_pred, query_id=["a", "a", "a", "b", "b", "b"])
    0.5833...
    """
    predicted = check_numeric("y_pred", y_pred)
    if not np.isin(predicted, (0.0, 1.0)).all():
        raise ValueError(
            "`y_pred` must be 0/1: 1 for a row the query returns, 0 otherwise."
        )
    return score_queries(
        _set_fbeta_per_query,
        y_true, predicted, query_id=query_id, sample_weight=sample_weight,
        ties="input", no_relevant=no_relevant, aggregate=aggregate, beta=beta,
    )
