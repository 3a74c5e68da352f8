"""hits@k (skrank.hits_score, in skrank/metrics/_cutoff.py): hand-worked values and ranx.

The hand-worked values (``EXAMPLES["hits"]`` in tests/_worked_examples.py)
and the hypothesis comparison with the brute-force reference run in
test_reference.py, over every registry stem. ranx's ``hits`` is
the peer cross-check (marked ``peers``; skipped without ranx).
"""

import warnings

import numpy as np
import pytest

import skrank

from .._needs import needs

def test_two_dimensional_input_and_weights():
    # row 1: 2 hits in the top 2; row 2: 0; weights 3 and 1
    y = [[1, 1, 0], [0, 0, 1]]
    s = [[3, 2, 1], [3, 2, 1]]
    assert skrank.hits_score(y, s, k=2, sample_weight=[3, 1]) == (3 * 2 + 1 * 0) / 4


def test_unretrieved_relevant_row_is_never_a_hit():
    # the row scored -inf is judged but not retrieved
    assert skrank.hits_score([1, 0, 1], [2.0, 1.0, -np.inf]) == 1.0


def test_registry_names_evaluate_and_scorer():
    y = np.array([1, 0, 1, 0, 1, 1])
    s = np.array([0.9, 0.8, 0.7, 0.9, 0.8, 0.7])
    q = np.array([1, 1, 1, 2, 2, 2])
    # q1: relevant at ranks 1 and 3; q2: relevant at ranks 2 and 3
    result = skrank.evaluate(y, s, query_id=q, metrics=["hits", "hits@1", "hits@2"])
    assert result == {"hits": 2.0, "hits@1": (1 + 0) / 2, "hits@2": (1 + 1) / 2}
    assert "hits" in skrank.get_scorer_names()
    assert "hits@k" in skrank.get_scorer_names()
    scorer = skrank.get_scorer("hits@2")
    assert repr(scorer) == "make_ranking_scorer(hits_score, k=2)"
    assert scorer.greater_is_better

    class Fixed:  # an "estimator" whose scores are s
        def predict(self, X):
            return np.asarray(X, dtype=float)[:, 0]

    assert scorer(Fixed(), s[:, None], y, query_id=q) == (1 + 1) / 2


def test_bad_k_is_refused():
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        skrank.hits_score([1, 0], [2, 1], k=0)


# ---------------------------------------------------------------- ranx ----

@pytest.mark.peers
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_ranx(seed):
    ranx = needs("ranx")
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 15, size=12)
    query_id = np.repeat(rng.choice(np.arange(5, 500, 3), size=12, replace=False), lengths)
    y_true = rng.choice(4, size=query_id.size, p=[0.6, 0.2, 0.1, 0.1])
    y_score = rng.normal(size=query_id.size)  # no ties: ranx's tie order is its own
    order = rng.permutation(query_id.size)
    y_true, y_score, query_id = y_true[order], y_score[order], query_id[order]
    queries = np.unique(query_id)
    qrels = {str(q): {} for q in queries}
    run = {str(q): {} for q in queries}
    for i, (rel, score, q) in enumerate(zip(y_true, y_score, query_id)):
        qrels[str(q)][f"d{i}"] = int(rel)
        run[str(q)][f"d{i}"] = float(score)
    names = {"hits": None, "hits@1": 1, "hits@5": 5, "hits@10": 10}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba type-safety warnings
        expected = ranx.evaluate(qrels, run, list(names), return_mean=False)
    for name, k in names.items():
        # ranx scores a query without relevant row 0 and counts it
        got = skrank.hits_score(
            y_true, y_score, query_id=query_id, k=k, no_relevant="zero", aggregate=None
        )
        np.testing.assert_array_equal(got.query_id, queries)
        np.testing.assert_allclose(got.value, np.asarray(expected[name]), rtol=1e-12)
