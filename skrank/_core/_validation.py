"""Input checks shared by every public function.

Each helper raises ``ValueError`` with one wording, naming the argument, so
that a message reads the same whichever metric raised it.
"""

import contextlib
import contextvars
import datetime
import sys
import warnings
from numbers import Integral, Real

import numpy as np

from ._frames import to_numpy
from ._warnings import warn

#: Integers above this (``2**62``) are clamped to it by :func:`check_positive_int`:
#: a cutoff that large is past the end of every query, and the clamp keeps
#: ``k + 1`` and friends inside int64.
LARGEST_INT = 1 << 62


def describe(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: ``(name_row, n_rows)`` while :func:`rows_named_by` is active, else None
_ROW_NAMES = contextvars.ContextVar("skrank_row_names", default=None)


@contextlib.contextmanager
def rows_named_by(name_row, n_rows):
    """Within the block, errors name a row by ``name_row(position)``.

    For input that is a piece of a larger frame (a partition of a Dask or
    Spark DataFrame, after a shuffle), where the position in the piece
    ("row 58") is no row of the caller's: ``name_row`` gives the frame's
    own name of the row (its index value, its query). A 1-D mask of another
    length than ``n_rows`` names no row ("a row").
    """
    token = _ROW_NAMES.set((name_row, n_rows))
    try:
        yield
    finally:
        _ROW_NAMES.reset(token)


def first_position(mask):
    """Where the first True of ``mask`` is, for an error message.

    ``"row 3"`` for 1-D input, ``"row 1, column 2"`` for 2-D input; rows and
    columns count from 0, as numpy and pandas' ``iloc`` do. Within
    :func:`rows_named_by`, a 1-D position is named as it says.

    Examples
    --------
    >>> import numpy as np
    >>> from skrank._core._validation import first_position
    >>> first_position(np.array([False, False, True, True]))
    'row 2'
    >>> first_position(np.array([[False, False], [False, True]]))
    'row 1, column 1'
    """
    mask = np.asarray(mask, dtype=bool)
    flat = int(np.flatnonzero(mask.ravel())[0])
    named = _ROW_NAMES.get()
    if named is not None and mask.ndim <= 1:
        name_row, n_rows = named
        return name_row(flat) if mask.shape[0] == n_rows else "a row"
    if mask.ndim <= 1:
        return f"row {flat}"
    row, col = np.unravel_index(flat, mask.shape)[:2]
    return f"row {int(row)}, column {int(col)}"


def _not_a_number(array):
    """Mask of the values of an object or string array that float() refuses."""
    bad = np.zeros(array.shape, dtype=bool)
    for index, value in np.ndenumerate(array):
        try:
            float(value)
        except (TypeError, ValueError):
            bad[index] = True
            break  # the first one is all the message shows
    return bad


def _must_contain_numbers(name, array):
    bad = _not_a_number(array)
    if not bad.any():  # e.g. a dtype numpy can't cast at all
        return ValueError(
            f"`{name}` must contain numbers, got an array of dtype {array.dtype}."
        )
    value = array[bad][0]
    value = value.item() if isinstance(value, np.generic) else value
    advice = (
        "encode the labels as numbers first, e.g. `(y == \"relevant\").astype(int)` "
        "or sklearn.preprocessing.LabelEncoder"
        if name == "y_true" else "convert it to numbers first"
    )
    return ValueError(
        f"`{name}` must contain numbers, got {describe(value)} at "
        f"{first_position(bad)} (dtype {array.dtype}): {advice}."
    )


def _not_finite_error(name, array):
    bad = ~np.isfinite(array)
    return ValueError(
        f"`{name}` contains NaN or infinity ({array[bad][0]:g} at "
        f"{first_position(bad)}): drop those rows from every input or fill them."
    )


def check_option(name, value, allowed):
    """Check that ``value`` is one of ``allowed`` (a tuple of options)."""
    for option in allowed:
        if value is option or (
            isinstance(value, str) and isinstance(option, str) and value == option
        ):
            return value
    shown = ", ".join(repr(option) for option in allowed)
    raise ValueError(f"`{name}` must be one of {shown}; got {describe(value)}.")


def check_positive_int(name, value, *, allow_none=True):
    """Check that ``value`` is an integer >= 1 (or None when allowed).

    Values above 2**62 (``LARGEST_INT``) come back as 2**62: past the end of
    any query, so ``k=2**70`` means the whole list like any other large k.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        suffix = " or None" if allow_none else ""
        raise ValueError(
            f"`{name}` must be a positive integer{suffix}, got {describe(value)}."
        )
    if value < 1:
        suffix = " or None" if allow_none else ""
        raise ValueError(
            f"`{name}` must be a positive integer{suffix}, got {describe(value)}."
        )
    # beyond any query's length either way; small enough for int64 arithmetic
    return min(int(value), LARGEST_INT)


def check_positive_real(name, value):
    """Check that ``value`` is a finite real number > 0 (e.g. ``beta``)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, Real)
        or not np.isfinite(value)
        or value <= 0
    ):
        raise ValueError(
            f"`{name}` must be a positive finite number, got {describe(value)}."
        )
    return float(value)


