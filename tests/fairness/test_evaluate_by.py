"""Exposure by segment: evaluate_by takes expected_exposure as a metric function."""

from functools import partial

import numpy as np
import pytest

import skrank
from skrank.fairness import expected_exposure


def _data():
    rng = np.random.default_rng(0)
    query = np.repeat(np.arange(30), 8)
    y = rng.integers(0, 3, size=query.shape[0])
    score = np.round(rng.random(query.shape[0]), 1)
    segment = np.where(query % 3 == 0, "head", "tail")
    return y, score, query, segment


def test_segment_values_are_expected_exposure_on_the_segment_rows():
    y, score, query, segment = _data()
    metric = partial(expected_exposure, complete=True, patience=0.8)
    result = skrank.evaluate_by(y, score, by=segment, query_id=query,
                                metrics=["ndcg@10", metric], n_resamples=50,
                                random_state=0)
    frame = result.to_frame().set_index(["segment", "metric"])
    for name in ["head", "tail"]:
        rows = segment == name
        expected = expected_exposure(y[rows], score[rows], query_id=query[rows],
                                     complete=True, patience=0.8)
        for measure, value in expected.items():
            assert frame.loc[(name, measure), "value"] == pytest.approx(value)
            low, high = frame.loc[(name, measure), ["ci_low", "ci_high"]]
            assert low <= value <= high
        assert frame.loc[(name, "ndcg@10"), "value"] == pytest.approx(
            skrank.ndcg_score(y[rows], score[rows], query_id=query[rows], k=10))
    overall = expected_exposure(y, score, query_id=query, complete=True, patience=0.8)
    assert result.overall["ee_l"] == pytest.approx(overall["ee_l"])


def test_a_function_alone_and_a_query_values_function():
    y, score, query, segment = _data()

    def mean_grade(y_true, y_score, *, query_id, sample_weight=None, aggregate=None):
        ids, codes = np.unique(query_id, return_inverse=True)
        value = np.bincount(codes, weights=y_true) / np.bincount(codes)
        return skrank.QueryValues(ids, value, np.ones(ids.shape[0]))

    result = skrank.evaluate_by(y, score, by=segment, query_id=query,
                                metrics=[mean_grade], n_resamples=20, random_state=0)
    assert list(result.to_frame()["metric"].unique()) == ["mean_grade"]
    assert result.overall["mean_grade"] == pytest.approx(y.mean())
    with pytest.raises(ValueError, match="`metrics`"):
        skrank.evaluate_by(y, score, by=segment, query_id=query,
                           metrics=[mean_grade, mean_grade], n_resamples=20)
