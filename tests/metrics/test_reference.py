"""Every public metric against the brute-force reference in ``_reference.py``.

Three layers:

1. Hand-worked examples (SPEC section 2, plus small tie cases), each expected
   value written as its arithmetic, checked against both the reference (to
   validate the reference itself) and skrank.
2. The reference cross-checked with scikit-learn where it defines the same
   number (2-D ``ndcg_score``/``dcg_score`` with linear gain, ``roc_auc_score``).
3. Hypothesis: small random inputs (ties frequent, empty and single-row
   queries, shuffled non-contiguous int and str ids, 2-D input, weights),
   skrank's mean and per-query output against the reference.
"""

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import dcg_score as sk_dcg_score
from sklearn.metrics import ndcg_score as sk_ndcg_score
from sklearn.metrics import roc_auc_score

import skrank

from .. import _reference as ref

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def assert_close(actual, expected):
    """pytest.approx with nan == nan."""
    actual = float(actual)
    if math.isnan(expected):
        assert math.isnan(actual), f"expected nan, got {actual!r}"
    else:
        assert actual == pytest.approx(expected, rel=1e-9, abs=1e-12)


def assert_all_close(actual, expected):
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, (actual, expected)
    for a, e in zip(actual.tolist(), expected.tolist()):
        assert_close(a, e)


# --------------------------------------------------------------------------
# 1. Hand-worked examples
# --------------------------------------------------------------------------

# (reference function, skrank function name)
METRICS = {
    "dcg": (ref.ref_dcg, "dcg_score"),
    "ndcg": (ref.ref_ndcg, "ndcg_score"),
    "ap": (ref.ref_average_precision, "average_precision_score"),
    "rr": (ref.ref_reciprocal_rank, "reciprocal_rank_score"),
    "precision": (ref.ref_precision_at_k, "precision_at_k_score"),
    "recall": (ref.ref_recall_at_k, "recall_at_k_score"),
    "fbeta": (ref.ref_fbeta_at_k, "fbeta_at_k_score"),
    "r_precision": (ref.ref_r_precision, "r_precision_score"),
    "hit_rate": (ref.ref_hit_rate, "hit_rate_score"),
    "fap": (ref.ref_fap, "fap_score"),
    "gauc": (ref.ref_gauc, "gauc_score"),
}


def implementation(which, metric):
    ref_func, name = METRICS[metric]
    return ref_func if which == "reference" else getattr(skrank, name)


# SPEC section 2: one query, relevance in score order 1,0,1,1,0,1,0,0 (R = 4).
SPEC_REL = [1, 0, 1, 1, 0, 1, 0, 0]
SPEC_SCORE = [8, 7, 6, 5, 4, 3, 2, 1]
LOG2 = math.log2

