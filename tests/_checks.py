"""Helpers shared by the test modules: closeness with nan, and hand-worked examples.

A worked example is checked twice, on the brute-force reference of
``_reference.py`` (which validates the reference) and on skrank.
"""

import math

import numpy as np
import pytest

import skrank

from . import _reference

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


# (reference function, skrank function name)
METRICS = {
    "dcg": (_reference.ref_dcg, "dcg_score"),
    "ndcg": (_reference.ref_ndcg, "ndcg_score"),
    "ap": (_reference.ref_average_precision, "average_precision_score"),
    "rr": (_reference.ref_reciprocal_rank, "reciprocal_rank_score"),
    "precision": (_reference.ref_precision_at_k, "precision_at_k_score"),
    "recall": (_reference.ref_recall_at_k, "recall_at_k_score"),
    "fbeta": (_reference.ref_fbeta_at_k, "fbeta_at_k_score"),
    "r_precision": (_reference.ref_r_precision, "r_precision_score"),
    "hit_rate": (_reference.ref_hit_rate, "hit_rate_score"),
    "hits": (_reference.ref_hits, "hits_score"),
    "fap": (_reference.ref_fap, "fap_score"),
    "gauc": (_reference.ref_gauc, "gauc_score"),
}


def implementation(which, metric):
    ref_func, name = METRICS[metric]
    return ref_func if which == "reference" else getattr(skrank, name)


def check_worked_example(which, metric, y_true, y_score, kwargs, expected):
    """A hand-worked value, checked on the reference or on skrank."""
    assert_close(implementation(which, metric)(y_true, y_score, **kwargs), expected)


# SPEC section 2: one query, relevance in score order 1,0,1,1,0,1,0,0 (R = 4).
SPEC_REL = [1, 0, 1, 1, 0, 1, 0, 0]
SPEC_SCORE = [8, 7, 6, 5, 4, 3, 2, 1]
