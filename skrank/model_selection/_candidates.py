"""compare_candidates(): a search's candidates compared query by query with its best.

A fitted ``GridSearchCV`` keeps one mean per fold of each candidate; the
evidence that tells candidates apart is in the queries. This module refits
each candidate once per fold of the search's own splits, scores every query
out of fold (the steps of ``_per_query``) and hands the per-query values to
the paired tests of :mod:`skrank.stats` (``compare_per_query``), with the
search's best as the baseline.
"""

from numbers import Integral, Real

import numpy as np
from sklearn import clone
from sklearn.base import is_classifier
from sklearn.model_selection import check_cv

from .._core._params import (
    CORRECTIONS,
    COUNT,
    FRACTION,
    Rule,
    choice,
    validate_params,
)
from .._core._validation import describe
from ..stats._intervals import make_rng
from ..stats._paired import ComparisonResult, compare_per_query
from ._oof import _n_rows
from ._per_query import (
    check_query_folds,
    check_query_ids,
    check_rows,
    fit_predict_folds,
    fold_of_query,
    per_query_of_scores,
    quiet_mean,
    route_fit_params,
)
from ._scorer import MultiMetricScorer, RankingScorer, _metric_key

TESTS = ("randomisation", "t")
_P_COLUMN = {"randomisation": "p_randomization_corrected", "t": "p_t_test_corrected"}


