"""Cascade metrics: expected reciprocal rank (ERR) and PFound.

A user reads down the list and stops at a row with the probability of its
relevance. Both metrics are sums over positions of a weight times the
probability of stopping there; under ties they are exact expectations over
the orders of tied rows, from the mean of the elementary symmetric
polynomials of each tie block (the probability that the first t rows of a
shuffled block all let the user read on).
"""

import numpy as np

from .._core._aggregate import score_queries
from .._core._layout import segment_cumsum, segment_sum
from .._core._params import (
    CUTOFF_OPTIONS,
    FRACTION_TO_ONE,
    MAX_GRADE,
)
from ._presets_apply import validate_with_preset


def relevance_probability(relevance, max_grade=None):
    """The probability that a row of each grade stops the user.

    ``max_grade=None``: grades within [0, 1] are the probabilities
    themselves (0/1 labels: a relevant row always stops the user; CatBoost
    reads targets so); when some grade exceeds 1, ``(2**g - 1) / 2**g_max``
    with ``g_max`` the largest grade. A number: ``(2**g - 1) / 2**max_grade``
    (Chapelle et al., 2009), grades above it refused.
    """
    top = float(relevance.max()) if relevance.shape[0] else 0.0
    if max_grade is None:
        if top <= 1.0:
            return relevance.astype(np.float64)
        max_grade = top
    elif top > max_grade:
        raise ValueError(
            f"`y_true` has a grade of {top:g}, above max_grade={max_grade:g}; "
            "raise max_grade, or leave it None (the largest grade)."
        )
    # (2**g - 1) / 2**g_max without overflow: 2**(g - g_max) - 2**(-g_max)
    return np.exp2(relevance - max_grade) - np.exp2(-max_grade)


def _expected_survival(ranked, stop):
    """E[prod over the first i rows of (1 - stop)] at each row i, per query.

    With singleton blocks it is a running product (by logs; a zero factor
    ends it). In a tie block of m rows shuffled uniformly, after t of them
    the expectation is the product above the block times the mean of the
    degree-t elementary symmetric polynomial of the block's factors,
    computed by a stable recursion of convex combinations (O(m^2) per
    block).
    """
    go_on = 1.0 - stop
    zero = go_on <= 0.0
    logs = np.log(np.where(zero, 1.0, go_on))
    running = segment_cumsum(logs, ranked.query_start)
    zeros = segment_cumsum(zero.astype(np.intp), ranked.query_start)
    survival = np.where(zeros > 0, 0.0, np.exp(running))
    if not ranked.has_ties:
        return survival
    size = ranked.block_size
    for block in np.flatnonzero(size > 1):
        start, m = ranked.block_start[block], int(size[block])
        before = 1.0 if ranked.rank[start] == 1 else survival[start - 1]
        factors = go_on[start:start + m]
        # means[t] = e_t(first n factors) / C(n, t), updated factor by factor
        means = np.zeros(m + 1)
        means[0] = 1.0
        for n, a in enumerate(factors, start=1):
            t = np.arange(1, n + 1)
            means[1:n + 1] = ((n - t) * means[1:n + 1] + t * a * means[0:n]) / n
        survival[start:start + m] = before * means[1:]
    return survival


def _cascade_per_query(ranked, k, weight, stop):
    """Sum over positions i <= k of weight(i) * P(the user stops at i)."""
    survival = _expected_survival(ranked, stop)
    previous = np.empty_like(survival)
    previous[1:] = survival[:-1]
    previous[ranked.query_start] = 1.0
    terms = weight * (previous - survival)
    if k is not None:
        terms = np.where(ranked.rank <= k, terms, 0.0)
    return segment_sum(terms, ranked.query_start)


def _err_per_query(ranked, *, k, max_grade=None):
    stop = relevance_probability(ranked.ranked_relevance, max_grade)
    return _cascade_per_query(ranked, k, 1.0 / ranked.rank, stop)


