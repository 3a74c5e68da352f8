"""skrank: ranking metrics that understand query ids, for scikit-learn.

Every metric follows scikit-learn's ``metric(y_true, y_score, ...)``
convention and takes ``query_id`` to evaluate each query (user, session)
separately and average over queries.

The public names live in subpackages by concern and are all re-exported
here: ``skrank.metrics`` (metric functions, :func:`evaluate`),
``skrank.model_selection`` (scorers, :class:`FAPCutoffClassifier`),
``skrank.plot`` (displays), ``skrank.stats`` (:func:`compare`) and
``skrank.datasets``; ``skrank.dask.evaluate`` runs on Dask DataFrames, and
``skrank.clicks`` evaluates rankers from click logs (not re-exported). The engine they share is the private ``skrank._core``.
"""

# Names are imported on first use (PEP 562): ``import skrank`` and the
# ``skrank`` command stay fast, scikit-learn loads only when needed.
_LAZY = {
    "load_digits_retrieval": "datasets",
    "simulate_clicks": "datasets",
    "QueryValues": "metrics",
    "RankingAccumulator": "metrics",
    "average_precision_score": "metrics",
    "bpref_score": "metrics",
    "coverage_error": "metrics",
    "dcg_score": "metrics",
    "describe_convention": "metrics",
    "DifferenceExplanation": "metrics",
    "err_score": "metrics",
    "evaluate": "metrics",
    "explain_difference": "metrics",
    "fap_curve": "metrics",
    "fap_score": "metrics",
    "fbeta_at_k_score": "metrics",
    "gauc_score": "metrics",
    "graded_average_precision_score": "metrics",
    "hit_rate_score": "metrics",
    "hits_score": "metrics",
    "interpolated_precision_recall_curve": "metrics",
    "label_ranking_average_precision_score": "metrics",
    "label_ranking_loss": "metrics",
    "ndcg_score": "metrics",
    "pfound_score": "metrics",
    "pr_auc_score": "metrics",
    "precision_at_k_score": "metrics",
    "precision_recall_at_k_curve": "metrics",
    "r_precision_score": "metrics",
    "rank_correlation_score": "metrics",
    "rank_decay_weights": "metrics",
    "rbp_score": "metrics",
    "recall_at_k_score": "metrics",
    "reciprocal_rank_score": "metrics",
    "set_fbeta_score": "metrics",
    "weighted_average_precision_score": "metrics",
    "FAPCutoffClassifier": "model_selection",
    "MultiMetricScorer": "model_selection",
    "RankingScorer": "model_selection",
    "get_scorer": "model_selection",
    "get_scorer_names": "model_selection",
    "make_ranking_scorer": "model_selection",
    "QueryGroupRanker": "model_selection",
    "permutation_importance": "model_selection",
    "FAPCurveDisplay": "plot",
    "PrecisionRecallAtKDisplay": "plot",
    "SegmentForestDisplay": "plot",
    "compare": "stats",
    "evaluate_by": "stats",
    "SegmentComparisonResult": "stats",
    "SegmentDifference": "stats",
    "SegmentEvaluation": "stats",
    "RunEvaluation": "io",
    "evaluate_run": "io",
    "read_qrels": "io",
    "read_run": "io",
}
_SUBPACKAGES = ("clicks", "dask", "datasets", "io", "metrics", "model_selection", "plot",
                "spark", "stats")


def __getattr__(name):
    import importlib

    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'skrank' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))


__version__ = "0.1.0.dev0"

__all__ = [
    "DifferenceExplanation",
    "FAPCurveDisplay",
    "FAPCutoffClassifier",
    "MultiMetricScorer",
    "PrecisionRecallAtKDisplay",
    "QueryGroupRanker",
    "QueryValues",
    "RankingAccumulator",
    "RankingScorer",
    "RunEvaluation",
    "SegmentComparisonResult",
    "SegmentDifference",
    "SegmentEvaluation",
    "SegmentForestDisplay",
    "average_precision_score",
    "bpref_score",
    "compare",
    "coverage_error",
    "dcg_score",
    "describe_convention",
    "err_score",
    "evaluate",
    "evaluate_by",
    "evaluate_run",
    "explain_difference",
    "fap_curve",
    "fap_score",
    "fbeta_at_k_score",
    "gauc_score",
    "get_scorer",
    "get_scorer_names",
    "graded_average_precision_score",
    "hit_rate_score",
    "hits_score",
    "interpolated_precision_recall_curve",
    "label_ranking_average_precision_score",
    "label_ranking_loss",
    "load_digits_retrieval",
    "simulate_clicks",
    "make_ranking_scorer",
    "ndcg_score",
    "permutation_importance",
    "pfound_score",
    "pr_auc_score",
    "precision_at_k_score",
    "precision_recall_at_k_curve",
    "r_precision_score",
    "rank_correlation_score",
    "rank_decay_weights",
    "rbp_score",
    "recall_at_k_score",
    "read_qrels",
    "read_run",
    "reciprocal_rank_score",
    "set_fbeta_score",
    "weighted_average_precision_score",
]
