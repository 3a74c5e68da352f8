"""compare_candidates: a search's candidates against its best, query by query.

Expected values: the search's own ``cv_results_`` split scores (computed by
scikit-learn's fitting loop and skrank's scorer, fold by fold),
cross_val_per_query on each candidate, fit counts of a wrapper, and a
hand-built comparison whose exact p-values are worked out in the test.
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold

import skrank
from skrank import QueryValues
from skrank.model_selection import (
    CandidateComparisonResult,
    compare_candidates,
    cross_val_per_query,
)
from skrank.stats._paired import compare_per_query

GRID = {"C": [0.003, 0.03, 1.0]}


@pytest.fixture(scope="module")
def data():
    return skrank.load_digits_retrieval(n_queries=45, n_candidates=12, random_state=5)


def _search(data, scoring, refit=True, cv=None, estimator=None, grid=GRID,
            groups=True):
    search = GridSearchCV(estimator or LogisticRegression(), grid, scoring=scoring,
                          cv=cv or GroupKFold(3), refit=refit, error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True):
        extra = {"groups": data.query_id} if groups else {}
        return search.fit(data.data, data.target, query_id=data.query_id, **extra)


def _split_scores(search, key, candidates):
    n = search.n_splits_
    return np.array([[search.cv_results_[f"split{j}_test_{key}"][i] for j in range(n)]
                     for i in candidates])


def test_fold_means_are_the_searchs_split_scores(data):
    search = _search(data, skrank.get_scorer("ndcg@10"), refit=False)
    result = compare_candidates(search, data.data, data.target,
                                query_id=data.query_id, n_resamples=50, random_state=0)
    assert isinstance(result, skrank.ComparisonResult)
    np.testing.assert_allclose(result.fold_means["ndcg@10"],
                               _split_scores(search, "score", result.candidates),
                               rtol=0, atol=1e-15)


def test_several_metrics_and_the_per_query_values_of_each_candidate(data):
    scoring = skrank.get_scorer(["ndcg@10", "mrr"])
    search = _search(data, scoring, refit="mrr")
    result = compare_candidates(search, data.data, data.target,
                                query_id=data.query_id, n_resamples=50, random_state=0)
    assert result.candidates[0] == search.best_index_
    means = search.cv_results_["mean_test_mrr"]
    assert list(result.candidates) == sorted(range(3), key=lambda i: (-means[i], i))
    for key in ("ndcg@10", "mrr"):
        np.testing.assert_allclose(result.fold_means[key],
                                   _split_scores(search, key, result.candidates),
                                   rtol=0, atol=1e-15)
    for name, params in zip(result.per_query["mrr"], result.params):
        alone = cross_val_per_query(LogisticRegression(**params), data.data,
                                    data.target, query_id=data.query_id, cv=3,
                                    metrics=["mrr"])
        np.testing.assert_array_equal(result.per_query["mrr"][name].value,
                                      alone.per_query["mrr"].value)


def test_top_keeps_the_best_ranked(data):
    search = _search(data, skrank.get_scorer("ndcg@10"))
    result = compare_candidates(search, data.data, data.target,
                                query_id=data.query_id, top=2, n_resamples=50)
    rank = search.cv_results_["rank_test_score"]
    # ties in rank go to the lower index, as the search's best_index_ does
    assert result.candidates == sorted(range(3), key=lambda i: (rank[i], i))[:2]
    assert result.candidates[0] == search.best_index_
    assert len(result.tests.rows) == 1  # one comparison: the other against the best


def test_a_search_that_cuts_queries_is_refused(data):
    search = _search(data, skrank.get_scorer("ndcg@10"), cv=KFold(7), groups=False)
    with pytest.raises(ValueError, match=r"search.cv` put query .* both the "
                       r"training and the test part.*KFold cuts queries apart"), \
            pytest.warns(UserWarning, match="groups parameter is ignored"):
        compare_candidates(search, data.data, data.target, query_id=data.query_id)


def test_a_scoring_without_metric_names_needs_metrics(data):
    search = GridSearchCV(LogisticRegression(), GRID, scoring="roc_auc",
                          cv=GroupKFold(3)).fit(data.data, data.target,
                                                groups=data.query_id)
    with pytest.raises(ValueError, match="pass `metrics`"):
        compare_candidates(search, data.data, data.target, query_id=data.query_id)
    result = compare_candidates(search, data.data, data.target,
                                query_id=data.query_id, metrics="map", n_resamples=50)
    assert list(result.per_query) == ["map"]


@pytest.mark.parametrize("kwargs, name", [
    ({"top": 1}, "top"), ({"top": "2"}, "top"), ({"test": "wilcoxon"}, "test"),
    ({"correction": "sidak"}, "correction"), ({"n_resamples": 0}, "n_resamples"),
    ({"confidence_level": 1.5}, "confidence_level"), ({"metrics": []}, "metrics"),
    ({"query_id": None}, "query_id"), ({"groups": [1, 2]}, "groups"),
    ({"params": "w"}, "params"),
])
def test_bad_input_names_the_parameter(data, kwargs, name):
    search = _search(data, skrank.get_scorer("ndcg@10"))
    arguments = {"query_id": data.query_id, **kwargs}
    with pytest.raises(ValueError, match=f"`?{name}`?"):
        compare_candidates(search, data.data, data.target, **arguments)


def test_an_unfitted_search_is_refused(data):
    with pytest.raises(ValueError, match="`search` must be a fitted"):
        compare_candidates(GridSearchCV(LogisticRegression(), GRID), data.data,
                           data.target, query_id=data.query_id)


class _CountsFits(ClassifierMixin, BaseEstimator):
    """LogisticRegression that counts its fits and its response calls."""

    fits = 0
    calls = 0

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        type(self).fits += 1
        self.model_ = LogisticRegression(C=self.C).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict_proba(self, X):
        type(self).calls += 1
        return self.model_.predict_proba(X)

    def predict(self, X):
        return self.model_.predict(X)


def test_each_candidate_and_fold_is_fitted_once_and_predicted_once(data):
    scoring = skrank.get_scorer(["ndcg@10", "map", "mrr"])
    search = _search(data, scoring, refit="map", estimator=_CountsFits())
    _CountsFits.fits = _CountsFits.calls = 0
    compare_candidates(search, data.data, data.target, query_id=data.query_id,
                       n_resamples=50)
    assert _CountsFits.fits == 3 * 3  # 3 candidates x 3 folds
    assert _CountsFits.calls == 3 * 3  # one predict_proba for all three metrics


def _hand_built(test="randomisation"):
    """Best (d=5) always 1; d=3 loses 0.1 on one query; d=1 loses 1 or 0.5 on all.

    Exact randomisation p-values over 12 queries (2**12 sign vectors):
    d=1's differences all have one sign, so only the identity and the full
    flip reach |sum|: p = 2 / 4096; d=3 has one nonzero difference, which
    every sign vector reaches: p = 1. Holm over the two: 2 * 2 / 4096 and 1.
    """
    ids = np.arange(12)
    ones = np.ones(12)
    best = ones.copy()
    d3 = ones.copy()
    d3[4] = 0.9
    d1 = np.where(ids % 2 == 0, 0.0, 0.5)
    names = ["0: d=5", "1: d=3", "2: d=1"]
    per_query = {"m": {n: QueryValues(ids, v, ones)
                       for n, v in zip(names, [best, d3, d1])}}
    comparison = compare_per_query(per_query, names, ["m"], baseline=names[0],
                                   n_resamples=10_000, level=0.95, correction="holm",
                                   rng=np.random.default_rng(0))
    return CandidateComparisonResult(
        comparison, candidates=[7, 4, 2], params=[{"d": 5}, {"d": 3}, {"d": 1}],
        fold_means={}, test=test,
        cv_results={"param_d": np.array([9, 9, 1, 9, 3, 9, 9, 5])},
    )


def test_simplest_on_a_hand_built_comparison():
    result = _hand_built()
    p = result.tests.column("p_randomization_corrected")
    assert p == pytest.approx([1.0, 2 * 2 / 4096], abs=1e-15)
    assert result.simplest("param_d") == 4  # d=1 is significantly worse
    assert result.simplest("param_d", alpha=0.0005) == 2  # 0.000977 >= 0.0005
    assert result.simplest(lambda params: -params["d"]) == 7  # the most complex
    # margin: d=1 loses 0.75 on average, its bootstrap interval is in [-1, -0.5]
    assert result.simplest("param_d", margin=0.4) == 4
    assert result.simplest("param_d", margin=1.01) == 2


def test_simplest_reads_the_chosen_test():
    # the paired t-test of d=1: mean -0.75, sd of (-1, -0.5) alternating, n=12
    result = _hand_built(test="t")
    d = np.where(np.arange(12) % 2 == 0, -1.0, -0.5)
    t = d.mean() / (d.std(ddof=1) / np.sqrt(12))
    assert result.tests.column("t_statistic")[1] == pytest.approx(t, rel=1e-12)
    assert result.simplest("param_d") == 4
    assert result.simplest("param_d", alpha=1e-30) == 2


@pytest.mark.parametrize("complexity, kwargs, name", [
    ("param_depth", {}, "complexity"), (3, {}, "complexity"),
    ("param_d", {"alpha": 0}, "alpha"), ("param_d", {"alpha": "0.05"}, "alpha"),
    ("param_d", {"margin": -1}, "margin"), ("param_d", {"margin": "1"}, "margin"),
])
def test_simplest_bad_input(complexity, kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        _hand_built().simplest(complexity, **kwargs)


def test_a_randomized_search_with_the_params_its_fit_got(data):
    from sklearn.model_selection import RandomizedSearchCV

    search = RandomizedSearchCV(LogisticRegression(), {"C": [0.001, 0.1, 10.0]},
                                n_iter=2, random_state=0,
                                scoring=skrank.get_scorer("map"), cv=GroupKFold(3))
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(data.data, data.target, query_id=data.query_id,
                   groups=data.query_id)
        # the same params as search.fit: query_id (for the scorer) and groups
        result = compare_candidates(
            search, data.data, data.target, query_id=data.query_id, n_resamples=50,
            params={"query_id": data.query_id, "groups": data.query_id})
    assert result.candidates[0] == search.best_index_
    np.testing.assert_allclose(result.fold_means["map"],
                               _split_scores(search, "score", result.candidates),
                               rtol=0, atol=1e-15)


def test_a_dict_of_scorers_with_a_loss_weights_and_options_in_parallel(data):
    # gauc weighs queries by their rows, coverage_error is a loss (negated in
    # cv_results_), the linear-gain nDCG carries an option of its own
    scoring = {"gauc": skrank.get_scorer("gauc"),
               "cov": skrank.get_scorer("coverage_error"),
               "lin": skrank.make_ranking_scorer("ndcg@5", gain="linear")}
    search = _search(data, scoring, refit="lin")
    result = compare_candidates(search, data.data, data.target,
                                query_id=data.query_id, n_resamples=50, n_jobs=2)
    for key in scoring:
        np.testing.assert_allclose(result.fold_means[key],
                                   _split_scores(search, key, result.candidates),
                                   rtol=0, atol=1e-15)
    assert all(v <= -1 for v in result.summary.column("mean")[3:6])  # -coverage
