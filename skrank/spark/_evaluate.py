"""evaluate() on a Spark DataFrame: repartition by query, in-memory kernels, mergeable means.

The plan has three steps, all but the last run by Spark's executors:

1. **Repartition once by query id** with Spark's own hash partitioning, only
   the needed columns, so that every query's rows sit in one partition
   (skipped when the caller says the frame already is, or when Spark's plan
   shows it is hash-partitioned on the query id).
2. **Per partition**, ``mapInArrow``: the partition's Arrow batches become
   one pandas frame, and :class:`skrank.metrics._plan.PartitionPlan` runs skrank's
   in-memory layout and kernels on it, the same plan
   :func:`skrank.dask.evaluate` runs on a Dask partition.
3. **The partial means** (one small row per partition and metric) reach the
   driver, are merged in partition order and finished by the very step that
   finishes the in-memory mean. No row of ``df`` is collected.

A plain scan of local Parquet files skips Spark's reader and its hand-over
of rows: the Python workers read the files (:mod:`skrank.spark._files`).
"""

import pickle
import re

import numpy as np

from .._core._aggregate import (
    PartialMean,
    check_aggregate_options,
    finish_mean,
    merge_partial_means,
)
from .._core._layout import TIES
from .._core._optional import import_optional
from .._core._validation import check_bool, check_option, describe
from ..metrics._evaluate import metric_names
from ..metrics._plan import EMPTY_PARTIAL, ROW, PartitionPlan, kernel_options
from ..metrics._registry import parse_metric_name
from ._files import READ_FAILED, bucket_batches, parquet_files, read_buckets, read_tasks
from ._workers import driver_python_for_local_workers, missing_module_error

_PARTITION = "__skrank_partition__"
_METRIC = "__skrank_metric__"
_N_ROWS = "__skrank_n_rows__"
_IDS = "__skrank_undefined_ids__"
_PARTIAL_SCHEMA = (
    f"{_PARTITION} long, {_METRIC} int, scale double, weighted_sum double, "
    f"weight_sum double, n_values long, n_undefined long, {_IDS} binary, "
    f"{_N_ROWS} long"
)


def _import_pyspark_sql():
    return import_optional("pyspark.sql", "skrank.spark.evaluate")


def _partition_frame(batches):
    """All of a partition's Arrow batches as one pandas frame (None if no rows)."""
    import pyarrow as pa

    batches = list(batches)
    if not batches:
        return None
    table = pa.Table.from_batches(batches)
    if table.num_rows == 0:
        return None
    return table.to_pandas()


def _partition_id():
    from pyspark import TaskContext

    context = TaskContext.get()
    return 0 if context is None else context.partitionId()


def _partials(batches, plan):
    """mapInArrow: one row of partial sums per metric for this partition."""
    import pyarrow as pa

    frame = _partition_frame(batches)
    partition, n_rows, partials = _scored(frame, plan)
    columns = {
        _PARTITION: pa.array([partition] * len(partials), pa.int64()),
        _METRIC: pa.array(range(len(partials)), pa.int32()),
        "scale": pa.array([p.scale for p in partials], pa.float64()),
        "weighted_sum": pa.array([p.weighted_sum for p in partials], pa.float64()),
        "weight_sum": pa.array([p.weight_sum for p in partials], pa.float64()),
        "n_values": pa.array([p.n_values for p in partials], pa.int64()),
        "n_undefined": pa.array([p.n_undefined for p in partials], pa.int64()),
        _IDS: pa.array([pickle.dumps(_plain(p.undefined_ids)) for p in partials],
                       pa.binary()),
        _N_ROWS: pa.array([n_rows] * len(partials), pa.int64()),
    }
    yield pa.RecordBatch.from_pydict(columns)


def _scored(frame, plan):
    """``(partition, n_rows, partials)`` of a partition's frame (None: no rows)."""
    if frame is None:
        return _partition_id(), 0, [EMPTY_PARTIAL for _ in plan.metrics]
    return _partition_id(), frame.shape[0], plan.partials(frame)