WORKED_EXAMPLES = [
    # id, metric, y_true, y_score, kwargs, expected
    ("P@1", "precision", SPEC_REL, SPEC_SCORE, {"k": 1}, 1 / 1),
    ("P@4", "precision", SPEC_REL, SPEC_SCORE, {"k": 4}, 3 / 4),
    ("P@8", "precision", SPEC_REL, SPEC_SCORE, {"k": 8}, 4 / 8),
    ("P@None", "precision", SPEC_REL, SPEC_SCORE, {}, 4 / 8),
    ("P@10 divides by k", "precision", SPEC_REL, SPEC_SCORE, {"k": 10}, 4 / 10),
    ("R@4", "recall", SPEC_REL, SPEC_SCORE, {"k": 4}, 3 / 4),
    # F1 = 2PR / (P + R)
    ("F1@1", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 1},
     2 * (1 / 1) * (1 / 4) / (1 / 1 + 1 / 4)),
    ("F1@3", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 3},
     2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4)),  # = 4/7, not 0.62
    ("F1@4", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 4},
     2 * (3 / 4) * (3 / 4) / (3 / 4 + 3 / 4)),
    ("F1@8", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 8},
     2 * (4 / 8) * (4 / 4) / (4 / 8 + 4 / 4)),  # = 2/3
    ("F2@4", "fbeta", SPEC_REL, SPEC_SCORE, {"k": 4, "beta": 2.0},
     5 * (3 / 4) * (3 / 4) / (4 * 3 / 4 + 3 / 4)),
    ("AP", "ap", SPEC_REL, SPEC_SCORE, {}, (1 / 1 + 2 / 3 + 3 / 4 + 4 / 6) / 4),
    ("AP@3 relevant", "ap", SPEC_REL, SPEC_SCORE, {"k": 3}, (1 / 1 + 2 / 3) / 4),
    ("AP@3 min", "ap", SPEC_REL, SPEC_SCORE, {"k": 3, "normalize": "min"},
     (1 / 1 + 2 / 3) / 3),
    ("AP@3 retrieved", "ap", SPEC_REL, SPEC_SCORE,
     {"k": 3, "normalize": "retrieved"}, (1 / 1 + 2 / 3) / 2),
    ("RR", "rr", [0, 0, 1, 1], [4, 3, 2, 1], {}, 1 / 3),
    ("RR@2 misses", "rr", [0, 0, 1, 1], [4, 3, 2, 1], {"k": 2}, 0.0),
    ("R-precision", "r_precision", SPEC_REL, SPEC_SCORE, {}, 3 / 4),
    ("hit@1", "hit_rate", [0, 1], [2, 1], {"k": 1}, 0.0),
    ("hit@2", "hit_rate", [0, 1], [2, 1], {"k": 2}, 1.0),
    # Binary labels: exponential gain 2^1 - 1 = 1 = linear gain.
    ("DCG@3", "dcg", SPEC_REL, SPEC_SCORE, {"k": 3},
     1 / LOG2(2) + 0 / LOG2(3) + 1 / LOG2(4)),  # = 1.5
    ("DCG@6", "dcg", SPEC_REL, SPEC_SCORE, {"k": 6},
     1 / LOG2(2) + 1 / LOG2(4) + 1 / LOG2(5) + 1 / LOG2(7)),  # ~ 2.2869
    ("nDCG@2", "ndcg", SPEC_REL, SPEC_SCORE, {"k": 2},
     (1 / LOG2(2)) / (1 / LOG2(2) + 1 / LOG2(3))),  # ~ 0.6131
    ("nDCG@6", "ndcg", SPEC_REL, SPEC_SCORE, {"k": 6},
     (1 / LOG2(2) + 1 / LOG2(4) + 1 / LOG2(5) + 1 / LOG2(7))
     / (1 / LOG2(2) + 1 / LOG2(3) + 1 / LOG2(4) + 1 / LOG2(5))),  # ~ 0.8928
    ("graded DCG exponential", "dcg", [3, 0, 2], [3, 2, 1], {},
     (2**3 - 1) / LOG2(2) + (2**2 - 1) / LOG2(4)),
    ("graded DCG linear", "dcg", [3, 0, 2], [3, 2, 1], {"gain": "linear"},
     3 / LOG2(2) + 2 / LOG2(4)),
    ("graded nDCG linear", "ndcg", [3, 0, 2], [3, 2, 1], {"gain": "linear"},
     (3 / LOG2(2) + 2 / LOG2(4)) / (3 / LOG2(2) + 2 / LOG2(3))),
    # AUC: positives 0.35 and 0.8 against negatives 0.1 and 0.4: 3 of 4 pairs won.
    ("AUC", "gauc", [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8],
     {"query_id": [7, 7, 7, 7]}, 3 / 4),
    # ... and a tie 0.4 vs 0.4 counts 1/2.
    ("AUC tie", "gauc", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8],
     {"query_id": [7, 7, 7, 7]}, (1 + 1 / 2 + 1 + 1) / 4),
    ("AUC tie 2-D", "gauc", [[0, 0, 1, 1]], [[0.1, 0.4, 0.4, 0.8]], {},
     (1 + 1 / 2 + 1 + 1) / 4),
    # Tie in input order: the positive (row 2) follows the negative (row 1).
    ("AUC tie input", "gauc", [0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8],
     {"query_id": [7, 7, 7, 7], "ties": "input"}, (1 + 0 + 1 + 1) / 4),
    # GAUC: user a AUC 1 (2 rows), user b AUC 1/2 (3 rows), user c one class.
    ("GAUC samples", "gauc", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
     {"query_id": ["a", "a", "b", "b", "b", "c"]}, (2 * 1 + 3 * (1 / 2)) / (2 + 3)),
    ("GAUC uniform", "gauc", [1, 0, 1, 0, 0, 1], [0.9, 0.1, 0.2, 0.5, 0.1, 0.3],
     {"query_id": ["a", "a", "b", "b", "b", "c"], "weighting": "uniform"},
     (1 + 1 / 2) / 2),
    # FAP (SPEC section 3): F1 = 2*3/(3+3) = 1, AP = 1.
    ("FAP 1,1,1", "fap", [1, 1, 1], [3, 2, 1], {}, 1.0),
    # F1@5 = 2 * (3/5) * 1 / (3/5 + 1) = 0.75, AP = 1.
    ("FAP 1,1,1,0,0", "fap", [1, 1, 1, 0, 0], [5, 4, 3, 2, 1], {},
     2 * 0.75 * 1 / (0.75 + 1)),
    ("FAP beta=2", "fap", [1, 1, 1, 0, 0], [5, 4, 3, 2, 1], {"beta": 2.0},
     (1 + 4) * (5 * (3 / 5) * 1 / (4 * (3 / 5) + 1)) * 1
     / (4 * (5 * (3 / 5) * 1 / (4 * (3 / 5) + 1)) + 1)),
    # ---- ties, expected value over the orders of the tied rows ----
    # [1, 0] tied: orders 10 and 01.
    ("tied RR", "rr", [1, 0], [0.5, 0.5], {}, (1 / 1 + 1 / 2) / 2),
    ("tied P@1", "precision", [1, 0, 0], [1, 1, 1], {"k": 1}, 1 / 3),
    ("tied DCG@1 linear", "dcg", [1, 0], [0, 0], {"k": 1, "gain": "linear"},
     (1 + 0) / 2),
    # [1, 1, 0] all tied: 110 (AP 1), 101 (AP (1 + 2/3)/2), 011 (AP (1/2 + 2/3)/2),
    # each relevance sequence from 2 of the 6 permutations.
    ("tied AP", "ap", [1, 1, 0], [2, 2, 2], {},
     (1 + (1 + 2 / 3) / 2 + (1 / 2 + 2 / 3) / 2) / 3),
    ("tied AP input", "ap", [0, 1, 1], [2, 2, 2], {"ties": "input"},
     (1 / 2 + 2 / 3) / 2),
    # FAP combines the expectations: E[F1@2] = 2*1/(1+2) = 2/3 in both orders,
    # E[AP] = (1 + 1/2)/2 = 3/4; harmonic 2 * (2/3) * (3/4) / (2/3 + 3/4).
    ("tied FAP", "fap", [1, 0], [0, 0], {},
     2 * (2 / 3) * (3 / 4) / (2 / 3 + 3 / 4)),
    # k=1: E[F1@1] = (1 + 0)/2, E[AP@1] = (1 + 0)/2, harmonic of 1/2 and 1/2.
    ("tied FAP@1", "fap", [1, 0], [0, 0], {"k": 1}, 1 / 2),
    # Two queries, query weight = mean of row weights: q1 weight (1+3)/2 = 2,
    # AP 1; q2 weight 1, AP (1/2) / 1.
    ("weighted MAP", "ap", [1, 0, 0, 1], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "sample_weight": [1, 3, 1, 1]},
     (2 * 1 + 1 * (1 / 2)) / (2 + 1)),
    # no_relevant: query 2 has no relevant row.
    ("skip", "precision", [1, 0, 0, 0], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "k": 1}, 1.0),
    ("zero", "precision", [1, 0, 0, 0], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "k": 1, "no_relevant": "zero"}, (1 + 0) / 2),
    ("one", "precision", [1, 0, 0, 0], [2, 1, 2, 1],
     {"query_id": [1, 1, 2, 2], "k": 2, "no_relevant": "one"}, (1 / 2 + 1) / 2),
]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize(
    "metric, y_true, y_score, kwargs, expected",
    [case[1:] for case in WORKED_EXAMPLES],
    ids=[case[0] for case in WORKED_EXAMPLES],
)
def test_worked_example(which, metric, y_true, y_score, kwargs, expected):
    func = implementation(which, metric)
    assert_close(func(y_true, y_score, **kwargs), expected)