class CandidateComparisonResult(ComparisonResult):
    """What :func:`compare_candidates` returns: a ComparisonResult of candidates.

    The systems are a search's candidates, named ``"<index>: <params>"``,
    the search's best first (the baseline every other candidate is compared
    with: ``difference`` is candidate minus best, so negative is worse).

    Attributes
    ----------
    summary, tests, per_query
        As for :class:`skrank.ComparisonResult`; a loss's values are negated
        (as in ``cv_results_``), so greater is better for every metric.
    candidates : list of int
        The ``cv_results_`` index of each system, in system order.
    params : list of dict
        The parameters of each candidate, in system order.
    fold_means : dict
        ``{metric: ndarray of shape (n_candidates, n_splits)}``: each
        candidate's mean over the queries of each test fold; for a metric
        of the search's scoring, its ``cv_results_`` split scores.
    test : {"randomisation", "t"}
        The test whose corrected p-values :meth:`simplest` reads.

    Examples
    --------
    >>> import numpy as np
    >>> import sklearn
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> import skrank
    >>> from skrank.model_selection import compare_candidates
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3))
    >>> y = (X[:, 0] + rng.normal(size=300) > 0).astype(int)
    >>> qid = np.repeat(np.arange(30), 10)
    >>> search = GridSearchCV(Ridge(), {"alpha": [1.0, 1e4]}, cv=GroupKFold(3),
    ...                       scoring=skrank.get_scorer("ndcg@5"), refit=False)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, query_id=qid, groups=qid)
    >>> result = compare_candidates(search, X, y, query_id=qid, n_resamples=200,
    ...                             random_state=0)
    >>> type(result).__name__, len(result.candidates)
    ('CandidateComparisonResult', 2)
    >>> result.candidates[0] == int(search.cv_results_["rank_test_score"].argmin())
    True
    """

    def __init__(self, comparison, *, candidates, params, fold_means, test,
                 cv_results):
        # the fields of the ComparisonResult that the shared tests built
        vars(self).update(vars(comparison))
        self.candidates = list(candidates)
        self.params = list(params)
        self.fold_means = fold_means
        self.test = test
        self._cv_results = cv_results
        self._description = self._description.replace(
            "ComparisonResult:",
            "CandidateComparisonResult (baseline: the search's best):", 1,
        )

    def simplest(self, complexity, *, alpha=0.05, margin=None):
        """The ``cv_results_`` index of the simplest candidate within noise of the best.

        A candidate qualifies when, on every metric, it is not significantly
        worse than the best: its corrected p-value (of :attr:`test`) is at
        least ``alpha``, or its difference is not negative. With ``margin``,
        it qualifies instead when the upper end of the bootstrap interval of
        its difference is above ``-margin`` (it may be worse by less than
        ``margin``). Of those qualifying (the best always does), the one of
        least ``complexity`` wins; ties go to the better-ranked candidate.

        Parameters
        ----------
        complexity : str or callable
            A ``cv_results_`` key (``"param_max_depth"``) whose value grows
            with complexity, or a function of a candidate's params dict.
        alpha : float, default=0.05
            Significance level, in (0, 1).
        margin : float, default=None
            A loss of the metric small enough to ignore; None: use p-values.

        Returns
        -------
        index : int
            The chosen candidate's index in ``cv_results_``.

        Examples
        --------
        >>> import numpy as np
        >>> from skrank import QueryValues
        >>> from skrank.stats._paired import compare_per_query
        >>> from skrank.model_selection import CandidateComparisonResult
        >>> ids, ones = np.arange(8), np.ones(8)
        >>> values = {"best": ones, "small": ones - 0.01 * (ids == 0)}
        >>> per_query = {"m": {k: QueryValues(ids, v, ones) for k, v in values.items()}}
        >>> comparison = compare_per_query(
        ...     per_query, ["best", "small"], ["m"], baseline="best", n_resamples=1000,
        ...     level=0.95, correction="holm", rng=np.random.default_rng(0))
        >>> result = CandidateComparisonResult(
        ...     comparison, candidates=[1, 0], params=[{"d": 9}, {"d": 2}],
        ...     fold_means={}, test="randomisation",
        ...     cv_results={"param_d": np.array([2, 9])})
        >>> result.simplest("param_d")     # d=2 loses 0.01 on one query of 8: p = 1
        0
        """
        if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < alpha < 1:
            raise ValueError(f"`alpha` must be in (0, 1), got {describe(alpha)}.")
        if margin is not None and (isinstance(margin, bool) or not isinstance(
                margin, Real) or not np.isfinite(margin) or margin < 0):
            raise ValueError(
                "`margin` must be a non-negative number or None, got "
                f"{describe(margin)}."
            )
        values = self._complexities(complexity)
        ok = np.ones(len(self.candidates), dtype=bool)
        column = {name: self.tests.columns.index(name) for name in self.tests.columns}
        index_of = {name: i for i, name in enumerate(self._names())}
        for row in self.tests.rows:
            i = index_of[row[column["system_a"]]]
            if margin is None:
                p = row[column[_P_COLUMN[self.test]]]
                ok[i] &= bool(p >= alpha or row[column["difference"]] >= 0)
            else:
                ok[i] &= bool(row[column["ci_high"]] > -margin)
        chosen = min(np.flatnonzero(ok), key=lambda i: (values[i], i))
        return self.candidates[chosen]

    def _names(self):
        return list(dict.fromkeys(self.summary.column("system")))

    def _complexities(self, complexity):
        if isinstance(complexity, str):
            if complexity not in self._cv_results:
                keys = [k for k in self._cv_results if k.startswith("param_")]
                raise ValueError(
                    f"`complexity` {complexity!r} is not a key of the search's "
                    f"cv_results_; its parameter keys are {keys}."
                )
            column = self._cv_results[complexity]
            values = [column[i] for i in self.candidates]
        elif callable(complexity):
            values = [complexity(dict(p)) for p in self.params]
        else:
            raise ValueError(
                "`complexity` must be a cv_results_ key (such as "
                f"\"param_max_depth\") or a callable, got {describe(complexity)}."
            )
        if any(v is None or v is np.ma.masked for v in values):
            raise ValueError(
                f"`complexity` {complexity!r} has no value for some candidates; "
                "pass a callable of the params dict that gives every one a number."
            )
        return values


def _check_search(search):
    if not (hasattr(search, "cv_results_") and hasattr(search, "estimator")
            and hasattr(search, "cv")):
        raise ValueError(
            "`search` must be a fitted GridSearchCV or RandomizedSearchCV (with "
            f"cv_results_), got {describe(search)}."
        )
    return search


def _search_metrics(search, metrics):
    """``{key: (response method, how)}``: the search's scorers, or names."""
    scoring = search.scoring
    scorers = {}
    if isinstance(scoring, RankingScorer):
        scorers = {_metric_key(scoring): scoring}
    elif isinstance(scoring, MultiMetricScorer):
        scorers = scoring.scorers
    elif isinstance(scoring, dict) and all(
            isinstance(s, RankingScorer) for s in scoring.values()):
        scorers = dict(scoring)
    if metrics is None:
        if not scorers:
            raise ValueError(
                f"The search's scoring {scoring!r} carries no metric name a per-query "
                "value can be computed from (skrank's scorers do: "
                "skrank.get_scorer(\"ndcg@10\")); pass `metrics` (such as "
                "metrics=[\"ndcg@10\"])."
            )
        return {key: (s.response_method, s) for key, s in scorers.items()}
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, (list, tuple)) or not metrics or not all(
            isinstance(m, str) for m in metrics) or len(set(metrics)) != len(metrics):
        raise ValueError(
            "`metrics` must be None (the search's scoring), a metric name or a list "
            f"of distinct names, got {describe(metrics)}."
        )
    return {m: ("auto", m) for m in metrics}


