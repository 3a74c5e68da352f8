"""bpref_score and rbp_score: RBP's residual by hand and by brute force over
tied orders, trec_eval (bpref) and ranx (RBP), properties and bad inputs.

Their hand-worked values (``EXAMPLES`` of "bpref" and "rbp" in
tests/_worked_examples.py) and the hypothesis comparisons of their values
with the brute-force reference run in test_reference.py, over every stem.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from skrank import bpref_score, evaluate, get_scorer, rbp_score

from .. import _toolbox_reference as ref
from .._needs import needs

# drawn scores may be only 0 and 1: the label-score warning is expected here
pytestmark = pytest.mark.filterwarnings("ignore:`y_score` holds only the values 0 and 1")

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# ------------------------------------------------------------ hand-made ----


def test_bpref_unjudged_rows_are_ignored_like_dropped_rows():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=60)
    score = rng.integers(0, 5, size=60).astype(float)
    query = rng.integers(0, 6, size=60)
    unjudged = rng.random(60) < 0.3
    y_noise = np.where(unjudged, rng.integers(0, 3, size=60), y)  # ignored
    kept = ~unjudged
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        masked = bpref_score(y_noise, score, query_id=query, unjudged=unjudged,
                             aggregate=None)
        dropped = bpref_score(y[kept], score[kept], query_id=query[kept],
                              aggregate=None)
    common = np.isin(masked.query_id, dropped.query_id)
    np.testing.assert_allclose(masked.value[common], dropped.value, equal_nan=True)


def test_rbp_residual_hand_example():
    # rank 2 unjudged, evaluated to depth 3 of 4 rows
    y = [1, 1, 0, 1]
    unjudged = [False, True, False, False]
    p = 0.5
    score, residual = rbp_score(y, [4, 3, 2, 1], p=p, k=3, unjudged=unjudged,
                                return_residual=True)
    assert score == pytest.approx((1 - p) * 1)
    assert residual == pytest.approx((1 - p) * p + p**3)
    # whole list: the tail past the 4 rows
    _, residual = rbp_score(y, [4, 3, 2, 1], p=p, return_residual=True)
    assert residual == pytest.approx(p**4)


def test_rbp_residual_bounds_the_complete_judgment():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, size=40)
    score = rng.random(40)
    unjudged = rng.random(40) < 0.4
    low, residual = rbp_score(y, score, unjudged=unjudged, k=10, return_residual=True,
                              no_relevant="zero")
    complete = rbp_score(np.where(unjudged, 1, y), score, k=10, no_relevant="zero")
    assert low <= complete <= low + residual + 1e-12


def test_rbp_residual_follows_the_skipped_queries():
    y = [1, 0, 0, 0]
    query = [1, 1, 2, 2]
    per_query = rbp_score(y, [2, 1, 2, 1], query_id=query, p=0.5, aggregate=None,
                          return_residual=True)
    value, residual = per_query
    assert np.isnan(value.value[1]) and np.isnan(residual.value[1])
    assert residual.value[0] == pytest.approx(0.25)
    zero = rbp_score(y, [2, 1, 2, 1], query_id=query, p=0.5, no_relevant="zero",
                     return_residual=True)
    assert zero == pytest.approx((0.5 / 2, 0.25))


# ---------------------------------------------------------- brute force ----


@st.composite
def incomplete_inputs(draw, max_rows=9):
    n = draw(st.integers(1, max_rows))
    y = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    score = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    query = draw(st.lists(st.sampled_from([3, 7, 11]), min_size=n, max_size=n))
    unjudged = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    weight = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
    return (np.array(y), np.array(score, dtype=float), np.array(query),
            np.array(unjudged), np.array(weight))


def _check(result, expected):
    np.testing.assert_array_equal(result.query_id, list(expected))
    np.testing.assert_allclose(result.value, list(expected.values()), rtol=1e-9,
                               atol=1e-12, equal_nan=True)


@SETTINGS
@given(incomplete_inputs(), st.sampled_from(["average", "input"]),
       st.sampled_from([None, 1, 3]), st.sampled_from([0.5, 0.8]),
       st.sampled_from(["binary", "linear"]))
def test_rbp_residual_matches_brute_force(data, ties, k, p, gain):
    # the value itself is checked with the other stems in test_reference.py
    y, score, query, unjudged, _ = data
    judged = (~unjudged).tolist()
    expected_residual = ref.expected_per_query(
        lambda order, **kw: ref.rbp_residual_of(order, **kw, p=p, k=k),
        score, query, ties, y=y.tolist(), judged=judged)
    value, residual = rbp_score(y, score, query_id=query, unjudged=unjudged, ties=ties,
                                k=k, p=p, gain=gain, aggregate=None,
                                return_residual=True)
    np.testing.assert_array_equal(value.query_id, residual.query_id)
    _check(residual, expected_residual)


def test_bpref_constant_scorer_gets_the_random_expectation():
    # 2 relevant, 2 non-relevant, all tied: average over the 4! orders
    y = [1, 1, 0, 0]
    expected = ref.expected_per_query(ref.bpref_of, [0] * 4, None, y=y,
                                      judged=[True] * 4)[0]
    assert bpref_score(y, [0, 0, 0, 0]) == pytest.approx(expected)
    # by hand: a relevant row has 0, 1 or 2 non-relevant rows above it with
    # probability 1/3 each, scoring 1, 1/2, 0
    assert expected == pytest.approx(0.5)


# ---------------------------------------------------------------- peers ----


def _peer_data(seed, *, graded):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, size=12)
    query = np.repeat(rng.choice(np.arange(100, 999), 12, replace=False), sizes)
    n = query.size
    y = rng.choice(3 if graded else 2, size=n)
    y[query == query[0]] = 0  # a query without relevant rows
    score = rng.normal(size=n)
    order = rng.permutation(n)
    return y[order], score[order], query[order]


@pytest.mark.peers
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("graded", [False, True])
def test_bpref_equals_trec_eval(seed, graded):
    pytrec_eval = needs("pytrec_eval")
    y, score, query = _peer_data(seed, graded=graded)
    unjudged = np.random.default_rng(seed + 10).random(y.size) < 0.3
    qrels, run = {}, {}
    for i, (rel, s, q) in enumerate(zip(y, score, query)):
        run.setdefault(str(q), {})[f"d{i}"] = float(s)
        if not unjudged[i]:  # unjudged rows are absent from the qrels
            qrels.setdefault(str(q), {})[f"d{i}"] = int(rel)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"})
    trec = evaluator.evaluate(run)
    got = bpref_score(y, score, query_id=query, unjudged=unjudged, no_relevant="zero",
                      aggregate=None)
    for qid, value in zip(got.query_id, got.value):
        if str(qid) in trec:
            assert value == pytest.approx(trec[str(qid)]["bpref"], rel=1e-9, abs=1e-12)
        else:  # every row of the query unjudged: trec_eval skips the query
            assert value == 0.0


@pytest.mark.peers
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("graded", [False, True])
def test_rbp_equals_ranx(seed, graded):
    ranx = needs("ranx")
    y, score, query = _peer_data(seed, graded=graded)
    queries = np.unique(query)
    qrels = {str(q): {} for q in queries}
    run = {str(q): {} for q in queries}
    for i, (rel, s, q) in enumerate(zip(y, score, query)):
        qrels[str(q)][f"d{i}"] = int(rel)
        run[str(q)][f"d{i}"] = float(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # two names: ranx's return_mean=False fails on a single one
        scores = ranx.evaluate(qrels, run, ["rbp.80", "rbp.5"], return_mean=False)
    expected = np.asarray(scores["rbp.80"])
    # ranx's rbp multiplies the grade itself (its docstring says 0/1): on
    # graded labels that is gain="linear"; on binary labels both agree
    got = rbp_score(y, score, query_id=query, gain="linear" if graded else "binary",
                    no_relevant="zero", aggregate=None)
    np.testing.assert_allclose(got.value, expected, rtol=1e-6)
    got = rbp_score(y, score, query_id=query, gain="linear" if graded else "binary",
                    p=0.5, no_relevant="zero", aggregate=None)
    np.testing.assert_allclose(got.value, scores["rbp.5"], rtol=1e-6)


# ------------------------------------------------------ names and inputs ----


def test_scorer_names_and_evaluate():
    y, score, query = _peer_data(3, graded=False)
    results = evaluate(y, score, query_id=query, metrics=["bpref", "rbp", "rbp@5"])
    assert results["bpref"] == pytest.approx(bpref_score(y, score, query_id=query))
    assert results["rbp"] == pytest.approx(rbp_score(y, score, query_id=query))
    assert results["rbp@5"] == pytest.approx(rbp_score(y, score, query_id=query, k=5))
    assert get_scorer("rbp@5").metric is rbp_score


@pytest.mark.parametrize(
    "func, kwargs, argument",
    [
        (bpref_score, {"unjudged": [True, False]}, "unjudged"),
        (bpref_score, {"unjudged": [2, 0, 0]}, "unjudged"),
        (bpref_score, {"unjudged": ["a", "b", "c"]}, "unjudged"),
        (rbp_score, {"unjudged": [[True, False, True]]}, "unjudged"),
        (rbp_score, {"p": 1.0}, "p"),
        (rbp_score, {"p": 0}, "p"),
        (rbp_score, {"p": "0.8"}, "p"),
        (rbp_score, {"gain": "exponential"}, "gain"),
        (rbp_score, {"return_residual": "yes"}, "return_residual"),
        (rbp_score, {"k": 0}, "k"),
        (bpref_score, {"no_relevant": "drop"}, "no_relevant"),
        (bpref_score, {"y_true": [1, -1, 0]}, "y_true"),
        (rbp_score, {"y_score": [1, np.nan, 0]}, "y_score"),
    ],
)
def test_bad_inputs_name_the_argument(func, kwargs, argument):
    args = {"y_true": [1, 0, 1], "y_score": [3, 2, 1]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=f"`{argument}`"):
        func(args.pop("y_true"), args.pop("y_score"), **args)


def test_two_dimensional_input_with_a_mask():
    y = np.array([[1, 0, 1], [0, 1, 0]])
    score = np.array([[3, 2, 1], [3, 2, 1]], dtype=float)
    unjudged = np.array([[False, True, False], [False, False, False]])
    got = bpref_score(y, score, unjudged=unjudged, aggregate=None)
    np.testing.assert_allclose(got.value, [1.0, 0.0])
