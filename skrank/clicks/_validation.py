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
    return click_values(click).astype(np.float64)


def click_values(click):
    """``click`` checked to hold 0s and 1s, in its own dtype (booleans, integers, floats).

    Arithmetic on it (``click / theta``, ``click > 0``) gives what it gives
    on :func:`check_clicks`' float64 copy, which this saves. Integers are
    checked by their smallest and largest values, floats by counting (as
    many ones as nonzero values: NaN is nonzero and not 1); only a refusal
    makes the per-row mask that names the first bad row.
    """
    array = numbers("click", click)
    kind = array.dtype.kind
    if kind == "b" or array.shape[0] == 0:
        return array
    if kind in "iu":
        fine = array.min() >= 0 and array.max() <= 1
    else:
        fine = np.count_nonzero(array) == np.count_nonzero(array == 1)
    if not fine:
        bad = ~((array == 0) | (array == 1))
        raise ValueError(
            f"`click` must be 0 or 1 (one displayed document per row, clicked or "
            f"not), got {array[bad][0].item()!r} at {first_position(bad)}."
        )
    return array


#: The largest position taken: floats are whole numbers exactly up to 2**53.
MAX_POSITION = 2**53


def check_positions(position):
    """``position`` as an int64 array of 1-based ranks (whole numbers in 1..2**53).

    Every check runs on the values as given, before the cast to int64: a
    float such as ``1e20`` would wrap to a negative integer.
    """
    array = numbers("position", position)
    if array.dtype.kind == "f":
        finite = np.isfinite(array)
        bad = ~finite | (array != np.floor(np.where(finite, array, 0.0)))
        if bad.any():
            raise ValueError(
                "`position` must hold whole numbers (the 1-based rank at which "
                f"the logger showed the row), got {array[bad][0].item()!r} at "
                f"{first_position(bad)}."
            )
    # the smallest and largest values first: a mask only to name a bad row
    if array.min() < 1:
        bad = array < 1
        raise ValueError(
            "`position` must be 1 or more (1 is the top of the list), got "
            f"{array[bad][0].item()!r} at {first_position(bad)}."
        )
    if array.max() > MAX_POSITION:
        bad = array > MAX_POSITION
        raise ValueError(
            f"`position` must be at most 2**53 (a rank in a list), got "
            f"{array[bad][0].item()!r} at {first_position(bad)}."
        )
    return array.astype(np.int64, copy=False)  # read only by every caller: no copy


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
    keys, labels = factorize(query_id, n_rows, name=name)
    if keys.dtype.kind in "iu" and keys.shape[0]:
        low, high = int(keys.min()), int(keys.max())
        if high - low <= 4 * keys.shape[0] + 1024:
            # dense ids (factorize's codes, or integers in a short range): a
            # table of the ids present codes them without a sort
            present = np.zeros(high - low + 1, dtype=bool)
            offset = keys - low
            present[offset] = True
            codes = (np.cumsum(present) - 1)[offset]
            distinct = np.flatnonzero(present) + low
            ids = distinct.astype(keys.dtype) if labels is None else labels[distinct]
            return codes.astype(np.intp), ids
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
    top = int(position.max()) + 1
    if (int(codes.max()) + 1) * top <= 4 * codes.shape[0] + 1024:
        # small keys: a count tells that no (list, position) repeats, without a sort
        key = codes.astype(np.int64) * top + position
        if np.bincount(key).max() < 2:
            return
    # a lexsort, not one key codes * (max + 1) + position: that overflows
    # int64 when positions are large
    order = np.lexsort((position, codes))
    sorted_codes, sorted_position = codes[order], position[order]
    same = np.flatnonzero((sorted_codes[1:] == sorted_codes[:-1])
                          & (sorted_position[1:] == sorted_position[:-1]))
    if same.shape[0]:
        later = int(order[same + 1].min())  # stable: the later entry of a pair
        first = int(np.flatnonzero((codes == codes[later])
                                   & (position == position[later]))[0])
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


