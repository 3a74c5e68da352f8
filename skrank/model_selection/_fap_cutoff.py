"""FAPCutoffClassifier: learn where to cut each query's ranked list, by FAP@k.

FAP@k (:func:`skrank.fap_score`) rewards a ranking that puts the relevant
rows first *and* stops after them, so the mean FAP@k over queries, evaluated
at every k, peaks at the best place to cut a result list. The selector finds
that peak on out-of-fold scores from query-grouped folds, then refits the
inner model on all the data. Modelled on scikit-learn's
``TunedThresholdClassifierCV``; only public scikit-learn API is used.
"""

from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags, indexable
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, column_or_1d

from .._core._factorize import factorize
from .._core._validation import (
    describe,
    check_bool,
    check_option,
    check_positive_int,
    check_positive_real,
)
from ._cutoff_search import _top_k_mask, search_cutoff
from ._oof import _check_cv, _fit_and_score_fold, _n_rows, query_folds
from ._response import _AUTO_RESPONSE, RESPONSE_METHODS, ranking_scores
from .._core._warnings import warn

CUTOFFS = ("rank", "score")


def _estimator_has(attr):
    """For ``available_if``: the fitted (else the given) estimator has ``attr``."""

    def check(self):
        getattr(getattr(self, "estimator_", self.estimator), attr)
        return True

    return check


# why ``predict`` got no query ids, and the calls that pass them; a search
# (GridSearchCV, ...) whose best_estimator_ is the selector calls predict(X)
# without metadata, so the message names that case too
MISSING_PREDICT_QUERY_ID = (
    "FAPCutoffClassifier(cutoff='rank').predict needs `query_id` to know which "
    "rows form a query: call predict(X, query_id=...), route it with metadata "
    "routing (it is requested by default), or use cutoff='score', which needs "
    "no query ids. A search (GridSearchCV, ...) that tuned this selector cannot "
    "pass query ids to it in search.predict(X): call "
    "search.best_estimator_.predict(X, query_id=...) instead."
)


class FAPCutoffClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
    """Return the top of each query's ranking, cut where FAP@k peaks.

    Wraps a binary classifier (or a regressor or ranker) that scores rows,
    and learns how many rows to return per query: the cutoff maximising the
    mean FAP@k (:func:`skrank.fap_score`) of out-of-fold scores, over folds
    that keep every query whole. ``predict`` then marks the rows inside the
    cutoff of their query as the positive class.

    Parameters
    ----------
    estimator : estimator instance
        The model that scores rows: a binary classifier (scored with
        ``predict_proba`` or ``decision_function``), or a regressor or
        ranker (scored with ``predict``). Cloned unless ``cv="prefit"``.
    beta : float, default=1.0
        Weight of the F part of FAP relative to the AP part, as in F-beta;
        a larger beta favours recall, hence longer result sets.
    cutoff : {"rank", "score"}, default="rank"
        ``"rank"``: return the top ``best_k_`` rows of each query (needs
        ``query_id`` in ``predict``). ``"score"``: return the rows scoring
        at least ``best_threshold_``, so set sizes differ per query and
        ``predict`` needs no query ids.
    cv : int, float, splitter, iterable or "prefit", default=5
        How out-of-fold scores are made. An int: ``GroupKFold(cv)`` over the
        query ids. A float in (0, 1): one ``GroupShuffleSplit`` with that
        validation fraction. A splitter: its ``split(X, y, groups=query_id)``,
        which must keep each query whole (a fold that splits a query raises
        an error). An iterable of (train, test) index pairs. ``"prefit"``:
        ``estimator`` is already fitted and scores all of ``X`` (use data it
        was not trained on). Without ``query_id`` every row is one query and
        the folds are ``StratifiedKFold(cv)`` (or ``StratifiedShuffleSplit``).
    refit : bool, default=True
        Refit ``estimator`` on all the data once the cutoff is found. False
        keeps the model of the single split (only for ``cv`` with one split
        or ``"prefit"``, which requires ``refit=False``), as in scikit-learn.
    max_k : int, default=None
        Largest rank cutoff tried; None means the longest query. With
        ``cutoff="score"`` it only bounds the k-curve in ``cv_results_``.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The method of ``estimator`` that scores rows; ``"auto"`` takes the
        first available of ``predict_proba``, ``decision_function``,
        ``predict``.
    pos_label : int, float, bool or str, default=None
        The label of relevant rows; None means the greater of the two
        labels of ``y`` (1 for 0/1 labels).
    n_jobs : int, default=None
        Folds fitted in parallel (joblib); None means 1.
    random_state : int, RandomState instance or None, default=None
        Seeds the split when ``cv`` is a float.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted model used by ``predict``.
    best_k_ : int
        The rank cutoff maximising the out-of-fold mean FAP@k. Set in both
        modes (with ``cutoff="score"`` for information only).
    best_threshold_ : float
        Only with ``cutoff="score"``: the smallest out-of-fold score inside
        the best sets; ``predict`` returns rows scoring at least this.
    best_score_ : float
        The out-of-fold mean FAP at the chosen cutoff.
    cv_results_ : dict of ndarray
        The curve maximised: ``"k"`` (1..max_k) with the mean ``"fap"``,
        ``"f"`` (F-beta@k) and ``"ap"`` (AP@k) over the out-of-fold queries.
        With ``cutoff="score"`` also ``"thresholds"`` (candidates, highest
        first), ``"threshold_fap"`` (mean FAP of the sets ``{score >= t}``)
        and ``"mean_set_size"`` (mean rows per query in those sets).
    classes_ : ndarray of shape (2,)
        The two labels of ``y``, sorted.
    n_features_in_ : int
        Number of features seen by ``estimator_`` (when it exposes it).
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names seen by ``estimator_`` (when it exposes them).

    See Also
    --------
    fap_curve : the mean FAP@k curve that is maximised.
    FAPCurveDisplay : plots that curve with the chosen cutoff.
    sklearn.model_selection.TunedThresholdClassifierCV : the same idea for
        one global decision threshold and a classification metric.

    Notes
    -----
    **The curve.** The out-of-fold scores of all folds are pooled and one
    :func:`skrank.fap_curve` is computed over them with each (fold, query)
    pair as a query. With query-grouped folds each query lies in exactly
    one test fold, so this is the mean FAP@k over all queries, each scored
    by a model that never saw it (a query weighs the same whichever fold it
    fell in). Queries with no relevant row are left out of the mean, ties
    in scores count by their expected value (``ties="average"``), and the
    first maximum (within 1e-12) wins, i.e. the shortest set among equally
    good ones.

    **Score thresholds** (``cutoff="score"``). The candidates are the
    distinct out-of-fold scores. For a candidate t every query returns its
    rows scoring at least t, i.e. its top k_q(t) rows with k_q(t) set per
    query, and scores FAP@k_q(t); the rank curve is the special case of one
    k for all queries. ``best_threshold_`` is the highest candidate of
    maximal mean FAP, the smallest out-of-fold score in the best sets.

    **Ties at the cutoff** (``cutoff="rank"``). ``predict`` includes every
    row tied in score with the k-th row of its query, so a set is longer
    than ``best_k_`` only when scores tie at the cutoff, and predictions do
    not depend on row order. A query with fewer than ``best_k_`` rows
    returns all its rows.

    **Query ids.** ``fit`` and ``predict`` request ``query_id`` by default,
    so with ``sklearn.set_config(enable_metadata_routing=True)`` a
    ``Pipeline``, ``GridSearchCV`` or ``cross_validate`` passes each fold's
    slice on; with routing off pass ``query_id=`` directly (or
    ``<step>__query_id`` to ``Pipeline.fit``). ``fit`` without ``query_id``
    treats all rows as one query (the convention of every skrank metric),
    seen through each test fold: the folds are ``StratifiedKFold(cv)`` and
    the rows of each test fold are one query of the curve (the mean over
    folds, as ``TunedThresholdClassifierCV`` averages its folds, so scores of
    different fold models are never ranked together). This is meant for
    ``cutoff="score"``; with ``cutoff="rank"`` it warns, because ``best_k_``
    then counts rows of a whole fold.
    ``predict`` with ``cutoff="rank"`` raises a ``ValueError`` without
    ``query_id``. Other fit parameters (e.g. ``sample_weight``) go to
    ``estimator.fit`` (through routing when it is on); the FAP curve weighs
    every query equally.

    Examples
    --------
    Twenty queries of six rows, the first two of each relevant and easy to
    spot, so out-of-fold rankings are perfect and FAP@k peaks at k = 2:

    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skrank import FAPCutoffClassifier
    >>> rng = np.random.RandomState(0)
    >>> query_id = np.repeat(np.arange(20), 6)
    >>> y = np.tile([1, 1, 0, 0, 0, 0], 20)
    >>> X = (y + 0.1 * rng.rand(120)).reshape(-1, 1)
    >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=4)
    >>> selector = selector.fit(X, y, query_id=query_id)
    >>> selector.best_k_, selector.best_score_
    (2, 1.0)
    >>> selector.predict([[0.5], [1.05], [0.02], [0.97]], query_id=[7, 7, 7, 7])
    array([0, 1, 0, 1])

    A score threshold needs no query ids at predict time:

    >>> by_score = FAPCutoffClassifier(LogisticRegression(), cutoff="score", cv=4)
    >>> by_score = by_score.fit(X, y, query_id=query_id)
    >>> by_score.best_score_
    1.0
    >>> by_score.predict([[0.0], [1.2]])
    array([0, 1])
    """

    __metadata_request__fit = {"query_id": True}
    __metadata_request__predict = {"query_id": True}

    def __init__(
        self,
        estimator,
        *,
        beta=1.0,
        cutoff="rank",
        cv=5,
        refit=True,
        max_k=None,
        response_method="auto",
        pos_label=None,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.beta = beta
        self.cutoff = cutoff
        self.cv = cv
        self.refit = refit
        self.max_k = max_k
        self.response_method = response_method
        self.pos_label = pos_label
        self.n_jobs = n_jobs
        self.random_state = random_state

    # -- fit ----------------------------------------------------------------
    def _check_params(self):
        if not hasattr(self.estimator, "fit") or not any(
            hasattr(self.estimator, name) for name in _AUTO_RESPONSE
        ):
            raise ValueError(
                "`estimator` must have a fit method and one of predict_proba, "
                f"decision_function or predict, got {describe(self.estimator)}."
            )
        beta = check_positive_real("beta", self.beta)
        check_option("cutoff", self.cutoff, CUTOFFS)
        max_k = check_positive_int("max_k", self.max_k)
        check_option("response_method", self.response_method, RESPONSE_METHODS)
        refit = check_bool("refit", self.refit)
        n_jobs = self.n_jobs
        if n_jobs is not None and (
            isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, Integral)
        ):
            raise ValueError(
                f"`n_jobs` must be an int or None, got {describe(n_jobs)}."
            )
        cv = _check_cv(self.cv)
        return beta, max_k, refit, cv

    def _check_y(self, y):
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None."
            )
        y = column_or_1d(y, warn=True)
        if y.shape[0] == 0:
            raise ValueError("`y` is empty: at least one row is needed.")
        if y.dtype.kind == "f" and not np.isfinite(y).all():
            raise ValueError("Input y contains NaN or infinity; `y` must hold labels.")
        y_type = type_of_target(y, input_name="y")
        if y_type not in ("binary", "multiclass"):
            raise ValueError(
                f"Unknown label type: {y_type}. `y` must hold two class labels "
                "(relevant / not relevant)."
            )
        classes = np.unique(y)
        if classes.shape[0] == 1:
            raise ValueError(
                f"`y` has only one class ({describe(classes[0])}); "
                f"{type(self).__name__} needs two classes (relevant / not relevant)."
            )
        if classes.shape[0] > 2:
            raise ValueError(
                "Only binary classification is supported. `y` must have exactly two "
                f"classes (relevant / not relevant), got {classes.shape[0]}: "
                f"{describe(classes.tolist())}. Binarise graded relevance first "
                "(e.g. y > 0)."
            )
        if self.pos_label is None:
            pos_label = classes[1]
        else:
            matches = np.flatnonzero(classes == self.pos_label)
            if matches.shape[0] != 1:
                raise ValueError(
                    f"`pos_label` must be one of the labels of y {classes.tolist()}, "
                    f"got {describe(self.pos_label)}."
                )
            pos_label = classes[matches[0]]
        return y, classes, pos_label

    def fit(self, X, y, *, query_id=None, **fit_params):
        """Find the cutoff on out-of-fold scores, then refit the estimator.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Training rows, as accepted by ``estimator``.
        y : array-like of shape (n_samples,)
            Binary labels: relevant (``pos_label``) or not.
        query_id : array-like of shape (n_samples,), default=None
            Query of each row: ints, strings or any hashable ids, rows in any
            order. Folds keep each query whole. None means all rows form one
            query (a warning with ``cutoff="rank"``).
        **fit_params : dict
            Passed to ``estimator.fit`` (sliced per fold); with metadata
            routing on, only what ``estimator`` requested.

        Returns
        -------
        self : FAPCutoffClassifier
            The fitted selector.

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCutoffClassifier
        >>> X = [[0.9], [0.2], [0.1], [0.2], [0.95], [0.1], [0.85], [0.15]]
        >>> y = [1, 0, 0, 0, 1, 0, 1, 0]
        >>> query_id = [1, 1, 1, 2, 2, 2, 3, 3]
        >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
        >>> selector.fit(X, y, query_id=query_id).best_k_   # one relevant row per query
        1
        """
        beta, max_k, refit, cv = self._check_params()
        X, y = indexable(X, y)
        y, classes, pos_label = self._check_y(y)
        n_rows = y.shape[0]
        if _n_rows(X) != n_rows:
            raise ValueError(f"`X` has {_n_rows(X)} rows but `y` has {n_rows}.")

        weight = fit_params.get("sample_weight")
        if weight is not None and np.ndim(weight) == 1 and len(weight) == n_rows:
            weight = np.asarray(weight, dtype=np.float64)
            for label in classes:
                if not weight[y == label].sum() > 0:
                    raise ValueError(
                        f"`sample_weight` is 0 for every row of class "
                        f"{describe(label)}, which leaves one class to learn from."
                    )

        groups = None
        if query_id is not None:
            groups, _ = factorize(query_id, n_rows)
            if groups.shape[0] != n_rows:
                raise ValueError(
                    f"`query_id` has {groups.shape[0]} entries but `y` has "
                    f"{n_rows} rows."
                )
        elif self.cutoff == "rank":
            warn(
                "FAPCutoffClassifier.fit got no `query_id`: all rows are treated as "
                "one query (the rows of each test fold form one ranking), so "
                "`best_k_` counts rows of a whole fold, not of a query. Pass "
                "`query_id=` (or route it), or use cutoff='score'.",
                UserWarning,
            )

        if get_config().get("enable_metadata_routing", False):
            metadata = dict(fit_params)
            if query_id is not None:
                metadata["query_id"] = query_id
            estimator_params = process_routing(self, "fit", **metadata).estimator.fit
        else:
            estimator_params = fit_params

        relevance = (y == pos_label).astype(np.int64)
        response = self.response_method
        if cv == "prefit":
            if refit:
                raise ValueError("When cv='prefit', refit cannot be True.")
            try:
                check_is_fitted(self.estimator)
            except NotFittedError as exc:
                raise NotFittedError(
                    "When cv='prefit', `estimator` must be fitted."
                ) from exc
            self.estimator_ = self.estimator
            folds = [(None, np.arange(n_rows))]
            fold_scores = [ranking_scores(
                self.estimator_, X, response_method=response, pos_label=pos_label
            )]
        else:
            folds = query_folds(cv, X, y, groups, random_state=self.random_state)
            if not refit and len(folds) > 1:
                raise ValueError("When cv has several folds, refit cannot be False.")
            fitted = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_and_score_fold)(
                    clone(self.estimator), X, y, train, test, estimator_params,
                    response, pos_label,
                )
                for train, test in folds
            )
            fold_scores = [score for _, score in fitted]
            if refit:
                self.estimator_ = clone(self.estimator).fit(X, y, **estimator_params)
            else:
                self.estimator_ = fitted[0][0]

        self.cv_results_, self.best_k_, self.best_score_, threshold = search_cutoff(
            folds, fold_scores, relevance, groups, beta=beta, max_k=max_k,
            cutoff=self.cutoff,
        )
        if threshold is not None:
            self.best_threshold_ = threshold

        self.classes_ = classes
        self._pos_index = int(np.flatnonzero(classes == pos_label)[0])
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimator_, name):
                setattr(self, name, getattr(self.estimator_, name))
        return self

    # -- predict ------------------------------------------------------------
    def _score_rows(self, X):
        check_is_fitted(self, "estimator_")
        return ranking_scores(
            self.estimator_, X, response_method=self.response_method,
            pos_label=self.classes_[self._pos_index],
        )

    def predict(self, X, *, query_id=None):
        """Mark the rows inside the cutoff of their query as relevant.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Rows to rank, as accepted by ``estimator``.
        query_id : array-like of shape (n_samples,), default=None
            Query of each row. Required with ``cutoff="rank"``; ignored with
            ``cutoff="score"``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The positive label for the rows in the returned set of their
            query (top ``best_k_`` rows with all rows tied with the k-th, or
            rows scoring at least ``best_threshold_``), the other label else.

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCutoffClassifier
        >>> X = [[0.9], [0.2], [0.1], [0.2], [0.95], [0.1], [0.85], [0.15]]
        >>> y = [1, 0, 0, 0, 1, 0, 1, 0]
        >>> query_id = [1, 1, 1, 2, 2, 2, 3, 3]
        >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
        >>> selector = selector.fit(X, y, query_id=query_id)   # best_k_ == 1
        >>> X_new, new_query_id = [[0.3], [0.7], [0.5], [0.6]], ["a", "a", "b", "b"]
        >>> selector.predict(X_new, query_id=new_query_id)
        array([0, 1, 0, 1])
        """
        score = self._score_rows(X)
        if self.cutoff == "score":
            inside = score >= self.best_threshold_
        else:
            if query_id is None:
                raise ValueError(MISSING_PREDICT_QUERY_ID)
            n_query = _n_rows(query_id) if np.ndim(query_id) else 0
            if n_query != score.shape[0]:
                raise ValueError(
                    f"`query_id` has {n_query} entries but `X` has "
                    f"{score.shape[0]} rows."
                )
            inside = _top_k_mask(score, query_id, self.best_k_)
        pos, neg = self.classes_[self._pos_index], self.classes_[1 - self._pos_index]
        return np.where(inside, pos, neg)

    def _delegate(self, method, X):
        """``estimator_.<method>(X)``: the response methods the cutoff leaves alone."""
        check_is_fitted(self, "estimator_")
        return getattr(self.estimator_, method)(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of ``estimator_`` (unchanged by the cutoff).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Rows, as accepted by ``estimator``.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            ``estimator_.predict_proba(X)``.

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCutoffClassifier
        >>> X, y = [[0.9], [0.1], [0.8], [0.2], [0.7], [0.3]], [1, 0, 1, 0, 1, 0]
        >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
        >>> selector.fit(X, y, query_id=[1, 1, 2, 2, 3, 3]).predict_proba(X).shape
        (6, 2)
        """
        return self._delegate("predict_proba", X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """Log class probabilities of ``estimator_`` (unchanged by the cutoff).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Rows, as accepted by ``estimator``.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, 2)
            ``estimator_.predict_log_proba(X)``.

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCutoffClassifier
        >>> X, y = [[0.9], [0.1], [0.8], [0.2], [0.7], [0.3]], [1, 0, 1, 0, 1, 0]
        >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
        >>> selector.fit(X, y, query_id=[1, 1, 2, 2, 3, 3]).predict_log_proba(X).shape
        (6, 2)
        """
        return self._delegate("predict_log_proba", X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """Decision function of ``estimator_`` (unchanged by the cutoff).

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
            Rows, as accepted by ``estimator``.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``estimator_.decision_function(X)``.

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCutoffClassifier
        >>> X, y = [[0.9], [0.1], [0.8], [0.2], [0.7], [0.3]], [1, 0, 1, 0, 1, 0]
        >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
        >>> selector = selector.fit(X, y, query_id=[1, 1, 2, 2, 3, 3])
        >>> int(selector.decision_function([[0.1], [0.9]]).argmax())   # 0.9 is higher
        1
        """
        return self._delegate("decision_function", X)

    # -- routing and tags ---------------------------------------------------
    def get_metadata_routing(self):
        """Metadata routing: ``query_id`` to the selector, fit params to ``estimator``.

        Returns
        -------
        routing : MetadataRouter
            The selector's own requests (``query_id`` in ``fit`` and
            ``predict``) and ``estimator``'s ``fit`` requests, called from
            ``fit`` (and for each fold).

        Examples
        --------
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCutoffClassifier
        >>> routing = FAPCutoffClassifier(LogisticRegression()).get_metadata_routing()
        >>> routing.consumes("fit", ["query_id"])
        {'query_id'}
        >>> routing.consumes("predict", ["query_id"])
        {'query_id'}
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags
