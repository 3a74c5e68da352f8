"""fap_curve is fap_score, fbeta_at_k_score and AP@k at every cutoff."""

import numpy as np
import pytest

from skrank import average_precision_score, fap_curve, fap_score, fbeta_at_k_score


def _data(seed, n_queries=400):
    rng = np.random.default_rng(seed)
    sizes = rng.zipf(1.6, size=n_queries).clip(1, 60)  # many short, a few long queries
    query = np.repeat(np.arange(n_queries), sizes)
    n = query.shape[0]
    return (rng.random(n) < 0.3).astype(int), rng.integers(0, 5, size=n), query, rng.random(n) + 0.2


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("no_relevant", ["skip", "zero", "one"])
def test_curve_equals_the_scores_at_each_cutoff(seed, beta, no_relevant):
    y, score, query, weight = _data(seed)
    options = dict(query_id=query, sample_weight=weight, no_relevant=no_relevant)
    k, fap, f, ap = fap_curve(y, score, max_k=70, beta=beta, return_parts=True, **options)
    np.testing.assert_array_equal(k, np.arange(1, 71))
    for cutoff in (1, 2, 3, 5, 8, 13, 40, 61, 70):  # 61 and 70 lie past every query
        i = cutoff - 1
        assert fap[i] == pytest.approx(fap_score(y, score, k=cutoff, beta=beta, **options),
                                       rel=1e-9)
        assert f[i] == pytest.approx(fbeta_at_k_score(y, score, k=cutoff, beta=beta,
                                                      **options), rel=1e-9)
        assert ap[i] == pytest.approx(average_precision_score(y, score, k=cutoff, **options),
                                      rel=1e-9)


def test_default_max_k_is_the_longest_query():
    y, score, query, _ = _data(2, n_queries=50)
    k, _ = fap_curve(y, score, query_id=query)
    assert k[-1] == np.bincount(query).max()


def test_worked_examples_of_the_specification():
    assert fap_score([1, 1, 1], [3, 2, 1]) == pytest.approx(1.0)
    # F1 over the whole list = 2*3/(3+5) = 0.75, AP = 1
    assert fap_score([1, 1, 1, 0, 0], [5, 4, 3, 2, 1]) == pytest.approx(2 * 0.75 / 1.75)
    k, fap = fap_curve([1, 1, 1, 0, 0], [5, 4, 3, 2, 1])
    assert k[np.argmax(fap)] == 3


@pytest.mark.parametrize("max_k", [0, -1, 2.5, "3"])
def test_bad_max_k(max_k):
    with pytest.raises(ValueError, match="`max_k` must be a positive integer"):
        fap_curve([1, 0], [1, 2], max_k=max_k)


def test_bad_return_parts():
    with pytest.raises(ValueError, match="`return_parts` must be True or False"):
        fap_curve([1, 0], [1, 2], return_parts="yes")
