"""evaluate() on a Dask DataFrame: shuffle by query, in-memory kernels, mergeable means.

The plan has three steps, all run by Dask's scheduler:

1. **Shuffle once by query id** with Dask's own shuffle, so that every
   query's rows sit in one partition (skipped when the frame is already
   partitioned by query: known divisions on a query-id index, or
   ``partitioned_by_query=True``).
2. **Per partition**, skrank's in-memory layout and kernels, the same
   :func:`skrank.metrics._evaluate.metric_query_values` the in-memory
   :func:`skrank.evaluate` uses, run by
   :class:`skrank.metrics._plan.PartitionPlan` (shared with skrank.spark).
3. **A tree reduction of mergeable partial sums**
   (:class:`skrank._core._aggregate.PartialMean`), finished on the client by
   the very step that finishes the in-memory mean.
"""

from .._core._aggregate import check_aggregate_options, finish_mean, PartialMean
from .._core._layout import TIES
from .._core._malloc import reused_memory
from .._core._validation import check_bool, check_option
from ..metrics._evaluate import DEFAULT_METRICS, metric_names
from ..metrics._plan import PartitionPlan, kernel_options
from ..metrics._registry import parse_metric_name
from .._core._quiet import quiet_dask
from ._accumulate import merged_accumulator, only_top_k
from ._frame_input import check_dask_frame, frame_input
from ._shuffle import (
    PARTIAL_COLUMNS,
    merge_partials,
    partials_frame,
    query_frame,
    query_meta,
    whole_queries,
)


@reused_memory()
def _partials(frame, plan):
    """Chunk of the reduction: one row of partial sums per metric."""
    import pandas as pd

    return partials_frame(plan.partials(frame), frame.shape[0], pd)


