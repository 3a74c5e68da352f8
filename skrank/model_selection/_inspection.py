"""Permutation importance scored per query.

scikit-learn's ``permutation_importance`` calls its scorer as
``scorer(estimator, X, y)``: no metadata reaches it, so a ranking scorer
cannot learn which query a row belongs to. This version takes the query ids
as an argument, keeps every row in its query while a feature column is
shuffled, and scores with a skrank scorer. The shuffles follow
scikit-learn's (one seed drawn from ``random_state``, shared by every
column; each repeat shuffles the already shuffled column again), so with
the same scorer the numbers equal scikit-learn's.
"""

from numbers import Integral

import numpy as np
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.parallel import Parallel, delayed

from .._core._frames import column as frame_column, column_names
from .._core._params import (
    COUNT,
    validate_params,
)
from .._core._validation import describe
from ._oof import _n_rows
from ._make_scorer import get_scorer, make_ranking_scorer
from ._scorer import MultiMetricScorer, RankingScorer


def _check_scoring(scoring):
    """A skrank scorer (single or multi-metric) from what the caller gave."""
    if isinstance(scoring, (RankingScorer, MultiMetricScorer)):
        return scoring
    if isinstance(scoring, str):
        return get_scorer(scoring)
    if isinstance(scoring, (list, tuple, dict)):
        if not scoring:
            raise ValueError("`scoring` is empty: name at least one metric.")
        return make_ranking_scorer(
            scoring if isinstance(scoring, dict) else list(scoring)
        )
    raise ValueError(
        "`scoring` must be a skrank metric name (such as \"ndcg@10\"), a skrank "
        "scorer (skrank.get_scorer / make_ranking_scorer), or a list or dict of "
        f"them, got {describe(scoring)}."
    )


def _score(scorer, estimator, X, y, query_id, sample_weight):
    params = {"query_id": query_id}
    if sample_weight is not None:
        params["sample_weight"] = sample_weight
    return scorer(estimator, X, y, **params)


def _permuted_scores(estimator, X, y, query_id, sample_weight, column, seed,
                     n_repeats, scorer):
    """Scores after shuffling one column ``n_repeats`` times (cumulatively)."""
    rng = check_random_state(seed)
    shuffled = X.copy()
    order = np.arange(_n_rows(X))
    scores = []
    for _ in range(n_repeats):
        rng.shuffle(order)
        if hasattr(shuffled, "iloc"):
            values = shuffled.iloc[order, column]
            values.index = shuffled.index
            shuffled[shuffled.columns[column]] = values
        else:
            shuffled[:, column] = shuffled[order, column]
        scores.append(_score(scorer, estimator, shuffled, y, query_id, sample_weight))
    return scores


def _bunch(baseline, permuted):
    importances = baseline - np.asarray(permuted, dtype=np.float64)
    return Bunch(
        importances_mean=np.mean(importances, axis=1),
        importances_std=np.std(importances, axis=1),
        importances=importances,
    )


