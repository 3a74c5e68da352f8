"""Tukey's HSD in compare(test=...): the randomised test against a brute-force
enumeration in exact fractions and a plain permutation loop, the blocked
parametric test against stored statsmodels values, the two-system special
cases, the family-wise error rate over simulated null experiments, and the
result columns."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from skrank import compare
from skrank.stats._tukey import parametric_tukey_p_values, randomised_tukey_p_values

# A: four systems x twelve queries (rounded uniform values plus query and
# system effects). B: 1 / rank of the one relevant row of four, three systems x
# eight queries (so compare() can reproduce it with metrics=["mrr"]).
A = np.array([
    [0.737, 0.145, 0.394, 0.436, 0.6, 0.247, 0.431, 0.736, 0.553, 0.635, 0.609, 0.46],
    [0.721, 0.182, 0.719, 0.577, 0.13, 0.309, 0.337, 0.517, 0.447, 0.742, 0.135, 0.319],
    [0.677, 0.486, 0.631, 0.572, 0.173, 0.737, 0.545, 0.911, 0.72, 0.881, 0.479, 0.693],
    [0.519, 0.555, 0.634, 0.69, 0.609, 0.612, 0.632, 0.65, 0.817, 1.06, 0.687, 0.73],
])
B_RANKS = np.array([[1, 2, 1, 3, 1, 4, 2, 1],
                    [2, 2, 1, 4, 3, 4, 1, 2],
                    [1, 1, 1, 1, 2, 3, 1, 1]])

# Made with statsmodels 0.15.0 and scipy 1.17.1 in a side venv: the two-way
# model without interaction,
#   fit = statsmodels.formula.api.ols("y ~ C(system) + C(query)", frame).fit()
# then for each pair (a, b) in itertools.combinations order
#   q = |mean_a - mean_b| / sqrt(fit.mse_resid / n_queries)
#   p = scipy.stats.studentized_range.sf(q, n_systems, fit.df_resid)
# A: mse_resid 0.022590143939393938, df_resid 33; B: 0.06138392857142857, 14.
P_PARAMETRIC_A = [0.6607795434753501, 0.185011467055616, 0.024788991908081814,
                  0.014580527710010394, 0.001181118384806057, 0.7852338991509349]
P_PARAMETRIC_B = [0.4387797963613711, 0.4387797963613711, 0.05951679982184044]


def _pairs(k):
    a, b = np.array(list(itertools.combinations(range(k), 2))).T
    return a, b


def _mrr_data(ranks):
    """y_true, {system: scores}, query_id whose per-query RR are 1 / ranks."""
    k, n = ranks.shape
    y = np.tile([1, 0, 0, 0], n)
    query = np.repeat(np.arange(n) + 10, 4)
    systems = {}
    for s in range(k):
        scores = []
        for r in ranks[s]:
            positions = [r] + [p for p in (1, 2, 3, 4) if p != r]  # row 0 relevant
            scores += [5 - p for p in positions]
        systems[f"s{s}"] = np.array(scores, dtype=float)
    return y, systems, query


def _brute_force_p(values):
    """Every set of within-query permutations, in exact fractions."""
    k, n = values.shape
    columns = [[Fraction(x).limit_denominator(1000) for x in values[:, q]]
               for q in range(n)]
    means = [sum(columns[q][s] for q in range(n)) / n for s in range(k)]
    observed = [abs(means[a] - means[b]) for a, b in itertools.combinations(range(k), 2)]
    hits = [0] * len(observed)
    total = 0
    for orders in itertools.product(itertools.permutations(range(k)), repeat=n):
        sums = [sum(columns[q][orders[q][s]] for q in range(n)) / n for s in range(k)]
        spread = max(sums) - min(sums)
        total += 1
        for j, d in enumerate(observed):
            hits[j] += spread >= d
    return [h / total for h in hits], total


def test_parametric_equals_statsmodels_two_way_anova():
    np.testing.assert_allclose(parametric_tukey_p_values(A, *_pairs(4)), P_PARAMETRIC_A,
                               rtol=0, atol=1e-9)


def test_parametric_through_compare_equals_statsmodels():
    y, systems, query = _mrr_data(B_RANKS)
    result = compare(y, systems, query_id=query, metrics=["mrr"], n_resamples=50,
                     random_state=0, test="tukey_hsd_parametric")
    assert result.summary.column("mean") == pytest.approx((1 / B_RANKS).mean(axis=1))
    np.testing.assert_allclose(result.tests.column("p_tukey_hsd_parametric"),
                               P_PARAMETRIC_B, rtol=0, atol=1e-9)


@pytest.mark.parametrize("ranks", [
    np.array([[1, 2, 1], [2, 2, 3], [4, 1, 1]]),      # ties among the ranges
    np.array([[1, 1, 1], [3, 4, 2], [2, 2, 2]]),      # one system far off
])
def test_exact_randomised_equals_a_brute_force_enumeration(ranks):
    values = 1.0 / ranks
    expected, total = _brute_force_p(values)
    assert total == 6**3
    got = randomised_tukey_p_values(values, *_pairs(3), n_resamples=total, rng=None)
    np.testing.assert_allclose(got, [float(e) for e in expected], rtol=0, atol=1e-15)
    # and through compare(), where 6**3 <= n_resamples means exact
    y, systems, query = _mrr_data(ranks)
    result = compare(y, systems, query_id=query, metrics=["mrr"], n_resamples=500,
                     random_state=0, test="tukey_hsd")
    np.testing.assert_allclose(result.tests.column("p_tukey_hsd"),
                               [float(e) for e in expected], rtol=0, atol=1e-15)


def test_monte_carlo_randomised_is_close_to_a_plain_permutation_loop():
    a, b = _pairs(4)
    got = randomised_tukey_p_values(A, a, b, n_resamples=20_000,
                                    rng=np.random.default_rng(0))
    rng = np.random.default_rng(99)
    means = A.mean(axis=1)
    observed = np.abs(means[a] - means[b])
    n_loop = 4000
    hits = np.zeros(len(a))
    for _ in range(n_loop):
        shuffled = np.empty_like(A)
        for q in range(A.shape[1]):
            shuffled[:, q] = A[rng.permutation(4), q]
        m = shuffled.mean(axis=1)
        hits += (m.max() - m.min()) >= observed - 1e-12
    expected = hits / n_loop
    # standard error of the difference of the two estimates <= 0.0088
    np.testing.assert_allclose(got, expected, rtol=0, atol=0.04)
    assert got[4] < 0.01 and got[5] > 0.7  # not all near one value


def test_two_systems_randomised_is_the_sign_flip_test_and_parametric_the_t_test():
    # with k = 2 the range of the means is |mean difference|, and a within-query
    # permutation is a sign flip; the studentized range of two means is
    # sqrt(2) |t| with the paired t-test's degrees of freedom
    rng = np.random.default_rng(5)
    query = np.repeat(np.arange(9), 6)
    y = rng.integers(0, 2, size=query.size)
    systems = {"a": y + rng.normal(size=query.size), "b": rng.normal(size=query.size)}
    result = compare(y, systems, query_id=query, metrics=["map", "mrr"],
                     n_resamples=1000, random_state=0,
                     test=["tukey_hsd", "tukey_hsd_parametric"])
    np.testing.assert_allclose(result.tests.column("p_tukey_hsd"),
                               result.tests.column("p_randomization"), rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.tests.column("p_tukey_hsd_parametric"),
                               result.tests.column("p_t_test"), rtol=1e-7, atol=1e-10)


def _null_experiments(n_experiments, n_systems, n_queries, seed):
    """Per-query values with no system effect: query difficulty, skewed noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(0.7, 0.7, size=(n_experiments, 1, n_queries))
    noise = rng.gamma(2.0, 0.1, size=(n_experiments, n_systems, n_queries))
    return np.clip(difficulty + noise - 0.2, 0, 1)