def _pfound_per_query(ranked, *, k, max_grade=None, decay=0.85):
    stop = relevance_probability(ranked.ranked_relevance, max_grade)
    # the user reads on with probability decay after each row: weight decay**(i-1)
    weight = np.exp((ranked.rank - 1.0) * np.log(decay))
    return _cascade_per_query(ranked, k, weight, stop)


@validate_with_preset({"max_grade": MAX_GRADE, **CUTOFF_OPTIONS}, stem="err")
def err_score(
    y_true,
    y_score,
    *,
    k=None,
    max_grade=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Expected reciprocal rank (ERR@k), averaged over queries.

    Parameters
    ----------
    {y_true, y_score, k}
    max_grade : float, default=None
        How grades become the probability that a row stops the user. None:
        grades within [0, 1] are the probabilities themselves (0/1 labels:
        a relevant row always stops; CatBoost's reading of its targets);
        when some grade exceeds 1, ``(2**g - 1) / 2**g_max`` with ``g_max``
        the largest grade. A number: ``(2**g - 1) / 2**max_grade``
        (Chapelle et al., 2009).
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
    pfound_score : the same cascade with a probability of reading on.
    reciprocal_rank_score : ERR on 0/1 relevance (a relevant row always stops).

    Notes
    -----
    .. math::

        \\mathrm{ERR@k} = \\sum_{i=1}^{k} \\frac{1}{i} R_i \\prod_{j<i} (1 - R_j)

    with ``R_i`` the probability of the row at rank i (``max_grade``). On
    0/1 relevance it equals the reciprocal rank. It is CatBoost's ``ERR``
    (``compat="catboost"``, which breaks ties pessimistically). With
    ``ties="average"`` the value is the exact expectation over the orders
    of tied rows (one O(m^2) recursion per tie block of m rows).

    References
    ----------
    .. [1] O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected
       reciprocal rank for graded relevance. CIKM 2009.

    Examples
    --------
    >>> from skrank import err_score
    >>> err_score([0.5, 0, 1], [3, 2, 1])          # 0.5 + 0.5 * 1 / 3
    0.6666...
    >>> err_score([0, 1, 2], [3, 2, 1], max_grade=2)  # 1/4 * 1/2 + 3/4 * 3/4 * 1/3
    0.3125
    """
    return score_queries(
        _err_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
        max_grade=max_grade,
    )


@validate_with_preset({
    "max_grade": MAX_GRADE, "decay": FRACTION_TO_ONE, **CUTOFF_OPTIONS,
}, stem="pfound")
def pfound_score(
    y_true,
    y_score,
    *,
    k=None,
    decay=0.85,
    max_grade=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """PFound@k: the probability that the user finds a relevant row, averaged over queries.

    Parameters
    ----------
    {y_true, y_score, k}
    decay : float, default=0.85
        The probability that the user reads on past a row that did not
        stop them (CatBoost's ``decay``).
    max_grade : float, default=None
        How grades become the probability that a row stops the user. None:
        grades within [0, 1] are the probabilities themselves (0/1 labels:
        a relevant row always stops; CatBoost's reading of its targets);
        when some grade exceeds 1, ``(2**g - 1) / 2**g_max`` with ``g_max``
        the largest grade. A number: ``(2**g - 1) / 2**max_grade``
        (Chapelle et al., 2009).
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
    err_score : the same cascade weighted by 1/rank.

    Notes
    -----
    .. math::

        \\mathrm{PFound@k} = \\sum_{i=1}^{k} \\mathrm{decay}^{i-1} R_i
        \\prod_{j<i} (1 - R_j)

    with ``R_i`` the probability of the row at rank i (``max_grade``): the
    user looks at the first row, and at each next one with probability
    ``decay`` if the previous did not stop them (Yandex's pFound, as
    CatBoost's ``PFound``; ``compat="catboost"``). With ``ties="average"``
    the value is the exact expectation over the orders of tied rows.

    Examples
    --------
    >>> from skrank import pfound_score
    >>> pfound_score([0.5, 0, 1], [3, 2, 1])       # 0.5 + 0.5 * 0.85**2
    0.86125
    """
    return score_queries(
        _pfound_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k,
        max_grade=max_grade, decay=decay,
    )
