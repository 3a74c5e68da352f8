"""One rule for ranking scores from an estimator (model_selection/_response.py)."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.svm import LinearSVC

from skrank.model_selection._response import ranking_scores, response_method_of

rng = np.random.default_rng(0)
X = rng.normal(size=(40, 2))
y_binary = (X[:, 0] > 0).astype(int)
y_graded = np.digitize(X[:, 0], [-0.5, 0.5])  # grades 0, 1, 2


def test_binary_predict_proba_is_the_positive_column():
    model = LogisticRegression().fit(X, y_binary)
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(ranking_scores(model, X), proba[:, 1])
    np.testing.assert_array_equal(ranking_scores(model, X, pos_label=0), proba[:, 0])


def test_graded_predict_proba_is_the_expected_grade():
    model = LogisticRegression().fit(X, y_graded)
    proba = model.predict_proba(X)
    expected = proba[:, 0] * 0 + proba[:, 1] * 1 + proba[:, 2] * 2
    np.testing.assert_allclose(ranking_scores(model, X), expected, rtol=1e-12)


def test_string_classes_cannot_be_reduced():
    model = LogisticRegression().fit(X, np.array(["a", "b", "c"])[y_graded])
    with pytest.raises(ValueError, match="not numeric relevance grades"):
        ranking_scores(model, X)


def test_decision_function_is_negated_for_the_first_class():
    model = LinearSVC().fit(X, y_binary)
    d = model.decision_function(X)
    np.testing.assert_array_equal(ranking_scores(model, X), d)
    np.testing.assert_array_equal(ranking_scores(model, X, pos_label=0), -d)


def test_predict_of_a_regressor_and_of_a_classifier():
    reg = LinearRegression().fit(X, y_binary)
    np.testing.assert_array_equal(ranking_scores(reg, X), reg.predict(X))
    clf = LogisticRegression().fit(X, y_binary)
    labels = clf.predict(X)
    np.testing.assert_array_equal(
        ranking_scores(clf, X, response_method="predict", pos_label=1),
        (labels == 1).astype(float),
    )


def test_auto_order_and_missing_method():
    assert response_method_of(LogisticRegression()) == "predict_proba"
    assert response_method_of(LinearSVC()) == "decision_function"
    assert response_method_of(LinearRegression()) == "predict"
    with pytest.raises(ValueError, match="has no predict_proba method"):
        response_method_of(LinearRegression(), "predict_proba")


class _PerQuery(BaseEstimator):
    def predict(self, X, query_id=None):
        return np.asarray(query_id, dtype=float)


def test_query_ids_reach_a_method_that_takes_them():
    qid = np.arange(5)
    np.testing.assert_array_equal(
        ranking_scores(_PerQuery(), np.zeros((5, 1)), query_id=qid), qid
    )
