"""evaluate_by() on a Dask DataFrame: per-query values on the cluster, intervals on the client.

The per-query values come from the machinery of :func:`skrank.dask.evaluate`
(one shuffle by query, skrank's in-memory kernels per partition), together
with each query's segment and row count. Only those per-query rows (a few
numbers per query) reach the client, ordered by query id as
:func:`skrank.evaluate` orders them, and the in-memory
:func:`skrank.evaluate_by` finishes them with the same code: the same
values and, for the same ``random_state``, the same resamples.
"""

import numpy as np

from .._core._aggregate import check_aggregate_options
from .._core._factorize import factorize
from .._core._layout import TIES
from .._core._validation import check_option, describe
from ..metrics._evaluate import DEFAULT_METRICS, metric_names
from ..metrics._plan import PartitionPlan, kernel_options
from ..metrics._registry import parse_metric_name
from ..stats._evaluate_by import check_segment_options
from ..stats._intervals import make_rng
from ..stats._segment_summary import summarise_segments
from ..stats._segments import segments_of_queries
from ._frame_input import check_column, check_dask_frame, frame_input
from ._shuffle import query_frame, query_meta, whole_queries

_N_ROWS = "__skrank_n_rows__"
_VARIES = "__skrank_by_varies__"


def _query_segments(frame, plan, by, meta, per_query_meta):
    """Per partition: the per-query frame, plus each query's rows and segment."""
    values = query_frame(frame, plan, per_query_meta)
    if frame.shape[0] == 0:
        return meta
    ids = frame.index if plan.query_on_index else frame[plan.query_id]
    groups = frame[by].groupby(np.asarray(ids), sort=False)
    first = groups.first()
    distinct = groups.nunique()
    size = groups.size()
    keys = values.index.to_numpy()
    out = values.copy()
    out[_N_ROWS] = size.reindex(keys).to_numpy().astype(np.int64)
    for name in by:
        out[name] = first[name].reindex(keys).to_numpy()
    varies = (distinct.reindex(keys).to_numpy() > 1).any(axis=1)
    text = np.full(keys.shape[0], "", dtype=object)
    for i in np.flatnonzero(varies):  # only queries in error: a message to build
        rows = np.asarray(ids) == keys[i]
        text[i] = "; ".join(
            f"{name}: {', '.join(map(repr, list(dict.fromkeys(frame[name][rows]))[:3]))}"
            for name in by if frame[name][rows].nunique() > 1
        )
    out[_VARIES] = text
    return out[list(meta.columns)]


