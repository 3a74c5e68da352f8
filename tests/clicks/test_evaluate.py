"""skrank.clicks.evaluate: IPS metrics against definitions, brute force and simulation."""

import itertools
import math
import pickle

import numpy as np
import pytest

from skrank import QueryValues
from skrank.clicks import PositionBias, evaluate


def _lam(stem, k, rank):
    if stem == "dcg":
        return 1.0 / math.log2(1 + rank) if k is None or rank <= k else 0.0
    if stem == "precision":
        return 1.0 / k if rank <= k else 0.0
    return float(rank)  # arp


def _brute_force(click, score, position, query, theta, stem, k):
    """Mean over lists of the mean over every order of tied rows (obvious, slow)."""
    values = []
    for q in sorted(set(query)):
        rows = [i for i in range(len(click)) if query[i] == q]
        # all orders consistent with descending score: permutations with
        # non-increasing scores
        totals = []
        for perm in itertools.permutations(rows):
            if any(score[a] < score[b] for a, b in zip(perm, perm[1:])):
                continue
            value = sum(_lam(stem, k, r + 1) * click[i] / theta[position[i] - 1]
                        for r, i in enumerate(perm))
            if stem == "ndcg":
                weights = sorted((click[i] / theta[position[i] - 1] for i in rows),
                                 reverse=True)
                ideal = sum(_lam("dcg", k, r + 1) * w for r, w in enumerate(weights))
                dcg = sum(_lam("dcg", k, r + 1) * click[i] / theta[position[i] - 1]
                          for r, i in enumerate(perm))
                value = dcg / ideal if ideal > 0 else float("nan")
            totals.append(value)
        values.append(sum(totals) / len(totals))
    values = np.array(values)
    if stem == "ndcg":
        return float(np.nanmean(values))
    return float(values.mean())


@pytest.mark.parametrize("seed", range(6))
def test_ties_equal_the_mean_over_all_tie_orders(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=4)
    query = np.repeat(np.arange(4), sizes)
    position = np.concatenate([rng.permutation(s) + 1 for s in sizes])
    click = rng.integers(0, 2, query.shape[0])
    click[0] = 1  # at least one list with a click (ndcg)
    score = rng.integers(0, 3, query.shape[0]).astype(float)  # many ties
    theta = np.array([1.0, 0.6, 0.45, 0.3, 0.2])
    metrics = ["dcg@3", "dcg", "precision@2", "arp", "ndcg@3"]
    result = evaluate(click, score, position=position, query_id=query,
                      propensity=lambda k: theta[k - 1], metrics=metrics)
    for name in metrics:
        stem, _, k = name.partition("@")
        expected = _brute_force(list(click), list(score), list(position), list(query),
                                theta, stem, int(k) if k else None)
        assert result[name] == pytest.approx(expected, rel=1e-12), name


def test_worked_example_with_clip_and_diagnostics():
    # list "a": clicks at logged positions 2 and 4; list "b": no click
    # propensity 1/position, clip 0.3 raises 1/4 to 0.3: weights 2 and 1/0.3
    click = [0, 1, 0, 1, 0, 0]
    score = [0.1, 0.9, 0.5, 0.3, 0.2, 0.8]  # new ranks in "a": 4, 1, 2, 3
    position = [1, 2, 3, 4, 1, 2]
    query = ["a", "a", "a", "a", "b", "b"]
    result = evaluate(click, score, position=position, query_id=query,
                      propensity=lambda k: 1.0 / k, clip=0.3,
                      metrics=["dcg@2", "precision@3", "arp", "ndcg@2"])
    w2, w4 = 2.0, 1 / 0.3
    # list a: the position-2 click is ranked 1, the position-4 click ranked 3
    assert result["dcg@2"] == pytest.approx((w2 / math.log2(2) + 0.0) / 2)
    assert result["precision@3"] == pytest.approx(((w2 + w4) / 3) / 2)
    assert result["arp"] == pytest.approx((w2 * 1 + w4 * 3) / 2)
    # ndcg@2: list b has no click, left out; ideal puts w4 first, then w2
    ideal = w4 + w2 / math.log2(3)
    assert result["ndcg@2"] == pytest.approx(w2 / ideal)
    assert result.n_lists == 2 and result.n_clicks == 2
    assert result.n_lists_without_click == 1
    assert result.max_weight == pytest.approx(w4)
    assert result.effective_sample_size == pytest.approx((w2 + w4) ** 2 / (w2**2 + w4**2))
    assert result.clipped_share == 0.5


