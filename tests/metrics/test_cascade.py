"""ERR and PFound: definitions, the exact expectation over tie orders, CatBoost."""

import itertools

import numpy as np
import pytest

from skrank import err_score, evaluate, pfound_score
from skrank.metrics._cascade import relevance_probability


def _cascade(stop, weights):
    """Sum of weight(i) * P(the user stops at i), by the definition."""
    total, reading = 0.0, 1.0
    for probability, weight in zip(stop, weights):
        total += weight * reading * probability
        reading *= 1.0 - probability
    return total


def _brute(y, s, k, weight_of):
    """Mean over every order of the tied rows (rows by descending score)."""
    y, s = np.asarray(y, float), np.asarray(s, float)
    values = []
    for perm in itertools.permutations(range(len(y))):
        ranked = np.array(perm)
        if not all(s[a] >= s[b] for a, b in zip(ranked, ranked[1:])):
            continue  # not a descending order of the scores
        stop = y[ranked][:k]
        values.append(_cascade(stop, [weight_of(i) for i in range(1, len(stop) + 1)]))
    return np.mean(values)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 2, 4])
def test_average_ties_are_the_mean_over_orders(seed, k):
    rng = np.random.default_rng(seed)
    y = rng.choice([0.0, 0.25, 0.5, 1.0], size=6)
    y[0] = 1.0
    s = rng.integers(0, 3, 6).astype(float)
    want = _brute(y, s, k, lambda i: 1.0 / i)
    assert err_score(y, s, k=k) == pytest.approx(want)
    want = _brute(y, s, k, lambda i: 0.7 ** (i - 1))
    assert pfound_score(y, s, k=k, decay=0.7) == pytest.approx(want)


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
