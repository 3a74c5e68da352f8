"""topic_set_size and minimum_detectable_effect: statsmodels' grid, the normal
approximation by hand, simulated paired t-tests, scipy's far tail, bad input."""

import math

import numpy as np
import pytest
from scipy import stats

import skrank
from skrank import compare, reciprocal_rank_score
from skrank.stats import minimum_detectable_effect, topic_set_size
from skrank.stats._power import _nct_tail_by_quadrature, paired_t_power

# Made in a side venv with statsmodels 0.15.0 (scipy 1.17.1):
#   from statsmodels.stats.power import TTestPower
#   n = TTestPower().solve_power(effect_size=d, alpha=a, power=1 - b,
#                                alternative="two-sided")
#   {(d, a, b): math.ceil(n)}          # the float n in the comment
TOPIC_SET_SIZES = {
    (0.1, 0.01, 0.1): 1492,  # 1491.257707283478
    (0.1, 0.01, 0.2): 1172,  # 1171.2156913855217
    (0.1, 0.05, 0.1): 1053,  # 1052.664547339556
    (0.1, 0.05, 0.2): 787,  # 786.808940181792
    (0.2, 0.01, 0.1): 376,  # 375.30822781174953
    (0.2, 0.01, 0.2): 296,  # 295.29727289151305
    (0.2, 0.05, 0.1): 265,  # 264.6136854232749
    (0.2, 0.05, 0.2): 199,  # 198.150820955562
    (0.3, 0.01, 0.1): 169,  # 168.65744261256208
    (0.3, 0.01, 0.2): 134,  # 133.09607359566203
    (0.3, 0.05, 0.1): 119,  # 118.68650521827722
    (0.3, 0.05, 0.2): 90,  # 89.14936472045834
    (0.5, 0.01, 0.1): 63,  # 62.87023528078392
    (0.5, 0.01, 0.2): 51,  # 50.06469365936795
    (0.5, 0.05, 0.1): 44,  # 43.99548069841475
    (0.5, 0.05, 0.2): 34,  # 33.36713118431779
    (1.0, 0.01, 0.1): 19,  # 18.30345716555591
    (1.0, 0.01, 0.2): 16,  # 15.08070208589992
    (1.0, 0.05, 0.1): 13,  # 12.585459677807366
    (1.0, 0.05, 0.2): 10,  # 9.93785094105438
    (2.0, 0.01, 0.1): 8,  # 7.191417872074641
    (2.0, 0.01, 0.2): 7,  # 6.306029028714191
    (2.0, 0.05, 0.1): 5,  # 4.912417179006457
    (2.0, 0.05, 0.2): 5,  # 4.22071858501904
}

