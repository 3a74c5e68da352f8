"""Displays (matplotlib, the optional ``plot`` extra, imported only to draw)."""

from ._fap_curve import FAPCurveDisplay
from ._precision_recall import PrecisionRecallAtKDisplay

__all__ = ["FAPCurveDisplay", "PrecisionRecallAtKDisplay"]
