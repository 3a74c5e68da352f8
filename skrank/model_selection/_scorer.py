"""Scorers: skrank metrics for GridSearchCV, cross_validate and friends.

A scorer is called as ``scorer(estimator, X, y_true, **metadata)`` by
scikit-learn's model selection tools. A ranking scorer needs the query id of
every row of the test fold; it gets them in one of two ways:

* **metadata routing** (``sklearn.set_config(enable_metadata_routing=True)``):
  the scorer requests ``query_id``, so scikit-learn hands it each fold's
  slice of ``params={"query_id": qid}``;
* **a DataFrame column**: with routing off, the scorer reads the ids from a
  column of ``X`` (``"qid"`` by default) that the estimator's pipeline drops.

Without either it raises a ``ValueError`` saying so: it never scores all rows
as one query. Only public scikit-learn API is used: a scorer is any callable
with a ``get_metadata_routing`` method (scikit-learn's ``_BaseScorer`` and
``_get_response_values`` are private).
"""

import inspect
import re
import sys
import warnings
import weakref
from numbers import Integral

import numpy as np
from sklearn import get_config
from sklearn.utils.metadata_routing import UNCHANGED, MetadataRequest

from .._core._frames import column as frame_column, column_names
from .._core._validation import check_option, check_positive_int, _describe
from .._core._params import check_params
from .._core._presets import get_convention, parse_peer_name
from .._core._peer_rules import peer_rules
from ..metrics._evaluate import MetricRequest, make_request, score_requests, split_options
from ..metrics._registry import metric_names, METRICS, parse_metric_name
from ._response import RESPONSE_METHODS, ranking_scores
from .._core._warnings import warn

# arguments a scorer fills in itself; they cannot be fixed at construction
_RESERVED = ("y_true", "y_score", "query_id", "sample_weight")
_ROUTED = ("query_id", "sample_weight")


def _registry_functions():
    return {spec.func for spec in METRICS.values()}


def _func_repr(func):
    """``ndcg_score`` for a function, the repr for anything else (partials)."""
    name = getattr(func, "__name__", None)
    return name if name is not None and inspect.isfunction(func) else repr(func)


def _routing_on():
    return bool(get_config().get("enable_metadata_routing", False))


def _check_alias(name, alias):
    """A metadata request: True, False, None or a valid identifier (an alias)."""
    if alias is None or isinstance(alias, bool):
        return alias
    if isinstance(alias, str) and alias.isidentifier():
        return True if alias == name else alias
    raise ValueError(
        f"`{name}` must be True, False, None or a parameter name to use as an "
        f"alias (such as \"groups\"), got {_describe(alias)}."
    )


def _inside_sklearn_permutation_importance():
    """Whether scikit-learn's ``permutation_importance`` is on the call stack.

    Only looked at while building an error message. It cannot see a call
    made in a joblib worker (``n_jobs>1``), so the message also mentions
    permutation importance when this is False.
    """
    frame = sys._getframe(1)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith("sklearn.inspection") and frame.f_code.co_name in (
            "permutation_importance", "_calculate_permutation_scores"
        ):
            return True
        frame = frame.f_back
    return False


def _no_column_clause(X, column):
    """Why no query ids came from a column of ``X`` (a clause of an error)."""
    if column is None:
        return ", and reading ids from a column of X is disabled (query_id_column=None)"
    if column_names(X) is not None:
        return f", and X has no column {column!r}"
    return (
        f", and X (of type {type(X).__name__}) is not a DataFrame with a "
        f"{column!r} column"
    )


