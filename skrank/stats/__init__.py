"""Comparing systems query by query, and metrics by segment: paired tests and
confidence intervals from bootstraps over queries."""

from ._compare import compare
from ._segments import SegmentDifference, SegmentEvaluation, evaluate_by

__all__ = ["SegmentDifference", "SegmentEvaluation", "compare", "evaluate_by"]
