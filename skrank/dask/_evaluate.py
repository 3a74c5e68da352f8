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

import numbers

import numpy as np

from .._core._aggregate import (
    check_aggregate_options,
    finish_mean,
    merge_partial_means,
    PartialMean,
)
from .._core._layout import TIES
from .._core._malloc import reused_memory
from .._core._optional import import_optional
from .._core._validation import check_bool, check_option, describe
from ..metrics._evaluate import DEFAULT_METRICS, metric_names
from ..metrics._plan import ROW as _ROW, PartitionPlan as _Plan  # shared with spark
from ..metrics._plan import kernel_options
from ..metrics._registry import parse_metric_name
from .._core._quiet import quiet_dask
from ._accumulate import merged_accumulator, only_top_k

_PARTIAL_COLUMNS = list(PartialMean._fields)


def _import_dask_dataframe(needed_by="skrank.dask.evaluate"):
    """``dask.dataframe``, or an ImportError naming ``needed_by`` and the dask extra."""
    return import_optional("dask.dataframe", needed_by)


@reused_memory()
def _partials(frame, plan):
    """Chunk of the reduction: one row of partial sums per metric."""
    import pandas as pd

    return _partials_frame(plan.partials(frame), frame.shape[0], pd)


def _partials_frame(rows, n_rows, pd):
    """Partial sums as a small frame: row i for metric i, plus the rows seen."""
    frame = pd.DataFrame(
        [tuple(row[:-1]) for row in rows], columns=_PARTIAL_COLUMNS[:-1]
    )
    ids = np.empty(len(rows), dtype=object)
    ids[:] = [row.undefined_ids for row in rows]
    frame["undefined_ids"] = ids
    frame["n_rows"] = n_rows
    return frame


def _merge(frame):
    """Combine/aggregate of the reduction: the partial sums of many partitions."""
    import pandas as pd

    index = frame.index.to_numpy()
    n_metrics = int(index.max()) + 1 if index.shape[0] else 0
    partials = frame[_PARTIAL_COLUMNS]
    merged = [
        merge_partial_means(
            PartialMean(*row)
            for row in partials[index == i].itertuples(index=False)
        )
        for i in range(n_metrics)
    ]
    n_rows = int(frame.loc[index == 0, "n_rows"].sum()) if n_metrics else 0
    return _partials_frame(merged, n_rows, pd)


@reused_memory()
def _query_frame(frame, plan, meta):
    """Per partition: one row per query, one column per metric, and the weights."""
    import pandas as pd

    ranked = plan.rank(frame)
    if ranked is None:
        return meta
    columns = plan.query_columns(ranked)
    # the partition's own dtype: a categorical's categories may be unknown in meta
    ids = frame.index if plan.query_on_index else frame[plan.query_id]
    index = pd.Index(ranked.query_ids, dtype=ids.dtype, name=meta.index.name)
    return pd.DataFrame(columns, index=index)[list(meta.columns)]