def test_worked_example_spec_fap_curve():
    # 1,1,1,0,0 in score order: F1@k = 2*hits/(3 + k), AP@k = hits/3 (all hits
    # on top), FAP@k the harmonic of the two.
    y_true, y_score = [1, 1, 1, 0, 0], [5, 4, 3, 2, 1]
    f = [2 * min(k, 3) / (3 + k) for k in range(1, 6)]
    ap = [min(k, 3) / 3 for k in range(1, 6)]
    fap = [2 * fk * apk / (fk + apk) for fk, apk in zip(f, ap)]
    for func in (ref.ref_fap_curve, skrank.fap_curve):
        kwargs = {"return_parts": True} if func is skrank.fap_curve else {}
        k_out, fap_out, f_out, ap_out = func(y_true, y_score, **kwargs)
        assert list(np.asarray(k_out)) == [1, 2, 3, 4, 5]
        assert_all_close(fap_out, fap)
        assert_all_close(f_out, f)
        assert_all_close(ap_out, ap)
    assert int(np.argmax(fap)) + 1 == 3  # FAP@k peaks at the right cutoff


def test_reference_orderings_enumerates_tie_blocks():
    # Blocks {0, 2} (score 2) and {1, 3} (score 1): 2! * 2! orderings.
    orders = list(ref.orderings([2, 1, 2, 1]))
    assert sorted(orders) == [[0, 2, 1, 3], [0, 2, 3, 1], [2, 0, 1, 3], [2, 0, 3, 1]]
    assert list(ref.orderings([2, 1, 2, 1], ties="input")) == [[0, 2, 1, 3]]


