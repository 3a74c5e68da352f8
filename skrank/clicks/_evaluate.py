"""Counterfactual ranking metrics from clicks: evaluate (inverse propensity scoring)."""

import math
import re
from typing import NamedTuple

import numpy as np

from .._core._aggregate import aggregate_queries, check_aggregate_options, vector_dot
from .._core._layout import rank_queries, segment_sum
from .._core._validation import check_positive_int, check_score
from ..metrics._gain import _dcg_per_query, _ndcg_per_query
from ._validation import (
    check_clicks,
    check_clip,
    check_one_row_per_position,
    check_positions,
    check_same_rows,
)
from ._position_bias import propensity_per_row

DEFAULT_METRICS = ("dcg@10", "precision@10", "arp")
STEMS = ("dcg", "ndcg", "precision", "arp")
_NAME = re.compile(r"^(dcg|ndcg|precision|arp)(?:@(\d+))?$")


class ClickEvaluationResult(dict):
    """Metric name -> IPS estimate (or per-list values), with diagnostics.

    A dict, as :func:`skrank.evaluate` returns, whose attributes describe
    the weights behind the estimates.

    Attributes
    ----------
    effective_sample_size : float
        ``(sum w)**2 / sum w**2`` over the clicks, ``w = 1 / propensity``
        (after clipping): the number of equally weighted clicks that would
        be as informative. Far below ``n_clicks``, a few clicks carry the
        estimate.
    max_weight : float
        The largest weight of a click (nan without clicks).
    clipped_share : float
        The share of clicks whose propensity was below ``clip`` and raised
        to it (0 without ``clip``).
    n_lists : int
        Displayed lists (distinct ``query_id``).
    n_clicks : int
    n_lists_without_click : int
        Lists with no click: they count as 0 in every mean except
        ``ndcg@k``'s, where they are left out.
    """

    def __init__(self, values, *, effective_sample_size, max_weight, clipped_share,
                 n_lists, n_clicks, n_lists_without_click):
        super().__init__(values)
        self.effective_sample_size = effective_sample_size
        self.max_weight = max_weight
        self.clipped_share = clipped_share
        self.n_lists = n_lists
        self.n_clicks = n_clicks
        self.n_lists_without_click = n_lists_without_click

    def __repr__(self):
        return (
            f"ClickEvaluationResult({dict.__repr__(self)}, n_lists={self.n_lists}, "
            f"n_clicks={self.n_clicks}, effective_sample_size="
            f"{self.effective_sample_size:.4g}, max_weight={self.max_weight:.4g}, "
            f"clipped_share={self.clipped_share:.4g})"
        )

    def __reduce__(self):
        return (_rebuild, (dict(self), dict(self.__dict__)))


def _rebuild(values, attributes):
    return ClickEvaluationResult(values, **attributes)


def parse_click_metrics(metrics):
    """``[(name, stem, k)]`` of click metric names; a ValueError for others."""
    if metrics is None:
        metrics = DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(dict.fromkeys(metrics))
    if not metrics:
        raise ValueError("`metrics` is empty: name at least one metric.")
    parsed = []
    for name in metrics:
        match = _NAME.match(name) if isinstance(name, str) else None
        if match is None:
            raise ValueError(
                f"Unknown click metric {name!r}: use 'dcg@k', 'ndcg@k', "
                "'precision@k' or 'arp' (k a positive integer; 'dcg' and 'ndcg' "
                "without @k use the whole list)."
            )
        stem, k = match.group(1), match.group(2)
        if k is not None:
            k = check_positive_int("k", int(k), allow_none=False)
        if stem == "precision" and k is None:
            raise ValueError("'precision' needs a cutoff: write 'precision@k'.")
        if stem == "arp" and k is not None:
            raise ValueError("'arp' has no cutoff: write 'arp'.")
        parsed.append((name, stem, k))
    return parsed


def _precision_per_list(ranked, spread, k):
    """Sum over the top k of the spread weights, over k."""
    return segment_sum(np.where(ranked.rank <= k, spread, 0.0), ranked.query_start) / k


def _arp_per_list(ranked, spread):
    """Sum over the rows of spread weight times rank (the rank-sum of clicks)."""
    return segment_sum(spread * ranked.rank, ranked.query_start)


def _check_positions_per_list(ranked, position):
    """Two rows of one list at one position: a ValueError naming the later row.

    Works in the layout's order (lists contiguous): one ``np.bincount`` of
    (list, position) codes when they are dense, else a sort of them.
    """
    ranked_position = position[ranked.order]
    top = int(ranked_position.max())
    if ranked.n_queries * top <= 4 * ranked.n_rows + 1024:
        key = ranked.query * top + (ranked_position - 1)
        counts = np.bincount(key, minlength=ranked.n_queries * top)
        if (counts > 1).any():
            suspects = np.sort(ranked.order[counts[key] > 1])
            check_one_row_per_position(_input_codes(ranked)[suspects],
                                       position[suspects], rows=suspects,
                                       n_rows=ranked.n_rows)
        return
    check_one_row_per_position(_input_codes(ranked), position)


