"""Scorers: skrank metrics for GridSearchCV, cross_validate and friends.

:class:`RankingScorer` scores one metric per query of a test fold;
:class:`MultiMetricScorer` several, from one predict and one sort. Both get
the fold's query ids from :class:`~._query_ids.QueryScorer` (metadata routing
or a DataFrame column) and call the public metric functions, or the engine of
:func:`skrank.evaluate`, through :func:`~skrank.metrics._calls.call_metric`.
Only public scikit-learn API is used: a scorer is any callable with a
``get_metadata_routing`` method (scikit-learn's ``_BaseScorer`` and
``_get_response_values`` are private). The factories (:func:`get_scorer`,
:func:`make_ranking_scorer`) are in ``_make_scorer``.
"""

import inspect

import numpy as np

from .._core._validation import check_option, check_positive_int, describe
from ..metrics._calls import call_metric, dry_run
from ..metrics._evaluate import (
    MetricRequest,
    metric_request,
    score_requests,
    split_options,
)
from ..metrics._names import resolve_metric_name
from ..metrics._registry import METRICS
from ._query_ids import QueryScorer, check_query_id_column
from ._response import RESPONSE_METHODS, ranking_scores

# arguments a scorer fills in itself; they cannot be fixed at construction
_RESERVED = ("y_true", "y_score", "query_id", "sample_weight")


def _registry_functions():
    return {spec.func for spec in METRICS.values()}


def _func_repr(func):
    """``ndcg_score`` for a function, the repr for anything else (partials)."""
    name = getattr(func, "__name__", None)
    return name if name is not None and inspect.isfunction(func) else repr(func)


class RankingScorer(QueryScorer):
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
        self.query_id_column = check_query_id_column(query_id_column)
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
        value = self._call_metric(y_true, y_score, query_id, sample_weight)
        if np.ndim(value) != 0:
            raise ValueError(
                f"{_func_repr(self._metric)} returned {type(value).__name__}, but a "
                "scorer needs one number: use a metric returning a float."
            )
        return self._sign * float(value)

    def evaluate_scores(self, y_true, y_score, query_id, sample_weight=None,
                        **metadata):
        """The scorer's value of given scores, without a model: ``{name: value}``.

        What calling the scorer on a model whose scores are ``y_score``
        returns, keyed by the metric's name (``"ndcg@10"``).

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
            Relevance of each row.
        y_score : array-like of shape (n_rows,)
            The scores to evaluate; higher ranks first.
        query_id : array-like of shape (n_rows,)
            Query of each row.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per row, passed to the metric.
        **metadata : dict
            Not accepted: any other metadata raises a ``TypeError``.

        Returns
        -------
        values : dict
            ``{name: value}``, the value negated for a loss (see
            :attr:`greater_is_better`).

        Examples
        --------
        >>> from skrank import get_scorer
        >>> get_scorer("precision@2").evaluate_scores([1, 0, 1], [3, 2, 1], [7, 7, 7])
        {'precision@2': 0.5}
        """
        query_id = self._fold_query_id(None, query_id, metadata)
        value = self._call_metric(y_true, y_score, query_id, sample_weight)
        return {_metric_key(self): self._sign * float(value)}

    def _call_metric(self, y_true, y_score, query_id, sample_weight):
        """The metric on one fold's scores (weights passed only if given)."""
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        return call_metric(
            self._metric, y_true, y_score, {"query_id": query_id},
            **weights, **self._kwargs,
        )

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


class MultiMetricScorer(QueryScorer):
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
        self.query_id_column = check_query_id_column(query_id_column)
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

    def evaluate_scores(self, y_true, y_score, query_id, sample_weight=None,
                        **metadata):
        """Every metric's value of given scores, without a model: ``{key: value}``.

        What calling the scorer on a model whose scores (of every response
        method) are ``y_score`` returns; the parameters are those of
        :meth:`RankingScorer.evaluate_scores`.

        Examples
        --------
        >>> from skrank import get_scorer
        >>> get_scorer(["precision@2", "mrr"]).evaluate_scores(
        ...     [0, 1, 1], [3, 2, 1], [7, 7, 7])
        {'precision@2': 0.5, 'mrr': 0.5}
        """
        query_id = self._fold_query_id(None, query_id, metadata)
        results = _score_many(self._scorers, y_true, y_score, query_id=query_id,
                              sample_weight=sample_weight)
        return {key: scorer._sign * float(results[key])
                for key, scorer in self._scorers.items()}

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
        raise ValueError(f"`options` must be a dict, got {describe(options)}.")
    if isinstance(metrics, dict):
        items = list(metrics.items())
        for key, _ in items:
            if not isinstance(key, str):
                raise ValueError(
                    "The keys of a dict of metrics name the results; they must be "
                    f"strings, got {describe(key)}."
                )
    elif isinstance(metrics, (list, tuple)):
        items = [(_metric_key(metric), metric) for metric in metrics]
    else:
        raise ValueError(
            "`metrics` must be a list or dict of metric names, scorers or "
            f"functions, got {describe(metrics)}."
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
            method = parse_name(metric, options.get("compat"))[0].response_method
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
        compat = kwargs.pop("compat", None)
        if compat is not None:  # the preset's options; the scorer's own win
            requests.append(metric_request(key, spec, kwargs, compat))
            continue
        k = kwargs.pop("k", None)
        if k is not None:
            k = check_positive_int("k", k)
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
    results = score_requests(
        y_true, y_score, requests, query_id=query_id, sample_weight=sample_weight,
    ) if requests else {}
    for key, scorer in custom.items():
        results[key] = scorer._call_metric(y_true, y_score, query_id, sample_weight)
    return results


def parse_name(name, compat=None):
    """``(spec, k, options)`` of a metric name: skrank's, or the preset's peer's.

    ``options`` are those the name itself fixes (XGBoost's ``"-"`` suffix);
    the preset's own options are applied by the caller.
    """
    resolved = resolve_metric_name(name, compat)
    return resolved.spec, resolved.k, resolved.extra


def _check_metric_and_kwargs(metric, kwargs):
    """(function, kwargs) from a metric function or name and extra options."""
    if not isinstance(kwargs, dict):
        raise ValueError(f"`kwargs` must be a dict, got {describe(kwargs)}.")
    kwargs = dict(kwargs)
    if isinstance(metric, str):
        spec, k, extra = parse_name(metric, kwargs.get("compat"))
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
            f"or a metric name (such as \"ndcg@10\"), got {describe(metric)}."
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
            f"over queries, got aggregate={describe(kwargs['aggregate'])}."
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
        dry_run(metric, kwargs)
    return metric, kwargs