def _missing_query_id_message(scorer, X):
    column = scorer.query_id_column
    routing = _routing_on()
    alias = scorer._score_request.get("query_id")
    if routing:
        if alias is False or alias is None:
            why = (
                "metadata routing is on, but this scorer's request for `query_id` "
                f"is set to {alias}"
            )
        elif isinstance(alias, str):
            why = (
                f"metadata routing is on, but no `{alias}` (the alias this scorer "
                "requests `query_id` under) was passed"
            )
        else:
            why = "metadata routing is on, but no `query_id` was passed"
    else:
        why = "metadata routing is off (so no `query_id` can reach a scorer)"
    why += _no_column_clause(X, column)
    col = repr("qid" if column is None else column)
    name = alias if isinstance(alias, str) else "query_id"
    if routing and (alias is False or alias is None):
        routed = (
            "metadata routing (already on): request the ids with "
            "scorer.set_score_request(query_id=True) (or query_id='groups' to "
            "reuse the splitter's groups), then pass them with the data"
        )
    elif routing:
        routed = "metadata routing (already on): pass the ids with the data"
    else:
        routed = (
            "metadata routing: call sklearn.set_config(enable_metadata_routing=True), "
            "then pass the ids with the data"
        )
    params = "'groups': qid" if name == "groups" else f"'{name}': qid, 'groups': qid"
    fit = "groups=qid" if name == "groups" else f"{name}=qid, groups=qid"
    routed += (
        f": cross_validate(model, X, y, cv=GroupKFold(), scoring=scorer, "
        f"params={{{params}}}) or GridSearchCV(model, grid, "
        f"cv=GroupKFold(), scoring=scorer).fit(X, y, {fit})"
    )
    frame = (
        "a DataFrame column: give X as a pandas or polars DataFrame with a column "
        f"{col} holding the ids (make_ranking_scorer(..., query_id_column={col}) "
        "names another) and drop that column in the model's pipeline: "
        f"make_pipeline(ColumnTransformer([('qid', 'drop', [{col}])], "
        "remainder='passthrough'), model)"
    )
    permutation = (
        "skrank.permutation_importance(model, X, y, query_id=qid, scoring=scorer), "
        "which scores each query and never shuffles the ids"
    )
    if _inside_sklearn_permutation_importance():
        ways = (
            "sklearn.inspection.permutation_importance cannot route metadata, so "
            "pass the ids one of these ways:\n"
            f"  1. {permutation};\n"
            f"  2. {frame}, and leave that column out of the importances.\n"
        )
    else:
        ways = (
            "Pass them in one of two ways:\n"
            f"  1. {routed};\n"
            f"  2. {frame}.\n"
            "(sklearn.inspection.permutation_importance cannot route metadata: use "
            f"{permutation}.)\n"
        )
    return (
        f"{scorer!r} needs the query id of every row to score each query "
        f"separately, and got none: {why}. {ways}"
        "Without query ids a metric scores all rows as ONE ranked list; to do "
        "that on purpose, pass the same id for every row "
        "(query_id=np.zeros(len(y)))."
    )


_CUT_QUERIES = {
    "learning_curve": (
        "learning_curve trains on the first n rows of each training fold "
        "(train_sizes), which cuts queries apart: the model learns from partial "
        "queries and the training scores are on partial queries (the test folds "
        "stay whole with a group splitter). Sort the rows by query id and pass "
        "shuffle=False, so that at most one query per training subset is cut."
    ),
    "halving": (
        "{name}(resource='n_samples') scores candidates on a random subsample of "
        "the rows of each fold, which cuts queries apart, so the scores of the "
        "early iterations are on partial queries. Use a model parameter as the "
        "resource (such as resource='n_estimators') to keep every query whole."
    ),
    "permutation_importance": (
        "permutation_importance(max_samples<1.0) draws a subset of the rows, which "
        "cuts queries apart; pass max_samples=1.0 to score whole queries."
    ),
}
# tools already warned about, so that each search or call warns once
_WARNED_CUTS = weakref.WeakSet()


def _warn_if_queries_are_cut():
    """Warn once when a scikit-learn tool that subsamples rows calls the scorer.

    ``learning_curve``, ``HalvingGridSearchCV(resource="n_samples")`` and
    ``permutation_importance(max_samples<1)`` hand the scorer (or the model)
    rows of partial queries, which the query ids alone cannot reveal. They
    are recognised on the call stack, so only when the scorer runs in their
    process (``n_jobs=None`` or 1, or a thread); in process workers nothing
    is seen and nothing is said.
    """
    frame = sys._getframe(2)
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(("sklearn.model_selection", "sklearn.inspection")):
            found = _tool_that_cuts_queries(frame)
            if found is not None:
                owner, text = found
                try:
                    if owner in _WARNED_CUTS:
                        return
                    _WARNED_CUTS.add(owner)
                except TypeError:  # an owner without weak references
                    pass
                warn(text, UserWarning)
                return
        frame = frame.f_back


def _tool_that_cuts_queries(frame):
    """(owner, message) for a frame of a tool that subsamples rows, else None."""
    name = frame.f_code.co_name
    local = frame.f_locals
    if name == "learning_curve" and "train_sizes" in local:
        return local.get("estimator"), _CUT_QUERIES["learning_curve"]
    if name == "permutation_importance":
        max_samples, X = local.get("max_samples"), local.get("X")
        if isinstance(max_samples, Integral) and max_samples < _n_rows(X):
            return local.get("estimator"), _CUT_QUERIES["permutation_importance"]
        return None
    owner = local.get("self")
    if type(owner).__name__.startswith("Halving") and (
        getattr(owner, "resource", None) == "n_samples"
    ):
        return owner, _CUT_QUERIES["halving"].format(name=type(owner).__name__)
    return None


def _n_rows(X):
    shape = getattr(X, "shape", None)
    return shape[0] if shape else len(X)