def _input_codes(ranked):
    """The list code of each row, in input order."""
    codes = np.empty(ranked.n_rows, dtype=np.intp)
    codes[ranked.order] = ranked.query
    return codes


def evaluate(
    click,
    y_score,
    *,
    position,
    query_id,
    propensity,
    metrics=None,
    clip=None,
    aggregate="mean",
    sample_weight=None,
):
    """Estimate a new ranker's metrics from the clicks a logging ranker collected.

    Each list (impression) the logger showed is re-ranked by ``y_score``;
    its clicks, weighted by one over the propensity of the position where
    the logger showed them, give an unbiased estimate of the new
    ranking's metric under the position-based model (inverse propensity
    scoring, IPS).

    Parameters
    ----------
    click : array-like of shape (n_rows,)
        1 if the displayed document was clicked, else 0. One row per
        displayed document.
    y_score : array-like of shape (n_rows,)
        The new ranker's score of each displayed document; higher ranks
        first. Ties are averaged (below).
    position : array-like of shape (n_rows,)
        The 1-based rank at which the logger showed the document; one row
        per position of a list.
    query_id : array-like of shape (n_rows,)
        The displayed list (impression) of each row.
    propensity : PositionBias, callable or array-like
        The examination propensity of each row's logged position: a
        :class:`PositionBias` (from :func:`estimate_position_bias`), a
        callable of an array of positions, or one number per row (or one
        for all), positive and finite (relative to position 1, so above 1
        where a position is examined more often than the first).
    metrics : str or list of str, default=("dcg@10", "precision@10", "arp")
        Any of ``"dcg@k"``, ``"ndcg@k"``, ``"precision@k"``, ``"arp"``
        (``"dcg"`` and ``"ndcg"`` without ``@k``: the whole list).
    clip : float in (0, 1], default=None
        Propensities below ``clip`` are raised to it, capping each click's
        weight at ``1 / clip``: less variance, some bias (towards the
        logger's top positions).
    aggregate : {"mean", None}, default="mean"
        The weighted mean over lists, or, with None, one value per list
        (a :class:`~skrank.QueryValues` per metric, lists in ascending order
        of id).
    sample_weight : array-like of shape (n_rows,), default=None
        Row weights; a list's weight is the mean of its rows' weights.

    Returns
    -------
    result : ClickEvaluationResult
        A dict: metric name -> float (or ``QueryValues``), with the
        diagnostics ``effective_sample_size``, ``max_weight``,
        ``clipped_share``, ``n_lists``, ``n_clicks`` and
        ``n_lists_without_click`` as attributes.

    Notes
    -----
    For list ``q`` with ``r_d`` the new rank of document ``d``, ``p_d`` its
    logged position and ``theta`` the propensity (raised to ``clip``),

    .. math::

        \\hat V(q) = \\sum_{d \\text{ clicked}} \\frac{\\lambda(r_d)}{\\theta(p_d)}

    which is unbiased for :math:`\\sum_d \\lambda(r_d)\\,\\gamma_d` (``gamma``
    the document's click probability once examined) when the clicks
    follow the position-based model and the propensities are exact; with
    propensities relative to position 1 the estimate is that value over
    ``theta(1)``, the same factor for every ranker, so comparisons hold.

    * ``"dcg@k"``: ``lambda(r) = 1 / log2(1 + r)`` for ``r <= k``;
    * ``"precision@k"``: ``lambda(r) = 1 / k`` for ``r <= k``;
    * ``"arp"``: ``lambda(r) = r``, the average relevant position of
      Joachims et al. (2017): the sum of the ranks of the relevant
      documents; lower is better;
    * ``"ndcg@k"``: the IPS DCG@k over the IPS DCG@k of the weighted clicks
      in their ideal order. A ratio of estimates: consistent, not unbiased.

    A list with no click scores 0 in the mean (leaving it out would
    overstate every metric); for ``"ndcg@k"`` it has no value, is left out,
    and is counted in ``n_lists_without_click``. Ties in ``y_score`` get
    the expected value over the orders of the tied rows: a clicked row
    of a tie block gets the mean of ``lambda`` over the block's ranks.

    Documents the logger never showed cannot be credited, and a position
    the logger never used has no propensity: clicks estimate the metric of
    the new ranking *of the displayed documents*.

    References
    ----------
    .. [1] T. Joachims, A. Swaminathan and T. Schnabel. Unbiased
       learning-to-rank with biased feedback. WSDM 2017.
    .. [2] X. Wang, N. Golbandi, M. Bendersky, D. Metzler and M. Najork.
       Position bias estimation for unbiased learning to rank in personal
       search. WSDM 2018.

    Examples
    --------
    One list of three documents; the logger showed ``a, b, c`` and the
    user clicked ``c`` (position 3, propensity 1/3). The new ranker puts
    ``c`` first:

    >>> from skrank.clicks import evaluate
    >>> result = evaluate([0, 0, 1], [0.1, 0.2, 0.9], position=[1, 2, 3],
    ...                   query_id=[7, 7, 7], propensity=lambda k: 1 / k,
    ...                   metrics=["dcg@10", "precision@2", "arp"])
    >>> dict(result)                   # 3 * (1/log2(2)), 3 * (1/2), 3 * 1
    {'dcg@10': 3.0, 'precision@2': 1.5, 'arp': 3.0}
    >>> result.effective_sample_size, result.max_weight
    (1.0, 3.0)
    """
    parsed = parse_click_metrics(metrics)
    clip = check_clip(clip)
    check_aggregate_options("skip", aggregate)
    if query_id is None:
        raise ValueError(
            "`query_id` is required: one id per row, naming the displayed list "
            "(impression) the row belongs to."
        )
    ranked, per_list, sums = list_values(
        parsed, click, y_score, position, query_id, propensity, clip, sample_weight)
    results = {
        name: aggregate_queries(values, ranked, aggregate=aggregate,
                                undefined=undefined)
        for name, (values, undefined) in per_list.items()
    }
    return ClickEvaluationResult(results, **finish_diagnostics(sums))


