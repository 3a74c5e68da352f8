"""Scorers in scikit-learn's model selection, checked against the metrics by hand.

The key check of every test: the scores scikit-learn reports for each fold
equal skrank's metric function applied by hand to the same fold (the folds
recomputed with the same splitter, a clone fitted on the training rows, the
metric called with the test rows' query ids).
"""

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import make_scorer
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
    validation_curve,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import skrank
from skrank import (
    average_precision_score,
    dcg_score,
    fbeta_at_k_score,
    gauc_score,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
    ndcg_score,
)
from skrank.metrics._registry import METRICS

from .._needs import needs

N_SPLITS = 3
# the metric function behind each name, with the options the name fixes
BY_HAND = {
    "ndcg@10": (ndcg_score, {"k": 10}),
    "map": (average_precision_score, {}),
    "gauc": (gauc_score, {}),
    "f1@5": (fbeta_at_k_score, {"k": 5, "beta": 1.0}),
}


@pytest.fixture(scope="module")
def data():
    d = skrank.load_digits_retrieval(n_queries=60, n_candidates=20)
    return d.data, d.target, d.query_id


@pytest.fixture(scope="module")
def frame():
    needs("pandas")
    d = skrank.load_digits_retrieval(n_queries=60, n_candidates=20, as_frame=True)
    return d.data, d.target, d.query_id


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _model():
    return LogisticRegression(max_iter=1000)


def _drop_qid(model):
    """A pipeline that drops the DataFrame's "qid" column before ``model``."""
    return make_pipeline(
        ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"), model
    )


def _rows(X, index):
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


def _positive_scores(model, X):
    """What the scorer should score: P(relevant) for a binary classifier."""
    return model.predict_proba(X)[:, 1]


def _by_hand(estimator, X, y, qid, metric, options, *, folds=None, params=None,
             response=_positive_scores, sample_weight=None, train=False):
    """One score per fold: fit a clone on the fold, call the metric by hand.

    The folds are GroupKFold's on ``qid`` unless given.
    """
    if folds is None:
        folds = GroupKFold(N_SPLITS).split(X, y, groups=qid)
    scores = []
    for train_rows, test_rows in folds:
        model = clone(estimator).set_params(**(params or {}))
        model.fit(_rows(X, train_rows), y[train_rows])
        rows = train_rows if train else test_rows
        weight = None if sample_weight is None else sample_weight[rows]
        scores.append(
            metric(y[rows], response(model, _rows(X, rows)), query_id=qid[rows],
                   sample_weight=weight, **options)
        )
    return np.array(scores)


def _scoring(names):
    return {name: get_scorer(name) for name in names}


# -- per-fold scores equal the metric by hand ---------------------------------
def test_cross_validate_multi_metric_equals_metrics_by_hand(data, routing):
    X, y, qid = data
    result = cross_validate(
        _model(), X, y, cv=GroupKFold(N_SPLITS), scoring=_scoring(BY_HAND),
        params={"query_id": qid, "groups": qid}, error_score="raise",
    )
    for name, (metric, options) in BY_HAND.items():
        expected = _by_hand(_model(), X, y, qid, metric, options)
        np.testing.assert_array_equal(result[f"test_{name}"], expected, err_msg=name)


def test_scores_are_per_query_not_one_list(data, routing):
    # the same folds scored as one list give another number: ids are used
    X, y, qid = data
    result = cross_validate(
        _model(), X, y, cv=GroupKFold(N_SPLITS), scoring=get_scorer("ndcg@10"),
        params={"query_id": qid, "groups": qid},
    )
    folds = GroupKFold(N_SPLITS).split(X, y, groups=qid)
    one_list = _by_hand(_model(), X, y, np.zeros_like(qid), ndcg_score, {"k": 10},
                        folds=folds)
    assert not np.allclose(result["test_score"], one_list)