def test_reference_guards_permutation_count():
    with pytest.raises(ValueError, match="orderings"):
        ref.ref_ndcg([1] * 9, [0] * 9)  # 9! = 362880 orderings


def test_reference_no_relevant_error_and_nan():
    with pytest.raises(ValueError):
        ref.ref_precision_at_k([0, 1], [1, 2], query_id=[1, 2], no_relevant="error")
    assert math.isnan(ref.ref_precision_at_k([0, 0], [1, 2]))
    assert math.isnan(ref.ref_gauc([1, 1], [1, 2], query_id=[1, 1]))


# --------------------------------------------------------------------------
# 2. The reference against scikit-learn
# --------------------------------------------------------------------------


@st.composite
def dense_graded(draw, min_items=2):
    n_queries = draw(st.integers(1, 4))
    n_items = draw(st.integers(min_items, 6))
    cell = st.integers(0, 3)
    score = st.sampled_from([0.0, 0.5, 1.0, 2.0])
    y_true = np.array([[draw(cell) for _ in range(n_items)] for _ in range(n_queries)])
    y_score = np.array(
        [[draw(score) for _ in range(n_items)] for _ in range(n_queries)])
    sample_weight = draw(st.none() | st.lists(
        st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=n_queries, max_size=n_queries))
    return y_true, y_score, sample_weight


