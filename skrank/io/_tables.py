"""Qrels and runs as tables: adapters from paths, DataFrames and dicts, lookups and takes.

A :class:`~skrank.io._read._Table` is one file's (or one frame's) lines as
query and document codes beside their labels; these helpers make one from
what the user passes, find one table's queries among another's, and take
lines out of a table without copying its labels.
"""

import os
from dataclasses import replace

import numpy as np

from .._core._factorize import not_utf8
from ._ids import _sorted_label_rank
from ._read import FORMATS, _from_strings, _load_file, _Table


_COLUMNS = {
    "query_id": ("query_id", "qid", "query", "q_id"),
    "doc_id": ("doc_id", "docno", "docid", "doc", "doc_no"),
    "qrels": ("relevance", "rel", "label", "judgment", "grade"),
    "run": ("score", "sim", "similarity"),
}


def _column(frame, what, argument):
    for name in _COLUMNS[what]:
        if name in frame.columns:
            return frame[name]
    raise ValueError(
        f"`{argument}` has no {what.replace('qrels', 'relevance').replace('run', 'score')} "
        f"column: name one of {', '.join(_COLUMNS[what])} (it has "
        f"{', '.join(map(str, frame.columns))})."
    )


def _missing_id(values):
    """Index of the first missing id (None, NaN, pandas NA), -1 if none."""
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ in (
            "NAType", "NaTType"
        ):
            return i
    return -1


def _ids_of(frame, what, argument):
    """A DataFrame's id column as strings; a missing id is an error naming its row."""
    column = _column(frame, what, argument)
    values = np.asarray(column, dtype=object)
    bad = _missing_id(values)
    if bad >= 0:
        label = frame.index[bad] if hasattr(frame, "index") else bad
        raise ValueError(
            f"`{argument}` has a missing {what} (row {label!r}: {values[bad]!r}); "
            f"every line needs its {what}: drop or fill those rows first."
        )
    return [str(v) for v in values]


def _as_table(value, kind, argument, compat=None):
    """A path, a DataFrame or a dict of dicts as a :class:`_Table`."""
    if isinstance(value, _Table):
        return value
    if isinstance(value, (str, os.PathLike)):
        return _load_file(value, kind, compat)
    number_name = FORMATS[kind][0]
    if isinstance(value, dict):
        queries, docs, values = [], [], []
        for qid, docs_of_query in value.items():
            if not isinstance(docs_of_query, dict):
                raise ValueError(
                    f"`{argument}` as a dict must map each query id to a dict "
                    f"{{doc_id: {number_name}}}; query {qid!r} maps to a "
                    f"{type(docs_of_query).__name__}."
                )
            for doc, number in docs_of_query.items():
                queries.append(str(qid))
                docs.append(str(doc))
                values.append(number)
        try:
            numbers = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`{argument}`: every {number_name} must be a number.") from None
        table = _from_strings(queries, docs, numbers, source=argument)
    elif hasattr(value, "columns"):
        queries = _ids_of(value, "query_id", argument)
        docs = _ids_of(value, "doc_id", argument)
        column = _column(value, kind, argument)  # names the missing column
        try:
            numbers = np.asarray(column, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"`{argument}`: every {number_name} (column {column.name!r}) must be a number."
            ) from None
        table = _from_strings(queries, docs, numbers, source=argument)
    else:
        raise ValueError(
            f"`{argument}` must be a path to a TREC {kind} file, a pandas DataFrame "
            f"or a dict of dicts, got {type(value).__name__}."
        )
    if np.isnan(table.value).any() or (kind == "run" and np.isinf(table.value).any()):
        raise ValueError(f"`{argument}` has a {number_name} that is NaN or infinite.")
    return table


def _indexer(labels, targets):
    """For each target label, its index in ``labels`` (-1 if absent).

    A dict for few labels, and for ids that are not UTF-8, which pandas'
    hash table may merge (see :func:`~skrank._core._factorize.not_utf8`).
    """
    try:
        if len(labels) + len(targets) < 200_000:  # a dict is quick; spare pandas' import
            raise ImportError
        if not_utf8(labels) or not_utf8(targets):
            raise ImportError
        import pandas as pd
    except ImportError:
        lookup = {label: i for i, label in enumerate(labels)}
        return np.fromiter((lookup.get(t, -1) for t in targets), dtype=np.int64,
                           count=len(targets))
    return pd.Index(labels).get_indexer(targets).astype(np.int64)


def _run_queries(qrels, run):
    """Each run line's query among the qrels' queries (-1: the qrels lack it).

    A run-length array, so int32 where the number of queries allows it.
    """
    return _label_queries(qrels, run)[run.query]


def _label_queries(qrels, run):
    """Each of the run's query labels' index among the qrels' queries (-1: absent)."""
    lookup = _indexer(qrels.query_labels, run.query_labels)
    return lookup.astype(np.int32) if qrels.query_labels.shape[0] < 2**31 else lookup


def _take(table, rows):
    """The lines ``rows`` (ascending) of ``table``, as a table sharing its labels.

    Consecutive lines (a piece of a run grouped by query) are slices: views
    that copy nothing. Scattered lines keep the whole run's document ids and
    the row of each line's id in them.
    """
    doc_array, doc_rows = table.doc_array, None
    if rows.shape[0] and int(rows[-1]) - int(rows[0]) + 1 == rows.shape[0]:
        rows = slice(int(rows[0]), int(rows[-1]) + 1)
        origin = np.arange(rows.start, rows.stop) if table.origin is None \
            else table.origin[rows]
        if doc_array is not None and table.doc_rows is None:
            doc_array = doc_array.slice(rows.start, rows.stop - rows.start)
    else:
        origin = rows if table.origin is None else table.origin[rows]
    if doc_array is not None and (table.doc_rows is not None or isinstance(rows, np.ndarray)):
        doc_rows = rows if table.doc_rows is None else table.doc_rows[rows]
    return replace(
        table, query=table.query[rows], value=table.value[rows],
        doc=None if table.doc is None else table.doc[rows], doc_array=doc_array,
        doc_rows=doc_rows, origin=origin,
        qrels_doc=None if table.qrels_doc is None else table.qrels_doc[rows],
    )


def _query_order(qrels):
    """``(rank, labels_sorted)``: each qrels query's rank in strcmp order, and the labels in it."""
    rank = _sorted_label_rank(qrels.query_labels)
    return rank, qrels.query_labels[np.argsort(rank)]


def _no_shared_query(qrels, run):
    return ValueError(
        f"{run.source} and {qrels.source} share no query id: the qrels hold "
        f"{qrels.query_labels[0]!r}, ... and the run holds {run.query_labels[0]!r}, ... "
        "(ids compare as text: '301' is not 'q301', and '1' is not '1.0'); "
        "pass complete_qrels=True (-c) to score every qrels query anyway."
    )
