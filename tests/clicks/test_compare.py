"""skrank.clicks.compare: hand-worked cases and simulations of the PBM.

The simulations draw new queries in every replication (a population of
queries with many sessions each), so an interval's target, the population
value, is known: E over queries of the true DCG@3 (gains gamma), from
400,000 simulated queries.
"""

import math

import numpy as np
import pytest

from skrank import ComparisonResult
from skrank.clicks import compare, evaluate

def test_hand_worked_example():
    # query 1: lists 1 and 2, query 2: list 3; two rows each. The clicks are
    # at logged position 2 (weight 2) in lists 1 and 2, at position 1
    # (weight 1) in list 3. "a" ranks the position-2 row first everywhere.
    click = [0, 1, 0, 1, 1, 0]
    position = [1, 2, 1, 2, 1, 2]
    systems = {"a": [1, 2, 1, 2, 1, 2], "b": [2, 1, 2, 1, 2, 1]}
    result = compare(click, systems, position=position, list_id=[1, 1, 2, 2, 3, 3],
                     query_id=[1, 1, 1, 1, 2, 2], propensity=lambda k: 1 / k,
                     metrics=["precision@1", "dcg@2"], random_state=0)
    assert isinstance(result, ComparisonResult)
    summary = result.summary.to_dict()
    assert summary["metric"] == ["precision@1"] * 2 + ["dcg@2"] * 2
    assert summary["system"] == ["a", "b", "a", "b"]
    # precision@1, a: lists 2, 2, 0 -> 4/3; b: 0, 0, 1 -> 1/3
    # dcg@2, a: 2, 2, 1/log2(3); b: 2/log2(3), 2/log2(3), 1
    log3 = math.log2(3)
    expected = [4 / 3, 1 / 3, (4 + 1 / log3) / 3, (4 / log3 + 1) / 3]
    np.testing.assert_allclose(summary["mean"], expected, rtol=1e-12)
    assert summary["n_queries"] == [2, 2, 2, 2]
    # the same numbers as evaluate
    for name, scores in systems.items():
        alone = evaluate(click, scores, position=position, list_id=[1, 1, 2, 2, 3, 3],
                         propensity=lambda k: 1 / k, metrics=["precision@1", "dcg@2"])
        got = [m for m, s in zip(result.summary.rows, summary["system"]) if s == name]
        assert [row[2] for row in got] == pytest.approx(list(alone.values()), rel=1e-12)
    tests = result.tests.to_dict()
    np.testing.assert_allclose(tests["difference"],
                               [expected[0] - expected[1], expected[2] - expected[3]],
                               rtol=1e-12)
    # per-query shares (sum over the query's lists * 2 queries / 3 lists):
    # precision@1 differences (4 - 0) * 2/3 and (0 - 1) * 2/3, sum 2; the
    # four sign vectors give |sum| = 2 or 10/3, all >= 2: exact p = 1
    assert tests["p_randomization"][0] == 1.0
    shares = result.per_query["precision@1"]
    np.testing.assert_allclose(shares["a"].value, [4 * 2 / 3, 0.0])
    np.testing.assert_allclose(shares["b"].value, [0.0, 1 * 2 / 3])
    assert shares["a"].query_id.tolist() == [1, 2]
    assert np.mean(shares["a"].value) == pytest.approx(expected[0])


def test_the_bootstrap_recomputes_the_ratio_of_the_drawn_sums():
    # query 1: two lists, precision@1 of "a" 2 and 0 (sum 2 over 2 lists);
    # query 2: one list, 0. Two queries: a resample draws (1, 1), (1, 2),
    # (2, 1) or (2, 2), each with probability 1/4, whose ratios of sums are
    # 2/2, 2/3, 2/3 and 0/1. The 30% and 70% quantiles both fall on 2/3;
    # a mean of per-query means would give (1 + 0) / 2 there.
    click = [0, 1, 0, 0, 1, 0]
    result = compare(click, {"a": [1, 2, 1, 2, 1, 2], "b": [2, 1, 2, 1, 2, 1]},
                     position=[1, 2, 1, 2, 1, 2], list_id=[1, 1, 2, 2, 3, 3],
                     query_id=["q1", "q1", "q1", "q1", "q2", "q2"],
                     propensity=lambda k: 1 / k, metrics="precision@1",
                     confidence_level=0.4, n_resamples=2000, random_state=1)
    low, high = result.summary.column("ci_low")[0], result.summary.column("ci_high")[0]
    assert low == pytest.approx(2 / 3) and high == pytest.approx(2 / 3)
    assert result.summary.column("mean")[0] == pytest.approx(2 / 3)
    assert result.per_query["precision@1"]["a"].query_id.tolist() == ["q1", "q2"]


