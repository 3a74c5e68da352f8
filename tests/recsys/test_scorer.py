"""Tests of skrank/recsys/_scorer.py: scorers of recommendation lists."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate

from skrank import get_scorer
from skrank.recsys import make_recsys_scorer, novelty_score

RNG = np.random.default_rng(0)
N_USERS, N_CAND = 12, 8
USER = np.repeat(np.arange(N_USERS), N_CAND)
ITEM = RNG.integers(0, 20, len(USER))
X = RNG.normal(size=(len(USER), 3))
X[:, 0] = ITEM  # a model can learn a preference for high item ids
Y = (RNG.random(len(USER)) < 0.3).astype(int)
HISTORY = RNG.integers(0, 20, 60)


class Fixed:
    """A 'model' whose score is one column of X (no fitting)."""

    def __init__(self, column=0):
        self.column = column

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.column]


def test_the_scorer_equals_the_function_on_the_model_scores():
    scorer = make_recsys_scorer("novelty@3", history_item_id=HISTORY)
    got = scorer(Fixed(1), X, Y, query_id=USER, item_id=ITEM)
    assert got == novelty_score(ITEM, X[:, 1], query_id=USER, k=3, history_item_id=HISTORY)
    assert pickle.loads(pickle.dumps(scorer))(Fixed(1), X, Y, query_id=USER,
                                              item_id=ITEM) == got


def test_ids_from_dataframe_columns_without_routing():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(qid=USER, item_id=ITEM)
    scorer = make_recsys_scorer("coverage@2")
    got = scorer(Fixed(1), frame, Y)
    assert got == make_recsys_scorer("coverage@2")(Fixed(1), X, Y, query_id=USER,
                                                   item_id=ITEM)


def test_missing_ids_and_bad_names():
    scorer = make_recsys_scorer("gini@2")
    with pytest.raises(ValueError, match="needs `item_id`"):
        scorer(Fixed(1), X, Y, query_id=USER)
    with pytest.raises(ValueError, match="`metric` must be"):
        make_recsys_scorer("ndcg@10")
    with pytest.raises(ValueError, match="takes no option"):
        make_recsys_scorer("gini@2", history_item_id=HISTORY)


def test_grid_search_keeps_the_most_accurate_model_novel_enough():
    scoring = {"ndcg": get_scorer("ndcg@3"),
               "novelty": make_recsys_scorer("novelty@3", history_item_id=HISTORY,
                                             unseen="one")}
    grid = {"alpha": [0.01, 1e6]}
    with sklearn.config_context(enable_metadata_routing=True):
        results = cross_validate(Ridge(), X, Y, scoring=scoring, cv=GroupKFold(3),
                                 params={"query_id": USER, "item_id": ITEM,
                                         "groups": USER})
        plain = GridSearchCV(Ridge(), grid, scoring=scoring, refit="ndcg",
                             cv=GroupKFold(3)).fit(X, Y, query_id=USER, item_id=ITEM,
                                                   groups=USER)
    assert np.isfinite(results["test_novelty"]).all()
    r = plain.cv_results_
    # the threshold: between the two candidates' novelty, so it decides
    low, high = sorted(r["mean_test_novelty"])
    assert low < high

    def most_accurate_novel(cv_results):
        novel = cv_results["mean_test_novelty"] >= high
        return int(np.argmax(np.where(novel, cv_results["mean_test_ndcg"], -np.inf)))

    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(Ridge(), grid, scoring=scoring, refit=most_accurate_novel,
                              cv=GroupKFold(3)).fit(X, Y, query_id=USER, item_id=ITEM,
                                                    groups=USER)
    assert search.best_index_ == int(np.argmax(r["mean_test_novelty"]))
