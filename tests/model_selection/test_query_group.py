"""QueryGroupRanker against hand-made fits of the bare LightGBM, XGBoost, CatBoost.

The references below sort rows with ``numpy.argsort(kind="stable")`` on the
query ids themselves (strings sort lexicographically), count group sizes
with ``numpy.unique``, fit the bare library, and score each query with
scikit-learn's ``ndcg_score``: nothing of skrank's sorting, factorisation
or metrics is used to make an expected value.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LinearRegression
from sklearn.metrics import ndcg_score as sklearn_ndcg
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    GroupShuffleSplit,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import skrank
from skrank import QueryGroupRanker, get_scorer

from .._needs import needs

lightgbm = needs("lightgbm")
xgboost = needs("xgboost")

K = 10


# -- references, written to be obvious ------------------------------------------
def per_query_ndcg(y, score, qid, k=K):
    """Mean over queries with a relevant row of scikit-learn's nDCG@k."""
    values = []
    for q in pd.unique(qid):
        rows = qid == q
        if y[rows].sum() == 0:
            continue
        values.append(sklearn_ndcg([y[rows]], [score[rows]], k=k))
    return float(np.mean(values))


def sorted_by_query(qid):
    """Row order grouped by query (ids ascending, stable), codes and group sizes."""
    order = np.argsort(qid, kind="stable")
    _, codes, sizes = np.unique(qid[order], return_inverse=True, return_counts=True)
    return order, codes, sizes


def bare_fit(estimator, X, y, qid, **fit_params):
    """Fit the bare library's ranker on the rows sorted by query."""
    order, codes, sizes = sorted_by_query(np.asarray(qid))
    Xs = X.iloc[order] if hasattr(X, "iloc") else X[order]
    model = clone(estimator)
    if isinstance(model, lightgbm.LGBMRanker):
        return model.fit(Xs, y[order], group=sizes, **fit_params)
    if isinstance(model, xgboost.XGBRanker):
        return model.fit(Xs, y[order], qid=codes, **fit_params)
    return model.fit(Xs, y[order], group_id=codes, **fit_params)


def reference_fold_scores(estimator, X, y, qid, folds):
    scores = []
    for train, test in folds:
        model = bare_fit(estimator, take(X, train), y[train], qid[train])
        scores.append(per_query_ndcg(y[test], model.predict(take(X, test)), qid[test]))
    return np.array(scores)


def take(X, rows):
    return X.iloc[rows] if hasattr(X, "iloc") else X[rows]


RANKERS = {
    "lightgbm": lambda: lightgbm.LGBMRanker(n_estimators=8, num_leaves=7, n_jobs=1,
                                           verbose=-1),
    "xgboost": lambda: xgboost.XGBRanker(n_estimators=8, max_depth=3, n_jobs=1),
}


@pytest.fixture(scope="module")
def shuffled():
    """Rows in random order, string query ids."""
    data = skrank.load_digits_retrieval(n_queries=45, n_candidates=12, random_state=3)
    rng = np.random.default_rng(7)
    order = rng.permutation(len(data.target))
    X = data.data[order]
    y = data.target[order]
    qid = np.array([f"user-{q % 7}-{q}" for q in data.query_id[order]])
    return X, y, qid


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def frame(X, qid):
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(3, "qid", qid)  # not the first column: dropped by name
    return df


# -- every fold equals a hand-made fit of the bare ranker --------------------------
@pytest.mark.parametrize("library", sorted(RANKERS))
def test_cross_validate_with_routing_equals_bare_fits(shuffled, routing, library):
    X, y, qid = shuffled
    estimator = RANKERS[library]()
    cv = GroupKFold(3)
    result = cross_validate(
        QueryGroupRanker(estimator), X, y, cv=cv, scoring=get_scorer("ndcg@10"),
        params={"query_id": qid, "groups": qid}, error_score="raise",
    )
    expected = reference_fold_scores(estimator, X, y, qid, cv.split(X, y, qid))
    np.testing.assert_allclose(result["test_score"], expected, rtol=1e-12)


