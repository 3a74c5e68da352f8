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
    """Mean over lists of the mean over every order of tied rows (obvious, slow).

    For ndcg: the sum over lists of that mean DCG over the sum over lists of
    the DCG of the list's weights sorted in descending order (its ideal DCG).
    """
    values, ideals = [], []
    for q in sorted(set(query)):
        rows = [i for i in range(len(click)) if query[i] == q]
        # all orders consistent with descending score: permutations with
        # non-increasing scores
        totals = []
        for perm in itertools.permutations(rows):
            if any(score[a] < score[b] for a, b in zip(perm, perm[1:])):
                continue
            lam = "dcg" if stem == "ndcg" else stem
            value = sum(_lam(lam, k, r + 1) * click[i] / theta[position[i] - 1]
                        for r, i in enumerate(perm))
            totals.append(value)
        values.append(sum(totals) / len(totals))
        weights = sorted((click[i] / theta[position[i] - 1] for i in rows), reverse=True)
        ideals.append(sum(_lam("dcg", k, r + 1) * w for r, w in enumerate(weights)))
    if stem == "ndcg":
        return sum(values) / sum(ideals)
    return float(np.mean(values))


def _small_log(seed):
    """Four lists of 1-5 rows: (query, position, click, score), scores on 3 levels."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, size=4)
    query = np.repeat(np.arange(4), sizes)
    position = np.concatenate([rng.permutation(s) + 1 for s in sizes])
    click = rng.integers(0, 2, query.shape[0])
    score = rng.integers(0, 3, query.shape[0]).astype(float)
    return query, position, click, score


@pytest.mark.parametrize("seed", range(6))
def test_ties_equal_the_mean_over_all_tie_orders(seed):
    query, position, click, score = _small_log(seed)  # scores with many ties
    click[0] = 1  # at least one list with a click (ndcg)
    theta = np.array([1.0, 0.6, 0.45, 0.3, 0.2])
    metrics = ["dcg@3", "dcg", "precision@2", "arp", "ndcg@3"]
    result = evaluate(click, score, position=position, list_id=query,
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
    result = evaluate(click, score, position=position, list_id=query,
                      propensity=lambda k: 1.0 / k, clip=0.3,
                      metrics=["dcg@2", "precision@3", "arp", "ndcg@2"])
    w2, w4 = 2.0, 1 / 0.3
    # list a: the position-2 click is ranked 1, the position-4 click ranked 3
    assert result["dcg@2"] == pytest.approx((w2 / math.log2(2) + 0.0) / 2)
    assert result["precision@3"] == pytest.approx(((w2 + w4) / 3) / 2)
    assert result["arp"] == pytest.approx((w2 * 1 + w4 * 3) / 2)
    # ndcg@2: sum of DCG over sum of ideal DCG; list b (no click) adds 0 to
    # both; a's ideal order puts w4 first, then w2
    ideal = w4 + w2 / math.log2(3)
    assert result["ndcg@2"] == pytest.approx((w2 + 0) / (ideal + 0))
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
    result = evaluate(click, score, position=position, list_id=query,
                      propensity=[1, 1, 1, 0.5, 0.5, 0.5], metrics="precision@1",
                      aggregate=None)
    values = result["precision@1"]
    assert isinstance(values, QueryValues)
    np.testing.assert_array_equal(values.query_id, [10, 20])
    # list 10: its click (weight 2) is ranked 2 -> 0; list 20: ranked 1 -> 1
    np.testing.assert_allclose(values.value, [0.0, 1.0])
    weighted = evaluate(click, score, position=position, list_id=query,
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
    common = dict(position=position, list_id=query, metrics=["dcg@3", "arp"])
    a = evaluate(click, score, propensity=PositionBias(theta), **common)
    b = evaluate(click, score, propensity=lambda k: theta[k - 1], **common)
    c = evaluate(click, score, propensity=theta[position - 1], **common)
    assert a == b == c


def test_result_pickles():
    result = evaluate([1, 0], [1, 0], position=[1, 2], list_id=[0, 0], propensity=1.0)
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
        common = dict(position=np.tile(position, n_lists), list_id=query,
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
                 list_id=query, propensity=lambda k: theta[k - 1], metrics=stem)[stem]
        for log in clicks
    ])
    assert abs(values.mean() - truth) < 4 * values.std(ddof=1) / np.sqrt(200)


# -- bad input: a ValueError naming the argument and the first bad row ----------
GOOD = dict(position=[1, 2, 1, 2], list_id=[0, 0, 1, 1], propensity=[1, 0.5, 1, 0.5])


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
        evaluate([0, 1, 0], [1, 2, 3], position=[10**6, 1, 10**6], list_id=[5, 5, 5],
                 propensity=1.0)


def _first_repeat(position, lists):
    """The (later, earlier) rows of the first repeated (list, position), by brute force."""
    seen = {}
    for row, key in enumerate(zip(lists, position)):
        if key in seen:
            return row, seen[key]
        seen[key] = row
    return None


@pytest.mark.parametrize("top", [3, 8, 63, 64, 65, 200])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mask_rows", [None, 5])
def test_repeated_positions_are_found_whatever_the_largest_position(top, seed, mask_rows,
                                                                   monkeypatch):
    # positions up to 64 take the bit-mask path, above it the count or sort:
    # each must refuse exactly the lists that repeat a position (a set per
    # list says which), naming the later row of the first repeat; the masks
    # made a few rows of whole lists at a time (mask_rows=5) as well
    if mask_rows is not None:
        from skrank.clicks import _evaluate as click_evaluate_module

        monkeypatch.setattr(click_evaluate_module, "_MASK_ROWS", mask_rows)
    rng = np.random.default_rng(seed)
    n_lists = 30
    size = rng.integers(1, min(top, 12) + 1, n_lists)
    lists = np.repeat(rng.permutation(n_lists) * 7 + 3, size)
    position = np.concatenate([rng.choice(top, s, replace=False) + 1 for s in size])
    position[rng.integers(0, position.shape[0])] = top  # the largest is used
    order = rng.permutation(position.shape[0])
    lists, position = lists[order], position[order]
    click = rng.integers(0, 2, position.shape[0])
    score = rng.normal(size=position.shape[0])
    common = dict(list_id=lists, propensity=1.0, metrics="dcg@3")
    repeat = _first_repeat(position.tolist(), lists.tolist())
    if repeat is None:
        assert np.isfinite(evaluate(click, score, position=position, **common)["dcg@3"])
    else:  # the draw put a repeat where the maximum was planted
        with pytest.raises(ValueError, match=f"row {repeat[0]} repeats row {repeat[1]}"):
            evaluate(click, score, position=position, **common)
    # one planted repeat: a row takes the position of another row of its list
    bad = position.copy()
    multi = np.flatnonzero(np.bincount(np.unique(lists, return_inverse=True)[1]) > 1)
    target = rng.choice(multi)
    rows = np.flatnonzero(lists == np.unique(lists)[target])
    bad[rows[1]] = bad[rows[0]]
    later, earlier = _first_repeat(bad.tolist(), lists.tolist())
    with pytest.raises(ValueError, match=f"row {later} repeats row {earlier}"):
        evaluate(click, score, position=bad, **common)


@pytest.mark.parametrize("missing", ["list_id", "position", "propensity"])
def test_required_arguments_say_so(missing):
    arguments = dict(position=[1, 2], list_id=[0, 0], propensity=1.0)
    arguments[missing] = None
    with pytest.raises(ValueError, match=f"`{missing}` is required"):
        evaluate([1, 0], [1, 0], **arguments)


def test_a_list_answers_one_query():
    with pytest.raises(ValueError, match="List 0 has rows of two queries"):
        evaluate([1, 0], [1, 0], position=[1, 2], list_id=[0, 0], query_id=[1, 2],
                 propensity=1.0)
    # a query of two lists: the mean over lists is unchanged by query_id
    common = dict(position=[1, 2, 1, 2], list_id=[0, 0, 1, 1], propensity=0.5,
                  metrics=["dcg@2", "precision@1", "arp"])
    assert (evaluate([1, 0, 0, 1], [1, 2, 2, 1], query_id=[7, 7, 7, 7], **common)
            == evaluate([1, 0, 0, 1], [1, 2, 2, 1], **common))


def test_a_callable_may_return_one_number():
    a = evaluate([1, 0, 1], [3, 2, 1], position=[1, 2, 3], list_id=[0, 0, 0],
                 propensity=lambda k: 0.5, metrics="arp")
    assert a["arp"] == pytest.approx(1 / 0.5 + 3 / 0.5)


# -- ndcg@k: a ratio of sums over lists, on simulations of the PBM ---------------
def test_ndcg_worked_example_depends_on_the_propensities():
    # two lists, one click each: list 1 at logged position 1 (new rank 2),
    # list 2 at logged position 2 (new rank 1). Every list's ideal puts its
    # click first, so the old per-list ratio was 1/log2(3) and 1, whatever
    # the propensities; the ratio of sums weighs each click by 1/theta.
    click, score = [1, 0, 0, 1], [1, 2, 1, 2]
    common = dict(position=[1, 2, 1, 2], list_id=[1, 1, 2, 2], metrics="ndcg@2")
    values = {}
    for theta2 in (1.0, 0.5, 0.1):
        w1, w2 = 1.0, 1.0 / theta2
        expected = (w1 / math.log2(3) + w2 / math.log2(2)) / (w1 + w2)
        got = evaluate(click, score, propensity=lambda k: np.where(k == 1, 1.0, theta2),
                       **common)["ndcg@2"]
        assert got == pytest.approx(expected, rel=1e-12)
        values[theta2] = got
    assert values[1.0] < values[0.5] < values[0.1]


def test_ndcg_per_list_values_average_to_the_estimate():
    rng = np.random.default_rng(7)
    lists = np.repeat(np.arange(30), 4)
    click = (rng.random(120) < 0.3).astype(int)
    position = np.tile([1, 2, 3, 4], 30)
    score = rng.normal(size=120)
    weight = rng.uniform(0.5, 2.0, size=120)
    common = dict(position=position, list_id=lists, propensity=lambda k: 1 / k,
                  metrics=["ndcg@3", "dcg@3"], sample_weight=weight)
    mean = evaluate(click, score, **common)
    per_list = evaluate(click, score, aggregate=None, **common)
    values = per_list["ndcg@3"]
    assert np.average(values.value, weights=values.weight) == pytest.approx(
        mean["ndcg@3"], rel=1e-12)
    # each list's IPS DCG over the mean IPS ideal DCG of all lists
    ideal = evaluate(click, click * position, aggregate=None,  # weights 1/theta = k
                     **{**common, "metrics": "dcg@3"})["dcg@3"]
    mean_ideal = np.average(ideal.value, weights=ideal.weight)
    np.testing.assert_allclose(values.value, per_list["dcg@3"].value / mean_ideal,
                               rtol=1e-12)


def _pbm_world(rng, n_queries, n_docs):
    """True click probabilities (gamma) per (query, doc), a noisy logger's scores."""
    gamma = rng.beta(0.6, 1.4, size=(n_queries, n_docs))
    return gamma, gamma + rng.normal(0, 0.35, size=gamma.shape)


