"""QueryGroupRanker with ``position``: position-debiased LightGBM and XGBoost.

The references train the bare libraries by hand: ``lightgbm.train`` on a
``Dataset(position=...)`` of the rows sorted by list id (stable), with the
parameters written out; ``XGBRanker(lambdarank_unbiased=True)`` on the rows
sorted by (list id, position), as XGBoost's own examples sort them.
"""

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GroupKFold, cross_validate

from skrank import QueryGroupRanker
from skrank.clicks import PositionBias, evaluate, get_scorer

from .._click_logs import click_log
from .._needs import needs


def lgbm_ranker():
    lightgbm = needs("lightgbm")
    return lightgbm.LGBMRanker(n_estimators=15, num_leaves=7, min_child_samples=5,
                               learning_rate=0.1, n_jobs=1, verbose=-1,
                               random_state=0)


def test_lightgbm_gets_the_positions_in_its_dataset():
    lightgbm = needs("lightgbm")
    X, click, lists, position = click_log()
    model = QueryGroupRanker(lgbm_ranker()).fit(X, click, query_id=lists,
                                                position=position)
    # by hand: rows grouped by list (stable), LightGBM's own Dataset and train
    order = np.argsort(lists, kind="stable")
    _, sizes = np.unique(lists[order], return_counts=True)
    params = {"objective": "lambdarank", "num_leaves": 7, "min_child_samples": 5,
              "learning_rate": 0.1, "num_threads": 1, "verbose": -1, "seed": 0}
    booster = lightgbm.train(params, lightgbm.Dataset(
        X[order], label=click[order], group=sizes, position=position[order]),
        num_boost_round=15)
    np.testing.assert_allclose(model.predict(X), booster.predict(X), rtol=1e-12)
    # and the positions changed the model
    plain = QueryGroupRanker(lgbm_ranker()).fit(X, click, query_id=lists)
    assert not np.allclose(plain.predict(X), model.predict(X))
    assert model.n_features_in_ == 3


def test_xgboost_gets_rows_in_position_order_and_unbiased_lambdarank():
    xgboost = needs("xgboost")
    X, click, lists, position = click_log(seed=1)
    ranker = xgboost.XGBRanker(n_estimators=10, max_depth=3, n_jobs=1)
    model = QueryGroupRanker(ranker).fit(X, click, query_id=lists, position=position)
    assert model.estimator_.get_params()["lambdarank_unbiased"] is True
    order = np.lexsort((position, lists))
    _, codes = np.unique(lists[order], return_inverse=True)
    bare = xgboost.XGBRanker(n_estimators=10, max_depth=3, n_jobs=1,
                             lambdarank_unbiased=True)
    bare.fit(X[order], click[order], qid=codes)
    np.testing.assert_allclose(model.predict(X), bare.predict(X), rtol=1e-6)
    # the estimator's own setting wins
    off = QueryGroupRanker(xgboost.XGBRanker(n_estimators=2, lambdarank_unbiased=False))
    assert off.fit(X, click, query_id=lists, position=position).estimator_.get_params()[
        "lambdarank_unbiased"] is False


def test_xgboost_refuses_two_rows_of_a_query_at_one_position():
    xgboost = needs("xgboost")
    X, click, lists, position = click_log(n_lists=4, seed=2)
    lists = lists // 2 * 2  # two lists in one query: positions repeat
    with pytest.raises(ValueError, match="one displayed list"):
        QueryGroupRanker(xgboost.XGBRanker(n_estimators=2)).fit(
            X, click, query_id=lists, position=position)


def test_catboost_and_bad_positions_are_refused():
    X, click, lists, position = click_log(n_lists=4, seed=3)
    catboost = needs("catboost")
    with pytest.raises(ValueError, match="CatBoost has no position-debiased"):
        QueryGroupRanker(catboost.CatBoostRanker(iterations=2, verbose=0)).fit(
            X, click, query_id=lists, position=position)
    bad = position.astype(float)
    bad[5] = 0
    with pytest.raises(ValueError, match="integer >= 1.*at row 5"):
        QueryGroupRanker(lgbm_ranker()).fit(X, click, query_id=lists, position=bad)
    with pytest.raises(ValueError, match="one value per row"):
        QueryGroupRanker(lgbm_ranker()).fit(X, click, query_id=lists,
                                            position=position[:-1])


def test_position_is_routed_to_ranker_and_click_scorer(routing):
    X, click, lists, position = click_log(seed=4)
    scorer = get_scorer("dcg@5", propensity=lambda k: 1 / k)
    cv = GroupKFold(3)
    result = cross_validate(
        QueryGroupRanker(lgbm_ranker()), X, click, cv=cv, scoring=scorer,
        params={"query_id": lists, "list_id": lists, "position": position,
                "groups": lists},
    )
    for i, (train, test) in enumerate(cv.split(X, click, groups=lists)):
        model = QueryGroupRanker(lgbm_ranker()).fit(
            X[train], click[train], query_id=lists[train], position=position[train])
        expected = evaluate(click[test], model.predict(X[test]),
                            position=position[test], list_id=lists[test],
                            propensity=lambda k: 1 / k, metrics="dcg@5")["dcg@5"]
        assert result["test_score"][i] == pytest.approx(expected, rel=1e-12)


def test_position_is_requested_for_fit_by_default():
    routing = QueryGroupRanker(lgbm_ranker()).get_metadata_routing()
    assert routing.consumes("fit", ["query_id", "position"]) == {"query_id", "position"}
    assert routing.consumes("score", ["position"]) == set()


