"""evaluate(**options): each option reaches the metrics that take it."""

import warnings

import numpy as np
import pytest

import skrank
from skrank import evaluate

from .. import _reference as ref

RNG = np.random.default_rng(3)
Y = RNG.integers(0, 4, 120)
S = np.round(RNG.normal(size=120), 1)
Q = RNG.integers(0, 12, 120)


def test_gain_linear_equals_ndcg_score_with_gain_linear():
    result = evaluate(Y, S, query_id=Q, metrics=["ndcg@10", "ndcg", "dcg@3", "mrr"],
                      gain="linear")
    assert result["ndcg@10"] == skrank.ndcg_score(Y, S, query_id=Q, k=10, gain="linear")
    assert result["ndcg"] == skrank.ndcg_score(Y, S, query_id=Q, gain="linear")
    assert result["dcg@3"] == skrank.dcg_score(Y, S, query_id=Q, k=3, gain="linear")
    # and from the definition: linear gain is the relevance itself
    assert result["ndcg@10"] == pytest.approx(
        ref.ref_ndcg(Y, S, k=10, gain="linear", query_id=Q))
    # a metric without a gain keeps its usual value
    assert result["mrr"] == skrank.reciprocal_rank_score(Y, S, query_id=Q)


def test_gain_linear_on_2d_input_equals_scikit_learn():
    from sklearn.metrics import ndcg_score as sk_ndcg

    y2, s2 = Y[:40].reshape(8, 5), S[:40].reshape(8, 5)
    y2[:, 0] = np.maximum(y2[:, 0], 1)  # every ranking has a relevant row
    result = evaluate(y2, s2, metrics=["ndcg@3"], gain="linear")
    assert result["ndcg@3"] == pytest.approx(sk_ndcg(y2, s2, k=3))


def test_several_options_each_go_to_their_metrics():
    y = (Y > 1).astype(int)
    result = evaluate(y, S, query_id=Q, metrics=["map@5", "fap@5", "rbp", "precision@5"],
                      normalize="min", beta=2.0, p=0.5)
    assert result["map@5"] == skrank.average_precision_score(
        y, S, query_id=Q, k=5, normalize="min")
    assert result["fap@5"] == skrank.fap_score(y, S, query_id=Q, k=5, beta=2.0)
    assert result["rbp"] == skrank.rbp_score(y, S, query_id=Q, p=0.5)
    assert result["precision@5"] == skrank.precision_at_k_score(y, S, query_id=Q, k=5)


def test_options_work_with_per_query_output_and_weights():
    weight = RNG.uniform(0.5, 2, Y.shape[0])
    result = evaluate(Y, S, query_id=Q, metrics=["ndcg@5"], gain="linear",
                      aggregate=None, sample_weight=weight, ties="input",
                      no_relevant="zero")
    expected = skrank.ndcg_score(Y, S, query_id=Q, k=5, gain="linear", aggregate=None,
                                 sample_weight=weight, ties="input", no_relevant="zero")
    np.testing.assert_array_equal(result["ndcg@5"].value, expected.value)
    np.testing.assert_array_equal(result["ndcg@5"].query_id, expected.query_id)


def test_gauc_takes_its_weighting_option():
    y = (Y > 1).astype(int)
    result = evaluate(y, S, query_id=Q, metrics=["gauc", "map"], weighting="uniform")
    assert result["gauc"] == skrank.gauc_score(y, S, query_id=Q, weighting="uniform")


def test_an_option_no_metric_takes_is_a_clear_error():
    with pytest.raises(ValueError, match=r"No requested metric takes the option 'gaen'") as info:
        evaluate(Y, S, query_id=Q, metrics=["ndcg@10", "map"], gaen="linear")
    message = str(info.value)
    assert "ndcg@10: discount, gain" in message and "map: normalize" in message
    with pytest.raises(ValueError, match="options 'beta', 'p'"):
        evaluate(Y, S, query_id=Q, metrics=["ndcg"], beta=2.0, p=0.5)


def test_an_option_fixed_by_the_name_is_not_overridden():
    with pytest.raises(ValueError, match=r"'f1@5' fixes beta=1.0 by its name"):
        evaluate(Y, S, query_id=Q, metrics=["f1@5"], beta=2.0)
    # with a metric that takes it, only that metric gets it
    y = (Y > 1).astype(int)
    result = evaluate(y, S, query_id=Q, metrics=["f1@5", "fap@5"], beta=2.0)
    assert result["f1@5"] == skrank.fbeta_at_k_score(y, S, query_id=Q, k=5, beta=1.0)
    assert result["fap@5"] == skrank.fap_score(y, S, query_id=Q, k=5, beta=2.0)


def test_a_bad_option_value_gets_the_metric_s_own_error():
    with pytest.raises(ValueError, match="`gain` must be one of"):
        evaluate(Y, S, query_id=Q, metrics=["ndcg"], gain="quadratic")


def test_options_that_change_the_return_type_are_not_offered():
    with pytest.raises(ValueError, match="No requested metric takes"):
        evaluate((Y > 1).astype(int), S, query_id=Q, metrics=["rbp"],
                 return_residual=True)


def test_label_scores_warn_once_even_with_options():
    y = (Y > 1).astype(int)
    labels = (S > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(y, labels, query_id=Q, metrics=["ndcg", "map", "dcg@3"], gain="linear")
    messages = [str(w.message) for w in caught if "only the values 0 and 1" in str(w.message)]
    assert len(messages) == 1
