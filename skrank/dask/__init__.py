"""Ranking metrics on Dask DataFrames: :func:`evaluate` and :func:`evaluate_by`
over data larger than memory, and click logs: :func:`evaluate_clicks` and
:func:`estimate_position_bias`; exposure: :func:`expected_exposure`.

Importing this subpackage does not import Dask; :func:`evaluate` and
:func:`evaluate_by` and the click functions do, and raise an ImportError
naming the ``dask`` extra when it is missing.
"""

from ._clicks import evaluate_clicks
from ._evaluate import evaluate
from ._evaluate_by import evaluate_by
from ._exposure import expected_exposure
from ._position_bias import estimate_position_bias

__all__ = [
    "estimate_position_bias", "evaluate", "evaluate_by", "evaluate_clicks",
    "expected_exposure",
]