def test_grid_search_multi_metric_refit(data, routing):
    X, y, qid = data
    train, test = qid < 45, qid >= 45
    grid = {"C": [0.01, 1.0]}
    search = GridSearchCV(
        _model(), grid, cv=GroupKFold(N_SPLITS), scoring=_scoring(BY_HAND),
        refit="ndcg@10", error_score="raise",
    ).fit(X[train], y[train], query_id=qid[train], groups=qid[train])
    results = search.cv_results_
    for i, params in enumerate(results["params"]):
        for name, (metric, options) in BY_HAND.items():
            expected = _by_hand(_model(), X[train], y[train], qid[train], metric,
                                options, params=params)
            got = [results[f"split{s}_test_{name}"][i] for s in range(N_SPLITS)]
            np.testing.assert_array_equal(got, expected, err_msg=f"{name} {params}")
    # refit on ndcg@10: the best mean ndcg@10 wins
    assert search.best_index_ == np.argmax(results["mean_test_ndcg@10"])
    # .score routes the held-out ids to the refit scorer
    held_out = search.score(X[test], y[test], query_id=qid[test])
    expected = ndcg_score(y[test], _positive_scores(search.best_estimator_, X[test]),
                          query_id=qid[test], k=10)
    assert held_out == expected


def test_randomized_search(data, routing):
    X, y, qid = data
    search = RandomizedSearchCV(
        _model(), {"C": [0.01, 0.1, 1.0]}, n_iter=2, random_state=0,
        cv=GroupKFold(N_SPLITS), scoring=get_scorer("map"), error_score="raise",
    ).fit(X, y, query_id=qid, groups=qid)
    for i, params in enumerate(search.cv_results_["params"]):
        expected = _by_hand(_model(), X, y, qid, average_precision_score, {},
                            params=params)
        got = [search.cv_results_[f"split{s}_test_score"][i] for s in range(N_SPLITS)]
        np.testing.assert_array_equal(got, expected)


def test_cross_val_score(data, routing):
    X, y, qid = data
    scores = cross_val_score(
        _model(), X, y, cv=GroupKFold(N_SPLITS), scoring=get_scorer("gauc"),
        params={"query_id": qid, "groups": qid}, error_score="raise",
    )
    np.testing.assert_array_equal(scores, _by_hand(_model(), X, y, qid, gauc_score, {}))


def test_validation_curve_train_and_test_folds(data, routing):
    X, y, qid = data
    c_range = [0.01, 1.0]
    train_scores, test_scores = validation_curve(
        _model(), X, y, param_name="C", param_range=c_range, cv=GroupKFold(N_SPLITS),
        scoring=get_scorer("ndcg@10"), params={"query_id": qid, "groups": qid},
        error_score="raise",
    )
    for i, c in enumerate(c_range):
        for scores, train in ((test_scores, False), (train_scores, True)):
            expected = _by_hand(_model(), X, y, qid, ndcg_score, {"k": 10},
                                params={"C": c}, train=train)
            np.testing.assert_array_equal(scores[i], expected)


def test_pipeline_estimator_and_n_jobs(data, routing):
    X, y, qid = data
    pipe = make_pipeline(StandardScaler(), _model())
    result = cross_validate(
        pipe, X, y, cv=GroupKFold(N_SPLITS), scoring=_scoring(["ndcg@10", "map"]),
        params={"query_id": qid, "groups": qid}, n_jobs=2, error_score="raise",
    )
    for name in ("ndcg@10", "map"):
        metric, options = BY_HAND[name]
        expected = _by_hand(pipe, X, y, qid, metric, options)
        np.testing.assert_array_equal(result[f"test_{name}"], expected)


def test_alias_groups_feeds_splitter_and_scorer(data):
    X, y, qid = data
    # set while routing is off, used once it is on (SPEC §4's pitfall)
    scorer = get_scorer("map").set_score_request(query_id="groups")
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(
            _model(), X, y, cv=GroupKFold(N_SPLITS), scoring=scorer,
            params={"groups": qid}, error_score="raise",
        )
    expected = _by_hand(_model(), X, y, qid, average_precision_score, {})
    np.testing.assert_array_equal(scores, expected)


