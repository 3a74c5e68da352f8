"""P@k, R@k, F-beta@k and R-precision (skrank/metrics/_cutoff.py).

The hand-worked values (``EXAMPLES`` of "precision", "recall", "f1",
"r_precision" and "hits" in tests/_worked_examples.py) and the hypothesis
comparisons with the brute-force reference run in test_reference.py, over
every registry stem.
"""

import numpy as np
import pytest

from skrank import precision_at_k_score


def test_precision_of_the_whole_list_divides_by_retrieved_or_all_rows():
    # the row scored -inf is not retrieved: 1 hit among the 2 retrieved rows,
    # or among all 3 rows with normalize="min" (torchmetrics' top_k=None)
    y, s = [1, 0, 1], [2.0, 1.0, -np.inf]
    assert precision_at_k_score(y, s) == pytest.approx(1 / 2)
    assert precision_at_k_score(y, s, normalize="min") == pytest.approx(1 / 3)
