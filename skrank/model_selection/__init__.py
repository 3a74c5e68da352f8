"""skrank in scikit-learn's model selection: scorers and the FAP cutoff selector.

The scorers are three modules: ``_query_ids`` (how a scorer gets a test
fold's query ids, by metadata routing or a DataFrame column, and the
messages when it gets none), ``_scorer`` (the scorer classes) and
``_make_scorer`` (``get_scorer``, ``make_ranking_scorer``); the selector is split into ``_oof``
(query-whole folds, out-of-fold scores), ``_cutoff_search`` (the curve and
its maximum) and ``_fap_cutoff`` (the estimator face); the rankers'
wrapper into ``_query_group`` (the meta-estimator) and ``_ranker_libraries``
(what LightGBM, XGBoost and CatBoost each take); per-query evidence from
cross-validation into ``_per_query`` (out-of-fold values per query) and
``_candidates`` (a search's candidates compared with its best by the paired
tests of ``skrank.stats``).
"""

from ._candidates import CandidateComparisonResult, compare_candidates
from ._fap_cutoff import FAPCutoffClassifier
from ._inspection import permutation_importance
from ._query_group import QueryGroupRanker
from ._make_scorer import get_scorer, get_scorer_names, make_ranking_scorer
from ._per_query import cross_val_per_query
from ._scorer import MultiMetricScorer, RankingScorer

__all__ = [
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
]