def test_routed_sample_weight(data, routing):
    X, y, qid = data
    # a weight per query, constant inside it (qid % 3 would be constant per
    # GroupKFold fold: the groups have equal sizes and are dealt round-robin)
    weight = np.random.default_rng(0).uniform(0.5, 2.0, size=qid.max() + 1)[qid]
    scorer = get_scorer("ndcg@10").set_score_request(sample_weight=True)
    model = _model().set_fit_request(sample_weight=False)   # weights score only
    scores = cross_val_score(
        model, X, y, cv=GroupKFold(N_SPLITS), scoring=scorer,
        params={"query_id": qid, "groups": qid, "sample_weight": weight},
        error_score="raise",
    )
    expected = _by_hand(_model(), X, y, qid, ndcg_score, {"k": 10},
                        sample_weight=weight)
    np.testing.assert_array_equal(scores, expected)
    unweighted = _by_hand(_model(), X, y, qid, ndcg_score, {"k": 10})
    assert not np.allclose(scores, unweighted)


def test_sklearn_make_scorer_with_query_id_request(data, routing):
    X, y, qid = data
    scorer = make_scorer(ndcg_score, k=10).set_score_request(query_id=True)
    scores = cross_val_score(
        Ridge(), X, y, cv=GroupKFold(N_SPLITS), scoring=scorer,
        params={"query_id": qid, "groups": qid}, error_score="raise",
    )
    expected = _by_hand(Ridge(), X, y, qid, ndcg_score, {"k": 10},
                        response=lambda model, X: model.predict(X))
    np.testing.assert_array_equal(scores, expected)


# -- without routing: the DataFrame column ------------------------------------
def test_dataframe_column_with_routing_off(frame):
    X, y, qid = frame
    assert not sklearn.get_config()["enable_metadata_routing"]
    pipe = _drop_qid(_model())
    result = cross_validate(
        pipe, X, y, cv=GroupKFold(N_SPLITS), groups=qid,
        scoring=_scoring(["ndcg@10", "gauc"]), error_score="raise",
    )
    for name in ("ndcg@10", "gauc"):
        metric, options = BY_HAND[name]
        expected = _by_hand(pipe, X, y, qid, metric, options)
        np.testing.assert_array_equal(result[f"test_{name}"], expected)
    search = GridSearchCV(
        pipe, {"logisticregression__C": [0.01, 1.0]}, cv=GroupKFold(N_SPLITS),
        scoring=_scoring(["ndcg@10", "map"]), refit="ndcg@10", error_score="raise",
    ).fit(X, y, groups=qid)
    for i, params in enumerate(search.cv_results_["params"]):
        expected = _by_hand(pipe, X, y, qid, ndcg_score, {"k": 10}, params=params)
        got = [search.cv_results_[f"split{s}_test_ndcg@10"][i] for s in range(N_SPLITS)]
        np.testing.assert_array_equal(got, expected)


def test_dataframe_column_with_routing_on_and_named_column(frame, routing):
    X, y, qid = frame
    X = X.rename(columns={"qid": "user"})
    pipe = make_pipeline(
        ColumnTransformer([("ids", "drop", ["user"])], remainder="passthrough"),
        _model(),
    )
    scorer = make_ranking_scorer("map@10", query_id_column="user")
    scores = cross_val_score(pipe, X, y, cv=GroupKFold(N_SPLITS), scoring=scorer,
                             params={"groups": qid}, error_score="raise")
    expected = _by_hand(pipe, X, y, qid, average_precision_score, {"k": 10})
    np.testing.assert_array_equal(scores, expected)


def test_routed_ids_take_precedence_over_the_column(frame):
    X, y, qid = frame
    model = _drop_qid(_model()).fit(X, y)
    score = _positive_scores(model, X)
    one = np.zeros(len(y))
    assert get_scorer("map")(model, X, y, query_id=one) == average_precision_score(
        y, score, query_id=one)
    assert get_scorer("map")(model, X, y) == average_precision_score(
        y, score, query_id=qid)


# -- no query ids: a clear error, never one list --------------------------------
def test_no_query_ids_routing_off_raises_both_ways(data):
    X, y, qid = data
    with pytest.raises(ValueError) as info:
        cross_validate(_model(), X, y, cv=GroupKFold(N_SPLITS), groups=qid,
                       scoring=get_scorer("ndcg@10"), error_score="raise")
    message = str(info.value)
    assert "make_ranking_scorer(ndcg_score, k=10)" in message
    assert "enable_metadata_routing=True" in message
    assert "params={'query_id': qid" in message
    assert "ColumnTransformer" in message and "'qid'" in message
    assert "routing is off" in message


