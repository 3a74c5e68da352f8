"""AUC and group AUC (skrank/metrics/_auc.py): hand-worked values.

Each expected value is written as its arithmetic and checked on both the
brute-force reference (tests/_reference.py) and skrank; the hypothesis
comparisons over random inputs are in test_reference.py.
"""

import pytest

from .._checks import check_worked_example

WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    # AUC: positives 0.35 and 0.8 against negatives 0.1 and 0.4: 3 of 4 pairs won.
    ("AUC", "gauc", [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8],
     {"query_id": [7, 7, 7, 7]}, 3 / 4),
    # ... and a tie 0.4 vs 0.4 counts 1/2.
    ("AUC tie", "gauc", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8],
     {"query_id": [7, 7, 7, 7]}, (1 + 1 / 2 + 1 + 1) / 4),
    ("AUC tie 2-D", "gauc", [[0, 0, 1, 1]], [[0.1, 0.4, 0.4, 0.8]], {},
     (1 + 1 / 2 + 1 + 1) / 4),
    # Tie in input order: the positive (row 2) follows the negative (row 1).
    ("AUC tie input", "gauc", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8],
     {"query_id": [7, 7, 7, 7], "ties": "input"}, (1 + 0 + 1 + 1) / 4),
    # GAUC: user a AUC 1 (2 rows), user b AUC 1/2 (3 rows), user c one class.
    ("GAUC samples", "gauc", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
     {"query_id": ["a", "a", "b", "b", "b", "c"]}, (2 * 1 + 3 * (1 / 2)) / (2 + 3)),
    ("GAUC uniform", "gauc", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
     {"query_id": ["a", "a", "b", "b", "b", "c"], "weighting": "uniform"},
     (1 + 1 / 2) / 2),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    check_worked_example(which, metric, y_true, y_score, kwargs, expected)
