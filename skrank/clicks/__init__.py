"""Evaluating rankers from click logs: position bias and counterfactual metrics.

:func:`estimate_position_bias` estimates how much more often users examine
one position than another (the position-based model); :func:`evaluate`
uses those propensities to estimate, from the clicks a logging ranker
collected, the DCG, precision and average relevant position a new ranker
would have (inverse propensity scoring).

``skrank.clicks.evaluate`` is not ``skrank.evaluate`` (which scores
relevance labels), so these names are not re-exported at the top level.
"""

from ._evaluate import ClickEvaluation, evaluate
from ._position_bias import PositionBias, estimate_position_bias

__all__ = ["ClickEvaluation", "PositionBias", "estimate_position_bias", "evaluate"]