def _pbm_log(rng, gamma, logger, theta, n_sessions):
    """Every query shown ``n_sessions`` times in the logger's order; PBM clicks.

    Rows ordered by (session, query, doc); the list of a row is its
    (session, query).
    """
    n_queries, n_docs = gamma.shape
    position = np.empty((n_queries, n_docs), dtype=np.int64)
    np.put_along_axis(position, np.argsort(-logger, axis=1),
                      np.tile(np.arange(1, n_docs + 1), (n_queries, 1)), axis=1)
    shape = (n_sessions, n_queries, n_docs)
    examined = rng.random(shape) < theta[position - 1]
    click = (examined & (rng.random(shape) < gamma)).astype(np.int64)
    session, query, doc = np.indices(shape)
    return dict(click=click.ravel(), position=np.broadcast_to(position, shape).ravel(),
                list_id=(session * n_queries + query).ravel(), query_id=query.ravel(),
                doc_id=doc.ravel())


def _true_dcg(gamma, score, k):
    """Per query: DCG@k of the ranking by ``score`` and the ideal DCG@k, gains gamma."""
    n_queries, n_docs = gamma.shape
    discount = np.where(np.arange(1, n_docs + 1) <= k,
                        1 / np.log2(np.arange(2, n_docs + 2)), 0.0)
    ranked = np.take_along_axis(gamma, np.argsort(-score, axis=1), axis=1)
    ideal = -np.sort(-gamma, axis=1)
    return ranked @ discount, ideal @ discount