@pytest.mark.peers
@SETTINGS
@given(data=dense_graded(), k=st.none() | st.integers(1, 8))
def test_reference_matches_sklearn_ndcg_and_dcg(data, k):
    # sklearn scores an all-irrelevant row 0 (DCG and nDCG): no_relevant="zero".
    y_true, y_score, sample_weight = data
    kwargs = dict(k=k, sample_weight=sample_weight)
    ours = dict(gain="linear", no_relevant="zero", **kwargs)
    assert_close(ref.ref_ndcg(y_true, y_score, **ours),
                 sk_ndcg_score(y_true, y_score, **kwargs))
    assert_close(ref.ref_dcg(y_true, y_score, **ours),
                 sk_dcg_score(y_true, y_score, **kwargs))


@pytest.mark.peers
@SETTINGS
@given(data=dense_graded())
def test_skrank_matches_sklearn_ndcg_and_dcg(data):
    # SPEC section 1: with gain="linear" skrank's ndcg/dcg equal sklearn's on
    # 2-D input, ties included.
    y_true, y_score, sample_weight = data
    kwargs = dict(sample_weight=sample_weight)
    ours = dict(gain="linear", no_relevant="zero", **kwargs)
    assert_close(skrank.ndcg_score(y_true, y_score, **ours),
                 sk_ndcg_score(y_true, y_score, **kwargs))
    assert_close(skrank.dcg_score(y_true, y_score, **ours),
                 sk_dcg_score(y_true, y_score, **kwargs))


