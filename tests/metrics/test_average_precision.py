"""Average precision (MAP) (skrank/metrics/_average_precision.py): hand-worked values.

Each expected value is written as its arithmetic and checked on both the
brute-force reference (tests/_reference.py) and skrank; the hypothesis
comparisons over random inputs are in test_reference.py.
"""

import pytest

from .._checks import SPEC_REL, SPEC_SCORE, check_worked_example

WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    ("AP", "ap", SPEC_REL, SPEC_SCORE, {}, (1 / 1 + 2 / 3 + 3 / 4 + 4 / 6) / 4),
    ("AP@3 relevant", "ap", SPEC_REL, SPEC_SCORE, {"k": 3}, (1 / 1 + 2 / 3) / 4),
    ("AP@3 min", "ap", SPEC_REL, SPEC_SCORE, {"k": 3, "normalize": "min"},
     (1 / 1 + 2 / 3) / 3),
    ("AP@3 retrieved", "ap", SPEC_REL, SPEC_SCORE,
     {"k": 3, "normalize": "retrieved"}, (1 / 1 + 2 / 3) / 2),
    # [1, 1, 0] all tied: 110 (AP 1), 101 (AP (1 + 2/3)/2), 011 (AP (1/2 + 2/3)/2),
    # each relevance sequence from 2 of the 6 permutations.
    ("tied AP", "ap", [1, 1, 0], [2, 2, 2], {},
     (1 + (1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 3),
    ("tied AP input", "ap", [0, 1, 1], [2, 2, 2], {"ties": "input"},
     (1 / 2 + 2 / 3) / 2),
    # Two queries, query weight = mean of row weights: q1 weight (1+3)/2 = 2,
    # AP 1; q2 weight 1, AP (1/2) / 1.
    ("weighted MAP", "ap", [1, 0, 0, 1], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "sample_weight": [1, 3, 1, 1]},
     (2 * 1 + 1 * (1 / 2)) / (2 + 1)),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    check_worked_example(which, metric, y_true, y_score, kwargs, expected)
