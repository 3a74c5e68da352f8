"""F-measured Average Precision: fap_score and fap_curve.

FAP@k is the F-beta-style harmonic mean of F_beta@k and AP@k: AP rewards
putting the relevant rows first, F rewards stopping at the right place, so
FAP@k evaluated at every k peaks at the best cutoff. Both parts come from
the kernels of :mod:`skrank._precision` and :mod:`skrank._topk`.
"""

import numpy as np

from .._core._aggregate import (
    apply_no_relevant,
    check_aggregate_options,
    score_queries,
    weighted_mean,
)
from .._core._layout import rank_queries, segment_cumsum
from .._core._validation import check_bool, check_positive_int, check_positive_real
from ._average_precision import _average_precision_per_query, _average_precision_terms
from ._cutoff import _fbeta_at_k_per_query

def _combine(f, ap, beta):
    """(1 + b^2) F AP / (b^2 F + AP), and 0 where F and AP are both 0."""
    beta2 = beta * beta
    denominator = beta2 * f
    denominator += ap
    out = f * ap
    out *= 1.0 + beta2
    # F and AP are non-negative, so a zero denominator has a zero numerator
    np.divide(out, denominator, out=out, where=denominator > 0)
    return out


def _fap_per_query(ranked, *, k, beta):
    f = _fbeta_at_k_per_query(ranked, k=k, beta=beta)
    ap = _average_precision_per_query(ranked, k=k, normalize="relevant")
    return _combine(f, ap, beta)


def _parts_at_each_rank(ranked, beta):
    """Expected F-beta@k, AP@k and FAP@k of each query at k = each row's rank.

    Running sums per query of the tie-averaged hits and AP terms; nan for
    the F and AP of a query with no relevant row.
    """
    beta2 = beta * beta
    relevant = ranked.per_row(ranked.n_relevant)
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = segment_cumsum(
            _average_precision_terms(ranked), ranked.query_start, ranked.query
        )
        ap /= relevant
        f = segment_cumsum(ranked.tie_share, ranked.query_start, ranked.query)
        f *= 1.0 + beta2
        relevant *= beta2
        relevant += ranked.rank
        f /= relevant  # (1 + b^2) hits / (b^2 R + k)
    del relevant
    return f, ap, _combine(f, ap, beta)


def _tail_sums(size, alpha, gamma, max_k):
    """``out[k-1]`` = sum of alpha / (gamma + k) over the queries with size < k.

    One vector operation per cutoff k over the queries shorter than k. When
    that work dwarfs the number of queries, queries sharing (size, gamma)
    are merged first (their alphas add up), which shrinks the work to the
    number of distinct pairs, typically small for short queries.
    """
    out = np.zeros(max_k)
    order = np.argsort(size, kind="stable")
    size, alpha, gamma = size[order], alpha[order], gamma[order]
    shorter = np.searchsorted(size, np.arange(1, max_k + 1), side="left")
    if shorter.sum() > 4 * size.shape[0]:
        order = np.lexsort((gamma, size))
        size, alpha, gamma = size[order], alpha[order], gamma[order]
        new = np.ones(size.shape[0], dtype=bool)
        new[1:] = (size[1:] != size[:-1]) | (gamma[1:] != gamma[:-1])
        starts = np.flatnonzero(new)
        size, gamma, alpha = size[starts], gamma[starts], np.add.reduceat(alpha, starts)
        shorter = np.searchsorted(size, np.arange(1, max_k + 1), side="left")
    for k in range(int(size[0]) + 1, max_k + 1):
        upto = shorter[k - 1]
        out[k - 1] = np.dot(alpha[:upto], 1.0 / (gamma[:upto] + k))
    return out