def test_per_list_values_and_sample_weight():
    click = [1, 0, 0, 0, 1, 0]
    score = [3, 2, 1, 3, 2, 1]
    position = [1, 2, 3, 1, 2, 3]
    query = [20, 20, 20, 10, 10, 10]
    result = evaluate(click, score, position=position, query_id=query,
                      propensity=[1, 1, 1, 0.5, 0.5, 0.5], metrics="precision@1",
                      aggregate=None)
    values = result["precision@1"]
    assert isinstance(values, QueryValues)
    np.testing.assert_array_equal(values.query_id, [10, 20])
    # list 10: its click (weight 2) is ranked 2 -> 0; list 20: ranked 1 -> 1
    np.testing.assert_allclose(values.value, [0.0, 1.0])
    weighted = evaluate(click, score, position=position, query_id=query,
                        propensity=1.0, metrics="precision@1",
                        sample_weight=[1, 1, 1, 3, 3, 3])
    assert weighted["precision@1"] == pytest.approx((0 * 3 + 1 * 1) / 4)


def test_propensity_forms_agree():
    rng = np.random.default_rng(3)
    query = np.repeat(np.arange(50), 4)
    position = np.tile([1, 2, 3, 4], 50)
    click = rng.integers(0, 2, 200)
    score = rng.normal(size=200)
    theta = np.array([1.0, 0.5, 0.4, 0.25])
    common = dict(position=position, query_id=query, metrics=["dcg@3", "arp"])
    a = evaluate(click, score, propensity=PositionBias(theta), **common)
    b = evaluate(click, score, propensity=lambda k: theta[k - 1], **common)
    c = evaluate(click, score, propensity=theta[position - 1], **common)
    assert a == b == c


def test_result_pickles():
    result = evaluate([1, 0], [1, 0], position=[1, 2], query_id=[0, 0], propensity=1.0)
    again = pickle.loads(pickle.dumps(result))
    assert again == result and again.n_clicks == 1


def _simulate_logs(n_logs, n_lists, theta, gamma, logger_order, rng):
    """Clicks of n_logs logs of n_lists lists under the PBM (vectorised)."""
    n_docs = gamma.shape[0]
    position = np.empty(n_docs, dtype=np.int64)
    position[logger_order] = np.arange(1, n_docs + 1)
    examined = rng.random((n_logs, n_lists, n_docs)) < theta[position - 1]
    attractive = rng.random((n_logs, n_lists, n_docs)) < gamma
    return (examined & attractive).astype(float), position


def test_ips_is_unbiased_and_the_naive_metric_is_not():
    rng = np.random.default_rng(0)
    theta = np.array([1.0, 0.6, 0.4, 0.3, 0.2])
    gamma = np.array([0.1, 0.2, 0.3, 0.7, 0.9])
    logger_order = np.arange(5)  # the logger shows doc 0 first: the worst
    new_score = gamma.copy()  # the new ranker orders by true attractiveness
    n_logs, n_lists = 300, 40
    clicks, position = _simulate_logs(n_logs, n_lists, theta, gamma, logger_order, rng)
    new_rank = np.empty(5, dtype=np.int64)
    new_rank[np.argsort(-new_score)] = np.arange(1, 6)
    truth = float(np.sum(gamma / np.log2(1 + new_rank) * (new_rank <= 3)))
    query = np.repeat(np.arange(n_lists), 5)
    ips, naive = [], []
    for log in clicks:  # one evaluate per simulated log (300 small calls)
        common = dict(position=np.tile(position, n_lists), query_id=query,
                      metrics="dcg@3")
        ips.append(evaluate(log.ravel(), np.tile(new_score, n_lists),
                            propensity=lambda k: theta[k - 1], **common)["dcg@3"])
        naive.append(evaluate(log.ravel(), np.tile(new_score, n_lists),
                              propensity=1.0, **common)["dcg@3"])
    ips, naive = np.array(ips), np.array(naive)
    error = ips.std(ddof=1) / np.sqrt(n_logs)
    assert abs(ips.mean() - truth) < 4 * error
    assert abs(naive.mean() - truth) > 10 * naive.std(ddof=1) / np.sqrt(n_logs)


