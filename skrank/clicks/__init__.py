"""Evaluating rankers and slate policies from logged clicks.

:func:`slate_estimate`: off-policy estimates of a slate policy's value from
slates a stochastic policy logged (standard, independent and
reward-interaction IPS, plain or self-normalised), with a bootstrap interval
over slates.
"""

from ._slate import slate_estimate

__all__ = ["slate_estimate"]
