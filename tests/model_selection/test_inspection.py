"""permutation_importance per query, against scikit-learn's with a query-aware closure.

scikit-learn's ``permutation_importance`` never reorders rows (with
``max_samples=1.0``), so a scorer closing over the full query-id array sees
the right ids; with the same ``random_state`` it draws the same shuffles.
Its metric here is scikit-learn's ``ndcg_score`` per query (pandas groups),
so the expected importances owe nothing to skrank.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.inspection import permutation_importance as sklearn_importance
from sklearn.linear_model import LinearRegression
from sklearn.metrics import ndcg_score as sklearn_ndcg
from sklearn.utils import Bunch

import skrank
from skrank import get_scorer, make_ranking_scorer, permutation_importance

from .._needs import needs


def per_query(metric, y, score, qid):
    values = []
    for q in pd.unique(qid):
        rows = qid == q
        if y[rows].sum() > 0:
            values.append(metric(y[rows], score[rows]))
    return float(np.mean(values))


def ndcg_at(k):
    return lambda y, s: sklearn_ndcg([y], [s], k=k)


def precision_at(k):
    # no ties in a regression's scores on continuous features
    return lambda y, s: float(np.mean(y[np.argsort(-s, kind="stable")][:k] > 0))


@pytest.fixture(scope="module")
def fitted():
    data = skrank.load_digits_retrieval(n_queries=30, n_candidates=12, random_state=5)
    X, y = data.data[:, :4], data.target
    qid = np.array([f"q{q}" for q in data.query_id])
    order = np.random.default_rng(0).permutation(len(y))  # shuffled rows
    X, y, qid = X[order], y[order], qid[order]
    return LinearRegression().fit(X, y), X, y, qid


def closure_scorer(metric, qid):
    return lambda est, X, y: per_query(metric, y, est.predict(X), qid)


@pytest.mark.parametrize("scoring", ["ndcg@5", get_scorer("ndcg@5")],
                         ids=["name", "scorer"])
def test_equals_sklearn_with_a_scorer_that_knows_the_query_ids(fitted, scoring):
    model, X, y, qid = fitted
    result = permutation_importance(model, X, y, query_id=qid, scoring=scoring,
                                    n_repeats=4, random_state=3)
    expected = sklearn_importance(model, X, y, scoring=closure_scorer(ndcg_at(5), qid),
                                  n_repeats=4, random_state=3)
    assert isinstance(result, Bunch)
    for key in ("importances", "importances_mean", "importances_std"):
        np.testing.assert_allclose(result[key], expected[key], rtol=1e-10, atol=1e-12)
    assert result.importances.shape == (X.shape[1], 4)


def test_several_metrics_give_a_dict_of_bunches(fitted):
    model, X, y, qid = fitted
    expected = {
        key: sklearn_importance(model, X, y, scoring=closure_scorer(metric, qid),
                                n_repeats=2, random_state=0).importances
        for key, metric in (("ndcg@5", ndcg_at(5)), ("precision@3", precision_at(3)))
    }
    for scoring, n_jobs in ((["ndcg@5", "precision@3"], None),
                            ({"ndcg@5": "ndcg@5",
                              "precision@3": make_ranking_scorer("precision@3")}, 2)):
        result = permutation_importance(model, X, y, query_id=qid, scoring=scoring,
                                        n_repeats=2, random_state=0, n_jobs=n_jobs)
        assert sorted(result) == ["ndcg@5", "precision@3"]
        for key in expected:
            np.testing.assert_allclose(result[key].importances, expected[key],
                                       rtol=1e-10, atol=1e-12)


def test_rows_keep_their_query_a_single_list_would_differ(fitted):
    model, X, y, qid = fitted
    per_query_result = permutation_importance(model, X, y, query_id=qid,
                                              scoring="ndcg@5", random_state=0)
    one_list = permutation_importance(model, X, y, query_id=np.zeros(len(y)),
                                      scoring="ndcg@5", random_state=0)
    assert not np.allclose(per_query_result.importances, one_list.importances)


def test_query_id_column_of_a_frame_is_never_shuffled(fitted):
    model, X, y, qid = fitted
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    df.insert(2, "qid", qid)

    class DropsQid:
        def predict(self, frame):
            return model.predict(frame.drop(columns="qid").to_numpy())

    result = permutation_importance(DropsQid(), df, y, query_id="qid",
                                    scoring="ndcg@5", n_repeats=3, random_state=1)
    expected = sklearn_importance(model, X, y, scoring=closure_scorer(ndcg_at(5), qid),
                                  n_repeats=3, random_state=1)
    assert result.importances.shape == (X.shape[1] + 1, 3)
    np.testing.assert_array_equal(result.importances[2], 0.0)
    np.testing.assert_allclose(np.delete(result.importances, 2, axis=0),
                               expected.importances, rtol=1e-10, atol=1e-12)


def test_works_with_a_query_group_ranker(fitted):
    lightgbm = needs("lightgbm")
    _, X, y, qid = fitted
    ranker = skrank.QueryGroupRanker(
        lightgbm.LGBMRanker(n_estimators=10, num_leaves=7, n_jobs=1, verbose=-1)
    ).fit(X, y, query_id=qid)
    result = permutation_importance(ranker, X, y, query_id=qid, scoring="map",
                                    n_repeats=2, random_state=0)
    assert result.importances_mean.shape == (X.shape[1],)
    assert np.isfinite(result.importances).all()


@pytest.mark.parametrize("kwargs, match", [
    ({"scoring": "ndcgg"}, "ndcg"),
    ({"scoring": 3}, "`scoring` must be a skrank metric name"),
    ({"scoring": []}, "`scoring` is empty"),
    ({"scoring": "map", "n_repeats": 0}, "`n_repeats` must be a positive integer"),
    ({"scoring": "map", "query_id": None}, "`query_id` is None"),
    ({"scoring": "map", "query_id": [1, 2]}, "one id per row"),
    ({"scoring": "map", "query_id": "qid"}, "names no column"),
])
def test_invalid_arguments(fitted, kwargs, match):
    model, X, y, qid = fitted
    kwargs = {"query_id": qid, **kwargs}
    with pytest.raises(ValueError, match=match):
        permutation_importance(model, X, y, **kwargs)
