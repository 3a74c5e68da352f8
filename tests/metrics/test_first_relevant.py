"""Reciprocal rank (MRR) and hit rate (skrank/metrics/_first_relevant.py): hand-worked values.

Each expected value is written as its arithmetic and checked on both the
brute-force reference (tests/_reference.py) and skrank; the hypothesis
comparisons over random inputs are in test_reference.py.
"""

import pytest

from .._checks import check_worked_example

WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    ("RR", "rr", [0, 0, 1, 1], [4, 3, 2, 1], {}, 1 / 3),
    ("RR@2 misses", "rr", [0, 0, 1, 1], [4, 3, 2, 1], {"k": 2}, 0.0),
    ("hit@1", "hit_rate", [0, 1], [2, 1], {"k": 1}, 0.0),
    ("hit@2", "hit_rate", [0, 1], [2, 1], {"k": 2}, 1.0),
    # ---- ties, expected value over the orders of the tied rows ----
    # [1, 0] tied: orders 10 and 01.
    ("tied RR", "rr", [1, 0], [0.5, 0.5], {}, (1 / 1 + 1 / 2) / 2),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    check_worked_example(which, metric, y_true, y_score, kwargs, expected)