class _QueryScorer:
    """What every skrank scorer shares: query ids, routing requests, column.

    Subclasses set ``query_id_column`` and call ``_init_requests()``.
    """

    def _init_requests(self):
        self._score_request = {"query_id": True, "sample_weight": None}

    def _fold_query_id(self, X, query_id, metadata):
        """The test fold's query ids (routed or from the column); refuse other metadata."""
        if metadata:
            raise TypeError(
                f"{self!r} got unexpected metadata {sorted(metadata)}; it accepts "
                "`query_id` and `sample_weight`."
            )
        if query_id is None:
            query_id = self._query_id_from_column(X)
        _warn_if_queries_are_cut()
        return query_id

    def _query_id_from_column(self, X):
        column = self.query_id_column
        ids = None if column is None else frame_column(X, column)
        if ids is not None:
            return ids
        raise ValueError(_missing_query_id_message(self, X))

    # -- metadata routing ----------------------------------------------------
    def set_score_request(self, *, query_id=UNCHANGED, sample_weight=UNCHANGED):
        """Set which metadata the scorer requests, for metadata routing.

        Unlike scikit-learn's scorers, this works whether routing is on or
        off; the requests take effect when routing is on.

        Parameters
        ----------
        query_id : bool, None or str, default=UNCHANGED
            True (the default request): receive ``query_id``; a string: receive
            the metadata of that name as ``query_id`` (``query_id="groups"``
            reuses the splitter's ``groups``); False: do not request it;
            None: error if it is passed.
        sample_weight : bool, None or str, default=UNCHANGED
            The same for ``sample_weight`` (None, unset, by default).

        Returns
        -------
        self : RankingScorer or MultiMetricScorer
            The scorer, changed in place.

        Examples
        --------
        >>> from skrank import get_scorer
        >>> scorer = get_scorer("map").set_score_request(query_id="groups")
        >>> scorer.get_metadata_routing().score.requests
        {'query_id': 'groups', 'sample_weight': None}
        """
        for name, alias in (("query_id", query_id), ("sample_weight", sample_weight)):
            if alias is not UNCHANGED:
                self._score_request[name] = _check_alias(name, alias)
        return self

    def get_metadata_routing(self):
        """The metadata the scorer requests (scikit-learn metadata routing).

        Returns
        -------
        request : sklearn.utils.metadata_routing.MetadataRequest
            ``score`` requests ``query_id`` unless changed with
            :meth:`set_score_request`.

        Examples
        --------
        >>> from skrank import get_scorer
        >>> get_scorer("ndcg@10").get_metadata_routing().score.requests
        {'query_id': True, 'sample_weight': None}
        """
        request = MetadataRequest(owner=self)
        for name, alias in self._score_request.items():
            request.score.add_request(param=name, alias=alias)
        return request

    def _routing_repr(self):
        # scikit-learn's routing error messages name the scorer with this
        return repr(self)