def _fap_curve_parts(ranked, *, max_k, beta, no_relevant):
    """Weighted mean F@k, AP@k and FAP@k over queries for k = 1..max_k.

    Returns ``(f, ap, fap)`` arrays of length ``max_k`` (nan without any query
    to average). Rows at rank k give each query's value at k directly; a
    query shorter than k keeps its final AP while its F@k keeps falling
    (P@k divides by k): a closed form in k, summed over the short queries
    for each k (a loop over cutoffs, not over queries).
    """
    beta2 = beta * beta
    relevant = ranked.n_relevant
    weight = ranked.query_weight
    undefined = relevant == 0
    apply_no_relevant(np.zeros(ranked.n_queries), undefined, ranked, no_relevant)

    scored = ~undefined
    total_weight = weight[scored].sum()
    constant = 0.0
    if no_relevant != "skip":
        total_weight += weight[undefined].sum()
        if no_relevant == "one":
            constant = weight[undefined].sum()
    if not total_weight > 0:
        weighted_mean(np.array([np.nan]), np.ones(1))  # the shared warning
        nan = np.full(max_k, np.nan)
        return nan, nan.copy(), nan.copy()

    # values at every position (k = rank) of the scored queries
    f_row, ap_row, fap_row = _parts_at_each_rank(ranked, beta)
    # unscored queries weigh 0 here (their nan values become 0 first);
    # bincount by rank, whose slot k is the sum of the values at k
    row_weight = ranked.per_row(np.where(scored, weight, 0.0))
    sums = []
    for values in (f_row, ap_row, fap_row):
        weighted = np.nan_to_num(values, copy=True, nan=0.0)
        weighted *= row_weight
        by_rank = np.bincount(ranked.rank, weights=weighted, minlength=max_k + 1)
        sums.append(by_rank[1 : max_k + 1])
        del weighted
    del row_weight

    # queries shorter than k: final AP, F@k = (1 + b^2) R / (b^2 R + k)
    size = ranked.query_size
    short = np.flatnonzero(scored & (size < max_k))
    if short.shape[0]:
        last = ranked.query_start[short] + size[short] - 1
        final_ap = ap_row[last]
        w_short = weight[short]
        # AP is constant past the end: add it from k = size + 1 on
        sums[1] += np.cumsum(
            np.bincount(size[short], weights=w_short * final_ap, minlength=max_k + 1)
        )[:max_k]
        # Past its end a query's F@k and FAP@k are alpha / (gamma + k):
        #   F   = c R / (b^2 R + k)
        #   FAP = c^2 R / (b^2 R (c + A) / A + k)      (c = 1 + b^2, A > 0)
        # so each k needs one division per query shorter than k.
        c = 1.0 + beta2
        r_short, w_r = relevant[short], w_short * relevant[short]
        sums[0] += _tail_sums(size[short], c * w_r, beta2 * r_short, max_k)
        sums[2] += _tail_sums(
            size[short], c * c * w_r, beta2 * r_short * (c + final_ap) / final_ap, max_k
        )

    f, ap, fap = ((s + constant) / total_weight for s in sums)
    return f, ap, fap


def fap_score(
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
):
    """F-measured Average Precision (FAP@k): AP@k and F-beta@k in one number.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items)
        Relevance of each row: binary (0/1) or graded (non-negative). A row
        is relevant when ``y_true > 0``.
    y_score : array-like of the same shape as ``y_true``
        Score of each row; within a query, higher scores rank first.
    k : int, default=None
        Cutoff: only the top ``k`` rows of each query count. None means the
        whole list of each query.
    beta : float, default=1.0
        Weight of the F part relative to the AP part, as in F-beta.
    query_id : array-like of shape (n_rows,), default=None
        Query of each row: ints, strings or any hashable ids, rows in any
        order; a list, numpy array, or pandas or polars Series. None scores
        all rows as ONE ranked list (1-D input, however many rows), or each
        row as one ranking (2-D input, as in scikit-learn's ``ndcg_score``).
    sample_weight : array-like, default=None
        One weight per row (1-D input) or per ranking (2-D input). A query
        weighs the mean of its rows' weights in the mean over queries.
    ties : {"average", "input"}, default="average"
        ``"average"``: the exact expected value over all orders of rows with
        equal scores. ``"input"``: rows with equal scores keep their input
        order.
    no_relevant : {"skip", "zero", "one", "error"}, default="skip"
        What a query with no relevant row scores: left out of the mean, 0,
        1, or a ``ValueError``.
    aggregate : {"mean", None}, default="mean"
        ``"mean"``: the weighted mean over queries, a float. None: a
        :class:`QueryValues` with one value per query.

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    fap_curve : mean FAP@k for every k, whose peak is the best cutoff.
    average_precision_score, fbeta_at_k_score : the two parts.

    Notes
    -----
    .. math::

        \\mathrm{FAP@k} = \\frac{(1 + \\beta^2)\\, F_\\beta@k\\, \\mathrm{AP@k}}
                              {\\beta^2 F_\\beta@k + \\mathrm{AP@k}}

    and 0 when both parts are 0. AP@k is divided by R (the
    ``normalize="relevant"`` of :func:`average_precision_score`) and F@k
    is that of :func:`fbeta_at_k_score`. AP alone scores a perfect ranking
    1 however long the list; FAP also asks the list to stop after the
    relevant rows: ``1, 1, 1`` scores 1 but ``1, 1, 1, 0, 0`` scores
    2 * 0.75 * 1 / 1.75. The denominator uses beta squared, as F-beta does,
    so FAP stays in [0, 1] for every beta. With ``ties="average"`` FAP
    combines the tie-averaged (expected) F and AP parts.

    Examples
    --------
    >>> from skrank import fap_score
    >>> fap_score([1, 1, 1, 0, 0], [5, 4, 3, 2, 1])    # F = 0.75, AP = 1
    0.8571...
    >>> fap_score([1, 1, 1, 0, 0], [5, 4, 3, 2, 1], k=3)
    1.0
    """
    k = check_positive_int("k", k)
    beta = check_positive_real("beta", beta)
    return score_queries(
        _fap_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k, beta=beta,
    )


