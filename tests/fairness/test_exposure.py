"""expected_exposure: hand-worked values, every tie order, and expeval's numbers."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.integrate import quad
from sklearn.exceptions import UndefinedMetricWarning

from skrank.fairness import expected_exposure
from skrank.fairness._exposure import _tie_integral

from . import expeval_reference
from .expeval_reference import random_rows, run_expeval


# ------------------------------------------------------------- reference --

def _exposure_of_order(order, y_true, *, user_model, patience, utility):
    """One deterministic ranking: exposure of each row (written as expeval's loop)."""
    exposure = np.zeros(len(y_true))
    relevant_above = 0
    for position, row in enumerate(order):
        exposure[row] = patience ** position
        if user_model == "gerr":
            exposure[row] *= (1 - utility) ** relevant_above
        relevant_above += y_true[row] > 0
    return exposure


def _orders(score):
    """Every order of the rows that ranks by descending score (ties permuted)."""
    levels = sorted(set(score), reverse=True)
    blocks = [[i for i in range(len(score)) if score[i] == v] for v in levels]
    for parts in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [row for part in parts for row in part]


def _brute_force_query(y_true, samples, *, user_model="gerr", patience=0.5,
                       utility=0.5, complete=False):
    """EE-L, EE-D, EE-R of one query: average over all tie orders of every column."""
    y_true = np.asarray(y_true)
    options = dict(user_model=user_model, patience=patience, utility=utility)
    run = np.zeros(len(y_true))
    for column in np.asarray(samples, dtype=float).reshape(len(y_true), -1).T:
        orders = list(_orders(list(column)))
        run += sum(_exposure_of_order(o, y_true, **options) for o in orders) / len(orders)
    run /= np.asarray(samples).reshape(len(y_true), -1).shape[1]
    judged = [i for i in range(len(y_true)) if complete or y_true[i] > 0]
    ideal = list(_orders([y_true[i] for i in judged]))
    target = np.zeros(len(y_true))
    for order in ideal:
        rows = [judged[i] for i in order]
        target += _exposure_of_order(rows, y_true, **options) / len(ideal)
    return {"ee_l": float(((run - target) ** 2).sum()), "ee_d": float(run @ run),
            "ee_r": float(run @ target)}


# ----------------------------------------------------------- worked values --

def test_worked_example_gerr():
    # positions get 1, 0.5 * 0.5, 0.5**2 * 0.5**2 (two relevant rows above);
    # the target gives each relevant row the mean of the first two, 0.625
    ee = expected_exposure([1, 1, 0], [3, 2, 1])
    run = np.array([1, 0.25, 0.0625])
    target = np.array([0.625, 0.625, 0])
    assert ee["ee_d"] == pytest.approx(1 + 0.25**2 + 0.0625**2)
    assert ee["ee_r"] == pytest.approx(0.625 * 1.25)
    assert ee["ee_l"] == pytest.approx(((run - target) ** 2).sum())


def test_worked_example_complete_and_rbp():
    # rbp, complete: the non-relevant row's target is position 2's 0.25;
    # the relevant rows swap places with ranking [2, 3, 1]: run = (0.5, 1, 0.25)
    ee = expected_exposure([1, 1, 0], [2, 3, 1], user_model="rbp", complete=True)
    run = np.array([0.5, 1, 0.25])
    target = np.array([0.75, 0.75, 0.25])
    assert ee["ee_l"] == pytest.approx(((run - target) ** 2).sum())
    assert ee["ee_r"] == pytest.approx(run @ target)


def test_perfect_deterministic_ranking_of_distinct_grades_has_zero_loss():
    ee = expected_exposure([3, 2, 1, 0], [4, 3, 2, 1], complete=True)
    assert ee["ee_l"] == pytest.approx(0, abs=1e-15)


def test_ties_as_grades_give_the_target_exactly():
    # scoring by the grades themselves is the ideal stochastic ranking
    y = np.array([2, 2, 1, 1, 1, 0, 0])
    ee = expected_exposure(y, y, complete=True)
    assert ee["ee_l"] == pytest.approx(0, abs=1e-15)


# ---------------------------------------------------------------- ties --

@pytest.mark.parametrize("user_model, patience, utility",
                         [("gerr", 0.5, 0.5), ("gerr", 0.8, 0.3), ("gerr", 0.6, 1.0),
                          ("gerr", 0.7, 0.0), ("rbp", 0.9, 0.5)])
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_ties_equal_the_average_over_every_tie_order(seed, complete, user_model,
                                                     patience, utility):
    rng = np.random.default_rng(seed)
    options = dict(user_model=user_model, patience=patience, utility=utility,
                   complete=complete)
    sizes = [7, 5, 6]
    query = np.repeat([10, 20, 30], sizes)
    y = rng.integers(0, 3, size=query.shape[0])
    y[:2] = 1  # every query has a relevant row in the first query
    y[7] = y[12] = 2
    score = rng.integers(0, 3, size=query.shape[0]).astype(float)
    got = expected_exposure(y, score, query_id=query, aggregate=None, **options)
    for i, q in enumerate([10, 20, 30]):
        rows = query == q
        expected = _brute_force_query(y[rows], score[rows], **options)
        for name in expected:
            assert got[name].value[i] == pytest.approx(expected[name], rel=1e-12)


def test_two_dimensional_scores_weigh_every_sampled_ranking_equally():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=6)
    y[0] = 1
    samples = rng.integers(0, 3, size=(6, 3)).astype(float)  # ties inside columns
    got = expected_exposure(y, samples)
    expected = _brute_force_query(y, samples)
    for name in expected:
        assert got[name] == pytest.approx(expected[name], rel=1e-12)


