"""F-measured Average Precision: fap_score and fap_curve.

FAP@k is the F-beta-style harmonic mean of F_beta@k and AP@k: AP rewards
putting the relevant rows first, F rewards stopping at the right place, so
FAP@k evaluated at every k peaks at the best cutoff. Both parts come from
the kernels of :mod:`skrank._precision` and :mod:`skrank._topk`.
"""

import numpy as np

from .._core._params import (
    choice,
    CONVENTION_OPTIONS,
    CUTOFF,
    CUTOFF_OPTIONS,
    FLAG,
    NO_RELEVANT,
    POSITIVE,
    TIES,
)
from .._core._aggregate import (
    apply_no_relevant,
    check_aggregate_options,
    score_queries,
    vector_dot,
    weighted_mean,
)
from .._core._layout import rank_queries, segment_cumsum
from .._core._validation import (
    LARGEST_INT,
)
from ._presets_apply import validate_with_preset
from ._average_precision import _average_precision_per_query, _average_precision_terms
from ._cutoff import _fbeta_at_k_per_query, _fbeta_weights

def _combine(f, ap, beta):
    """(1 + b^2) F AP / (b^2 F + AP), and 0 where F and AP are both 0.

    Computed as F AP / (w F + v AP) with ``(w, v) = (b^2, 1) / (1 + b^2)``,
    which is finite for every beta.
    """
    w, v = _fbeta_weights(beta)
    denominator = w * f
    denominator += v * ap
    out = f * ap
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
    w, v = _fbeta_weights(beta)
    relevant = ranked.per_row(ranked.n_relevant)
    with np.errstate(invalid="ignore", divide="ignore"):
        ap = segment_cumsum(_average_precision_terms(ranked), ranked.query_start)
        ap /= relevant
        f = segment_cumsum(ranked.tie_share, ranked.query_start)
        relevant *= w
        relevant += v * ranked.rank
        f /= relevant  # (1 + b^2) hits / (b^2 R + k), as hits / (w R + v k)
    del relevant
    return f, ap, _combine(f, ap, beta)


_DIRECT_UP_TO = 64  # cutoffs summed query by query
_NODES = 32  # Chebyshev points per band of larger cutoffs


def _tail_sums(size, alpha, gamma, scale, max_k):
    """``out[k-1]`` = sum of alpha / (gamma + scale * k) over the queries with size < k.

    For k = 1..max_k; ``alpha``, ``gamma`` >= 0 and ``scale`` >= 0. Up to
    k = 64 each cutoff is one dot product over the queries shorter than k.
    Past that, the cutoffs are cut into bands [lo, 2 lo - 1]: the queries
    shorter than ``lo`` add a smooth function of k over the whole band
    (:func:`_band_sum`), and the few that end inside the band add their
    terms one by one (at most one per row of theirs). So the cost is
    O(rows + queries * log(max_k)), not queries times cutoffs.
    """
    out = np.zeros(max_k)
    if max_k > int(size.min()) + 8:  # many cutoffs per query: merge equal terms
        # queries sharing (size, gamma) add up their alphas; F's gamma is a
        # multiple of R, so its terms collapse to a few distinct pairs
        order = np.lexsort((gamma, size))
        size, alpha, gamma = size[order], alpha[order], gamma[order]
        new = np.ones(size.shape[0], dtype=bool)
        new[1:] = (size[1:] != size[:-1]) | (gamma[1:] != gamma[:-1])
        starts = np.flatnonzero(new)
        size, gamma, alpha = size[starts], gamma[starts], np.add.reduceat(alpha, starts)
    else:
        order = np.argsort(size, kind="stable")
        size, alpha, gamma = size[order], alpha[order], gamma[order]
    direct_end = min(max_k, _DIRECT_UP_TO)
    shorter = np.searchsorted(size, np.arange(1, direct_end + 1), side="left")
    for k in range(int(size[0]) + 1, direct_end + 1):
        upto = shorter[k - 1]
        out[k - 1] = vector_dot(alpha[:upto], 1.0 / (gamma[:upto] + scale * k))
    lo = direct_end + 1
    while lo <= max_k:
        hi = min(2 * lo - 1, max_k)
        full = int(np.searchsorted(size, lo, side="left"))  # in for all of the band
        if full:
            out[lo - 1 : hi] += _band_sum(alpha[:full], gamma[:full], scale, lo, hi)
        ends = int(np.searchsorted(size, hi, side="left"))  # in from size + 1 on
        if ends > full:
            count = hi - size[full:ends]
            owner = np.repeat(np.arange(full, ends), count)
            k = np.arange(owner.shape[0]) - np.repeat(np.cumsum(count) - count, count)
            k += size[owner] + 1
            terms = alpha[owner] / (gamma[owner] + scale * k)
            out[lo - 1 : hi] += np.bincount(k - lo, weights=terms, minlength=hi - lo + 1)
        lo = hi + 1
    return out


