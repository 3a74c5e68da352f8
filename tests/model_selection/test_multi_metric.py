"""Multi-metric scorers: one predict and one sort per fold, the single scorers' numbers."""

import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    RandomizedSearchCV,
    cross_validate,
)
from sklearn.pipeline import make_pipeline

import skrank
from skrank.metrics import _evaluate

FIVE = ["ndcg@10", "map", "gauc", "precision@3", "fap@5"]


class CountingRegressor(LinearRegression):
    """A LinearRegression that counts its predict calls (class-wide, clones too)."""

    calls = 0

    def predict(self, X):
        type(self).calls += 1
        return super().predict(X)


def _data(n_queries=24, per_query=8, seed=0, shuffle=True):
    rng = np.random.default_rng(seed)
    n = n_queries * per_query
    qid = np.repeat([f"q{i}" for i in range(n_queries)], per_query)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0.3).astype(int)
    if shuffle:
        order = rng.permutation(n)
        X, y, qid = X[order], y[order], qid[order]
    return X, y, qid


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _by_hand(estimator, X, y, qid, cv):
    """Each fold's five metrics computed directly with the metric functions."""
    folds = []
    for train, test in cv.split(X, y, groups=qid):
        model = LinearRegression().fit(X[train], y[train])
        s = model.predict(X[test])
        folds.append({
            "ndcg@10": skrank.ndcg_score(y[test], s, query_id=qid[test], k=10),
            "map": skrank.average_precision_score(y[test], s, query_id=qid[test]),
            "gauc": skrank.gauc_score(y[test], s, query_id=qid[test]),
            "precision@3": skrank.precision_at_k_score(
                y[test], s, query_id=qid[test], k=3),
            "fap@5": skrank.fap_score(y[test], s, query_id=qid[test], k=5),
        })
    return folds


def test_cross_validate_predicts_once_per_fold(routing):
    X, y, qid = _data()
    CountingRegressor.calls = 0
    result = cross_validate(
        CountingRegressor(), X, y, cv=GroupKFold(4),
        scoring=skrank.get_scorer(FIVE), params={"query_id": qid, "groups": qid},
    )
    assert CountingRegressor.calls == 4
    expected = _by_hand(LinearRegression(), X, y, qid, GroupKFold(4))
    for name in FIVE:
        np.testing.assert_allclose(
            result[f"test_{name}"], [fold[name] for fold in expected], rtol=1e-12
        )


def test_dict_of_single_scorers_predicts_once_per_metric(routing):
    # the old way still works, at one predict per metric and fold
    X, y, qid = _data()
    CountingRegressor.calls = 0
    single = {name: skrank.get_scorer(name) for name in FIVE}
    result = cross_validate(
        CountingRegressor(), X, y, cv=GroupKFold(4), scoring=single,
        params={"query_id": qid, "groups": qid},
    )
    assert CountingRegressor.calls == 4 * len(FIVE)
    multi = cross_validate(
        LinearRegression(), X, y, cv=GroupKFold(4), scoring=skrank.get_scorer(FIVE),
        params={"query_id": qid, "groups": qid},
    )
    for name in FIVE:
        np.testing.assert_array_equal(multi[f"test_{name}"], result[f"test_{name}"])


def test_one_sort_per_fold(routing, monkeypatch):
    calls = []
    original = _evaluate.rank_queries

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_evaluate, "rank_queries", counting)
    X, y, qid = _data()
    cross_validate(
        LinearRegression(), X, y, cv=GroupKFold(4), scoring=skrank.get_scorer(FIVE),
        params={"query_id": qid, "groups": qid},
    )
    assert len(calls) == 4


def test_qid_column_without_routing():
    X, y, qid = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=qid)
    model = make_pipeline(
        ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"),
        LinearRegression(),
    )
    result = cross_validate(
        model, frame, y, cv=GroupKFold(4), groups=qid,
        scoring=skrank.get_scorer(FIVE),
    )
    expected = _by_hand(LinearRegression(), X, y, qid, GroupKFold(4))
    for name in FIVE:
        np.testing.assert_allclose(
            result[f"test_{name}"], [fold[name] for fold in expected], rtol=1e-12
        )


def test_missing_query_ids_error_is_the_single_scorers():
    X, y, _ = _data()
    model = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="needs the query id of every row"):
        skrank.get_scorer(["map", "mrr"])(model, X, y)


@pytest.mark.parametrize("search", ["grid", "random"])
def test_search_with_refit(routing, search):
    X, y, qid = _data(seed=3)
    scorer = skrank.get_scorer(["ndcg@10", "map", "gauc"])
    model = LogisticRegression()
    grid = {"C": [0.001, 0.1, 10.0]}
    if search == "grid":
        cv = GridSearchCV(model, grid, cv=GroupKFold(3), scoring=scorer,
                          refit="ndcg@10")
    else:
        cv = RandomizedSearchCV(model, grid, n_iter=3, cv=GroupKFold(3),
                                scoring=scorer, refit="ndcg@10", random_state=0)
    cv.fit(X, y, query_id=qid, groups=qid)
    means = cv.cv_results_["mean_test_ndcg@10"]
    assert cv.best_index_ == int(np.argmax(means))
    assert set(cv.cv_results_) >= {"mean_test_map", "mean_test_gauc"}
    # the refitted model is scored like the single scorer would score it
    best = cv.best_estimator_
    s = best.predict_proba(X)[:, 1]
    assert cv.score(X, y, query_id=qid) == pytest.approx(
        skrank.ndcg_score(y, s, query_id=qid, k=10), rel=1e-12)


