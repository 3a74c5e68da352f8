"""Beyond-accuracy metrics for recommenders: novelty, coverage, popularity, Gini.

Rows are (user, item) pairs: ``item_id``, ``y_score`` ordering each user's
candidates and ``query_id`` the user; each user's top ``k`` rows by
``y_score`` are their recommendation list. The history is the training
interactions (``history_item_id``, and ``history_query_id`` where a metric
needs who interacted). ``compat=`` reproduces a recommender library's own
number: ``"recommenders"``, ``"rectools"``, ``"recbole"``, ``"lenskit"``.
"""

from ._coverage import catalog_coverage_score, distributional_coverage_score, gini_score
from ._explain import evaluate_lists, explain_list_difference
from ._novelty import novelty_score, popularity_score, tail_share_score
from ._diversity import intra_list_diversity_score
from ._scorer import RecsysScorer, make_recsys_scorer
from ._serendipity import serendipity_score

__all__ = [
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
]
