"""Comparing systems query by query, and metrics by segment: paired tests and
confidence intervals from bootstraps over queries.

The modules stack one way: ``_tables`` (result tables and their text),
``_corrections`` (multiple-comparison corrections) and ``_tukey`` (Tukey's
HSD over all systems) <- ``_paired`` (paired tests) and ``_intervals``
(bootstrap intervals; the resampling itself is ``skrank._core._resample``,
which ``skrank.clicks`` shares) <- ``_segments`` (segment keys) <- ``_segment_summary`` (means and
intervals by segment) <- ``_evaluate_by`` and ``_compare_by`` <- ``_compare``.
``_judge_agreement`` <- ``_system_agreement``: how far two sets of judgments
agree, pair by pair and in the order of the systems they rank; they read and
score runs through :mod:`skrank.io`, the one face ``stats`` stands on.
"""

from ._compare import compare
from ._compare_by import SegmentComparisonResult
from ._corrections import correct_p_values
from ._evaluate_by import evaluate_by
from ._judge_agreement import JudgeAgreementResult, judge_agreement
from ._paired import ComparisonResult
from ._power import minimum_detectable_effect, topic_set_size
from ._segment_summary import SegmentDifferenceResult, SegmentEvaluationResult
from ._system_agreement import SystemAgreementResult, system_agreement
from ._tables import ComparisonTable

# the earlier names of two result classes
SegmentDifference, SegmentEvaluation = SegmentDifferenceResult, SegmentEvaluationResult

__all__ = [
    "ComparisonResult",
    "ComparisonTable",
    "JudgeAgreementResult",
    "SystemAgreementResult",
    "judge_agreement",
    "system_agreement",
    "SegmentComparisonResult",
    "SegmentDifferenceResult",
    "SegmentEvaluationResult",
    "compare",
    "correct_p_values",
    "evaluate_by",
    "minimum_detectable_effect", "topic_set_size",
]
