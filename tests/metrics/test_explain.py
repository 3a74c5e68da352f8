"""explain_difference: the two values, the path one option at a time, the queries that move."""

import numpy as np
import pytest

import skrank
from skrank import evaluate, explain_difference


def _data(seed=0):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(20), 8)
    y = rng.integers(0, 3, q.shape[0])
    y[q == 4] = 0  # a query without a relevant row
    s = rng.integers(0, 4, q.shape[0]).astype(float)  # heavy ties
    return y, s, q


def test_the_two_values_are_each_presets_number():
    y, s, q = _data()
    result = explain_difference(y, s, query_id=q, metric="ndcg@5", a="sklearn",
                                b="lightgbm")
    assert result.value_a == evaluate(y, s, query_id=q, metrics=["ndcg@5"],
                                      compat="sklearn")["ndcg@5"]
    assert result.value_b == pytest.approx(evaluate(
        y, s, query_id=q, metrics=["ndcg@5"], compat="lightgbm")["ndcg@5"])
    # sklearn -> lightgbm: average -> input ties, linear -> exponential gain,
    # no relevant row 0 -> 1; nothing else differs
    assert [step["option"] for step in result.steps] == ["ties", "gain", "no_relevant"]
    assert sum(step["change"] for step in result.steps) == pytest.approx(
        result.value_b - result.value_a)


def test_each_step_changes_one_option():
    y, s, q = _data(1)
    result = explain_difference(y, s, query_id=q, metric="ndcg@5", a="sklearn",
                                b="lightgbm")
    # the mean after the first step is sklearn's options with input ties
    first = skrank.ndcg_score(y, s, query_id=q, k=5, gain="linear", ties="input",
                              no_relevant="zero")
    assert result.steps[0]["value"] == pytest.approx(first)
    # the no_relevant step moves exactly the query without a relevant row
    last = result.steps[-1]
    assert last["option"] == "no_relevant" and last["queries_changed"] == 1
    assert last["change"] == pytest.approx(1 / 20)  # 0 -> 1 for one of 20 queries


def test_option_dicts_peer_names_and_cutoffs():
    y, s, q = _data(2)
    result = explain_difference(y, s, query_id=q, metric="ndcg", a={},
                                b="xgboost")
    options = [step["option"] for step in result.steps]
    # XGBoost's bare "ndcg" is ndcg@32, float32 scores, input ties, 1 without relevant
    assert options == ["score_dtype", "ties", "k", "no_relevant"]
    assert result.value_b == pytest.approx(skrank.ndcg_score(y, s, query_id=q,
                                                             compat="xgboost"))
    same = explain_difference(y, s, query_id=q, metric="ndcg@5", a="lightgbm",
                              b="lightgbm")
    assert same.steps == [] and same.value_a == same.value_b
    assert "same options" in repr(same)


def test_queries_that_move_most_come_first():
    y, s, q = _data(3)
    result = explain_difference(y, s, query_id=q, metric="ndcg@5", a="sklearn",
                                b="catboost", n_queries=3)
    moves = [abs(row["change"]) for row in result.queries]
    assert len(moves) <= 3 and moves == sorted(moves, reverse=True)
    a = evaluate(y, s, query_id=q, metrics=["ndcg@5"], compat="sklearn",
                 aggregate=None)["ndcg@5"]
    b = evaluate(y, s, query_id=q, metrics=["ndcg@5"], compat="catboost",
                 aggregate=None)["ndcg@5"]
    assert max(moves) == pytest.approx(np.nanmax(np.abs(b.value - a.value)))


def test_repr_and_frame():
    pytest.importorskip("pandas")
    y, s, q = _data(4)
    result = explain_difference(y, s, query_id=q, metric="map@10", a="trec_eval",
                                b="lightgbm")
    text = repr(result)
    assert text.startswith("map@10:") and "normalize: 'relevant' -> 'min'" in text
    frame = result.to_frame()
    assert list(frame["option"][1:]) == [step["option"] for step in result.steps]
    assert frame["value"].iloc[-1] == pytest.approx(result.value_b)


def test_errors():
    y, s, q = _data()
    with pytest.raises(ValueError, match="`a`"):
        explain_difference(y, s, query_id=q, a="lgbm")
    with pytest.raises(ValueError, match="LightGBM has no metric 'mrr'"):
        explain_difference(y, s, query_id=q, metric="mrr", a="trec_eval", b="lightgbm")
    with pytest.raises(ValueError, match="takes no option 'gian'"):
        explain_difference(y, s, query_id=q, metric="ndcg", a={"gian": "linear"},
                           b="sklearn")