class RankingScorer(_QueryScorer):
    """A scikit-learn scorer computing a skrank metric per query.

    Make one with :func:`make_ranking_scorer` or :func:`get_scorer`; pass it
    as ``scoring`` to ``GridSearchCV``, ``RandomizedSearchCV``,
    ``cross_validate``, ``cross_val_score`` or ``validation_curve``, alone or
    in a dict of scorers.

    Parameters
    ----------
    metric : callable
        A function ``metric(y_true, y_score, *, query_id, sample_weight,
        **kwargs)`` returning a float, such as :func:`skrank.ndcg_score`.
    kwargs : dict, default=None
        Fixed keyword arguments of ``metric`` (``{"k": 10}``).
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` read for query ids when none are routed.
        None: never read a column.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores. ``"auto"``: the
        first of ``predict_proba``, ``decision_function`` and ``predict``
        that the estimator has.

    See Also
    --------
    make_ranking_scorer : Make a scorer from a metric function or name.
    get_scorer : Make a scorer from a name such as ``"ndcg@10"``.

    Notes
    -----
    The scorer requests ``query_id`` for ``score`` by default (metadata
    routing); change the request with :meth:`set_score_request`, which
    works whether routing is on or off. ``sample_weight`` is not requested
    unless set, as with scikit-learn's scorers.

    Examples
    --------
    >>> from skrank import RankingScorer, ndcg_score
    >>> RankingScorer(ndcg_score, {"k": 10})
    make_ranking_scorer(ndcg_score, k=10)
    """

    def __init__(self, metric, kwargs=None, *, query_id_column="qid",
                 response_method="auto"):
        self._metric, self._kwargs = _check_metric_and_kwargs(metric, kwargs or {})
        self.query_id_column = _check_query_id_column(query_id_column)
        self.response_method = check_option(
            "response_method", response_method, RESPONSE_METHODS
        )
        self._init_requests()

    @property
    def metric(self):
        """The metric function the scorer calls."""
        return self._metric

    @property
    def kwargs(self):
        """A copy of the metric's fixed keyword arguments."""
        return dict(self._kwargs)

    # -- scoring -------------------------------------------------------------
    def __call__(self, estimator, X, y_true, sample_weight=None, query_id=None,
                 **kwargs):
        """Score a fitted estimator on ``X``, one ranking per query.

        Parameters
        ----------
        estimator : object
            A fitted estimator.
        X : array-like or DataFrame of shape (n_rows, n_features)
            The test rows, as given to the estimator's ``predict``.
        y_true : array-like of shape (n_rows,)
            Relevance of each row.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per row, passed to the metric.
        query_id : array-like of shape (n_rows,), default=None
            Query of each row. None: read the ``query_id_column`` of a
            DataFrame ``X``, else raise a ``ValueError``.
        **kwargs : dict
            Not accepted: any other metadata raises a ``TypeError``.

        Returns
        -------
        score : float
            The metric's mean over the queries of ``X``; its negation for a
            loss (see :attr:`greater_is_better`).
        """
        query_id = self._fold_query_id(X, query_id, kwargs)
        y_score = self._model_scores(estimator, X, query_id)
        params = dict(self._kwargs)
        if sample_weight is not None:
            params["sample_weight"] = sample_weight
        value = self._metric(y_true, y_score, query_id=query_id, **params)
        if np.ndim(value) != 0:
            raise ValueError(
                f"{_func_repr(self._metric)} returned {type(value).__name__}, but a "
                "scorer needs one number: use a metric returning a float."
            )
        return self._sign * float(value)

    @property
    def greater_is_better(self):
        """False for a loss (:func:`skrank.coverage_error`, :func:`skrank.label_ranking_loss`).

        The scorer of a loss returns the negated loss, as scikit-learn's
        ``neg_*`` scorers do, so that model selection maximises the score.
        """
        spec = _spec_of(self._metric)
        return True if spec is None else spec.greater_is_better

    @property
    def _sign(self):
        return 1.0 if self.greater_is_better else -1.0

    def _model_scores(self, estimator, X, query_id):
        return ranking_scores(
            estimator, X, response_method=self.response_method, query_id=query_id
        )

    def _accept_sample_weight(self):
        # scikit-learn duck-types this on custom scorers in multi-metric
        # scoring while routing is off (TODO(slep006) there)
        try:
            parameters = inspect.signature(self._metric).parameters
        except (TypeError, ValueError):
            return False
        return "sample_weight" in parameters or any(
            p.kind is p.VAR_KEYWORD for p in parameters.values()
        )

    def __repr__(self):
        parts = [_func_repr(self._metric)]
        parts += [f"{key}={value!r}" for key, value in self._kwargs.items()]
        if self.query_id_column != "qid":
            parts.append(f"query_id_column={self.query_id_column!r}")
        if self.response_method != "auto":
            parts.append(f"response_method={self.response_method!r}")
        return f"make_ranking_scorer({', '.join(parts)})"