THETAS = {"1/k": 1 / np.arange(1, 9), "k^-0.5": np.arange(1, 9) ** -0.5,
          "0.7^(k-1)": 0.7 ** np.arange(8)}


@pytest.mark.parametrize("shape", sorted(THETAS))
def test_ndcg_converges_to_the_ratio_of_expected_dcg_to_expected_ideal_dcg(shape):
    theta = THETAS[shape]
    rng = np.random.default_rng(11)
    gamma, logger = _pbm_world(rng, 100, 6)
    score = gamma + rng.normal(0, 0.2, size=gamma.shape)  # a good, imperfect ranker
    dcg, ideal = _true_dcg(gamma, score, k=4)
    truth = dcg.sum() / ideal.sum()  # the same lists in every session
    assert abs(truth - np.mean(dcg / ideal)) > 1e-3  # not the mean per-list nDCG

    def estimate(n_sessions, **ids):
        log = _pbm_log(rng, gamma, logger, theta, n_sessions)
        y_score = np.broadcast_to(score, (n_sessions, *score.shape)).ravel()
        return evaluate(log["click"], y_score, position=log["position"],
                        list_id=log["list_id"], propensity=lambda k: theta[k - 1],
                        metrics="ndcg@4", **{name: log[name] for name in ids})["ndcg@4"]

    few = estimate(5, query_id=True, doc_id=True)
    many = estimate(300, query_id=True, doc_id=True)
    assert abs(many - truth) < 0.02
    assert abs(many - truth) < abs(few - truth) / 3
    # without doc_id each list orders its own clicks: the ideal DCG is
    # overstated (a max of noisy weights) and the value stays low
    assert truth - estimate(300) > 0.1


