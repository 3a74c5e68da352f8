"""What every Dask face does first with its ``df``: check it and its columns.

:func:`check_dask_frame` refuses anything but a Dask DataFrame;
:func:`frame_input` checks the column arguments and the query ids (column
or index, and the ids Dask's string conversion may have changed) and
returns the frame of the columns used, with how its queries sit in the
partitions. :func:`skrank.dask.evaluate`, ``evaluate_by``,
``evaluate_clicks`` and ``estimate_position_bias`` all read their input
through these.
"""

from typing import NamedTuple

import numpy as np

from .._core._optional import import_optional
from .._core._validation import check_option, describe


def import_dask_dataframe(needed_by="skrank.dask.evaluate"):
    """``dask.dataframe``, or an ImportError naming ``needed_by`` and the dask extra."""
    return import_optional("dask.dataframe", needed_by)


def check_dask_frame(df, in_memory, needed_by="skrank.dask.evaluate"):
    """``dask.dataframe`` once ``df`` is a Dask DataFrame; else a ValueError.

    ``in_memory`` names the in-memory function to use instead (such as
    ``"skrank.evaluate"``).
    """
    dd = import_dask_dataframe(needed_by)
    if not isinstance(df, dd.DataFrame):
        # a frame by its library and type: its repr would fill lines
        got = (f"a {type(df).__module__.split('.')[0]} {type(df).__name__}"
               if hasattr(df, "columns") else describe(df))
        raise ValueError(
            f"`df` must be a dask.dataframe.DataFrame, got {got}; for "
            f"in-memory data use {in_memory}."
        )
    return dd


def check_column(df, argument, name, allow_index=False):
    """Refuse a ``name`` that is not a column of ``df``; True if it names the index."""
    if name in df.columns:
        return False
    if allow_index and name is not None and df.index.name == name:
        return True
    where = " or the index name" if allow_index else ""
    raise ValueError(
        f"`{argument}` must name a column of `df`{where}, got {describe(name)}; "
        f"the columns are {list(df.columns)}."
    )


class FrameInput(NamedTuple):
    """A face's input frame, checked, and where its query ids are."""

    #: the columns used, in the order given, then the query ids (unless on
    #: the index), then ``extra``
    frame: object
    #: True when the query ids are the frame's index
    on_index: bool
    #: whether every query already sits whole in one partition
    partitioned: bool
    #: how an error names a row: ``"index"`` (the frame's index and query)
    #: or ``"query"`` (its query only: the index held the ids)
    row_label: str


def frame_input(df, columns, *, query_id, partitioned_by_query, extra=(),
                id_argument="query_id"):
    """Check the column arguments of a face; the frame of the columns it uses.

    ``columns`` is a sequence of ``(argument, column name)`` pairs, checked
    in order (a pair whose name is None is an option not given, and
    skipped); ``query_id`` (the argument ``id_argument`` of the face: the
    ids its rows are grouped by, such as ``"list_id"``) may name a column
    or the index. ``extra`` names columns checked by the caller, kept after
    the ids.
    ``partitioned_by_query`` (``"auto"``, True, False) says whether each
    query sits whole in one partition; ``"auto"``: when the ids are an
    index with known divisions.
    """
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    names = []
    for argument, name in columns:
        if name is not None:
            check_column(df, argument, name)
            names.append(name)
    on_index = check_column(df, id_argument, query_id, allow_index=True)
    check_converted_ids(df, query_id, on_index, id_argument)
    names += ([] if on_index else [query_id]) + list(extra)
    frame = df[list(dict.fromkeys(names))]
    if partitioned_by_query == "auto":
        partitioned = on_index and df.known_divisions
    else:
        partitioned = partitioned_by_query
    # the shuffle keeps the frame's index, unless the ids were the index
    return FrameInput(frame, on_index, partitioned, "query" if on_index else "index")


def check_converted_ids(df, query_id, on_index, id_argument="query_id"):
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
            raise ValueError(_converted_ids_message(id_argument, query_id, *pair))


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


def _converted_ids_message(id_argument, query_id, first, second, apart):
    now, before = (
        ("two strings", "one query") if apart else ("one string", "two queries")
    )
    return (
        f"`{id_argument}` {query_id!r} held ids of different types, {first!r} and "
        f"{second!r}, which skrank.evaluate counts as {before}; Dask's string "
        "conversion (its \"dataframe.convert-string\" setting, on by default) made "
        f"them {now} when the frame was built, so the queries would not be the "
        "same. Give the ids one type before building the Dask frame (such as "
        "`rows[\"qid\"].astype(str)`), or build it under "
        "`dask.config.set({\"dataframe.convert-string\": False})`: skrank.dask then "
        "groups object ids as skrank.evaluate does."
    )
