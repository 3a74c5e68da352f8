"""Set metrics at a cutoff: hits@k, P@k, R@k, F-beta@k and R-precision (the cutoff R).

Each is linear in the expected number of relevant rows above the cutoff, so
spreading a tie block's relevant fraction over its positions
gives the exact expectation over the orders of tied rows.
"""

import numpy as np

from .._core._params import (
    choice,
    CUTOFF_OPTIONS,
    POSITIVE,
    PRECISION_NORMALIZE,
    RANKING_OPTIONS,
)
from .._core._aggregate import score_queries
from .._core._layout import segment_sum
from .._core._ties import expected_hits_at_k
from ._presets_apply import validate_with_preset


def _cutoff_length(ranked, k):
    """The k each query is divided by: k, or the rows it retrieved when k is None."""
    return ranked.n_retrieved if k is None else np.full(ranked.n_queries, float(k))


def _hits_per_query(ranked, *, k):
    return expected_hits_at_k(ranked, k)


def _precision_at_k_per_query(ranked, *, k, normalize="k"):
    """Expected hits@k over k, or over min(k, n) (``normalize="min"``)."""
    if normalize == "min":  # n: every row of the query, retrieved or not
        length = ranked.query_size if k is None else np.minimum(k, ranked.query_size)
    else:
        length = _cutoff_length(ranked, k)
    return expected_hits_at_k(ranked, k) / length


def _recall_at_k_per_query(ranked, *, k):
    with np.errstate(invalid="ignore", divide="ignore"):
        return expected_hits_at_k(ranked, k) / ranked.n_relevant


def _fbeta_weights(beta):
    """``(w, v) = (b^2, 1) / (1 + b^2)``, so that F-beta = TP / (w R + v n).

    Dividing (1 + b^2) TP / (b^2 R + n) through by 1 + b^2 keeps every
    factor in [0, 1]: no overflow for a huge beta (1e155 squares to inf),
    and the limits come out right (recall as beta grows, precision as it
    shrinks).
    """
    if beta <= 1.0:
        beta2 = beta * beta
        return beta2 / (1.0 + beta2), 1.0 / (1.0 + beta2)
    inverse2 = (1.0 / beta) ** 2
    return 1.0 / (1.0 + inverse2), inverse2 / (1.0 + inverse2)


def _fbeta_at_k_per_query(ranked, *, k, beta):
    """Expected F-beta@k = (1 + b^2) hits@k / (b^2 R + k), which is linear in hits@k."""
    w, v = _fbeta_weights(beta)
    with np.errstate(invalid="ignore", divide="ignore"):
        return expected_hits_at_k(ranked, k) / (
            w * ranked.n_relevant + v * _cutoff_length(ranked, k)
        )


def _r_precision_per_query(ranked):
    """Expected P@R with R the query's own number of relevant rows."""
    inside = ranked.rank <= ranked.per_row(ranked.n_relevant)
    hits = segment_sum(np.where(inside, ranked.tie_share, 0.0), ranked.query_start)
    with np.errstate(invalid="ignore", divide="ignore"):
        return hits / ranked.n_relevant