def evaluate_by(
    df,
    metrics=DEFAULT_METRICS,
    *,
    by,
    y_true="label",
    y_score="score",
    query_id="qid",
    sample_weight=None,
    confidence_level=0.95,
    n_resamples=1000,
    method="percentile",
    random_state=None,
    min_queries=2,
    ties="average",
    no_relevant="skip",
    partitioned_by_query="auto",
    **options,
):
    """Metrics by segment of a Dask DataFrame, with intervals over queries.

    The same result as :func:`skrank.evaluate_by` on the same rows: the
    values to rounding and, for the same ``random_state``, the same
    resamples. The per-query values are computed by Dask's scheduler as in
    :func:`skrank.dask.evaluate`; only one small row per query (its values,
    weight, row count and segment) is collected on the client, where the
    intervals are computed.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        One row per (query, item), with the columns named below.
    metrics : str or list of str, default=("ndcg@10", "map", "mrr", \
"precision@10", "recall@10")
        Metric names, as for :func:`skrank.evaluate`.
    by : str or list of str
        Column(s) holding each row's segment; several columns: their
        combinations. Every row of a query must be in the same segment.
    y_true : str, default="label"
        Column of relevance: binary (0/1) or graded (non-negative).
    y_score : str, default="score"
        Column of scores; within a query, higher scores rank first.
    query_id : str, default="qid"
        Column (or the name of the index) holding each row's query id.
    sample_weight : str, default=None
        Column of row weights; a query weighs the mean of its rows' weights.
    confidence_level : float or None, default=0.95
        Of the intervals, in (0, 1); None computes no interval.
    n_resamples : int, default=1000
        Bootstrap resamples.
    method : {"percentile", "basic", "BCa"}, default="percentile"
        How an interval is read from the resamples.
    random_state : int, RandomState instance or None, default=None
        Seeds the resamples.
    min_queries : int, default=2
        Queries with a value a segment needs for an interval.
    ties : {"average", "input"}, default="average"
        As for :func:`skrank.dask.evaluate`.
    no_relevant : {"skip", "zero", "one", "error"}, default="skip"
        What a query with no relevant row scores: left out of the mean, 0,
        1, or a ``ValueError``.
    partitioned_by_query : {"auto", True, False}, default="auto"
        As for :func:`skrank.dask.evaluate`.
    **options : dict
        Metric options (``gain``, ``normalize``, ``beta``, ...), as for
        :func:`skrank.dask.evaluate`.

    Returns
    -------
    result : skrank.SegmentEvaluationResult
        As :func:`skrank.evaluate_by` returns.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> import skrank.dask
    >>> rows = pd.DataFrame({
    ...     "qid": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "label": [1, 0, 0, 1, 1, 0, 0, 1],
    ...     "score": [2, 1, 2, 1, 2, 1, 2, 1],
    ...     "device": ["app", "app", "web", "web", "app", "app", "web", "web"],
    ... })
    >>> df = dd.from_pandas(rows, npartitions=2)
    >>> result = skrank.dask.evaluate_by(df, ["mrr"], by="device", random_state=0)
    >>> result.value[:, 0].tolist()       # app: (1 + 1) / 2, web: (1/2 + 1/2) / 2
    [1.0, 0.5]
    """
    check_dask_frame(df, "skrank.evaluate_by", "skrank.dask.evaluate_by")
    level, n_resamples, method, min_queries = check_segment_options(
        confidence_level, n_resamples, method, min_queries
    )
    metrics = metric_names(metrics)
    for name in metrics:
        parse_metric_name(name)
    check_option("ties", ties, TIES)
    check_aggregate_options(no_relevant, "mean")
    plan_options = kernel_options("skrank.dask.evaluate_by", metrics, options)
    by = [by] if isinstance(by, str) else list(by) if isinstance(by, (list, tuple)) else by
    if not isinstance(by, list) or not by:
        raise ValueError(
            f"`by` must name a column of `df` or a list of columns, got {describe(by)}."
        )
    for name in by:
        check_column(df, "by", name)
    frame, on_index, partitioned, row_label = frame_input(
        df, [("y_true", y_true), ("y_score", y_score),
             ("sample_weight", sample_weight)],
        query_id=query_id, partitioned_by_query=partitioned_by_query, extra=by,
    )
    rng = make_rng(random_state)
    frame, on_index, restore_order = whole_queries(frame, query_id, on_index,
                                                   partitioned, ties)
    plan = PartitionPlan(metrics, y_true, y_score, query_id, sample_weight, ties,
                         no_relevant, on_index, restore_order, plan_options,
                         row_label=row_label)
    per_query_meta = query_meta(frame._meta, plan)
    meta = per_query_meta.copy()
    meta[_N_ROWS] = np.array([], dtype=np.int64)
    for name in by:
        meta[name] = frame._meta[name].iloc[:0].to_numpy()
    meta[_VARIES] = np.array([], dtype=object)
    per_query = frame.map_partitions(
        _query_segments, plan, by, meta, per_query_meta, meta=meta,
        clear_divisions=True,
    ).compute()
    if per_query.shape[0] == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")

    # the queries in evaluate()'s order: ascending id
    ids = per_query.index
    keys, _ = factorize(ids, ids.shape[0])
    order = np.argsort(keys, kind="stable")
    per_query = per_query.iloc[order]
    ids = per_query.index.to_numpy()
    varies = per_query[_VARIES].to_numpy()
    if (varies != "").any():
        bad = np.flatnonzero(varies != "")
        more = f" (and {bad.shape[0] - 1} more queries)" if bad.shape[0] > 1 else ""
        raise ValueError(
            "`by` must be constant within each query (a segment is a property of "
            f"a query), but query_id {ids[bad[0]]!r}{more} has rows in several "
            f"segments ({varies[bad[0]]})."
        )
    by_columns = [(name, per_query[name].to_numpy()) for name in by]
    n_queries = ids.shape[0]
    query_segment, keys = segments_of_queries(
        by_columns, np.arange(n_queries), n_queries, ids
    )
    weights = plan.weight_columns()
    values = {
        m: (per_query[m].to_numpy(dtype=np.float64),
            per_query[weights[m]].to_numpy(dtype=np.float64))
        for m in metrics
    }
    return summarise_segments(
        values, query_segment, per_query[_N_ROWS].to_numpy(), keys, by,
        level=level, n_resamples=n_resamples, method=method, rng=rng,
        min_queries=min_queries,
    )