def _ranked_candidates(search, top):
    """``cv_results_`` indices, best first, then by the refit metric's rank."""
    results = search.cv_results_
    refit = search.refit
    if getattr(search, "multimetric_", False):
        key = refit if isinstance(refit, str) else None
    else:
        key = "score"
    best = getattr(search, "best_index_", None)
    if key is None and best is None:
        raise ValueError(
            "The search scores several metrics and has no refit metric to rank "
            "candidates by: fit it with refit=\"<metric name>\" (refit=False keeps "
            "no best)."
        )
    n = len(results["params"])
    if key is not None:
        if np.isnan(np.asarray(results[f"mean_test_{key}"], dtype=float)).all():
            raise ValueError(
                f"Every candidate's mean_test_{key} in the search's cv_results_ is "
                "nan: its scoring failed (fit it with error_score=\"raise\" to see "
                "why), so it has no best to compare with."
            )
        rank = np.asarray(results[f"rank_test_{key}"], dtype=float)
        order = np.lexsort((np.arange(n), rank)).tolist()
    else:
        order = list(range(n))
    if best is None:
        best = order[0]
    order = [int(best)] + [i for i in order if i != best]
    if top is not None:
        order = order[:int(top)]
    if len(order) < 2:
        raise ValueError("The search has one candidate: nothing to compare it with.")
    return order


def _system_name(index, params):
    return f"{index}: " + ", ".join(f"{k}={v!r}" for k, v in params.items())


def _fold_means(values, fold, n_splits):
    """Mean of each test fold's queries, as the scorer of that fold computes it."""
    return np.array([
        quiet_mean(values.value[fold == j], values.weight[fold == j])
        for j in range(n_splits)
    ])


def _check_top(name, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, Integral)
                              or value < 2):
        raise ValueError(
            f"`{name}` must be None or an int >= 2 (the best and at least one "
            f"other candidate), got {describe(value)}."
        )
    return value


#: ``top``: None, or how many of the best candidates to compare (at least two)
TOP = Rule(_check_top, (1, 0, 2.5, "3", True))


