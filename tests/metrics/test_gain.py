"""DCG and nDCG (skrank/metrics/_gain.py): hand-worked values.

The hand-worked values (``EXAMPLES`` of "dcg" and "ndcg" in
tests/_worked_examples.py) and the hypothesis comparisons with the
brute-force reference run in test_reference.py. Here: the gains at the
edges of float64 (huge and tiny grades).
"""

import math

import numpy as np
import pytest

from skrank import dcg_score, ndcg_score

from .. import _reference as ref

@pytest.mark.parametrize("metric", [dcg_score, ndcg_score])
@pytest.mark.parametrize("grade", [1024, 1100, 5000])
def test_exponential_gain_overflow_is_a_clear_error(metric, grade):
    with pytest.raises(ValueError, match=r"`y_true`.*gain='linear'"):
        metric([grade, 0, 1], [1, 2, 3], query_id=[1, 1, 2])


def test_linear_gain_takes_huge_grades():
    y, s, q = [1100, 0, 1, 0], [1, 2, 3, 4], [1, 1, 2, 2]
    expected = ref.ref_ndcg(y, s, query_id=q, gain="linear")
    assert ndcg_score(y, s, query_id=q, gain="linear") == pytest.approx(expected, rel=1e-12)


def test_one_huge_grade_does_not_touch_other_queries():
    # grade 1000: 2**1000 is finite; each query is scored on its own
    y = [1000, 0, 3, 0, 2, 1, 0, 1]
    s = [1, 2, 3, 4, 5, 6, 7, 8]
    q = [1, 1, 2, 2, 3, 3, 3, 4]
    got = ndcg_score(y, s, query_id=q, aggregate=None)
    expected = ref.ref_ndcg(y, s, query_id=q, per_query=True)
    np.testing.assert_allclose(got.value, [expected[i] for i in (1, 2, 3, 4)], rtol=1e-12)
    # the query with the huge grade: the relevant row ranks second
    assert got.value[0] == pytest.approx(1 / math.log2(3), rel=1e-12)


@pytest.mark.parametrize("grade", [1e-17, 1e-100, 3e-300])
def test_a_tiny_relevant_grade_keeps_a_gain(grade):
    # DCG = gain / log2(3), ideal DCG = gain: nDCG = 1/log2(3), however small the gain
    value = ndcg_score([grade, 0], [1, 2], no_relevant="error")
    assert value == pytest.approx(1 / math.log2(3), rel=1e-12)
    assert dcg_score([grade, 0], [2, 1]) == pytest.approx(grade * math.log(2), rel=1e-12)


def test_small_fractional_grades_use_the_exact_gain():
    y, s = [0.25, 0.5, 0, 0.75], [4, 3, 2, 1]
    expected = sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(y))
    assert dcg_score(y, s) == pytest.approx(expected, rel=1e-14)