def test_ndcg_is_a_ratio_with_the_same_denominator_for_every_system():
    rng = np.random.default_rng(3)
    lists = np.repeat(np.arange(40), 4)
    click = (rng.random(160) < 0.3).astype(int)
    position = np.tile([1, 2, 3, 4], 40)
    systems = {"a": rng.normal(size=160), "b": rng.normal(size=160)}
    result = compare(click, systems, position=position, list_id=lists,
                     query_id=lists // 4, propensity=lambda k: 1 / k,
                     metrics=["ndcg@3", "dcg@3"], n_resamples=2000, random_state=0)
    means = dict(zip(zip(result.summary.column("metric"),
                         result.summary.column("system")),
                     result.summary.column("mean")))
    for name, scores in systems.items():
        alone = evaluate(click, scores, position=position, list_id=lists,
                         propensity=lambda k: 1 / k, metrics=["ndcg@3", "dcg@3"])
        assert means[("ndcg@3", name)] == pytest.approx(alone["ndcg@3"], rel=1e-12)
    # one denominator: the ratio of the two systems' ndcg is their dcg's
    assert means[("ndcg@3", "a")] / means[("ndcg@3", "b")] == pytest.approx(
        means[("dcg@3", "a")] / means[("dcg@3", "b")], rel=1e-12)
    # the per-query differences are proportional: the same tests (10
    # queries: all 2**10 sign vectors)
    p = result.tests.column("p_randomization")
    assert p[0] == pytest.approx(p[1], rel=1e-12)
    t = result.tests.column("t_statistic")
    assert t[0] == pytest.approx(t[1], rel=1e-9)


@pytest.mark.parametrize("change, message", [
    ({"systems": {"a": [1, 2]}}, "at least two systems"),
    ({"baseline": "c"}, "`baseline` must be one of the systems"),
    ({"position": None}, "`position` is required"),
    ({"list_id": None}, "`list_id` is required"),
    ({"propensity": None}, "`propensity` is required"),
    ({"query_id": [1, 2]}, "has rows of two queries"),
    ({"metrics": ["map"]}, "Unknown click metric"),
    ({"n_resamples": 0}, "`n_resamples`"),
    ({"correction": "sidak"}, "`correction`"),
    ({"systems": {"a": [1, 2], "b": [1]}}, r"`systems`\['b'\]"),
])
def test_bad_arguments(change, message):
    arguments = dict(systems={"a": [1, 2], "b": [2, 1]}, position=[1, 2],
                     list_id=[0, 0], propensity=1.0)
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        compare([1, 0], **arguments)


# -- simulations: a population of queries with many sessions each --------------
THETA = 1 / np.arange(1, 6)
DISCOUNT = np.where(np.arange(1, 6) <= 3, 1 / np.log2(np.arange(2, 7)), 0.0)


def _queries(rng, n_queries):
    """gamma of 5 documents per query; queries differ in how clickable they are."""
    return (rng.beta(0.7, 1.3, size=(n_queries, 5))
            * rng.uniform(0.2, 1.0, size=(n_queries, 1)))


def _population_dcg(sigma, n_queries=400_000):
    """E over queries of the true DCG@3 of rankers scoring gamma + N(0, sigma)."""
    rng = np.random.default_rng(123)
    gamma = _queries(rng, n_queries)
    return np.array([
        np.take_along_axis(gamma, np.argsort(-(gamma + rng.normal(0, s, gamma.shape)),
                                             axis=1), axis=1) @ DISCOUNT
        for s in sigma
    ]).mean(axis=1)


def _log(rng, n_queries, n_sessions, sigma):
    """Sessions of every query in a noisy logger's order, PBM clicks, and the
    systems' scores (one ranker per sigma, fixed per query and document)."""
    gamma = _queries(rng, n_queries)
    logger = gamma + rng.normal(0, 0.3, gamma.shape)
    position = np.empty(gamma.shape, dtype=np.int64)
    np.put_along_axis(position, np.argsort(-logger, axis=1),
                      np.tile(np.arange(1, 6), (n_queries, 1)), axis=1)
    shape = (n_sessions, n_queries, 5)
    click = ((rng.random(shape) < THETA[position - 1])
             & (rng.random(shape) < gamma)).astype(int)
    session, query, _ = np.indices(shape)
    systems = {f"s{i}": np.broadcast_to(gamma + rng.normal(0, s, gamma.shape),
                                        shape).ravel()
               for i, s in enumerate(sigma)}
    return dict(click=click.ravel(), position=np.broadcast_to(position, shape).ravel(),
                list_id=(session * n_queries + query).ravel(), query_id=query.ravel(),
                systems=systems)