def test_no_query_ids_routing_on_raises_and_names_the_alias(data, frame, routing):
    X, y, qid = data
    model = _model().fit(X, y)
    with pytest.raises(ValueError, match="routing is on, but no `query_id`"):
        get_scorer("map")(model, X, y)
    with pytest.raises(ValueError, match="no `groups`"):
        get_scorer("map").set_score_request(query_id="groups")(model, X, y)
    Xf = frame[0].drop(columns="qid")
    with pytest.raises(ValueError, match="X has no column 'qid'"):
        get_scorer("map")(model, Xf, y)
    with pytest.raises(ValueError, match="disabled"):
        make_ranking_scorer("map", query_id_column=None)(model, X, y)


def test_no_query_ids_in_search_becomes_nan_with_the_message(data, routing):
    # scikit-learn's default error_score=np.nan turns the error into a warning
    X, y, qid = data
    with pytest.warns(UserWarning, match="needs the query id of every row"):
        scores = cross_val_score(_model(), X, y, cv=GroupKFold(N_SPLITS),
                                 scoring=get_scorer("map"), params={"groups": qid})
    assert np.isnan(scores).all()


# -- which model output is scored -------------------------------------------------
class PredictOnly(BaseEstimator):
    """Neither classifier nor regressor, like XGBRanker: only fit and predict."""

    def fit(self, X, y):
        self.coef_ = np.linalg.lstsq(X, y, rcond=None)[0]
        return self

    def predict(self, X):
        return np.asarray(X) @ self.coef_


class TopKPerQuery(BaseEstimator):
    """Marks the ``k`` rows of each query with the largest first feature."""

    __metadata_request__predict = {"query_id": True}

    def __init__(self, k=2):
        self.k = k

    def fit(self, X, y, query_id=None):
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict(self, X, query_id):
        X, query_id = np.asarray(X), np.asarray(query_id)
        order = np.lexsort((-X[:, 0], query_id))
        starts = np.searchsorted(query_id[order], query_id[order], side="left")
        rank = np.arange(len(order)) - starts
        selected = np.zeros(len(X))
        selected[order[rank < self.k]] = 1.0
        return selected


@pytest.mark.parametrize(
    "estimator, response",
    [
        (LogisticRegression(max_iter=1000), lambda m, X: m.predict_proba(X)[:, 1]),
        (LinearSVC(), lambda m, X: m.decision_function(X)),
        (Ridge(), lambda m, X: m.predict(X)),
        (PredictOnly(), lambda m, X: m.predict(X)),
    ],
    ids=["classifier", "no_predict_proba", "regressor", "predict_only"],
)
def test_model_output(data, estimator, response):
    X, y, qid = data
    model = clone(estimator).fit(X, y)
    scorer = get_scorer("ndcg@10")
    assert scorer(model, X, y, query_id=qid) == ndcg_score(
        y, response(model, X), query_id=qid, k=10)
    # rank metrics cannot tell predict_proba from decision_function apart,
    # so check the scores themselves too
    np.testing.assert_array_equal(scorer._model_scores(model, X, qid),
                                  response(model, X))


def test_graded_classifier_scores_the_expected_grade(data):
    X, y, qid = data
    grade = y * (1 + (X[:, 17] > np.median(X[:, 17])))   # 0, 1 or 2
    model = LogisticRegression(max_iter=1000).fit(X, grade)
    expected_grade = model.predict_proba(X) @ model.classes_
    assert get_scorer("ndcg@10")(model, X, grade, query_id=qid) == ndcg_score(
        grade, expected_grade, query_id=qid, k=10)


def test_response_method_option(data):
    X, y, qid = data
    model = _model().fit(X, y)
    scorer = make_ranking_scorer(dcg_score, k=5, response_method="decision_function")
    assert scorer(model, X, y, query_id=qid) == dcg_score(
        y, model.decision_function(X), query_id=qid, k=5)
    with pytest.raises(ValueError, match="has no predict_proba method"):
        make_ranking_scorer("map", response_method="predict_proba")(
            Ridge().fit(X, y), X, y, query_id=qid)


