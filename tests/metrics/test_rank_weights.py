"""rank_decay_weights and weighted_average_precision_score: hand examples, brute
force over tied orders, scikit-learn's weighted ROC AUC, bad inputs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from skrank import (
    average_precision_score,
    rank_decay_weights,
    weighted_average_precision_score,
)

from .. import _reference
from .. import _toolbox_reference as ref

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def test_weights_restart_in_every_query_in_input_order():
    score = [0.2, 0.9, 0.5, 0.7, 0.1]
    query = ["b", "a", "b", "a", "b"]
    # query a: 0.9 (rank 1), 0.7 (rank 2); query b: 0.5, 0.2, 0.1
    expected = [0.5, 1.0, 1.0, 0.5, 0.25]
    np.testing.assert_allclose(
        rank_decay_weights(score, decay=0.5, query_id=query), expected
    )


def test_tied_rows_share_the_mean_weight_of_their_positions():
    # ranks 1, then a tie over ranks 2-3, then rank 4
    got = rank_decay_weights([3, 2, 2, 1], decay=0.5)
    np.testing.assert_allclose(got, [1, (0.5 + 0.25) / 2, (0.5 + 0.25) / 2, 0.125])
    np.testing.assert_allclose(
        rank_decay_weights([3, 2, 2, 1], decay=0.5, ties="input"), [1, 0.5, 0.25, 0.125]
    )


def test_decay_one_and_two_dimensional_input():
    np.testing.assert_array_equal(rank_decay_weights([1, 5, 3], decay=1), [1, 1, 1])
    score = np.array([[0.1, 0.3, 0.2], [3.0, 2.0, 1.0]])
    np.testing.assert_allclose(
        rank_decay_weights(score, decay=0.5), [[0.25, 1, 0.5], [1, 0.5, 0.25]]
    )


@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=1, max_size=7),
       st.lists(st.sampled_from([1, 2]), min_size=7, max_size=7))
def test_weights_are_the_expected_weight_over_tied_orders(score, query):
    query = query[: len(score)]
    decay = 0.7
    expected = np.zeros(len(score))
    for rows in ref.split_queries(query, len(score)).values():
        orders = list(_reference.orderings([score[r] for r in rows]))
        for order in orders:
            for position, i in enumerate(order):
                expected[rows[i]] += decay**position / len(orders)
    np.testing.assert_allclose(
        rank_decay_weights(score, decay=decay, query_id=query), expected
    )


def test_top_weighted_roc_auc_by_hand():
    y = [1, 0, 1, 0]
    score = [0.9, 0.8, 0.7, 0.1]
    w = rank_decay_weights(score, decay=0.5)  # 1, 0.5, 0.25, 0.125
    # each (positive, negative) pair counts with the product of the weights
    in_order = 1 * 0.5 + 1 * 0.125 + 0.25 * 0.125
    total = in_order + 0.25 * 0.5                  # (0.7, 0.8) is reversed
    assert roc_auc_score(y, score, sample_weight=w) == pytest.approx(in_order / total)
    # top-weighting punishes a mistake at the top more than one further down
    s = [6, 5, 4, 3, 2, 1]
    w = rank_decay_weights(s, decay=0.5)
    top_mistake = [0, 1, 1, 1, 0, 0]          # a negative first
    low_mistake = [1, 1, 0, 1, 0, 0]          # a negative third
    assert (roc_auc_score(top_mistake, s, sample_weight=w)
            < roc_auc_score(top_mistake, s))
    assert (roc_auc_score(low_mistake, s, sample_weight=w)
            > roc_auc_score(low_mistake, s))


def test_weighted_ap_hand_example():
    y = [1, 0, 1, 1]
    w = [1.0, 0.5, 0.25, 0.125]
    expected = (1 * 1 + 0.25 * 2 / 3 + 0.125 * 3 / 4) / (1 + 0.25 + 0.125)
    assert weighted_average_precision_score(y, [4, 3, 2, 1], rank_weights=w) == (
        pytest.approx(expected)
    )
    # k=2 keeps the denominator: only rank 1 counts in the numerator
    assert weighted_average_precision_score(y, [4, 3, 2, 1], rank_weights=w, k=2) == (
        pytest.approx(1 / (1 + 0.25 + 0.125))
    )


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 2])
def test_equal_weights_give_ap(ties, k):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=70)
    score = rng.integers(0, 4, size=70).astype(float)
    query = rng.integers(0, 8, size=70)
    kwargs = dict(query_id=query, ties=ties, k=k)
    assert weighted_average_precision_score(
        y, score, rank_weights=np.full(70, 3.0), **kwargs
    ) == pytest.approx(average_precision_score(y, score, **kwargs), rel=1e-12)


@st.composite
def weighted_inputs(draw, max_rows=8):
    n = draw(st.integers(1, max_rows))
    y = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    score = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    query = draw(st.lists(st.sampled_from([1, 2]), min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=n, max_size=n))
    return np.array(y), np.array(score, dtype=float), np.array(query), np.array(w)


@SETTINGS
@given(weighted_inputs(), st.sampled_from(["average", "input"]),
       st.sampled_from([None, 1, 3]))
def test_weighted_ap_matches_brute_force(data, ties, k):
    y, score, query, w = data
    expected = ref.expected_per_query(
        lambda order, y, w: ref.weighted_ap_of(order, y, w, k=k), score, query, ties,
        y=y.tolist(), w=w.tolist())
    got = weighted_average_precision_score(y, score, rank_weights=w, query_id=query,
                                           ties=ties, k=k, aggregate=None)
    np.testing.assert_array_equal(got.query_id, list(expected))
    np.testing.assert_allclose(got.value, list(expected.values()), rtol=1e-9,
                               atol=1e-12, equal_nan=True)


def test_decay_weighted_ap_favours_early_precision():
    # same AP, but the first has its early relevant rows precise
    s = [6, 5, 4, 3, 2, 1]
    a, b = [1, 1, 0, 0, 0, 1], [1, 0, 0, 1, 1, 0]
    w = rank_decay_weights(s, decay=0.5)
    assert weighted_average_precision_score(a, s, rank_weights=w) > (
        weighted_average_precision_score(b, s, rank_weights=w)
    )


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: rank_decay_weights([1, 2], decay=0), "decay"),
        (lambda: rank_decay_weights([1, 2], decay=1.5), "decay"),
        (lambda: rank_decay_weights([1, np.nan]), "y_score"),
        (lambda: rank_decay_weights([1, 2], query_id=[1]), "query_id"),
        (lambda: rank_decay_weights([1, 2], ties="random"), "ties"),
        (lambda: rank_decay_weights([]), "y_score"),
        (lambda: weighted_average_precision_score([1, 0], [1, 2], rank_weights=[1]),
         "rank_weights"),
        (lambda: weighted_average_precision_score([1, 0], [1, 2], rank_weights=[1, -1]),
         "rank_weights"),
        (lambda: weighted_average_precision_score([1, 0], [1, 2],
                                                  rank_weights=[1, np.inf]),
         "rank_weights"),
        (lambda: weighted_average_precision_score([1, 0], [1, 2], rank_weights=[1, 1],
                                                  k=0), "k"),
        (lambda: weighted_average_precision_score([1, -1], [1, 2], rank_weights=[1, 1]),
         "y_true"),
    ],
)
def test_bad_inputs_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=f"`{argument}`"):
        call()


def test_inputs_are_not_modified():
    score = np.array([3.0, 1.0, 2.0])
    w = np.array([1.0, 2.0, 3.0])
    rank_decay_weights(score)
    weighted_average_precision_score([1, 0, 1], score, rank_weights=w)
    np.testing.assert_array_equal(score, [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(w, [1.0, 2.0, 3.0])