@pytest.mark.parametrize("stem", ["precision@2", "arp"])
def test_other_linear_metrics_are_unbiased(stem):
    rng = np.random.default_rng(1)
    theta = np.array([1.0, 0.5, 0.35, 0.25])
    gamma = np.array([0.2, 0.4, 0.6, 0.8])
    clicks, position = _simulate_logs(200, 50, theta, gamma, np.arange(4), rng)
    new_score = np.array([0.0, 1.0, 2.0, 3.0])  # reverses the logger
    new_rank = 4 - np.arange(4)
    lam = (new_rank <= 2) / 2 if stem == "precision@2" else new_rank.astype(float)
    truth = float(np.sum(lam * gamma))
    query = np.repeat(np.arange(50), 4)
    values = np.array([
        evaluate(log.ravel(), np.tile(new_score, 50), position=np.tile(position, 50),
                 query_id=query, propensity=lambda k: theta[k - 1], metrics=stem)[stem]
        for log in clicks
    ])
    assert abs(values.mean() - truth) < 4 * values.std(ddof=1) / np.sqrt(200)


# -- bad input: a ValueError naming the argument and the first bad row ----------
GOOD = dict(position=[1, 2, 1, 2], query_id=[0, 0, 1, 1], propensity=[1, 0.5, 1, 0.5])


@pytest.mark.parametrize("change, message", [
    (dict(position=[1, 0, 1, 2]), r"`position` must be 1 or more.*row 1"),
    (dict(position=[1, 2.5, 1, 2]), r"`position` must hold whole numbers.*row 1"),
    (dict(position=[1, 2, 1, 1]), r"same position: row 3 repeats row 2"),
    (dict(click=[0, 2, 0, 1]), r"`click` must be 0 or 1.*row 1"),
    (dict(propensity=[1, 0, 1, 0.5]), r"`propensity` must be positive and finite.*row 1"),
    (dict(propensity=[1, 0.5, np.nan, 0.5]), r"`propensity` must be positive.*row 2"),
    (dict(propensity=[1, 0.5, 1, np.inf]), r"`propensity` must be positive.*row 3"),
    (dict(propensity=lambda k: 1.0 - 0.6 * k), r"`propensity` must be positive.*row 1"),
    (dict(propensity=PositionBias([1.0])), r"covers positions 1..1.*row 1"),
    (dict(clip=0.0), r"`clip` must be a number in \(0, 1\]"),
    (dict(clip=1.5), r"`clip` must be a number in \(0, 1\]"),
    (dict(metrics=["dcg@0"]), r"`k` must be a positive integer"),
    (dict(metrics=["map"]), r"Unknown click metric 'map'"),
    (dict(click=[0, 1, 0]), r"`y_score` has 4 rows but `click` has 3"),
])
def test_bad_input(change, message):
    arguments = dict(GOOD, click=[0, 1, 0, 1], y_score=[1, 2, 3, 4])
    arguments.update(change)
    click, score = arguments.pop("click"), arguments.pop("y_score")
    with pytest.raises(ValueError, match=message):
        evaluate(click, score, **arguments)


def test_duplicate_position_found_with_sparse_positions():
    # positions far apart: the sort path of the check, not the table
    with pytest.raises(ValueError, match="row 2 repeats row 0"):
        evaluate([0, 1, 0], [1, 2, 3], position=[10**6, 1, 10**6], query_id=[5, 5, 5],
                 propensity=1.0)


def test_query_id_is_required():
    with pytest.raises(ValueError, match="`query_id` is required"):
        evaluate([1, 0], [1, 0], position=[1, 2], query_id=None, propensity=1.0)


def test_a_callable_may_return_one_number():
    a = evaluate([1, 0, 1], [3, 2, 1], position=[1, 2, 3], query_id=[0, 0, 0],
                 propensity=lambda k: 0.5, metrics="arp")
    assert a["arp"] == pytest.approx(1 / 0.5 + 3 / 0.5)