def evaluate(
    df,
    metrics=DEFAULT_METRICS,
    *,
    y_true="label",
    y_score="score",
    query_id="qid",
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    partitioned_by_query="auto",
    top_k_merge=False,
    **options,
):
    """Compute ranking metrics over a Dask DataFrame, query by query.

    The same numbers as :func:`skrank.evaluate` on the same rows (to
    rounding), computed by Dask's scheduler: one shuffle by query id, skrank's
    in-memory kernels on each partition, and a tree reduction of partial
    sums. No row is collected on the client; the rows of a query may start
    in any partitions.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        One row per (query, item): relevance, score, query id and optionally
        a weight, in the columns named below.
    metrics : str or list of str, default=("ndcg@10", "map", "mrr", \
"precision@10", "recall@10")
        Metric names, as for :func:`skrank.evaluate` (``"ndcg@10"``,
        ``"map"``, ``"fap@5"``, ``"gauc"``, ...).
    y_true : str, default="label"
        Column of relevance: binary (0/1) or graded (non-negative).
    y_score : str, default="score"
        Column of scores; within a query, higher scores rank first.
    query_id : str, default="qid"
        Column (or the name of the index) holding each row's query id: ints,
        strings or any hashable ids. Object ids are grouped as
        :func:`skrank.evaluate` groups them (``3`` and ``3.0`` one query,
        ``5`` and ``"5"`` two); a ``ValueError`` when Dask's string
        conversion of a ``dd.from_pandas`` frame changed which rows share a
        query (see the user guide's Big data page).
    sample_weight : str, default=None
        Column of row weights; a query weighs the mean of its rows' weights
        (GAUC: their sum), as in :func:`skrank.evaluate`.
    ties : {"average", "input"}, default="average"
        ``"average"``: the exact expected value over all orders of rows with
        equal scores. ``"input"``: rows with equal scores keep the frame's
        row order (partition by partition), which the shuffle preserves.
    no_relevant : {"skip", "zero", "one", "error"}, default="skip"
        What a query with no relevant row scores: left out of the mean, 0,
        1, or a ``ValueError``.
    aggregate : {"mean", None}, default="mean"
        ``"mean"``: the weighted means, computed now. None: a lazy Dask
        DataFrame with one row per query (see Returns).
    partitioned_by_query : {"auto", True, False}, default="auto"
        Whether every query's rows already sit in one partition, so that the
        shuffle can be skipped. ``"auto"``: only when ``query_id`` names an
        index with known divisions (as after ``df.set_index("qid")``).
        True: trust it (the caller's promise; a query split over partitions
        would then be scored as several queries). False: always shuffle.
    top_k_merge : bool, default=False
        With metrics that all read only the top k (``"ndcg@10"``,
        ``"precision@5"``, ``"mrr@10"``, ``"map@10"``, ``"recall@20"``,
        ``"f1@5"``, ``"fap@10"``, ``"hit_rate@10"``, ``"dcg@10"``) and
        ``aggregate="mean"``: no shuffle. Each partition's
        :class:`skrank.RankingAccumulator` keeps, per query, the rows that
        can still be in the top k and a summary of the rest, and Dask merges
        the accumulators in a tree (8 at a time). It pays when queries are
        long compared with k; with short queries nearly every row reaches
        the last merge, in one process, and the shuffle is the better plan.
    **options : dict
        Metric options as for :func:`skrank.evaluate`: ``gain``,
        ``normalize``, ``beta``, ``p``, ... ``compat``, ``score_dtype`` and
        ``retrieved`` are refused (a peer's preset runs in
        :func:`skrank.evaluate` only): give the preset's options themselves.

    Returns
    -------
    results : dict or dask.dataframe.DataFrame
        With ``aggregate="mean"``: metric name -> float, in the order of
        ``metrics``, as :func:`skrank.evaluate` returns. With
        ``aggregate=None``: a Dask DataFrame indexed by query id (not
        sorted across partitions; sorted within each) with one float column
        per metric (nan for a query left out under ``no_relevant="skip"``),
        a ``"weight"`` column (each query's weight in the mean) and, for
        metrics with weights of their own such as GAUC, a ``"<metric>_weight"``
        column. :func:`skrank.compare` accepts two or more of these frames.

    See Also
    --------
    skrank.evaluate : the same on in-memory arrays.

    Notes
    -----
    With ``aggregate=None`` and ``no_relevant="error"``, the error is raised
    when the frame is computed, naming the queries of the partition that
    met them first.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> import skrank.dask
    >>> rows = pd.DataFrame({
    ...     "qid": ["a", "a", "a", "b", "b", "b"],
    ...     "label": [1, 0, 0, 0, 1, 1],
    ...     "score": [0.9, 0.5, 0.1, 0.8, 0.7, 0.7],
    ... })
    >>> df = dd.from_pandas(rows, npartitions=2)       # query "b" spans both
    >>> skrank.dask.evaluate(df, ["mrr", "precision@1"])
    {'mrr': 0.75, 'precision@1': 0.5}
    >>> per_query = skrank.dask.evaluate(df, ["mrr"], aggregate=None)
    >>> per_query.compute().sort_index()
         mrr  weight
    qid
    a    1.0     1.0
    b    0.5     1.0
    """
    check_dask_frame(df, "skrank.evaluate")
    metrics = metric_names(metrics)
    for name in metrics:
        parse_metric_name(name)
    check_option("ties", ties, TIES)
    check_aggregate_options(no_relevant, aggregate)
    top_k_merge = check_bool("top_k_merge", top_k_merge)
    plan_options = kernel_options("skrank.dask.evaluate", metrics, options)
    frame, on_index, partitioned, row_label = frame_input(
        df, [("y_true", y_true), ("y_score", y_score),
             ("sample_weight", sample_weight)],
        query_id=query_id, partitioned_by_query=partitioned_by_query,
    )
    if top_k_merge and not partitioned:
        return _evaluate_by_merging(frame, metrics, y_true, y_score, query_id,
                                    sample_weight, ties, no_relevant, on_index,
                                    aggregate, options)
    frame, on_index, restore_order = whole_queries(frame, query_id, on_index,
                                                   partitioned, ties)
    plan = PartitionPlan(metrics, y_true, y_score, query_id, sample_weight, ties,
                         no_relevant, on_index, restore_order, plan_options,
                         row_label=row_label)

    if aggregate is None:
        meta = query_meta(frame._meta, plan)
        return frame.map_partitions(
            query_frame, plan, meta, meta=meta,
            clear_divisions=not (on_index and frame.known_divisions),
        )

    import pandas as pd

    empty = partials_frame([PartialMean(0.0, 0.0, 0.0, 0)], 0, pd)
    with quiet_dask():
        merged = frame.reduction(
            _partials, aggregate=merge_partials, meta=empty,
            chunk_kwargs={"plan": plan},
        ).compute()
    if int(merged["n_rows"].iloc[0]) == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    results = {}
    for name, row in zip(metrics, merged[PARTIAL_COLUMNS].itertuples(index=False)):
        results[name] = finish_mean(PartialMean(*row))
    return results


def _evaluate_by_merging(frame, metrics, y_true, y_score, query_id, sample_weight,
                         ties, no_relevant, on_index, aggregate, options):
    """``top_k_merge=True``: per-partition accumulators merged in a tree."""
    if aggregate != "mean":
        raise ValueError(
            "`top_k_merge=True` computes the means (aggregate='mean'); for "
            "per-query values leave it False (the frame is shuffled by query)."
        )
    if not only_top_k(metrics):
        raise ValueError(
            "`top_k_merge=True` needs metrics that read only the top k rows of "
            f"a query, each with a cutoff (such as 'ndcg@10'), got {metrics}; "
            "leave it False for the others."
        )
    plan = PartitionPlan(metrics, y_true, y_score, query_id, sample_weight, ties,
                         no_relevant, on_index, False, metric_options=options,
                         row_label="query" if on_index else "index")
    accumulator = merged_accumulator(frame, plan)
    if accumulator.n_rows_ == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    return accumulator.result()
