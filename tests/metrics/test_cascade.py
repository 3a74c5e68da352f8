"""ERR and PFound: ERR as RR on binary labels, the grade mapping, CatBoost.

Their hand-worked values (``EXAMPLES`` of "err" and "pfound" in
tests/_worked_examples.py) and the hypothesis comparisons with the
definitions, averaged over tie orders (``ref_err``, ``ref_pfound``), run in
test_reference.py.
"""

import numpy as np
import pytest

from skrank import err_score, evaluate
from skrank.metrics._cascade import relevance_probability


def test_err_on_binary_relevance_is_the_reciprocal_rank():
    from skrank import reciprocal_rank_score

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40)
    s = rng.integers(0, 5, 40).astype(float)
    q = np.repeat(np.arange(8), 5)
    assert err_score(y, s, query_id=q) == pytest.approx(
        reciprocal_rank_score(y, s, query_id=q))


def test_grade_mapping():
    g = np.array([0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(relevance_probability(g), (2**g - 1) / 8)
    np.testing.assert_allclose(relevance_probability(g, 4), (2**g - 1) / 16)
    np.testing.assert_allclose(relevance_probability(g / 4), g / 4)  # within [0, 1]
    with pytest.raises(ValueError, match="max_grade"):
        err_score([0, 3], [1, 0], max_grade=2)


@pytest.mark.peers
@pytest.mark.parametrize("ties", ["heavy", "none"])
def test_catboost(ties):
    pytest.importorskip("catboost", reason="CatBoost is not installed")
    from catboost.utils import eval_metric

    rng = np.random.default_rng(2)
    sizes = [1, 3, 9, 40, 6]
    q = np.repeat(np.arange(len(sizes)), sizes)
    y = rng.choice([0.0, 0.3, 1.0], size=q.shape[0])
    y[q == 2] = 0
    s = rng.integers(0, 4, q.shape[0]).astype(float) if ties == "heavy" else rng.normal(
        size=q.shape[0])
    names = ["ERR", "ERR:top=3", "PFound", "PFound:top=5;decay=0.5"]
    got = evaluate(y, s, query_id=q, metrics=names, compat="catboost")
    for name in names:
        assert got[name] == pytest.approx(eval_metric(y, s, name, group_id=q)[0]), name
