"""Comparing systems query by query, and metrics by segment: paired tests and
confidence intervals from bootstraps over queries."""

from ._compare import compare
from ._segments import (
    SegmentComparisonResult,
    SegmentDifference,
    SegmentEvaluation,
    evaluate_by,
)

__all__ = [
    "SegmentComparisonResult",
    "SegmentDifference",
    "SegmentEvaluation",
    "compare",
    "evaluate_by",
]