def _scored_buckets(pairs, plan):
    """mapPartitions after the shuffle of buckets: this partition's partial means."""
    yield _scored(_partition_frame(bucket_batches(pairs)), plan)


def _plain(ids):
    """Ids as Python objects (numpy scalars pickle with numpy's module path)."""
    return tuple(i.item() if isinstance(i, np.generic) else i for i in ids)


def _query_values(batches, plan, schema):
    """mapInArrow: one row per query of this partition, one column per metric."""
    import pyarrow as pa

    frame = _partition_frame(batches)
    if frame is None:
        return
    ranked = plan.rank(frame)
    columns = plan.query_columns(ranked)
    id_field = schema.field(plan.query_id)
    ids = pa.array(np.asarray(ranked.query_ids), from_pandas=True)
    if ids.type != id_field.type:
        ids = ids.cast(id_field.type)
    arrays = [ids] + [
        pa.array(columns[field.name], pa.float64()) for field in list(schema)[1:]
    ]
    yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def _check_column(df, argument, name):
    if isinstance(name, str) and name in df.columns:
        return
    raise ValueError(
        f"`{argument}` must name a column of `df`, got {describe(name)}; the "
        f"columns are {list(df.columns)}."
    )


def _partitioned_on(df, query_id):
    """Whether Spark's plan puts all rows of a ``query_id`` value in one partition.

    True when the physical plan (before adaptive execution, which may only
    merge whole partitions) is hash- or range-partitioned on the column
    ``query_id`` alone, as after ``df.repartition("qid")``. Best effort,
    through the JVM's query execution: a Spark Connect frame, or another
    Spark, answers False (and ``df`` is repartitioned).
    """
    try:
        plan = df._jdf.queryExecution().sparkPlan()
        partitioning = plan.outputPartitioning()
        kind = partitioning.getClass().getSimpleName()
        if kind not in ("HashPartitioning", "RangePartitioning"):
            return False
        expressions = partitioning.expressions()
        if expressions.size() != 1:
            return False
        expression = expressions.apply(0)
        if kind == "RangePartitioning":
            expression = expression.child()  # a SortOrder
        output = plan.output()
        for i in range(output.size()):
            attribute = output.apply(i)
            if attribute.name() == query_id:
                return bool(attribute.semanticEquals(expression))
        return False
    except Exception:  # noqa: BLE001 - no JVM plan to read: repartition
        return False


#: input bytes (Spark's size estimate) per partition scored in Python: about
#: 5e5 rows of (int64 id, int8 label, float64 score); small enough for the
#: workers' memory, many enough to keep every core busy
_PARTITION_BYTES = 8 * 2**20


