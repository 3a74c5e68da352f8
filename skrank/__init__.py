"""skrank: ranking metrics that understand query ids, for scikit-learn.

Every metric follows scikit-learn's ``metric(y_true, y_score, ...)``
convention and takes ``query_id`` to evaluate each query (user, session)
separately and average over queries.
"""

from ._aggregate import QueryValues
from ._auc import gauc_score
from ._compare import compare
from ._correlation import rank_correlation_score
from ._curves import (
    PrecisionRecallAtKDisplay,
    interpolated_precision_recall_curve,
    pr_auc_score,
    precision_recall_at_k_curve,
)
from ._datasets import load_digits_retrieval
from ._display import FAPCurveDisplay
from ._evaluate import evaluate
from ._fap import fap_curve, fap_score
from ._gain import dcg_score, ndcg_score
from ._graded import graded_average_precision_score
from ._incomplete import bpref_score, rbp_score
from ._precision import average_precision_score, reciprocal_rank_score
from ._scorer import (
    RankingScorer,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
)
from ._selector import FAPCutoffClassifier
from ._sets import set_fbeta_score
from ._topk import (
    fbeta_at_k_score,
    hit_rate_score,
    precision_at_k_score,
    r_precision_score,
    recall_at_k_score,
)
from ._weights import rank_decay_weights, weighted_average_precision_score

__version__ = "0.1.0.dev0"

__all__ = [
    "FAPCurveDisplay",
    "FAPCutoffClassifier",
    "PrecisionRecallAtKDisplay",
    "QueryValues",
    "RankingScorer",
    "average_precision_score",
    "bpref_score",
    "compare",
    "dcg_score",
    "evaluate",
    "fap_curve",
    "fap_score",
    "fbeta_at_k_score",
    "gauc_score",
    "get_scorer",
    "get_scorer_names",
    "graded_average_precision_score",
    "hit_rate_score",
    "interpolated_precision_recall_curve",
    "load_digits_retrieval",
    "make_ranking_scorer",
    "ndcg_score",
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
