"""DCG and nDCG (skrank/metrics/_gain.py): hand-worked values.

Each expected value is written as its arithmetic and checked on both the
brute-force reference (tests/_reference.py) and skrank; the hypothesis
comparisons over random inputs are in test_reference.py.
"""

import math

import pytest

from .._checks import SPEC_REL, SPEC_SCORE, check_worked_example

LOG2 = math.log2

WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    # Binary labels: exponential gain 2^1 - 1 = 1 = linear gain.
    ("DCG@3", "dcg", SPEC_REL, SPEC_SCORE, {"k": 3},
     1 / LOG2(2) + 0 / LOG2(3) + 1 / LOG2(4)),  # = 1.5
    ("DCG@6", "dcg", SPEC_REL, SPEC_SCORE, {"k": 6},
     1 / LOG2(2) + 1 / LOG2(4) + 1 / LOG2(5) + 1 / LOG2(7)),  # ~ 2.2869
    ("nDCG@2", "ndcg", SPEC_REL, SPEC_SCORE, {"k": 2},
     (1 / LOG2(2)) / (1 / LOG2(2) + 1 / LOG2(3))),  # ~ 0.6131
    ("nDCG@6", "ndcg", SPEC_REL, SPEC_SCORE, {"k": 6},
     (1 / LOG2(2) + 1 / LOG2(4) + 1 / LOG2(5) + 1 / LOG2(7))
     / (1 / LOG2(2) + 1 / LOG2(3) + 1 / LOG2(4) + 1 / LOG2(5))),  # ~ 0.8928
    ("graded DCG exponential", "dcg", [3, 0, 2], [3, 2, 1], {},
     (2**3 - 1) / LOG2(2) + (2**2 - 1) / LOG2(4)),
    ("graded DCG linear", "dcg", [3, 0, 2], [3, 2, 1], {"gain": "linear"},
     3 / LOG2(2) + 2 / LOG2(4)),
    ("graded nDCG linear", "ndcg", [3, 0, 2], [3, 2, 1], {"gain": "linear"},
     (3 / LOG2(2) + 2 / LOG2(4)) / (3 / LOG2(2) + 2 / LOG2(3))),
    ("tied DCG@1 linear", "dcg", [1, 0], [0, 0], {"k": 1, "gain": "linear"},
     (1 + 0) / 2),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    check_worked_example(which, metric, y_true, y_score, kwargs, expected)
