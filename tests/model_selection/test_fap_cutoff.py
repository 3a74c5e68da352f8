"""FAPCutoffClassifier: chosen cutoff, prediction sets, routing, sklearn checks."""

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from joblib import parallel_backend
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    KFold,
    StratifiedKFold,
    cross_validate,
)
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import skrank
from skrank import FAPCutoffClassifier, fap_score, load_digits_retrieval
from skrank.model_selection._cutoff_search import _threshold_curve, _top_k_mask


# -- helpers written to be obvious, not fast ---------------------------------
def plain_fap_at_k(relevance_in_rank_order, k, beta=1.0):
    """FAP@k of one query from its relevance in score order (no ties)."""
    rel = [1 if r > 0 else 0 for r in relevance_in_rank_order]
    R = sum(rel)
    hits, precision_sum = 0, 0.0
    for i, r in enumerate(rel[:k], start=1):
        if r:
            hits += 1
            precision_sum += hits / i
    precision, recall = hits / k, hits / R
    b2 = beta * beta
    f = (1 + b2) * precision * recall / (b2 * precision + recall) if hits else 0.0
    ap = precision_sum / R
    return (1 + b2) * f * ap / (b2 * f + ap) if f + ap > 0 else 0.0


def plain_rank_curve(y, score, query_id, max_k, beta=1.0):
    """Mean FAP@k (queries with a relevant row), k = 1..max_k, by explicit sorting."""
    rankings = []
    for q in np.unique(query_id):
        rows = np.flatnonzero(query_id == q)
        if y[rows].sum() > 0:
            rankings.append([y[i] for i in sorted(rows, key=lambda i: -score[i])])
    return np.array([
        sum(plain_fap_at_k(ranking, k, beta) for ranking in rankings) / len(rankings)
        for k in range(1, max_k + 1)
    ])


def plain_set_fap(y, score, query_id, threshold, beta=1.0):
    """Mean FAP of the sets {score >= threshold} (no ties), empty set scoring 0."""
    values = []
    for q in np.unique(query_id):
        rows = np.flatnonzero(query_id == q)
        if y[rows].sum() == 0:
            continue
        order = sorted(rows, key=lambda i: -score[i])
        size = sum(score[i] >= threshold for i in rows)
        ranking = [y[i] for i in order]
        values.append(plain_fap_at_k(ranking, size, beta) if size else 0.0)
    return sum(values) / len(values)


def first_max(values):
    values = np.asarray(values)
    return int(np.flatnonzero(values >= values.max() - 1e-12)[0])


def set_f1(y_true, y_pred, query_id):
    """Mean over queries with a relevant row of the F1 of the returned set."""
    y_true, y_pred, query_id = map(np.asarray, (y_true, y_pred, query_id))
    values = []
    for q in np.unique(query_id):
        t, p = y_true[query_id == q] > 0, y_pred[query_id == q] > 0
        if t.sum() == 0:
            continue
        hits = (t & p).sum()
        values.append(2 * hits / (t.sum() + p.sum()))
    return float(np.mean(values))


def set_f1_scorer():
    """skrank's scorer of the sets ``predict`` returns (it passes the query ids)."""
    return skrank.get_scorer("set_f1")


class FirstColumn(ClassifierMixin, BaseEstimator):
    """A 'model' whose decision function is the first feature: scores set by hand."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.n_features_in_ = np.asarray(X).shape[1]
        return self

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]


@pytest.fixture(scope="module")
def digits():
    data = load_digits_retrieval(n_queries=48, n_candidates=12, random_state=1)
    return data.data, data.target, data.query_id


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def out_of_fold_scores(X, y, query_id, estimator, n_splits):
    """Reproduce the selector's folds: GroupKFold over the query ids."""
    score = np.empty(len(y))
    for train, test in GroupKFold(n_splits=n_splits).split(X, y, groups=query_id):
        model = clone(estimator).fit(X[train], y[train])
        score[test] = model.predict_proba(X[test])[:, 1]
    return score


