"""Evaluating rankers and slate policies from click logs.

:func:`estimate_position_bias` estimates how much more often users examine
one position than another (the position-based model); :func:`evaluate`
uses those propensities to estimate, from the clicks a logging ranker
collected, the DCG, precision and average relevant position a new ranker
would have (inverse propensity scoring). :func:`slate_estimate` gives
off-policy estimates of a slate policy's value from slates a stochastic
policy logged (standard, independent and reward-interaction IPS, plain or
self-normalised), with a bootstrap interval over slates. :func:`get_scorer`
makes a scorer of those estimates for ``GridSearchCV`` and ``cross_validate``;
:func:`compare` puts several rankers side by side on one log, with
intervals and paired tests over queries.

``skrank.clicks.evaluate`` is not ``skrank.evaluate`` (which scores
relevance labels), so these names are not re-exported at the top level.
"""

from ._compare import compare
from ._evaluate import ClickEvaluationResult, evaluate
from ._position_bias import PositionBias, estimate_position_bias
from ._scorer import ClickScorer, get_scorer
from ._slate import SlateEstimateResult, slate_estimate

__all__ = [
    "ClickEvaluationResult",
    "ClickScorer",
    "PositionBias",
    "SlateEstimateResult",
    "compare",
    "estimate_position_bias",
    "evaluate",
    "get_scorer",
    "slate_estimate",
]