@pytest.mark.peers
@SETTINGS
@given(
    labels=st.lists(st.integers(0, 1), min_size=2, max_size=8),
    data=st.data(),
)
def test_reference_auc_matches_sklearn(labels, data):
    n = len(labels)
    y_score = data.draw(
        st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=n, max_size=n))
    weight = data.draw(st.none() | st.lists(
        st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
    got = ref.ref_gauc(labels, y_score, query_id=[0] * n, sample_weight=weight)
    if len(set(labels)) < 2:
        assert math.isnan(got)
    else:
        assert_close(got, roc_auc_score(labels, y_score, sample_weight=weight))


# --------------------------------------------------------------------------
# 3. Hypothesis: skrank against the reference
# --------------------------------------------------------------------------

SCORE_VALUES = [0.0, 0.5, 1.0, 2.0]  # a tiny set, so ties are frequent
WEIGHT_VALUES = [0.25, 0.5, 1.0, 2.0, 3.0]


@dataclass
class Data:
    y_true: object
    y_score: object
    query_id: object = None
    sample_weight: object = None
    layout: str = "ids"  # "ids", "single" (1-D, query_id=None) or "2d"
    kwargs: dict = field(default_factory=dict)

    def inputs(self):
        kwargs = {"query_id": self.query_id, "sample_weight": self.sample_weight}
        return (self.y_true, self.y_score), kwargs


@st.composite
def rankings(draw, binary=None, layouts=("ids", "single", "2d")):
    """Small ranking inputs: 1-4 queries of 1-6 rows, frequent ties."""
    graded = (not binary) if binary is not None else draw(st.booleans())
    label = st.integers(0, 3 if graded else 1)
    score = st.sampled_from(SCORE_VALUES)
    weight = st.sampled_from(WEIGHT_VALUES)
    layout = draw(st.sampled_from(layouts))
    with_weights = draw(st.booleans())

    if layout == "2d":
        n_queries = draw(st.integers(1, 4))
        n_items = draw(st.integers(1, 6))
        y_true = [[draw(label) for _ in range(n_items)] for _ in range(n_queries)]
        for row in y_true:  # some rows with no relevant item
            if draw(st.integers(0, 4)) == 0:
                row[:] = [0] * n_items
        y_score = [[draw(score) for _ in range(n_items)] for _ in range(n_queries)]
        sample_weight = (
            [draw(weight) for _ in range(n_queries)] if with_weights else None)
        as_array = draw(st.booleans())
        if as_array:
            y_true, y_score = np.array(y_true), np.array(y_score)
        return Data(y_true, y_score, None, sample_weight, layout)

    n_queries = 1 if layout == "single" else draw(st.integers(1, 4))
    sizes = [draw(st.integers(1, 6)) for _ in range(n_queries)]
    if layout == "ids":
        if draw(st.booleans()):
            ids = draw(st.lists(st.integers(-1000, 1000), min_size=n_queries,
                                max_size=n_queries, unique=True))
        else:
            ids = draw(st.lists(st.text(alphabet="abqz", min_size=1, max_size=3),
                                min_size=n_queries, max_size=n_queries, unique=True))
    else:
        ids = [None]
    rows = []
    for qid, size in zip(ids, sizes):
        labels = [draw(label) for _ in range(size)]
        if draw(st.integers(0, 4)) == 0:  # a query with no relevant row
            labels = [0] * size
        for lab in labels:
            rows.append((qid, lab, draw(score), draw(weight)))
    rows = draw(st.permutations(rows))  # shuffled, non-contiguous queries
    y_true = [r[1] for r in rows]
    y_score = [r[2] for r in rows]
    sample_weight = [r[3] for r in rows] if with_weights else None
    query_id = None
    if layout == "ids":
        query_id = [r[0] for r in rows]
        if draw(st.booleans()):
            query_id = np.array(query_id)
    if draw(st.booleans()):
        y_true, y_score = np.array(y_true), np.array(y_score)
    return Data(y_true, y_score, query_id, sample_weight, layout)


def expected_query_ids(data):
    if data.layout == "2d":
        return list(range(len(data.y_true)))
    if data.layout == "ids":
        return sorted(set(np.asarray(data.query_id).tolist()))
    return None  # one query, id not part of the contract


def call_mean(func, args, kwargs):
    """Call a metric, return (value, whether UndefinedMetricWarning was emitted)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = func(*args, **kwargs)
    warned = any(issubclass(w.category, UndefinedMetricWarning) for w in caught)
    return value, warned


def call_quietly(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return func(*args, **kwargs)


def check_per_query(data, result, ref_values, ref_weights):
    assert tuple(result._fields) == ("query_id", "value", "weight")
    ids = expected_query_ids(data)
    got_ids = np.asarray(result.query_id).tolist()
    if ids is not None:
        assert got_ids == ids
    else:
        assert len(got_ids) == 1
    order = ids if ids is not None else list(ref_values)
    assert_all_close(result.value, [ref_values[q] for q in order])
    assert_all_close(result.weight, [ref_weights[q] for q in order])


@dataclass(frozen=True)
class Case:
    name: str
    metric: str
    kwargs: tuple = ()
    takes_k: bool = True


CASES = [
    Case("dcg_exponential", "dcg", (("gain", "exponential"),)),
    Case("dcg_linear", "dcg", (("gain", "linear"),)),
    Case("ndcg_exponential", "ndcg", (("gain", "exponential"),)),
    Case("ndcg_linear", "ndcg", (("gain", "linear"),)),
    Case("ap_relevant", "ap", (("normalize", "relevant"),)),
    Case("ap_min", "ap", (("normalize", "min"),)),
    Case("ap_retrieved", "ap", (("normalize", "retrieved"),)),
    Case("rr", "rr"),
    Case("precision", "precision"),
    Case("recall", "recall"),
    Case("f1", "fbeta", (("beta", 1.0),)),
    Case("f2", "fbeta", (("beta", 2.0),)),
    Case("r_precision", "r_precision", takes_k=False),
    Case("hit_rate", "hit_rate"),
    Case("fap_beta1", "fap", (("beta", 1.0),)),
    Case("fap_beta2", "fap", (("beta", 2.0),)),
]

K = st.none() | st.integers(1, 8)
TIES = st.sampled_from(["average", "input"])
NO_RELEVANT = st.sampled_from(["skip", "zero", "one", "error"])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@SETTINGS
@given(data=rankings(), k=K, ties=TIES, no_relevant=NO_RELEVANT)
def test_metric_matches_reference(case, data, k, ties, no_relevant):
    ref_func, name = METRICS[case.metric]
    func = getattr(skrank, name)
    args, kwargs = data.inputs()
    kwargs.update(case.kwargs, ties=ties, no_relevant=no_relevant)
    if case.takes_k:
        kwargs["k"] = k

    try:
        expected = ref_func(*args, **kwargs)
        ref_values = ref_func(*args, per_query=True, **kwargs)
    except ValueError:
        assert no_relevant == "error"
        with pytest.raises(ValueError):
            call_quietly(func, *args, **kwargs)
        with pytest.raises(ValueError):
            call_quietly(func, *args, aggregate=None, **kwargs)
        return

    got, warned = call_mean(func, args, kwargs)
    assert type(got) is float
    assert_close(got, expected)
    if math.isnan(expected):
        assert warned, "nothing left to average must warn UndefinedMetricWarning"

    per_query = call_quietly(func, *args, aggregate=None, **kwargs)
    ref_weights = ref.ref_query_weights(
        args[0], args[1], query_id=data.query_id, sample_weight=data.sample_weight)
    check_per_query(data, per_query, ref_values, ref_weights)


@SETTINGS
@given(data=rankings(), max_k=K, ties=TIES, no_relevant=NO_RELEVANT,
       beta=st.sampled_from([1.0, 2.0]))
def test_fap_curve_matches_reference(data, max_k, ties, no_relevant, beta):
    args, kwargs = data.inputs()
    kwargs.update(max_k=max_k, beta=beta, ties=ties, no_relevant=no_relevant)
    try:
        expected = ref.ref_fap_curve(*args, **kwargs)
    except ValueError:
        assert no_relevant == "error"
        with pytest.raises(ValueError):
            call_quietly(skrank.fap_curve, *args, return_parts=True, **kwargs)
        return
    got = call_quietly(skrank.fap_curve, *args, return_parts=True, **kwargs)
    assert len(got) == 4
    assert np.asarray(got[0]).tolist() == expected[0].tolist()
    for got_part, expected_part in zip(got[1:], expected[1:]):
        assert_all_close(got_part, expected_part)
    k_only, fap_only = call_quietly(skrank.fap_curve, *args, **kwargs)
    assert np.asarray(k_only).tolist() == expected[0].tolist()
    assert_all_close(fap_only, expected[1])


@SETTINGS
@given(data=rankings(binary=True, layouts=("ids", "2d")), ties=TIES,
       weighting=st.sampled_from(["samples", "uniform"]))
def test_gauc_matches_reference(data, ties, weighting):
    args, kwargs = data.inputs()
    kwargs.update(ties=ties, weighting=weighting)
    expected = ref.ref_gauc(*args, **kwargs)
    got, warned = call_mean(skrank.gauc_score, args, kwargs)
    assert type(got) is float
    assert_close(got, expected)
    if math.isnan(expected):
        assert warned, "no query with both classes must warn UndefinedMetricWarning"

    per_query = call_quietly(skrank.gauc_score, *args, aggregate=None, **kwargs)
    ref_values = ref.ref_gauc(*args, per_query=True, **kwargs)
    ref_weights = ref.ref_gauc_query_weights(
        args[0], args[1], query_id=data.query_id, sample_weight=data.sample_weight,
        weighting=weighting)
    check_per_query(data, per_query, ref_values, ref_weights)


def test_gauc_requires_query_id_for_1d_input():
    with pytest.raises(ValueError, match="query_id"):
        skrank.gauc_score([0, 1], [0.1, 0.2])
