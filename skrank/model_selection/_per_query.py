"""Per-query values out of fold: each query scored by a fold model that did not see it.

:func:`cross_val_per_query` is the face; :func:`compare_candidates` (in
``_candidates``) shares the steps: query-whole folds that test each query
once (:func:`check_query_folds`), one fit per fold and one prediction per
response method (:func:`fit_predict_folds`), and the per-query values of
the pooled out-of-fold scores from one sort (:func:`per_query_of_scores`).
"""

import inspect
import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn import clone, get_config
from sklearn.base import is_classifier
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.model_selection import GroupKFold, check_cv
from sklearn.utils import Bunch
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
    process_routing,
)

from .._core._aggregate import QueryValues, weighted_mean
from .._core._factorize import factorize
from .._core._params import NO_RELEVANT, TIES, choice, validate_params
from .._core._validation import describe
from ..metrics._calls import call_metric
from ..metrics._evaluate import evaluate
from ._oof import _n_rows, _slice_params, _take_rows
from ._response import RESPONSE_METHODS, ranking_scores


def check_query_ids(query_id, n_rows):
    """``query_id`` as an array of ``n_rows`` ids, else a ValueError naming it."""
    if query_id is None:
        raise ValueError(
            "`query_id` is required: one query id per row of X, so that folds "
            "keep queries whole and each query is scored on its own."
        )
    ids = np.asarray(query_id)
    factorize(ids, n_rows)  # missing ids, shape and length: a ValueError naming it
    return ids


def check_rows(y, groups, n_rows):
    """``y`` and ``groups`` (if given) must hold one entry per row of X."""
    for name, value in (("y", y), ("groups", groups)):
        if value is not None and (np.ndim(value) != 1 or _n_rows(value) != n_rows):
            raise ValueError(
                f"`{name}` must hold one value per row of X ({n_rows} rows), got "
                f"shape {np.shape(value)}."
            )


def check_query_folds(splits, query_id, n_rows, *, source="cv"):
    """(train, test) index arrays that keep queries whole and test each once.

    Raises a ``ValueError`` naming the query and fold that break either rule.
    """
    codes = query_codes(query_id)
    n_queries = int(codes.max()) + 1 if codes.shape[0] else 0
    tested = np.zeros(n_queries, dtype=np.int64)
    checked = []
    for j, (train, test) in enumerate(splits):
        train, test = _indices(train, n_rows), _indices(test, n_rows)
        in_train = np.zeros(n_queries, dtype=bool)
        in_train[codes[train]] = True
        split = np.flatnonzero(in_train[codes[test]])
        if split.shape[0]:
            query = query_id[test[split[0]:split[0] + 1]].tolist()[0]
            raise ValueError(
                f"`{source}` put query {query!r} in both the training and the test "
                f"part of fold {j}: its rows must stay together. A row-level "
                "splitter such as KFold cuts queries apart, which leaks the "
                "query into training and inflates its score; use GroupKFold "
                "(or StratifiedGroupKFold) with groups=query_id."
            )
        tested += np.bincount(codes[test], minlength=n_queries) > 0
        checked.append((train, test))
    if not checked:
        raise ValueError(f"`{source}` produced no split.")
    untested = np.flatnonzero(tested != 1)
    if untested.shape[0]:
        first = untested[0]
        query = query_id[codes == first][:1].tolist()[0]
        raise ValueError(
            f"`{source}` tests query {query!r} in {int(tested[first])} folds "
            f"({untested.shape[0]} queries are not tested exactly once): every "
            "query needs one out-of-fold value, from the one fold that tests "
            "it. Use a k-fold splitter such as GroupKFold, not a shuffle split."
        )
    return checked


def _indices(part, n_rows):
    part = np.asarray(part)
    if part.dtype == bool:
        part = np.flatnonzero(part)
    if part.shape[0] and (part.min() < 0 or part.max() >= n_rows):
        raise ValueError("`cv` produced row indices beyond the rows of X.")
    return part.astype(np.intp, copy=False)


def route_fit_params(estimator, cv, params, query_id, groups):
    """(fit params, groups) as ``cross_validate(params=...)`` routes them.

    With metadata routing on, ``params`` go where they are requested: the
    estimator's ``fit`` and the splitter's ``split`` (``groups``); ``query_id``
    reaches ``fit`` when the estimator requests it. With routing off, every
    parameter goes to ``fit`` (as scikit-learn does), and ``query_id`` too
    when ``fit`` has a ``query_id`` parameter (:class:`skrank.QueryGroupRanker`).
    """
    if params is not None and not isinstance(params, dict):
        raise ValueError(f"`params` must be a dict or None, got {describe(params)}.")
    params = dict(params or {})
    if get_config().get("enable_metadata_routing", False):
        try:
            wants_qid = get_routing_for_object(estimator).consumes("fit", ["query_id"])
        except Exception:  # an estimator without routing support
            wants_qid = set()
        if wants_qid and "query_id" not in params:
            params["query_id"] = query_id
        elif not wants_qid:  # given as `query_id=`; what search.fit got for its scorer
            params.pop("query_id", None)
        router = MetadataRouter(owner="cross_val_per_query").add(
            estimator=estimator,
            method_mapping=MethodMapping().add(caller="fit", callee="fit"),
        )
        if hasattr(cv, "get_metadata_routing"):
            router.add(splitter=cv,
                       method_mapping=MethodMapping().add(caller="fit", callee="split"))
        routed = process_routing(router, "fit", **params)
        fit_params = dict(routed.estimator.fit)
        if hasattr(cv, "get_metadata_routing") and groups is None:
            groups = routed.splitter.split.get("groups")
        return fit_params, groups
    if "groups" in params:
        raise ValueError(
            "`params` holds 'groups': pass the splitter's groups as `groups=`."
        )
    try:
        takes_qid = "query_id" in inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        takes_qid = False
    if takes_qid and "query_id" not in params:
        params["query_id"] = query_id
    return params, groups