@pytest.mark.parametrize("n_relevant, n_other", [(0, 0), (3, 0), (0, 4), (5, 7),
                                                 (40, 300), (1000, 20)])
@pytest.mark.parametrize("patience, keep", [(0.5, 0.5), (0.95, 0.9), (0.3, 1.0),
                                            (0.7, 0.0)])
def test_tie_integral_is_the_integral(n_relevant, n_other, patience, keep):
    a, c = 1 - patience * keep, 1 - patience
    expected = quad(lambda t: (1 - a * t) ** n_relevant * (1 - c * t) ** n_other,
                    0, 1, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
    got = _tie_integral(np.array([n_relevant]), np.array([n_other]), patience, keep)
    assert got[0] == pytest.approx(expected, rel=1e-9)


def test_a_large_tie_block_matches_the_small_case_formula():
    # a constant scorer over B rows with RBP: every row gets the mean of p**i
    p, n = 0.9, 5000
    y = np.zeros(n)
    y[::7] = 1
    ee = expected_exposure(y, np.zeros(n), user_model="rbp", patience=p,
                           aggregate=None)
    mean = (1 - p**n) / (n * (1 - p))
    assert ee["ee_d"].value[0] == pytest.approx(n * mean**2, rel=1e-10)


# ------------------------------------------------------------- expeval --

# expeval -U, per query (qid -> ee_l, ee_d, ee_r): printed by
# ``python -m tests.fairness.expeval_reference`` with expeval from
# /work/shared/tools/expeval-src.tar.gz (github.com/diazf/expeval), Python 3.12
RECORDED = {
    (0, 1, 3, ()): {
        "0": (1.410904, 1.270767, 0.32251), "1": (1.909462, 1.066667, 0.089692),
        "2": (1.381805, 1.066666, 0.234589), "3": (1.128906, 1.066406, 0.5),
        "4": (1.128906, 1.066406, 0.5)},
    (1, 3, 1, ("-C",)): {
        "0": (0.934516, 0.888129, 0.369629), "1": (0.797662, 0.691786, 0.339681),
        "2": (0.351986, 0.587652, 0.40505), "3": (0.401124, 0.722015, 0.337876),
        "4": (0.0, 1.0, 1.0)},
    (2, 1, 2, ("-u", "rbp", "-p", "0.8")): {
        "0": (0.96098, 2.65561, 2.099698), "1": (0.7176, 2.0496, 1.476),
        "3": (1.4496, 2.0496, 0.8), "4": (0.691744, 2.311744, 1.62)},
}
OPTIONS = {(): {}, ("-C",): {"complete": True},
           ("-u", "rbp", "-p", "0.8"): {"user_model": "rbp", "patience": 0.8},
           ("-C", "-p", "0.3", "-r", "0.9"): {"complete": True, "patience": 0.3,
                                                "utility": 0.9}}


def _compare(got, reference):
    for name_index, name in enumerate(["ee_l", "ee_d", "ee_r"]):
        mine = {str(q): v for q, v in zip(got[name].query_id, got[name].value)
                if not np.isnan(v)}
        assert sorted(mine) == sorted(reference)  # the same queries evaluated
        for qid, values in reference.items():
            expected = values[name_index] if isinstance(values, tuple) else values[name]
            assert mine[qid] == pytest.approx(expected, abs=1.5e-6)  # printed %f


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_recorded_expeval_values(case):
    seed, n_samples, max_grade, options = case
    y, samples, query = random_rows(seed, n_samples=n_samples, max_grade=max_grade)
    score = samples if n_samples > 1 else samples[:, 0]
    got = expected_exposure(y, score, query_id=query, aggregate=None, **OPTIONS[options])
    _compare(got, RECORDED[case])


@pytest.mark.skipif(not expeval_reference.available(),
                    reason="expeval's source is not available (set SKRANK_EXPEVAL)")
@pytest.mark.parametrize("seed, n_samples, max_grade, options", [
    (4, 1, 3, ()), (5, 2, 2, ("-C",)), (6, 4, 3, ("-C", "-p", "0.3", "-r", "0.9")),
    (7, 1, 1, ("-u", "rbp", "-p", "0.8")),
])
def test_against_expeval(seed, n_samples, max_grade, options):
    y, samples, query = random_rows(seed, n_queries=8, n_samples=n_samples,
                                    max_grade=max_grade)
    score = samples if n_samples > 1 else samples[:, 0]
    got = expected_exposure(y, score, query_id=query, aggregate=None, **OPTIONS[options])
    _compare(got, run_expeval(y, samples, query, options=options))


# ------------------------------------------------------ queries, weights --

def test_query_without_relevant_row_is_left_out_unless_complete():
    y = [1, 0, 0, 0]
    score = [2, 1, 2, 1]
    query = ["a", "a", "b", "b"]
    per_query = expected_exposure(y, score, query_id=query, aggregate=None)
    assert np.isnan(per_query["ee_l"].value[1])
    assert expected_exposure(y, score, query_id=query)["ee_l"] == pytest.approx(
        per_query["ee_l"].value[0])
    complete = expected_exposure(y, score, query_id=query, complete=True,
                                 aggregate=None)
    assert not np.isnan(complete["ee_l"].value).any()
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(expected_exposure([0, 0], [1, 2])["ee_l"])


def test_sample_weight_weighs_queries_by_their_mean_row_weight():
    y, samples, query = random_rows(0)
    score = samples[:, 0]
    weight = np.where(query == 1, 3.0, 1.0)
    per_query = expected_exposure(y, score, query_id=query, aggregate=None)
    weighted = expected_exposure(y, score, query_id=query, sample_weight=weight)
    w = np.where(per_query["ee_l"].query_id == 1, 3.0, 1.0)
    assert weighted["ee_l"] == pytest.approx(
        np.sum(w * per_query["ee_l"].value) / w.sum())


def test_not_retrieved_rows_get_no_exposure_but_keep_their_target():
    # -inf: judged, not retrieved (expeval: a relevant document not in the run)
    ee = expected_exposure([1, 1, 0], [2, -np.inf, 1])
    run = np.array([1, 0, 0.25])
    target = np.array([0.625, 0.625, 0])
    assert ee["ee_l"] == pytest.approx(((run - target) ** 2).sum())


def test_row_order_and_id_relabelling_do_not_matter():
    y, samples, query = random_rows(5, n_samples=2)
    base = expected_exposure(y, samples, query_id=query)
    perm = np.random.default_rng(0).permutation(len(y))
    moved = expected_exposure(y[perm], samples[perm], query_id=(query * 7 + 3)[perm])
    for name in base:
        assert moved[name] == pytest.approx(base[name], rel=1e-12)


# ------------------------------------------------------------ bad input --

@pytest.mark.parametrize("kwargs, name", [
    ({"patience": 0}, "patience"), ({"patience": 1}, "patience"),
    ({"patience": 1.5}, "patience"), ({"patience": -0.2}, "patience"),
    ({"utility": 1.5}, "utility"), ({"utility": -0.1}, "utility"),
    ({"user_model": "ndcg"}, "user_model"), ({"complete": "yes"}, "complete"),
    ({"query_id": [1, 1]}, "query_id"), ({"aggregate": "sum"}, "aggregate"),
])
def test_bad_options_are_refused_naming_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        expected_exposure([1, 0, 1], [3, 2, 1], **kwargs)


@pytest.mark.parametrize("y_true, y_score, name", [
    ([[1, 0], [0, 1]], [[1, 2], [2, 1]], "y_true"),
    ([1, -1, 0], [1, 2, 3], "y_true"),
    ([1, 0, 1], [1, 2], "y_score"),
    ([1, 0, 1], [1, np.nan, 2], "y_score"),
])
def test_bad_arrays_are_refused_naming_the_argument(y_true, y_score, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=f"`{name}`"):
            expected_exposure(y_true, y_score)


# ---------------------------------------------------------- properties --

from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(
    grades=st.lists(st.integers(0, 3), min_size=1, max_size=7),
    data=st.data(),
    user_model=st.sampled_from(["gerr", "rbp"]),
    patience=st.sampled_from([0.2, 0.5, 0.9]),
    utility=st.sampled_from([0.0, 0.4, 1.0]),
    complete=st.booleans(),
)
def test_any_small_query_equals_every_tie_order(grades, data, user_model, patience,
                                                utility, complete):
    scores = data.draw(st.lists(st.sampled_from([0.5, 1.5, 3.0]), min_size=len(grades),
                                max_size=len(grades)))
    options = dict(user_model=user_model, patience=patience, utility=utility,
                   complete=complete)
    if not complete and not any(grades):
        return  # no target: left out (tested above)
    got = expected_exposure(grades, scores, **options)
    expected = _brute_force_query(grades, scores, **options)
    for name in expected:
        assert got[name] == pytest.approx(expected[name], rel=1e-11, abs=1e-14)
    # bounds: EE-L >= 0; EE-D, EE-R >= 0; the identity EE-L = EE-D - 2 EE-R + |target|^2
    assert got["ee_l"] >= -1e-12 and got["ee_d"] > 0 and got["ee_r"] >= 0


def test_many_distinct_grades_sort_instead_of_counting_and_agree():
    # 600 queries of 3 rows with distinct real grades: more (query, grade)
    # cells than ideal_exposure counts, so the ideal ranking is sorted
    rng = np.random.default_rng(4)
    query = np.repeat(np.arange(600), 3)
    y = np.round(rng.uniform(0, 3, size=query.shape[0]), 6)
    y[::4] = 0.0
    score = rng.integers(0, 2, size=query.shape[0]) + 0.5
    for complete in [False, True]:
        got = expected_exposure(y, score, query_id=query, complete=complete,
                                aggregate=None)
        for q in range(5):
            rows = query == q
            expected = _brute_force_query(y[rows], score[rows], complete=complete)
            for name in expected:
                assert got[name].value[q] == pytest.approx(expected[name], rel=1e-12)