@pytest.mark.parametrize("library", sorted(RANKERS))
def test_cross_validate_without_routing_reads_the_qid_column(shuffled, library):
    X, y, qid = shuffled
    df = frame(X, qid)
    estimator = RANKERS[library]()
    cv = GroupKFold(3)
    assert not sklearn.get_config()["enable_metadata_routing"]
    result = cross_validate(
        QueryGroupRanker(estimator), df, y, groups=qid, cv=cv,
        scoring=get_scorer("ndcg@10"), error_score="raise",
    )
    features = df.drop(columns="qid")
    expected = reference_fold_scores(estimator, features, y, qid, cv.split(X, y, qid))
    np.testing.assert_allclose(result["test_score"], expected, rtol=1e-12)


@pytest.mark.parametrize("library", sorted(RANKERS))
@pytest.mark.parametrize("routed", [True, False], ids=["routing", "column"])
def test_grid_search_every_split_equals_bare_fits(shuffled, library, routed):
    X, y, qid = shuffled
    estimator = RANKERS[library]()
    name = "num_leaves" if library == "lightgbm" else "max_depth"
    values = [3, 5]
    cv = GroupKFold(3)
    scoring = {"ndcg@10": get_scorer("ndcg@10"), "map": get_scorer("map")}
    search = GridSearchCV(
        QueryGroupRanker(estimator), {f"estimator__{name}": values}, cv=cv,
        scoring=scoring, refit="ndcg@10", error_score="raise",
    )
    if routed:
        with sklearn.config_context(enable_metadata_routing=True):
            search.fit(X, y, query_id=qid, groups=qid)
        data = X
    else:
        data = frame(X, qid)
        search.fit(data, y, groups=qid)
        data = data.drop(columns="qid")
    for i, value in enumerate(values):
        assert search.cv_results_["params"][i] == {f"estimator__{name}": value}
        expected = reference_fold_scores(
            clone(estimator).set_params(**{name: value}), data, y, qid,
            cv.split(X, y, qid),
        )
        got = [search.cv_results_[f"split{s}_test_ndcg@10"][i] for s in range(3)]
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    best = search.best_params_[f"estimator__{name}"]
    assert search.best_estimator_.estimator_.get_params()[name] == best


def test_multi_metric_search_refits_on_ndcg_with_query_ids_routed(shuffled, routing):
    X, y, qid = shuffled
    search = GridSearchCV(
        QueryGroupRanker(RANKERS["lightgbm"](), validation_fraction=0.25,
                         early_stopping_rounds=3, eval_metric="ndcg@10",
                         random_state=0),
        {"estimator__learning_rate": [0.05, 0.3]}, cv=GroupKFold(3),
        scoring=get_scorer(["ndcg@10", "map", "fap@10"]), refit="ndcg@10",
        error_score="raise",
    ).fit(X, y, query_id=qid, groups=qid)
    assert set(search.cv_results_) >= {"mean_test_ndcg@10", "mean_test_map",
                                        "mean_test_fap@10"}
    best = int(np.argmax(search.cv_results_["mean_test_ndcg@10"]))
    assert search.best_index_ == best
    assert np.isfinite(search.score(X, y, query_id=qid))


def test_n_jobs_2_gives_the_same_scores(shuffled, routing):
    X, y, qid = shuffled
    kwargs = dict(cv=GroupKFold(3), scoring=get_scorer("ndcg@10"),
                  params={"query_id": qid, "groups": qid}, error_score="raise")
    one = cross_validate(QueryGroupRanker(RANKERS["xgboost"]()), X, y, **kwargs)
    two = cross_validate(QueryGroupRanker(RANKERS["xgboost"]()), X, y, n_jobs=2,
                         **kwargs)
    np.testing.assert_array_equal(one["test_score"], two["test_score"])


# -- the wrapper as an estimator ------------------------------------------------
@pytest.mark.parametrize("library", sorted(RANKERS))
def test_fit_equals_bare_fit_and_predict_keeps_the_callers_order(shuffled, library):
    X, y, qid = shuffled
    estimator = RANKERS[library]()
    ranker = QueryGroupRanker(estimator).fit(X, y, query_id=qid)
    expected = bare_fit(estimator, X, y, qid).predict(X)
    np.testing.assert_array_equal(ranker.predict(X), expected)
    assert ranker.library_ == library
    assert ranker.n_features_in_ == X.shape[1]


