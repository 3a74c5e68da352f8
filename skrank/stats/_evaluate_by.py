"""evaluate_by(): metrics by segment, with intervals from a bootstrap over queries.

The per-query values come from one :func:`skrank.evaluate` call (one sort);
the queries' segments from :mod:`._segments`; the means and intervals from
:func:`._segment_summary.summarise_segments`, which the Dask face shares.
"""

import numpy as np

from .._core._params import (
    choice,
    BOOTSTRAP_METHODS,
    COUNT,
    FRACTION_OR_NONE,
    validate_params,
)
from ..metrics._evaluate import evaluate, metric_names
from ._intervals import make_rng
from ._segment_summary import summarise_segments
from ._segments import by_columns, query_index, segments_of_queries


#: the bootstrap options of evaluate_by (the Dask face checks them too)
SEGMENT_OPTIONS = {
    "confidence_level": FRACTION_OR_NONE, "n_resamples": COUNT,
    "method": choice(*BOOTSTRAP_METHODS), "min_queries": COUNT,
}


def check_segment_options(confidence_level, n_resamples, method, min_queries):
    """The bootstrap options, checked as :func:`evaluate_by` checks them."""
    rules = SEGMENT_OPTIONS
    return tuple(
        rules[name].check(name, value) for name, value in (
            ("confidence_level", confidence_level), ("n_resamples", n_resamples),
            ("method", method), ("min_queries", min_queries),
        )
    )


def _split_metrics(metrics):
    """Metric names (read as :func:`evaluate` reads them) and metric functions."""
    if callable(metrics):
        metrics = [metrics]
    if metrics is None or isinstance(metrics, str):
        return metric_names(metrics), []
    functions = [m for m in metrics if callable(m)]
    names = [m for m in metrics if not callable(m)]
    return (metric_names(names) if names or not functions else []), functions


def _function_per_query(func, y_true, y_score, query_id, sample_weight, results):
    """A metric function's per-query values: ``{name: QueryValues}``.

    ``func(y_true, y_score, query_id=, sample_weight=, aggregate=None)``
    returns a QueryValues (named by the function) or a dict of them (such
    as :func:`skrank.fairness.expected_exposure`'s), with the queries in
    :func:`evaluate`'s order (ascending ids).
    """
    out = func(y_true, y_score, query_id=query_id, sample_weight=sample_weight,
               aggregate=None)
    if not isinstance(out, dict):
        name = getattr(func, "__name__", None) or getattr(func, "func").__name__
        out = {name: out}
    for name, values in out.items():
        if name in results:
            raise ValueError(f"`metrics` gives the metric {name!r} twice.")
        first = next(iter(results.values()), values)
        if not np.array_equal(values.query_id, first.query_id):
            raise ValueError(
                f"`metrics`: {name!r} returned its queries in another order than "
                "evaluate's (ascending query ids)."
            )
    return out