def _fit_predict(estimator, X, y, train, test, fit_params, methods, query_id):
    """Fit ``estimator`` (a clone) on ``train``; the scores of ``test`` per method."""
    n_rows = _n_rows(X)
    estimator.fit(_take_rows(X, train), _take_rows(y, train),
                  **_slice_params(fit_params, train, n_rows))
    X_test, qid_test = _take_rows(X, test), query_id[test]
    return {
        method: np.asarray(ranking_scores(estimator, X_test, response_method=method,
                                          query_id=qid_test), dtype=np.float64)
        for method in methods
    }


def fit_predict_folds(estimators, X, y, splits, fit_params, methods, query_id,
                      n_jobs=None):
    """Out-of-fold scores: ``[{method: scores of every row}]``, one per estimator.

    One fit per (estimator, fold), each model called once per response method.
    """
    n_rows = _n_rows(X)
    jobs = [(e, j) for e in range(len(estimators)) for j in range(len(splits))]
    outputs = Parallel(n_jobs=n_jobs)(
        delayed(_fit_predict)(clone(estimators[e]), X, y, *splits[j], fit_params,
                              methods, query_id)
        for e, j in jobs
    )
    pooled = [{m: np.empty(n_rows) for m in methods} for _ in estimators]
    for (e, j), scores in zip(jobs, outputs):
        test = splits[j][1]
        for method in methods:
            pooled[e][method][test] = scores[method]
    return pooled


def per_query_of_scores(y, query_id, scores, metrics, *, ties="average",
                        no_relevant="skip"):
    """``{key: QueryValues}`` of out-of-fold ``scores`` ({method: scores}).

    ``metrics`` is ``{key: (response method, how)}``: ``how`` a metric name
    (all names of one method scored by :func:`skrank.evaluate` from one
    sort), or a skrank :class:`RankingScorer` whose metric is called with
    ``aggregate=None`` and whose sign it keeps (a loss negated, as in
    ``cv_results_``).
    """
    results = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for method in dict.fromkeys(m for m, _ in metrics.values()):
            names = [key for key, (m, how) in metrics.items()
                     if m == method and isinstance(how, str)]
            if names:
                results.update(evaluate(
                    y, scores[method], query_id=query_id, metrics=names, ties=ties,
                    no_relevant=no_relevant, aggregate=None,
                ))
            for key, (m, how) in metrics.items():
                if m != method or isinstance(how, str):
                    continue
                values = call_metric(how.metric, y, scores[method],
                                     {"query_id": query_id}, **how.kwargs,
                                     aggregate=None)
                results[key] = QueryValues(values.query_id, how._sign * values.value,
                                           values.weight)
    return {key: results[key] for key in metrics}


def query_codes(query_id):
    """0..n_queries-1 per row, in the ascending id order of ``QueryValues``."""
    keys, _ = factorize(query_id, query_id.shape[0])
    return np.unique(keys, return_inverse=True)[1].ravel()


def fold_of_query(query_id, splits):
    """The fold that tests each query, in ascending id order."""
    codes = query_codes(query_id)
    fold = np.empty(int(codes.max()) + 1, dtype=np.intp)
    for j, (_, test) in enumerate(splits):
        fold[codes[test]] = j
    return fold