# the selector's predict is a 0/1 set on purpose: the label-score warning is expected
@pytest.mark.filterwarnings("ignore:`y_score` holds only the values 0 and 1")
def test_query_ids_forwarded_to_a_per_query_predict(data):
    X, y, qid = data
    selector = TopKPerQuery(k=3).fit(X, y)
    expected = fbeta_at_k_score(y, selector.predict(X, qid), query_id=qid, beta=1.0)
    assert make_ranking_scorer("f1")(selector, X, y, query_id=qid) == expected
    # in a Pipeline: routing off passes it to the final step, routing on routes it
    pipe = make_pipeline(StandardScaler(), TopKPerQuery(k=3)).fit(X, y)
    expected = fbeta_at_k_score(y, pipe.predict(X, query_id=qid), query_id=qid)
    assert make_ranking_scorer("f1")(pipe, X, y, query_id=qid) == expected
    with sklearn.config_context(enable_metadata_routing=True):
        assert make_ranking_scorer("f1")(pipe, X, y, query_id=qid) == expected


# -- the object: routing requests, pickling, repr ---------------------------------
def test_metadata_request_defaults_and_changes_with_routing_off():
    assert not sklearn.get_config()["enable_metadata_routing"]
    scorer = get_scorer("ndcg@10")
    assert scorer.get_metadata_routing().score.requests == {
        "query_id": True, "sample_weight": None}
    assert scorer.set_score_request(query_id="groups", sample_weight=True) is scorer
    assert scorer.get_metadata_routing().score.requests == {
        "query_id": "groups", "sample_weight": True}
    scorer.set_score_request(query_id="query_id")   # the own name means True
    assert scorer.get_metadata_routing().score.requests["query_id"] is True
    # get_scorer makes a new scorer each time
    assert get_scorer("ndcg@10").get_metadata_routing().score.requests[
        "sample_weight"] is None
    with pytest.raises(ValueError, match="`query_id` must be True, False, None"):
        scorer.set_score_request(query_id="not an identifier")
    with pytest.raises(TypeError):
        scorer.set_score_request(groups=True)


def test_unexpected_metadata_is_refused(data):
    X, y, qid = data
    model = _model().fit(X, y)
    with pytest.raises(TypeError, match="unexpected metadata \\['groups'\\]"):
        get_scorer("map")(model, X, y, query_id=qid, groups=qid)


def test_multi_metric_with_sample_weight_and_routing_off(frame):
    # scikit-learn calls _accept_sample_weight() on each scorer of a dict
    from sklearn.inspection import permutation_importance

    X, y, qid = frame
    model = _drop_qid(_model()).fit(X, y)
    result = permutation_importance(
        model, X, y, scoring=_scoring(["map", "ndcg@10"]), n_repeats=1,
        random_state=0, sample_weight=np.ones(len(y)),
    )
    assert set(result) == {"map", "ndcg@10"}
    assert get_scorer("map")._accept_sample_weight() is True


def test_pickle_keeps_metric_options_and_requests(data):
    X, y, qid = data
    model = _model().fit(X, y)
    scorer = make_ranking_scorer(ndcg_score, k=5, gain="linear", query_id_column="u")
    scorer.set_score_request(query_id="groups")
    copy = pickle.loads(pickle.dumps(scorer))
    assert repr(copy) == repr(scorer)
    assert copy.get_metadata_routing().score.requests == {
        "query_id": "groups", "sample_weight": None}
    assert copy(model, X, y, query_id=qid) == ndcg_score(
        y, _positive_scores(model, X), query_id=qid, k=5, gain="linear")


def test_repr():
    assert repr(get_scorer("ndcg@10")) == "make_ranking_scorer(ndcg_score, k=10)"
    assert repr(get_scorer("map")) == "make_ranking_scorer(average_precision_score)"
    assert repr(get_scorer("f1@5")) == (
        "make_ranking_scorer(fbeta_at_k_score, k=5, beta=1.0)")
    scorer = make_ranking_scorer(dcg_score, k=3, gain="linear",
                                 query_id_column="user", response_method="predict")
    text = ("make_ranking_scorer(dcg_score, k=3, gain='linear', "
            "query_id_column='user', response_method='predict')")
    assert repr(scorer) == text
    # the repr is code that rebuilds the scorer
    rebuilt = eval(text, vars(skrank))
    assert repr(rebuilt) == text