def test_per_metric_options_and_shared_options():
    X, y, qid = _data(seed=4)
    y = y * np.random.default_rng(0).integers(1, 4, size=y.shape)  # graded
    model = LinearRegression().fit(X, y)
    s = model.predict(X)
    scorer = skrank.make_ranking_scorer({
        "ndcg_linear@5": skrank.make_ranking_scorer("ndcg@5", gain="linear"),
        "ndcg@5": "ndcg@5",
        "map_min": skrank.make_ranking_scorer("map", normalize="min"),
        "rbp": skrank.make_ranking_scorer("rbp", p=0.9, gain="linear"),
    })
    result = scorer(model, X, y, query_id=qid)
    assert result == {
        "ndcg_linear@5": skrank.ndcg_score(y, s, query_id=qid, k=5, gain="linear"),
        "ndcg@5": skrank.ndcg_score(y, s, query_id=qid, k=5),
        "map_min": skrank.average_precision_score(y, s, query_id=qid, normalize="min"),
        "rbp": skrank.rbp_score(y, s, query_id=qid, p=0.9, gain="linear"),
    }
    spread = skrank.make_ranking_scorer(["ndcg@5", "dcg", "map"], gain="linear")
    assert spread(model, X, y, query_id=qid) == {
        "ndcg@5": skrank.ndcg_score(y, s, query_id=qid, k=5, gain="linear"),
        "dcg": skrank.dcg_score(y, s, query_id=qid, gain="linear"),
        "map": skrank.average_precision_score(y, s, query_id=qid),
    }


@pytest.mark.filterwarnings("error::UserWarning")  # no 0/1-scores warning for set_f1
def test_set_metric_uses_predict_and_custom_functions_are_called():
    X, y, qid = _data(seed=5)
    model = LogisticRegression().fit(X, y)

    def top_score(y_true, y_score, *, query_id, sample_weight=None):
        return float(np.max(y_score))

    scorer = skrank.make_ranking_scorer({
        "map": "map", "set_f1": "set_f1", "top_score": top_score,
        "gauc": skrank.make_ranking_scorer("gauc", weighting="uniform"),
    })
    result = scorer(model, X, y, query_id=qid)
    proba = model.predict_proba(X)[:, 1]
    assert result == {
        "map": skrank.average_precision_score(y, proba, query_id=qid),
        "gauc": skrank.gauc_score(y, proba, query_id=qid, weighting="uniform"),
        "set_f1": skrank.set_fbeta_score(y, model.predict(X), query_id=qid),
        "top_score": float(proba.max()),
    }


def test_sample_weight_is_routed_to_every_metric(routing):
    X, y, qid = _data(seed=6)
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    scorer = skrank.get_scorer(["ndcg@5", "mrr"]).set_score_request(sample_weight=True)
    result = cross_validate(
        LinearRegression().set_fit_request(sample_weight=False), X, y,
        cv=GroupKFold(3), scoring=scorer,
        params={"query_id": qid, "groups": qid, "sample_weight": w},
    )
    for i, (train, test) in enumerate(GroupKFold(3).split(X, y, groups=qid)):
        s = LinearRegression().fit(X[train], y[train]).predict(X[test])
        assert result["test_mrr"][i] == pytest.approx(skrank.reciprocal_rank_score(
            y[test], s, query_id=qid[test], sample_weight=w[test]), rel=1e-12)


def test_pickles_and_runs_with_two_jobs(routing):
    X, y, qid = _data(seed=7)
    scorer = pickle.loads(pickle.dumps(skrank.get_scorer(["ndcg@10", "map"])))
    parallel = cross_validate(
        LinearRegression(), X, y, cv=GroupKFold(4), scoring=scorer, n_jobs=2,
        params={"query_id": qid, "groups": qid},
    )
    serial = cross_validate(
        LinearRegression(), X, y, cv=GroupKFold(4), scoring=scorer,
        params={"query_id": qid, "groups": qid},
    )
    np.testing.assert_array_equal(parallel["test_map"], serial["test_map"])


@pytest.mark.parametrize("metrics, match", [
    ([], "empty"),
    (["map", "map"], "given twice"),
    ("not-a-list-of-names", "Unknown metric name"),
    ({1: "map"}, "keys of a dict"),
    (["map", "p@10"], "precision@10"),
])
def test_bad_metric_lists(metrics, match):
    with pytest.raises(ValueError, match=match):
        skrank.make_ranking_scorer(metrics) if not isinstance(metrics, str) else (
            skrank.get_scorer(metrics))


def test_unused_option_is_an_error():
    with pytest.raises(ValueError, match="takes the option 'gain'"):
        skrank.make_ranking_scorer(["map", "mrr"], gain="linear")


def test_requests_and_repr():
    scorer = skrank.get_scorer(["ndcg@10", "map"])
    assert repr(scorer) == "get_scorer(['ndcg@10', 'map'])"
    assert scorer.get_metadata_routing().score.requests == {
        "query_id": True, "sample_weight": None}
    scorer.set_score_request(query_id="groups")
    assert scorer.get_metadata_routing().score.requests["query_id"] == "groups"
    assert list(scorer.scorers) == ["ndcg@10", "map"]
