"""set_fbeta_score: the F-beta of each query's returned rows.

Its hand-worked values (``EXAMPLES["set_f1"]`` in tests/_worked_examples.py)
and the hypothesis comparison with the brute-force reference
(``ref_set_fbeta``) run in test_reference.py.
"""

import numpy as np
import pytest

from skrank import get_scorer, set_fbeta_score


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
