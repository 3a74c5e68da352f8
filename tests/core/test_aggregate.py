"""no_relevant policies, per-query output and the empty-mean warning."""

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from skrank import QueryValues, average_precision_score, gauc_score, ndcg_score

from .._checks import check_worked_example

# query 1: AP 1 (relevant row first); query 2: no relevant row; query 3: AP 1/2
Y = [1, 0, 0, 0, 0, 1]
S = [2, 1, 2, 1, 2, 1]
Q = [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize(
    "policy, expected",
    [("skip", (1 + 1 / 2) / 2), ("zero", (1 + 0 + 1 / 2) / 3), ("one", (1 + 1 + 1 / 2) / 3)],
)
def test_no_relevant_policies(policy, expected):
    assert average_precision_score(Y, S, query_id=Q, no_relevant=policy) == pytest.approx(
        expected
    )


def test_per_query_output():
    result = average_precision_score(Y, S, query_id=Q, aggregate=None)
    assert isinstance(result, QueryValues)
    np.testing.assert_array_equal(result.query_id, [1, 2, 3])
    np.testing.assert_allclose(result.value, [1, np.nan, 1 / 2])
    np.testing.assert_allclose(result.weight, [1, 1, 1])


def test_weighted_mean_uses_mean_row_weight_per_query():
    weight = [1, 3, 5, 5, 1, 1]  # query weights 2, 5, 1
    expected = (2 * 1 + 1 * 1 / 2) / (2 + 1)
    assert average_precision_score(
        Y, S, query_id=Q, sample_weight=weight
    ) == pytest.approx(expected)


def test_nothing_left_warns_and_returns_nan():
    with pytest.warns(UndefinedMetricWarning, match="No query is left"):
        value = ndcg_score([0, 0, 0], [1, 2, 3], query_id=[1, 1, 2])
    assert np.isnan(value)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(gauc_score([1, 1, 0], [1, 2, 3], query_id=[1, 1, 2]))


def test_zero_weights_everywhere_warn():
    with pytest.warns(UndefinedMetricWarning):
        value = ndcg_score([1, 0], [1, 2], sample_weight=[0, 0])
    assert np.isnan(value)


@pytest.mark.parametrize(
    "weights",
    [[1e308, 1e308, 1e300, 1e300], [5e-324, 5e-324, 1e-323, 1e-323],
     [1e308, 1e308, 5e-324, 5e-324], [1.7e308, 1.7e308, 1.7e308, 1.7e308]],
)
def test_extreme_sample_weights_give_the_exact_weighted_mean(weights):
    from fractions import Fraction

    # query 1 (rows 1-2) scores 1, query 2 (rows 3-4) scores 0 at k=1
    y, s, q = [1, 0, 0, 1], [2, 1, 2, 1], [1, 1, 2, 2]
    w1, w2 = (Fraction(weights[0]) + Fraction(weights[1])) / 2, (
        Fraction(weights[2]) + Fraction(weights[3])) / 2
    expected = float(w1 / (w1 + w2))
    from skrank import precision_at_k_score

    got = precision_at_k_score(y, s, k=1, query_id=q, sample_weight=weights)
    assert got == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("weight", [1e308, 5e-324, 1e-200])
def test_gauc_with_extreme_weights_equals_unit_weights(weight):
    y, s, q = [1, 0, 1, 0, 1, 0, 0], [2, 1, 1, 2, 3, 3, 1], [1, 1, 2, 2, 3, 3, 3]
    expected = gauc_score(y, s, query_id=q)
    assert gauc_score(y, s, query_id=q, sample_weight=[weight] * 7) == pytest.approx(
        expected, rel=1e-15)


# no_relevant, worked by hand on P@k
WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    # no_relevant: query 2 has no relevant row.
    ("skip", "precision", [1, 0, 0, 0], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "k": 1}, 1.0),
    ("zero", "precision", [1, 0, 0, 0], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "k": 1, "no_relevant": "zero"}, (1 + 0) / 2),
    ("one", "precision", [1, 0, 0, 0], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "k": 2, "no_relevant": "one"}, (1 / 2 + 1) / 2),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    check_worked_example(which, metric, y_true, y_score, kwargs, expected)
