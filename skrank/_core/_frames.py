"""Series and DataFrames of any library (pandas, polars, pyarrow, ...) -> numpy.

One place decides how a dataframe library's objects become numpy arrays, so
metrics, :func:`evaluate`, scorers, the selector and the I/O and Dask entry
points all accept the same inputs. Series and DataFrames are recognised with
narwhals (``narwhals.from_native``), the compatibility layer that ships with
scikit-learn 1.9; without narwhals, anything with ``__array__`` (pandas,
polars and pyarrow objects have it) goes through ``numpy.asarray``.

Only pandas categoricals keep a special path (:func:`pandas_categorical`):
their integer codes are already the factorisation of the ids, in category
order. Categoricals of other libraries are read as their values.
"""

import sys

import numpy as np


def _narwhals():
    """The stable narwhals namespace, or None when narwhals is not installed."""
    try:
        import narwhals.stable.v2 as nw
    except ImportError:
        try:
            import narwhals.stable.v1 as nw
        except ImportError:
            return None
    return nw


def from_native(obj, **kwargs):
    """``narwhals.from_native(obj, ...)``, or None without narwhals or when it refuses.

    narwhals refuses some objects its library accepts (a pandas DataFrame
    with duplicate column names); those take the plain path.
    """
    nw = _narwhals()
    if nw is None:
        return None
    try:
        native = nw.from_native(obj, eager_only=True, pass_through=True, **kwargs)
    except Exception:  # narwhals' own errors (DuplicateError, ...)
        return None
    return native if isinstance(native, (nw.Series, nw.DataFrame)) else None


def to_numpy(values):
    """``values`` as a numpy array when it is a Series or eager DataFrame.

    Parameters
    ----------
    values : object
        A Series or DataFrame of any library narwhals knows (pandas, polars,
        pyarrow ``ChunkedArray``/``Table``, modin, cuDF), a numpy array, a
        list, ...

    Returns
    -------
    array : ndarray or object
        A numpy array for a Series (1-D) or DataFrame (2-D); ``values``
        itself for anything else (numpy arrays, lists), for
        ``numpy.asarray`` to read. Without narwhals (scikit-learn < 1.9
        does not bring it), an object with ``__array__`` is read with
        ``numpy.asarray``.

    Examples
    --------
    >>> import pandas as pd
    >>> to_numpy(pd.Series([3, 1, 2]))
    array([3, 1, 2])
    >>> to_numpy([3, 1, 2])
    [3, 1, 2]
    """
    if isinstance(values, (np.ndarray, list, tuple)) or np.isscalar(values):
        return values
    native = from_native(values, allow_series=True)
    if native is not None:
        return native.to_numpy()
    if _narwhals() is None and hasattr(values, "__array__"):
        return np.asarray(values)
    return values


def column(frame, name):
    """Column ``name`` of a DataFrame of any library, as that library's Series.

    Parameters
    ----------
    frame : object
        A pandas, polars, pyarrow, ... DataFrame, or anything else.
    name : str or int
        The column's name.

    Returns
    -------
    series : Series or None
        The column (in ``frame``'s own library, so a pandas categorical
        stays categorical); None when ``frame`` is not a DataFrame or has
        no column ``name``.

    Examples
    --------
    >>> import pandas as pd
    >>> column(pd.DataFrame({"qid": [1, 1, 2], "x": [0.5, 0.1, 0.3]}), "qid").tolist()
    [1, 1, 2]
    >>> column([[1, 2]], "qid") is None
    True
    """
    columns = column_names(frame)
    if columns is None or name not in columns:
        return None
    df = from_native(frame)
    if df is None:
        return frame[name]
    return df.get_column(name).to_native()


def column_names(frame):
    """The column names of a DataFrame of any library, or None if not a DataFrame.

    Examples
    --------
    >>> import pandas as pd
    >>> column_names(pd.DataFrame({"qid": [1], "x": [0.5]}))
    ['qid', 'x']
    >>> column_names([[1, 2]]) is None
    True
    """
    df = from_native(frame)
    if df is not None:
        return list(df.columns)
    # without narwhals (or refused by it): pandas and polars list .columns
    kinds = tuple(
        sys.modules[name].DataFrame for name in ("pandas", "polars")
        if name in sys.modules
    )
    return list(frame.columns) if kinds and isinstance(frame, kinds) else None


def pandas_categorical(values):
    """``(codes, categories)`` of a pandas categorical, else None.

    A pandas ``Categorical``, ``CategoricalIndex`` or Series of category
    dtype; ``codes`` are -1 where values are missing.
    """
    pandas = sys.modules.get("pandas")  # not imported: not a pandas object
    if pandas is None:
        return None
    if isinstance(values, pandas.Categorical):
        categorical = values
    elif isinstance(values, (pandas.Series, pandas.CategoricalIndex)) and isinstance(
        values.dtype, pandas.CategoricalDtype
    ):
        categorical = values.array
    else:
        return None
    return np.asarray(categorical.codes), np.asarray(categorical.categories, dtype=object)