class MultiMetricScorer(_QueryScorer):
    """A scorer computing several skrank metrics from one predict and one sort.

    Make one with :func:`get_scorer` or :func:`make_ranking_scorer` given a
    list (or dict) of metrics; pass it as ``scoring`` to ``cross_validate``,
    ``GridSearchCV`` or ``RandomizedSearchCV`` (with ``refit="ndcg@10"``,
    one of its keys, in a search). Called on a test fold it returns a dict
    ``{key: score}``, which scikit-learn reads as multi-metric scoring.

    Per test fold it calls the model's response method once (once per
    distinct method, when a set metric needs ``predict``), validates the
    data and sorts it once, then runs each metric's kernel. Every value
    equals the single scorer's (:class:`RankingScorer`) on the same fold.

    Parameters
    ----------
    metrics : list or dict
        Metric names (``"ndcg@10"``), :class:`RankingScorer` objects (to give
        one metric its own options or response method), or metric
        functions; a dict maps result keys to them. In a list, a name is its
        own key, a scorer or function is keyed by its metric's name.
    options : dict, default=None
        Options for every metric that takes them (``{"gain": "linear"}``),
        as :func:`skrank.evaluate` spreads its ``**options``; an option no
        metric takes raises a ``ValueError``.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` read for query ids when none are routed.
        None: never read a column.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores of the metrics
        given by name or function (a name's own method where the metric
        has one: ``"set_f1"`` scores ``predict``).

    See Also
    --------
    get_scorer : ``get_scorer(["ndcg@10", "map"])`` makes one.
    RankingScorer : The scorer of one metric.
    skrank.evaluate : Several metrics of given scores, from one sort.

    Notes
    -----
    Query ids arrive as for :class:`RankingScorer`: by metadata routing (the
    scorer requests ``query_id``; see :meth:`set_score_request`) or from the
    ``query_id_column`` of a DataFrame ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank import get_scorer
    >>> scorer = get_scorer(["ndcg@2", "map"])
    >>> scorer
    get_scorer(['ndcg@2', 'map'])
    >>> X = np.array([[3.0], [2.0], [1.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1, 0, 0, 1, 0, 0])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])   # ranks larger x first
    >>> scorer(model, X, y, query_id=qid)   # query 2's relevant row is last
    {'ndcg@2': 0.5, 'map': 0.6666...}
    """

    def __init__(self, metrics, options=None, *, query_id_column="qid",
                 response_method="auto"):
        self.query_id_column = _check_query_id_column(query_id_column)
        self.response_method = check_option(
            "response_method", response_method, RESPONSE_METHODS
        )
        self._metrics = metrics
        self._options = dict(options or {}) if _is_dict_like(options or {}) else options
        self._scorers = _check_metric_list(
            metrics, self._options, query_id_column, response_method
        )
        self._init_requests()

    @property
    def scorers(self):
        """Result key -> the single :class:`RankingScorer` each value equals."""
        return dict(self._scorers)

    def __call__(self, estimator, X, y_true, sample_weight=None, query_id=None,
                 **kwargs):
        """Score a fitted estimator on ``X`` with every metric, one ranking per query.

        Parameters
        ----------
        estimator : object
            A fitted estimator.
        X : array-like or DataFrame of shape (n_rows, n_features)
            The test rows, as given to the estimator's ``predict``.
        y_true : array-like of shape (n_rows,)
            Relevance of each row.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per row, passed to every metric.
        query_id : array-like of shape (n_rows,), default=None
            Query of each row. None: read the ``query_id_column`` of a
            DataFrame ``X``, else raise a ``ValueError``.
        **kwargs : dict
            Not accepted: any other metadata raises a ``TypeError``.

        Returns
        -------
        scores : dict
            Key -> the metric's mean over the queries of ``X``; its negation
            for a loss (``"coverage_error"``, ``"label_ranking_loss"``).
        """
        query_id = self._fold_query_id(X, query_id, kwargs)
        by_method = {}
        for key, scorer in self._scorers.items():
            by_method.setdefault(scorer.response_method, []).append(key)
        results = {}
        for method, keys in by_method.items():
            y_score = ranking_scores(
                estimator, X, response_method=method, query_id=query_id
            )
            results.update(_score_many(
                {key: self._scorers[key] for key in keys},
                y_true, y_score, query_id=query_id, sample_weight=sample_weight,
            ))
        return {
            key: scorer._sign * float(results[key])
            for key, scorer in self._scorers.items()
        }

    def _accept_sample_weight(self):
        return all(s._accept_sample_weight() for s in self._scorers.values())

    def __repr__(self):
        options = "" if not self._options else ", " + ", ".join(
            f"{key}={value!r}" for key, value in self._options.items()
        )
        extra = ""
        if self.query_id_column != "qid":
            extra += f", query_id_column={self.query_id_column!r}"
        if self.response_method != "auto":
            extra += f", response_method={self.response_method!r}"
        if isinstance(self._metrics, (list, tuple)) and all(
            isinstance(m, str) for m in self._metrics
        ) and not options and not extra:
            return f"get_scorer({list(self._metrics)!r})"
        return f"make_ranking_scorer({self._metrics!r}{options}{extra})"


def _is_dict_like(value):
    return isinstance(value, dict)


def _metric_key(metric):
    """The result key of a list entry: a name itself, else its metric's name."""
    if isinstance(metric, str):
        return metric
    if isinstance(metric, RankingScorer):
        spec = _spec_of(metric.metric)
        kwargs = metric.kwargs
        if spec is not None and set(kwargs) <= {"k"} | set(spec.options):
            k = kwargs.get("k")
            if all(spec.options[key] == kwargs.get(key) for key in spec.options):
                return spec.stem if k is None else f"{spec.stem}@{k}"
        return repr(metric)
    return _func_repr(metric)


def _check_metric_list(metrics, options, query_id_column, response_method):
    """Key -> single RankingScorer for each entry of a multi-metric scorer."""
    if not isinstance(options, dict):
        raise ValueError(f"`options` must be a dict, got {_describe(options)}.")
    if isinstance(metrics, dict):
        items = list(metrics.items())
        for key, _ in items:
            if not isinstance(key, str):
                raise ValueError(
                    "The keys of a dict of metrics name the results; they must be "
                    f"strings, got {_describe(key)}."
                )
    elif isinstance(metrics, (list, tuple)):
        items = [(_metric_key(metric), metric) for metric in metrics]
    else:
        raise ValueError(
            "`metrics` must be a list or dict of metric names, scorers or "
            f"functions, got {_describe(metrics)}."
        )
    if not items:
        raise ValueError("`metrics` is empty: name at least one metric.")
    keys = [key for key, _ in items]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(
            f"Metric {', '.join(map(repr, twice))} is given twice; give each "
            "metric once (use a dict to name two variants of one metric)."
        )
    scorers = {}
    for key, metric in items:
        if isinstance(metric, RankingScorer):
            scorers[key] = metric
            continue
        if isinstance(metric, MultiMetricScorer):
            raise ValueError(
                f"{key!r}: a multi-metric scorer cannot be nested in another; "
                "list its metrics instead."
            )
        method = response_method
        if isinstance(metric, str) and response_method == "auto":
            method = _parse_name(metric, options.get("compat"))[0].response_method
        # a preset comes first: the metric may be named as the peer names it
        scorers[key] = RankingScorer(
            metric, {"compat": options["compat"]} if isinstance(metric, str)
            and options.get("compat") is not None else {},
            query_id_column=query_id_column, response_method=method,
        )
    _spread_options(scorers, options)
    return scorers