# -- the chosen cutoff ---------------------------------------------------------
@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_best_k_is_the_argmax_of_an_independent_out_of_fold_curve(digits, beta):
    X, y, query_id = digits
    model = LogisticRegression(C=0.3)
    selector = FAPCutoffClassifier(model, beta=beta, cv=4).fit(X, y, query_id=query_id)

    score = out_of_fold_scores(X, y, query_id, model, 4)
    for q in np.unique(query_id):  # the plain curve assumes no ties
        assert np.unique(score[query_id == q]).shape[0] == (query_id == q).sum()
    max_k = 12  # every query has 12 rows
    expected = plain_rank_curve(y, score, query_id, max_k, beta)
    assert y[query_id == query_id[0]].shape[0] == max_k
    np.testing.assert_allclose(selector.cv_results_["k"], np.arange(1, max_k + 1))
    np.testing.assert_allclose(selector.cv_results_["fap"], expected, atol=1e-12)
    assert selector.best_k_ == first_max(expected) + 1
    assert selector.best_score_ == pytest.approx(expected.max())
    # the parts are the F-beta and AP curves of the same scores
    k = 3
    np.testing.assert_allclose(
        selector.cv_results_["f"][k - 1],
        skrank.fbeta_at_k_score(y, score, k=k, beta=beta, query_id=query_id),
    )
    np.testing.assert_allclose(
        selector.cv_results_["ap"][k - 1],
        skrank.average_precision_score(y, score, k=k, query_id=query_id),
    )


def test_max_k_limits_the_curve(digits):
    X, y, query_id = digits
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3, max_k=2)
    selector.fit(X, y, query_id=query_id)
    assert selector.cv_results_["k"].tolist() == [1, 2]
    assert selector.best_k_ in (1, 2)


def test_best_threshold_is_the_argmax_of_an_independent_set_curve(digits):
    X, y, query_id = digits
    keep = query_id < 30  # fewer candidate thresholds for the plain loop
    X, y, query_id = X[keep], y[keep], query_id[keep]
    model = LogisticRegression(C=0.3)
    selector = FAPCutoffClassifier(model, cutoff="score", cv=3)
    selector.fit(X, y, query_id=query_id)

    score = out_of_fold_scores(X, y, query_id, model, 3)
    candidates = np.unique(score)[::-1]  # every distinct score, highest first
    expected = np.array([plain_set_fap(y, score, query_id, t) for t in candidates])
    best = first_max(expected)
    assert selector.best_threshold_ == candidates[best]
    assert selector.best_score_ == pytest.approx(expected[best], abs=1e-12)
    np.testing.assert_allclose(selector.cv_results_["thresholds"], candidates)
    np.testing.assert_allclose(
        selector.cv_results_["threshold_fap"], expected, atol=1e-9
    )
    sizes = [np.mean([np.sum(score[query_id == q] >= t) for q in np.unique(query_id)])
             for t in candidates[:5]]
    np.testing.assert_allclose(selector.cv_results_["mean_set_size"][:5], sizes)


def test_threshold_curve_with_ties_matches_fap_score_per_query():
    # query 1: scores 3, 2, 2, 1 (a tie block of two rows); query 2: 2, 2, 0.5
    y = np.array([1, 0, 1, 0, 0, 1, 1])
    score = np.array([3.0, 2.0, 2.0, 1.0, 2.0, 2.0, 0.5])
    query_id = np.array([1, 1, 1, 1, 2, 2, 2])
    thresholds, mean_fap, size = _threshold_curve(y, score, query_id, 1.0)
    assert thresholds.tolist() == [3.0, 2.0, 1.0, 0.5]
    # a set {score >= t} is the top k_q of query q, cut between tie blocks
    sizes = {3.0: (1, 0), 2.0: (3, 2), 1.0: (4, 2), 0.5: (4, 3)}
    for t, value, mean_size in zip(thresholds, mean_fap, size):
        per_query = []
        for q, k in zip((1, 2), sizes[t]):
            rows = query_id == q
            per_query.append(fap_score(y[rows], score[rows], k=k) if k else 0.0)
        assert value == pytest.approx(np.mean(per_query))
        assert mean_size == pytest.approx(np.mean(sizes[t]))


