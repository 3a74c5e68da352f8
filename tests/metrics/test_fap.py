"""fap_curve is fap_score, fbeta_at_k_score and AP@k at every cutoff.

fap_score's hand-worked values (``EXAMPLES["fap"]`` in tests/_worked_examples.py)
and its hypothesis comparison with the brute-force reference run in
test_reference.py, over every registry stem.
"""

import math

import numpy as np
import pytest

import skrank
from skrank import average_precision_score, fap_curve, fap_score, fbeta_at_k_score

from .. import _reference as ref
from .._checks import assert_all_close


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
    # 61 and 70 lie past every query
    _assert_curve_is_the_scores(y, score, (fap, f, ap), (1, 2, 3, 5, 8, 13, 40, 61, 70),
                                beta, options, rel=1e-9)


def _assert_curve_is_the_scores(y, score, curves, cutoffs, beta, options, rel):
    fap, f, ap = curves
    for cutoff in cutoffs:
        i = cutoff - 1
        assert fap[i] == pytest.approx(fap_score(y, score, k=cutoff, beta=beta, **options),
                                       rel=rel)
        assert f[i] == pytest.approx(fbeta_at_k_score(y, score, k=cutoff, beta=beta,
                                                      **options), rel=rel)
        assert ap[i] == pytest.approx(average_precision_score(y, score, k=cutoff, **options),
                                      rel=rel)


def test_default_max_k_is_the_longest_query():
    y, score, query, _ = _data(2, n_queries=50)
    k, _ = fap_curve(y, score, query_id=query)
    assert k[-1] == np.bincount(query).max()


@pytest.mark.parametrize("max_k", [0, -1, 2.5, "3"])
def test_bad_max_k(max_k):
    with pytest.raises(ValueError, match="`max_k` must be a positive integer"):
        fap_curve([1, 0], [1, 2], max_k=max_k)


def test_bad_return_parts():
    with pytest.raises(ValueError, match="`return_parts` must be True or False"):
        fap_curve([1, 0], [1, 2], return_parts="yes")


def _long_tailed(seed, n_short=300, long_sizes=(3000, 700, 150)):
    """Many short queries and a few long ones: the curve runs far past the short ones."""
    rng = np.random.default_rng(seed)
    sizes = np.r_[rng.integers(1, 25, size=n_short), long_sizes]
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = query.shape[0]
    y = (rng.random(n) < 0.25).astype(int)
    score = rng.integers(0, 40, size=n)  # ties too
    return y, score, query, rng.random(n) + 0.1


@pytest.mark.parametrize("beta", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_long_tail_of_the_curve_equals_the_scores(beta, weighted):
    y, score, query, weight = _long_tailed(4)
    options = dict(query_id=query, sample_weight=weight if weighted else None)
    k, fap, f, ap = fap_curve(y, score, beta=beta, return_parts=True, **options)
    assert k[-1] == 3000
    cutoffs = (1, 24, 25, 64, 65, 100, 129, 130, 151, 700, 701, 1234, 2999, 3000)
    _assert_curve_is_the_scores(y, score, (fap, f, ap), cutoffs, beta, options, rel=1e-12)


@pytest.mark.parametrize("scale", [1.0, 0.3, 1e-12, 0.0])
def test_tail_sums_equal_the_direct_sums(scale):
    from skrank.metrics._fap import _tail_sums

    rng = np.random.default_rng(0)
    n = 2000
    size = np.r_[rng.zipf(1.5, n).clip(1, 4000), 5000]
    alpha = rng.random(n + 1) * 10.0 ** rng.integers(-5, 5, n + 1)
    gamma = rng.random(n + 1) * 10.0 ** rng.integers(-8, 8, n + 1)
    max_k = 6000
    got = _tail_sums(size, alpha, gamma, scale, max_k)
    for k in (1, 2, 63, 64, 65, 129, 130, 1000, 4000, 4001, 5000, 5001, 6000):
        terms = [a / (g + scale * k) for a, g, s in zip(alpha, gamma, size) if s < k]
        assert got[k - 1] == pytest.approx(math.fsum(terms), rel=1e-13, abs=0)


@pytest.mark.parametrize("max_k", [2**62, 2**63, 2**70])
def test_a_max_k_past_any_array_means_the_whole_list(max_k):
    y, score, query, _ = _data(5, n_queries=30)
    k, fap = fap_curve(y, score, query_id=query, max_k=max_k)
    k_all, fap_all = fap_curve(y, score, query_id=query)
    np.testing.assert_array_equal(k, k_all)
    np.testing.assert_array_equal(fap, fap_all)


def test_a_huge_beta_is_the_limit_not_nan():
    # beta -> inf: F -> recall, FAP -> AP (when F > 0)
    y, s = [1, 0, 1, 0, 0], [5, 4, 3, 2, 1]
    ap = (1 + 2 / 3) / 2
    assert fap_score(y, s, beta=1e155) == pytest.approx(ap, rel=1e-12)
    assert fbeta_at_k_score(y, s, k=2, beta=1e155) == pytest.approx(1 / 2, rel=1e-12)
    k, fap, f, _ = fap_curve(y, s, beta=1e155, return_parts=True)
    assert np.isfinite(fap).all() and np.isfinite(f).all()
    np.testing.assert_allclose(f, [1 / 2, 1 / 2, 1, 1, 1], rtol=1e-12)
    # beta -> 0: F -> precision
    assert fbeta_at_k_score(y, s, k=3, beta=1e-200) == pytest.approx(2 / 3, rel=1e-12)


def test_extreme_sample_weights_give_the_weighted_mean():
    y, s, q = [1, 0, 0, 1], [2, 1, 2, 1], [1, 1, 2, 2]
    # equal weights, however large or small, weigh the queries equally
    plain = fap_curve(y, s, query_id=q)[1]
    for w in (1e308, 5e-324):
        np.testing.assert_allclose(fap_curve(y, s, query_id=q, sample_weight=[w] * 4)[1],
                                   plain, rtol=1e-15)


def test_worked_example_spec_fap_curve():
    # 1,1,1,0,0 in score order: F1@k = 2*hits/(3 + k), AP@k = hits/3 (all hits
    # on top), FAP@k the harmonic of the two.
    y_true, y_score = [1, 1, 1, 0, 0], [5, 4, 3, 2, 1]
    f = [2 * min(k, 3) / (3 + k) for k in range(1, 6)]
    ap = [min(k, 3) / 3 for k in range(1, 6)]
    fap = [2 * fk * apk / (fk + apk) for fk, apk in zip(f, ap)]
    for func in (ref.ref_fap_curve, skrank.fap_curve):
        kwargs = {"return_parts": True} if func is skrank.fap_curve else {}
        k_out, fap_out, f_out, ap_out = func(y_true, y_score, **kwargs)
        assert list(np.asarray(k_out)) == [1, 2, 3, 4, 5]
        assert_all_close(fap_out, fap)
        assert_all_close(f_out, f)
        assert_all_close(ap_out, ap)
    assert int(np.argmax(fap)) + 1 == 3  # FAP@k peaks at the right cutoff