def check_propensity_values(values, name="propensity"):
    """``values`` as float64, refusing any value that is not positive and finite.

    ``values`` is one number per row, or one number for every row. One
    rule for every form of propensity (per-row values, a callable, a Dask
    column, a :class:`~skrank.clicks.PositionBias`): relative to
    position 1, a propensity may exceed 1 (a position examined more often
    than the first). The first bad row is named as :func:`first_position`
    names it (a Dask partition's rows by the frame's index).
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size and values.min() > 0 and values.max() < np.inf:
        return values  # a NaN makes the minimum NaN, which is not > 0
    bad = ~(np.isfinite(values) & (values > 0))  # NaN is bad too
    if bad.any():
        where = f" at {first_position(bad)}" if values.ndim else ""
        raise ValueError(
            f"`{name}` must be positive and finite (the probability that the "
            "row's position is examined, relative to position 1; above 1 for a "
            f"position examined more often than the first), got "
            f"{values[bad].ravel()[0].item()!r}{where}."
        )
    return values


def propensity_of_positions(propensity, position, rows=None):
    """Each row's propensity from a callable of positions (checked int64 >= 1).

    The callable is called once, with the distinct positions in ascending
    order. A table indexed by position serves when positions are dense (no
    sort of the rows); otherwise the distinct positions come from a sort, so
    that one row at position 2**40 asks for no table of 2**40 entries.
    ``rows`` (indices): only those rows' propensities are returned; a bad
    value is refused at the first row of its position, among all rows.
    """
    top = int(position.max())
    dense = top <= 4 * position.shape[0] + 1024
    if dense:
        distinct = np.flatnonzero(np.bincount(position))
    else:
        distinct, inverse = np.unique(position, return_inverse=True)
    values = np.asarray(propensity(distinct), dtype=np.float64)
    if values.ndim == 0:  # one value for every position
        values = np.full(distinct.shape, float(values))
    if values.shape != distinct.shape:
        raise ValueError(
            "`propensity` called with an array of positions must return one "
            f"value per position, got shape {values.shape} for "
            f"{distinct.shape[0]} positions."
        )
    good = bool((np.isfinite(values) & (values > 0)).all())
    if not good:
        rows = None  # every row's value, to name the first bad row
    if dense:
        table = np.zeros(top + 1)
        table[distinct] = values
        per_row = table[position if rows is None else position[rows]]
    else:
        inverse = inverse.reshape(-1)
        per_row = values[inverse if rows is None else inverse[rows]]
    if not good:
        check_propensity_values(per_row)  # names the first bad row
    return per_row


def tabulated_positions(position, click, n_positions):
    """The rows a table of positions 1..n needs, and n: ``(position, click, n)``.

    ``n_positions`` itself, with every row, unless the clicks are fewer than
    the positions: then a position of 1..n_clicks + 1 has no click, so only
    the rows at those positions are kept (and n is n_clicks + 1) for the
    check of evidence to name the first position without a click. A row at
    position 2**40 thus asks for no table of 2**40 entries.
    """
    n_clicks = int(np.count_nonzero(click))
    if n_positions <= n_clicks + 1:
        return position, click, n_positions
    keep = position <= n_clicks + 1
    return position[keep], click[keep], n_clicks + 1


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


def check_evidence(values, what, has_max, *, infinite=False):
    """Refuse the first position (1-based) whose value is 0 or nan: no evidence.

    ``values`` holds one number per position 1..K (clicks, or an estimate);
    ``what`` says what is missing, a string or a function of the bad value.
    With ``infinite``, an infinite value is refused too (a ratio over no
    clicks). The message names the position and ``max_position`` as the
    way to leave it, and those below it, out.
    """
    values = np.asarray(values, dtype=np.float64)
    bad = ~(np.nan_to_num(values, nan=0.0, posinf=-1.0 if infinite else np.inf) > 0)
    if not bad.any():
        return
    first = int(np.flatnonzero(bad)[0]) + 1
    if callable(what):
        what = what(values[first - 1])
    hint = (f"pass max_position={first - 1} to leave it and the positions "
            "below it out" if first > 1 else "position 1 is the reference")
    raise ValueError(
        f"Position {first} has no evidence ({what}): its propensity cannot be "
        f"estimated and would be {'0 or infinite' if infinite else '0'}; {hint}."
        + (" (`max_position` is set: lower it.)" if has_max and first > 1 else "")
    )
