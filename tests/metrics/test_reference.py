"""Every registry stem against its brute-force reference (tests/_harness.py).

Three layers:

1. The reference's own machinery (tie orderings, guards).
2. The reference cross-checked with scikit-learn where it defines the same
   number (2-D ``ndcg_score``/``dcg_score`` with linear gain, ``roc_auc_score``).
3. Over the registry's stems (a stem without a reference or a worked example
   fails): each stem's hand-worked values (tests/_worked_examples.py) on its
   reference and on skrank; and hypothesis, small random inputs (ties
   frequent, empty and single-row queries, shuffled non-contiguous int and
   str ids, 2-D input, weights, every ``ties`` and ``no_relevant`` option,
   the metric's own options), skrank's mean and per-query output against
   the reference. ``fap_curve`` (no registry name) has its own test.
"""

import inspect
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

from skrank.metrics._registry import METRICS

from .. import _reference as ref
from .._checks import assert_all_close, assert_close
from .._harness import REFERENCES, shared_options
from .._worked_examples import EXAMPLES

# drawn scores may be only 0 and 1: the label-score warning is expected here
pytestmark = pytest.mark.filterwarnings("ignore:`y_score` holds only the values 0 and 1")

SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# the registry harness: 23 stems x 80 examples, about the 1,850 examples of the
# per-file comparisons it replaced (18 x 60 here, 5 x 60 to 80 and 3 x 150 elsewhere)
HARNESS_SETTINGS = settings(SETTINGS, max_examples=80)


# --------------------------------------------------------------------------
# 1. The reference's own machinery (the hand-worked examples of each metric
#    are in its family's test module: test_gain.py, test_cutoff.py, ...)
# --------------------------------------------------------------------------

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
def rankings(draw, binary=None, layouts=("ids", "single", "2d"), decisions=False,
             grades=((0, 1, 2, 3),)):
    """Small ranking inputs: 1-4 queries of 1-6 rows, frequent ties.

    Labels are 0/1 or drawn from one set of ``grades``; ``decisions=True``: 0/1 scores
    (a set metric's ``y_pred``).
    """
    graded = (not binary) if binary is not None else draw(st.booleans())
    label = st.sampled_from(draw(st.sampled_from(grades))) if graded else st.integers(0, 1)
    score = st.sampled_from([0, 1] if decisions else SCORE_VALUES)
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


K = st.none() | st.integers(1, 8)
TIES = st.sampled_from(ref.TIES)
NO_RELEVANT = st.sampled_from(ref.NO_RELEVANT)
STEMS = sorted(METRICS)


def test_every_registry_stem_has_a_reference_and_worked_examples():
    assert sorted(REFERENCES) == STEMS
    assert sorted(EXAMPLES) == STEMS
    assert all(EXAMPLES[stem] for stem in STEMS)


@pytest.mark.parametrize("stem", STEMS)
def test_reference_takes_the_functions_keywords(stem):
    # every option of the reference is an option of the public function
    reference = inspect.signature(REFERENCES[stem].reference).parameters
    public = inspect.signature(METRICS[stem].func).parameters
    assert set(reference) - {"per_query"} <= set(public)
    for name in REFERENCES[stem].options:
        assert name in public and name in reference, name


EXAMPLE_CASES = [(stem, example) for stem in sorted(EXAMPLES) for example in EXAMPLES[stem]]


@pytest.mark.parametrize("which", ["reference", "skrank"])
@pytest.mark.parametrize("stem, example", EXAMPLE_CASES,
                         ids=[f"{stem}-{example.id}" for stem, example in EXAMPLE_CASES])
def test_worked_example(which, stem, example):
    func = REFERENCES[stem].reference if which == "reference" else METRICS[stem].func
    assert_close(func(example.y_true, example.y_score, **example.kwargs), example.expected)


def _unjudged(draw, y_true):
    """A mask of unjudged rows of y_true's shape, or None."""
    if not draw(st.booleans()):
        return None
    shape = np.shape(y_true)
    flat = draw(st.lists(st.booleans(), min_size=int(np.prod(shape)),
                         max_size=int(np.prod(shape))))
    return np.array(flat, dtype=bool).reshape(shape)


@pytest.mark.parametrize("stem", STEMS)
@HARNESS_SETTINGS
@given(source=st.data())
def test_metric_matches_reference(stem, source):
    entry = REFERENCES[stem]  # a stem without a reference fails here
    func = METRICS[stem].func
    data = source.draw(rankings(binary=True if entry.labels == "binary" else None,
                              layouts=entry.layouts, decisions=entry.scores == "decisions",
                              grades=entry.grades),
                     label="data")
    args, kwargs = data.inputs()
    parameters = inspect.signature(func).parameters
    if "k" in parameters:
        kwargs["k"] = source.draw(K, label="k")
    for name, values in {**shared_options(func), **entry.options}.items():
        kwargs[name] = source.draw(st.sampled_from(values), label=name)
    # an unjudged row's y_true is ignored, so "pessimistic"/"optimistic" (which
    # order tied rows by y_true) give it no defined place: not drawn together
    if entry.unjudged and kwargs["ties"] in ("average", "input"):
        kwargs["unjudged"] = _unjudged(source.draw, args[0])

    try:
        expected = entry.reference(*args, **kwargs)
        ref_values = entry.reference(*args, per_query=True, **kwargs)
    except ValueError:
        assert kwargs.get("no_relevant") == "error"
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
    check_per_query(data, per_query, ref_values, entry.query_weights(args, kwargs))


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
