"""set_fbeta_score: the F-beta of each query's returned rows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import get_scorer, set_fbeta_score


def _brute(y_true, y_pred, query, beta, weight):
    values, weights = [], []
    for q in sorted(set(query)):
        rows = [i for i, x in enumerate(query) if x == q]
        relevant = sum(1 for i in rows if y_true[i] > 0)
        if relevant == 0:
            continue
        tp = sum(1 for i in rows if y_true[i] > 0 and y_pred[i] == 1)
        returned = sum(1 for i in rows if y_pred[i] == 1)
        values.append((1 + beta**2) * tp / (beta**2 * relevant + returned) if tp else 0.0)
        weights.append(sum(weight[i] for i in rows) / len(rows))
    return sum(v * w for v, w in zip(values, weights)) / sum(weights)


@settings(max_examples=80, deadline=None, derandomize=True, database=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 1), st.integers(0, 4),
                       st.floats(0.1, 3)), min_size=1, max_size=30),
    st.sampled_from([0.5, 1.0, 2.0]),
)
def test_matches_brute_force(rows, beta):
    y_true, y_pred, query, weight = (list(column) for column in zip(*rows))
    if not any(y > 0 for y in y_true):
        return
    expected = _brute(y_true, y_pred, query, beta, weight)
    got = set_fbeta_score(y_true, y_pred, query_id=query, beta=beta, sample_weight=weight)
    assert got == pytest.approx(expected, rel=1e-12)


def test_hand_worked_example():
    # query 1: returns 2 of its 3 relevant rows and 1 other: F1 = 2*2 / (3 + 3)
    # query 2: returns nothing: F1 = 0
    y_true = [1, 1, 1, 0, 1, 0]
    y_pred = [1, 1, 0, 1, 0, 0]
    query = [1, 1, 1, 1, 2, 2]
    assert set_fbeta_score(y_true, y_pred, query_id=query) == pytest.approx(
        (2 * 2 / (3 + 3) + 0) / 2
    )


def test_y_pred_must_be_zero_one():
    with pytest.raises(ValueError, match="`y_pred` must be 0/1"):
        set_fbeta_score([1, 0], [0.7, 0.2])
    with pytest.raises(ValueError, match="`y_pred` contains NaN"):
        set_fbeta_score([1, 0], [1, np.nan])
    with pytest.raises(ValueError, match="`beta`"):
        set_fbeta_score([1, 0], [1, 0], beta=0)


def test_scorer_scores_the_decisions_and_passes_query_ids():
    class TopOne:
        """Returns the first row of each query: predict takes query ids."""

        def predict(self, X, query_id):
            query_id = np.asarray(query_id)
            first = np.r_[True, query_id[1:] != query_id[:-1]]
            return first.astype(int)

    scorer = get_scorer("set_f1")
    y = np.array([1, 0, 0, 1])
    query = np.array([1, 1, 2, 2])
    # query 1 returns its relevant row (F1 1); query 2 returns the other (F1 0)
    assert scorer(TopOne(), np.zeros((4, 1)), y, query_id=query) == pytest.approx(0.5)


def test_a_huge_or_tiny_beta_gives_the_limits_not_nan():
    y_true = [1, 1, 0, 0, 1, 0]
    y_pred = [1, 0, 1, 0, 1, 1]
    query = ["a", "a", "a", "b", "b", "b"]
    # beta -> inf: recall (a: 1/2, b: 1/1); beta -> 0: precision (a: 1/2, b: 1/2)
    assert set_fbeta_score(y_true, y_pred, query_id=query, beta=1e155) == pytest.approx(0.75)
    assert set_fbeta_score(y_true, y_pred, query_id=query, beta=1e300) == pytest.approx(0.75)
    assert set_fbeta_score(y_true, y_pred, query_id=query, beta=1e-200) == pytest.approx(0.5)
