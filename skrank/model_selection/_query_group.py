"""QueryGroupRanker: LightGBM, XGBoost and CatBoost rankers from per-row query ids.

scikit-learn's model selection hands an estimator the rows of a fold in any
order, with per-row metadata. The gradient-boosting rankers want something
else: LightGBM the sizes of contiguous query blocks (``group=``), XGBoost
rows sorted by ``qid``, CatBoost a ``group_id`` per row with each query's
rows together. The wrapper turns the first into the second, once per
``fit``: a stable sort of the rows by query id, then the library's own
argument. Predictions are row by row, so they come back in the caller's
order without any reordering.

Two extras ride on the sort: an evaluation set of held-out *queries* for
early stopping, and skrank metrics as the library's evaluation metric,
computed with :func:`skrank.evaluate` on the evaluation set's query ids.
What differs between the libraries is in ``_ranker_libraries``.
"""

import warnings
import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import GroupShuffleSplit
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.validation import check_is_fitted

from .._core._factorize import factorize
from .._core._layout import segment_ids
from .._core._frames import from_native, column as frame_column, column_names
from .._core._validation import (
    check_fraction,
    check_option,
    check_positive_int,
    check_sample_weight,
)
from .._core._presets import check_compat
from ._oof import _n_rows, _take_rows
from ._query_ids import check_query_id_column, no_column_clause
from ._ranker_libraries import (
    LIBRARIES,
    _GROUP_ARGUMENT,
    _CatBoostMetric,
    _add_evaluation,
    _best_iteration,
    _bind_positions,
    _check_eval_metric,
    _check_held_out,
    _check_one_row_per_position,
    _check_position,
    _detect_library,
    _fit_with_position,
)
from ._response import ranking_scores


# -- query layout ---------------------------------------------------------------
class _QueryLayout:
    """Rows sorted stably by query id, with what each library wants from them.

    ``order``: the row positions, query by query (ascending ids; a pandas
    categorical in category order); within a query, the caller's order, or
    ascending ``within`` when given (XGBoost reads the logged positions
    from the row order). ``codes``: 0, 1, 2, ... per query of the sorted
    rows; ``sizes``: rows per query; ``starts``: the first sorted row of
    each query.
    """

    def __init__(self, keys, within=None):
        if within is None:
            self.order = np.argsort(keys, kind="stable")
        else:
            self.order = np.lexsort((within, keys))
        sorted_keys = keys[self.order]
        new_query = np.ones(sorted_keys.shape[0], dtype=bool)
        new_query[1:] = sorted_keys[1:] != sorted_keys[:-1]
        self.starts = np.flatnonzero(new_query)
        self.sizes = np.diff(np.append(self.starts, sorted_keys.shape[0]))
        self.codes = segment_ids(self.starts, sorted_keys.shape[0])

    def group_argument(self, library):
        """The value of the library's group argument for the sorted rows."""
        return self.sizes if library == "lightgbm" else self.codes


def _query_keys(query_id, n_rows):
    keys, _ = factorize(query_id, n_rows)
    return keys


def _check_constant_per_query(weight, layout, library):
    """One weight per query from per-row weights that must agree within a query."""
    sorted_weight = weight[layout.order]
    first = np.repeat(sorted_weight[layout.starts], layout.sizes)
    differs = sorted_weight != first
    if differs.any():
        row = int(layout.order[np.flatnonzero(differs)[0]])
        raise ValueError(
            f"`sample_weight` differs between rows of one query (row {row} and the "
            f"first row of its query), but {library} weighs whole queries: give "
            "every row of a query the same weight (such as the query's weight "
            "repeated on its rows)."
        )
    return sorted_weight[layout.starts]


# -- the estimator ---------------------------------------------------------------
def _drop_column(X, column):
    """``X`` without the query-id column (a DataFrame of any library), else ``X``."""
    if column is None:
        return X
    names = column_names(X)
    if names is None or column not in names:
        return X
    frame = from_native(X)
    if frame is not None:
        return frame.drop(column).to_native()
    return X.drop(columns=[column])