def test_score_mode_on_hand_made_scores_picks_the_separating_threshold():
    # relevant rows score >= 0.6, the others <= 0.4: sets {score >= 0.6} are exact
    X = np.array([[0.9], [0.6], [0.4], [0.8], [0.1], [0.7], [0.65], [0.3], [0.2]])
    y = np.array([1, 1, 0, 1, 0, 1, 1, 0, 0])
    query_id = np.array([1, 1, 1, 2, 2, 3, 3, 3, 3])
    selector = FAPCutoffClassifier(FirstColumn().fit(X, y), cutoff="score", cv="prefit",
                                   refit=False).fit(X, y, query_id=query_id)
    assert selector.best_threshold_ == 0.6
    assert selector.best_score_ == 1.0
    np.testing.assert_array_equal(
        selector.predict([[0.6], [0.59], [0.95], [0.0]]), [1, 0, 1, 0]
    )


# -- prediction sets -----------------------------------------------------------
def two_on_top_selector():
    """A rank selector with best_k_ == 2: every query has two relevant rows on top."""
    X = np.array([[5.0], [4.0], [1.0], [0.0], [3.0], [2.5], [0.5], [9.0], [8.0], [1.0]])
    y = np.array([1, 1, 0, 0, 1, 1, 0, 1, 1, 0])
    query_id = np.array([1, 1, 1, 1, 2, 2, 2, 3, 3, 3])
    selector = FAPCutoffClassifier(FirstColumn(), cv=3).fit(X, y, query_id=query_id)
    assert selector.best_k_ == 2 and selector.best_score_ == 1.0
    return selector


def test_predict_returns_the_top_k_with_ties_at_the_cutoff_included():
    selector = two_on_top_selector()
    score = [5, 4, 4, 1, 3, 1, 2, 3, 7, 7, 2, 1, 1, 1]
    query = ["a"] * 4 + ["short"] + ["c"] * 3 + ["d"] * 3 + ["e"] * 3
    expected = [
        1, 1, 1, 0,  # a: 5 and the block of 4s that holds rank 2 (3 rows)
        1,           # short: a query with fewer than k rows returns all its rows
        0, 1, 1,     # c: ranks 1 and 2 are the rows scoring 3 and 2
        1, 1, 0,     # d: a tie above the cutoff, then rank 3 out
        1, 1, 1,     # e: one block of three tied rows holds ranks 1..3
    ]
    X = np.array(score, dtype=float).reshape(-1, 1)
    np.testing.assert_array_equal(selector.predict(X, query_id=query), expected)
    # the rule does not depend on row order
    perm = np.random.RandomState(0).permutation(len(score))
    np.testing.assert_array_equal(
        selector.predict(X[perm], query_id=np.array(query)[perm]),
        np.array(expected)[perm],
    )


def test_top_k_mask_on_unsorted_interleaved_queries():
    score = np.array([0.1, 0.9, 0.5, 0.8, 0.3, 0.2])
    query_id = np.array([2, 1, 2, 1, 1, 2])
    # query 1: 0.9, 0.8 | 0.3 ; query 2: 0.5, 0.2 | 0.1
    np.testing.assert_array_equal(
        _top_k_mask(score, query_id, 2), [False, True, True, True, False, True]
    )
    np.testing.assert_array_equal(
        _top_k_mask(score, query_id, 1), [False, True, True, False, False, False]
    )


@pytest.mark.parametrize("model", [LogisticRegression(), LinearSVC()])
def test_string_labels_and_pos_label(digits, model):
    X, y, query_id = digits
    numeric = FAPCutoffClassifier(model, cv=3).fit(X, y, query_id=query_id)
    # sorted labels are ["hit", "miss"]: say which one is relevant; the
    # probability column or the sign of the decision function follows it
    labels = np.where(y == 1, "hit", "miss")
    by_label = FAPCutoffClassifier(model, cv=3, pos_label="hit")
    by_label.fit(X, labels, query_id=query_id)
    assert by_label.best_k_ == numeric.best_k_
    np.testing.assert_array_equal(
        by_label.predict(X, query_id=query_id),
        np.where(numeric.predict(X, query_id=query_id) == 1, "hit", "miss"),
    )
    with pytest.raises(ValueError, match="`pos_label`"):
        FAPCutoffClassifier(model, cv=3, pos_label="yes").fit(
            X, labels, query_id=query_id
        )


# -- fit options ---------------------------------------------------------------
def test_refit_false_with_one_split_keeps_the_fold_model(digits):
    X, y, query_id = digits
    selector = FAPCutoffClassifier(LogisticRegression(), cv=0.25, refit=False,
                                   random_state=0).fit(X, y, query_id=query_id)
    train, _ = next(GroupShuffleSplit(n_splits=1, test_size=0.25, random_state=0)
                    .split(X, y, groups=query_id))
    np.testing.assert_allclose(
        selector.estimator_.coef_, LogisticRegression().fit(X[train], y[train]).coef_
    )
    with pytest.raises(ValueError, match="refit cannot be False"):
        FAPCutoffClassifier(LogisticRegression(), cv=3, refit=False).fit(
            X, y, query_id=query_id
        )


def test_prefit(digits):
    X, y, query_id = digits
    model = LogisticRegression().fit(X, y)
    selector = FAPCutoffClassifier(model, cv="prefit", refit=False)
    selector.fit(X, y, query_id=query_id)
    assert selector.estimator_ is model
    expected = plain_rank_curve(y, model.predict_proba(X)[:, 1], query_id, 12)
    assert selector.best_k_ == first_max(expected) + 1
    with pytest.raises(ValueError, match="refit cannot be True"):
        FAPCutoffClassifier(model, cv="prefit").fit(X, y, query_id=query_id)
    with pytest.raises(NotFittedError, match="must be fitted"):
        FAPCutoffClassifier(LogisticRegression(), cv="prefit", refit=False).fit(
            X, y, query_id=query_id
        )


def test_delegated_methods_follow_the_estimator(digits):
    X, y, query_id = digits
    svc = FAPCutoffClassifier(LinearSVC(), cv=3).fit(X, y, query_id=query_id)
    assert not hasattr(svc, "predict_proba")
    np.testing.assert_allclose(
        svc.decision_function(X), svc.estimator_.decision_function(X)
    )
    logistic = FAPCutoffClassifier(LogisticRegression(), cv=3)
    logistic.fit(X, y, query_id=query_id)
    np.testing.assert_allclose(
        logistic.predict_proba(X), logistic.estimator_.predict_proba(X)
    )
    # a regressor scores rows with predict; predict still returns the labels of y
    ridge = FAPCutoffClassifier(Ridge(), cv=3).fit(X, y, query_id=query_id)
    assert not hasattr(ridge, "predict_proba")
    assert not hasattr(ridge, "decision_function")
    assert set(ridge.predict(X, query_id=query_id)) <= {0, 1}
    np.testing.assert_array_equal(ridge.classes_, [0, 1])
    assert ridge.n_features_in_ == X.shape[1]


def test_feature_names_and_fit_params_reach_the_estimator(digits):
    X, y, query_id = digits
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    weight = np.where(y == 1, 3.0, 1.0)
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
    selector.fit(frame, y, query_id=pd.Series(query_id), sample_weight=weight)
    assert list(selector.feature_names_in_) == list(frame.columns)
    expected = LogisticRegression().fit(frame, y, sample_weight=weight).coef_
    np.testing.assert_allclose(selector.estimator_.coef_, expected)


def test_parallel_folds_give_the_same_cutoff(digits):
    X, y, query_id = digits
    serial = FAPCutoffClassifier(LogisticRegression(), cv=3)
    serial.fit(X, y, query_id=query_id)
    parallel = FAPCutoffClassifier(LogisticRegression(), cv=3, n_jobs=2)
    with parallel_backend("threading"):  # no process start-up in a unit test
        parallel.fit(X, y, query_id=query_id)
    np.testing.assert_allclose(parallel.cv_results_["fap"], serial.cv_results_["fap"])
    assert parallel.best_k_ == serial.best_k_


def test_fit_without_query_id(digits):
    X, y, _ = digits
    with pytest.warns(UserWarning, match="one query"):
        FAPCutoffClassifier(LogisticRegression(), cv=3).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        selector = FAPCutoffClassifier(LogisticRegression(), cutoff="score", cv=3)
        selector.fit(X, y)
    # no query ids: the rows of each test fold of StratifiedKFold form one query
    folds = list(StratifiedKFold(n_splits=3).split(X, y))
    score, fold = np.empty(len(y)), np.empty(len(y), dtype=int)
    for i, (train, test) in enumerate(folds):
        model = LogisticRegression().fit(X[train], y[train])
        score[test] = model.predict_proba(X[test])[:, 1]
        fold[test] = i
    candidates = np.unique(score)[::-1]
    expected = [plain_set_fap(y, score, fold, t) for t in candidates[::10]]
    np.testing.assert_allclose(
        selector.cv_results_["threshold_fap"][::10], expected, atol=1e-9
    )


