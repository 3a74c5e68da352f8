"""Helpers shared by the test modules: closeness with nan.

The hand-worked examples of every metric are in ``_worked_examples.py``, its
brute-force reference in ``_harness.py``.
"""

import math

import numpy as np
import pytest


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
