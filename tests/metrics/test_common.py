"""Properties every metric shares, checked once over the registry."""

import inspect
import re

import numpy as np
import pytest

import skrank
from skrank.metrics._registry import METRICS

# ranking metrics; set metrics (scored on decisions) have tests of their own
SPECS = sorted(
    (spec for spec in METRICS.values() if spec.response_method == "auto"),
    key=lambda spec: spec.stem,
)
IDS = [spec.stem for spec in SPECS]


def _data(seed=0, n_queries=12, ties=True, graded=False):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_queries)
    query = np.repeat(rng.permutation(np.arange(100, 100 + n_queries)), sizes)
    n = query.shape[0]
    y = rng.integers(0, 4 if graded else 2, size=n)
    score = rng.integers(0, 4, size=n) if ties else rng.random(n)
    return y, score.astype(float), query


def _call(spec, y, score, query, **kwargs):
    options = dict(spec.options)
    if spec.takes_k:
        options.setdefault("k", kwargs.pop("k", 3))
    options.update(kwargs)
    return spec.func(y, score, query_id=query, **options)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bounds_and_float(spec, seed):
    graded = not spec.binary
    y, score, query = _data(seed, graded=graded)
    value = _call(spec, y, score, query)
    assert type(value) is float
    per_query = _call(spec, y, score, query, aggregate=None).value
    finite = per_query[~np.isnan(per_query)]
    assert (finite >= -1e-12).all()
    if spec.stem in COUNTS:  # counts of rows, not fractions
        assert (finite <= COUNTS[spec.stem] + 1e-12).all()
    elif spec.stem != "dcg":
        assert (finite <= 1 + 1e-12).all()


# metrics that count rows: their bound on _data (k=3; at most 8 rows a query)
COUNTS = {"hits": 3, "coverage_error": 8}