def test_ndcg_orders_rankers_as_ips_dcg_does_and_better_than_naive_click_ndcg():
    # Pairs of rankers mixing the true gamma (with noise) and the logger's
    # score; the truth: each ranker's mean nDCG@5 over queries, gains gamma.
    import warnings
    from itertools import combinations

    from skrank import ndcg_score

    rng = np.random.default_rng(1)
    counts = dict.fromkeys(["ndcg", "dcg", "naive", "per_list"], 0)
    n_pairs = 0
    for world in range(24):
        theta = list(THETAS.values())[world % 3]
        gamma, logger = _pbm_world(rng, 150, 8)
        n_sessions = int(rng.integers(1, 4))
        log = _pbm_log(rng, gamma, logger, theta, n_sessions)
        common = dict(position=log["position"], list_id=log["list_id"],
                      propensity=lambda k: theta[k - 1])
        truth, found = [], {name: [] for name in counts}
        for _ in range(6):
            imitation, noise = rng.uniform(0, 1), rng.uniform(0.05, 0.5)
            score = ((1 - imitation) * (gamma + rng.normal(0, noise, gamma.shape))
                     + imitation * logger)
            dcg, ideal = _true_dcg(gamma, score, k=5)
            truth.append(np.mean(dcg / ideal))
            y_score = np.broadcast_to(score, (n_sessions, *score.shape)).ravel()
            result = evaluate(log["click"], y_score, metrics=["ndcg@5", "dcg@5"],
                              **common)
            found["ndcg"].append(result["ndcg@5"])
            found["dcg"].append(result["dcg@5"])
            with warnings.catch_warnings():  # lists without a click are skipped
                warnings.simplefilter("ignore")
                found["naive"].append(ndcg_score(
                    log["click"], y_score, k=5, query_id=log["list_id"], gain="linear"))
            # the former definition: the mean over clicked lists of per-list
            # IPS DCG over the IPS DCG of the list's weights in ideal order
            per_list = evaluate(log["click"], y_score, metrics="dcg@5",
                                aggregate=None, **common)["dcg@5"].value
            weight = log["click"] / theta[log["position"] - 1]
            ideal = evaluate(log["click"], weight, metrics="dcg@5", aggregate=None,
                             **common)["dcg@5"].value
            with np.errstate(invalid="ignore"):
                found["per_list"].append(np.nanmean(per_list / ideal))
        for a, b in combinations(range(len(truth)), 2):
            n_pairs += 1
            sign = np.sign(truth[a] - truth[b])
            for name in counts:
                counts[name] += np.sign(found[name][a] - found[name][b]) == sign
    rates = {name: count / n_pairs for name, count in counts.items()}
    # the denominator does not depend on the ranker: the same choices as IPS DCG
    assert rates["ndcg"] == rates["dcg"]
    assert rates["ndcg"] > 0.75
    assert rates["ndcg"] > rates["naive"] + 0.15
    assert rates["ndcg"] > rates["per_list"] + 0.1


