"""AUC and group AUC (skrank/metrics/_auc.py).

The hand-worked values (``EXAMPLES["gauc"]`` in tests/_worked_examples.py)
and the hypothesis comparison with the brute-force reference run in
test_reference.py, over every registry stem.
"""

import pytest

from skrank import gauc_score


def test_gauc_requires_query_id_for_1d_input():
    with pytest.raises(ValueError, match="query_id"):
        gauc_score([0, 1], [0.1, 0.2])
