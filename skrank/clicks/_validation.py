"""Per-row checks of click logs, shared by every click estimator.

One wording for each refusal, naming the argument and the first bad row
(rows count from 0, as numpy and pandas' ``iloc`` do). The position-bias
estimators, :func:`skrank.clicks.evaluate`, the slate estimators and the
click scorer all read their inputs through these helpers.
"""

from numbers import Real

import numpy as np

from .._core._factorize import factorize
from .._core._validation import (
    check_dimensions,
    reject_complex,
    reject_masked,
    to_array,
    first_position,
)


def numbers(name, values):
    """``values`` as a non-empty 1-D numpy array of real numbers (any dtype)."""
    reject_masked(name, values)
    array = to_array(name, values)
    reject_complex(name, array)
    check_dimensions(name, array, (1,))
    if array.dtype.kind not in "biuf":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`{name}` must contain numbers.") from None
    return array


def check_clicks(click):
    """``click`` as a float64 array of 0s and 1s (booleans accepted)."""
    array = numbers("click", click)
    bad = ~((array == 0) | (array == 1))
    if bad.any():
        raise ValueError(
            f"`click` must be 0 or 1 (one displayed document per row, clicked or "
            f"not), got {array[bad][0]!r} at {first_position(bad)}."
        )
    return array.astype(np.float64)


def check_positions(position):
    """``position`` as an int64 array of 1-based ranks (whole numbers >= 1)."""
    array = numbers("position", position)
    if array.dtype.kind == "f":
        bad = ~np.isfinite(array) | (array != np.floor(np.where(np.isfinite(array),
                                                                 array, 0.0)))
        if bad.any():
            raise ValueError(
                "`position` must hold whole numbers (the 1-based rank at which "
                f"the logger showed the row), got {array[bad][0]!r} at "
                f"{first_position(bad)}."
            )
    bad = array < 1
    if bad.any():
        raise ValueError(
            "`position` must be 1 or more (1 is the top of the list), got "
            f"{array[bad][0]!r} at {first_position(bad)}."
        )
    return array.astype(np.int64)


def check_same_rows(**arrays):
    """Every array has the first one's number of rows."""
    names = list(arrays)
    first = names[0]
    n_rows = arrays[first].shape[0]
    for name in names[1:]:
        if arrays[name].shape[0] != n_rows:
            raise ValueError(
                f"`{name}` has {arrays[name].shape[0]} rows but `{first}` has "
                f"{n_rows}: give one value per displayed document."
            )


def list_codes(query_id, n_rows, name="query_id"):
    """Integer codes 0..n_lists-1 of ``query_id`` (ascending id order) and the ids.

    Returns ``(codes, ids)`` with ``ids[codes]`` the id of each row.
    """
    if query_id is None:
        raise ValueError(
            f"`{name}` is required: one id per row, saying which displayed list "
            "(or query) the row belongs to."
        )
    keys, labels = factorize(query_id, n_rows)
    distinct, codes = np.unique(keys, return_inverse=True)
    ids = distinct if labels is None else labels[distinct]
    return codes.reshape(-1).astype(np.intp), ids


def check_one_row_per_position(codes, position, name="query_id", rows=None,
                               n_rows=None):
    """Refuse two rows of one list at one position, naming the later of the first pair.

    ``rows`` (ascending) gives the input row of each entry when the arrays
    are a subset of the ``n_rows`` rows. The rows are named as
    :func:`first_position` names them (a Dask partition's rows by the
    caller's index).
    """
    if rows is None:
        rows = np.arange(codes.shape[0])
        n_rows = codes.shape[0]
    rows = np.asarray(rows)
    n_rows = int(rows.max()) + 1 if n_rows is None else n_rows
    key = codes.astype(np.int64) * (int(position.max()) + 1) + position
    if 0 <= int(key.max()) < 4 * key.shape[0] + 1024 and np.bincount(key).max() < 2:
        return  # no key repeats: a count tells, without a sort
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    if same.shape[0]:
        later = int(order[same + 1].min())  # stable: the later entry of a pair
        first = int(np.flatnonzero(key == key[later])[0])
        raise ValueError(
            "Two rows of one list are at the same position: "
            f"{_row_name(rows[later], n_rows)} repeats "
            f"{_row_name(rows[first], n_rows)} (same `{name}`, `position` "
            f"{int(position[later])}). A "
            "list shows one document per position; give each displayed list "
            "its own id."
        )


def _row_name(row, n_rows):
    """``"row 3"``, or the caller's name of the row within ``rows_named_by``."""
    mask = np.zeros(n_rows, dtype=bool)
    mask[row] = True
    return first_position(mask)


def check_clip(clip):
    """``clip`` as a float in (0, 1], or None."""
    if clip is None:
        return None
    if isinstance(clip, (bool, np.bool_)) or not isinstance(clip, Real) or not (
        0 < clip <= 1
    ):
        raise ValueError(
            f"`clip` must be a number in (0, 1] (the smallest propensity a click "
            f"may have; smaller ones are raised to it) or None, got {clip!r}."
        )
    return float(clip)


def check_propensity_values(values, name="propensity", where=None):
    """Refuse propensities that are not in (0, 1]; ``where`` maps index -> row."""
    values = np.asarray(values, dtype=np.float64)
    bad = ~((values > 0) & (values <= 1))  # NaN is bad too
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        row = index if where is None else int(where[index])
        raise ValueError(
            f"`{name}` must be in (0, 1] (the probability that the row's position "
            f"is examined, relative to position 1), got {values[index]!r} at row "
            f"{row}."
        )
    return values


def check_lists_in_queries(lists, query, query_ids):
    """Refuse a list (integer codes) whose rows belong to two queries, naming them."""
    query_of_list = np.zeros(int(lists.max()) + 1, dtype=query.dtype)
    query_of_list[lists] = query  # one of each list's queries
    if (query_of_list[lists] == query).all():
        return
    _, first_row = np.unique(lists, return_index=True)
    first = first_row[lists]  # the first row of each row's list
    bad = query[first] != query
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        n_rows = lists.shape[0]
        raise ValueError(
            f"A displayed list answers one query, but {_row_name(first[row], n_rows)} "
            f"and {_row_name(row, n_rows)} share a `list_id` and have `query_id` "
            f"{_plain(query_ids[query[first[row]]])!r} and "
            f"{_plain(query_ids[query[row]])!r}. "
            "Give each displayed list its own id (e.g. the session combined with "
            "the query)."
        )


def _plain(value):
    """A numpy scalar as the Python value it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value