# -- names ------------------------------------------------------------------------
def test_get_scorer_names_cover_the_registry():
    names = get_scorer_names()
    assert names == sorted(names)
    for spec in METRICS.values():
        assert spec.stem in names
        assert (f"{spec.stem}@k" in names) == spec.takes_k
    for name in names:
        concrete = name.replace("@k", "@3")
        scorer = get_scorer(concrete)
        assert scorer.metric is METRICS[name.split("@")[0]].func
        assert scorer.kwargs.get("k") == (3 if "@k" in name else None)


@pytest.mark.parametrize(
    "name, func, options",
    [
        ("ndcg", ndcg_score, {}),
        ("ndcg@10", ndcg_score, {"k": 10}),
        ("dcg@5", dcg_score, {"k": 5}),
        ("map@10", average_precision_score, {"k": 10}),
        ("mrr", skrank.reciprocal_rank_score, {}),
        ("mrr@10", skrank.reciprocal_rank_score, {"k": 10}),
        ("precision@5", skrank.precision_at_k_score, {"k": 5}),
        ("recall@20", skrank.recall_at_k_score, {"k": 20}),
        ("f1@5", fbeta_at_k_score, {"k": 5, "beta": 1.0}),
        ("fap", skrank.fap_score, {}),
        ("fap@10", skrank.fap_score, {"k": 10}),
        ("r_precision", skrank.r_precision_score, {}),
        ("hit_rate@10", skrank.hit_rate_score, {"k": 10}),
        ("gauc", gauc_score, {}),
        ("ndcg@1234", ndcg_score, {"k": 1234}),
    ],
)
def test_get_scorer_names_from_the_spec(data, name, func, options):
    X, y, qid = data
    scorer = get_scorer(name)
    assert scorer.metric is func and scorer.kwargs == options
    model = Ridge().fit(X, y)
    assert scorer(model, X, y, query_id=qid) == func(
        y, model.predict(X), query_id=qid, **options)


@pytest.mark.parametrize(
    "name, match",
    [
        ("ndgc@10", "Unknown metric name 'ndgc@10'. Did you mean 'ndcg@10'"),
        ("precison@5", "Did you mean 'precision@5'"),
        ("ndcg@k", "replace k by a positive integer cutoff, such as 'ndcg@10'"),
        ("gauc@10", "takes no cutoff"),
        ("ndcg@0", "positive integer"),
    ],
)
def test_unknown_names(name, match):
    with pytest.raises(ValueError, match=match):
        get_scorer(name)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: get_scorer(10), "`name` must be a metric name"),
        (lambda: make_ranking_scorer(42), "`metric` must be a skrank metric"),
        (lambda: make_ranking_scorer(len), "has no `query_id` parameter"),
        (lambda: make_ranking_scorer(ndcg_score, k=0), "`k` must be a positive"),
        (lambda: make_ranking_scorer(ndcg_score, gain="log"), "`gain` must be one of"),
        (lambda: make_ranking_scorer(ndcg_score, beta=2), "`beta` is not a parameter"),
        (lambda: make_ranking_scorer(ndcg_score, query_id=[1]), "`query_id` cannot"),
        (lambda: make_ranking_scorer(ndcg_score, aggregate=None), "`aggregate`"),
        (lambda: make_ranking_scorer("ndcg@10", k=5), "already fixes k"),
        (lambda: make_ranking_scorer("map", query_id_column=1.5), "`query_id_column`"),
        (lambda: make_ranking_scorer("map", response_method="proba"),
         "`response_method` must be one of"),
    ],
)
def test_parameter_validation(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_custom_metric_function(data):
    X, y, qid = data

    def top1_precision(y_true, y_score, *, query_id, sample_weight=None):
        return skrank.precision_at_k_score(y_true, y_score, k=1, query_id=query_id)

    model = Ridge().fit(X, y)
    assert make_ranking_scorer(top1_precision)(model, X, y, query_id=qid) == (
        skrank.precision_at_k_score(y, model.predict(X), k=1, query_id=qid))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="a scorer needs one number"):
            make_ranking_scorer(skrank.fap_curve)(model, X, y, query_id=qid)


