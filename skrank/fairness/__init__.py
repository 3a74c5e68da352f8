"""Fairness of exposure: :func:`expected_exposure` (Diaz et al., 2020),
:func:`group_exposure` and :func:`awrf_score` (TREC Fair Ranking 2021).

Every function takes rows with a query id, like the metrics, and computes
the exposure of a ranking with tied scores exactly: as the stochastic
ranking uniform over the orders of its tied rows.
"""

from ._exposure import expected_exposure
from ._groups import awrf_score, group_exposure

__all__ = ["awrf_score", "expected_exposure", "group_exposure"]
