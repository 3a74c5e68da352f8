"""skrank: ranking metrics that understand query ids, for scikit-learn.

Every metric follows scikit-learn's ``metric(y_true, y_score, ...)``
convention and takes ``query_id`` to evaluate each query (user, session)
separately and average over queries.

The public names live in subpackages by concern and are all re-exported
here: ``skrank.metrics`` (metric functions, :func:`evaluate`),
``skrank.model_selection`` (scorers, :class:`FAPCutoffClassifier`),
``skrank.plot`` (displays), ``skrank.stats`` (:func:`compare`),
``skrank.fairness`` (exposure), ``skrank.recsys`` (novelty, coverage, popularity, Gini
of recommendation lists) and ``skrank.datasets``; ``skrank.dask.evaluate`` runs on Dask DataFrames, and
``skrank.clicks`` evaluates rankers from click logs (not re-exported). The
engine they share is the private ``skrank._core``.
"""

# The public names, by the subpackage that defines them: the one list from
# which both the lazy imports and ``__all__`` come. Names are imported on
# first use (PEP 562): ``import skrank`` and the ``skrank`` command stay
# fast, scikit-learn loads only when needed.
_PUBLIC = {
    "datasets": (
        "load_digits_retrieval",
        "simulate_clicks",
    ),
    "metrics": (
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
    ),
    "model_selection": (
        "CandidateComparisonResult",
        "FAPCutoffClassifier",
        "MultiMetricScorer",
        "QueryGroupRanker",
        "RankingScorer",
        "compare_candidates",
        "cross_val_per_query",
        "get_scorer",
        "get_scorer_names",
        "make_ranking_scorer",
        "permutation_importance",
    ),
    "plot": (
        "FAPCurveDisplay",
        "PrecisionRecallAtKDisplay",
        "SegmentForestDisplay",
    ),
    "stats": (
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
    ),
    "fairness": (
        "awrf_score",
        "expected_exposure",
        "group_exposure",
    ),
    "recsys": (
        "RecsysScorer",
        "catalog_coverage_score",
        "distributional_coverage_score",
        "evaluate_lists",
        "explain_list_difference",
        "gini_score",
        "intra_list_diversity_score",
        "make_recsys_scorer",
        "novelty_score",
        "popularity_score",
        "serendipity_score",
        "tail_share_score",
    ),
    "io": (
        "RunEvaluationResult",
        "aggregate_run",
        "evaluate_run",
        "read_qrels",
        "read_run",
    ),
}
_LAZY = {name: sub for sub, names in _PUBLIC.items() for name in names}
# result classes end in "Result"; their earlier names still import (not in __all__)
_ALIASES = {
    "DifferenceExplanation": "DifferenceExplanationResult",
    "RunEvaluation": "RunEvaluationResult",
    "SegmentDifference": "SegmentDifferenceResult",
    "SegmentEvaluation": "SegmentEvaluationResult",
}
# every subpackage, also those whose names stay in their own namespace
# (skrank.clicks.evaluate, skrank.dask.evaluate, skrank.spark.evaluate)
_SUBPACKAGES = ("clicks", "dask", "datasets", "diversity", "fairness", "io", "metrics",
                "model_selection", "plot", "recsys", "spark", "stats")


def __getattr__(name):
    import importlib

    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name in _ALIASES:
        return __getattr__(_ALIASES[name])
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'skrank' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_SUBPACKAGES))


__version__ = "0.1.0.dev0"

__all__ = sorted(_LAZY)