def test_fit_is_the_same_whatever_the_order_of_the_queries(shuffled):
    X, y, qid = shuffled
    # move whole queries around; rows inside a query keep their order
    rng = np.random.default_rng(0)
    labels = np.unique(qid)
    position = dict(zip(labels, rng.permutation(len(labels))))
    order = np.argsort([position[q] for q in qid], kind="stable")
    first = QueryGroupRanker(RANKERS["lightgbm"]()).fit(X, y, query_id=qid)
    second = QueryGroupRanker(RANKERS["lightgbm"]()).fit(
        X[order], y[order], query_id=qid[order]
    )
    np.testing.assert_array_equal(first.predict(X), second.predict(X))


def test_integer_and_categorical_ids_sort_by_value_and_category_order(shuffled):
    X, y, qid = shuffled
    codes = np.unique(qid, return_inverse=True)[1] * 10 - 200  # negative ints too
    by_int = QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=codes)
    by_str = QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=qid)
    categorical = pd.Categorical(qid, categories=np.unique(qid))
    by_cat = QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=categorical)
    np.testing.assert_array_equal(by_int.predict(X), by_str.predict(X))
    np.testing.assert_array_equal(by_cat.predict(X), by_str.predict(X))


def test_column_is_dropped_in_fit_and_predict(shuffled):
    X, y, qid = shuffled
    df = frame(X, qid)
    ranker = QueryGroupRanker(RANKERS["lightgbm"]()).fit(df, y)
    assert "qid" not in list(ranker.feature_names_in_)
    assert ranker.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(
        ranker.predict(df), ranker.predict(df.drop(columns="qid"))
    )
    # an explicit query_id wins over the column (which is dropped all the same)
    other = QueryGroupRanker(RANKERS["lightgbm"]()).fit(df, y, query_id=qid)
    np.testing.assert_array_equal(other.predict(df), ranker.predict(df))


def test_polars_frame_column(shuffled):
    pl = needs("polars")
    X, y, qid = shuffled
    df = pl.from_pandas(frame(X, qid))
    ranker = QueryGroupRanker(RANKERS["xgboost"]()).fit(df, y)
    expected = QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=qid)
    np.testing.assert_allclose(ranker.predict(df), expected.predict(X), rtol=1e-6)


def test_clone_pickle_and_nested_params(shuffled):
    X, y, qid = shuffled
    ranker = QueryGroupRanker(RANKERS["lightgbm"](), validation_fraction=0.2)
    ranker.set_params(estimator__num_leaves=4)
    assert clone(ranker).get_params()["estimator__num_leaves"] == 4
    fitted = ranker.fit(X, y, query_id=qid)
    assert fitted.estimator_.get_params()["num_leaves"] == 4
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.predict(X), fitted.predict(X))


def test_in_a_pipeline_with_and_without_routing(shuffled):
    X, y, qid = shuffled
    expected = bare_fit(
        RANKERS["lightgbm"](), StandardScaler().fit_transform(X), y, qid
    ).predict(StandardScaler().fit_transform(X))
    pipe = make_pipeline(StandardScaler(), QueryGroupRanker(RANKERS["lightgbm"]()))
    pipe.fit(X, y, querygroupranker__query_id=qid)
    np.testing.assert_allclose(pipe.predict(X), expected, rtol=1e-12)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(StandardScaler(), QueryGroupRanker(RANKERS["lightgbm"]()))
        pipe.fit(X, y, query_id=qid)
        np.testing.assert_allclose(pipe.predict(X), expected, rtol=1e-12)


def test_other_fit_params_reach_the_estimator(shuffled, routing):
    X, y, qid = shuffled
    seen = []
    estimator = RANKERS["lightgbm"]().set_fit_request(callbacks=True)
    QueryGroupRanker(estimator).fit(
        X, y, query_id=qid, callbacks=[lambda env: seen.append(env.iteration)]
    )
    assert seen == list(range(8))


def test_other_fit_params_without_routing(shuffled):
    X, y, qid = shuffled
    ranker = QueryGroupRanker(RANKERS["lightgbm"]())
    ranker.fit(X, y, query_id=qid, feature_name=[f"x{i}" for i in range(X.shape[1])])
    assert ranker.estimator_.booster_.feature_name()[0] == "x0"


def test_score_is_per_query_ndcg(shuffled):
    X, y, qid = shuffled
    ranker = QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=qid)
    expected = per_query_ndcg(y, ranker.predict(X), qid, k=None)
    assert ranker.score(X, y, query_id=qid) == pytest.approx(expected, rel=1e-12)
    assert ranker.score(frame(X, qid), y) == pytest.approx(expected, rel=1e-12)


