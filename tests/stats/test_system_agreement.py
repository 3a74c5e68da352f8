"""system_agreement: Kendall's tau against scipy, tau_ap by its definition, the interval."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau

from skrank import evaluate_run
from skrank.stats import SystemAgreementResult, system_agreement
from skrank.stats._system_agreement import kendall_tau_b, tau_ap


def _tau_ap_by_definition(truth_order, estimated_order):
    """Yilmaz, Aslam and Robertson (SIGIR 2008), eq. 1: orders without ties.

    ``estimated_order`` lists systems best first; for the system at place
    i (1-based, i >= 2), C(i) counts the systems above it in the estimated
    order that are above it in the truth too.
    """
    n = len(estimated_order)
    place_in_truth = {s: p for p, s in enumerate(truth_order)}
    total = 0.0
    for i in range(2, n + 1):
        system = estimated_order[i - 1]
        above = estimated_order[: i - 1]
        c = sum(place_in_truth[s] < place_in_truth[system] for s in above)
        total += c / (i - 1)
    return 2 / (n - 1) * total - 1


def _orders(means):
    """Every order (best first) of systems by ``means``, ties in each possible order."""
    values = sorted(set(means), reverse=True)
    blocks = [[s for s, m in enumerate(means) if m == v] for v in values]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [s for part in parts for s in part]


def _tau_ap_brute_force(truth, estimate):
    """The mean of tau_ap over every tie-breaking of both lists."""
    values = [_tau_ap_by_definition(t, e) for t in _orders(truth) for e in _orders(estimate)]
    return np.mean(values)


@pytest.mark.parametrize("seed", range(30))
def test_tau_ap_equals_its_definition_ties_averaged(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    levels = int(rng.integers(2, 6)) if seed % 3 else 1000  # some ties, or none
    truth = rng.integers(0, levels, n).astype(float)
    estimate = rng.integers(0, levels, n).astype(float)
    if np.unique(truth).shape[0] == 1:
        truth[0] += 1
    assert tau_ap(truth, estimate) == pytest.approx(_tau_ap_brute_force(truth, estimate))


def test_tau_ap_worked_example():
    # truth a > b > c > d; estimate b > a > c > d: place 2 (a): C = 0 of 1;
    # place 3 (c): 2 of 2; place 4 (d): 3 of 3 -> 2/3 * (0 + 1 + 1) - 1 = 1/3
    assert tau_ap([4, 3, 2, 1], [3, 4, 2, 1]) == pytest.approx(2 / 3 * 2 - 1)
    # a swap at the bottom costs less: 2/3 * (1 + 1 + 2/3) - 1
    assert tau_ap([4, 3, 2, 1], [4, 3, 1, 2]) == pytest.approx(2 / 3 * (2 + 2 / 3) - 1)


@pytest.mark.parametrize("seed", range(10))
def test_kendall_tau_b_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (5, 7)).astype(float)
    y = rng.integers(0, 4, (5, 7)).astype(float)
    got = kendall_tau_b(x, y)
    for row in range(5):
        expected = kendalltau(x[row], y[row])[0]
        assert got[row] == pytest.approx(expected, abs=1e-12) or (
            np.isnan(expected) and np.isnan(got[row]))


def _case(seed, n_systems=5, n_queries=25):
    rng = np.random.default_rng(seed)
    qrels_a, qrels_b = {}, {}
    for q in range(n_queries):
        grades = rng.integers(0, 3, 15)
        qrels_a[f"q{q}"] = {f"d{d}": int(g) for d, g in enumerate(grades)}
        noisy = np.clip(grades + rng.integers(-1, 2, 15), 0, 2)  # an LLM, noisier
        qrels_b[f"q{q}"] = {f"d{d}": int(g) for d, g in enumerate(noisy)}
    runs = {}
    for s in range(n_systems):
        runs[f"s{s}"] = {f"q{q}": list(rng.permutation([f"d{d}" for d in range(15)])[:10])
                         for q in range(n_queries)}
    return runs, qrels_a, qrels_b


@pytest.mark.parametrize("metric", ["ndcg@10", "map", "P_5"])
def test_means_and_tau_equal_evaluate_run_and_scipy(metric):
    runs, qrels_a, qrels_b = _case(0)
    result = system_agreement(runs, qrels_a, qrels_b, metric=metric, n_resamples=200,
                              random_state=0)
    means_a = [evaluate_run(qrels_a, r, [metric]).mean[metric] for r in runs.values()]
    means_b = [evaluate_run(qrels_b, r, [metric]).mean[metric] for r in runs.values()]
    np.testing.assert_allclose(result.means_a, means_a)
    np.testing.assert_allclose(result.means_b, means_b)
    assert result.kendall_tau == pytest.approx(kendalltau(means_a, means_b)[0])
    # (P@5's means may tie: every order of tied systems, averaged)
    assert result.tau_ap == pytest.approx(_tau_ap_brute_force(means_a, means_b))
    assert result.same_best == (int(np.argmax(means_a)) == int(np.argmax(means_b)))
    assert result.systems == list(runs) and result.n_queries == 25
    low, high = result.tau_interval
    assert -1 <= low <= high <= 1
    assert result.means == {s: (round(a, 4), round(b, 4))
                            for s, a, b in zip(runs, means_a, means_b)}


def test_the_interval_resamples_queries_by_hand():
    # the bootstrap recomputes tau from means over drawn queries: with the
    # same seed the interval is reproducible, and it holds the estimate
    # when the judgments barely differ
    runs, qrels_a, _ = _case(1)
    first = system_agreement(runs, qrels_a, qrels_a, metric="map", n_resamples=300,
                             random_state=3)
    again = system_agreement(runs, qrels_a, qrels_a, metric="map", n_resamples=300,
                             random_state=3)
    assert first.tau_interval == again.tau_interval
    assert first.kendall_tau == 1.0 and first.tau_ap == 1.0 and first.same_best
    assert first.tau_interval == (1.0, 1.0)  # the same judgments: tau 1 in every resample


def test_queries_are_those_every_system_is_scored_on():
    runs, qrels_a, qrels_b = _case(2, n_queries=6)
    del qrels_b["q5"]
    runs["s0"] = {q: docs for q, docs in runs["s0"].items() if q != "q4"}
    result = system_agreement(runs, qrels_a, qrels_b, metric="map", n_resamples=50)
    assert result.n_queries == 4
    keep = [f"q{q}" for q in range(4)]
    expected = [evaluate_run({q: qrels_a[q] for q in keep}, r, ["map"]).mean["map"]
                for r in runs.values()]
    np.testing.assert_allclose(result.means_a, expected)


def test_options_reach_evaluate_run():
    runs, qrels_a, qrels_b = _case(3)
    result = system_agreement(runs, qrels_a, qrels_b, metric="P_5", relevance_level=2,
                              n_resamples=50)
    expected = [evaluate_run(qrels_a, r, ["P_5"], relevance_level=2).mean["P_5"]
                for r in runs.values()]
    np.testing.assert_allclose(result.means_a, expected)


def test_lists_of_runs_and_the_frame():
    runs, qrels_a, qrels_b = _case(4, n_systems=3)
    result = system_agreement(list(runs.values()), qrels_a, qrels_b, n_resamples=50)
    assert result.systems == ["run 0", "run 1", "run 2"]
    assert type(result) is SystemAgreementResult
    assert "kendall_tau=" in repr(result) and "rank_a" in repr(result)
    pytest.importorskip("pandas")
    frame = result.to_frame()
    assert list(frame.columns) == ["mean_a", "mean_b", "rank_a", "rank_b"]
    assert sorted(frame["rank_a"]) == [1, 2, 3] or len(set(result.means_a)) < 3


def test_fewer_than_three_systems_is_an_error():
    runs, qrels_a, qrels_b = _case(5, n_systems=2)
    with pytest.raises(ValueError, match=r"`runs` holds 2 system\(s\): .* at least 3"):
        system_agreement(runs, qrels_a, qrels_b)
    with pytest.raises(ValueError, match="`runs` must be a dict"):
        system_agreement("run.txt", qrels_a, qrels_b)
    with pytest.raises(ValueError, match="`metric`"):
        system_agreement(runs, qrels_a, qrels_b, metric=None)


def test_a_bad_run_names_its_system():
    runs, qrels_a, qrels_b = _case(6, n_systems=3)
    runs["s1"] = {"q0": ["d1", "d1"]}
    with pytest.raises(ValueError, match=r"`runs\['s1'\]`: query 'q0' lists document 'd1'"):
        system_agreement(runs, qrels_a, qrels_b)


def test_one_query_has_no_interval_and_few_queries_warn():
    runs, qrels_a, qrels_b = _case(4, n_queries=1)
    with pytest.raises(ValueError, match="comparison has 1 query.*zero width"):
        system_agreement(runs, qrels_a, qrels_b, n_resamples=50)
    runs, qrels_a, qrels_b = _case(4, n_queries=5)
    with pytest.warns(UserWarning, match="only 5: with fewer than 20"):
        system_agreement(runs, qrels_a, qrels_b, n_resamples=50)
    runs, qrels_a, qrels_b = _case(4, n_queries=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        system_agreement(runs, qrels_a, qrels_b, n_resamples=50)