def _band_sum(alpha, gamma, scale, lo, hi):
    """sum of alpha / (gamma + scale * k) for every integer k in [lo, hi], hi < 2 lo.

    The sum is exact at 32 Chebyshev points of [lo, hi] and interpolated
    (barycentric formula) in between. Each term's pole, k = -gamma/scale,
    lies at or below 0, at least 3 half-widths from the band's centre, so
    the interpolant of a positive sum of such terms is good to about
    5.8**-32 of the sum: float64 rounding, not an approximation one can see.
    """
    n_k = hi - lo + 1
    if n_k <= _NODES:
        k = np.arange(lo, hi + 1, dtype=np.float64)
        return np.array([vector_dot(alpha, 1.0 / (gamma + scale * x)) for x in k])
    centre, half = (lo + hi) / 2.0, (hi - lo) / 2.0
    nodes = centre + half * np.cos(np.pi * np.arange(_NODES) / (_NODES - 1))
    values = np.array([vector_dot(alpha, 1.0 / (gamma + scale * x)) for x in nodes])
    weights = np.where(np.arange(_NODES) % 2, -1.0, 1.0)
    weights[[0, -1]] *= 0.5
    out = np.empty(n_k)
    for start in range(0, n_k, 1 << 14):  # bounded memory: chunks of cutoffs
        k = np.arange(lo + start, min(lo + start + (1 << 14), hi + 1), dtype=np.float64)
        difference = k[:, None] - nodes[None, :]
        at_node = difference == 0.0
        difference[at_node] = 1.0
        ratio = weights / difference
        chunk = (ratio @ values) / ratio.sum(axis=1)
        hit_row, hit_node = np.nonzero(at_node)
        chunk[hit_row] = values[hit_node]
        out[start : start + k.shape[0]] = chunk
    return out


def _fap_curve_parts(ranked, *, max_k, beta, no_relevant):
    """Weighted mean F@k, AP@k and FAP@k over queries for k = 1..max_k.

    Returns ``(f, ap, fap)`` arrays of length ``max_k`` (nan without any query
    to average). Rows at rank k give each query's value at k directly; a
    query shorter than k keeps its final AP while its F@k keeps falling
    (P@k divides by k): a closed form in k, summed over the short queries
    for each k (a loop over cutoffs, not over queries).
    """
    relevant = ranked.n_relevant
    weight = ranked.query_weight
    if weight.max() > 0:  # relative weights: no overflow in the sums
        weight = weight / weight.max()
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
        # Past its end a query's F@k and FAP@k are alpha / (gamma + s k): with
        # (w, v) = (b^2, 1) / (1 + b^2) and A > 0 its final AP,
        #   F   = R / (w R + v k)
        #   FAP = F A / (w F + v A) = R / (w R (1 + v A) / A + v^2 k)
        w, v = _fbeta_weights(beta)
        r_short, w_r = relevant[short], w_short * relevant[short]
        sums[0] += _tail_sums(size[short], w_r, w * r_short, v, max_k)
        sums[2] += _tail_sums(
            size[short], w_r, w * r_short * (1.0 + v * final_ap) / final_ap, v * v, max_k
        )

    f, ap, fap = ((s + constant) / total_weight for s in sums)
    return f, ap, fap


@validate_with_preset({"beta": POSITIVE, **CUTOFF_OPTIONS}, stem="fap")
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
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """F-measured Average Precision (FAP@k): AP@k and F-beta@k in one number.

    Parameters
    ----------
    {y_true, y_score, k}
    beta : float, default=1.0
        Weight of the F part relative to the AP part, as in F-beta.
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
    return score_queries(
        _fap_per_query,
        y_true, y_score, query_id=query_id, sample_weight=sample_weight,
        ties=ties, no_relevant=no_relevant, aggregate=aggregate, k=k, beta=beta,
    )


@validate_with_preset({
    "max_k": CUTOFF, "beta": POSITIVE, "ties": choice(*TIES),
    "no_relevant": choice(*NO_RELEVANT), "return_parts": FLAG, **CONVENTION_OPTIONS,
}, stem=None)
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
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Mean FAP@k for every cutoff k = 1..max_k, in one pass.

    Parameters
    ----------
    {y_true, y_score}
    max_k : int, default=None
        Largest cutoff of the curve; None means the length of the longest
        query, and so does any ``max_k`` of 2**62 or more (no array could
        hold a curve that long).
    beta : float, default=1.0
        Weight of the F part relative to the AP part, as in F-beta.
    {query_id, sample_weight, ties, no_relevant}
    return_parts : bool, default=False
        Also return the mean F-beta@k and AP@k curves the FAP curve is made
        of.
    {compat, score_dtype, retrieved}

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
    divides by k). Those tails are a closed form in k, summed for all
    short queries at once (exactly at a few points of each band of
    cutoffs, interpolated in between to float64 precision), so the cost
    grows with the rows and the number of queries, not with their product
    with ``max_k``.

    Examples
    --------
    >>> from skrank import fap_curve
    >>> k, fap = fap_curve([1, 1, 0, 0], [4, 3, 2, 1])
    >>> k
    array([1, 2, 3, 4])
    >>> fap.round(4)                     # the peak: cut after the 2 relevant rows
    array([0.5714, 1.    , 0.8889, 0.8   ])
    """
    check_aggregate_options(no_relevant, "mean")
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    if max_k is None or max_k >= LARGEST_INT:  # 2**62 and up: no curve that long
        max_k = int(ranked.query_size.max())
    f, ap, fap = _fap_curve_parts(ranked, max_k=max_k, beta=beta, no_relevant=no_relevant)
    k = np.arange(1, max_k + 1)
    if return_parts:
        return k, fap, f, ap
    return k, fap