def test_default_routing_requests_query_id_for_fit_and_score():
    routing = QueryGroupRanker(RANKERS["lightgbm"]()).get_metadata_routing()
    assert routing.consumes("fit", ["query_id"]) == {"query_id"}
    assert routing.consumes("score", ["query_id"]) == {"query_id"}


# -- sample weights -------------------------------------------------------------------
def test_lightgbm_takes_row_weights_sorted_with_the_rows(shuffled):
    X, y, qid = shuffled
    weight = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    ranker = QueryGroupRanker(RANKERS["lightgbm"]()).fit(
        X, y, query_id=qid, sample_weight=weight
    )
    order, _, _ = sorted_by_query(qid)
    expected = bare_fit(RANKERS["lightgbm"](), X, y, qid, sample_weight=weight[order])
    np.testing.assert_array_equal(ranker.predict(X), expected.predict(X))


def test_xgboost_takes_one_weight_per_query(shuffled):
    X, y, qid = shuffled
    labels = np.unique(qid)
    per_query = np.linspace(0.5, 2.0, len(labels))
    weight = per_query[np.searchsorted(labels, qid)]
    ranker = QueryGroupRanker(RANKERS["xgboost"]()).fit(
        X, y, query_id=qid, sample_weight=weight
    )
    expected = bare_fit(RANKERS["xgboost"](), X, y, qid, sample_weight=per_query)
    np.testing.assert_array_equal(ranker.predict(X), expected.predict(X))
    unweighted = QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=qid)
    assert not np.array_equal(unweighted.predict(X), ranker.predict(X))


def test_weights_differing_inside_a_query_raise_for_xgboost(shuffled):
    X, y, qid = shuffled
    weight = np.ones(len(y))
    weight[5] = 2.0
    with pytest.raises(ValueError, match="differs between rows of one query.*xgboost"):
        QueryGroupRanker(RANKERS["xgboost"]()).fit(X, y, query_id=qid,
                                                   sample_weight=weight)


# -- clear errors ---------------------------------------------------------------------
def test_missing_query_ids_say_what_to_do(shuffled):
    X, y, _ = shuffled
    with pytest.raises(ValueError, match="needs the query id.*query_id=qid"):
        QueryGroupRanker(RANKERS["lightgbm"]()).fit(X, y)
    with pytest.raises(ValueError, match="X has no column 'qid'"):
        QueryGroupRanker(RANKERS["lightgbm"]()).fit(frame(X, 0).drop(columns="qid"), y)


def test_missing_query_ids_in_a_search_with_routing(shuffled, routing):
    X, y, qid = shuffled
    search = GridSearchCV(
        QueryGroupRanker(RANKERS["lightgbm"]()), {"estimator__num_leaves": [3]},
        cv=GroupKFold(2), scoring=get_scorer("ndcg@10"), error_score="raise",
    )
    with pytest.raises(ValueError, match="routing is on, but no `query_id`"):
        search.fit(X, y, groups=qid)


def test_estimator_without_group_information_is_refused(shuffled):
    X, y, qid = shuffled
    with pytest.raises(ValueError, match="no `group`, `qid` or `group_id`"):
        QueryGroupRanker(LinearRegression()).fit(X, y, query_id=qid)


@pytest.mark.parametrize("params, match", [
    ({"library": "sklearn"}, "`library` must be one of"),
    ({"validation_fraction": 1.5},
     r"`validation_fraction` must be a number in \(0, 1\)"),
    ({"early_stopping_rounds": 5}, "set validation_fraction"),
    ({"eval_metric": "ndcg@10"}, "set validation_fraction"),
    ({"eval_metric": ["ndcgg"], "validation_fraction": 0.2}, "ndcg"),
    ({"eval_metric": 3, "validation_fraction": 0.2}, "`eval_metric` must be"),
    ({"early_stopping_rounds": 0, "validation_fraction": 0.2},
     "`early_stopping_rounds` must be a positive integer"),
    ({"query_id_column": 1.5}, "`query_id_column` must be"),
])
def test_invalid_parameters(shuffled, params, match):
    X, y, qid = shuffled
    with pytest.raises(ValueError, match=match):
        QueryGroupRanker(RANKERS["lightgbm"](), **params).fit(X, y, query_id=qid)