def _missing_query_id_message(ranker, X):
    column = ranker.query_id_column
    if get_config().get("enable_metadata_routing", False):
        why = "metadata routing is on, but no `query_id` reached fit"
    else:
        why = "metadata routing is off and fit got no `query_id=`"
    why += no_column_clause(X, column)
    return (
        f"QueryGroupRanker.fit needs the query id of every row, and got none: {why}. "
        "Pass them one of these ways: ranker.fit(X, y, query_id=qid); in a search, "
        "GridSearchCV(ranker, grid, cv=GroupKFold()).fit(X, y, query_id=qid, "
        "groups=qid) (routing on or off; with routing on, the ranker requests "
        "query_id by default); or give X as a DataFrame with a "
        f"{'qid' if column is None else column!r} column holding the ids, which "
        "the ranker drops before fitting."
    )


class QueryGroupRanker(MetaEstimatorMixin, BaseEstimator):
    """Fit a LightGBM, XGBoost or CatBoost ranker from per-row query ids.

    The rankers of the gradient-boosting libraries want each query's rows
    together: ``LGBMRanker`` the sizes of contiguous query blocks
    (``group=``), ``XGBRanker`` rows sorted by ``qid``, ``CatBoostRanker`` a
    ``group_id`` per row, grouped. No scikit-learn splitter or metadata
    router produces that for a fold. ``QueryGroupRanker`` takes one query id
    per row, sorts the rows stably by query id and fits the wrapped ranker
    with the library's argument, so the ranker works in ``GridSearchCV``,
    ``cross_validate``, ``Pipeline`` and with shuffled rows.

    Parameters
    ----------
    estimator : object
        The ranker to fit: ``lightgbm.LGBMRanker``, ``xgboost.XGBRanker``,
        ``catboost.CatBoostRanker``, or any estimator whose ``fit`` takes one
        of their group arguments (see ``library``). Cloned by ``fit``.
    library : {"auto", "lightgbm", "xgboost", "catboost"}, default="auto"
        How the queries are given to ``estimator.fit``: ``"lightgbm"``:
        ``group=`` query sizes; ``"xgboost"``: ``qid=`` integer codes
        0, 1, 2, ... per row in sorted order; ``"catboost"``: ``group_id=``
        the same codes. ``"auto"``: from the estimator's package, else from
        the parameters of its ``fit``.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids, read when ``fit``
        gets no ``query_id``. The column is dropped from ``X`` (in ``fit``
        and ``predict``) before the estimator sees it, whether or not it was
        read. None: never read nor drop a column.
    validation_fraction : float or None, default=None
        Fraction of the *queries* (never of rows) held out inside ``fit`` as
        the evaluation set of the library (``eval_set`` with ``eval_group``
        / ``eval_qid``, or a CatBoost ``Pool`` with ``group_id``), drawn as
        ``GroupShuffleSplit`` draws. None: fit on every row, no evaluation
        set.
    early_stopping_rounds : int or None, default=None
        Stop when the evaluation metric has not improved on the held-out
        queries for this many rounds; needs ``validation_fraction``. The
        metric is the first of ``eval_metric``, even when the estimator sets
        built-in metrics of its own (LightGBM's ``metric``, XGBoost's
        ``eval_metric``: still computed and logged); without ``eval_metric``,
        the library's own first metric. ``best_iteration_`` is that metric's
        first best round. A ``ValueError`` before training when no held-out
        query can be scored by that metric (none has a relevant row; see
        Notes).
    eval_metric : str, click scorer, list of them or None, default=None
        skrank metric names (``"ndcg@10"``, ``"fap@10"``, ``"map"``, ...)
        computed on the held-out queries by :func:`skrank.evaluate` (tie-
        exact, queries without a relevant row left out) after each round:
        LightGBM gets them as its callable ``eval_metric`` (and its own
        metric is turned off unless the estimator sets ``metric``), XGBoost
        as a training callback (logged under ``"skrank"`` in
        ``evals_result()``), CatBoost as a user-defined ``eval_metric``
        (the first name only, logged as ``"_CatBoostMetric"``). Needs ``validation_fraction``.
        A scorer of :func:`skrank.clicks.get_scorer` adds its click metrics,
        logged as ``"clicks:dcg@10"`` and so on: its IPS estimates on the
        held-out lists, from ``y`` (the clicks) and the ``position`` given
        to ``fit`` (LightGBM and XGBoost; ``"arp"`` negated, so higher is
        better), so that training can stop early on a click metric.
    compat : str, default=None
        A peer's conventions for ``eval_metric`` (see
        :func:`skrank.describe_convention`): ``"lightgbm"`` logs the numbers
        LightGBM's own metrics would, and names may be the peer's own
        (``"ndcg@10-"`` with ``"xgboost"``). None: skrank's conventions.
    random_state : int, RandomState instance or None, default=None
        Seed of the held-out queries' draw.

    Attributes
    ----------
    estimator_ : object
        The fitted clone of ``estimator``.
    library_ : str
        The library convention used.
    best_iteration_ : int or None
        The library's best iteration after early stopping, as the library
        counts it (LightGBM from 1, XGBoost and CatBoost from 0), else None.
    n_features_in_ : int
        Number of features the estimator was fitted on (without the query-id
        column).
    feature_names_in_ : ndarray of str
        Their names, when ``X`` had string column names.

    See Also
    --------
    skrank.get_scorer : Scorers that score each query of a test fold.
    skrank.permutation_importance : Permutation importance scored per query.

    Notes
    -----
    **Row order.** Rows are sorted by query id, ascending (numbers by value,
    strings lexicographically, a pandas categorical in category order), with
    a stable sort, so the rows of a query keep the caller's order. The fit
    is therefore the same as a fit of the bare ranker on those sorted rows,
    whatever order the rows came in. ``predict`` scores rows independently
    and returns them in the caller's order.

    **Query ids.** ``fit`` takes ``query_id`` as an argument; with metadata
    routing on (``sklearn.set_config(enable_metadata_routing=True)``) it
    requests ``query_id`` by default, as skrank's scorers do, so
    ``GridSearchCV(...).fit(X, y, query_id=qid, groups=qid)`` reaches both.
    With routing off the search passes ``query_id`` to ``fit`` sliced per
    fold, or the ids come from the ``query_id_column`` of a DataFrame.

    **Click logs.** With ``y`` the clicks and ``position`` where the logger
    showed each row (requested by default with metadata routing on, like
    ``query_id``; ``set_fit_request(position=False)`` keeps it for the
    scorer only), the ranker trains position-debiased: LightGBM with
    ``Dataset(position=...)`` (its ``lambdarank_position_bias_regularization``
    applies), XGBoost with ``lambdarank_unbiased=True`` on each query's rows
    in ascending position. ``LGBMRanker.fit`` (LightGBM 4.7) takes no
    position, so the wrapper then trains with ``lightgbm.train`` on the
    estimator's parameters, and ``estimator_`` is a ``lightgbm.Booster``.
    Score such searches with :func:`skrank.clicks.get_scorer`.

    **Held-out queries that cannot be scored.** A skrank metric leaves out
    a query with no relevant row (GAUC: without both a relevant and an
    irrelevant row). When every held-out query is left out, the metric is
    nan at every round: ``fit`` then refuses, before training, to early stop
    on it (``ValueError``: training would stop at once and keep the first
    trees), and warns (``UndefinedMetricWarning``) for an ``eval_metric``
    that is only logged. Early stopping on the library's own metric is
    refused when no held-out row is relevant.

    **Weights.** ``sample_weight`` is one weight per row. LightGBM takes it
    per row; XGBoost and CatBoost (``group_weight``) weigh whole queries, so
    the rows of one query must carry the same weight (a ``ValueError``
    otherwise).

    **Other fit parameters** reach ``estimator.fit`` unchanged (with
    routing on: those the estimator requests). Give per-row ones
    (``init_score``, ``base_margin``) through a library of their own; the
    wrapper sorts only ``X``, ``y``, ``query_id`` and ``sample_weight``.

    Examples
    --------
    >>> import numpy as np
    >>> from lightgbm import LGBMRanker
    >>> from skrank import QueryGroupRanker, ndcg_score
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3))
    >>> y = (X[:, 0] > 0.8).astype(int)
    >>> qid = rng.choice(["a", "b", "c", "d"], size=200)   # shuffled rows
    >>> ranker = QueryGroupRanker(LGBMRanker(n_estimators=10, n_jobs=1, verbose=-1))
    >>> ranker = ranker.fit(X, y, query_id=qid)
    >>> ranker.library_
    'lightgbm'
    >>> float(ndcg_score(y, ranker.predict(X), query_id=qid)) > 0.9
    True
    """

    __metadata_request__fit = {"query_id": True, "position": True}
    __metadata_request__score = {"query_id": True}

    def __init__(self, estimator, *, library="auto", query_id_column="qid",
                 validation_fraction=None, early_stopping_rounds=None,
                 eval_metric=None, compat=None, random_state=None):
        self.estimator = estimator
        self.library = library
        self.query_id_column = query_id_column
        self.validation_fraction = validation_fraction
        self.early_stopping_rounds = early_stopping_rounds
        self.eval_metric = eval_metric
        self.compat = compat
        self.random_state = random_state

    def _check_params(self):
        library = check_option("library", self.library, LIBRARIES)
        check_query_id_column(self.query_id_column)
        fraction = self.validation_fraction
        if fraction is not None:
            fraction = check_fraction("validation_fraction", fraction)
        rounds = check_positive_int("early_stopping_rounds", self.early_stopping_rounds)
        names = _check_eval_metric(self.eval_metric, check_compat("compat", self.compat))
        if fraction is None and (rounds is not None or names):
            what = "early_stopping_rounds" if rounds is not None else "eval_metric"
            raise ValueError(
                f"`{what}` needs held-out queries to evaluate on: set "
                "validation_fraction (such as 0.1) as well."
            )
        library = _detect_library(self.estimator, library)
        if library == "catboost" and any(name.click is not None for name in names):
            raise ValueError(
                "`eval_metric` has a click metric, which needs positions: CatBoost "
                "cannot take them; use LightGBM or XGBoost."
            )
        return library, fraction, rounds, names

    def fit(self, X, y, *, query_id=None, position=None, sample_weight=None,
            **fit_params):
        """Sort the rows by query id and fit the ranker with its group argument.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_rows, n_features)
            Training rows, in any order. A DataFrame's ``query_id_column`` is
            dropped before the estimator sees ``X``.
        y : array-like of shape (n_rows,)
            Relevance of each row (labels or grades, as the ranker takes).
        query_id : array-like of shape (n_rows,), default=None
            Query of each row: ints, strings or any hashable ids. None: the
            ``query_id_column`` of a DataFrame ``X``, else a ``ValueError``.
        position : array-like of shape (n_rows,), default=None
            For click logs (``y`` the clicks): the 1-based position at which
            the logging ranker showed each row, for position-debiased
            training. LightGBM gets it as its ``Dataset(position=...)``
            (with ``LGBMRanker`` versions whose ``fit`` takes no
            ``position``, the wrapper trains with ``lightgbm.train``; see
            Notes); XGBoost gets the rows of each query in ascending
            ``position`` and ``lambdarank_unbiased=True`` unless the
            estimator sets it. Each query is then one displayed list: two
            rows of a query at one position are an error for XGBoost.
            CatBoost has no such training: a ``ValueError``. None: no
            position.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per row; equal within a query for XGBoost and
            CatBoost, which weigh queries.
        **fit_params : dict
            Passed to ``estimator.fit`` (with routing on: what it requests).

        Returns
        -------
        self : QueryGroupRanker
            The fitted wrapper.
        """
        library, fraction, rounds, names = self._check_params()
        n_rows = _n_rows(X)
        y = np.asarray(y)
        if y.shape[0] != n_rows:
            raise ValueError(f"`X` has {n_rows} rows but `y` has {y.shape[0]}.")
        if query_id is None and self.query_id_column is not None:
            query_id = frame_column(X, self.query_id_column)
        if query_id is None:
            raise ValueError(_missing_query_id_message(self, X))
        keys = _query_keys(query_id, n_rows)
        X = _drop_column(X, self.query_id_column)
        weight = check_sample_weight(sample_weight, n_rows)
        position = _check_position(position, n_rows, library)

        if get_config().get("enable_metadata_routing", False):
            fit_params = process_routing(self, "fit", **fit_params).estimator.fit
        made = [_GROUP_ARGUMENT[library]]
        if fraction is not None:
            made.append("eval_set")
        for name in made:
            if name in fit_params:
                raise ValueError(
                    f"Do not pass `{name}` to QueryGroupRanker.fit: the wrapper "
                    "makes it from `query_id`"
                    + (" and validation_fraction." if name == "eval_set" else ".")
                )

        if fraction is None:
            train, held_out = np.arange(n_rows), None
        else:
            split = GroupShuffleSplit(
                n_splits=1, test_size=fraction, random_state=self.random_state
            )
            train, held_out = next(split.split(np.zeros((n_rows, 1)), groups=keys))

        estimator = clone(self.estimator)
        fit_args = dict(fit_params)
        restore = {}
        fit_set = self._sorted_part(X, y, keys, weight, train, library, position)
        fit_args[_GROUP_ARGUMENT[library]] = fit_set["group"]
        if fit_set["weight"] is not None:
            fit_args["group_weight" if library == "catboost" else "sample_weight"] = (
                fit_set["weight"]
            )
        if held_out is not None:
            eval_set = self._sorted_part(X, y, keys, weight, held_out, library,
                                         position)
            names = _bind_positions(names, eval_set["position"])
            # CatBoost takes the first skrank metric only
            _check_held_out(names[:1] if library == "catboost" else names,
                            eval_set, rounds)
        with warnings.catch_warnings():
            # CatBoost tries to compile Python metrics with numba, and says so
            warnings.filterwarnings("ignore", message='.*method "evaluate".*')
            if held_out is not None:
                restore = _add_evaluation(
                    estimator, library, fit_args, fit_set, eval_set, rounds, names
                )
            if position is None:
                fitted = estimator.fit(fit_set["X"], fit_set["y"], **fit_args)
            else:
                fitted = _fit_with_position(estimator, library, fit_set, fit_args)
        if restore:
            estimator.set_params(**restore)
        metric = estimator.get_params().get("eval_metric")
        if isinstance(metric, _CatBoostMetric):
            metric.datasets = []  # the training labels are not part of the model
        estimator = fitted  # a lightgbm.Booster when LGBMRanker.fit takes no position

        self.estimator_ = estimator
        self.library_ = library
        self.best_iteration_ = _best_iteration(estimator, library, rounds)
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
        if hasattr(estimator, "num_feature"):  # a lightgbm.Booster
            self.n_features_in_ = estimator.num_feature()
        return self

    @staticmethod
    def _sorted_part(X, y, keys, weight, rows, library, position=None):
        """The rows ``rows`` sorted by query, with the library's group argument."""
        by_position = position is not None and library == "xgboost"
        layout = _QueryLayout(keys[rows], position[rows] if by_position else None)
        taken = rows[layout.order]
        part = {
            "X": _take_rows(X, taken), "y": y[taken], "codes": layout.codes,
            "group": layout.group_argument(library), "weight": None,
            "row_weight": None if weight is None else weight[taken],
            "position": None if position is None else position[taken],
        }
        if by_position:
            _check_one_row_per_position(part["position"], layout, taken)
        if weight is not None:
            if library == "lightgbm":
                part["weight"] = part["row_weight"]
            else:
                per_query = _check_constant_per_query(weight[rows], layout, library)
                part["weight"] = (
                    per_query if library == "xgboost"
                    else np.repeat(per_query, layout.sizes)
                )
        return part

    def predict(self, X):
        """Scores of the fitted ranker, in the caller's row order.

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_rows, n_features)
            Rows to score; a DataFrame's ``query_id_column`` is dropped first.

        Returns
        -------
        scores : ndarray of shape (n_rows,)
            Higher means ranked earlier within a query.
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict(_drop_column(X, self.query_id_column))

    def score(self, X, y, *, query_id=None, sample_weight=None):
        """Mean nDCG over the queries of ``X`` (skrank's :func:`skrank.ndcg_score`).

        The libraries' own ``score`` methods differ (``LGBMRanker`` has none,
        ``XGBRanker`` reads a ``qid`` column), so the wrapper scores the same
        way for all: nDCG with exponential gains, tie-exact, per query.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_rows, n_features)
            Rows to score.
        y : array-like of shape (n_rows,)
            Relevance of each row.
        query_id : array-like of shape (n_rows,), default=None
            Query of each row; None: the ``query_id_column`` of a DataFrame
            ``X`` (requested by default with metadata routing on).
        sample_weight : array-like of shape (n_rows,), default=None
            Row weights, passed to the metric.

        Returns
        -------
        score : float
        """
        from ..metrics import ndcg_score

        if query_id is None and self.query_id_column is not None:
            query_id = frame_column(X, self.query_id_column)
        if query_id is None:
            raise ValueError(
                _missing_query_id_message(self, X).replace(
                    "QueryGroupRanker.fit", "QueryGroupRanker.score"
                )
            )
        scores = ranking_scores(self, X, response_method="predict")
        return float(ndcg_score(
            y, scores, query_id=query_id, sample_weight=sample_weight
        ))

    def get_metadata_routing(self):
        """Metadata routing: ``query_id`` to the wrapper, fit params to ``estimator``.

        Returns
        -------
        routing : MetadataRouter
            The wrapper's own requests (``query_id`` for ``fit`` and
            ``score``) and ``estimator``'s ``fit`` requests.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
        )