# The effect size (delta / sd) at power 1 - b, made with statsmodels 0.15.0
# (scipy 1.17.1) in a side venv. First column: statsmodels' power function
# solved tightly,
#   f = lambda e: TTestPower().power(effect_size=e, nobs=n, alpha=a,
#                                    alternative="two-sided") - (1 - b)
#   scipy.optimize.brentq(f, lo, hi, xtol=1e-15, rtol=1e-15)
# with lo the normal approximation (z_{a/2} + z_b) / sqrt(n) and hi = lo
# grown by 5% steps until f(hi) >= 0. Second column: statsmodels'
#   TTestPower().solve_power(nobs=n, alpha=a, power=1 - b, alternative="two-sided")
# whose own solver stops up to 2e-5 (relative) from the root. Left out:
# n = 2, and n = 3 at alpha = 0.01, where statsmodels' power is nan on the
# way to the root (scipy's noncentral t tail) and solve_power returns its
# bracket's end (10.0).
EFFECTS = {
    (3, 0.05, 0.1): (3.923448508085708, 3.9234494425177866),
    (3, 0.05, 0.2): (3.264043549699573, 3.264043552819638),
    (5, 0.01, 0.1): (3.0270740892153807, 3.027074084532795),
    (5, 0.01, 0.2): (2.628973761607527, 2.6289740837721873),
    (5, 0.05, 0.1): (1.965888823606011, 1.9658888509731074),
    (5, 0.05, 0.2): (1.6819969659555547, 1.6819970833232674),
    (10, 0.01, 0.1): (1.5097344855749377, 1.5097344851610688),
    (10, 0.01, 0.2): (1.3320321091254783, 1.332032088437076),
    (10, 0.05, 0.1): (1.1545649888852993, 1.154565052026948),
    (10, 0.05, 0.2): (0.9960013714554438, 0.9960019107624178),
    (30, 0.01, 0.1): (0.7477403442396782, 0.7477426903642257),
    (30, 0.01, 0.2): (0.6622069698386904, 0.6622069388851101),
    (30, 0.05, 0.1): (0.6124454953270755, 0.6124454643867093),
    (30, 0.05, 0.2): (0.5292356151129534, 0.5292357045238948),
    (100, 0.01, 0.1): (0.3923457912395968, 0.3923457912395972),
    (100, 0.01, 0.2): (0.3475879364913373, 0.3475879364913354),
    (100, 0.05, 0.1): (0.3273431403832169, 0.32734341507146614),
    (100, 0.05, 0.2): (0.2829126327813868, 0.2829117119690806),
    (1000, 0.01, 0.1): (0.12218407215789141, 0.12218407215770721),
    (1000, 0.01, 0.2): (0.10824906992108471, 0.1082490699213881),
    (1000, 0.05, 0.1): (0.10260439073106753, 0.10260571940055771),
    (1000, 0.05, 0.2): (0.08867907559426381, 0.08868101827724957),
}


# ------------------------------------------------------ the statsmodels grid --

def test_topic_set_size_equals_the_ceiling_of_statsmodels():
    got = {
        (d, a, b): topic_set_size(d, 1.0, alpha=a, beta=b)
        for d, a, b in TOPIC_SET_SIZES
    }
    assert got == TOPIC_SET_SIZES
    assert all(type(n) is int for n in got.values())


def test_topic_set_size_depends_on_delta_over_sd_only():
    # delta = 0.03 with sd = 0.1 is the effect 0.3 of the grid
    assert topic_set_size(0.03, 0.1) == TOPIC_SET_SIZES[(0.3, 0.05, 0.2)]
    assert topic_set_size(1.0, 2.0, alpha=0.01, beta=0.1) == TOPIC_SET_SIZES[
        (0.5, 0.01, 0.1)]


@pytest.mark.parametrize("key", list(EFFECTS), ids=str)
def test_minimum_detectable_effect_equals_statsmodels(key):
    n, a, b = key
    tight, solve_power = EFFECTS[key]
    sd = 0.25
    got = minimum_detectable_effect(n, sd, alpha=a, beta=b)
    assert type(got) is float
    assert got == pytest.approx(tight * sd, rel=1e-6)
    assert got == pytest.approx(solve_power * sd, rel=1e-4)  # solve_power's own error


def test_the_two_are_converse():
    # n queries detect the minimum effect of n; n - 1 do not
    for n in (4, 17, 250):
        effect = minimum_detectable_effect(n, 1.0, alpha=0.05, beta=0.2)
        assert topic_set_size(effect * (1 + 1e-9), 1.0) == n
        assert topic_set_size(effect * (1 - 1e-6), 1.0) == n + 1


# ------------------------------------------------ the normal approximation --

def _normal_size(effect, alpha, beta):
    """Smallest n whose two-tailed normal (z-test) power reaches 1 - beta, by bisection."""
    z = stats.norm.isf(alpha / 2)

    def power(n):
        shift = effect * math.sqrt(n)
        return stats.norm.sf(z - shift) + stats.norm.cdf(-z - shift)

    low, high = 1, 2
    while power(high) < 1 - beta:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if power(middle) >= 1 - beta else (middle, high)
    return high