def test_group_arguments_made_by_the_wrapper_are_refused(shuffled):
    X, y, qid = shuffled
    with pytest.raises(ValueError, match="Do not pass `group`"):
        QueryGroupRanker(RANKERS["lightgbm"]()).fit(X, y, query_id=qid, group=[len(y)])


# -- early stopping on held-out queries, skrank metrics as eval metrics -------------
def held_out_split(X, y, qid, fraction, seed):
    return next(GroupShuffleSplit(1, test_size=fraction, random_state=seed).split(
        X, y, qid))


def test_lightgbm_early_stopping_on_held_out_queries_with_a_skrank_metric(shuffled):
    X, y, qid = shuffled
    estimator = lightgbm.LGBMRanker(n_estimators=40, num_leaves=7, learning_rate=0.3,
                                    n_jobs=1, verbose=-1)
    ranker = QueryGroupRanker(estimator, validation_fraction=0.3,
                              early_stopping_rounds=3, eval_metric="ndcg@10",
                              random_state=4).fit(X, y, query_id=qid)
    # by hand: the same held-out queries, sorted, nDCG@10 by scikit-learn
    train, held = held_out_split(X, y, qid, 0.3, 4)
    assert not set(qid[train]) & set(qid[held])
    order, _, sizes = sorted_by_query(qid[held])
    held_qid = qid[held][order]

    def metric(y_true, y_pred, weight, group):
        return "ndcg10", per_query_ndcg(y_true, y_pred, held_qid), True

    import inspect

    if "eval_X" in inspect.signature(estimator.fit).parameters:  # LightGBM >= 4.7
        held_data = {"eval_X": (X[held][order],), "eval_y": (y[held][order],)}
    else:
        held_data = {"eval_set": [(X[held][order], y[held][order])]}
    model = bare_fit(
        clone(estimator).set_params(metric="None"), X[train], y[train], qid[train],
        **held_data, eval_group=[sizes],
        eval_metric=metric,
        callbacks=[lightgbm.early_stopping(3, first_metric_only=True, verbose=False)],
    )
    assert ranker.best_iteration_ == model.best_iteration_ < 40
    np.testing.assert_array_equal(ranker.predict(X), model.predict(X))
    got = ranker.estimator_.evals_result_["valid_0"]["ndcg@10"]
    np.testing.assert_allclose(got, model.evals_result_["valid_0"]["ndcg10"],
                               rtol=1e-12)


def test_xgboost_skrank_metric_per_round_and_early_stopping(shuffled):
    X, y, qid = shuffled
    estimator = xgboost.XGBRanker(n_estimators=30, max_depth=3, learning_rate=0.5,
                                  n_jobs=1)
    ranker = QueryGroupRanker(estimator, validation_fraction=0.3,
                              early_stopping_rounds=4,
                              eval_metric=["fap@10", "ndcg@10"],
                              random_state=2).fit(X, y, query_id=qid)
    train, held = held_out_split(X, y, qid, 0.3, 2)
    model = bare_fit(estimator, X[train], y[train], qid[train])
    log = ranker.estimator_.evals_result()["skrank"]["ndcg@10"]
    n_rounds = len(log)
    for i in range(n_rounds):  # the same trees: the bare fit without stopping
        score = model.predict(X[held], iteration_range=(0, i + 1))
        assert log[i] == pytest.approx(per_query_ndcg(y[held], score, qid[held]),
                                       rel=1e-9)
    fap = ranker.estimator_.evals_result()["skrank"]["fap@10"]
    best = int(np.argmax(fap))  # first best
    assert ranker.best_iteration_ == best
    assert n_rounds == min(30, best + 5)
    np.testing.assert_allclose(
        ranker.predict(X), model.predict(X, iteration_range=(0, best + 1)), rtol=1e-6
    )
    # the callback is gone after fit: the fitted wrapper pickles
    assert ranker.estimator_.get_params()["callbacks"] is None
    again = pickle.loads(pickle.dumps(ranker))
    np.testing.assert_array_equal(again.predict(X), ranker.predict(X))