def _spread_options(scorers, options):
    """Give each option to every scorer whose metric takes it (in place)."""
    unused = set(options)
    for key, scorer in list(scorers.items()):
        taken = {}
        for name, value in options.items():
            if name == "compat" and scorer._kwargs.get(name) == value:
                unused.discard(name)  # given at construction (peer names)
            if name in _RESERVED or name in scorer._kwargs:
                continue
            try:
                parameters = inspect.signature(scorer.metric).parameters
            except (TypeError, ValueError):
                continue
            if name in parameters:
                taken[name] = value
        if taken:
            unused -= set(taken)
            scorers[key] = RankingScorer(
                scorer.metric, {**scorer._kwargs, **taken},
                query_id_column=scorer.query_id_column,
                response_method=scorer.response_method,
            )
    if unused:
        raise ValueError(
            f"No metric of the scorer takes the option"
            f"{'s' if len(unused) > 1 else ''} {', '.join(map(repr, sorted(unused)))}; "
            "check the spelling, or pass it to the one scorer that takes it."
        )


def _spec_of(func):
    for spec in METRICS.values():
        if spec.func is func:
            return spec
    return None


def _score_many(scorers, y_true, y_score, *, query_id, sample_weight):
    """Key -> score of each single scorer, on one layout where they allow it."""
    requests, custom = [], {}
    for key, scorer in scorers.items():
        spec = _spec_of(scorer.metric)
        if spec is None:  # a function of the user's: called as it is
            custom[key] = scorer
            continue
        kwargs = dict(scorer._kwargs)
        k = kwargs.pop("k", None)
        if k is not None:
            k = check_positive_int("k", k)
        compat = kwargs.pop("compat", None)
        if compat is not None:  # the preset's options; the scorer's own win
            convention = get_convention(compat)
            preset = convention.options_for(spec.stem)
            if k is None:
                k = convention.metrics[spec.stem].k
            requests.append(make_request(key, spec, k, kwargs, preset, set(kwargs),
                                         peer_rules(convention, spec.stem)))
            continue
        # set metrics score 0/1 decisions: the function keeps the input order
        ties = kwargs.pop("ties", "input" if spec.response_method == "predict" else "average")
        no_relevant = kwargs.pop("no_relevant", "skip")
        for name, value in spec.options.items():
            if kwargs.get(name) == value:
                kwargs.pop(name)
        kernel_options, function_options = split_options(spec, kwargs)
        requests.append(MetricRequest(
            key, spec, k, kernel_options, function_options, no_relevant, ties
        ))
    weights = {} if sample_weight is None else {"sample_weight": sample_weight}
    results = score_requests(
        y_true, y_score, requests, query_id=query_id, sample_weight=sample_weight,
    ) if requests else {}
    for key, scorer in custom.items():
        results[key] = scorer._metric(
            y_true, y_score, query_id=query_id, **weights, **scorer._kwargs
        )
    return results


def _parse_name(name, compat=None):
    """``(spec, k, options)`` of a metric name: skrank's, or the preset's peer's."""
    if compat is not None:
        peer = parse_peer_name(get_convention(compat), name)
        if peer is not None:
            stem, k, extra = peer
            return METRICS[stem], k, extra
    spec, k = parse_metric_name(name)
    return spec, k, {}


def _check_query_id_column(column):
    if column is None or (
        isinstance(column, (str, Integral)) and not isinstance(column, bool)
    ):
        return column
    raise ValueError(
        "`query_id_column` must be a column name (a string or an integer) or "
        f"None, got {_describe(column)}."
    )


