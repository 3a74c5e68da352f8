"""skrank.evaluate, get_scorer and explain_difference point a recommendation-list
metric's name to skrank.recsys instead of only calling it unknown."""

import pytest

import skrank
from skrank.metrics._registry import LIST_METRIC_STEMS
from skrank.recsys._names import ALIASES, RECSYS_METRICS


def test_the_hint_knows_every_name_of_skrank_recsys():
    assert set(LIST_METRIC_STEMS) == set(RECSYS_METRICS) | set(ALIASES)


@pytest.mark.parametrize("call", [
    lambda name: skrank.evaluate([1, 0], [0.5, 0.2], metrics=[name]),
    lambda name: skrank.get_scorer(name),
    lambda name: skrank.explain_difference([1, 0], [0.5, 0.2], metric=name),
])
@pytest.mark.parametrize("name", ["novelty@10", "coverage@5", "ild@3", "serendipity"])
def test_a_list_metric_name_points_to_skrank_recsys(call, name):
    with pytest.raises(ValueError, match="evaluate_lists") as error:
        call(name)
    assert f"Unknown metric name {name!r}" in str(error.value)
    assert "explain_list_difference" in str(error.value)


def test_other_unknown_names_get_no_such_pointer():
    with pytest.raises(ValueError, match="Unknown metric name") as error:
        skrank.evaluate([1, 0], [0.5, 0.2], metrics=["ndcgg@10"])
    assert "recsys" not in str(error.value)
