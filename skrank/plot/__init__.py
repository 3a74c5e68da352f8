"""Displays (matplotlib, the optional ``plot`` extra, imported only to draw)."""

from ._fap_curve import FAPCurveDisplay
from ._precision_recall import PrecisionRecallAtKDisplay
from ._segments import SegmentForestDisplay

__all__ = ["FAPCurveDisplay", "PrecisionRecallAtKDisplay", "SegmentForestDisplay"]
