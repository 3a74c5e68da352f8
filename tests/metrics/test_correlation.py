"""rank_correlation_score against scipy.stats per query and a plain-Python
reference (mid-ranks, pairs), with properties and bad inputs."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from skrank import rank_correlation_score

from .. import _toolbox_reference as ref

# drawn scores may be only 0 and 1: the label-score warning is expected here
pytestmark = pytest.mark.filterwarnings("ignore:`y_score` holds only the values 0 and 1")

SETTINGS = settings(
    max_examples=80, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

SCIPY = {
    "spearman": lambda s, y: stats.spearmanr(s, y).statistic,
    "kendall": lambda s, y: stats.kendalltau(s, y).statistic,
    "pearson": lambda s, y: stats.pearsonr(s, y).statistic,
}
PLAIN = {
    "spearman": lambda s, y: ref.pearson(ref.midranks(s), ref.midranks(y)),
    "kendall": ref.kendall_tau_b,
    "pearson": ref.pearson,
}


def _expected(func, y, score, query):
    out = {}
    for qid, rows in ref.split_queries(query, len(y)).items():
        s = [float(score[r]) for r in rows]
        t = [float(y[r]) for r in rows]
        if len(set(s)) < 2 or len(set(t)) < 2:
            out[qid] = math.nan
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[qid] = func(s, t)
    return out


def test_hand_examples():
    y, s = [3, 2, 0, 1], [0.9, 0.7, 0.4, 0.1]
    # Spearman: rank differences 0, 0, 1, 1
    assert rank_correlation_score(y, s) == pytest.approx(1 - 6 * 2 / (4 * 15))
    # Kendall: 5 concordant pairs, 1 discordant (0 vs 1)
    assert rank_correlation_score(y, s, method="kendall") == pytest.approx(4 / 6)
    # ties: y = 1, 1, 0 with scores 3, 2, 1 -> 2 concordant, 1 tied in y
    assert rank_correlation_score([1, 1, 0], [3, 2, 1], method="kendall") == (
        pytest.approx(2 / math.sqrt(3 * 2))
    )


@pytest.mark.parametrize("method", list(SCIPY))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_scipy_per_query(method, seed):
    rng = np.random.default_rng(seed)
    n = 600
    query = rng.choice(rng.choice(10_000, 40, replace=False), n)
    y = rng.integers(0, 4, size=n).astype(float)
    score = rng.integers(0, 12, size=n) if seed != 2 else rng.normal(size=n)
    got = rank_correlation_score(y, score, query_id=query, method=method,
                                 aggregate=None)
    expected = _expected(SCIPY[method], y, score, query)
    np.testing.assert_array_equal(got.query_id, list(expected))
    np.testing.assert_allclose(got.value, list(expected.values()), rtol=1e-9,
                               atol=1e-12, equal_nan=True)
    finite = [v for v in expected.values() if not math.isnan(v)]
    assert rank_correlation_score(y, score, query_id=query, method=method) == (
        pytest.approx(np.mean(finite))
    )


def test_long_queries_kendall_many_levels():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 50, size=3000).astype(float)
    score = y + rng.normal(scale=20, size=3000)
    query = np.repeat([5, 9], [1000, 2000])
    got = rank_correlation_score(y, score, query_id=query, method="kendall",
                                 aggregate=None)
    for qid, value in zip(got.query_id, got.value):
        mask = query == qid
        assert value == pytest.approx(stats.kendalltau(score[mask], y[mask]).statistic)


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from("xy")),
                min_size=1, max_size=12),
       st.sampled_from(list(PLAIN)))
def test_matches_plain_python(rows, method):
    y = np.array([r[0] for r in rows], dtype=float)
    score = np.array([r[1] for r in rows], dtype=float)
    query = np.array([r[2] for r in rows])
    expected = _expected(PLAIN[method], y, score, query)
    got = rank_correlation_score(y, score, query_id=query, method=method,
                                 aggregate=None)
    np.testing.assert_allclose(got.value, list(expected.values()), rtol=1e-9,
                               atol=1e-12, equal_nan=True)


def test_properties():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, size=100)
    score = rng.random(100)
    query = rng.integers(0, 7, size=100)
    for method in ("spearman", "kendall"):
        base = rank_correlation_score(y, score, query_id=query, method=method)
        # rank statistics: invariant to increasing transforms, sign flips
        assert rank_correlation_score(y, np.exp(score), query_id=query,
                                      method=method) == pytest.approx(base)
        assert rank_correlation_score(y, -score, query_id=query,
                                      method=method) == pytest.approx(-base)
    assert rank_correlation_score(y, y + 0.5, query_id=query) == pytest.approx(1.0)


def test_undefined_queries_are_left_out():
    # query 2 has a constant score, query 3 one row
    y = [1, 0, 1, 0, 1]
    score = [2, 1, 5, 5, 3]
    query = [1, 1, 2, 2, 3]
    got = rank_correlation_score(y, score, query_id=query, aggregate=None)
    np.testing.assert_allclose(got.value, [1.0, np.nan, np.nan])
    assert rank_correlation_score(y, score, query_id=query) == 1.0
    with pytest.warns(Warning, match="No query is left"):
        assert np.isnan(rank_correlation_score([1, 0], [1, 1]))


def test_two_dimensional_input_and_weights():
    y = np.array([[1, 0, 2], [0, 1, 2]])
    score = np.array([[3.0, 1.0, 2.0], [1.0, 2.0, 3.0]])
    got = rank_correlation_score(y, score, aggregate=None, method="kendall")
    np.testing.assert_allclose(got.value, [1 / 3, 1.0])
    weighted = rank_correlation_score(y, score, sample_weight=[1, 3], method="kendall")
    assert weighted == pytest.approx((1 / 3 + 3 * 1.0) / 4)


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"method": "rho"}, "method"),
        ({"aggregate": "median"}, "aggregate"),
        ({"y_true": [1, 0]}, "y_true"),
        ({"y_score": [1, np.inf, 0]}, "y_score"),
        ({"y_true": [1, -2, 0]}, "y_true"),
        ({"query_id": [1, None, 2]}, "query_id"),
        ({"sample_weight": [1, 1]}, "sample_weight"),
    ],
)
def test_bad_inputs_name_the_argument(kwargs, argument):
    args = {"y_true": [2, 0, 1], "y_score": [3, 2, 1]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=f"`{argument}`"):
        rank_correlation_score(args.pop("y_true"), args.pop("y_score"), **args)


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e160, 1e300])
def test_pearson_at_extreme_scales_matches_scipy(scale):
    rng = np.random.default_rng(11)
    y = rng.integers(0, 4, size=25).astype(float)
    x = rng.random(25)
    expected = stats.pearsonr(x * scale, y).statistic
    assert rank_correlation_score(y, x * scale, method="pearson") == pytest.approx(
        expected, rel=1e-12)
    # the relevance at extreme scales too
    assert rank_correlation_score(y * scale, x, method="pearson") == pytest.approx(
        stats.pearsonr(x, y).statistic, rel=1e-12)


@pytest.mark.parametrize(
    "score",
    [
        np.datetime64("2024-01-01T00:00:00", "ns") + np.arange(25) * np.timedelta64(100, "ns"),
        np.int64(2**62) + 3 * np.arange(25, dtype=np.int64),
        np.uint64(2**64 - 100) + np.arange(25, dtype=np.uint64),
        np.array([2**80 + 7 * i for i in range(25)], dtype=object),
    ],
    ids=["datetime64", "int64", "uint64", "python-int"],
)
def test_pearson_of_exact_scores_uses_their_exact_differences(score):
    # evenly spaced scores: Pearson's r with the relevance is that of 0..24
    y = np.random.default_rng(12).integers(0, 4, size=25)
    expected = stats.pearsonr(np.arange(25), y).statistic
    assert rank_correlation_score(y, score, method="pearson") == pytest.approx(
        expected, rel=1e-12)
