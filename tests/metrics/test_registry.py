"""The metric registry (skrank/metrics/_registry.py): names, cutoffs, specs."""

import pytest

import skrank
from skrank.metrics._registry import METRICS, metric_names, parse_metric_name


def test_every_registered_stem_is_a_name():
    names = metric_names()
    for stem, spec in METRICS.items():
        assert stem in names
        assert (f"{stem}@k" in names) == spec.takes_k
    assert parse_metric_name(" NDCG@10 ")[1] == 10


@pytest.mark.parametrize(
    "name, stem, k",
    [("ndcg", "ndcg", None), ("ndcg@10", "ndcg", 10), ("MAP@3", "map", 3),
     ("hit_rate@1", "hit_rate", 1), ("r_precision", "r_precision", None)],
)
def test_names_parse_to_stem_and_cutoff(name, stem, k):
    spec, cutoff = parse_metric_name(name)
    assert (spec.stem, cutoff) == (stem, k)


@pytest.mark.parametrize(
    "name, message",
    [("ndgc@10", "Did you mean 'ndcg@10'"), ("r_precision@5", "takes no cutoff"),
     ("map@0", "positive integer"), (3, "must be a string"), ("", "Unknown metric")],
)
def test_bad_names(name, message):
    with pytest.raises(ValueError, match=message):
        parse_metric_name(name)


def test_every_spec_calls_a_public_function():
    public = {getattr(skrank, name) for name in skrank.__all__}
    for spec in METRICS.values():
        assert spec.func in public, spec.stem