def test_xgboost_early_stopping_on_its_own_metric(shuffled):
    X, y, qid = shuffled
    estimator = xgboost.XGBRanker(n_estimators=30, max_depth=3, learning_rate=0.5,
                                  n_jobs=1)
    ranker = QueryGroupRanker(estimator, validation_fraction=0.3,
                              early_stopping_rounds=3, random_state=2)
    ranker.fit(X, y, query_id=qid)
    assert ranker.best_iteration_ is not None
    assert ranker.estimator_.get_params()["early_stopping_rounds"] is None
    assert "validation_0" in ranker.estimator_.evals_result()


def test_xgboost_refuses_two_stopping_rules(shuffled):
    X, y, qid = shuffled
    estimator = xgboost.XGBRanker(n_estimators=5, early_stopping_rounds=2)
    with pytest.raises(ValueError, match="not on the XGBRanker"):
        QueryGroupRanker(estimator, validation_fraction=0.3, eval_metric="map",
                         random_state=0).fit(X, y, query_id=qid)


# -- CatBoost ------------------------------------------------------------------
def test_catboost_fold_equals_bare_fit_and_early_stops_on_a_skrank_metric(shuffled):
    catboost = needs("catboost")
    X, y, qid = shuffled
    estimator = catboost.CatBoostRanker(iterations=15, depth=3, verbose=0,
                                        thread_count=1, random_seed=0,
                                        allow_writing_files=False)
    ranker = QueryGroupRanker(estimator).fit(X, y, query_id=qid)
    assert ranker.library_ == "catboost"
    np.testing.assert_array_equal(
        ranker.predict(X), bare_fit(estimator, X, y, qid).predict(X)
    )
    stopped = QueryGroupRanker(
        clone(estimator).set_params(iterations=60, learning_rate=0.5),
        validation_fraction=0.3, early_stopping_rounds=3, eval_metric="ndcg@10",
        random_state=1,
    ).fit(X, y, query_id=qid)
    history = stopped.estimator_.get_evals_result()["validation"]
    (values,) = [v for name, v in history.items() if name != "PFound"][:1] or [None]
    train, held = held_out_split(X, y, qid, 0.3, 1)
    best = stopped.best_iteration_
    assert best is not None and best < 60
    # the logged value of the best round is scikit-learn's nDCG@10 of the held-out
    # queries under the trees so far
    score = stopped.estimator_.predict(X[held], ntree_end=best + 1)
    assert values[best] == pytest.approx(per_query_ndcg(y[held], score, qid[held]),
                                         rel=1e-9)
    again = pickle.loads(pickle.dumps(stopped))
    np.testing.assert_array_equal(again.predict(X), stopped.predict(X))
    weight = np.where(np.unique(qid, return_inverse=True)[1] % 2, 1.0, 2.0)
    QueryGroupRanker(estimator).fit(X, y, query_id=qid, sample_weight=weight)
    weight[0] = 3.0
    with pytest.raises(ValueError, match="differs between rows of one query"):
        QueryGroupRanker(estimator).fit(X, y, query_id=qid, sample_weight=weight)


def test_sample_weight_routed_when_requested(shuffled, routing):
    X, y, qid = shuffled
    weight = np.random.default_rng(2).uniform(0.5, 2.0, size=len(y))
    ranker = QueryGroupRanker(RANKERS["lightgbm"]()).set_fit_request(sample_weight=True)
    cv = GroupKFold(3)
    result = cross_validate(
        ranker, X, y, cv=cv, error_score="raise",
        scoring=get_scorer("ndcg@10").set_score_request(sample_weight=False),
        params={"query_id": qid, "groups": qid, "sample_weight": weight},
    )
    expected = []
    for train, test in cv.split(X, y, qid):
        order, _, _ = sorted_by_query(qid[train])
        model = bare_fit(RANKERS["lightgbm"](), X[train], y[train], qid[train],
                         sample_weight=weight[train][order])
        expected.append(per_query_ndcg(y[test], model.predict(X[test]), qid[test]))
    np.testing.assert_allclose(result["test_score"], expected, rtol=1e-12)