def check_fraction(name, value, *, closed_low=False, closed_high=False):
    """Check that ``value`` is a real number inside (0, 1) (ends as asked)."""
    ok = (
        isinstance(value, Real)
        and not isinstance(value, (bool, np.bool_))
        and np.isfinite(value)
        and (value >= 0 if closed_low else value > 0)
        and (value <= 1 if closed_high else value < 1)
    )
    if not ok:
        low = "[" if closed_low else "("
        high = "]" if closed_high else ")"
        raise ValueError(
            f"`{name}` must be a number in {low}0, 1{high}, got {describe(value)}."
        )
    return float(value)


def to_array(name, values):
    """Turn array-likes (lists, numpy, pandas, polars, ...) into a numpy array.

    Series and DataFrames of any library go through :func:`_frames.to_numpy`;
    no copy is made where none is needed.
    """
    values = to_numpy(values)
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(values):
        raise ValueError(
            f"`{name}` is a scipy sparse {type(values).__name__}: pass a dense "
            f"array (`{name}.toarray()`); the label ranking metrics "
            "(label_ranking_loss, ...) take sparse `y_true` as it is."
        )
    try:
        array = np.asarray(values)
    except Exception as exc:  # ragged lists and the like
        hint = tensor_cast_hint(name, values)
        raise ValueError(f"`{name}` could not be read as an array: {exc}{hint}") from exc
    return array


def tensor_cast_hint(name, values):
    """For a tensor whose dtype numpy lacks (bfloat16, float8...): the cast to use."""
    dtype = getattr(values, "dtype", None)
    if dtype is None or not hasattr(values, "detach"):
        return ""
    return (
        f"; `{name}` is a tensor of dtype {dtype}, which numpy has no type for: "
        f"cast it first, e.g. `{name}.float()` (float32) or `{name}.double()` "
        "(float64)"
    )


def reject_masked(name, values):
    """A masked array with masked entries is refused: its mask would be lost.

    Looked for only once ``numpy.ma`` is imported (no masked array exists
    before): ``np.ma`` imports the module, 7 ms of every command's start.
    """
    ma = sys.modules.get("numpy.ma")
    if ma is not None and ma.isMaskedArray(values) and ma.getmaskarray(values).any():
        raise ValueError(
            f"`{name}` is a masked array with masked entries; skrank does not "
            "drop rows by a mask: remove those rows from every input (e.g. with "
            "`~mask` indexing) or fill them (`.filled(...)`)."
        )


def reject_complex(name, array):
    if array.dtype.kind == "c":
        raise ValueError(
            f"`{name}` must contain real numbers, got complex values (dtype "
            f"{array.dtype}); pass the real part or the modulus."
        )


def check_dimensions(name, array, ndim):
    if array.ndim not in ndim:
        wanted = " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(
            f"`{name}` must be {wanted}, got an array of shape {array.shape}."
        )
    if array.size == 0:
        raise ValueError(f"`{name}` is empty: at least one row is needed.")


def check_numeric(name, values, *, ndim=(1, 2)):
    """Return ``values`` as a finite float64 array of 1 or 2 dimensions."""
    reject_masked(name, values)
    array = to_array(name, values)
    reject_complex(name, array)
    if array.dtype == object or array.dtype.kind not in "biuf":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise _must_contain_numbers(name, array) from None
    check_dimensions(name, array, ndim)
    array = array.astype(np.float64, copy=False)
    if not np.isfinite(array).all():
        raise _not_finite_error(name, array)
    return array


