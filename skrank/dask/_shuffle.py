"""The plan the Dask faces share: shuffle by query, per-query frames, partial sums.

- :func:`whole_queries` puts each query's rows in one partition (Dask's
  shuffle by query id, skipped when they already are), numbering the rows
  first when ties follow the input order;
- :func:`query_frame` and :func:`query_meta`: one row per query of a
  partition (``aggregate=None``, and ``evaluate_by``);
- :func:`partials_frame` and :func:`merge_partials`: the mergeable
  :class:`~skrank._core._aggregate.PartialMean` of each metric as a small
  frame, and the combine step of Dask's tree reduction.

:func:`skrank.dask.evaluate`, ``evaluate_by``, ``evaluate_clicks`` and
``estimate_position_bias`` are built on these.
"""

import numbers

import numpy as np

from .._core._aggregate import PartialMean, merge_partial_means
from .._core._malloc import reused_memory
from ..metrics._plan import ROW

PARTIAL_COLUMNS = list(PartialMean._fields)


def whole_queries(frame, query_id, on_index, partitioned, ties):
    """``(frame, on_index, restore_order)``: each query whole in one partition.

    Shuffled by query unless ``partitioned``; with ``ties="input"`` the rows
    are numbered first, so each partition can restore the input order.
    """
    restore_order = ties == "input" and not partitioned
    if restore_order:
        frame = frame.map_partitions(number_rows, meta=number_rows(frame._meta))
    if not partitioned:
        if on_index:
            frame = frame.reset_index()
            on_index = False
        frame = shuffle_by_query(frame, query_id)
    return frame, on_index, restore_order


KEY = "__skrank_query_key__"  # shuffle key of object ids: equal ids, equal keys


def shuffle_by_query(frame, query_id):
    """``frame`` shuffled so that each query's rows share a partition.

    Object ids are grouped as :func:`skrank.evaluate` groups them (by Python
    equality: ``3``, ``3.0`` and ``np.int64(3)`` are one query, ``5`` and
    ``"5"`` two). Dask would hash each object id through its string (``"3"``
    and ``"3.0"`` can land apart), and its p2p shuffle cannot move a column
    of mixed types; so object ids are shuffled on :func:`partition_key`,
    which equal ids share in every process, by the task-based shuffle, which
    moves any Python object.
    """
    if frame._meta[query_id].dtype != object:
        return frame.shuffle(on=query_id)
    meta = _with_partition_key(frame._meta, query_id)
    keyed = frame.map_partitions(_with_partition_key, query_id, meta=meta)
    return keyed.shuffle(on=KEY, shuffle_method="tasks")


def _with_partition_key(frame, query_id):
    import pandas as pd

    frame = frame.copy()
    ids = frame[query_id]
    if pd.api.types.infer_dtype(ids, skipna=False) == "string":
        frame[KEY] = ids  # str ids only: the id is its own key
    else:
        keys = np.empty(ids.shape[0], dtype=object)
        keys[:] = [partition_key(value) for value in ids]
        frame[KEY] = keys
    return frame


def partition_key(value):
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
        return "\x00t" + "\x00,".join(partition_key(item) for item in value)
    return "\x00"


def number_rows(frame, partition_info=None):
    """Each row's input position: partition number in the high bits, row in the low."""
    number = 0 if partition_info is None else partition_info["number"]
    frame = frame.copy()
    frame[ROW] = np.int64(number) * 2**40 + np.arange(frame.shape[0], dtype=np.int64)
    return frame


@reused_memory()
def query_frame(frame, plan, meta):
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


def query_meta(meta, plan):
    """The empty frame :func:`query_frame` returns for a partition ``meta``."""
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


def partials_frame(rows, n_rows, pd):
    """Partial sums as a small frame: row i for metric i, plus the rows seen."""
    frame = pd.DataFrame(
        [tuple(row[:-1]) for row in rows], columns=PARTIAL_COLUMNS[:-1]
    )
    ids = np.empty(len(rows), dtype=object)
    ids[:] = [row.undefined_ids for row in rows]
    frame["undefined_ids"] = ids
    frame["n_rows"] = n_rows
    return frame


def merge_partials(frame):
    """Combine/aggregate of the reduction: the partial sums of many partitions."""
    import pandas as pd

    index = frame.index.to_numpy()
    n_metrics = int(index.max()) + 1 if index.shape[0] else 0
    partials = frame[PARTIAL_COLUMNS]
    merged = [
        merge_partial_means(
            PartialMean(*row)
            for row in partials[index == i].itertuples(index=False)
        )
        for i in range(n_metrics)
    ]
    n_rows = int(frame.loc[index == 0, "n_rows"].sum()) if n_metrics else 0
    return partials_frame(merged, n_rows, pd)