@validate_params({
    "top": TOP, "n_resamples": COUNT, "confidence_level": FRACTION,
    "correction": choice(*CORRECTIONS), "test": choice(*TESTS),
})
def compare_candidates(search, X, y, *, query_id, groups=None, metrics=None, top=None,
                       correction="holm", test="randomisation", n_resamples=10_000,
                       confidence_level=0.95, random_state=None, params=None,
                       n_jobs=None):
    """Compare a search's candidates with its best, query by query, on its own folds.

    ``GridSearchCV`` picks the candidate with the best mean over a few
    folds. Each query is tested in exactly one fold, so the folds hold one
    paired value per query and candidate: this refits each candidate once
    per fold of the search's own splits, scores every query out of fold,
    and tests each candidate against the search's best with the paired
    tests of :func:`skrank.compare` (randomisation test, paired t-test,
    bootstrap intervals), corrected over each metric's comparisons.

    Parameters
    ----------
    search : GridSearchCV or RandomizedSearchCV
        A fitted search (``refit=False`` is fine), scored by skrank scorers
        unless ``metrics`` is given.
    X : array-like, sparse matrix or DataFrame of shape (n_rows, n_features)
        The rows the search was fitted on.
    y : array-like of shape (n_rows,)
        Their relevance.
    query_id : array-like of shape (n_rows,)
        Query of each row.
    groups : array-like of shape (n_rows,), default=None
        The groups the search's splitter got; None: the query ids.
    metrics : str or list of str, default=None
        None: the metrics of the search's scoring (skrank scorers, whose
        names key the results; their fold means are the ``cv_results_``
        split scores). Or metric names, as for :func:`skrank.evaluate`.
    top : int, default=None
        Compare only the ``top`` best candidates by the search's refit
        metric (the best included); None: all.
    correction : {"holm", "bonferroni", None}, default="holm"
        Correction of each metric's p-values over its comparisons: any
        correction :func:`skrank.compare` takes, passed through.
    test : {"randomisation", "t"}, default="randomisation"
        The test whose corrected p-values :meth:`~CandidateComparisonResult.simplest`
        reads; both are in ``result.tests``.
    n_resamples : int, default=10000
        Resamples of the bootstrap and of the randomisation test.
    confidence_level : float, default=0.95
        Of the bootstrap intervals, in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap and the randomisation test (not the fits).
    params : dict, default=None
        The fit parameters given to ``search.fit`` (``groups`` aside), routed
        as there.
    n_jobs : int, default=None
        (candidate, fold) fits run in parallel (joblib).

    Returns
    -------
    result : CandidateComparisonResult
        A :class:`skrank.ComparisonResult` with ``candidates`` (``cv_results_``
        indices, the best first), ``params``, ``fold_means`` and
        :meth:`~CandidateComparisonResult.simplest`.

    Raises
    ------
    ValueError
        When the search's ``cv`` cuts a query apart (a row-level ``KFold``)
        or does not test each query exactly once, or an argument is invalid.

    Notes
    -----
    Each (candidate, fold) model is fitted once and called once per response
    method; every metric is computed from that one prediction, for all
    queries at once. Estimators are refitted with the search's parameters
    and fold rows, so a deterministic estimator (or a fixed
    ``random_state``) reproduces the search's fold scores exactly.

    The best was chosen on these same queries, so its lead is biased
    upwards; the comparison says which candidates the data cannot tell
    apart from it, not how the final model does on new queries (that needs
    held-out queries). A ``refit`` callable cannot do this selection: it
    sees only ``cv_results_``, the fold means, never the per-query values.

    Examples
    --------
    >>> import sklearn
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV, GroupKFold
    >>> from skrank import get_scorer, load_digits_retrieval
    >>> from skrank.model_selection import compare_candidates
    >>> data = load_digits_retrieval(n_queries=60, n_candidates=20)
    >>> X, y, qid = data.data, data.target, data.query_id
    >>> search = GridSearchCV(LogisticRegression(), {"C": [0.001, 1.0]},
    ...                       scoring=get_scorer("ndcg@10"), cv=GroupKFold(3),
    ...                       refit=False)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = search.fit(X, y, query_id=qid, groups=qid)
    >>> result = compare_candidates(search, X, y, query_id=qid, n_resamples=200,
    ...                             random_state=0)
    >>> result.candidates == [search.cv_results_["rank_test_score"].argmin(), 0]
    True
    >>> result.fold_means["ndcg@10"].shape       # (candidates, folds)
    (2, 3)
    >>> result.simplest("param_C") in result.candidates
    True
    """
    search = _check_search(search)
    n_rows = _n_rows(X)
    query_id = check_query_ids(query_id, n_rows)
    check_rows(y, groups, n_rows)
    metric_plan = _search_metrics(search, metrics)
    order = _ranked_candidates(search, top)
    splitter = check_cv(search.cv, y, classifier=is_classifier(search.estimator))
    fit_params, routed_groups = route_fit_params(search.estimator, splitter, params,
                                                 query_id, groups)
    groups = query_id if routed_groups is None else np.asarray(routed_groups)
    splits = check_query_folds(list(splitter.split(X, y, groups)), query_id, n_rows,
                               source="search.cv")
    n_splits = getattr(search, "n_splits_", len(splits))
    if len(splits) != n_splits:
        raise ValueError(
            f"search.cv gives {len(splits)} splits here but the search had "
            f"{n_splits}: pass the same X, y and `groups` as to search.fit."
        )
    all_params = [search.cv_results_["params"][i] for i in order]
    estimators = [clone(search.estimator).set_params(**clone(p, safe=False))
                  for p in all_params]
    methods = list(dict.fromkeys(method for method, _ in metric_plan.values()))
    scores = fit_predict_folds(estimators, X, y, splits, fit_params, methods,
                               query_id, n_jobs=n_jobs)
    names = [_system_name(i, p) for i, p in zip(order, all_params)]
    keys = list(metric_plan)
    per_query = {key: {} for key in keys}
    fold = fold_of_query(query_id, splits)
    fold_means = {key: np.empty((len(order), len(splits))) for key in keys}
    for c, (name, candidate_scores) in enumerate(zip(names, scores)):
        values = per_query_of_scores(y, query_id, candidate_scores, metric_plan)
        for key in keys:
            per_query[key][name] = values[key]
            fold_means[key][c] = _fold_means(values[key], fold, len(splits))
    comparison = compare_per_query(
        per_query, names, keys, baseline=names[0], n_resamples=n_resamples,
        level=confidence_level, correction=correction, rng=make_rng(random_state),
    )
    return CandidateComparisonResult(
        comparison, candidates=order, params=all_params, fold_means=fold_means,
        test=test, cv_results=search.cv_results_,
    )