def _check_column(df, argument, name, allow_index=False):
    if name in df.columns:
        return False
    if allow_index and name is not None and df.index.name == name:
        return True
    where = " or the index name" if allow_index else ""
    raise ValueError(
        f"`{argument}` must name a column of `df`{where}, got {describe(name)}; "
        f"the columns are {list(df.columns)}."
    )


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
    dd = _import_dask_dataframe()
    if not isinstance(df, dd.DataFrame):
        raise ValueError(
            f"`df` must be a dask.dataframe.DataFrame, got {describe(df)}; for "
            "in-memory data use skrank.evaluate."
        )
    metrics = metric_names(metrics)
    for name in metrics:
        parse_metric_name(name)
    check_option("ties", ties, TIES)
    check_aggregate_options(no_relevant, aggregate)
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    top_k_merge = check_bool("top_k_merge", top_k_merge)
    plan_options = kernel_options("skrank.dask.evaluate", metrics, options)
    _check_column(df, "y_true", y_true)
    _check_column(df, "y_score", y_score)
    if sample_weight is not None:
        _check_column(df, "sample_weight", sample_weight)
    on_index = _check_column(df, "query_id", query_id, allow_index=True)
    _check_converted_ids(df, query_id, on_index)

    columns = [y_true, y_score] + ([] if sample_weight is None else [sample_weight])
    frame = df[list(dict.fromkeys(columns + ([] if on_index else [query_id])))]
    if partitioned_by_query == "auto":
        partitioned = on_index and df.known_divisions
    else:
        partitioned = partitioned_by_query
    if top_k_merge and not partitioned:
        return _evaluate_by_merging(frame, metrics, y_true, y_score, query_id,
                                    sample_weight, ties, no_relevant, on_index,
                                    aggregate, options)
    # the shuffle keeps the frame's index, unless the ids were the index
    row_label = "query" if on_index else "index"
    frame, on_index, restore_order = _whole_queries(frame, query_id, on_index,
                                                    partitioned, ties)
    plan = _Plan(metrics, y_true, y_score, query_id, sample_weight, ties,
                 no_relevant, on_index, restore_order, plan_options,
                 row_label=row_label)

    if aggregate is None:
        meta = _query_meta(frame._meta, plan)
        return frame.map_partitions(
            _query_frame, plan, meta, meta=meta,
            clear_divisions=not (on_index and frame.known_divisions),
        )

    import pandas as pd

    empty = _partials_frame([PartialMean(0.0, 0.0, 0.0, 0)], 0, pd)
    with quiet_dask():
        merged = frame.reduction(
            _partials, aggregate=_merge, meta=empty, chunk_kwargs={"plan": plan},
        ).compute()
    if int(merged["n_rows"].iloc[0]) == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    results = {}
    for name, row in zip(metrics, merged[_PARTIAL_COLUMNS].itertuples(index=False)):
        results[name] = finish_mean(PartialMean(*row))
    return results


def _whole_queries(frame, query_id, on_index, partitioned, ties):
    """``(frame, on_index, restore_order)``: each query whole in one partition.

    Shuffled by query unless ``partitioned``; with ``ties="input"`` the rows
    are numbered first, so each partition can restore the input order.
    """
    restore_order = ties == "input" and not partitioned
    if restore_order:
        frame = frame.map_partitions(_number_rows, meta=_number_rows(frame._meta))
    if not partitioned:
        if on_index:
            frame = frame.reset_index()
            on_index = False
        frame = _shuffle_by_query(frame, query_id)
    return frame, on_index, restore_order


_KEY = "__skrank_query_key__"  # shuffle key of object ids: equal ids, equal keys


def _shuffle_by_query(frame, query_id):
    """``frame`` shuffled so that each query's rows share a partition.

    Object ids are grouped as :func:`skrank.evaluate` groups them (by Python
    equality: ``3``, ``3.0`` and ``np.int64(3)`` are one query, ``5`` and
    ``"5"`` two). Dask would hash each object id through its string (``"3"``
    and ``"3.0"`` can land apart), and its p2p shuffle cannot move a column
    of mixed types; so object ids are shuffled on :func:`_partition_key`,
    which equal ids share in every process, by the task-based shuffle, which
    moves any Python object.
    """
    if frame._meta[query_id].dtype != object:
        return frame.shuffle(on=query_id)
    meta = _with_partition_key(frame._meta, query_id)
    keyed = frame.map_partitions(_with_partition_key, query_id, meta=meta)
    return keyed.shuffle(on=_KEY, shuffle_method="tasks")


def _with_partition_key(frame, query_id):
    import pandas as pd

    frame = frame.copy()
    ids = frame[query_id]
    if pd.api.types.infer_dtype(ids, skipna=False) == "string":
        frame[_KEY] = ids  # str ids only: the id is its own key
    else:
        keys = np.empty(ids.shape[0], dtype=object)
        keys[:] = [_partition_key(value) for value in ids]
        frame[_KEY] = keys
    return frame