def test_normal_approximation_by_hand():
    # z_{0.025} = 1.959964, z_{0.2} = 0.841621: n ~ (2.801585 / effect)**2.
    # For effect 0.1 that is 784.888; the t-test needs a little more
    # (statsmodels: 786.81, above), never less, and only a few queries more.
    z = 1.959964 + 0.841621
    assert (z / 0.1) ** 2 == pytest.approx(784.888, abs=1e-3)
    n = topic_set_size(0.1, 1.0)
    assert math.ceil((z / 0.1) ** 2) <= n <= math.ceil((z / 0.1) ** 2) + 3
    # minimum detectable effect at n = 10,000: z / 100 = 0.028016
    assert minimum_detectable_effect(10_000, 1.0) == pytest.approx(z / 100, rel=1e-4)


@pytest.mark.parametrize("effect", [0.05, 0.01, 0.001])
def test_many_queries_approach_the_two_tailed_z_test(effect):
    # as n grows the t becomes a normal: the t-test needs the z-test's n plus
    # about z_{alpha/2}**2 / 2 (two) queries. At effect 0.001 (n ~ 7.8
    # million) the far tail's 1e-6 of power counts: (z / effect)**2 alone,
    # one tail, is 16 queries too many there.
    n = topic_set_size(effect, 1.0)
    assert 0 <= n - _normal_size(effect, 0.05, 0.2) <= 3


# ------------------------------------------------- simulated paired t-tests --

def _rejection_rate(differences, alpha):
    """Share of rows (replications) whose two-sided paired t-test rejects."""
    p = stats.ttest_1samp(differences, 0.0, axis=1).pvalue
    return float(np.mean(p < alpha))


def _band(power, n_replications):
    return 4 * math.sqrt(power * (1 - power) / n_replications)  # ~4 binomial sd


@pytest.mark.parametrize("delta, sd, alpha, beta", [
    (0.04, 0.13, 0.05, 0.2),   # a few points of nDCG, the usual sd
    (0.5, 0.9, 0.01, 0.1),
    (1.7, 1.0, 0.05, 0.3),     # 5 queries: the t's heavier tails count
])
def test_simulated_t_tests_reject_at_the_promised_rate(delta, sd, alpha, beta):
    rng = np.random.default_rng(46)
    n = topic_set_size(delta, sd, alpha=alpha, beta=beta)
    replications = 4000
    rate = _rejection_rate(rng.normal(delta, sd, size=(replications, n)), alpha)
    assert rate > (1 - beta) - _band(1 - beta, replications)
    # the smallest such n: with one query fewer the power falls short
    fewer = _rejection_rate(rng.normal(delta, sd, size=(replications, n - 1)), alpha)
    assert fewer < (1 - beta) + _band(1 - beta, replications)
    # the effect a fixed n detects
    effect = minimum_detectable_effect(n, sd, alpha=alpha, beta=beta)
    assert effect <= delta


@pytest.mark.parametrize("n, alpha, beta", [(2, 0.01, 0.1), (2, 0.05, 0.2), (3, 0.01, 0.2)])
def test_simulated_power_where_statsmodels_fails(n, alpha, beta):
    # statsmodels' power is nan on the way to these roots; simulate instead
    rng = np.random.default_rng(7)
    effect = minimum_detectable_effect(n, 1.0, alpha=alpha, beta=beta)
    replications = 20_000
    rate = _rejection_rate(rng.normal(effect, 1.0, size=(replications, n)), alpha)
    assert abs(rate - (1 - beta)) < _band(1 - beta, replications)


def test_simulated_power_with_bounded_skewed_differences():
    # a query's difference of reciprocal ranks takes a few values (here
    # -0.2, 0 or 0.3), not normal: at the ~1,200 queries the design asks
    # for, the t-test's power is still the design's
    rng = np.random.default_rng(3)
    replications = 2000
    probs = np.array([0.3, 0.45, 0.25])
    values = np.array([-0.2, 0.0, 0.3])  # mean 0.015, one query's difference
    mean = probs @ values
    sd = math.sqrt(probs @ (values - mean) ** 2)
    n = topic_set_size(mean, sd)
    draws = values[rng.choice(3, p=probs, size=(replications, n))]
    rate = _rejection_rate(draws, 0.05)
    assert abs(rate - 0.8) < _band(0.8, replications)