def fap_curve(
    y_true,
    y_score,
    *,
    max_k=None,
    beta=1.0,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    return_parts=False,
):
    """Mean FAP@k for every cutoff k = 1..max_k, in one pass.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items)
        Relevance of each row: binary (0/1) or graded (non-negative). A row
        is relevant when ``y_true > 0``.
    y_score : array-like of the same shape as ``y_true``
        Score of each row; within a query, higher scores rank first.
    max_k : int, default=None
        Largest cutoff of the curve; None means the length of the longest
        query.
    beta : float, default=1.0
        Weight of the F part relative to the AP part, as in F-beta.
    query_id : array-like of shape (n_rows,), default=None
        Query of each row: ints, strings or any hashable ids, rows in any
        order; a list, numpy array, or pandas or polars Series. None scores
        all rows as ONE ranked list (1-D input, however many rows), or each
        row as one ranking (2-D input, as in scikit-learn's ``ndcg_score``).
    sample_weight : array-like, default=None
        One weight per row (1-D input) or per ranking (2-D input). A query
        weighs the mean of its rows' weights in the mean over queries.
    ties : {"average", "input"}, default="average"
        ``"average"``: the exact expected value over all orders of rows with
        equal scores. ``"input"``: rows with equal scores keep their input
        order.
    no_relevant : {"skip", "zero", "one", "error"}, default="skip"
        What a query with no relevant row scores: left out of the mean, 0,
        1, or a ``ValueError``.
    return_parts : bool, default=False
        Also return the mean F-beta@k and AP@k curves the FAP curve is made
        of.

    Returns
    -------
    k : ndarray of shape (max_k,)
        The cutoffs 1, 2, ..., max_k.
    fap : ndarray of shape (max_k,)
        ``fap[i]`` equals ``fap_score(..., k=k[i])``.
    f : ndarray of shape (max_k,)
        Only with ``return_parts=True``: ``fbeta_at_k_score(..., k=k[i])``.
    ap : ndarray of shape (max_k,)
        Only with ``return_parts=True``: ``average_precision_score(...,
        k=k[i])``.

    See Also
    --------
    fap_score : FAP at one cutoff.
    FAPCutoffClassifier : learns the cutoff that maximises this curve.

    Notes
    -----
    The whole curve costs one sort plus running sums per query; a query
    shorter than k keeps its final AP while its F@k keeps falling (P@k
    divides by k), which adds a term for each (short query, k) pair.

    Examples
    --------
    >>> from skrank import fap_curve
    >>> k, fap = fap_curve([1, 1, 0, 0], [4, 3, 2, 1])
    >>> k
    array([1, 2, 3, 4])
    >>> fap.round(4)                     # the peak: cut after the 2 relevant rows
    array([0.5714, 1.    , 0.8889, 0.8   ])
    """
    max_k = check_positive_int("max_k", max_k)
    beta = check_positive_real("beta", beta)
    check_bool("return_parts", return_parts)
    check_aggregate_options(no_relevant, "mean")
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    if max_k is None:
        max_k = int(ranked.query_size.max())
    f, ap, fap = _fap_curve_parts(ranked, max_k=max_k, beta=beta, no_relevant=no_relevant)
    k = np.arange(1, max_k + 1)
    if return_parts:
        return k, fap, f, ap
    return k, fap