# -- bad input -----------------------------------------------------------------
@pytest.mark.parametrize(
    "params, match",
    [
        ({"max_k": 0}, "`max_k` must be a positive integer"),
        ({"max_k": 2.5}, "`max_k` must be a positive integer"),
        ({"cutoff": "top"}, "`cutoff` must be one of 'rank', 'score'"),
        ({"beta": 0.0}, "`beta` must be a positive"),
        ({"cv": 1}, "`cv` must be an int >= 2"),
        ({"cv": 1.5}, "`cv` as a float"),
        ({"refit": "yes"}, "`refit` must be True or False"),
        ({"response_method": "predict_log"}, "`response_method` must be one of"),
        ({"cv": 60}, "at least 60 queries"),
        ({"cv": KFold(5, shuffle=True, random_state=0)}, "keeps queries whole"),
    ],
)
@pytest.mark.filterwarnings("ignore:The groups parameter is ignored by KFold")
def test_bad_parameters_raise_clear_errors(digits, params, match):
    X, y, query_id = digits
    with pytest.raises(ValueError, match=match):
        FAPCutoffClassifier(LogisticRegression(), **params).fit(X, y, query_id=query_id)


def test_bad_data_raise_clear_errors(digits):
    X, y, query_id = digits
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
    with pytest.raises(ValueError, match="only one class"):
        selector.fit(X, np.ones_like(y), query_id=query_id)
    with pytest.raises(ValueError, match="Only binary classification"):
        selector.fit(X, query_id % 3, query_id=query_id)
    with pytest.raises(ValueError, match="Input y contains NaN"):
        selector.fit(X, np.where(y == 1, np.nan, 0.0), query_id=query_id)
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        selector.fit(X, y + 0.5, query_id=query_id)
    with pytest.raises(ValueError, match="`query_id` has 5 entries"):
        selector.fit(X, y, query_id=query_id[:5])
    with pytest.raises(ValueError, match="`query_id` contains missing values"):
        missing = np.where(query_id == 3, None, query_id).astype(object)
        selector.fit(X, y, query_id=missing)
    selector.fit(X, y, query_id=query_id)
    with pytest.raises(ValueError, match=r"needs `query_id`.*cutoff='score'"):
        selector.predict(X)
    with pytest.raises(ValueError, match="`query_id` has 3 entries but `X` has"):
        selector.predict(X, query_id=[1, 2, 3])
    with pytest.raises(NotFittedError):
        FAPCutoffClassifier(LogisticRegression()).predict(X, query_id=query_id)


# -- metadata routing, Pipeline, GridSearchCV, cross_validate -------------------
def test_pipeline_with_and_without_routing(digits):
    X, y, query_id = digits
    direct = FAPCutoffClassifier(LogisticRegression(), cv=3).fit(
        StandardScaler().fit_transform(X), y, query_id=query_id
    )
    expected = direct.predict(StandardScaler().fit_transform(X), query_id=query_id)

    def pipeline():
        return Pipeline([("scale", StandardScaler()),
                         ("select", FAPCutoffClassifier(LogisticRegression(), cv=3))])

    with sklearn.config_context(enable_metadata_routing=True):
        routed = pipeline().fit(X, y, query_id=query_id)
        assert routed[-1].best_k_ == direct.best_k_
        np.testing.assert_array_equal(routed.predict(X, query_id=query_id), expected)
    unrouted = pipeline().fit(X, y, select__query_id=query_id)
    np.testing.assert_array_equal(unrouted.predict(X, query_id=query_id), expected)


def test_fit_params_are_routed_to_the_estimator_when_requested(digits, routing):
    X, y, query_id = digits
    weight = np.where(y == 1, 3.0, 1.0)
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
    with pytest.raises(Exception, match="sample_weight"):  # requested by no one
        selector.fit(X, y, query_id=query_id, sample_weight=weight)
    model = LogisticRegression().set_fit_request(sample_weight=True)
    selector = FAPCutoffClassifier(model, cv=3).fit(
        X, y, query_id=query_id, sample_weight=weight
    )
    expected = LogisticRegression().fit(X, y, sample_weight=weight).coef_
    np.testing.assert_allclose(selector.estimator_.coef_, expected)


