"""evaluate() gives what each metric's own function gives, from one sort."""

import numpy as np
import pytest

from skrank import evaluate
from skrank.metrics._registry import parse_metric_name

NAMES = ["ndcg", "ndcg@3", "dcg@2", "map", "map@2", "mrr", "mrr@1", "precision@2", "set_f1",
         "recall@3", "f1@2", "fap", "fap@3", "r_precision", "hit_rate@1", "gauc"]


def _data(seed):
    rng = np.random.default_rng(seed)
    query = rng.integers(0, 15, size=90)
    return rng.integers(0, 2, size=90), rng.integers(0, 4, size=90), query


def _by_hand(name, y, score, query, **kwargs):
    spec, k = parse_metric_name(name)
    options = dict(spec.options, **kwargs)
    if spec.takes_k:
        options["k"] = k
    if spec.stem == "gauc":
        options.pop("no_relevant", None)
    if spec.stem == "set_f1":  # evaluate() returns the rows scored above 0
        options.pop("ties", None)
        score = (np.asarray(score) > 0).astype(int)
    return spec.func(y, score, query_id=query, **options)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("no_relevant", ["skip", "zero"])
def test_each_result_equals_the_metric_function(seed, ties, no_relevant):
    y, score, query = _data(seed)
    weight = np.random.default_rng(seed).random(y.shape[0])
    results = evaluate(y, score, query_id=query, metrics=NAMES, ties=ties,
                       no_relevant=no_relevant, sample_weight=weight)
    assert list(results) == NAMES
    for name, value in results.items():
        expected = _by_hand(name, y, score, query, ties=ties, no_relevant=no_relevant,
                            sample_weight=weight)
        assert value == pytest.approx(expected, rel=1e-12), name


def test_per_query_output():
    y, score, query = _data(2)
    results = evaluate(y, score, query_id=query, metrics=["map", "gauc"], aggregate=None)
    for name in ("map", "gauc"):
        expected = _by_hand(name, y, score, query, aggregate=None)
        np.testing.assert_array_equal(results[name].query_id, expected.query_id)
        np.testing.assert_allclose(results[name].value, expected.value, equal_nan=True)
        np.testing.assert_allclose(results[name].weight, expected.weight)


def test_a_single_name_and_the_default_metrics():
    y, score, query = _data(3)
    assert list(evaluate(y, score, query_id=query, metrics="mrr")) == ["mrr"]
    assert len(evaluate(y, score, query_id=query)) == 5


@pytest.mark.parametrize(
    "metrics, message",
    [
        (["ndgc@10"], "Unknown metric name 'ndgc@10'.*Did you mean 'ndcg@10'"),
        (["r_precision@5"], "takes no cutoff"),
        (["map@0"], "positive integer"),
        ([], "`metrics` is empty"),
        ([3], "must be a string"),
    ],
)
def test_bad_metric_names(metrics, message):
    y, score, query = _data(4)
    with pytest.raises(ValueError, match=message):
        evaluate(y, score, query_id=query, metrics=metrics)


def test_gauc_needs_query_ids_and_binary_labels():
    with pytest.raises(ValueError, match="`query_id` is required for gauc"):
        evaluate([1, 0], [1, 2], metrics=["gauc"])
    with pytest.raises(ValueError, match="`y_true` must be binary"):
        evaluate([2, 0], [1, 2], query_id=[1, 1], metrics=["gauc", "map"])