def test_ndcg_with_doc_id_by_hand():
    # one query, three lists of documents x (logged first) and y; x is
    # clicked in lists A and B, y in C; propensity 1, so weights = clicks.
    # The new ranker puts y first. L = 1/log2(3), the discount of rank 2.
    L = 1 / math.log2(3)
    click = [1, 0, 1, 0, 0, 1]
    score = [0, 1, 0, 1, 0, 1]
    common = dict(position=[1, 2, 1, 2, 1, 2], list_id=["A", "A", "B", "B", "C", "C"],
                  propensity=1.0, metrics="ndcg@2")
    dcg = L + L + 1  # A and B: x at rank 2; C: y at rank 1
    # without doc_id: each list's click first, ideal DCG 1 each
    assert evaluate(click, score, **common)["ndcg@2"] == pytest.approx(dcg / 3)
    # pooled means over A, B, C: x 2/3, y 1/3: x first everywhere, ideal
    # DCGs 1, 1, L. Left out: for A (and B), x and y both 1/2 over the two
    # others: a tie, the click at the mean of ranks 1 and 2, (1 + L) / 2;
    # for C, x 1 and y 0 over A and B: y second, L.
    ideal = [(1 + (1 + L) / 2) / 2, (1 + (1 + L) / 2) / 2, (L + L) / 2]
    got = evaluate(click, score, query_id=[7] * 6, doc_id=["x", "y"] * 3, **common)
    assert got["ndcg@2"] == pytest.approx(dcg / sum(ideal), rel=1e-12)


def test_doc_id_errors_name_doc_id():
    common = dict(position=[1, 2], list_id=[0, 0], propensity=1.0, metrics="ndcg@2")
    with pytest.raises(ValueError, match="`doc_id` repeats a document within a list"):
        evaluate([1, 0], [1, 0], doc_id=["x", "x"], **common)
    with pytest.raises(ValueError, match="`doc_id` contains missing values"):
        evaluate([1, 0], [1, 0], doc_id=["x", None], **common)


def test_the_inputs_are_left_as_they_were():
    # position and a per-row propensity are used without a copy: never written
    rng = np.random.default_rng(5)
    position = np.tile(np.arange(1, 6, dtype=np.int64), 20)
    propensity = 1.0 / position
    click = rng.integers(0, 2, 100)
    score = rng.normal(size=100)
    lists = np.repeat(np.arange(20), 5)
    arrays = (position, propensity, click, score, lists)
    before = [a.copy() for a in arrays]
    got = evaluate(click, score, position=position, list_id=lists, propensity=propensity,
                   metrics=["dcg@3", "ndcg@3", "precision@2", "arp"], clip=0.3)
    again = evaluate(click, score, position=position, list_id=lists,
                     propensity=lambda k: 1.0 / k,
                     metrics=["dcg@3", "ndcg@3", "precision@2", "arp"], clip=0.3)
    assert got == again
    for array, copy in zip(arrays, before):
        np.testing.assert_array_equal(array, copy)