def test_cross_validate_scores_each_fold_with_its_query_ids(digits, routing):
    X, y, query_id = digits
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
    scores = cross_validate(
        selector, X, y, cv=GroupKFold(n_splits=3),
        scoring={"set_f1": set_f1_scorer(), "fap": skrank.get_scorer("fap")},
        params={"query_id": query_id, "groups": query_id}, error_score="raise",
    )
    expected_f1, expected_fap = [], []
    for train, test in GroupKFold(n_splits=3).split(X, y, groups=query_id):
        fitted = clone(selector).fit(X[train], y[train], query_id=query_id[train])
        predicted = fitted.predict(X[test], query_id=query_id[test])
        expected_f1.append(set_f1(y[test], predicted, query_id[test]))
        expected_fap.append(fap_score(y[test], fitted.predict_proba(X[test])[:, 1],
                                      query_id=query_id[test]))
    np.testing.assert_allclose(scores["test_set_f1"], expected_f1)
    np.testing.assert_allclose(scores["test_fap"], expected_fap)


def test_grid_search_tunes_the_inner_estimator(digits, routing):
    X, y, query_id = digits
    search = GridSearchCV(
        FAPCutoffClassifier(LogisticRegression(), cv=3),
        {"estimator__C": [0.01, 1.0], "beta": [0.5, 2.0]},
        cv=GroupKFold(n_splits=3), scoring=set_f1_scorer(), error_score="raise",
    ).fit(X, y, query_id=query_id, groups=query_id)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    best = search.best_estimator_
    refitted = FAPCutoffClassifier(LogisticRegression(), cv=3).set_params(
        **search.best_params_
    ).fit(X, y, query_id=query_id)
    assert best.best_k_ == refitted.best_k_
    # GridSearchCV.predict takes no metadata: predict with the best estimator
    np.testing.assert_array_equal(
        best.predict(X, query_id=query_id), refitted.predict(X, query_id=query_id)
    )


def test_grid_search_without_routing_reads_a_query_id_column(digits):
    X, y, query_id = digits
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    frame.insert(0, "qid", query_id)
    pipeline = Pipeline([
        ("drop_qid", ColumnTransformer([("qid", "drop", ["qid"])],
                                       remainder="passthrough")),
        ("select", FAPCutoffClassifier(LogisticRegression(), cv=3)),
    ])
    assert not sklearn.get_config()["enable_metadata_routing"]
    search = GridSearchCV(
        pipeline, {"select__beta": [0.5, 2.0]}, cv=GroupKFold(n_splits=3),
        scoring=set_f1_scorer(), error_score="raise",
    ).fit(frame, y, groups=query_id, select__query_id=query_id)
    # the scorer read each test fold's "qid" column and gave it to predict
    for i, beta in enumerate(search.cv_results_["param_select__beta"]):
        expected = []
        for train, test in GroupKFold(n_splits=3).split(X, y, groups=query_id):
            fitted = FAPCutoffClassifier(LogisticRegression(), cv=3, beta=beta)
            fitted.fit(X[train], y[train], query_id=query_id[train])
            predicted = fitted.predict(X[test], query_id=query_id[test])
            expected.append(set_f1(y[test], predicted, query_id[test]))
        assert search.cv_results_["mean_test_score"][i] == pytest.approx(
            np.mean(expected)
        )


# -- scikit-learn's estimator checks ---------------------------------------------
_RANK_PREDICT_REASON = (
    "predict with cutoff='rank' needs query_id, which the generic checks do not "
    "pass (the cutoff='score' instance runs these checks)"
)
_RANK_PREDICT_CHECKS = [
    "check_fit_score_takes_y",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_classifier_data_not_an_array",
    "check_classifiers_classes",
    "check_classifiers_train",
    "check_supervised_y_2d",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_dict_unchanged",
    "check_fit_idempotent",
]


def _expected_failed_checks(estimator):
    if estimator.cutoff == "rank":
        return {name: _RANK_PREDICT_REASON for name in _RANK_PREDICT_CHECKS}
    return {}


@pytest.mark.filterwarnings("ignore:FAPCutoffClassifier.fit got no `query_id`")
@parametrize_with_checks(
    [
        FAPCutoffClassifier(LogisticRegression(), cutoff="score", cv=3),
        FAPCutoffClassifier(LogisticRegression(), cv=3),
    ],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
