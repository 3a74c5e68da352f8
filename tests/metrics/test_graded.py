"""graded_average_precision_score: AP on binary labels, properties and bad inputs.

Its hand-worked values (``EXAMPLES["gap"]`` in tests/_worked_examples.py) and
the hypothesis comparison with the paper's definition (a double sum over
ranks, brute force over tied orders: ``ref_gap``) run in test_reference.py.
"""

import numpy as np
import pytest

from skrank import average_precision_score, evaluate, graded_average_precision_score

from .. import _toolbox_reference as ref

gap = graded_average_precision_score


def test_default_probabilities_are_uniform_over_the_grades():
    grades = [3, 1, 0, 2, 2]
    score = [5, 4, 3, 2, 1]
    assert gap(grades, score) == pytest.approx(
        gap(grades, score, grade_probabilities=[1 / 3, 1 / 3, 1 / 3])
    )


def test_single_threshold_is_ap_of_that_threshold():
    rng = np.random.default_rng(0)
    grades = rng.integers(0, 4, size=50)
    score = rng.integers(0, 6, size=50).astype(float)
    query = rng.integers(0, 5, size=50)
    # all mass on threshold 2: AP with grades >= 2 relevant
    got = gap(grades, score, query_id=query, grade_probabilities=[0, 1, 0])
    assert got == pytest.approx(
        average_precision_score((grades >= 2).astype(int), score, query_id=query)
    )


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("k", [None, 3])
def test_equals_ap_on_binary_labels(ties, k):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, size=80)
    score = rng.integers(0, 5, size=80).astype(float)
    query = rng.integers(0, 9, size=80)
    weight = rng.random(80)
    kwargs = dict(query_id=query, ties=ties, k=k, sample_weight=weight)
    assert gap(y, score, **kwargs) == pytest.approx(
        average_precision_score(y, score, **kwargs), rel=1e-12
    )


def test_perfect_graded_ranking_scores_one_and_reversal_less():
    grades = np.array([3, 2, 2, 1, 0, 0])
    assert gap(grades, grades.astype(float)) == pytest.approx(1.0)
    assert gap(grades, -grades.astype(float)) < 1.0
    # swapping a grade-3 row below a grade-1 row lowers GAP (AP would not see it)
    swapped = [1, 2, 2, 3, 0, 0]
    assert gap(swapped, [6, 5, 4, 3, 2, 1]) < 1.0
    assert average_precision_score(swapped, [6, 5, 4, 3, 2, 1]) == 1.0


def test_constant_scorer_is_order_free():
    grades = [3, 0, 1, 2, 0]
    a = gap(grades, [0, 0, 0, 0, 0])
    b = gap(grades[::-1], [0, 0, 0, 0, 0])
    assert a == pytest.approx(b)
    expected = ref.expected_per_query(
        lambda order, y: ref.gap_of(order, y, g=[1 / 3] * 3), [0] * 5, None, y=grades)
    assert a == pytest.approx(expected[0])


def test_scorer_name():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, size=40)
    score = rng.random(40)
    query = rng.integers(0, 4, size=40)
    results = evaluate(y, score, query_id=query, metrics=["gap", "gap@5"])
    assert results["gap"] == pytest.approx(gap(y, score, query_id=query))
    assert results["gap@5"] == pytest.approx(gap(y, score, query_id=query, k=5))


def test_probability_mass_on_absent_grades_leaves_queries_out():
    # the only relevant row has grade 1 and g puts all mass on threshold 2
    with pytest.warns(Warning, match="No query is left"):
        assert np.isnan(gap([1, 0], [2, 1], grade_probabilities=[0, 1]))
    assert gap([1, 0], [2, 1], grade_probabilities=[0, 1], no_relevant="zero") == 0.0


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"y_true": [0.5, 1, 0]}, "y_true"),
        ({"y_true": [1, -1, 0]}, "y_true"),
        ({"grade_probabilities": [0.5, 0.6]}, "grade_probabilities"),
        ({"grade_probabilities": [1.5, -0.5]}, "grade_probabilities"),
        ({"grade_probabilities": [1.0]}, "grade_probabilities"),   # grade 2 present
        ({"grade_probabilities": [[0.5, 0.5]]}, "grade_probabilities"),
        ({"grade_probabilities": [np.nan, 1]}, "grade_probabilities"),
        ({"grade_probabilities": ["a", "b"]}, "grade_probabilities"),
        ({"k": 2.5}, "k"),
        ({"no_relevant": "drop"}, "no_relevant"),
        ({"query_id": [1, 2]}, "query_id"),
    ],
)
def test_bad_inputs_name_the_argument(kwargs, argument):
    args = {"y_true": [2, 0, 1], "y_score": [3, 2, 1]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=f"`{argument}`"):
        gap(args.pop("y_true"), args.pop("y_score"), **args)
