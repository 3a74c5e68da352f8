"""Beyond-accuracy metrics for recommenders: novelty, coverage, popularity, Gini.

Rows are (user, item) pairs; each user's top ``k`` rows by ``y_score`` are
their recommendation list; the history is the training interactions.
"""

__all__ = []
