"""call_metric and dry_run: how the engines call metric functions."""

import pytest

from skrank import average_precision_score, coverage_error
from skrank.metrics._calls import call_metric, dry_run


def _takes_ids_only(y_true, y_score, *, query_id):
    return ("ids", tuple(query_id))


def _takes_anything(y_true, y_score, **kwargs):
    return sorted(kwargs)


SHARED = {"query_id": [0, 0], "sample_weight": None, "ties": "average"}


def test_shared_arguments_go_only_where_the_signature_names_them():
    assert call_metric(_takes_ids_only, [1, 0], [2, 1], SHARED) == ("ids", (0, 0))


def test_a_metric_with_var_keyword_gets_every_shared_argument():
    assert call_metric(_takes_anything, [1, 0], [2, 1], SHARED, k=3) == [
        "k", "query_id", "sample_weight", "ties"]


def test_an_option_the_metric_does_not_take_still_raises():
    with pytest.raises(TypeError):
        call_metric(_takes_ids_only, [1, 0], [2, 1], SHARED, k=3)


def test_a_label_ranking_metric_gets_no_ties():
    # coverage_error takes no `ties`: on one query [[1, 0]] ranked [2, 1] the
    # relevant row is first, so the cover is 1
    value = call_metric(coverage_error, [[1, 0]], [[2.0, 1.0]], {"ties": "average"})
    assert value == 1.0


def test_dry_run_raises_the_metrics_own_error_and_passes_valid_options():
    with pytest.raises(ValueError, match="`no_relevant`"):
        dry_run(average_precision_score, {"no_relevant": "sometimes"})
    assert dry_run(average_precision_score, {"no_relevant": "zero"}) is None
