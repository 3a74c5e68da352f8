"""cross_val_per_query: each query's value from the fold that tested it.

Expected values come from scikit-learn's own ``cross_val_predict`` followed
by ``skrank.evaluate`` on the same splits (an independent path: another
fitting loop, another way to pool the out-of-fold scores).
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    cross_val_predict,
)

import skrank
from skrank.model_selection import cross_val_per_query

METRICS = ["ndcg@10", "map", "mrr"]


@pytest.fixture(scope="module")
def data():
    return skrank.load_digits_retrieval(n_queries=45, n_candidates=12, random_state=3)


def _same(a, b):
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_allclose(a[~np.isnan(a)], b[~np.isnan(b)], rtol=0, atol=1e-15)


def test_equals_cross_val_predict_then_evaluate(data):
    X, y, qid = data.data, data.target, data.query_id
    result = cross_val_per_query(LogisticRegression(), X, y, query_id=qid,
                                 cv=GroupKFold(3), metrics=METRICS)
    oof = cross_val_predict(LogisticRegression(), X, y, groups=qid, cv=GroupKFold(3),
                            method="predict_proba")[:, 1]
    expected = skrank.evaluate(y, oof, query_id=qid, metrics=METRICS, aggregate=None)
    means = skrank.evaluate(y, oof, query_id=qid, metrics=METRICS)
    for m in METRICS:
        np.testing.assert_array_equal(result.per_query[m].query_id,
                                      expected[m].query_id)
        assert np.all(np.diff(result.per_query[m].query_id) > 0)  # ids ascending
        _same(result.per_query[m].value, expected[m].value)
        assert result.mean[m] == pytest.approx(means[m], abs=1e-15)


def test_an_int_cv_is_group_kfold_and_fold_names_the_testing_fold(data):
    X, y, qid = data.data, data.target, data.query_id
    by_int = cross_val_per_query(Ridge(), X, y, query_id=qid, cv=4)
    explicit = cross_val_per_query(Ridge(), X, y, query_id=qid, cv=GroupKFold(4))
    _same(by_int.per_query["ndcg@10"].value, explicit.per_query["ndcg@10"].value)
    ids = by_int.per_query["ndcg@10"].query_id
    for j, (_, test) in enumerate(GroupKFold(4).split(X, y, qid)):
        tested = np.isin(ids, qid[test])
        assert np.all(by_int.fold[tested] == j)
    assert len(by_int.splits) == 4


def test_groups_coarser_than_queries_drive_the_splitter(data):
    X, y, qid = data.data, data.target, data.query_id
    groups = qid % 5  # whole queries in each group
    result = cross_val_per_query(Ridge(), X, y, query_id=qid, cv=GroupKFold(5),
                                 groups=groups)
    oof = cross_val_predict(Ridge(), X, y, groups=groups, cv=GroupKFold(5))
    expected = skrank.evaluate(y, oof, query_id=qid, metrics=["ndcg@10"],
                               aggregate=None)
    _same(result.per_query["ndcg@10"].value, expected["ndcg@10"].value)


@pytest.mark.filterwarnings("ignore:The groups parameter is ignored")
def test_a_row_splitter_is_refused_naming_the_query_and_fold(data):
    X, y, qid = data.data, data.target, data.query_id  # 12 rows a query, sorted
    with pytest.raises(ValueError, match=r"put query \d+ in both the training and "
                       r"the test part of fold 0.*KFold"):
        cross_val_per_query(Ridge(), X, y, query_id=qid, cv=KFold(7))


def test_a_query_not_tested_exactly_once_is_refused(data):
    X, y, qid = data.data, data.target, data.query_id
    with pytest.raises(ValueError, match=r"tests query \d+ in [02-9]\d* folds"):
        cross_val_per_query(Ridge(), X, y, query_id=qid,
                            cv=GroupShuffleSplit(n_splits=2, test_size=0.3,
                                                 random_state=0))


@pytest.mark.parametrize("kwargs, name", [
    ({"metrics": []}, "metrics"),
    ({"metrics": ["ndcg", "ndcg"]}, "metrics"),
    ({"cv": 1}, "cv"),
    ({"cv": "five"}, "cv"),
    ({"ties": "random"}, "ties"),
    ({"no_relevant": "drop"}, "no_relevant"),
    ({"response_method": "score"}, "response_method"),
    ({"query_id": None}, "query_id"), ({"groups": [1, 2]}, "groups"),
    ({"query_id": np.arange(3)}, "query_id"),
    ({"params": [1, 2]}, "params"),
])
def test_bad_input_names_the_parameter(data, kwargs, name):
    arguments = {"query_id": data.query_id, **kwargs}
    with pytest.raises(ValueError, match=f"`?{name}`?"):
        cross_val_per_query(Ridge(), data.data, data.target, **arguments)


class _RecordsWeights(RegressorMixin, BaseEstimator):
    """Ridge that records the sample_weight its fit got."""

    seen = []

    def fit(self, X, y, sample_weight=None):
        type(self).seen.append(
            None if sample_weight is None else np.array(sample_weight))
        self.model_ = Ridge().fit(X, y, sample_weight=sample_weight)
        return self

    def predict(self, X):
        return self.model_.predict(X)


@pytest.mark.parametrize("routing", [False, True])
def test_fit_params_are_routed_and_sliced_per_fold(data, routing):
    X, y, qid = data.data, data.target, data.query_id
    weight = np.arange(len(y), dtype=float) + 1.0
    _RecordsWeights.seen = []
    with sklearn.config_context(enable_metadata_routing=routing):
        estimator = _RecordsWeights()
        if routing:
            estimator.set_fit_request(sample_weight=True)
        cross_val_per_query(estimator, X, y, query_id=qid, cv=3,
                            params={"sample_weight": weight})
    trains = [train for train, _ in GroupKFold(3).split(X, y, qid)]
    assert len(_RecordsWeights.seen) == 3
    for got, train in zip(_RecordsWeights.seen, trains):
        np.testing.assert_array_equal(got, weight[train])


def test_y_of_another_length_is_named(data):
    with pytest.raises(ValueError, match="`y` must hold one value per row of X"):
        cross_val_per_query(Ridge(), data.data, data.target[:-1],
                            query_id=data.query_id)