def test_position_request_can_be_turned_off(routing):
    X, click, lists, position = click_log(seed=5)
    ranker = QueryGroupRanker(lgbm_ranker()).set_fit_request(position=False)
    result = cross_validate(
        ranker, X, click, cv=GroupKFold(2),
        scoring=get_scorer("dcg@5", propensity=lambda k: 1 / k),
        params={"query_id": lists, "list_id": lists, "position": position,
                "groups": lists},
        return_estimator=True,
    )
    # no position reached fit: the fitted model is an LGBMRanker, not a Booster
    assert all(type(m.estimator_).__name__ == "LGBMRanker"
               for m in result["estimator"])


def test_lightgbm_with_position_early_stops_on_a_skrank_metric():
    needs("lightgbm")
    X, click, lists, position = click_log(n_lists=120, seed=6)
    ranker = lgbm_ranker().set_params(n_estimators=300)
    model = QueryGroupRanker(ranker, validation_fraction=0.3, early_stopping_rounds=5,
                             eval_metric="ndcg@5", random_state=0)
    model.fit(X, click, query_id=lists, position=position)
    assert model.best_iteration_ is not None and model.best_iteration_ < 300
    assert model.estimator_.best_iteration == model.best_iteration_


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def ips_per_round(click, lists, position, predict_round, n_rounds):
    """IPS-DCG@5 of the held-out lists after each round, by skrank.clicks.evaluate."""
    return [evaluate(click, predict_round(i), position=position, list_id=lists,
                     propensity=lambda k: 1 / k, metrics="dcg@5")["dcg@5"]
            for i in range(1, n_rounds + 1)]


def first_stop(values, patience):
    """The first best round (1-based) of an early stop with this patience."""
    best, best_round = -np.inf, 0
    for i, value in enumerate(values, start=1):
        if value > best:
            best, best_round = value, i
        elif i - best_round >= patience:
            break
    return best_round


@pytest.mark.parametrize("library", ["lightgbm", "xgboost"])
def test_early_stopping_on_a_click_metric(library):
    from sklearn.model_selection import GroupShuffleSplit

    X, click, lists, position = click_log(n_lists=150, seed=7)
    scorer = get_scorer("dcg@5", propensity=lambda k: 1 / k)
    if library == "lightgbm":
        ranker = lgbm_ranker().set_params(n_estimators=60, learning_rate=0.3)
    else:
        xgboost = needs("xgboost")
        ranker = xgboost.XGBRanker(n_estimators=60, max_depth=3, learning_rate=0.3,
                                   n_jobs=1)
    model = QueryGroupRanker(ranker, validation_fraction=0.3, early_stopping_rounds=4,
                             eval_metric=scorer, random_state=0)
    model.fit(X, click, query_id=lists, position=position)
    # the held-out lists, drawn as the wrapper draws them
    _, held = next(GroupShuffleSplit(n_splits=1, test_size=0.3, random_state=0).split(
        X, groups=np.unique(lists, return_inverse=True)[1]))
    if library == "lightgbm":
        booster = model.estimator_

        def predict_round(i):
            return booster.predict(X[held], num_iteration=i)

        n_rounds = booster.current_iteration()
        expected = first_stop(ips_per_round(click[held], lists[held], position[held],
                                            predict_round, n_rounds), 4)
        assert model.best_iteration_ == expected  # LightGBM counts from 1
    else:
        log = model.estimator_.evals_result()["skrank"]["clicks:dcg@5"]
        booster = model.estimator_.get_booster()
        values = ips_per_round(
            click[held], lists[held], position[held],
            lambda i: booster.inplace_predict(X[held], iteration_range=(0, i)),
            len(log))
        np.testing.assert_allclose(log, values, rtol=1e-10)
        assert model.best_iteration_ == first_stop(values, 4) - 1  # XGBoost from 0


def test_a_click_metric_needs_positions():
    X, click, lists, position = click_log(n_lists=20, seed=8)
    model = QueryGroupRanker(lgbm_ranker(), validation_fraction=0.3,
                             eval_metric=get_scorer("dcg@5", propensity=1.0))
    with pytest.raises(ValueError, match="click metric, which needs the position"):
        model.fit(X, click, query_id=lists)


def test_search_with_two_jobs_and_a_click_eval_metric(routing):
    # the ranker (position, click eval_metric) and the click scorer travel to
    # joblib workers; the numbers are those of one process
    from sklearn.model_selection import GridSearchCV

    X, click, lists, position = click_log(seed=9)
    bias = PositionBias(1 / np.arange(1, 7))
    ranker = QueryGroupRanker(
        lgbm_ranker().set_params(n_estimators=10), validation_fraction=0.3,
        early_stopping_rounds=3, eval_metric=get_scorer("dcg@5", propensity=bias),
        random_state=0)
    means = []
    for n_jobs in (1, 2):
        search = GridSearchCV(
            ranker, {"estimator__num_leaves": [3, 7]}, cv=GroupKFold(3),
            scoring=get_scorer(["dcg@5", "arp"], propensity=bias), refit="dcg@5",
            n_jobs=n_jobs, error_score="raise",
        ).fit(X, click, query_id=lists, list_id=lists, position=position,
              groups=lists)
        means.append(search.cv_results_["mean_test_dcg@5"])
    np.testing.assert_array_equal(means[0], means[1])


def test_early_stopping_on_a_click_metric_without_held_out_clicks_is_refused():
    # every IPS estimate of lists without a click is 0, whatever the model
    X, click, lists, position = click_log(n_lists=20, seed=10)
    model = QueryGroupRanker(lgbm_ranker(), validation_fraction=0.3,
                             early_stopping_rounds=3, random_state=0,
                             eval_metric=get_scorer("dcg@5", propensity=1.0))
    with pytest.raises(ValueError, match="clicks:dcg@5.*would stop training at once"):
        model.fit(X, np.zeros_like(click), query_id=lists, position=position)