def _float64_is_exact(array, as_float):
    """Whether ``as_float`` (float64) keeps every value of ``array`` distinct.

    The conversion never reverses an order, so it keeps the order exactly
    when it loses no distinction: when converting back gives every value
    again (a round trip is a sound injectivity test, whatever an
    out-of-range cast returns).
    """
    if array.dtype.kind in "bf" and array.dtype.itemsize <= 8:
        return True
    if array.dtype.kind in "iu":
        if array.dtype.itemsize <= 4:
            return True
        low, high = array.min(), array.max()
        if low >= -(1 << 53) and high <= (1 << 53):
            return True
        with np.errstate(invalid="ignore", over="ignore"):
            back = as_float.astype(array.dtype)
        return bool(np.array_equal(back, array))
    if array.dtype == object:
        return bool((as_float.astype(object) == array).all())
    return bool(np.array_equal(as_float.astype(array.dtype), array))  # longdouble


def _datetimes_as_datetime64(array):
    """An object array of ``datetime``/``date`` objects as datetime64; else unchanged."""
    first = array.flat[0] if array.size else None
    if not isinstance(first, (datetime.date, np.datetime64)):
        return array
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. time zones numpy would drop
            return array.astype("datetime64")
    except (TypeError, ValueError, Warning):
        return array


def check_score(name, values, *, ndim=(1, 2)):
    """Scores: real, of 1 or 2 dimensions, in a dtype that keeps their order.

    Finite, except ``-inf``: a judged row the system did not retrieve
    (NaN and +inf are refused).

    Returns a float64 array when float64 holds every score exactly (floats
    up to 64 bits, booleans, integers up to 2**53, ...). Otherwise the
    array keeps a dtype in which the scores stay distinct: int64/uint64
    beyond 2**53, ``datetime64``/``timedelta64`` as their int64 ticks
    (``NaT`` is refused like NaN; Python ``datetime``/``date`` objects are
    read as datetime64), ``longdouble``, or an object array of Python
    integers (or other exactly comparable numbers). The caller ranks
    those through :func:`skrank._core._sort.exact_score_key`.
    """
    reject_masked(name, values)
    from_list = isinstance(values, (list, tuple))
    array = to_array(name, values)
    reject_complex(name, array)
    if from_list and array.dtype.kind == "f" and array.size and (
        np.abs(array).max() >= 2.0**53  # below, every int was read exactly
    ):
        # numpy reads a list of floats and big Python ints as float64,
        # rounding the ints; keep the Python values when it does
        exact = np.asarray(values, dtype=object)
        if exact.shape == array.shape and not _float64_is_exact(exact, array):
            array = exact
    if array.dtype == object:
        array = _datetimes_as_datetime64(array)
    kind = array.dtype.kind
    if kind in "mM":
        if np.isnat(array).any():
            raise ValueError(
                f"`{name}` contains NaT (a missing date or time); like NaN it "
                "cannot be ranked: drop or fill those rows."
            )
        array = array.view(np.int64)
        kind = "i"
    if array.dtype == object:
        try:
            as_float = array.astype(np.float64)
        except OverflowError:
            raise ValueError(
                f"`{name}` has values beyond the float64 range (about 1.8e308); "
                "rescale the scores."
            ) from None
        except (TypeError, ValueError):
            if isinstance(array.flat[0], datetime.date):
                raise ValueError(
                    f"`{name}` holds datetimes numpy can't convert (time zones?): "
                    "pass naive datetimes, datetime64 values or a pandas datetime "
                    "Series."
                ) from None
            raise _must_contain_numbers(name, array) from None
    elif kind not in "biuf":
        return check_numeric(name, array, ndim=ndim)
    else:
        with np.errstate(over="ignore"):
            as_float = array.astype(np.float64, copy=False)
    check_dimensions(name, array, ndim)
    if not np.isfinite(as_float).all() and not _only_unretrieved(array, as_float):
        if kind == "f" and not (np.isnan(array) | np.isinf(array)).any():
            raise ValueError(
                f"`{name}` has values beyond the float64 range (about 1.8e308); "
                "rescale the scores."
            )
        bad = np.isnan(as_float) | (as_float == np.inf)
        raise ValueError(
            f"`{name}` contains NaN or +infinity ({as_float[bad][0]:g} at "
            f"{first_position(bad)}): drop those rows from every input or fill "
            "them (-inf is allowed: it marks a judged row that was not retrieved)."
        )
    if as_float is array or _float64_is_exact(array, as_float):
        return as_float
    return array


