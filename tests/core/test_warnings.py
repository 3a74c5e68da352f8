"""Every warning skrank raises names the file and line that called skrank."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GroupKFold, cross_validate, learning_curve

import skrank
from skrank.metrics._registry import METRICS

# one query without a relevant row: every metric is undefined there
NO_RELEVANT = dict(y_true=[0, 0, 0], y_score=[3.0, 2.0, 1.0], query_id=[7, 7, 7])


def _caught(call):
    """The warnings ``call()`` raises, each as (category, filename)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, w.filename) for w in caught]


def _assert_here(found, category):
    matching = [filename for cat, filename in found if issubclass(cat, category)]
    assert matching, f"no {category.__name__} was raised: {found}"
    assert all(filename == __file__ for filename in matching), matching


@pytest.mark.parametrize("stem", sorted(METRICS))
def test_undefined_metric_warning_names_the_caller(stem):
    func = METRICS[stem].func
    if stem == "gauc":  # undefined on a single-class query
        found = _caught(lambda: func([1, 1], [2.0, 1.0], query_id=[1, 1]))
    elif stem == "set_f1":
        found = _caught(lambda: func([0, 0], [1, 0], query_id=[1, 1]))
    elif stem in ("coverage_error", "label_ranking_loss", "label_ranking_average_precision"):
        # defined on every query (scikit-learn's fixed values): only zero weight is undefined
        found = _caught(lambda: func([1, 0], [2.0, 1.0], query_id=[1, 1], sample_weight=[0, 0]))
    else:
        found = _caught(lambda: func(**NO_RELEVANT))
    _assert_here(found, UndefinedMetricWarning)


def test_evaluate_warning_names_the_caller():
    found = _caught(lambda: skrank.evaluate(**NO_RELEVANT, metrics=["ndcg", "fap@2"]))
    _assert_here(found, UndefinedMetricWarning)


def test_fap_curve_and_pr_curve_warnings_name_the_caller():
    _assert_here(_caught(lambda: skrank.fap_curve(**NO_RELEVANT)), UndefinedMetricWarning)
    _assert_here(
        _caught(lambda: skrank.precision_recall_at_k_curve(**NO_RELEVANT)),
        UndefinedMetricWarning,
    )


def test_label_scores_warning_names_the_caller():
    y = [1, 0, 0, 1, 0, 0]
    labels = [1, 0, 0, 1, 1, 0]  # 0/1 predictions, not scores
    found = _caught(lambda: skrank.ndcg_score(y, labels, query_id=[1, 1, 1, 2, 2, 2]))
    _assert_here(found, UserWarning)


def test_compare_warning_names_the_caller():
    found = _caught(lambda: skrank.compare(
        [0, 0, 0], {"a": [3, 2, 1], "b": [1, 2, 3]}, query_id=[1, 1, 1],
        metrics=["map"], n_resamples=10, random_state=0,
    ))
    _assert_here(found, UndefinedMetricWarning)


def test_selector_warning_names_the_caller():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    selector = skrank.FAPCutoffClassifier(LogisticRegression(), cv=2, max_k=5)
    _assert_here(_caught(lambda: selector.fit(X, y)), UserWarning)


def _regression_data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    qid = np.repeat(np.arange(12), 5)
    return X, y, qid


def test_scorer_warning_inside_cross_validate_names_the_caller():
    X, y, qid = _regression_data()
    y_none = np.zeros_like(y)  # no relevant row in any test fold
    with sklearn.config_context(enable_metadata_routing=True):
        found = _caught(lambda: cross_validate(
            LinearRegression(), X, y_none, cv=GroupKFold(3),
            scoring=skrank.get_scorer("ndcg@5"),
            params={"query_id": qid, "groups": qid},
        ))
    _assert_here(found, UndefinedMetricWarning)


def test_multi_metric_scorer_warning_names_the_caller():
    X, y, qid = _regression_data()
    scorer = skrank.get_scorer(["ndcg@5", "map"])
    found = _caught(lambda: scorer(
        LinearRegression().fit(X, y), X, np.zeros_like(y), query_id=qid
    ))
    _assert_here(found, UndefinedMetricWarning)


def test_scorer_warning_inside_learning_curve_names_the_caller():
    # a scorer called by learning_curve (train and test scores, two train
    # sizes): its warning about folds without a relevant row names this line
    X, y, qid = _regression_data()
    y_none = np.zeros_like(y)
    with sklearn.config_context(enable_metadata_routing=True):
        found = _caught(lambda: learning_curve(
            LinearRegression(), X, y_none, cv=GroupKFold(3), train_sizes=[0.5, 1.0],
            scoring=skrank.get_scorer("map"),
            params={"query_id": qid, "groups": qid},
        ))
    _assert_here(found, UndefinedMetricWarning)
