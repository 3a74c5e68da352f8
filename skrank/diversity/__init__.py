"""Intent-aware diversity measures: does a ranking cover the query's intents?

``y_true`` is 2-D, one column per intent (a subtopic): the measures of
NIST's ``ndeval`` (TREC Web track diversity task), exact under tied scores.
The functions live in ``skrank.metrics._diversity`` (where
:func:`skrank.evaluate` reaches them) and are public here only.
"""

from ..metrics._diversity import (
    alpha_dcg_score,
    alpha_ndcg_score,
    err_ia_score,
    map_ia_score,
    nerr_ia_score,
    nnrbp_score,
    nrbp_score,
    precision_ia_score,
    subtopic_recall_score,
)

__all__ = [
    "alpha_dcg_score",
    "alpha_ndcg_score",
    "err_ia_score",
    "map_ia_score",
    "nerr_ia_score",
    "nnrbp_score",
    "nrbp_score",
    "precision_ia_score",
    "subtopic_recall_score",
]