@pytest.mark.parametrize("seed", range(4))
def test_precision_with_no_list_longer_than_k_is_the_definition(seed):
    # lists of 1..5 rows: k at or above the longest takes every row (the sum
    # of the weights), a smaller k cuts the longer lists (the masked sum)
    query, position, click, score = _small_log(seed)
    theta = np.array([1.0, 0.6, 0.45, 0.3, 0.2])
    for k in range(1, 8):
        name = f"precision@{k}"
        got = evaluate(click, score, position=position, list_id=query,
                       propensity=lambda p: theta[p - 1], metrics=name)[name]
        expected = _brute_force(list(click), list(score), list(position), list(query),
                                theta, "precision", k)
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_lists_without_click_are_counted_over_every_row(seed):
    # a click on a row the new ranker scores -inf (not retrieved) still
    # makes its list one with a click; counted against the rows themselves
    rng = np.random.default_rng(seed)
    n_lists = 12
    sizes = rng.integers(1, 5, n_lists)
    lists = np.repeat(rng.permutation(n_lists) * 3 + 1, sizes)
    position = np.concatenate([np.arange(1, s + 1) for s in sizes])
    click = (rng.random(lists.shape[0]) < 0.3).astype(int)
    score = rng.normal(size=lists.shape[0])
    if seed % 2:
        score[rng.random(lists.shape[0]) < 0.4] = -np.inf
    result = evaluate(click, score, position=position, list_id=lists, propensity=1.0,
                      metrics=["dcg@3", "arp"])
    with_click = {lst for lst, c in zip(lists.tolist(), click.tolist()) if c}
    assert result.n_lists == n_lists
    assert result.n_lists_without_click == n_lists - len(with_click)
    assert result.n_clicks == int(click.sum())


def test_a_list_whose_only_click_is_not_retrieved_has_a_click():
    result = evaluate([0, 1, 0, 0, 1, 0], [1.0, -np.inf, 0.5, 2.0, 1.0, 0.0],
                      position=[1, 2, 3, 1, 2, 1], list_id=[0, 0, 0, 1, 1, 2],
                      propensity=1.0, metrics="dcg@2")
    assert (result.n_lists, result.n_lists_without_click) == (3, 1)
    assert result["dcg@2"] == pytest.approx((0.0 + 1 / math.log2(3) + 0.0) / 3)


@pytest.mark.parametrize("propensity", [0.5, "callable", "array", "bias"])
def test_float_clicks_of_minus_zero_weigh_minus_zero(propensity):
    # a row's weight is click / theta: -0.0 for a click of -0.0, as IEEE
    # division gives it; a list of such rows sums to -0.0 (arp, precision)
    click = np.array([-0.0, 0.0, -0.0, 1.0, -0.0])
    position = np.array([1, 2, 1, 2, 1])
    forms = {"callable": lambda k: 1.0 / k, "array": 1.0 / position,
             "bias": PositionBias([1.0, 0.5])}
    result = evaluate(click, [1.0, 2.0, 3.0, 4.0, 5.0], position=position,
                      list_id=[0, 0, 1, 1, 2], propensity=forms.get(propensity, propensity),
                      metrics=["arp", "precision@1", "precision@2"], aggregate=None)
    theta = {"callable": 0.5, "array": 0.5, "bias": 0.5}.get(propensity, 0.5)
    for name in ("arp", "precision@1", "precision@2"):
        values = result[name].value
        # list 0: -0.0 and +0.0 (ranked second, first); list 2: -0.0 alone
        assert np.signbit(values[2]) and values[2] == 0.0, name
        assert not np.signbit(values[1]) and values[1] > 0, name
    assert result["arp"].value[1] == pytest.approx(1 / theta * 1)
    assert result.n_clicks == 1 and result.n_lists_without_click == 2


@pytest.mark.parametrize("popcount", ["numpy", "table"])
def test_bits_set_count_every_bit_with_or_without_numpys_popcount(popcount, monkeypatch):
    # the position check counts each list's bits with np.bitwise_count
    # (numpy 2) or a table of bytes (older numpy): both against bin()
    from skrank.clicks import _evaluate as click_evaluate_module

    if popcount == "table":
        monkeypatch.setattr(click_evaluate_module, "_bitwise_count", None)
    elif click_evaluate_module._bitwise_count is None:
        pytest.skip("numpy before 2.0 has no bitwise_count")
    rng = np.random.default_rng(0)
    masks = np.concatenate([
        rng.integers(0, 2**63, 200, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
        np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)])
    got = click_evaluate_module._bits_set(masks)
    assert [int(n) for n in got] == [bin(int(m)).count("1") for m in masks]
    with pytest.raises(ValueError, match="row 3 repeats row 1"):
        evaluate([0, 1, 0, 1], [1, 2, 3, 4], position=[64, 2, 1, 2], list_id=[5, 5, 6, 5],
                 propensity=1.0)
    assert evaluate([0, 1, 0, 1], [1, 2, 3, 4], position=[64, 2, 1, 63], list_id=[5, 5, 6, 5],
                    propensity=1.0).n_clicks == 2