def _partition_key(value):
    """A string that ids equal in Python share, the same in every process.

    Numbers use Python's numeric hash, which equal numbers of any type share
    (``hash(3) == hash(3.0) == hash(np.int64(3))``) and which, unlike the
    hash of a string, is not salted per process. Unequal ids may share a
    key: they only share a partition, where the in-memory factorisation
    tells them apart. Ids of other types (dates, unhashable or missing
    values) all share one key, so in-memory rules and errors apply to them.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return "\x00b" + value.hex()
    if isinstance(value, (numbers.Number, np.bool_)):
        try:
            return f"\x00n{hash(value)}"
        except TypeError:  # an unhashable number, such as Decimal("sNaN")
            return "\x00"
    if isinstance(value, tuple):
        return "\x00t" + "\x00,".join(_partition_key(item) for item in value)
    return "\x00"


def _check_converted_ids(df, query_id, on_index):
    """Refuse ids that Dask's string conversion grouped differently from memory.

    ``dd.from_pandas`` turns object columns into strings when Dask's
    ``"dataframe.convert-string"`` setting is on (the default): ``5`` and
    ``"5"`` both become ``"5"``, ``3`` and ``3.0`` become ``"3"`` and
    ``"3.0"``, so the frame no longer holds the caller's ids. The original
    ids are still on the client in the frame's in-memory source; when
    converting them changes which rows share a query, this raises a
    ValueError rather than score other queries than :func:`skrank.evaluate`
    would. Best effort: it reads dask-expr's ``FromPandas`` expression
    (private; a test fails if it moves) and sees only a source column of the
    same name.
    """
    import pandas as pd

    ids = df._meta.index if on_index else df._meta[query_id]
    if ids.dtype == object or not pd.api.types.is_string_dtype(ids.dtype):
        return
    try:
        from dask.dataframe.dask_expr.io.io import FromPandas

        sources = [
            getattr(op.frame, "_data", op.frame)
            for op in df.expr.find_operations(FromPandas)
            if op.pyarrow_strings_enabled
        ]
    except (ImportError, AttributeError):  # pragma: no cover - another Dask
        return
    for source in sources:
        if on_index:
            original = source.index if source.index.name == query_id else None
        else:
            original = source.get(query_id) if hasattr(source, "get") else None
        if original is None or original.dtype != object:
            continue
        if pd.api.types.infer_dtype(original, skipna=False) == "string":
            continue  # str ids only: their strings are themselves
        pair = _regrouped_pair(original, original.astype(ids.dtype))
        if pair is not None:
            raise ValueError(_converted_ids_message(query_id, *pair))


def _regrouped_pair(original, converted):
    """Two ids grouped differently by equality and by their strings, or None."""
    import pandas as pd

    codes = pd.DataFrame({
        "id": pd.factorize(original)[0], "string": pd.factorize(converted)[0],
    })
    if (codes.to_numpy() < 0).any():  # missing ids: refused by the in-memory layout
        return None
    pairs = codes.drop_duplicates()
    for column, apart in (("id", True), ("string", False)):
        shared = pairs[pairs[column].duplicated(keep=False)]
        if shared.shape[0]:
            first, second = shared.index[:2]
            values = np.asarray(original, dtype=object)
            return values[first], values[second], apart
    return None


def _converted_ids_message(query_id, first, second, apart):
    now, before = (
        ("two strings", "one query") if apart else ("one string", "two queries")
    )
    return (
        f"`query_id` {query_id!r} held ids of different types, {first!r} and "
        f"{second!r}, which skrank.evaluate counts as {before}; Dask's string "
        "conversion (its \"dataframe.convert-string\" setting, on by default) made "
        f"them {now} when the frame was built, so the queries would not be the "
        "same. Give the ids one type before building the Dask frame (such as "
        "`rows[\"qid\"].astype(str)`), or build it under "
        "`dask.config.set({\"dataframe.convert-string\": False})`: skrank.dask then "
        "groups object ids as skrank.evaluate does."
    )


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
    plan = _Plan(metrics, y_true, y_score, query_id, sample_weight, ties,
                 no_relevant, on_index, False, metric_options=options,
                 row_label="query" if on_index else "index")
    accumulator = merged_accumulator(frame, plan)
    if accumulator.n_rows_ == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    return accumulator.result()


def _number_rows(frame, partition_info=None):
    """Each row's input position: partition number in the high bits, row in the low."""
    number = 0 if partition_info is None else partition_info["number"]
    frame = frame.copy()
    frame[_ROW] = np.int64(number) * 2**40 + np.arange(frame.shape[0], dtype=np.int64)
    return frame


def _query_meta(meta, plan):
    import pandas as pd

    if plan.query_on_index:
        index_dtype = meta.index.dtype
    else:
        index_dtype = meta[plan.query_id].dtype
    # "weight" (first) only when a metric uses it: GAUC alone has "gauc_weight"
    weights = sorted(dict.fromkeys(plan.weight_columns().values()),
                     key=lambda column: column != "weight")
    names = plan.metrics + weights
    columns = {name: pd.Series([], dtype=np.float64) for name in names}
    index = pd.Index([], dtype=index_dtype, name=plan.query_id)
    return pd.DataFrame(columns, index=index)