def test_search_without_scoring_uses_the_wrappers_per_query_score(shuffled, routing):
    X, y, qid = shuffled
    cv = GroupKFold(3)
    search = GridSearchCV(QueryGroupRanker(RANKERS["xgboost"]()),
                          {"estimator__max_depth": [3]}, cv=cv, error_score="raise")
    search.fit(X, y, query_id=qid, groups=qid)
    expected = []
    for train, test in cv.split(X, y, qid):
        model = bare_fit(RANKERS["xgboost"](), X[train], y[train], qid[train])
        expected.append(per_query_ndcg(y[test], model.predict(X[test]), qid[test],
                                       k=None))
    got = [search.cv_results_[f"split{i}_test_score"][0] for i in range(3)]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


class RecordsFit(BaseEstimator):
    """Takes LightGBM's and XGBoost's group arguments; remembers what it got."""

    def fit(self, X, y, group=None, qid=None):
        self.X_, self.y_, self.group_, self.qid_ = X, y, group, qid
        return self

    def predict(self, X):
        return X[:, 0]


def test_detection_from_fit_parameters_and_the_library_override():
    X = np.arange(7.0)[:, None]
    y = np.array([0, 1, 0, 1, 1, 0, 0])
    qid = np.array(["b", "a", "b", "c", "a", "b", "a"])
    # by hand: a = rows 1, 4, 6; b = rows 0, 2, 5; c = row 3
    rows = [1, 4, 6, 0, 2, 5, 3]
    auto = QueryGroupRanker(RecordsFit()).fit(X, y, query_id=qid)
    assert auto.library_ == "xgboost"  # ``qid`` is looked for before ``group``
    np.testing.assert_array_equal(auto.estimator_.X_[:, 0], rows)
    np.testing.assert_array_equal(auto.estimator_.y_, y[rows])
    np.testing.assert_array_equal(auto.estimator_.qid_, [0, 0, 0, 1, 1, 1, 2])
    assert auto.estimator_.group_ is None
    forced = QueryGroupRanker(RecordsFit(), library="lightgbm").fit(X, y, query_id=qid)
    np.testing.assert_array_equal(forced.estimator_.group_, [3, 3, 1])
    assert forced.estimator_.qid_ is None
    np.testing.assert_array_equal(forced.predict(X), X[:, 0])  # the caller's order


# -- early stopping follows the first skrank metric ------------------------------
def stopping_by_hand(values, patience):
    """(first best round, rounds trained) of a patience rule over a full history."""
    best = 0
    for i, value in enumerate(values):
        if value > values[best]:
            best = i
        if i - best >= patience:
            return best, i + 1
    return best, len(values)


def skrank_rr_per_round(y_held, qid_held, predict_round, n_rounds):
    """MRR of the held-out queries under the trees of rounds 1..n_rounds."""
    return np.array([
        skrank.reciprocal_rank_score(y_held, predict_round(i), query_id=qid_held)
        for i in range(1, n_rounds + 1)
    ])


def test_lightgbm_early_stopping_follows_the_skrank_metric_not_its_own(shuffled):
    X, y, qid = shuffled
    estimator = lightgbm.LGBMRanker(n_estimators=60, num_leaves=7, learning_rate=0.3,
                                    n_jobs=1, verbose=-1, metric="ndcg")
    ranker = QueryGroupRanker(estimator, validation_fraction=0.3,
                              early_stopping_rounds=10, eval_metric="mrr",
                              random_state=0).fit(X, y, query_id=qid, eval_at=[1])
    train, held = held_out_split(X, y, qid, 0.3, 0)
    # the same trees, all 60 of them: the bare fit without an evaluation set
    model = bare_fit(estimator, X[train], y[train], qid[train])
    mrr = skrank_rr_per_round(
        y[held], qid[held], lambda i: model.predict(X[held], num_iteration=i), 60,
    )
    best, n_rounds = stopping_by_hand(mrr, 10)
    log = ranker.estimator_.evals_result_["valid_0"]
    assert np.argmax(log["ndcg@1"]) != best  # LightGBM's own metric disagrees here
    assert ranker.best_iteration_ == best + 1  # LightGBM counts rounds from 1
    assert len(log["mrr"]) == n_rounds
    np.testing.assert_allclose(log["mrr"], mrr[:n_rounds], rtol=1e-12)