def test_family_wise_error_rate_on_null_experiments():
    # no system differs: the chance that ANY of the 6 pairs has p < 0.05 is
    # about 0.05 for both tests (binomial sd over 300 experiments: 0.0126)
    experiments = _null_experiments(300, 4, 20, seed=46)
    a, b = _pairs(4)
    rng = np.random.default_rng(1)
    randomised = parametric = 0
    for values in experiments:
        randomised += randomised_tukey_p_values(values, a, b, 400, rng).min() < 0.05
        # the smallest p is that of the pair furthest apart (scipy's
        # studentized range takes ~10 ms a value: one pair per experiment)
        means = values.mean(axis=1)
        far = np.array([means.argmax()]), np.array([means.argmin()])
        parametric += parametric_tukey_p_values(values, *far)[0] < 0.05
    assert 0.05 - 3 * 0.0126 <= randomised / 300 <= 0.05 + 3 * 0.0126
    assert 0.05 - 3 * 0.0126 <= parametric / 300 <= 0.05 + 3 * 0.0126


def test_default_keeps_the_columns_and_the_other_columns_do_not_change():
    rng = np.random.default_rng(2)
    query = np.repeat(np.arange(12), 5)
    y = rng.integers(0, 2, size=query.size)
    systems = {name: y * shift + rng.normal(size=query.size)
               for name, shift in zip("abc", [0.0, 0.5, 1.0])}
    kwargs = dict(query_id=query, metrics=["map", "ndcg@3"], n_resamples=300,
                  random_state=4, baseline="a")
    plain = compare(y, systems, **kwargs)
    assert plain.tests.columns == (
        "metric", "system_a", "system_b", "difference", "ci_low", "ci_high",
        "p_randomization", "t_statistic", "p_t_test", "p_randomization_corrected",
        "p_t_test_corrected", "n_queries")
    both = compare(y, systems, test=["tukey_hsd_parametric", "tukey_hsd"], **kwargs)
    assert both.tests.columns == plain.tests.columns + (
        "p_tukey_hsd", "p_tukey_hsd_parametric")
    assert [row[:12] for row in both.tests.rows] == plain.tests.rows
    assert both.summary.rows == plain.summary.rows
    one = compare(y, systems, test="tukey_hsd", **kwargs)
    assert one.tests.columns[-1] == "p_tukey_hsd"
    assert one.tests.column("p_tukey_hsd") == both.tests.column("p_tukey_hsd")
    # with a baseline the rows hold its pairs, the family is every pair
    values = np.vstack([plain.per_query["map"][name].value for name in "abc"])
    values = values[:, ~np.isnan(values).any(axis=0)]
    expected = parametric_tukey_p_values(values, np.array([1, 2]), np.array([0, 0]))
    np.testing.assert_allclose(both.tests.column("p_tukey_hsd_parametric")[:2],
                               expected, rtol=0, atol=1e-15)
    text = repr(both)
    assert "p Tukey HSD" in text and "p Tukey HSD (ANOVA)" in text