def _check_metric_and_kwargs(metric, kwargs):
    """(function, kwargs) from a metric function or name and extra options."""
    if not isinstance(kwargs, dict):
        raise ValueError(f"`kwargs` must be a dict, got {_describe(kwargs)}.")
    kwargs = dict(kwargs)
    if isinstance(metric, str):
        spec, k, extra = _parse_name(metric, kwargs.get("compat"))
        fixed = {} if k is None else {"k": k}
        fixed.update(spec.options)
        fixed.update(extra)
        clash = sorted(set(fixed) & set(kwargs))
        if clash:
            raise ValueError(
                f"`metric` {metric!r} already fixes {', '.join(clash)}; do not "
                "pass it again as a keyword argument."
            )
        metric, kwargs = spec.func, {**fixed, **kwargs}
    if not callable(metric):
        raise ValueError(
            "`metric` must be a skrank metric function (such as skrank.ndcg_score) "
            f"or a metric name (such as \"ndcg@10\"), got {_describe(metric)}."
        )
    try:
        parameters = inspect.signature(metric).parameters
    except (TypeError, ValueError):
        parameters = {}
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    if "query_id" not in parameters and not takes_any:
        raise ValueError(
            f"`metric` {_func_repr(metric)} has no `query_id` parameter; a ranking "
            "scorer needs metric(y_true, y_score, *, query_id, ...) such as "
            "skrank.ndcg_score."
        )
    if "aggregate" in kwargs and kwargs["aggregate"] != "mean":
        raise ValueError(
            "`aggregate` cannot be set for a scorer: a scorer returns the mean "
            f"over queries, got aggregate={_describe(kwargs['aggregate'])}."
        )
    kwargs.pop("aggregate", None)
    for name in kwargs:
        if name in _RESERVED:
            raise ValueError(
                f"`{name}` cannot be fixed in a scorer: the scorer fills it in "
                "for every test fold (query ids and weights arrive as metadata)."
            )
        if not takes_any and name not in parameters:
            known = sorted(set(parameters) - set(_RESERVED) - {"aggregate"})
            raise ValueError(
                f"`{name}` is not a parameter of {_func_repr(metric)}; its options "
                f"are {', '.join(known) or 'none'}."
            )
    if metric in _registry_functions():
        # a dry run on two rows checks every option with the metric's own words
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            metric([1, 0], [1.0, 0.0], query_id=[0, 0], **kwargs)
    return metric, kwargs


def make_ranking_scorer(metric, *, query_id_column="qid", response_method="auto",
                        **kwargs):
    """Make a scikit-learn scorer from a skrank metric.

    The scorer scores each query of a test fold separately and averages, as
    the metric does with ``query_id``. It gets the query ids through
    scikit-learn's metadata routing (it requests ``query_id``) or, when
    none are routed, from the ``query_id_column`` of a DataFrame ``X``.

    Parameters
    ----------
    metric : callable, str, list or dict
        A skrank metric function (:func:`skrank.ndcg_score`, ...) or any
        function ``metric(y_true, y_score, *, query_id, ...)`` returning a
        float; or a metric name such as ``"ndcg@10"`` (see
        :func:`get_scorer_names`). A list of them (names, functions or
        single scorers), or a dict mapping result keys to them, gives one
        :class:`MultiMetricScorer`.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids, read when no
        ``query_id`` is routed to the scorer. None: never read a column.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores. ``"auto"``: the
        first the estimator has of ``predict_proba`` (a binary classifier's
        positive column; for graded classes the expected grade
        ``proba @ classes_``), ``decision_function`` and ``predict``
        (regressors and rankers). A method with a ``query_id`` parameter
        (a per-query selector) is given the query ids.
    **kwargs : dict
        Options of the metric, fixed for every call (``k=10``,
        ``gain="linear"``, ``no_relevant="zero"``, ...). With several
        metrics, each option goes to every metric that takes it; give one
        metric its own options as a single scorer in the list:
        ``make_ranking_scorer(["map", make_ranking_scorer("ndcg@10",
        gain="linear")])``.
        ``compat="lightgbm"`` (any preset of :func:`describe_convention`)
        gives the peer's number: the preset's options become the defaults,
        options given explicitly win, and metric names may be the peer's
        own (``"ndcg@10-"`` with ``compat="xgboost"``).

    Returns
    -------
    scorer : RankingScorer or MultiMetricScorer
        A picklable callable ``scorer(estimator, X, y_true, *,
        sample_weight=None, query_id=None)`` returning a float (a dict of
        floats for several metrics).

    Raises
    ------
    ValueError
        If ``metric`` is neither a metric function nor a known name, or an
        option is invalid. When called without query ids, the scorer raises
        a ``ValueError`` explaining both ways to pass them.

    See Also
    --------
    get_scorer : The same, from a name.
    sklearn.metrics.make_scorer : Also works, with
        ``.set_score_request(query_id=True)`` and routing on.

    Notes
    -----
    Query ids must reach the scorer in one of two ways:

    * metadata routing: ``sklearn.set_config(enable_metadata_routing=True)``,
      then ``cross_validate(..., params={"query_id": qid, "groups": qid})``
      or ``GridSearchCV(...).fit(X, y, query_id=qid, groups=qid)``;
    * a DataFrame column named ``query_id_column`` that the estimator's
      pipeline drops (e.g. with a ``ColumnTransformer``).

    Use folds that keep each query whole (``GroupKFold``,
    ``StratifiedGroupKFold``, ``GroupShuffleSplit``, ``LeaveOneGroupOut``):
    ``KFold`` splits queries, and scores on partial queries are inflated.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank import make_ranking_scorer, ndcg_score
    >>> scorer = make_ranking_scorer(ndcg_score, k=2)
    >>> scorer
    make_ranking_scorer(ndcg_score, k=2)
    >>> X = np.array([[3.0], [2.0], [1.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1, 0, 0, 1, 0, 0])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])   # ranks larger x first
    >>> scorer(model, X, y, query_id=qid)   # query 1: nDCG 1, query 2: nDCG 0
    0.5
    """
    if isinstance(metric, (list, tuple, dict)):
        return MultiMetricScorer(
            metric, kwargs, query_id_column=query_id_column,
            response_method=response_method,
        )
    return RankingScorer(
        metric,
        kwargs,
        query_id_column=query_id_column,
        response_method=response_method,
    )