class ClickSums(NamedTuple):
    """Mergeable sums behind :class:`ClickEvaluationResult`'s diagnostics.

    Sums over disjoint sets of lists add up (``max_weight``: the largest);
    :func:`finish_diagnostics` turns the total into the attributes. The
    in-memory :func:`evaluate` has one part, skrank.dask one per partition.
    """

    n_clicks: int
    click_weight_sum: float
    click_weight_square_sum: float
    max_weight: float
    n_clipped: int
    n_lists: int
    n_lists_without_click: int


def merge_click_sums(parts):
    """One :class:`ClickSums` from the sums of disjoint sets of lists."""
    parts = list(parts)
    return ClickSums(
        sum(part.n_clicks for part in parts),
        math.fsum(part.click_weight_sum for part in parts),
        math.fsum(part.click_weight_square_sum for part in parts),
        max((part.max_weight for part in parts if part.n_clicks), default=float("nan")),
        sum(part.n_clipped for part in parts),
        sum(part.n_lists for part in parts),
        sum(part.n_lists_without_click for part in parts),
    )


def finish_diagnostics(sums):
    """:class:`ClickEvaluationResult`'s keyword arguments from the :class:`ClickSums`."""
    n_clicks = sums.n_clicks
    square = sums.click_weight_square_sum
    return {
        "effective_sample_size": sums.click_weight_sum ** 2 / square
        if n_clicks else 0.0,
        "max_weight": float(sums.max_weight) if n_clicks else float("nan"),
        "clipped_share": sums.n_clipped / n_clicks if n_clicks else 0.0,
        "n_lists": int(sums.n_lists),
        "n_clicks": int(n_clicks),
        "n_lists_without_click": int(sums.n_lists_without_click),
    }


def list_values(parsed, click, y_score, position, query_id, propensity, clip,
                sample_weight):
    """Validate the rows and compute each list's IPS values: the shared body.

    Returns ``(ranked, per_list, sums)``: the layout of the lists,
    metric name -> ``(values, undefined)`` (one per list, ``undefined``
    marking the lists left out of that metric's mean) and the
    :class:`ClickSums` of the rows. :func:`evaluate` runs it on all rows,
    skrank.dask on each partition of whole lists.
    """
    click = check_clicks(click)
    score = check_score("y_score", y_score, ndim=(1,))
    position = check_positions(position)
    check_same_rows(click=click, y_score=score, position=position)
    theta = propensity_per_row(propensity, position)
    if clip is not None:
        clipped = theta < clip
        theta = np.maximum(theta, clip)
    weight = click / theta
    ranked = rank_queries(weight, score, query_id=query_id,
                          sample_weight=sample_weight)
    _check_positions_per_list(ranked, position)

    spread = ranked.block_mean(ranked.relevance)
    no_click = ranked.n_relevant == 0
    never = np.zeros(ranked.n_queries, dtype=bool)
    per_list = {}
    for name, stem, k in parsed:
        if stem == "ndcg":
            values = _ndcg_per_query(ranked, k=k, gain="linear")
            undefined = no_click
        else:
            undefined = never
            if stem == "dcg":
                values = _dcg_per_query(ranked, k=k, gain="linear")
            elif stem == "precision":
                values = _precision_per_list(ranked, spread, k)
            else:
                values = _arp_per_list(ranked, spread)
        per_list[name] = (values, undefined)

    clicked = click > 0
    click_weight = 1.0 / theta[clicked]
    n_clicks = int(click_weight.shape[0])
    sums = ClickSums(
        n_clicks, float(click_weight.sum()), float(vector_dot(click_weight, click_weight)),
        float(click_weight.max()) if n_clicks else float("nan"),
        int(clipped[clicked].sum()) if clip is not None else 0,
        int(ranked.n_queries), int(no_click.sum()),
    )
    return ranked, per_list, sums