@validate_params({"n_repeats": COUNT})
def permutation_importance(estimator, X, y, *, query_id, scoring, n_repeats=5,
                           random_state=None, n_jobs=None, sample_weight=None):
    """Permutation importance of each feature, scored per query.

    Each column of ``X`` in turn is shuffled across the rows ``n_repeats``
    times; every row keeps its query id, and the fitted ``estimator`` is
    scored per query with a skrank scorer. A feature's importance is the
    drop of the score from the unshuffled data.

    Parameters
    ----------
    estimator : object
        A fitted estimator (a ranker, regressor, classifier, Pipeline, ...).
    X : ndarray or pandas DataFrame of shape (n_rows, n_features)
        The rows to score (held-out queries, preferably).
    y : array-like of shape (n_rows,)
        Relevance of each row.
    query_id : array-like of shape (n_rows,) or str
        Query of each row; or the name of a column of a DataFrame ``X``
        holding them, which is then never shuffled (its importance is 0).
    scoring : str, scorer, list or dict
        A skrank metric name (``"ndcg@10"``), a skrank scorer
        (:func:`get_scorer`, :func:`make_ranking_scorer`), or a list or dict
        of names or scorers for several metrics at once.
    n_repeats : int, default=5
        Shuffles per feature.
    random_state : int, RandomState instance or None, default=None
        Seed of the shuffles (drawn as scikit-learn's
        ``permutation_importance`` draws them).
    n_jobs : int or None, default=None
        Features computed in parallel (joblib).
    sample_weight : array-like of shape (n_rows,), default=None
        Row weights, passed to the metrics.

    Returns
    -------
    result : Bunch or dict of Bunch
        ``importances_mean`` and ``importances_std`` of shape
        ``(n_features,)``, ``importances`` of shape ``(n_features,
        n_repeats)``, as scikit-learn's. For a list or dict ``scoring``, a
        dict mapping each metric's key to such a Bunch.

    Raises
    ------
    ValueError
        For a ``scoring`` that is not a skrank metric or scorer, missing or
        misshapen ``query_id``, or a non-positive ``n_repeats``.

    See Also
    --------
    sklearn.inspection.permutation_importance : The same without query ids.
    QueryGroupRanker : Fit a gradient-boosting ranker from query ids.

    Notes
    -----
    A shuffle moves feature values across all rows, as scikit-learn's does;
    only the query of each row stays fixed, so the score is still per query.
    Unlike scikit-learn's version there is no ``max_samples``: a subsample
    of rows would cut queries apart.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank import permutation_importance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)          # only feature 0 matters
    >>> qid = np.repeat(np.arange(6), 10)
    >>> model = LinearRegression().fit(X, y)
    >>> result = permutation_importance(
    ...     model, X, y, query_id=qid, scoring="ndcg@5", random_state=0)
    >>> bool(result.importances_mean[0] > result.importances_mean[1])
    True
    >>> result.importances.shape
    (2, 5)
    """
    scorer = _check_scoring(scoring)
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral)
    ):
        raise ValueError(
            f"`n_jobs` must be an integer or None, got {describe(n_jobs)}."
        )
    if not hasattr(X, "iloc"):
        if column_names(X) is not None:
            raise ValueError(
                f"`X` must be a numpy array or a pandas DataFrame, got "
                f"{type(X).__name__}; convert it (X.to_pandas())."
            )
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"`X` must be 2-D, got shape {X.shape}.")
    n_rows = _n_rows(X)
    y = np.asarray(y)
    if y.shape[0] != n_rows:
        raise ValueError(f"`X` has {n_rows} rows but `y` has {y.shape[0]}.")

    columns = range(X.shape[1])
    if isinstance(query_id, str):
        ids = frame_column(X, query_id)
        if ids is None:
            raise ValueError(
                f"`query_id` {query_id!r} names no column of `X`; pass the ids as "
                "an array (one per row) or name the DataFrame column holding them."
            )
        skipped = list(X.columns).index(query_id)
        columns = [c for c in columns if c != skipped]
        query_id = np.asarray(ids)
    elif query_id is None:
        raise ValueError(
            "`query_id` is None: permutation importance per query needs the query "
            "id of every row (an array), or the name of the DataFrame column "
            "holding them. To score all rows as one list, pass "
            "query_id=np.zeros(len(y))."
        )
    elif np.ndim(query_id) != 1 or len(query_id) != n_rows:
        raise ValueError(
            f"`query_id` must hold one id per row ({n_rows}), got shape "
            f"{np.shape(query_id)}."
        )

    random_state = check_random_state(random_state)
    seed = random_state.randint(np.iinfo(np.int32).max + 1)
    baseline = _score(scorer, estimator, X, y, query_id, sample_weight)
    permuted = Parallel(n_jobs=n_jobs)(
        delayed(_permuted_scores)(
            estimator, X, y, query_id, sample_weight, column, seed, n_repeats, scorer
        )
        for column in columns
    )
    if not isinstance(columns, range):  # the query-id column: never shuffled
        permuted.insert(skipped, [baseline] * n_repeats)
    if isinstance(baseline, dict):
        return {
            key: _bunch(baseline[key], [[s[key] for s in row] for row in permuted])
            for key in baseline
        }
    return _bunch(baseline, permuted)