def quiet_mean(values, weights):
    """The weighted mean over non-nan values; nan, without a warning, if none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(weighted_mean(values, weights))


def _check_metric_names(metrics):
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not metrics or not all(
        isinstance(m, str) for m in metrics
    ):
        raise ValueError(
            "`metrics` must be a metric name or a non-empty list of names "
            f"(such as [\"ndcg@10\", \"map\"]), got {describe(metrics)}."
        )
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"`metrics` names a metric twice: {list(metrics)}.")
    return list(metrics)


@validate_params({
    "ties": choice(*TIES), "no_relevant": choice(*NO_RELEVANT),
    "response_method": choice(*RESPONSE_METHODS),
})
def cross_val_per_query(estimator, X, y, *, query_id, cv=5, metrics=("ndcg@10",),
                        groups=None, params=None, n_jobs=None, response_method="auto",
                        ties="average", no_relevant="skip"):
    """Each query's metric values from the cross-validation fold that tested it.

    ``cross_val_score`` gives one mean per fold; this gives one value per
    query, the unit of evidence of a ranking comparison: each query is
    scored by the model of the one fold that did not train on it. The values
    equal ``sklearn.model_selection.cross_val_predict`` followed by
    ``skrank.evaluate(y, oof_scores, query_id=query_id, aggregate=None)`` on
    the same splits.

    Parameters
    ----------
    estimator : estimator object
        Cloned and fitted once per fold.
    X : array-like, sparse matrix or DataFrame of shape (n_rows, n_features)
        The rows.
    y : array-like of shape (n_rows,)
        Relevance of each row (the target the estimator is fitted on).
    query_id : array-like of shape (n_rows,)
        Query of each row.
    cv : int, splitter or iterable of splits, default=5
        An int is ``GroupKFold(cv)``. A splitter is given ``groups``. The
        folds must keep queries whole and test each query exactly once.
    metrics : str or list of str, default=("ndcg@10",)
        Metric names, as for :func:`skrank.evaluate`.
    groups : array-like of shape (n_rows,), default=None
        The splitter's groups; None: the query ids.
    params : dict, default=None
        Fit parameters, routed as ``cross_validate(params=...)`` routes them:
        with metadata routing on, to whichever of ``fit`` and the splitter
        requests them; with routing off, all to ``fit``. Per-row arrays are
        sliced to each fold's training rows. ``query_id`` also reaches a
        ``fit`` that requests it (routing on) or has the parameter (off).
    n_jobs : int, default=None
        Folds fitted in parallel (joblib).
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores, as for the scorers.
    ties : {"average", "input", "pessimistic", "optimistic"}, default="average"
        How tied scores are ranked, as for :func:`skrank.evaluate`.
    no_relevant : {"skip", "zero", "one", "error"}, default="skip"
        What a query with no relevant row gets, as for :func:`skrank.evaluate`.

    Returns
    -------
    result : Bunch
        ``per_query``: ``{metric: QueryValues}``, ids ascending, one value
        per query (nan for a skipped query); ``mean``: ``{metric: float}``,
        the weighted mean over queries (the metric of the pooled out-of-fold
        scores); ``fold``: the fold that tested each query (same order as
        ``per_query``'s ids); ``splits``: the (train, test) row indices.

    Raises
    ------
    ValueError
        When a fold puts a query in both its parts, or a query is tested in
        no fold or in several (the message names the query and fold).

    See Also
    --------
    compare_candidates : the per-query values of a search's candidates,
        compared with paired tests.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skrank import load_digits_retrieval
    >>> from skrank.model_selection import cross_val_per_query
    >>> data = load_digits_retrieval(n_queries=60, n_candidates=20)
    >>> result = cross_val_per_query(
    ...     LogisticRegression(), data.data, data.target, query_id=data.query_id,
    ...     cv=3, metrics=["ndcg@10", "mrr"])
    >>> result.per_query["mrr"].value.shape          # one value per query
    (60,)
    >>> import numpy as np                   # the mean over queries with a value
    >>> bool(np.isclose(result.mean["mrr"], np.nanmean(result.per_query["mrr"].value)))
    True
    """
    metrics = _check_metric_names(metrics)
    n_rows = _n_rows(X)
    query_id = check_query_ids(query_id, n_rows)
    check_rows(y, groups, n_rows)
    splitter = _query_splitter(cv, estimator, y)
    fit_params, routed_groups = route_fit_params(estimator, splitter, params,
                                                 query_id, groups)
    groups = query_id if routed_groups is None else np.asarray(routed_groups)
    splits = check_query_folds(
        list(splitter.split(X, y, groups)), query_id, n_rows, source="cv"
    )
    method = response_method
    scores = fit_predict_folds([estimator], X, y, splits, fit_params, [method],
                               query_id, n_jobs=n_jobs)[0]
    per_query = per_query_of_scores(
        y, query_id, scores, {m: (method, m) for m in metrics}, ties=ties,
        no_relevant=no_relevant,
    )
    return Bunch(
        per_query=per_query,
        mean={m: quiet_mean(v.value, v.weight) for m, v in per_query.items()},
        fold=fold_of_query(query_id, splits),
        splits=splits,
    )


def _query_splitter(cv, estimator, y):
    """``cv`` as a splitter: an int is GroupKFold(cv)."""
    if isinstance(cv, (bool, np.bool_)):
        raise ValueError(f"`cv` must be an int >= 2, a splitter or an iterable of "
                         f"splits, got {describe(cv)}.")
    if isinstance(cv, (int, np.integer)):
        if cv < 2:
            raise ValueError(f"`cv` must be an int >= 2 (number of folds), got {cv}.")
        return GroupKFold(n_splits=int(cv))
    if not (hasattr(cv, "split") or hasattr(cv, "__iter__")):
        raise ValueError(f"`cv` must be an int >= 2, a splitter or an iterable of "
                         f"splits, got {describe(cv)}.")
    return check_cv(cv, y, classifier=is_classifier(estimator))
