"""P@k, R@k, F-beta@k and R-precision (skrank/metrics/_cutoff.py): hand-worked values.

Each expected value is written as its arithmetic and checked on both the
brute-force reference (tests/_reference.py) and skrank; the hypothesis
comparisons over random inputs are in test_reference.py.
"""

import pytest

from .._checks import SPEC_REL, SPEC_SCORE, check_worked_example

WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    # id, metric, y_true, y_score, kwargs, expected
    ("P@1", "precision", SPEC_REL, SPEC_SCORE, {"k": 1}, 1 / 1),
    ("P@4", "precision", SPEC_REL, SPEC_SCORE, {"k": 4}, 3 / 4),
    ("P@8", "precision", SPEC_REL, SPEC_SCORE, {"k": 8}, 4 / 8),
    ("P@None", "precision", SPEC_REL, SPEC_SCORE, {}, 4 / 8),
    ("P@10 divides by k", "precision", SPEC_REL, SPEC_SCORE, {"k": 10}, 4 / 10),
    ("R@4", "recall", SPEC_REL, SPEC_SCORE, {"k": 4}, 3 / 4),
    # F1 = 2PR / (P + R)
    ("F1@1", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 1},
     2 * (1 / 1) * (1 / 4) / (1 / 1 + 1 / 4)),
    ("F1@3", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 3},
     2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4)),  # = 4/7, not 0.62
    ("F1@4", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 4},
     2 * (3 / 4) * (3 / 4) / (3 / 4 + 3 / 4)),
    ("F1@8", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 8},
     2 * (4 / 8) * (4 / 4) / (4 / 8 + 4 / 4)),  # = 2/3
    ("F2@4", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 4, "beta": 2.0},
     5 * (3 / 4) * (3 / 4) / (4 * 3 / 4 + 3 / 4)),
    ("R-precision", "r_precision", SPEC_REL, SPEC_SCORE, {}, 3 / 4),
    ("tied P@1", "precision", [1, 0, 0], [1, 1, 1], {"k": 1}, 1 / 3),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    check_worked_example(which, metric, y_true, y_score, kwargs, expected)