def test_xgboost_early_stopping_follows_the_skrank_metric_not_its_own(shuffled):
    X, y, qid = shuffled
    estimator = xgboost.XGBRanker(n_estimators=60, max_depth=3, learning_rate=0.5,
                                  n_jobs=1, eval_metric="ndcg@1")
    ranker = QueryGroupRanker(estimator, validation_fraction=0.3,
                              early_stopping_rounds=10, eval_metric="mrr",
                              random_state=0).fit(X, y, query_id=qid)
    train, held = held_out_split(X, y, qid, 0.3, 0)
    model = bare_fit(estimator, X[train], y[train], qid[train])
    mrr = skrank_rr_per_round(
        y[held], qid[held], lambda i: model.predict(X[held], iteration_range=(0, i)),
        60,
    )
    best, n_rounds = stopping_by_hand(mrr, 10)
    log = ranker.estimator_.evals_result()
    assert np.argmax(log["validation_0"]["ndcg@1"]) != best  # XGBoost's own metric
    assert ranker.best_iteration_ == best  # XGBoost counts rounds from 0
    assert len(log["skrank"]["mrr"]) == n_rounds


# -- held-out queries that no metric can score ----------------------------------
def without_relevant_held_out_rows(shuffled, seed, value=0):
    X, y, qid = shuffled
    _, held = held_out_split(X, y, qid, 0.3, seed)
    y = y.copy()
    y[held] = value
    return X, y, qid


@pytest.mark.parametrize("library", sorted(RANKERS))
def test_early_stopping_on_unscorable_held_out_queries_is_refused(shuffled, library):
    X, y, qid = without_relevant_held_out_rows(shuffled, 5)
    ranker = QueryGroupRanker(RANKERS[library](), validation_fraction=0.3,
                              early_stopping_rounds=3, eval_metric=["mrr", "map"],
                              random_state=5)
    with pytest.raises(ValueError, match=r"'mrr', 'map' cannot score any of the "
                                         r"\d+ held-out queries.*stop training"):
        ranker.fit(X, y, query_id=qid)
    with pytest.raises(ValueError, match="none of them has a relevant row"):
        ranker.set_params(eval_metric=None).fit(X, y, query_id=qid)


@pytest.mark.parametrize("library", sorted(RANKERS))
def test_skrank_metric_on_unscorable_held_out_queries_warns(shuffled, library):
    X, y, qid = without_relevant_held_out_rows(shuffled, 5)
    ranker = QueryGroupRanker(RANKERS[library](), validation_fraction=0.3,
                              eval_metric="ndcg@10", random_state=5)
    with pytest.warns(UndefinedMetricWarning, match="'ndcg@10' cannot score any"):
        ranker.fit(X, y, query_id=qid)
    # every held-out row relevant: MAP scores them, GAUC (needs both) cannot
    X, y, qid = without_relevant_held_out_rows(shuffled, 5, value=1)
    ranker.set_params(eval_metric=["map", "gauc"], early_stopping_rounds=3)
    with pytest.warns(UndefinedMetricWarning, match="'gauc' cannot score any"):
        ranker.fit(X, y, query_id=qid)
    assert ranker.best_iteration_ is not None


# -- eval_metric entries: a frozen EvalMetric each ---------------------------------


def test_eval_metric_entries_are_frozen_records_with_the_logged_name():
    import dataclasses

    from skrank.clicks import get_scorer as get_click_scorer
    from skrank.model_selection._ranker_libraries import EvalMetric, _check_eval_metric

    click = get_click_scorer(["dcg@5", "arp"], propensity=0.5)
    names = _check_eval_metric(["ndcg@10", click], compat="lightgbm")
    assert [str(name) for name in names] == ["ndcg@10", "clicks:dcg@5", "clicks:arp"]
    assert names[0] == EvalMetric("ndcg@10", "lightgbm")
    assert names[1].click is click and names[1].metric == "dcg@5"
    with pytest.raises(dataclasses.FrozenInstanceError):
        names[0].compat = None


def test_eval_metric_refuses_a_name_twice_and_a_label_scorer():
    from skrank.model_selection._ranker_libraries import _check_eval_metric

    with pytest.raises(ValueError, match=r"names a metric twice: \['map', 'map'\]"):
        _check_eval_metric(["map", "map"])
    # a label scorer reads no positions: give its metric by name
    with pytest.raises(ValueError, match="must be a skrank metric name"):
        _check_eval_metric(get_scorer("map"))
    with pytest.raises(ValueError, match="LightGBM has no metric 'mrr'"):
        _check_eval_metric("mrr", compat="lightgbm")
