"""Query ids of any type -> sortable integer keys and the labels they stand for."""

import numpy as np

from ._validation import _to_array


def _factorize(query_id, n_rows):
    """Sortable integer keys and the id labels they stand for.

    Returns ``(keys, labels_or_None)``: numeric ids are used as keys as they
    are (sorting them is part of the single lexsort); other ids are factorised
    to codes with ``labels[code]`` the original id, in ascending id order
    where ids can be ordered.
    """
    categorical = getattr(query_id, "cat", None)
    if categorical is not None or type(query_id).__name__ == "Categorical":
        cat = categorical if categorical is not None else query_id
        codes = np.asarray(cat.codes)
        if codes.shape[0] != n_rows:
            return codes, None  # length error reported by the caller
        if (codes < 0).any():
            raise ValueError("`query_id` contains missing values.")
        return codes.astype(np.int64), np.asarray(cat.categories, dtype=object)

    ids = _to_array("query_id", query_id)
    if ids.ndim != 1:
        raise ValueError(
            f"`query_id` must be 1-D (one id per row), got shape {ids.shape}."
        )
    kind = ids.dtype.kind
    if kind in "biu":
        return ids, None
    if kind == "f":
        if np.isnan(ids).any():
            raise ValueError("`query_id` contains missing values.")
        return ids, None
    if kind in "US":
        try:  # hashing: ~2.4x faster than sorting the strings at 1e7 rows
            import pandas as pd
        except ImportError:
            labels, codes = np.unique(ids, return_inverse=True)
            return codes.reshape(-1), labels
        codes, labels = pd.factorize(ids, sort=True)
        return codes.astype(np.int64, copy=False), np.asarray(labels, dtype=ids.dtype)
    # object and other dtypes: hashable Python objects
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a test dependency
        pd = None
    if pd is not None:
        if pd.isna(ids).any():
            raise ValueError("`query_id` contains missing values.")
        try:
            codes, labels = pd.factorize(ids, sort=True)
        except TypeError:  # ids of mixed, unorderable types
            codes, labels = pd.factorize(ids, sort=False)
        return codes.astype(np.int64), np.asarray(labels, dtype=object)
    missing = np.fromiter(
        (v is None or (isinstance(v, float) and v != v) for v in ids),
        dtype=bool,
        count=ids.shape[0],
    )
    if missing.any():
        raise ValueError("`query_id` contains missing values.")
    try:
        labels, codes = np.unique(ids, return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            f"`query_id` values could not be ordered ({exc}); use ids of one type."
        ) from None
    return codes.reshape(-1), labels