@validate_params(SEGMENT_OPTIONS)
def evaluate_by(
    y_true,
    y_score,
    *,
    by,
    query_id=None,
    metrics=None,
    confidence_level=0.95,
    n_resamples=1000,
    method="percentile",
    random_state=None,
    sample_weight=None,
    min_queries=2,
    **options,
):
    """Metrics by segment, with confidence intervals from a bootstrap over queries.

    Parameters
    ----------
    {y_true, y_score}
    by : array-like of shape (n_rows,), list or dict of array-likes, or DataFrame
        The segment of each row (of each ranking for 2-D input): one
        array-like, or several (a list of them, a dict ``{name: values}``,
        or the columns of a DataFrame), whose combinations are the segments.
        The names label the columns of ``to_frame()`` (a Series' name, else
        ``"segment"``, or ``"segment_0"``, ... for a list). A segment is a
        property of a query: every row of a query must be in the same one.
    {query_id}
    metrics : str, callable or list of them, default=None
        Metric names, as for :func:`evaluate`; None takes :func:`evaluate`'s
        default metrics. A callable ``f(y_true, y_score, *, query_id,
        sample_weight, aggregate)`` called with ``aggregate=None`` gives
        its per-query values: a :class:`QueryValues` (named by the
        function) or a dict of them, such as
        :func:`skrank.fairness.expected_exposure` (``ee_l``, ``ee_d``,
        ``ee_r``); ``functools.partial`` sets its options.
    confidence_level : float or None, default=0.95
        Of the intervals, in (0, 1); None computes no interval.
    n_resamples : int, default=1000
        Bootstrap resamples.
    method : {"percentile", "basic", "BCa"}, default="percentile"
        How an interval is read from the resamples, as in
        ``scipy.stats.bootstrap``.
    random_state : int, RandomState instance or None, default=None
        Seeds the resamples; an int makes the result reproducible.
    {sample_weight}
    min_queries : int, default=2
        A segment needs this many queries with a value of a metric for an
        interval; below it the interval is nan and the note says why.
    **options : dict
        ``ties``, ``no_relevant`` and the metrics' options (``gain=``,
        ``beta=``, ...), exactly as for :func:`evaluate`.

    Returns
    -------
    result : SegmentEvaluationResult
        ``overall`` (:func:`evaluate`'s result on all rows), per segment
        each metric's ``value``, ``ci_low``, ``ci_high``, ``n_queries`` and
        ``n_rows``; ``to_frame()``, ``difference()`` and ``plot()``.

    See Also
    --------
    evaluate : the metrics on all rows.
    compare : two systems, with paired tests (also ``by=`` segment).

    Notes
    -----
    Each segment's value is :func:`evaluate`'s on that segment's rows: the
    weighted mean of its queries' values.

    The rows of one query are not independent draws (they share the query,
    and a ranking metric scores them together), so the intervals resample
    **queries**, with replacement, within each segment (a stratified
    cluster bootstrap). In every resample a segment draws as many queries as
    it has; its mean over the queries drawn that have a value of the metric
    (weights included) is the resampled statistic. The overall interval and
    the differences of :meth:`SegmentEvaluationResult.difference` come from the
    same resamples. The percentile, basic and BCa intervals follow
    ``scipy.stats.bootstrap``'s definitions (BCa's acceleration from the
    jackknife over the segment's queries with a value). A resample in which
    a segment drew no query with a value is left out of that segment's
    interval, and the note says so.

    Examples
    --------
    >>> from skrank import evaluate_by
    >>> y_true = [1, 0, 0, 1, 1, 0, 0, 1]
    >>> y_score = [2, 1, 2, 1, 2, 1, 2, 1]
    >>> query_id = [1, 1, 2, 2, 3, 3, 4, 4]
    >>> device = ["app", "app", "web", "web", "app", "app", "web", "web"]
    >>> result = evaluate_by(y_true, y_score, by=device, query_id=query_id,
    ...                      metrics=["mrr"], random_state=0)
    >>> result.overall                    # (1 + 1/2 + 1 + 1/2) / 4
    {'mrr': 0.75}
    >>> result.value[:, 0].tolist()       # app: (1 + 1) / 2, web: (1/2 + 1/2) / 2
    [1.0, 0.5]
    >>> result.to_frame()[["segment", "metric", "value", "n_queries", "n_rows"]]
      segment metric  value  n_queries  n_rows
    0     app    mrr    1.0          2       4
    1     web    mrr    0.5          2       4
    """
    level, n_resamples, method, min_queries = check_segment_options(
        confidence_level, n_resamples, method, min_queries
    )
    names, functions = _split_metrics(metrics)
    rng = make_rng(random_state)
    results = {} if not names else evaluate(
        y_true, y_score, query_id=query_id, metrics=names,
        sample_weight=sample_weight, aggregate=None, **options,
    )
    for func in functions:
        results.update(_function_per_query(func, y_true, y_score, query_id,
                                           sample_weight, results))
    metrics = list(results)
    query_ids = results[metrics[0]].query_id
    n_queries = query_ids.shape[0]
    row_query = query_index(y_true, query_id, query_ids)
    columns = by_columns(by, row_query.shape[0])
    query_segment, keys = segments_of_queries(columns, row_query, n_queries, query_ids)
    query_rows = np.bincount(row_query, minlength=n_queries)
    if np.ndim(y_true) == 2 and query_id is None:
        query_rows = query_rows * np.shape(y_true)[1]
    per_query = {m: (results[m].value, results[m].weight) for m in metrics}
    return summarise_segments(
        per_query, query_segment, query_rows, keys, [name for name, _ in columns],
        level=level, n_resamples=n_resamples, method=method, rng=rng,
        min_queries=min_queries,
    )