# -- evaluate_scores: the scorer's values of given scores (QueryScorer's protocol) --


class _GivenScores(BaseEstimator):
    """A fitted "model" whose score of a row is its first feature."""

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return np.asarray(X, dtype=np.float64)[:, 0]


def _given_scores_data():
    y = np.array([1, 0, 1, 0, 0, 1, 2, 0])
    scores = np.array([0.9, 0.8, 0.7, 0.1, 0.3, 0.2, 0.6, 0.5])
    qid = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    return y, scores, qid


@pytest.mark.parametrize("metrics", ["ndcg@3", "coverage_error",
                                     ["map", "precision@2", "label_ranking_loss"]])
def test_evaluate_scores_is_what_the_scorer_gives_a_model_with_those_scores(metrics):
    y, scores, qid = _given_scores_data()
    scorer = skrank.get_scorer(metrics)
    model = _GivenScores().fit(scores[:, None])
    called = scorer(model, scores[:, None], y, query_id=qid)
    values = scorer.evaluate_scores(y, scores, qid)
    assert values == (called if isinstance(metrics, list) else {metrics: called})


def test_evaluate_scores_by_hand():
    # query 1 in score order: 1, 0, 1, 0 -> AP (1 + 2/3) / 2; query 2: 2, 0, 1, 0
    # after sorting (0.6 > 0.5 > 0.3 > 0.2 is rows 2, 0, 0, 1) -> AP (1 + 2/4) / 2
    y, scores, qid = _given_scores_data()
    values = skrank.get_scorer(["map", "mrr"]).evaluate_scores(y, scores, qid)
    assert values["map"] == pytest.approx(((1 + 2 / 3) / 2 + (1 + 2 / 4) / 2) / 2)
    assert values["mrr"] == 1.0


def test_evaluate_scores_refuses_other_metadata_and_needs_the_ids():
    y, scores, qid = _given_scores_data()
    scorer = skrank.get_scorer("map")
    with pytest.raises(TypeError, match="unexpected metadata"):
        scorer.evaluate_scores(y, scores, qid, position=[1] * 8)
    with pytest.raises(ValueError, match="needs the query id of every row"):
        scorer.evaluate_scores(y, scores, None)


def test_a_scorer_says_which_metadata_it_reads():
    from skrank.clicks import get_scorer as get_click_scorer

    assert skrank.get_scorer("map").metadata == ("query_id",)
    assert skrank.get_scorer(["map", "mrr"]).metadata == ("query_id",)
    assert "position" in get_click_scorer("dcg@3", propensity=0.5).metadata


def test_a_query_scorer_without_evaluate_scores_says_so():
    from skrank.model_selection._query_ids import QueryScorer

    class Bare(QueryScorer):
        pass

    with pytest.raises(NotImplementedError, match="Bare does not define"):
        Bare().evaluate_scores([1], [1.0], [0])


def test_the_click_scorer_evaluates_given_scores():
    from skrank.clicks import get_scorer as get_click_scorer

    clicks = [0, 1, 0, 1, 0, 0]
    position = [1, 2, 3, 1, 2, 3]
    lists = [1, 1, 1, 2, 2, 2]
    scores = [0.1, 0.9, 0.5, 0.3, 0.2, 0.1]
    scorer = get_click_scorer(["dcg@2", "arp"], propensity=lambda k: 1 / k)
    # the lists are passed positionally (the click scorer's own name for them)
    got = scorer.evaluate_scores(clicks, scores, lists, position=position)
    # by hand: list 1 puts its click (shown 2nd: weight 2) first, list 2 its
    # click (shown 1st: weight 1) first; arp, lower is better, comes negated
    assert got["dcg@2"] == pytest.approx((2 / 1 + 1 / 1) / 2)
    assert got["arp"] < 0