def test_by_segment_adds_the_columns_per_segment():
    y, systems, query = _mrr_data(np.hstack([B_RANKS, B_RANKS[::-1]]))
    segment = np.where(query < 18, "first", "second")
    result = compare(y, systems, query_id=query, metrics=["mrr"], by=segment,
                     n_resamples=50, random_state=0, test="tukey_hsd_parametric")
    column = result.tests.column("p_tukey_hsd_parametric")
    np.testing.assert_allclose(column[:3], P_PARAMETRIC_B, rtol=0, atol=1e-9)


def test_edge_cases():
    a, b = _pairs(3)
    same = np.tile([[0.5, 0.2, 0.9]], (3, 1))  # every system scores the same
    assert parametric_tukey_p_values(same, a, b).tolist() == [1.0, 1.0, 1.0]
    assert randomised_tukey_p_values(same, a, b, 100, np.random.default_rng(0)).tolist() \
        == [1.0, 1.0, 1.0]
    shifted = same + np.array([[0.0], [0.1], [0.1]])  # residuals all zero
    assert parametric_tukey_p_values(shifted, a, b).tolist() == [0.0, 0.0, 1.0]
    one_query = np.array([[0.1], [0.5], [0.9]])
    assert np.isnan(parametric_tukey_p_values(one_query, a, b)).all()
    # one query, 3! = 6 orders: the range 0.8 is reached by every order, 0.4 too
    np.testing.assert_allclose(
        randomised_tukey_p_values(one_query, a, b, 100, None), [1.0, 1.0, 1.0])


@pytest.mark.parametrize("test", ["tukey", "TUKEY_HSD", 1.5, ["tukey_hsd", "t_test"],
                                  {"tukey_hsd"}, [None]])
def test_bad_test_is_refused_naming_it(test):
    with pytest.raises(ValueError, match="`test`"):
        compare([1, 0, 1, 0], {"a": [2, 1, 2, 1], "b": [1, 2, 1, 2]},
                query_id=[1, 1, 2, 2], metrics=["mrr"], n_resamples=10, test=test)


def test_empty_list_and_none_add_nothing():
    kwargs = dict(query_id=[1, 1, 2, 2], metrics=["mrr"], n_resamples=10,
                  random_state=0)
    data = ([1, 0, 1, 0], {"a": [2, 1, 2, 1], "b": [1, 2, 1, 2]})
    assert compare(*data, test=[], **kwargs).tests.rows == \
        compare(*data, test=None, **kwargs).tests.rows
