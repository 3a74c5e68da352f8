"""Ranking metrics: one module per family, the name registry and :func:`evaluate`.

Every function is ``metric(y_true, y_score, *, query_id=None, ...)``; each
family module holds the definitions (docstrings with the formula) and the
per-query kernels (``_<stem>_per_query``) of its metrics.
"""

from .._core._aggregate import QueryValues
from ._accumulator import RankingAccumulator
from ._auc import gauc_score
from ._average_precision import average_precision_score
from ._correlation import rank_correlation_score
from ._curves import (
    interpolated_precision_recall_curve,
    pr_auc_score,
    precision_recall_at_k_curve,
)
from ._cutoff import (
    fbeta_at_k_score,
    hits_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from ._cascade import err_score, pfound_score
from ._conventions import DifferenceExplanationResult, describe_convention, explain_difference
from ._evaluate import evaluate
from ._fap import fap_curve, fap_score
from ._first_relevant import hit_rate_score, reciprocal_rank_score
from ._gain import dcg_score, ndcg_score
from ._graded import graded_average_precision_score
from ._label_ranking import (
    coverage_error,
    label_ranking_average_precision_score,
    label_ranking_loss,
)
from ._incomplete import bpref_score, rbp_score
from ._rank_weights import rank_decay_weights, weighted_average_precision_score
from ._sets import set_fbeta_score

DifferenceExplanation = DifferenceExplanationResult  # its earlier name

__all__ = [
    "DifferenceExplanationResult",
    "QueryValues",
    "RankingAccumulator",
    "average_precision_score",
    "bpref_score",
    "coverage_error",
    "dcg_score",
    "describe_convention",
    "err_score",
    "evaluate",
    "explain_difference",
    "fap_curve",
    "fap_score",
    "fbeta_at_k_score",
    "gauc_score",
    "graded_average_precision_score",
    "hit_rate_score",
    "hits_score",
    "interpolated_precision_recall_curve",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "ndcg_score",
    "pfound_score",
    "pr_auc_score",
    "precision_at_k_score",
    "precision_recall_at_k_curve",
    "r_precision_score",
    "rank_correlation_score",
    "rank_decay_weights",
    "rbp_score",
    "recall_at_k_score",
    "reciprocal_rank_score",
    "set_fbeta_score",
    "weighted_average_precision_score",
]