@check_params
def get_scorer(name, *, compat=None):
    """Get a ranking scorer from its name, such as ``"ndcg@10"``.

    Parameters
    ----------
    name : str or list of str
        A metric name from :func:`get_scorer_names`: a stem (``"ndcg"``,
        ``"map"``, ``"gauc"``, ...), with ``@k`` for a cutoff where the
        metric takes one (``"ndcg@10"``, ``"precision@5"``); any positive
        integer ``k`` works. A list of names gives one multi-metric scorer.
        With ``compat``, the peer's own names work too (``"ndcg@10-"``).
    compat : str, default=None
        A peer's conventions (see :func:`describe_convention`), as
        ``make_ranking_scorer(name, compat=...)``: the scorer gives the
        peer's number.

    Returns
    -------
    scorer : RankingScorer or MultiMetricScorer
        A new scorer (changing its requests leaves other scorers alone),
        with the metric's defaults otherwise; for other options use
        :func:`make_ranking_scorer`. For a list, a
        :class:`MultiMetricScorer` returning ``{name: score}``, which
        predicts and sorts once per test fold for all the metrics.

    Raises
    ------
    ValueError
        For an unknown name, listing the close matches.

    See Also
    --------
    make_ranking_scorer : Make a scorer with any metric options.

    Notes
    -----
    scikit-learn validates string ``scoring`` values against its own names,
    so pass the scorer object. For several metrics pass one multi-metric
    scorer, ``scoring=get_scorer(["ndcg@10", "map", "gauc"])`` with
    ``refit="ndcg@10"`` in a search: each test fold is predicted and sorted
    once for all of them. A dict of single scorers,
    ``{name: get_scorer(name) for name in names}``, gives the same numbers
    with one predict and one sort per metric.

    The scorers of the losses ``"coverage_error"`` and
    ``"label_ranking_loss"`` return the negated loss, as scikit-learn's
    ``neg_*`` scorers do (their ``greater_is_better`` is False), so that a
    search maximising the score minimises the loss.

    Examples
    --------
    >>> from skrank import get_scorer
    >>> get_scorer("ndcg@10")
    make_ranking_scorer(ndcg_score, k=10)
    >>> get_scorer("f1@5")
    make_ranking_scorer(fbeta_at_k_score, k=5, beta=1.0)
    >>> get_scorer(["ndcg@10", "map", "gauc"])
    get_scorer(['ndcg@10', 'map', 'gauc'])
    """
    if compat is not None:
        if isinstance(name, (list, tuple)):
            return make_ranking_scorer(list(name), compat=compat)
        if not isinstance(name, str):
            raise ValueError(
                f"`name` must be a metric name (a string) or a list of them, got "
                f"{_describe(name)}."
            )
        spec = _parse_name(name, compat)[0]
        return make_ranking_scorer(name, response_method=spec.response_method,
                                   compat=compat)
    if isinstance(name, (list, tuple)) and all(isinstance(n, str) for n in name):
        for one in name:
            _check_scorer_name(one)
        return MultiMetricScorer(list(name))
    if not isinstance(name, str):
        raise ValueError(
            "`name` must be a metric name (a string) or a list of them, got "
            f"{_describe(name)}."
        )
    _check_scorer_name(name)
    spec, _ = parse_metric_name(name)
    return make_ranking_scorer(name, response_method=spec.response_method)


def _check_scorer_name(name):
    if re.fullmatch(r"\s*[A-Za-z_0-9]+@k\s*", name):
        stem = name.strip().rsplit("@", 1)[0]
        raise ValueError(
            f"In {name!r}, replace k by a positive integer cutoff, such as "
            f"{stem + '@10'!r}."
        )
    parse_metric_name(name)


def get_scorer_names():
    """Names accepted by :func:`get_scorer`.

    Returns
    -------
    names : list of str
        Sorted metric names. ``"stem@k"`` entries stand for any positive
        integer cutoff ``k``, e.g. ``"ndcg@k"`` for ``"ndcg@10"``.

    See Also
    --------
    get_scorer : Make a scorer from one of these names.

    Examples
    --------
    >>> from skrank import get_scorer_names
    >>> [name for name in get_scorer_names() if name.startswith("ndcg")]
    ['ndcg', 'ndcg@k']
    >>> "gauc" in get_scorer_names()
    True
    """
    return metric_names()
