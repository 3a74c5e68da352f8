"""evaluate(): many metrics from one validation, one factorisation and one sort."""

import numpy as np

from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries
from ._registry import parse_metric_name

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")


def evaluate(
    y_true,
    y_score,
    *,
    query_id=None,
    metrics=DEFAULT_METRICS,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
):
    """Compute several ranking metrics at once, sorting the data only once.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items)
        Relevance of each row: binary (0/1) or graded (non-negative). A row
        is relevant when ``y_true > 0``.
    y_score : array-like of the same shape as ``y_true``
        Score of each row; within a query, higher scores rank first.
    query_id : array-like of shape (n_rows,), default=None
        Query of each row: ints, strings or any hashable ids, rows in any
        order. None means one ranking (1-D input) or one ranking per row
        (2-D input, as in scikit-learn's ``ndcg_score``).
    metrics : str or list of str, default=("ndcg@10", "map", "mrr", \
"precision@10", "recall@10")
        Metric names, as for :func:`get_scorer`: ``"ndcg@10"``, ``"map"``,
        ``"mrr"``, ``"precision@5"``, ``"recall@20"``, ``"f1@5"``,
        ``"fap"``, ``"r_precision"``, ``"hit_rate@10"``, ``"gauc"``, ...
        ``"set_f1"`` counts the rows of positive ``y_score`` as returned.
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
    results : dict
        Metric name -> float (or :class:`QueryValues` with
        ``aggregate=None``), in the order of ``metrics``. Each value equals
        what the metric's own function returns with the same options (the
        gains of ``"ndcg"``/``"dcg"`` are exponential, their default).

    Examples
    --------
    >>> from skrank import evaluate
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> evaluate(relevance, scores, metrics=["precision@4", "map", "mrr"])
    {'precision@4': 0.75, 'map': 0.7708..., 'mrr': 1.0}
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("`metrics` is empty: name at least one metric.")
    parsed = [parse_metric_name(name) for name in metrics]
    check_aggregate_options(no_relevant, aggregate)
    if query_id is None and np.ndim(y_true) == 1:
        group_only = [name for name, (spec, _) in zip(metrics, parsed) if spec.group_only]
        if group_only:
            raise ValueError(
                f"`query_id` is required for {', '.join(group_only)} with 1-D input."
            )
    ranked = rank_queries(
        y_true,
        y_score,
        query_id=query_id,
        sample_weight=sample_weight,
        ties=ties,
        binary=any(spec.binary for spec, _ in parsed),
    )
    results = {}
    for name, (spec, k) in zip(metrics, parsed):
        values, undefined, weights, policy = metric_query_values(
            ranked, spec, k, no_relevant
        )
        results[name] = aggregate_queries(
            values, ranked, no_relevant=policy, aggregate=aggregate,
            undefined=undefined, weights=weights,
        )
    return results


def metric_query_values(ranked, spec, k, no_relevant):
    """One registry metric on a shared layout, before the ``no_relevant`` policy.

    Returns ``(values, undefined, weights, no_relevant)`` per query: the
    kernel's values, the queries the policy applies to, the query weights,
    and the policy itself (``"skip"`` for metrics with their own query
    weights, such as GAUC, whose undefined queries are always left out).
    :func:`evaluate` and :func:`skrank.dask.evaluate` (per partition) share it.
    """
    values = spec.kernel(ranked, k)
    if spec.query_weights is None:
        return values, ranked.n_relevant == 0, ranked.query_weight, no_relevant
    return values, np.isnan(values), spec.query_weights(ranked), "skip"