def _n_partitions(frame):
    """How many partitions to repartition ``frame`` into, or None to leave it to Spark.

    From the optimizer's size estimate of the selected columns: one
    partition per :data:`_PARTITION_BYTES`, at least one per core. None
    without an estimate (a frame made from an RDD, a Spark Connect frame):
    Spark's ``spark.sql.shuffle.partitions`` then applies.
    """
    try:
        size = int(frame._jdf.queryExecution().optimizedPlan().stats().sizeInBytes())
        cores = int(frame.sparkSession.sparkContext.defaultParallelism)
    except Exception:  # noqa: BLE001 - no JVM plan to read
        return None
    if size <= 0 or size >= 2**62:  # Spark's "unknown" is Long.MaxValue
        return None
    return max(cores, -(-size // _PARTITION_BYTES))


def _worker_error(exc):
    """The ValueError a Python worker raised, re-raised on the driver, or None."""
    text = str(exc)
    found = re.findall(r"^ValueError: (.*?)(?=\n\S|\Z)", text, flags=re.M | re.S)
    if not found:
        return None
    return ValueError(found[-1].strip())


def _run(function, df):
    """Call ``function``, a Spark action on ``df``; a worker's error is the driver's.

    A worker's ValueError is raised again as a plain ValueError; a module a
    worker could not import, as an ImportError naming the workers' Python
    (:func:`~skrank.spark._workers.missing_module_error`).
    """
    try:
        return function()
    except Exception as exc:
        # a DataFrame job's worker error, or an RDD job's (inside the JVM's)
        if type(exc).__name__ not in ("PythonException", "Py4JJavaError"):
            raise
        error = _worker_error(exc) or missing_module_error(str(exc), df)
        if error is None:
            raise
        raise error from None


def evaluate(
    df,
    *,
    metrics=None,
    y_true="label",
    y_score="score",
    query_id="qid",
    sample_weight=None,
    per_query=False,
    **options,
):
    """Compute ranking metrics over a Spark DataFrame, query by query.

    The same numbers as :func:`skrank.evaluate` on the same rows (to
    rounding), computed by Spark's executors: one repartition by query id,
    skrank's in-memory kernels on each partition (``mapInArrow``), and the
    partial sums merged on the driver. No row of ``df`` is collected on the
    driver; the rows of a query may start in any partitions.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        One row per (query, item): relevance, score, query id and optionally
        a weight, in the columns named below.
    metrics : str or list of str, default=None
        Metric names, as for :func:`skrank.evaluate` (``"ndcg@10"``,
        ``"map"``, ``"fap@5"``, ``"gauc"``, ...). None: ``("ndcg@10",
        "map", "mrr", "precision@10", "recall@10")``.
    y_true : str, default="label"
        Column of relevance: binary (0/1) or graded (non-negative).
    y_score : str, default="score"
        Column of scores; within a query, higher scores rank first.
    query_id : str, default="qid"
        Column holding each row's query id (integers, strings, or any type
        Spark hashes).
    sample_weight : str, default=None
        Column of row weights; a query weighs the mean of its rows' weights
        (GAUC: their sum), as in :func:`skrank.evaluate`.
    per_query : bool, default=False
        False: the weighted means, computed now. True: a lazy Spark DataFrame
        with one row per query (see Returns).
    **options : dict
        ``ties`` ({"average", "input"}, default "average"): ``"input"``
        keeps rows with equal scores in the frame's row order (its
        partitions in order), which the repartition preserves.
        ``no_relevant`` ({"skip", "zero", "one", "error"}, default "skip"):
        what a query with no relevant row scores.
        ``partitioned_by_query`` ({"auto", True, False}, default "auto"):
        whether every query's rows already sit in one partition, so that the
        repartition can be skipped; ``"auto"`` skips it only when Spark's
        plan shows a hash partitioning on ``query_id`` alone (as after
        ``df.repartition("qid")``); True is the caller's promise (a query
        split over partitions would be scored as several queries).
        ``read_files`` ({"auto", False}, default "auto"): when ``df`` is a
        plain scan of local Parquet files and the means are asked for,
        the executors' Python workers read the files with pyarrow instead of
        receiving Spark's rows one by one (see Notes); False always uses
        Spark's reader.
        Metric options as for :func:`skrank.evaluate`: ``gain``,
        ``normalize``, ``beta``, ``p``. ``compat``, ``score_dtype`` and
        ``retrieved`` are :func:`skrank.evaluate`'s only (a ``ValueError``
        here): give a preset's options themselves.

    Returns
    -------
    results : dict or pyspark.sql.DataFrame
        With ``per_query=False``: metric name -> float, in the order of
        ``metrics``, as :func:`skrank.evaluate` returns. With
        ``per_query=True``: a Spark DataFrame with one row per query, not
        ordered: the ``query_id`` column (its type kept), one double column
        per metric (NaN for a query left out under ``no_relevant="skip"``,
        or a single-class query of GAUC), a ``"weight"`` column (each
        query's weight in the mean) and, for metrics with weights of their
        own such as GAUC, a ``"<metric>_weight"`` column.

    Raises
    ------
    ValueError
        For bad arguments, and for bad rows (NaN scores, negative relevance,
        missing query ids, ...) with the message :func:`skrank.evaluate`
        gives, raised on the driver when Spark runs the job. With
        ``per_query=True`` the rows are read when the returned frame is
        computed: Spark then raises its own exception, whose text holds the
        same ``ValueError``.

    See Also
    --------
    skrank.evaluate : the same on in-memory arrays.
    skrank.dask.evaluate : the same on a Dask DataFrame.

    Notes
    -----
    Each partition is held in the executor's Python worker as one pandas
    frame while it is scored. The repartition makes one partition per 8 MiB
    of Spark's size estimate of the columns read (at least one per core;
    ``spark.sql.shuffle.partitions`` when Spark has no estimate); to choose
    them yourself, repartition ``df`` by the query id and pass
    ``partitioned_by_query=True``.

    When ``df`` is nothing but a scan of Parquet files on the local file
    system (``spark.read.parquet(path)``, its columns selected, integer or
    string query ids, no partition directories), the Python workers read
    the needed columns themselves (a task per 128 MiB of files or so),
    bucket the rows by a hash of the query id, and Spark's shuffle moves
    each bucket as one Arrow message: no row is handed over from the JVM,
    which is most of the time of the other path. A file the workers cannot
    read as Spark does sends the call back to Spark's reader.

    On a local master (``local[n]``) the jobs' Python workers run the
    driver's own interpreter (``sys.executable``) unless ``PYSPARK_PYTHON``
    or ``spark.pyspark.python`` names one: pyspark's default, ``python3``
    from the PATH, is another Python when a virtual environment's
    interpreter runs without the environment activated. On a cluster, a
    module the workers cannot import is an ``ImportError`` naming their
    Python.

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> import skrank.spark
    >>> spark = SparkSession.builder.master("local[1]").getOrCreate()
    >>> df = spark.createDataFrame(
    ...     [("a", 1, 0.9), ("a", 0, 0.5), ("a", 0, 0.1),
    ...      ("b", 0, 0.8), ("b", 1, 0.7), ("b", 1, 0.7)],
    ...     ["qid", "label", "score"],
    ... )
    >>> skrank.spark.evaluate(df, metrics=["mrr", "precision@1"])
    {'mrr': 0.75, 'precision@1': 0.5}
    >>> per_query = skrank.spark.evaluate(df, metrics=["mrr"], per_query=True)
    >>> per_query.orderBy("qid").show()
    +---+---+------+
    |qid|mrr|weight|
    +---+---+------+
    |  a|1.0|   1.0|
    |  b|0.5|   1.0|
    +---+---+------+
    <BLANKLINE>
    """
    sql = _import_pyspark_sql()
    if not isinstance(df, sql.DataFrame):
        raise ValueError(
            f"`df` must be a pyspark.sql.DataFrame, got {describe(df)}; for "
            "in-memory data use skrank.evaluate."
        )
    ties = options.pop("ties", "average")
    no_relevant = options.pop("no_relevant", "skip")
    partitioned_by_query = options.pop("partitioned_by_query", "auto")
    read_files = options.pop("read_files", "auto")
    metrics = metric_names(metrics)
    for name in metrics:
        parse_metric_name(name)
    check_option("ties", ties, TIES)
    check_aggregate_options(no_relevant, "mean")
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    check_option("read_files", read_files, ("auto", False))
    per_query = check_bool("per_query", per_query)
    plan_options = kernel_options("skrank.spark.evaluate", metrics, options)
    _check_column(df, "y_true", y_true)
    _check_column(df, "y_score", y_score)
    _check_column(df, "query_id", query_id)
    if sample_weight is not None:
        _check_column(df, "sample_weight", sample_weight)

    functions = import_optional("pyspark.sql.functions", "skrank.spark.evaluate")
    columns = list(dict.fromkeys(
        [query_id, y_true, y_score] + ([] if sample_weight is None else [sample_weight])
    ))
    selected = df.select(*[functions.col(f"`{name}`") for name in columns])
    # a plain scan of local Parquet files (not bucketed): the workers may read them
    paths = None
    if read_files == "auto" and not per_query and partitioned_by_query is not True:
        paths = parquet_files(selected, query_id)
    if partitioned_by_query != "auto":
        partitioned = partitioned_by_query
    else:  # such a scan has no partitioning: no physical plan to make (0.2-0.6 s cold)
        partitioned = paths is None and _partitioned_on(df, query_id)
    restore_order = ties == "input" and not partitioned
    frame = selected
    if restore_order:
        frame = frame.withColumn(ROW, functions.monotonically_increasing_id())
    n_partitions = None
    if not partitioned:
        key = functions.col(f"`{query_id}`")
        n_partitions = _n_partitions(frame)
        if n_partitions is None:  # no size estimate: Spark's shuffle partitions
            frame = frame.repartition(key)
        else:
            frame = frame.repartition(n_partitions, key)
    plan = PartitionPlan(metrics, y_true, y_score, query_id, sample_weight, ties,
                         no_relevant, False, restore_order, plan_options)

    with driver_python_for_local_workers(df):  # local workers run this Python
        if per_query:
            return _per_query_frame(frame, plan, df.schema[query_id], sql)
        scored = None
        if paths is not None and not partitioned and not restore_order:
            scored = _scored_from_files(selected, paths, plan, n_partitions)
        if scored is None:
            partials = frame.mapInArrow(lambda batches: _partials(batches, plan),
                                        _PARTIAL_SCHEMA)
            scored = _collected_partials(_run(partials.collect, df))
    scored.sort(key=lambda partition: partition[0])
    if not sum(n_rows for _, n_rows, _ in scored):
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    return {
        name: finish_mean(merge_partial_means(partials[i] for _, _, partials in scored))
        for i, name in enumerate(metrics)
    }


def _collected_partials(rows):
    """``(partition, n_rows, partials)`` from the rows :func:`_partials` made."""
    by_partition = {}
    for row in sorted(rows, key=lambda row: (row[_PARTITION], row[_METRIC])):
        _, n_rows, partials = by_partition.setdefault(
            row[_PARTITION], (row[_PARTITION], row[_N_ROWS], []))
        partials.append(PartialMean(
            row["scale"], row["weighted_sum"], row["weight_sum"], row["n_values"],
            row["n_undefined"], pickle.loads(row[_IDS])))
    return list(by_partition.values())


def _scored_from_files(frame, paths, plan, n_partitions):
    """The partitions' partial means, the executors reading the Parquet files.

    See :mod:`skrank.spark._files`. None when a file could not be read as
    Spark reads it: the caller then goes through Spark's reader.
    """
    from pyspark.sql.pandas.types import to_arrow_schema

    context = frame.sparkSession.sparkContext
    n_buckets = n_partitions or context.defaultParallelism
    schema = to_arrow_schema(frame.schema)
    query_id = plan.query_id
    tasks, n_slices = read_tasks(paths, context.defaultParallelism)
    scored = (
        context.parallelize(tasks, n_slices)
        .mapPartitions(lambda tasks: read_buckets(tasks, schema, query_id, n_buckets))
        .partitionBy(n_buckets, lambda bucket: bucket)
        .mapPartitions(lambda pairs: _scored_buckets(pairs, plan))
    )

    def collect():
        try:
            return scored.collect()
        except Exception as exc:
            if READ_FAILED in str(exc):
                return None
            raise

    return _run(collect, frame)


def _per_query_frame(frame, plan, id_field, sql):
    """A lazy Spark DataFrame of per-query values (``per_query=True``)."""
    types = import_optional("pyspark.sql.types", "skrank.spark.evaluate")
    names = plan.metrics + ["weight"] + [
        column for column in plan.weight_columns().values() if column != "weight"
    ]
    schema = types.StructType(
        [types.StructField(plan.query_id, id_field.dataType, True)]
        + [types.StructField(name, types.DoubleType(), True) for name in names]
    )
    arrow_schema = _arrow_schema(schema)
    return frame.mapInArrow(
        lambda batches: _query_values(batches, plan, arrow_schema), schema
    )


def _arrow_schema(schema):
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema)
