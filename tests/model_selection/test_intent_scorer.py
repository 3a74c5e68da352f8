"""The intent-aware scorer: query ids and 2-D grades by metadata routing."""

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

import skrank
from skrank.diversity import alpha_ndcg_score, subtopic_recall_score


def _data(seed=0, n_queries=12, rows=8, n_intents=3):
    rng = np.random.default_rng(seed)
    n = n_queries * rows
    X = rng.normal(size=(n, 4))
    intents = (rng.random((n, n_intents)) < 0.3).astype(int)
    intents[:, 0] |= (X[:, 0] > 0.8).astype(int)
    y = intents.sum(axis=1)
    query = np.repeat(np.arange(n_queries), rows)
    return X, y, intents, query


def _fold_values(X, y, intents, query, metric, alpha=1.0):
    """The metric on each test fold of GroupKFold(3), by hand."""
    values = []
    for train, test in GroupKFold(3).split(X, y, query):
        model = Ridge(alpha=alpha).fit(X[train], y[train])
        values.append(metric(intents[test], model.predict(X[test]), query_id=query[test],
                             k=10))
    return np.array(values)


def test_cross_validate_routes_query_ids_and_intents():
    X, y, intents, query = _data()
    scorer = skrank.get_scorer(["alpha_ndcg@10", "s_recall@10"])
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(Ridge(), X, y, cv=GroupKFold(3), scoring=scorer,
                                params={"query_id": query, "groups": query,
                                        "intents": intents}, error_score="raise")
    np.testing.assert_allclose(result["test_alpha_ndcg@10"],
                               _fold_values(X, y, intents, query, alpha_ndcg_score))
    np.testing.assert_allclose(result["test_s_recall@10"],
                               _fold_values(X, y, intents, query, subtopic_recall_score))


def test_grid_search_selects_on_alpha_ndcg():
    X, y, intents, query = _data(1)
    search = GridSearchCV(Ridge(), {"alpha": [0.1, 1000.0]}, cv=GroupKFold(3),
                          scoring=skrank.get_scorer("alpha_ndcg@10"), error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, query_id=query, groups=query, intents=intents)
    expected = [_fold_values(X, y, intents, query, alpha_ndcg_score, alpha=a).mean()
                for a in (0.1, 1000.0)]
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected)
    assert search.best_params_["alpha"] == (0.1, 1000.0)[int(np.argmax(expected))]


def test_without_intents_the_error_says_how_to_pass_them():
    X, y, intents, query = _data()
    scorer = skrank.get_scorer("alpha_ndcg@10")
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="intents"):
        scorer(model, X, y, query_id=query)
    # a 2-D y is read as the grades
    assert scorer(model, X, intents, query_id=query) == pytest.approx(
        alpha_ndcg_score(intents, model.predict(X), query_id=query, k=10))


def test_the_scorer_pickles_and_scores_in_two_jobs():
    import pickle

    X, y, intents, query = _data(2)
    scorer = pickle.loads(pickle.dumps(skrank.get_scorer("nerr_ia@10")))
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(Ridge(), X, y, cv=GroupKFold(3), scoring=scorer, n_jobs=2,
                                params={"query_id": query, "groups": query,
                                        "intents": intents}, error_score="raise")
    from skrank.diversity import nerr_ia_score
    np.testing.assert_allclose(result["test_score"],
                               _fold_values(X, y, intents, query, nerr_ia_score))
