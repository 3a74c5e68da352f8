"""group_exposure and awrf_score: hand-worked values, tie orders, TREC Fair 2021's code."""

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from skrank.fairness import awrf_score, group_exposure

from . import trec_fair_reference
from .trec_fair_reference import random_rows, run_trec_fair

TARGET = {"a": 0.5, "b": 0.3, "c": 0.2}


def _attention_over_tie_orders(score, discount=lambda r: 1 / math.log2(max(r, 2))):
    """Each row's attention averaged over every order of the tied rows (one query)."""
    levels = sorted(set(score), reverse=True)
    blocks = [[i for i in range(len(score)) if score[i] == v] for v in levels]
    total = np.zeros(len(score))
    orders = list(itertools.product(*(itertools.permutations(b) for b in blocks)))
    for parts in orders:
        for rank, row in enumerate([r for part in parts for r in part], start=1):
            total[row] += discount(rank)
    return total / len(orders)


def test_worked_group_exposure():
    result = group_exposure([4, 3, 2, 1], ["a", "b", "a", "a"])
    assert result.groups == ["a", "b"]
    np.testing.assert_allclose(result.exposure, [[1 + 1 / math.log2(3) + 1 / 2, 1]])
    dcg = group_exposure([4, 3, 2, 1], ["a", "b", "a", "a"], discount="log2")
    np.testing.assert_allclose(
        dcg.exposure, [[1 + 1 / math.log2(4) + 1 / math.log2(5), 1 / math.log2(3)]])


def test_worked_awrf():
    # shares of a and b, against 1/2 each, by JS divergence with natural logs
    a = (1 + 1 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3) + 1 / 2)
    share, target = np.array([a, 1 - a]), np.array([0.5, 0.5])
    m = (share + target) / 2
    js = 0.5 * np.sum(share * np.log(share / m)) + 0.5 * np.sum(target * np.log(target / m))
    got = awrf_score([4, 3, 2, 1], ["a", "b", "a", "a"], target={"a": 1, "b": 1})
    assert got == pytest.approx(1 - js)
    assert awrf_score([2, 1], ["a", "b"], target={"a": 1, "b": 1}) == pytest.approx(1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ties_are_the_mean_attention_over_every_tie_order(seed):
    rng = np.random.default_rng(seed)
    query = np.repeat([5, 9], [7, 6])
    group = rng.choice(["a", "b", "c"], size=13)
    score = rng.integers(0, 3, size=13).astype(float)
    got = group_exposure(score, group, query_id=query)
    awrf = awrf_score(score, group, query_id=query, target=TARGET, aggregate=None)
    for i, q in enumerate([5, 9]):
        rows = query == q
        attention = _attention_over_tie_orders(list(score[rows]))
        expected = [attention[group[rows] == g].sum() for g in got.groups]
        np.testing.assert_allclose(got.exposure[i], expected, rtol=1e-12)
        # AWRF of the expected attention (scipy's JS distance, squared)
        target = [TARGET[g] for g in got.groups]
        js = jensenshannon(np.array(expected) / attention.sum(), target) ** 2
        assert awrf.value[i] == pytest.approx(1 - js, rel=1e-10)


# TREC Fair 2021 metrics.py (qrs_exposure; qr_awrf with target a .5, b .3, c .2),
# run by ``python -m tests.fairness.trec_fair_reference`` (pandas 3.0.1, scipy
# 1.17.1, Python 3.12); its discount is float32, hence the tolerance
RECORDED = {
    (0, 1): {
        "0": ([3.286883771419525, 0.6309297680854797, 0.38685283064842224], 0.9619751109653508),
        "1": ([0.0, 2.1309297680854797, 1.817529410123825], 0.783003187014738),
        "2": ([0.6309297680854797, 2.0, 0.9306765794754028], 0.9376985490776659),
        "3": ([1.0, 1.0, 0.6309297680854797], 0.9926373654208959)},
    (1, 3): {
        "0": ([2.164094309012095, 0.0, 1.3975120385487874], None),
        "1": ([1.4768921931584675, 0.6872021158536276, 1.3975120385487874], None),
        "2": ([1.5927165945370991, 2.2119497756163278, 0.5], None),
        "3": ([1.009339948495229, 1.2811147173245747, 2.347545047601064], None)},
}


def _compare(score, group, query, reference):
    got = group_exposure(score, group, query_id=query)
    assert got.groups == ["a", "b", "c"]
    for i, q in enumerate(got.query_id):
        exposure, awrf = reference[str(q)]
        if isinstance(reference[str(q)], dict):
            exposure, awrf = reference[str(q)]["exposure"], reference[str(q)]["awrf"]
        np.testing.assert_allclose(got.exposure[i], exposure, rtol=2e-7)
    first = score[:, 0] if score.ndim == 2 else score
    awrf = awrf_score(first, group, query_id=query, target=TARGET, aggregate=None)
    for i, q in enumerate(awrf.query_id):
        value = reference[str(q)]
        value = value["awrf"] if isinstance(value, dict) else value[1]
        if value is not None:
            assert awrf.value[i] == pytest.approx(value, abs=1e-6)


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_recorded_trec_fair_values(case):
    seed, n_samples = case
    score, group, query = random_rows(seed, n_samples=n_samples)
    _compare(score if n_samples > 1 else score[:, 0], group, query, RECORDED[case])


@pytest.mark.skipif(not trec_fair_reference.available(),
                    reason="TREC Fair 2021 metrics.py or its pandas/scipy environment "
                           "is missing (see tests/fairness/trec_fair_reference.py)")
@pytest.mark.parametrize("seed, n_samples", [(3, 1), (4, 2), (5, 5)])
def test_against_trec_fair_metrics(seed, n_samples):
    score, group, query = random_rows(seed, n_queries=6, n_samples=n_samples)
    reference = run_trec_fair(score, group, query, TARGET)
    _compare(score if n_samples > 1 else score[:, 0], group, query, reference)


# ---------------------------------------------------------- group labels --

def test_several_columns_are_intersectional_groups():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"sex": ["f", "m", "f", "f"], "age": [1, 1, 2, 2]})
    got = group_exposure([4, 3, 2, 1], frame)
    assert got.groups == [("f", 1), ("f", 2), ("m", 1)]
    np.testing.assert_allclose(got.exposure, [[1, 1 / math.log2(3) + 1 / 2, 1]])
    array = group_exposure([4, 3, 2, 1], np.array([["f", "1"], ["m", "1"],
                                                   ["f", "2"], ["f", "2"]]))
    np.testing.assert_allclose(array.exposure, got.exposure)
    single = group_exposure([4, 3, 2, 1], frame[["sex"]])
    assert single.groups == ["f", "m"]


