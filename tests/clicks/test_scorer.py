"""skrank.clicks.get_scorer: skrank.clicks.evaluate on each fold of a search."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

from skrank.clicks import ClickScorer, PositionBias, evaluate, get_scorer
from tests._click_logs import click_log
from tests._needs import needs

THREE = ["dcg@5", "precision@3", "arp"]
BIAS = PositionBias([1.0, 0.5, 1 / 3, 0.25, 0.2, 1 / 6])


def _clicks(n_lists=40, per_list=6, seed=0):
    """Lists of displayed rows, shuffled: features, clicks, list ids, positions,
    and query ids (two lists a query)."""
    X, click, lists, position = click_log(n_lists, per_list, seed, first_list=100)
    return X, click, lists, position, lists // 2


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _by_hand(make_model, X, click, lists, position, queries, cv, metrics):
    """Each fold's metrics (folds by query) from skrank.clicks.evaluate, arp negated."""
    folds = []
    for train, test in cv.split(X, click, groups=queries):
        assert not np.isin(queries[test], queries[train]).any()
        score = make_model().fit(X[train], click[train]).predict(X[test])
        result = evaluate(click[test], score, position=position[test],
                          list_id=lists[test], query_id=queries[test],
                          propensity=BIAS, metrics=metrics)
        folds.append({name: -result[name] if name == "arp" else result[name]
                      for name in metrics})
    return folds


def test_worked_example():
    # one list: the logger showed rows a, b, c at 1, 2, 3; the user clicked
    # c (propensity 1/3, weight 3) and a (propensity 1, weight 1). The
    # model ranks by x: c (x=3) first, a (x=1) last.
    X = np.array([[1.0], [2.0], [3.0]])
    model = LinearRegression().fit(X, [0.0, 1.0, 2.0])
    scorer = get_scorer(["dcg@2", "precision@1", "arp"], propensity=lambda k: 1 / k)
    got = scorer(model, X, [1, 0, 1], list_id=[5, 5, 5], position=[1, 2, 3])
    assert got == pytest.approx({
        "dcg@2": 3 / np.log2(2) + 0.0,  # a is at rank 3, beyond the cutoff
        "precision@1": 3 / 1,
        "arp": -(3 * 1 + 1 * 3),  # negated: lower is better
    })
    single = get_scorer("dcg@2", propensity=lambda k: 1 / k)
    assert single(model, X, [1, 0, 1], list_id=[5, 5, 5], position=[1, 2, 3]) == 3.0
    assert single.greater_is_better
    assert not get_scorer("arp", propensity=1.0).greater_is_better


def test_cross_validate_with_routing_equals_evaluate_per_fold(routing):
    X, click, lists, position, queries = _clicks()
    cv = GroupKFold(4)
    result = cross_validate(
        LinearRegression(), X, click, cv=cv,
        scoring=get_scorer(THREE, propensity=BIAS),
        params={"list_id": lists, "query_id": queries, "position": position,
                "groups": queries},
    )
    expected = _by_hand(LinearRegression, X, click, lists, position, queries, cv,
                        THREE)
    for i, fold in enumerate(expected):
        for name in THREE:
            assert result[f"test_{name}"][i] == pytest.approx(fold[name], rel=1e-12)


def test_grid_search_with_routing_and_multi_metric_refit(routing):
    X, click, lists, position, queries = _clicks(seed=1)
    cv = GroupKFold(3)
    grid = {"alpha": [0.1, 1000.0]}
    # the query ids reach the scorer under the splitter's name, groups
    scorer = get_scorer(["dcg@5", "arp"], propensity=BIAS).set_score_request(
        query_id="groups")
    search = GridSearchCV(Ridge(), grid, cv=cv, scoring=scorer, refit="dcg@5").fit(
        X, click, list_id=lists, position=position, groups=queries)
    for c, alpha in enumerate(grid["alpha"]):
        folds = _by_hand(lambda: Ridge(alpha=alpha), X, click, lists, position,
                         queries, cv, ["dcg@5", "arp"])
        for i, fold in enumerate(folds):
            for name in ("dcg@5", "arp"):
                assert search.cv_results_[f"split{i}_test_{name}"][c] == pytest.approx(
                    fold[name], rel=1e-12)
    means = search.cv_results_["mean_test_dcg@5"]
    assert search.best_params_ == {"alpha": grid["alpha"][int(np.argmax(means))]}
    # score() of the refitted search uses the refit metric
    got = search.score(X, click, list_id=lists, position=position)
    expected = evaluate(click, search.predict(X), position=position, list_id=lists,
                        propensity=BIAS, metrics="dcg@5")["dcg@5"]
    assert got == pytest.approx(expected, rel=1e-12)


def test_dataframe_columns_with_routing_off():
    pd = needs("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    X, click, lists, position, queries = _clicks(seed=2)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(
        list_id=lists, qid=queries, position=position)
    model = make_pipeline(
        ColumnTransformer([("ids", "drop", ["list_id", "qid", "position"])],
                          remainder="passthrough"),
        LinearRegression(),
    )
    cv = GroupKFold(4)
    search = GridSearchCV(model, {"linearregression__fit_intercept": [True]}, cv=cv,
                          scoring=get_scorer(THREE, propensity=BIAS), refit="arp")
    search.fit(frame, click, groups=queries)
    expected = _by_hand(LinearRegression, X, click, lists, position, queries, cv,
                        THREE)
    for i, fold in enumerate(expected):
        for name in THREE:
            assert search.cv_results_[f"split{i}_test_{name}"][0] == pytest.approx(
                fold[name], rel=1e-12)


