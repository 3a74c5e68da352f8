"""Segments: which segment each query is in, checked and factorised once.

A segment is a property of a query (its device, market, ...), given per
row by ``by``: one array-like, several, or the columns of a frame. Every row
of a query must share its segment; only one row per query is factorised.
"""

import math
import warnings

import numpy as np

from .._core._factorize import factorize
from .._core._frames import column_names, column, pandas_categorical, to_numpy


def by_columns(by, n_rows):
    """``by`` as a list of (name, 1-D array): one array-like, a list of them, a frame."""
    names = column_names(by)
    if names is not None:
        if not names:
            raise ValueError("`by` is a DataFrame without columns: name a segment.")
        return [(str(name), _column_values(column(by, name), name, n_rows))
                for name in names]
    if isinstance(by, dict):
        if not by:
            raise ValueError("`by` is an empty dict: name a segment column.")
        return [(str(name), _column_values(values, name, n_rows))
                for name, values in by.items()]
    if isinstance(by, (list, tuple)) and by and all(
        not isinstance(part, (str, bytes)) and np.ndim(to_numpy(part)) == 1
        for part in by
    ):
        parts = list(by)
        return [(_name_of(part, f"segment_{i}"), _column_values(part, i, n_rows))
                for i, part in enumerate(parts)]
    if by is None:
        raise ValueError("`by` is required: the segment of each row (an array-like).")
    return [(_name_of(by, "segment"), _column_values(by, None, n_rows))]


def _name_of(values, default):
    name = getattr(values, "name", None)
    return str(name) if isinstance(name, (str, int)) and name != "" else default


def _column_values(values, which, n_rows):
    where = "`by`" if which is None else f"`by`[{which!r}]"
    categorical = pandas_categorical(values)
    if categorical is not None:
        codes, categories = categorical
        if (codes < 0).any():
            raise ValueError(f"{where} contains missing values.")
        array = categories[codes]
    else:
        array = np.asarray(to_numpy(values))
        if array.ndim != 1:
            raise ValueError(
                f"{where} must be 1-D (one segment per row), got shape {array.shape}."
            )
    if array.shape[0] != n_rows:
        raise ValueError(
            f"{where} has {array.shape[0]} values but there are {n_rows} rows "
            "(one segment per row, or per ranking for 2-D input)."
        )
    if array.dtype.kind == "f" and np.isnan(array).any():
        raise ValueError(f"{where} contains missing values.")
    return array


def _check_missing(name, values):
    """A ValueError when a segment value is missing (None or NaN)."""
    if values.dtype.kind == "f":
        missing = np.isnan(values).any()
    elif values.dtype.kind == "O":
        missing = any(
            value is None or (isinstance(value, float) and math.isnan(value))
            for value in values
        )
    else:
        missing = False
    if missing:
        raise ValueError(f"`by` ({name}) contains missing values.")


def _codes(array):
    """(codes, sorted labels) of one segment column; every label is some value's."""
    if array.dtype.kind in "iu" and array.shape[0]:
        low, high = int(array.min()), int(array.max())
        if high - low <= 4 * array.shape[0] + 1024:  # few distinct values: no sort
            present = np.bincount(array - low, minlength=high - low + 1) > 0
            labels = (np.flatnonzero(present) + low).astype(array.dtype)
            return (np.cumsum(present) - 1)[array - low], labels
    try:
        labels, codes = np.unique(array, return_inverse=True)
    except TypeError:  # values of unorderable types: order by type, then text
        seen = {}
        for value in array:
            seen.setdefault(value, None)
        labels = sorted(seen, key=lambda v: (type(v).__name__, str(v)))
        index = {value: i for i, value in enumerate(labels)}
        codes = np.fromiter((index[v] for v in array), np.int64, array.shape[0])
        labels = np.array(labels + [None], dtype=object)[:-1]
    return codes.reshape(-1).astype(np.int64), labels


def segments_of_queries(columns, row_query, n_queries, query_ids):
    """Each query's segment code and the segment keys (sorted).

    ``columns`` are the ``by`` columns, one value per row; a query's rows
    must share their values (else a ValueError naming the first such
    query). Only one row per query is factorised.
    """
    first_row = first_rows(row_query, n_queries)
    representative = first_row[row_query]
    varies = np.zeros(row_query.shape[0], dtype=bool)
    for _, values in columns:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # elementwise comparison of objects
            varies |= np.asarray(values[representative] != values, dtype=bool)
    if varies.any():
        _raise_varies(row_query, varies, query_ids, columns)
    return _segments_of(columns, first_row)


def first_rows(row_query, n_queries):
    """Each query's first row."""
    first_row = np.empty(n_queries, dtype=np.int64)
    first_row[row_query[::-1]] = np.arange(row_query.shape[0])[::-1]
    return first_row


def _segments_of(columns, first_row):
    """Each query's segment code and the segment keys, from each query's first row."""
    codes, labels = [], []
    for name, values in columns:
        per_query = values[first_row]
        _check_missing(name, per_query)
        code, label = _codes(per_query)
        codes.append(code)
        labels.append(label)
    if len(codes) == 1:  # one column: its codes are the segments already
        segment = codes[0]
        parts = (np.arange(len(labels[0])),)
    else:  # the intersections that occur
        dims = [max(len(lab), 1) for lab in labels]
        present, segment = np.unique(np.ravel_multi_index(codes, dims),
                                     return_inverse=True)
        parts = np.unravel_index(present, dims)
    keys = [
        tuple(plain(labels[j][parts[j][s]]) for j in range(len(codes)))
        for s in range(parts[0].shape[0])
    ]
    return segment.reshape(-1).astype(np.int64), keys


def plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _raise_varies(row_query, varies, query_ids, columns):
    bad = np.unique(row_query[varies])
    q = bad[0]
    rows = row_query == q
    shown = []
    for name, values in columns:
        found = list(dict.fromkeys(plain(v) for v in values[rows]))
        if len(found) > 1:
            shown.append(f"{name}: {', '.join(map(repr, found[:3]))}")
    more = f" (and {bad.shape[0] - 1} more queries)" if bad.shape[0] > 1 else ""
    raise ValueError(
        "`by` must be constant within each query (a segment is a property of "
        f"a query), but query_id {plain(query_ids[q])!r}{more} has rows in "
        f"several segments ({'; '.join(shown)})."
    )


def query_index(y_true, query_id, evaluated_ids):
    """The query of each row, as positions in ``evaluated_ids`` (evaluate's order).

    No second sort: numeric ids are looked up in the sorted ids evaluate
    returned, other ids' codes (ascending) are compacted.
    """
    n_rows = np.shape(y_true)[0] if np.ndim(y_true) else 0
    if query_id is None:
        if np.ndim(y_true) == 2:  # one ranking per row
            return np.arange(n_rows)
        return np.zeros(n_rows, dtype=np.int64)
    keys, labels = factorize(query_id, n_rows)
    if labels is None:
        try:  # hashing: several times faster than a binary search per row
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a test dependency
            return np.searchsorted(evaluated_ids, keys)
        return pd.Index(evaluated_ids).get_indexer(keys)
    return _present_codes(keys, len(labels))


def _present_codes(keys, n_labels):
    """Codes into sorted labels, renumbered over the labels that occur (in order).

    A pandas categorical's unused categories are no query: evaluate's
    queries are the labels present, in the same order.
    """
    present = np.bincount(keys, minlength=n_labels) > 0
    return (np.cumsum(present) - 1)[keys]