PERFECT_AT_WHOLE_LIST = {
    "ndcg", "map", "mrr", "recall", "r_precision", "hit_rate", "gauc", "bpref", "pr_auc",
    "gap", "label_ranking_average_precision",
}
# a perfect ranking's value where it is not 1 (two relevant rows at the top)
PERFECT = {
    "dcg": 1 + 1 / np.log2(3),  # relevant rows at ranks 1 and 2
    "rbp": 1 - 0.8**2,  # (1 - p) (1 + p) with p = 0.8: RBP never reaches 1
    "hits": 2.0,  # the two relevant rows, at k = 2
    "coverage_error": 2.0,  # the two relevant rows cover the top 2
    "label_ranking_loss": 0.0,  # no pair in the wrong order
}


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_perfect_ranking_scores_one(spec):
    # every query: 2 relevant rows among 5, scored by the relevance itself
    rng = np.random.default_rng(3)
    y = np.concatenate([rng.permutation([1, 1, 0, 0, 0]) for _ in range(6)])
    query = np.repeat(np.arange(6), 5)
    score = y + rng.random(y.shape[0]) * 0.5  # relevant rows first, no ties
    if spec.stem in PERFECT_AT_WHOLE_LIST or not spec.takes_k:
        value = _call(spec, y, score, query, **({"k": None} if spec.takes_k else {}))
    else:  # set metrics reach 1 when the cutoff is the number of relevant rows
        value = _call(spec, y, score, query, k=2)
    assert value == pytest.approx(PERFECT.get(spec.stem, 1.0))


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_invariant_to_row_order(spec):
    y, score, query = _data(4)
    order = np.random.default_rng(5).permutation(y.shape[0])
    before = _call(spec, y, score, query, aggregate=None)
    after = _call(spec, y[order], score[order], query[order], aggregate=None)
    np.testing.assert_array_equal(before.query_id, after.query_id)
    np.testing.assert_allclose(before.value, after.value, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
@pytest.mark.parametrize(
    "transform", [np.exp, lambda s: 3 * s - 7, lambda s: s**3 + s], ids=["exp", "affine", "cubic"]
)
def test_invariant_to_increasing_transform_of_scores(spec, transform):
    y, score, query = _data(6)
    assert _call(spec, y, transform(score), query) == pytest.approx(
        _call(spec, y, score, query), rel=1e-12
    )


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_invariant_to_query_relabelling(spec):
    y, score, query = _data(7)
    as_text = np.array([f"user-{q * 7919 % 1000}" for q in query], dtype=object)
    shuffled = np.random.default_rng(8).permutation(1000)[query - 100] * 13
    reference = _call(spec, y, score, query)
    assert _call(spec, y, score, as_text) == pytest.approx(reference, rel=1e-12)
    assert _call(spec, y, score, shuffled) == pytest.approx(reference, rel=1e-12)
    assert _call(spec, y, score, query.astype(float)) == pytest.approx(reference, rel=1e-12)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_inputs_are_not_modified(spec):
    y, score, query = _data(9)
    weight = np.linspace(0.5, 2, y.shape[0])
    copies = [a.copy() for a in (y, score, query, weight)]
    _call(spec, y, score, query, sample_weight=weight)
    for original, copy in zip((y, score, query, weight), copies):
        np.testing.assert_array_equal(original, copy)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_two_dimensional_input_is_one_query_per_row(spec):
    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, size=(7, 5))
    y[:, 0] = 1  # every row relevant and non-relevant rows for every metric
    y[:, 1] = 0
    score = rng.integers(0, 3, size=(7, 5)).astype(float)
    weight = rng.random(7) + 0.1
    flat_query = np.repeat(np.arange(7), 5)
    two_d = _call(spec, y, score, None, sample_weight=weight)
    one_d = _call(
        spec, y.ravel(), score.ravel(), flat_query, sample_weight=np.repeat(weight, 5)
    )
    assert two_d == pytest.approx(one_d, rel=1e-12)


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_unit_weights_change_nothing_and_weights_weigh_queries(spec):
    y, score, query = _data(11)
    per_query = _call(spec, y, score, query, aggregate=None)
    assert _call(spec, y, score, query, sample_weight=np.ones(y.shape[0])) == pytest.approx(
        _call(spec, y, score, query)
    )
    # doubling every weight of one query doubles its share of the mean
    target = per_query.query_id[0]
    weight = np.where(query == target, 2.0, 1.0)
    weighted = _call(spec, y, score, query, aggregate=None, sample_weight=weight)
    keep = ~np.isnan(weighted.value)
    expected = np.dot(weighted.value[keep], weighted.weight[keep]) / weighted.weight[keep].sum()
    assert _call(spec, y, score, query, sample_weight=weight) == pytest.approx(expected)
    ratio = weighted.weight[0] / per_query.weight[0]
    assert ratio == pytest.approx(2.0)


SHARED = ("y_true", "y_score", "k", "query_id", "sample_weight", "ties", "no_relevant", "aggregate")


def _parameter_docs(func):
    """Parameter name -> its paragraph in the numpydoc docstring."""
    doc = inspect.getdoc(func)
    section = doc.split("Parameters\n----------\n", 1)[1].split("\n\nReturns", 1)[0]
    blocks = re.split(r"\n(?=\S)", section)
    return {block.split(" : ", 1)[0]: block for block in blocks}


def test_shared_parameters_are_documented_in_the_same_words():
    # skrank.fairness's awrf_score takes sampled rankings (2-D y_score) and
    # no y_true; skrank.recsys' functions take (item_id, y_score) rows of
    # users, with k=10 and query_id required: their parameters have their
    # own words
    functions = [getattr(skrank, name) for name in skrank.__all__
                 if name.endswith("_score") and name not in ("gauc_score", "awrf_score")
                 and name not in skrank._PUBLIC["recsys"]]
    functions.append(skrank.fap_curve)
    reference = _parameter_docs(skrank.precision_at_k_score)
    for func in functions:
        docs = _parameter_docs(func)
        for name in SHARED:
            if name in docs:
                assert docs[name] == reference[name], (func.__name__, name)


@pytest.mark.parametrize("name", [n for n in skrank.__all__ if n != "QueryValues"])
def test_every_public_function_has_an_example(name):
    doc = inspect.getdoc(getattr(skrank, name))
    assert "Examples\n--------" in doc and ">>> " in doc