def test_series_and_categorical_labels():
    pd = pytest.importorskip("pandas")
    labels = ["x", "y", "x"]
    plain = group_exposure([3, 2, 1], labels)
    for group in [pd.Series(labels), pd.Series(labels, dtype="category")]:
        got = group_exposure([3, 2, 1], group)
        assert got.groups == ["x", "y"]
        np.testing.assert_allclose(got.exposure, plain.exposure)


def test_per_query_target_frame_and_unseen_groups():
    pd = pytest.importorskip("pandas")
    score, group, query = [3, 2, 1, 2, 1], ["a", "b", "a", "a", "a"], [1, 1, 1, 2, 2]
    target = pd.DataFrame({"a": [1.0, 0.5], "b": [0.0, 0.5]}, index=[1, 2])
    got = awrf_score(score, group, query_id=query, target=target, aggregate=None)
    one = awrf_score([3, 2, 1], ["a", "b", "a"], target={"a": 1, "b": 0})
    two = awrf_score([2, 1], ["a", "a"], target={"a": 0.5, "b": 0.5})
    np.testing.assert_allclose(got.value, [one, two])
    # only group a is ranked; b holds half the target: JS of (1, 0) vs (.5, .5)
    assert two == pytest.approx(1 - jensenshannon([1, 0], [0.5, 0.5]) ** 2)


def test_not_retrieved_rows_get_no_attention():
    got = group_exposure([2, -np.inf, 1], ["a", "b", "a"])
    np.testing.assert_allclose(got.exposure, [[2, 0]])


# ------------------------------------------------------------ bad input --

@pytest.mark.parametrize("call, name", [
    (lambda: group_exposure([1, 2, 3], ["a", "b"]), "group"),
    (lambda: group_exposure([1, 2, 3], ["a", None, "b"]), "group"),
    (lambda: group_exposure([1, 2, 3], ["a", "b", "a"], discount="exp"), "discount"),
    (lambda: group_exposure([1, 2, 3], ["a", "b", "a"], query_id=[1, 1]), "query_id"),
    (lambda: awrf_score([1, 2], ["a", "b"], target=[0.5, 0.5]), "target"),
    (lambda: awrf_score([1, 2], ["a", "b"], target={"a": -1, "b": 1}), "target"),
    (lambda: awrf_score([1, 2], ["a", "b"], target={"a": 1}, ties="random"), "ties"),
    (lambda: awrf_score([1, np.nan], ["a", "b"], target={"a": 1}), "y_score"),
])
def test_bad_input_is_refused_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        call()


def test_target_frame_missing_a_query_is_refused():
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match="`target` has no row for query_id 2"):
        awrf_score([1, 2], ["a", "b"], query_id=[1, 2],
                   target=pd.DataFrame({"a": [1.0]}, index=[1]))