@validate_with_preset(CUTOFF_OPTIONS, stem="hits")
def hits_score(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Hits at k: the number of relevant rows retrieved in the top k.

    Parameters
    ----------
    {y_true, y_score, k, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    precision_at_k_score, recall_at_k_score, hit_rate_score

    Notes
    -----
    hits@k counts the relevant rows among the top k of a query: a count,
    not a fraction, so it is not bounded by 1 (P@k = hits@k / k, R@k =
    hits@k / R). It is ranx's ``hits`` (``hits@k``); ranx scores a query
    without relevant row 0, which ``no_relevant="zero"`` reproduces, where
    skrank's default leaves it out of the mean. A query with fewer than k
    rows counts the hits it has; rows scored ``-inf`` (judged, not
    retrieved) are never hits. Not to be confused with
    :func:`hit_rate_score`, which is 1 when hits@k > 0.

    Examples
    --------
    >>> from skrank import hits_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> hits_score(relevance, scores, k=4)             # ranks 1, 3 and 4
    3.0
    >>> hits_score([1, 0, 0, 1], [4, 3, 2, 1], query_id=[1, 1, 2, 2], k=1)
    0.5
    """
    return score_queries(
        _hits_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
    )


@validate_with_preset({"normalize": choice(*PRECISION_NORMALIZE), **CUTOFF_OPTIONS},
                      stem="precision")
def precision_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
    normalize="k",
):
    """Precision at k (P@k): the fraction of the top k rows that are relevant.

    Parameters
    ----------
    {y_true, y_score, k, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}
    normalize : {"k", "min"}, default="k"
        The denominator: ``k``, or ``min(k, n)`` with ``n`` the query's rows
        (XGBoost's ``pre@k``, CatBoost's ``PrecisionAt``, torchmetrics'
        ``adaptive_k=True``). With ``k=None``, ``"min"`` divides by all the
        query's rows, those scored ``-inf`` (or not retrieved under
        ``retrieved="positive"``) included, as torchmetrics' ``top_k=None``.

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    recall_at_k_score, fbeta_at_k_score, r_precision_score

    Notes
    -----
    P@k = hits@k / k. Like trec_eval's ``P_k``, a query with fewer than k
    rows is still divided by k (its missing rows count as non-relevant);
    with ``k=None`` each query is divided by its own length.

    Examples
    --------
    >>> from skrank import precision_at_k_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> precision_at_k_score(relevance, scores, k=4)   # 3 / 4
    0.75
    >>> precision_at_k_score([1, 0], [1, 1], k=1)      # the tie: 1/2 expected
    0.5
    """
    return score_queries(
        _precision_at_k_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
        normalize=normalize,
    )


@validate_with_preset(CUTOFF_OPTIONS, stem="recall")
def recall_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Recall at k (R@k): the fraction of the relevant rows found in the top k.

    Parameters
    ----------
    {y_true, y_score, k, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    precision_at_k_score, fbeta_at_k_score

    Notes
    -----
    R@k = hits@k / R, where R is the query's number of relevant rows
    (trec_eval's ``recall_k``).

    Examples
    --------
    >>> from skrank import recall_at_k_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> recall_at_k_score(relevance, scores, k=4)      # 3 / 4
    0.75
    """
    return score_queries(
        _recall_at_k_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
    )


@validate_with_preset({"beta": POSITIVE, **CUTOFF_OPTIONS}, stem="f1")
def fbeta_at_k_score(
    y_true,
    y_score,
    *,
    k=None,
    beta=1.0,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """F-beta at k: the weighted harmonic mean of P@k and R@k.

    Parameters
    ----------
    {y_true, y_score, k}
    beta : float, default=1.0
        Weight of recall relative to precision (``beta=1``: F1).
    {query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    precision_at_k_score, recall_at_k_score, fap_score

    Notes
    -----
    .. math::

        F_\\beta@k = \\frac{(1 + \\beta^2)\\, P@k\\, R@k}{\\beta^2 P@k + R@k}
                  = \\frac{(1 + \\beta^2)\\, \\mathrm{hits@k}}{\\beta^2 R + k}

    and 0 when hits@k = 0. P@k divides by k as in
    :func:`precision_at_k_score`. The right-hand form is linear in hits@k,
    so the tie average is exact.

    Examples
    --------
    >>> from skrank import fbeta_at_k_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> fbeta_at_k_score(relevance, scores, k=3)       # 2 * 2 / (4 + 3)
    0.5714...
    """
    return score_queries(
        _fbeta_at_k_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k, beta=beta,
    )


@validate_with_preset(RANKING_OPTIONS, stem="r_precision")
def r_precision_score(
    y_true,
    y_score,
    *,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """R-precision: the precision at R, the query's number of relevant rows.

    Parameters
    ----------
    {y_true, y_score, query_id, sample_weight, ties, no_relevant, aggregate, compat}
    {score_dtype, retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    precision_at_k_score

    Notes
    -----
    P@R = hits@R / R (trec_eval's ``Rprec``); it equals R@R.

    Examples
    --------
    >>> from skrank import r_precision_score
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> r_precision_score(relevance, scores)           # 3 of the top 4
    0.75
    """
    return score_queries(
        _r_precision_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate,
    )


