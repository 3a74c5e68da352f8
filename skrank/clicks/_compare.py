"""compare: rankers scored on one click log, with intervals and paired tests.

Every click metric is a ratio of sums over lists (a mean over lists is
``sum(values) / n_lists``; ``ndcg@k`` is ``sum(IPS DCG) / sum(IPS ideal
DCG)``), so the unit of resampling, the query, carries two sums per
metric: its lists' numerators (one per system) and their denominator (the
same for every system: it does not depend on the ranking). The bootstrap
draws queries and recomputes the ratio of the drawn sums; the paired tests
take each query's share of the estimate, ``numerator * n_queries / sum of
denominators``, whose mean over queries is the estimate, and go to
:func:`skrank.stats._paired.compare_per_query` with the tables of
:func:`skrank.compare`.
"""

import numpy as np

from .._core._aggregate import QueryValues
from .._core._params import COUNT, CORRECTIONS, FRACTION, choice, validate_params
from .._core._resample import stratified_resample_sums
from .._core._validation import describe
from ..stats._intervals import make_rng
from ..stats._paired import check_systems, compare_per_query
from ._evaluate import _check_required, list_values, parse_click_metrics
from ._validation import check_clip


@validate_params({
    "n_resamples": COUNT, "confidence_level": FRACTION,
    "correction": choice(*CORRECTIONS),
})
def compare(
    click,
    systems,
    *,
    position,
    list_id,
    query_id=None,
    propensity,
    metrics=None,
    baseline=None,
    clip=None,
    n_resamples=10_000,
    confidence_level=0.95,
    correction="holm",
    random_state=None,
    doc_id=None,
):
    """Compare rankers on one click log: IPS estimates, intervals and paired tests.

    Every system re-ranks the same logged lists; :func:`evaluate` gives
    each one's estimates, a bootstrap over **queries** their intervals, and
    paired tests over queries say whether two systems differ.

    Parameters
    ----------
    click : array-like of shape (n_rows,)
        1 if the displayed document was clicked, else 0.
    systems : dict of str to array-like of shape (n_rows,)
        ``{name: y_score}``: each ranker's scores of the same logged rows,
        at least two rankers.
    position : array-like of shape (n_rows,)
        Required. The 1-based position at which the logger showed each row.
    list_id : array-like of shape (n_rows,)
        Required. The displayed list (impression) of each row.
    query_id : array-like of shape (n_rows,), default=None
        The query each list answers: the unit the bootstrap and the tests
        resample (the sessions of one query are not independent). None:
        every list is its own query.
    propensity : PositionBias, callable or array-like
        Required. As for :func:`evaluate`.
    metrics : str or list of str, default=("dcg@10", "precision@10", "arp")
        Click metric names, as for :func:`evaluate`.
    baseline : str, default=None
        Compare every other system with this one; None compares every pair.
    clip : float in (0, 1], default=None
        As for :func:`evaluate`.
    n_resamples : int, default=10000
        Resamples of the bootstrap and of the randomisation test.
    confidence_level : float, default=0.95
        Of the bootstrap intervals, in (0, 1).
    correction : {"holm", "bonferroni", "bh", "by", None}, default="holm"
        Multiple-comparison correction of the p-values, over the pairs
        compared on each metric, as for :func:`skrank.compare`.
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap and the randomisation test.
    doc_id : array-like of shape (n_rows,), default=None
        For ``ndcg@k``'s ideal order, as for :func:`evaluate`.

    Returns
    -------
    result : skrank.ComparisonResult
        ``result.summary``: per metric and system, the estimate
        (``mean``, equal to :func:`evaluate`'s) and its bootstrap interval
        (``ci_low``, ``ci_high``) with ``n_queries``; ``result.tests``: per
        metric and pair, the difference, its interval, the randomisation
        and t-test p-values and their corrected values;
        ``result.per_query``: each query's share of each estimate (their
        mean over queries is the estimate).

    See Also
    --------
    evaluate : the estimates alone.
    skrank.compare : the same tests on relevance labels.

    Notes
    -----
    With ``N_q`` the sum of a system's per-list values over the lists of
    query ``q`` and ``D_q`` the matching denominator (the number of lists
    for ``dcg@k``, ``precision@k`` and ``arp``; the sum of the IPS ideal
    DCG for ``ndcg@k``), every estimate is :math:`\\sum_q N_q / \\sum_q D_q`.

    * **bootstrap**: queries drawn with replacement (all lists of a drawn
      query together), the same draws for every system; each resample's
      estimate is the ratio of its sums, recomputed. Percentile intervals.
      Drawing lists instead treats the sessions of a query as independent
      and gives intervals too narrow when queries have many sessions.
    * **paired tests** on :math:`d_q = (N^a_q - N^b_q) \\cdot n / \\sum_q D_q`
      (``n`` queries), whose mean is the difference of the estimates (the
      denominator is the same for both systems): a sign-flip randomisation
      test and a paired t-test, as in :func:`skrank.compare`, with the
      ``correction`` over the pairs of a metric.

    Examples
    --------
    Two lists of query 1 and one of query 2; the logger clicked the row at
    position 2 of each. Ranker ``"a"`` puts that row first, ``"b"`` second:

    >>> from skrank.clicks import compare
    >>> result = compare(
    ...     [0, 1, 0, 1, 0, 1], {"a": [1, 2, 1, 2, 1, 2], "b": [2, 1, 2, 1, 2, 1]},
    ...     position=[1, 2, 1, 2, 1, 2], list_id=[1, 1, 2, 2, 3, 3],
    ...     query_id=[1, 1, 1, 1, 2, 2], propensity=lambda k: 1 / k,
    ...     metrics="precision@1", random_state=0)
    >>> result.summary.column("mean")     # a: each click (weight 2) at rank 1
    [2.0, 0.0]
    >>> result.tests.column("p_randomization")   # 2 queries: 2 of 4 sign vectors
    [0.5]
    """
    level = confidence_level  # checked by @validate_params
    systems = check_systems(systems)
    parsed = parse_click_metrics(metrics)
    clip = check_clip(clip)
    _check_required(position=position, list_id=list_id, propensity=propensity)
    names = list(systems)
    if baseline is not None and baseline not in systems:
        raise ValueError(
            f"`baseline` must be one of the systems {names}, got {describe(baseline)}."
        )
    estimates = {}
    for name, scores in systems.items():
        try:
            estimates[name] = list_values(
                parsed, click, scores, position, list_id, propensity, clip, None,
                query_id=query_id, doc_id=doc_id)
        except ValueError as exc:
            raise ValueError(f"`systems`[{name!r}]: {exc}") from None
    first = estimates[names[0]]
    query_of_list = first.list_query
    n_queries = int(query_of_list.max()) + 1
    query_ids = _query_labels(first, query_id, n_queries)

    def per_query(values):
        return np.bincount(query_of_list, weights=values, minlength=n_queries)

    shares, denominators = {}, {}
    for metric, _, _ in parsed:
        parts = first.per_list[metric]
        denominator = per_query(np.ones(query_of_list.shape[0])
                                if parts.denominator is None else parts.denominator)
        total = denominator.sum()
        scale = n_queries / total if total > 0 else float("nan")
        denominators[metric] = denominator
        shares[metric] = {
            name: QueryValues(query_ids,
                              per_query(estimates[name].per_list[metric].numerator)
                              * scale, np.ones(n_queries))
            for name in names
        }
    return compare_per_query(
        shares, names, [m for m, _, _ in parsed], baseline=baseline,
        n_resamples=n_resamples, level=level, correction=correction,
        rng=make_rng(random_state), bootstrap=_RatioBootstrap(denominators),
    )


def _query_labels(estimates, query_id, n_queries):
    """The id of each query code (the list ids when every list is a query)."""
    ranked = estimates.ranked
    if query_id is None:
        return ranked.query_ids
    first_rows = ranked.order[ranked.query_start]  # a row of each list
    labels = np.empty(n_queries, dtype=object)
    labels[estimates.list_query] = np.asarray(query_id, dtype=object)[first_rows]
    try:
        return labels.astype(np.asarray(query_id).dtype)
    except (TypeError, ValueError):
        return labels


class _RatioBootstrap:
    """Resampled ratios of sums over queries: the bootstrap of :func:`compare`.

    Called with a metric's per-query shares ``(n_systems, n_queries)``
    (``numerator * n_queries / total denominator``), it recovers the
    numerators, draws queries and divides each resample's numerator sums by
    its denominator sum.
    """

    def __init__(self, denominators):
        self.denominators = denominators

    def __call__(self, metric, values, n_resamples, rng):
        denominator = self.denominators[metric]
        n = denominator.shape[0]
        numerators = values * (denominator.sum() / n)
        columns = np.column_stack([numerators.T, denominator])
        sums = stratified_resample_sums(columns, [n], n_resamples, rng)[:, 0, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums[:, :-1] / sums[:, -1:]
