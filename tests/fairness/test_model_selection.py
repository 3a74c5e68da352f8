"""EE-L as a scorer (make_ranking_scorer, query ids by routing), as the user guide shows."""

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_validate

import skrank
from skrank.fairness import expected_exposure


def neg_ee_l(y_true, y_score, *, query_id, sample_weight=None):
    return -expected_exposure(y_true, y_score, query_id=query_id,
                              sample_weight=sample_weight)["ee_l"]


def test_cross_validate_scores_each_fold_as_expected_exposure():
    rng = np.random.default_rng(0)
    qid = np.repeat(np.arange(24), 8)
    X = rng.normal(size=(qid.shape[0], 3))
    y = (X[:, 0] + rng.normal(size=qid.shape[0]) > 0.5).astype(int)
    folds = list(GroupKFold(3).split(X, y, qid))
    scorer = skrank.make_ranking_scorer(neg_ee_l)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(Ridge(), X, y, cv=folds, params={"query_id": qid},
                                scoring={"neg_ee_l": scorer}, error_score="raise")
    for (train, test), got in zip(folds, result["test_neg_ee_l"]):
        score = Ridge().fit(X[train], y[train]).predict(X[test])
        expected = expected_exposure(y[test], score, query_id=qid[test])["ee_l"]
        assert got == pytest.approx(-expected)
