"""skrank in scikit-learn's model selection: scorers and the FAP cutoff selector.

``_scorer`` turns metrics into scorers that receive query ids (metadata
routing or a DataFrame column); the selector is split into ``_oof``
(query-whole folds, out-of-fold scores), ``_cutoff_search`` (the curve and
its maximum) and ``_fap_cutoff`` (the estimator face).
"""

from ._fap_cutoff import FAPCutoffClassifier
from ._inspection import permutation_importance
from ._query_group import QueryGroupRanker
from ._scorer import (
    MultiMetricScorer,
    RankingScorer,
    get_scorer,
    get_scorer_names,
    make_ranking_scorer,
)

__all__ = [
    "FAPCutoffClassifier",
    "MultiMetricScorer",
    "QueryGroupRanker",
    "RankingScorer",
    "get_scorer",
    "get_scorer_names",
    "make_ranking_scorer",
    "permutation_importance",
]