# ------------------------------------------------------ the far tail of nct --

@pytest.mark.parametrize("x, df, nc", [
    (2.0, 3, 10.0), (-2.0, 3, 1.0), (2.1, 20, 3.0), (-1.5, 7, 0.5), (0.3, 1, 0.0),
])
def test_quadrature_tail_equals_scipy_where_scipy_is_finite(x, df, nc):
    with np.errstate(divide="ignore"):  # scipy 1.10's boost kernels warn here
        upper = stats.nct.sf(x, df, nc)
        lower = stats.nct.cdf(x, df, nc)
    assert _nct_tail_by_quadrature(x, df, nc, upper=True) == pytest.approx(
        upper, rel=1e-8, abs=1e-13)
    assert _nct_tail_by_quadrature(x, df, nc, upper=False) == pytest.approx(
        lower, rel=1e-8, abs=1e-13)


def test_power_is_finite_and_in_bounds_where_scipy_returns_nan():
    # scipy 1.17: nct.cdf(-2.353, 3, 30) is nan (the lower tail of the power
    # of 4 queries at effect 15); the power is 1 there, to 1e-9
    critical = stats.t.isf(0.025, 3)
    for nc in (20.0, 30.0, 38.0, 39.0, 40.0, 100.0, 1e4):
        power = paired_t_power(nc / 2.0, 4, 0.05)
        assert 0.0 <= power <= 1.0
        assert power == pytest.approx(1.0, abs=1e-9)
    assert stats.t.sf(critical, 3) == pytest.approx(0.025)


def test_power_is_monotone_in_n_and_in_the_effect():
    for effect in (0.05, 0.4, 3.0, 25.0):
        powers = [paired_t_power(effect, n, 0.05) for n in range(2, 80)]
        assert np.all(np.diff(powers) >= -1e-12)
        assert all(0.0 <= p <= 1.0 for p in powers)
    powers = [paired_t_power(e, 2, 0.01) for e in np.geomspace(1e-3, 1e4, 120)]
    assert np.all(np.diff(powers) >= -1e-12)
    assert powers[0] == pytest.approx(0.01, abs=1e-4)  # no effect: the test's size
    assert powers[-1] > 0.99


# ------------------------------------------------------- differences in ----

def test_differences_give_their_sample_sd():
    diffs = np.array([0.3, 0.1, -0.1, 0.25, 0.05])
    sd = np.std(diffs, ddof=1)
    assert topic_set_size(0.05, differences=diffs) == topic_set_size(0.05, sd)
    assert topic_set_size(0.05, differences=list(diffs)) == topic_set_size(0.05, sd)
    assert minimum_detectable_effect(40, differences=diffs) == pytest.approx(
        minimum_detectable_effect(40, sd), rel=1e-12)
    # ddof=1, not 0: [0.3, 0.1, -0.1] has sd 0.2
    assert topic_set_size(0.1, differences=[0.3, 0.1, -0.1]) == topic_set_size(0.1, 0.2)


def _three_systems():
    rng = np.random.default_rng(11)
    query = np.repeat(np.arange(30), 5)
    y = rng.integers(0, 2, size=query.size)
    y[query == 4] = 0  # a query without a relevant row: nan for every system
    systems = {
        "A": y + rng.normal(size=y.size),
        "B": 0.5 * y + rng.normal(size=y.size),
        "C": rng.normal(size=y.size),
    }
    return y, systems, query


def test_comparison_result_gives_the_largest_sd_over_its_pairs():
    y, systems, query = _three_systems()
    result = compare(y, systems, query_id=query, metrics=["mrr"], n_resamples=20,
                     random_state=0)
    per_query = {
        name: reciprocal_rank_score(y, s, query_id=query, aggregate=None).value
        for name, s in systems.items()
    }
    keep = ~np.isnan(per_query["A"])
    assert keep.sum() == 29
    sds = [np.std(per_query[a][keep] - per_query[b][keep], ddof=1)
           for a, b in [("A", "B"), ("A", "C"), ("B", "C")]]
    largest = max(sds)
    assert topic_set_size(0.05, differences=result) == topic_set_size(0.05, largest)
    assert minimum_detectable_effect(50, differences=result) == pytest.approx(
        minimum_detectable_effect(50, largest), rel=1e-12)


