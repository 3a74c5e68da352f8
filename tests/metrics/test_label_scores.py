"""A warning when the scores are 0/1 class labels, and none on legitimate scores."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, cross_val_predict

import skrank

RNG = np.random.default_rng(11)
QUERY = np.repeat(np.arange(20), 10)
X = RNG.normal(size=(200, 3))
Y = (X[:, 0] + RNG.normal(scale=0.5, size=200) > 0.5).astype(int)


def _label_warnings(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func(*args, **kwargs)
    return [str(w.message) for w in caught if "only the values 0 and 1" in str(w.message)]


def test_cross_val_predict_default_output_warns_and_names_the_fix():
    labels = cross_val_predict(LogisticRegression(), X, Y, groups=QUERY, cv=GroupKFold(4))
    messages = _label_warnings(skrank.ndcg_score, Y, labels, query_id=QUERY, k=5)
    assert len(messages) == 1
    assert "method='predict_proba'" in messages[0]
    assert "predict_proba(X)[:, 1]" in messages[0]
    # the fix: probabilities, no warning
    proba = cross_val_predict(LogisticRegression(), X, Y, groups=QUERY, cv=GroupKFold(4),
                              method="predict_proba")[:, 1]
    assert _label_warnings(skrank.ndcg_score, Y, proba, query_id=QUERY, k=5) == []


@pytest.mark.parametrize("metric", [skrank.average_precision_score,
                                    skrank.precision_at_k_score, skrank.fap_score,
                                    skrank.reciprocal_rank_score])
def test_every_metric_warns_once(metric):
    labels = (X[:, 0] > 0).astype(float)
    assert len(_label_warnings(metric, Y, labels, query_id=QUERY)) == 1


def test_2d_label_scores_warn():
    labels = (X[:, 0] > 0).astype(int).reshape(20, 10)
    assert len(_label_warnings(skrank.ndcg_score, Y.reshape(20, 10), labels)) == 1


@pytest.mark.parametrize(
    "case",
    ["real scores", "two rows per query", "ties input", "no relevant row",
     "one value", "three values"],
)
def test_no_false_alarm_on_legitimate_scores(case):
    y, query = Y, QUERY
    score = (X[:, 0] > 0).astype(int)
    kwargs = {}
    if case == "real scores":
        score = X[:, 0]
    elif case == "two rows per query":  # a pair per query: 0/1 is just an order
        query = np.repeat(np.arange(100), 2)
    elif case == "ties input":  # the caller chose how ties break
        kwargs["ties"] = "input"
    elif case == "no relevant row":
        y = np.zeros_like(Y)
        kwargs["no_relevant"] = "zero"
    elif case == "one value":  # a constant scorer: the random-ranking baseline
        score = np.ones(200)
    elif case == "three values":
        score = np.digitize(X[:, 0], [-0.5, 0.5]) / 2
    assert _label_warnings(skrank.ndcg_score, y, score, query_id=query, **kwargs) == []


def test_set_metrics_take_0_1_predictions_without_a_warning():
    returned = (X[:, 0] > 0).astype(int)
    assert _label_warnings(skrank.set_fbeta_score, Y, returned, query_id=QUERY) == []


def test_a_scorer_on_a_classifier_s_predict_warns():
    model = LogisticRegression().fit(X, Y)
    scorer = skrank.make_ranking_scorer("map", response_method="predict")
    assert len(_label_warnings(scorer, model, X, Y, query_id=QUERY)) == 1
    assert _label_warnings(skrank.get_scorer("map"), model, X, Y, query_id=QUERY) == []
