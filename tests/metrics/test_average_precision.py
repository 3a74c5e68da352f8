"""Average precision (MAP) (skrank/metrics/_average_precision.py).

The hand-worked values (``EXAMPLES["map"]`` in tests/_worked_examples.py) and
the hypothesis comparison with the brute-force reference run in
test_reference.py, over every registry stem.
"""

import pytest
from sklearn.metrics import average_precision_score as sk_average_precision_score

from skrank import average_precision_score


def test_threshold_tie_blocks_count_each_block_once():
    # blocks {1, 0} (score 2) and {1} (score 1): precision 1/2 at the first
    # block's end times the recall 1/2 it adds, then 2/3 times 1/2
    y, s = [1, 0, 1], [2, 2, 1]
    expected = (1 / 2) * (1 / 2) + (2 / 3) * (1 / 2)
    assert average_precision_score(y, s, tie_blocks="threshold") == pytest.approx(expected)
    assert sk_average_precision_score(y, s) == pytest.approx(expected)
    # the expected AP over the two orders of the tied block differs:
    # 1, 0, 1 gives (1 + 2/3) / 2 and 0, 1, 1 gives (1/2 + 2/3) / 2
    assert average_precision_score(y, s) == pytest.approx(
        ((1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 2)