def test_comparison_result_with_a_baseline_takes_only_its_pairs():
    y, systems, query = _three_systems()
    result = compare(y, systems, query_id=query, metrics=["mrr", "ndcg@3"],
                     baseline="C", n_resamples=20, random_state=0)
    per_query = {
        name: skrank.ndcg_score(y, s, query_id=query, k=3, aggregate=None).value
        for name, s in systems.items()
    }
    keep = ~np.isnan(per_query["A"])
    largest = max(np.std(per_query[a][keep] - per_query["C"][keep], ddof=1)
                  for a in ("A", "B"))
    effect = minimum_detectable_effect(29, differences=result, metric="ndcg@3")
    assert effect == pytest.approx(minimum_detectable_effect(29, largest), rel=1e-12)
    with pytest.raises(ValueError, match=r"`metric` is required.*'mrr', 'ndcg@3'"):
        topic_set_size(0.05, differences=result)
    with pytest.raises(ValueError, match=r"`metric` must be one of"):
        topic_set_size(0.05, differences=result, metric="map")


# ------------------------------------------------------------- bad input --

@pytest.mark.parametrize("kwargs, message", [
    ({"delta": 0}, "`delta`"),
    ({"delta": -0.1}, "`delta`"),
    ({"delta": float("nan")}, "`delta`"),
    ({"delta": "0.1"}, "`delta`"),
    ({"sd": 0}, "`sd`"),
    ({"sd": float("inf")}, "`sd`"),
    ({"sd": -1.0}, "`sd`"),
    ({"alpha": 0}, "`alpha`"),
    ({"alpha": 1.0}, "`alpha`"),
    ({"beta": 1.0}, "`beta`"),
    ({"beta": -0.2}, "`beta`"),
    ({"alpha": 0.5, "beta": 0.6}, "`beta` must be below 1 - alpha"),
    ({"sd": None}, "exactly one of `sd`.* and `differences`; got neither"),
    ({"differences": [0.1, 0.2]}, "exactly one of `sd`.* and `differences`, not both"),
    ({"sd": None, "differences": [0.1]}, "`differences`.*at least 2"),
    ({"sd": None, "differences": [[0.1, 0.2]]}, "`differences`.*1-D"),
    ({"sd": None, "differences": [0.1, np.nan, 0.2]}, "`differences` holds nan"),
    ({"sd": None, "differences": [0.1, 0.1, 0.1]}, "`differences` are all equal"),
    ({"sd": None, "differences": ["a", "b"]}, "`differences` must be"),
    ({"metric": "ndcg"}, "`metric` picks a metric of a ComparisonResult"),
    ({"metric": 3}, "`metric`"),
    ({"delta": 1e-9}, "`delta` is too small"),
])
def test_topic_set_size_refuses_bad_input_naming_the_parameter(kwargs, message):
    call = {"delta": 0.1, "sd": 0.2, **kwargs}
    delta, sd = call.pop("delta"), call.pop("sd")
    with pytest.raises(ValueError, match=message):
        topic_set_size(delta, sd, **call)


@pytest.mark.parametrize("n_queries", [1, 0, -5, 2.0, 30.5, "30", True, None])
def test_minimum_detectable_effect_refuses_bad_n_queries(n_queries):
    with pytest.raises(ValueError, match="`n_queries` must be an integer of at least 2"):
        minimum_detectable_effect(n_queries, 0.2)


def test_numpy_integers_and_top_level_names():
    assert minimum_detectable_effect(np.int64(30), 0.2) == minimum_detectable_effect(30, 0.2)
    assert skrank.topic_set_size is topic_set_size
    assert skrank.minimum_detectable_effect is minimum_detectable_effect
