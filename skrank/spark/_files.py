"""The Parquet files under a Spark DataFrame, read by the executors' Python workers.

Handing rows from Spark's JVM to the Python workers goes row by row (Spark
fills the Arrow vectors one row at a time): on 1e7 rows it costs more than
the shuffle by query and more than skrank's kernels. When the DataFrame is
nothing but a scan of Parquet files on a file system every executor sees,
the Python workers can read the files' columns themselves, with pyarrow's
Parquet reader, and no row crosses from the JVM:

1. **Read and bucket** (each Spark task reads about 128 MiB of files, a
   large file cut by its row groups): the needed columns, cast to the
   DataFrame's types; each row goes to the bucket of its query id's hash,
   and each bucket of the task leaves as one Arrow IPC message (a few large
   byte strings).
2. **Shuffle by bucket** with Spark's own shuffle (``partitionBy``: bucket
   ``i`` is partition ``i``), which moves the messages as bytes.
3. **Score**: each partition's messages become one frame, and the same
   :class:`~skrank.metrics._plan.PartitionPlan` as on the other paths gives
   the partial means.

Anything else (a filter, a computed column, partition directories, another
format or file system) takes the usual path: Spark reads, repartitions and
hands the rows over. A file that this path cannot read as Spark did (a
missing column, a type that does not cast) sends the whole call back to the
usual path.
"""

import math
import os
from urllib.parse import unquote, urlparse

import numpy as np

#: a file's bytes per read task, Spark's own default split
#: (``spark.sql.files.maxPartitionBytes``)
SPLIT_BYTES = 128 * 2**20

#: the text a read task's error starts with: the driver then scores through Spark
READ_FAILED = "skrank could not read the Parquet file directly: "

_NUMERIC = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType",
            "DoubleType", "BooleanType")
_ID = ("ByteType", "ShortType", "IntegerType", "LongType", "StringType")


def _simple_name(java_object):
    return java_object.getClass().getSimpleName()


def parquet_files(frame, query_id):
    """The local paths of the Parquet files ``frame`` scans, or None.

    ``frame`` is the DataFrame of the needed columns. Only a plain scan
    qualifies: its optimized plan is a selection of columns over a Parquet
    relation without partition columns or buckets (so not partitioned by
    the query id: the caller need not ask Spark's physical plan), on the
    local (``file:``) file system; the query id is an integer or string
    column and the others are numbers. Best effort through the JVM's plan:
    anything unexpected answers None.
    """
    try:
        plan = frame._jdf.queryExecution().optimizedPlan()
        while _simple_name(plan) == "Project":
            columns = plan.projectList()
            if any(_simple_name(columns.apply(i)) != "AttributeReference"
                   for i in range(columns.size())):
                return None  # a computed or renamed column
            plan = plan.child()
        if _simple_name(plan) != "LogicalRelation":
            return None
        relation = plan.relation()
        if (_simple_name(relation) != "HadoopFsRelation"
                or _simple_name(relation.fileFormat()) != "ParquetFileFormat"
                or relation.partitionSchema().length() != 0
                or relation.bucketSpec().isDefined()):
            return None  # partition directories, or a bucketed table
        uris = list(frame.inputFiles())
    except Exception:  # noqa: BLE001 - no JVM plan to read (Spark Connect, ...)
        return None
    for field in frame.schema.fields:
        allowed = _ID if field.name == query_id else _NUMERIC
        if type(field.dataType).__name__ not in allowed:
            return None
    paths = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme not in ("", "file") or parsed.netloc not in ("", "localhost"):
            return None
        paths.append(unquote(parsed.path))
    return paths or None


def read_tasks(paths, cores):
    """``(tasks, n_slices)``: each file cut into ``(path, part, n_parts)`` of about SPLIT_BYTES.

    ``n_slices`` Spark tasks share them: one per SPLIT_BYTES of the files,
    at least four per core (a few rows per task add little; many small
    files are not as many tasks), and never more than there are parts.
    """
    tasks, total = [], 0
    for path in paths:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0  # the read task reports it
        total += size
        n_parts = max(1, math.ceil(size / SPLIT_BYTES))
        tasks.extend((path, part, n_parts) for part in range(n_parts))
    n_slices = min(len(tasks), max(4 * cores, math.ceil(total / SPLIT_BYTES)))
    return tasks, max(n_slices, 1)


def _buckets(column, n_buckets):
    """Each row's bucket, from a hash of its query id that every process shares.

    pandas' ``hash_array`` (SipHash with a fixed key), not Python's ``hash``,
    which differs from one process to the next. String ids are hashed once
    per distinct value. A missing id goes to any bucket: the score step
    raises on it, as the other paths do.
    """
    import pandas as pd
    import pyarrow as pa

    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        encoded = column.dictionary_encode()
        labels = np.asarray(encoded.dictionary.to_pylist(), dtype=object)
        hashes = pd.util.hash_array(labels)
        codes = encoded.indices.fill_null(0).to_numpy()
        hashes = hashes[codes] if labels.shape[0] else np.zeros(len(column), np.uint64)
    else:
        values = column.fill_null(0).to_numpy().astype(np.int64, copy=False)
        hashes = pd.util.hash_array(values)
    # uint16 when it fits: numpy's stable argsort of 16-bit keys is a radix sort
    dtype = np.uint16 if n_buckets <= 2**16 else np.int64
    return (hashes % np.uint64(n_buckets)).astype(dtype)


def _ipc_bytes(table):
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def read_buckets(tasks, schema, query_id, n_buckets):
    """``(bucket, Arrow IPC bytes)`` for each bucket of a Spark task's rows.

    The task's file parts are read first, then bucketed once: one message
    per bucket and task, however many small files the task holds.
    ``schema`` is the pyarrow schema of the needed columns as Spark types
    them; every file is cast to it, so that equal ids hash equally whatever
    integer width a file stores.
    """
    import pyarrow as pa

    tables = [table for task in tasks for table in _read_part(*task, schema)]
    table = pa.concat_tables(tables) if tables else None
    if table is None or table.num_rows == 0:
        return
    del tables
    bucket = _buckets(table.column(query_id), n_buckets)
    sizes = np.bincount(bucket, minlength=n_buckets)
    table = table.take(np.argsort(bucket, kind="stable"))
    start = 0
    for b in np.flatnonzero(sizes):
        yield int(b), _ipc_bytes(table.slice(start, int(sizes[b])))
        start += int(sizes[b])


def _read_part(path, part, n_parts, schema):
    """The rows of a file's ``part``-th of ``n_parts`` (its row groups), cast to ``schema``."""
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(path)
        n_groups = file.num_row_groups
        groups = [g for g in range(n_groups) if g * n_parts // n_groups == part]
        if not groups:
            return []
        table = file.read_row_groups(groups, columns=schema.names)
        return [table.select(schema.names).cast(schema)]
    except Exception as exc:  # noqa: BLE001 - the driver falls back to Spark's reader
        raise RuntimeError(f"{READ_FAILED}{path}: {exc}") from None


def bucket_batches(pairs):
    """The Arrow record batches of ``(bucket, IPC bytes)`` pairs, one message after another."""
    import pyarrow as pa

    for _, blob in pairs:
        yield from pa.ipc.open_stream(blob)
