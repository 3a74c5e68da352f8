"""Tests of skrank/recsys/_explain.py: evaluate_lists, explain_list_difference."""

import numpy as np
import pytest

from skrank.recsys import (catalog_coverage_score, evaluate_lists,
                           explain_list_difference, gini_score, novelty_score)
from ._world import world

USER, ITEM, SCORE, H_USER, H_ITEM = world()
DATA = dict(history_item_id=H_ITEM, history_query_id=H_USER)


def test_evaluate_lists_equals_each_function():
    got = evaluate_lists(ITEM, SCORE, query_id=USER, metrics=["novelty@5", "coverage",
                                                              "gini@3"], **DATA)
    assert list(got) == ["novelty@5", "coverage", "gini@3"]
    assert got["novelty@5"] == novelty_score(ITEM, SCORE, query_id=USER, k=5, **DATA)
    assert got["coverage"] == catalog_coverage_score(ITEM, SCORE, query_id=USER, k=10,
                                                     history_item_id=H_ITEM)
    assert got["gini@3"] == gini_score(ITEM, SCORE, query_id=USER, k=3)
    with pytest.raises(ValueError, match="takes the option 'gain'"):
        evaluate_lists(ITEM, SCORE, query_id=USER, metrics=["gini"], gain="linear")
    with pytest.raises(ValueError, match="`metric` must be"):
        evaluate_lists(ITEM, SCORE, query_id=USER, metrics=["ndcg@10"])


def test_novelty_from_recommenders_to_rectools_one_option_at_a_time():
    result = explain_list_difference(ITEM, SCORE, query_id=USER, metric="novelty@10",
                                     a="recommenders", b="rectools", **DATA)
    # the libraries' own numbers (test_presets.py)
    assert result.value_a == pytest.approx(5.195939078623277, abs=1e-9)
    assert result.value_b == pytest.approx(3.78312437528474, abs=1e-9)
    assert [s["option"] for s in result.steps] == ["popularity", "unseen", "average"]
    assert sum(s["change"] for s in result.steps) == pytest.approx(
        result.value_b - result.value_a)
    # each step is the function with the options so far
    after_basis = novelty_score(ITEM, SCORE, query_id=USER, popularity="users",
                                average="rows", **DATA)
    assert result.steps[0]["value"] == pytest.approx(after_basis)
    assert result.queries == []  # pooled over rows on side a: no per-user start


def test_gini_from_recbole_to_lenskit_is_the_padding_item():
    result = explain_list_difference(ITEM, SCORE, query_id=USER, metric="gini@10",
                                     a="recbole", b="lenskit", n_items=45)
    assert [s["option"] for s in result.steps] == ["padding_item"]
    assert result.value_a == pytest.approx(0.2952173913043478, abs=1e-9)
    assert result.value_b == pytest.approx(0.27955555555555556, abs=2e-6)


def test_option_dicts_and_bad_sides():
    result = explain_list_difference(ITEM, SCORE, query_id=USER, metric="novelty@5",
                                     a={}, b={"base": np.e}, **DATA)
    assert [s["option"] for s in result.steps] == ["base"]
    assert result.value_b == pytest.approx(result.value_a * np.log(2))
    assert len(result.queries) == 5
    with pytest.raises(ValueError, match="`a` must be a library name"):
        explain_list_difference(ITEM, SCORE, query_id=USER, a="lightgbm", **DATA)
    with pytest.raises(ValueError, match="takes no option 'gain'"):
        explain_list_difference(ITEM, SCORE, query_id=USER, a={"gain": 1}, **DATA)
    with pytest.raises(ValueError, match="RecTools has no metric 'gini'"):
        explain_list_difference(ITEM, SCORE, query_id=USER, metric="gini", a="rectools")
