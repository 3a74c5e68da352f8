"""Out-of-fold scores: folds that keep queries whole, and one fitted clone per fold.

The first of the three parts of :class:`skrank.FAPCutoffClassifier`; the
cutoff search over the pooled out-of-fold scores is in ``_cutoff_search``
and the estimator face in ``_fap_cutoff``.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import (
    GroupKFold,
    GroupShuffleSplit,
    StratifiedKFold,
    StratifiedShuffleSplit,
)

from .._core._validation import describe, check_option
from ._response import ranking_scores



# -- small helpers (module level, so tests can reach them) -------------------
def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _take_rows(X, indices):
    """Rows ``indices`` of a numpy array, sparse matrix, DataFrame or list."""
    if hasattr(X, "iloc"):
        return X.iloc[indices]
    if hasattr(X, "shape"):
        return X[indices]
    return [X[i] for i in indices]


def _slice_params(params, indices, n_rows):
    """Slice every per-row fit parameter (length ``n_rows``) to ``indices``."""
    sliced = {}
    for name, value in params.items():
        per_row = (hasattr(value, "shape") or isinstance(value, (list, tuple))) and (
            np.ndim(value) > 0 and _n_rows(value) == n_rows
        )
        sliced[name] = _take_rows(value, indices) if per_row else value
    return sliced


def _fit_and_score_fold(estimator, X, y, train, test, fit_params, response_method,
                        pos_label):
    """Fit a clone on the training rows, score the test rows; returns (model, score)."""
    n = _n_rows(X)
    model = estimator.fit(
        _take_rows(X, train),
        _take_rows(y, train),
        **_slice_params(fit_params, train, n),
    )
    score = ranking_scores(
        model, _take_rows(X, test), response_method=response_method,
        pos_label=pos_label,
    )
    return model, score


def _check_cv(cv):
    if isinstance(cv, str):
        check_option("cv", cv, ("prefit",))
        return cv
    if isinstance(cv, (bool, np.bool_)):
        raise ValueError(f"`cv` must be an int >= 2, a float in (0, 1), a splitter, "
                         f"an iterable of splits or 'prefit', got {describe(cv)}.")
    if isinstance(cv, Integral):
        if cv < 2:
            raise ValueError(f"`cv` must be an int >= 2 (number of folds), got {cv}.")
        return int(cv)
    if isinstance(cv, Real):
        if not 0 < cv < 1:
            raise ValueError(
                f"`cv` as a float is the validation fraction and must be in (0, 1), "
                f"got {cv}."
            )
        return float(cv)
    if hasattr(cv, "split") or hasattr(cv, "__iter__"):
        return cv
    raise ValueError(f"`cv` must be an int >= 2, a float in (0, 1), a splitter, "
                     f"an iterable of splits or 'prefit', got {describe(cv)}.")


def query_folds(cv, X, y, groups, *, random_state=None):
    """(train, test) index pairs, query-grouped when there are query ids.

    ``cv`` is checked by :func:`_check_cv`; a fold that puts one query in
    both parts raises a ``ValueError``.
    """
    n_rows = y.shape[0]
    if isinstance(cv, (int, float)):
        if groups is None:
            splitter = (
                StratifiedKFold(n_splits=cv)
                if isinstance(cv, int)
                else StratifiedShuffleSplit(
                    n_splits=1, test_size=cv, random_state=random_state
                )
            )
        else:
            n_queries = np.unique(groups).shape[0]
            if isinstance(cv, int) and n_queries < cv:
                raise ValueError(
                    f"`cv`={cv} folds need at least {cv} queries, but `query_id` "
                    f"has {n_queries}."
                )
            splitter = (
                GroupKFold(n_splits=cv)
                if isinstance(cv, int)
                else GroupShuffleSplit(
                    n_splits=1, test_size=cv, random_state=random_state
                )
            )
        splits = list(splitter.split(X, y, groups=groups))
    elif hasattr(cv, "split"):
        splits = list(cv.split(X, y, groups=groups))
    else:
        splits = list(cv)
    if not splits:
        raise ValueError("`cv` produced no split.")
    checked = []
    for train, test in splits:
        train, test = np.asarray(train), np.asarray(test)
        if train.dtype == bool:
            train = np.flatnonzero(train)
        if test.dtype == bool:
            test = np.flatnonzero(test)
        if groups is not None and np.isin(groups[test], groups[train]).any():
            raise ValueError(
                "`cv` put rows of the same query in the training and the test "
                "part of a fold; use a splitter that keeps queries whole, such "
                "as GroupKFold or StratifiedGroupKFold (it receives "
                "groups=query_id)."
            )
        if test.shape[0] == 0 or train.shape[0] == 0:
            raise ValueError(
                "`cv` produced a fold with no training or no test row."
            )
        if test.max(initial=0) >= n_rows or train.max(initial=0) >= n_rows:
            raise ValueError("`cv` produced row indices beyond the length of y.")
        checked.append((train, test))
    return checked
