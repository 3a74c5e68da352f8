"""skrank: ranking metrics that understand query ids, for scikit-learn.

Every metric follows scikit-learn's ``metric(y_true, y_score, ...)``
convention and takes ``query_id`` to evaluate each query (user, session)
separately and average over queries.

The public names live in subpackages by concern and are all re-exported
here: ``skrank.metrics`` (metric functions, :func:`evaluate`),
``skrank.model_selection`` (scorers, :class:`FAPCutoffClassifier`),
``skrank.plot`` (displays), ``skrank.stats`` (:func:`compare`) and
``skrank.datasets``; ``skrank.dask.evaluate`` runs on Dask DataFrames. The engine they share is the private ``skrank._core``.
"""

from .datasets import load_digits_retrieval
from .metrics import (
    QueryValues,
    average_precision_score,
    bpref_score,
    dcg_score,
    evaluate,
    fap_curve,
    fap_score,
    fbeta_at_k_score,
    gauc_score,
    graded_average_precision_score,
    hit_rate_score,
    interpolated_precision_recall_curve,
    ndcg_score,
    pr_auc_score,
    precision_at_k_score,
    precision_recall_at_k_curve,
    r_precision_score,
    rank_correlation_score,
    rank_decay_weights,
    rbp_score,
    recall_at_k_score,
    reciprocal_rank_score,
    set_fbeta_score,
    weighted_average_precision_score,
)
from .model_selection import (
    FAPCutoffClassifier,
    MultiMetricScorer,
    QueryGroupRanker,
    RankingScorer,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
    permutation_importance,
)
from .plot import FAPCurveDisplay, PrecisionRecallAtKDisplay
from .stats import compare
from . import dask  # skrank.dask.evaluate; Dask itself is imported only when called

__version__ = "0.1.0.dev0"

__all__ = [
    "FAPCurveDisplay",
    "FAPCutoffClassifier",
    "MultiMetricScorer",
    "PrecisionRecallAtKDisplay",
    "QueryGroupRanker",
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
    "permutation_importance",
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