def _binomial_band(p, n):
    sd = math.sqrt(p * (1 - p) / n)
    return p - 3 * sd, p + 3 * sd


def test_query_bootstrap_intervals_cover_the_population_value():
    sigma = (0.1, 0.6)
    truth = _population_dcg(sigma)
    rng = np.random.default_rng(0)
    n_logs = 200
    covered = {"query": np.zeros(2), "list": np.zeros(2)}
    width = {"query": 0.0, "list": 0.0}
    for seed in range(n_logs):
        log = _log(rng, n_queries=40, n_sessions=20, sigma=sigma)
        for unit in ("query", "list"):
            result = compare(
                log["click"], log["systems"], position=log["position"],
                list_id=log["list_id"],
                query_id=log["query_id"] if unit == "query" else None,
                propensity=lambda k: THETA[k - 1], metrics="dcg@3", n_resamples=400,
                random_state=seed)
            low = np.array(result.summary.column("ci_low"))
            high = np.array(result.summary.column("ci_high"))
            covered[unit] += (low <= truth) & (truth <= high)
            width[unit] += float(np.mean(high - low)) / n_logs
    low, high = _binomial_band(0.95, n_logs)
    rate = covered["query"] / n_logs
    assert ((rate >= low) & (rate <= high)).all()
    # resampling lists treats the 20 sessions of a query as independent:
    # intervals about 40% narrower, covering far less often
    assert (covered["list"] / n_logs < low).all()
    assert width["list"] < 0.7 * width["query"]


def test_the_paired_test_separates_rankers_and_not_equal_ones():
    rng = np.random.default_rng(5)
    n_logs = 200
    rejected = {"different": 0, "t_equal": 0, "randomization_equal": 0}
    for seed in range(n_logs):
        for case, sigma in (("different", (0.1, 0.6)), ("equal", (0.3, 0.3))):
            # equal: two rankers of the same quality (independent noise)
            log = _log(rng, n_queries=40, n_sessions=20, sigma=sigma)
            tests = compare(log["click"], log["systems"], position=log["position"],
                            list_id=log["list_id"], query_id=log["query_id"],
                            propensity=lambda k: THETA[k - 1], metrics="dcg@3",
                            n_resamples=400, random_state=seed).tests
            if case == "different":
                rejected["different"] += tests.column("p_t_test")[0] < 0.05
            else:
                rejected["t_equal"] += tests.column("p_t_test")[0] < 0.05
                rejected["randomization_equal"] += (
                    tests.column("p_randomization")[0] < 0.05)
    assert rejected["different"] / n_logs > 0.9
    low, high = _binomial_band(0.05, n_logs)
    for name in ("t_equal", "randomization_equal"):
        assert max(low, 0) <= rejected[name] / n_logs <= high, rejected


def test_ndcg_intervals_cover_the_population_ratio_with_doc_id():
    # the population value: E[DCG@3] / E[ideal DCG@3] over queries
    sigma = (0.1, 0.6)
    rng = np.random.default_rng(123)
    gamma = _queries(rng, 400_000)
    ideal = (-np.sort(-gamma, axis=1) @ DISCOUNT).mean()
    truth = np.array([
        (np.take_along_axis(gamma, np.argsort(-(gamma + rng.normal(0, s, gamma.shape)),
                                              axis=1), axis=1) @ DISCOUNT).mean()
        for s in sigma
    ]) / ideal
    rng = np.random.default_rng(2)
    n_logs = 100
    covered = np.zeros(2)
    for seed in range(n_logs):
        log = _log(rng, n_queries=40, n_sessions=20, sigma=sigma)
        doc = np.indices((20, 40, 5))[2].ravel()
        result = compare(log["click"], log["systems"], position=log["position"],
                         list_id=log["list_id"], query_id=log["query_id"], doc_id=doc,
                         propensity=lambda k: THETA[k - 1], metrics="ndcg@3",
                         n_resamples=400, random_state=seed)
        low = np.array(result.summary.column("ci_low"))
        high = np.array(result.summary.column("ci_high"))
        covered += (low <= truth) & (truth <= high)
    low, high = _binomial_band(0.95, n_logs)
    assert ((covered / n_logs >= low) & (covered / n_logs <= high)).all(), covered