def test_pickles_and_runs_with_two_jobs(routing):
    X, click, lists, position, queries = _clicks(seed=3)
    scorer = pickle.loads(pickle.dumps(get_scorer(THREE, propensity=BIAS, clip=0.3)))
    assert scorer.clip == 0.3 and isinstance(scorer.propensity, PositionBias)
    params = {"list_id": lists, "query_id": queries, "position": position,
              "groups": queries}
    parallel = cross_validate(LinearRegression(), X, click, cv=GroupKFold(4),
                              scoring=scorer, n_jobs=2, params=params)
    serial = cross_validate(LinearRegression(), X, click, cv=GroupKFold(4),
                            scoring=scorer, params=params)
    for name in THREE:
        np.testing.assert_array_equal(parallel[f"test_{name}"], serial[f"test_{name}"])


def test_clip_and_sample_weight_reach_evaluate(routing):
    X, click, lists, position, queries = _clicks(seed=4)
    weight = np.random.default_rng(4).uniform(0.5, 2.0, size=len(click))
    scorer = get_scorer("dcg@5", propensity=BIAS, clip=0.4).set_score_request(
        sample_weight=True)
    cv = GroupKFold(3)
    result = cross_validate(
        LinearRegression().set_fit_request(sample_weight=False), X, click, cv=cv,
        scoring=scorer,
        params={"list_id": lists, "position": position, "groups": queries,
                "sample_weight": weight},
    )
    for i, (train, test) in enumerate(cv.split(X, click, groups=queries)):
        score = LinearRegression().fit(X[train], click[train]).predict(X[test])
        expected = evaluate(click[test], score, position=position[test],
                            list_id=lists[test], propensity=BIAS, metrics="dcg@5",
                            clip=0.4, sample_weight=weight[test])["dcg@5"]
        assert result["test_score"][i] == pytest.approx(expected, rel=1e-12)


def test_position_under_an_alias(routing):
    X, click, lists, position, queries = _clicks(seed=5)
    scorer = get_scorer("dcg@5", propensity=BIAS).set_score_request(position="rank")
    assert scorer.get_metadata_routing().score.requests == {
        "query_id": True, "list_id": True, "position": "rank", "sample_weight": None}
    result = cross_validate(LinearRegression(), X, click, cv=GroupKFold(2),
                            scoring=scorer,
                            params={"list_id": lists, "query_id": queries,
                                    "rank": position, "groups": queries})
    assert np.isfinite(result["test_score"]).all()


def test_missing_metadata_errors_say_how_to_pass_them():
    X, click, lists, position, queries = _clicks(n_lists=3)
    model = LinearRegression().fit(X, click)
    scorer = get_scorer("dcg@5", propensity=BIAS)
    with pytest.raises(ValueError, match="got no `position`") as error:
        scorer(model, X, click, list_id=lists)
    assert "metadata routing is off" in str(error.value)
    assert "skrank.clicks.get_scorer(..., position_column='position')" in str(
        error.value)
    with pytest.raises(ValueError, match="got no `list_id`"):
        scorer(model, X, click, query_id=queries, position=position)
    # every missing one is named, with the click scorer's own options
    with pytest.raises(ValueError, match="got no `list_id` and no `position`") as error:
        scorer(model, X, click)
    message = str(error.value)
    assert ("skrank.clicks.get_scorer(..., list_id_column='list_id', "
            "position_column='position')") in message
    assert "make_ranking_scorer" not in message and "query_id_column" not in message
    with pytest.raises(TypeError,
                       match="`query_id`, `list_id`, `position` and `sample_weight`"):
        scorer(model, X, click, list_id=lists, position=position, groups=lists)


def test_missing_dataframe_columns_are_all_named():
    pd = needs("pandas")
    X, click, lists, position, queries = _clicks(n_lists=3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = LinearRegression().fit(frame, click)
    scorer = get_scorer("dcg@5", propensity=BIAS, list_id_column="session",
                        position_column="rank")
    with pytest.raises(ValueError) as error:
        scorer(model, frame, click)
    message = str(error.value)
    assert "X has no column 'session'" in message
    assert "X has no column 'rank'" in message
    assert ("get_scorer(..., list_id_column='session', position_column='rank')"
            in message)


@pytest.mark.parametrize("kwargs, match", [
    ({"metrics": "mrr"}, "Unknown click metric"),
    ({"metrics": ["dcg@5", "dcg@5"]}, "names a metric twice"),
    ({"metrics": 5}, "`metrics` must be a click metric name"),
    ({"propensity": [1.0, 0.5]}, "cannot take one value per row"),
    ({"propensity": 0.0}, r"`propensity` must be positive and finite"),
    ({"propensity": float("nan")}, r"`propensity` must be positive and finite"),
    ({"clip": 1.5}, r"`clip` must be a number in \(0, 1\]"),
    ({"position_column": 1.5}, "`position_column` must be a column name"),
    ({"list_id_column": 1.5}, "`list_id_column` must be a column name"),
])
def test_bad_arguments(kwargs, match):
    arguments = {"metrics": "dcg@5", "propensity": BIAS, **kwargs}
    with pytest.raises(ValueError, match=match):
        get_scorer(arguments.pop("metrics"), **arguments)


def test_repr_and_class():
    scorer = get_scorer(["dcg@5", "arp"], propensity=BIAS, clip=0.2)
    assert isinstance(scorer, ClickScorer)
    assert repr(scorer).startswith(
        "skrank.clicks.get_scorer(['dcg@5', 'arp'], propensity=PositionBias(")
    assert repr(scorer).endswith(", clip=0.2)")
    assert scorer.metrics == ["dcg@5", "arp"]

    def inverse(k):
        return 1 / k

    assert repr(get_scorer("arp", propensity=inverse, position_column="pos")) == (
        "skrank.clicks.get_scorer('arp', propensity=inverse, position_column='pos')")