def _only_unretrieved(array, as_float):
    """Whether every non-finite score is a true ``-inf`` (judged, not retrieved).

    ``-inf`` is the one non-finite score skrank accepts: the row counts in R
    and in the ideal ranking but never takes a rank. A finite value that only
    overflowed float64 on conversion is not one.
    """
    bad = ~np.isfinite(as_float)
    if not np.isneginf(as_float[bad]).all():
        return False
    with np.errstate(over="ignore", invalid="ignore"):
        return bool((array[bad] == -np.inf).all())


def check_relevance(values, *, binary=False):
    """``y_true``: finite, non-negative; 0/1 only when ``binary``.

    ``binary`` is a bool, or the name(s) of the metrics that need 0/1
    labels (``"gauc"``), which the error then names.
    """
    array = check_numeric("y_true", values)
    if (array < 0).any():
        negative = array < 0
        raise ValueError(
            "`y_true` must be non-negative (relevance grades), "
            f"got {array[negative][0]:g} at {first_position(negative)}."
        )
    if binary:
        other = (array != 0.0) & (array != 1.0)
        if other.any():
            what = binary if isinstance(binary, str) else "this metric"
            extra = np.unique(array[other])[:5]
            raise ValueError(
                f"`y_true` must be binary (0/1) for {what}, got values such as "
                f"{', '.join(f'{v:g}' for v in extra)} (the first at "
                f"{first_position(other)}): binarise it (e.g. `y_true > 0`) or "
                "leave that metric out."
            )
    return array


def check_sample_weight(sample_weight, n_expected, *, what="rows"):
    """Non-negative finite weights of length ``n_expected``, or None."""
    if sample_weight is None:
        return None
    reject_masked("sample_weight", sample_weight)
    weight = to_array("sample_weight", sample_weight)
    reject_complex("sample_weight", weight)
    if weight.ndim != 1:
        raise ValueError(
            f"`sample_weight` must be 1-D, got an array of shape {weight.shape}."
        )
    if weight.shape[0] != n_expected:
        raise ValueError(
            f"`sample_weight` has {weight.shape[0]} entries but there are "
            f"{n_expected} {what}."
        )
    return check_nonnegative("sample_weight", weight)


def check_nonnegative(name, array):
    """``array`` as finite, non-negative float64 numbers (weights)."""
    try:
        array = array.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"`{name}` must contain numbers.") from None
    if not np.isfinite(array).all():
        raise _not_finite_error(name, array)
    if (array < 0).any():
        negative = array < 0
        raise ValueError(
            f"`{name}` must be non-negative, got {array[negative][0]:g} at "
            f"{first_position(negative)}."
        )
    return array


def check_same_shape_as_y_true(name, values, shape):
    """``values`` as an array with the shape of ``y_true``."""
    array = to_array(name, values)
    if array.shape != tuple(shape):
        raise ValueError(
            f"`{name}` must have the shape of `y_true` {tuple(shape)}, got "
            f"{array.shape}."
        )
    return array


def check_same_length(**arrays):
    """All arrays (name=array) have the same first dimension."""
    lengths = {name: len(array) for name, array in arrays.items() if array is not None}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"`{name}` has {n}" for name, n in lengths.items())
        raise ValueError(f"Inputs have different lengths: {shown} rows.")


def check_bool(name, value):
    """A plain boolean option such as ``return_parts``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"`{name}` must be True or False, got {describe(value)}.")
    return bool(value)


LABEL_SCORES_WARNING = (
    "`y_score` holds only the values 0 and 1, so most rows of a query are tied: "
    "these look like class labels (a classifier's predict, or cross_val_predict's "
    "default method='predict'), not ranking scores. Rank by scores instead: "
    "model.predict_proba(X)[:, 1] or model.decision_function(X), "
    "cross_val_predict(model, X, y, method='predict_proba')[:, 1]; skrank's "
    "scorers pick these themselves with response_method='auto'. If 0/1 scores "
    "are intended, tied rows are scored at their expected value."
)


def warn_if_label_scores(score, relevance, n_queries):
    """Warn when ``score`` looks like 0/1 class labels rather than scores.

    That is: only the values 0 and 1 occur, both of them, some row is
    relevant, and queries average more than two rows (so ties are certain).
    The first score rejects real-valued scores at once.
    """
    if score.size == 0 or score.flat[0] not in (0.0, 1.0):
        return
    if score.size <= 2 * n_queries:
        return
    is_one = score == 1.0
    if not (is_one | (score == 0.0)).all() or is_one.all() or not is_one.any():
        return
    if not (relevance > 0).any():
        return
    warn(LABEL_SCORES_WARNING, UserWarning)

