"""Ranking metrics on Dask DataFrames: :func:`evaluate` and :func:`evaluate_by`
over data larger than memory.

Importing this subpackage does not import Dask; :func:`evaluate` and
:func:`evaluate_by` do, and raise an ImportError naming the ``dask`` extra
when it is missing.
"""

from ._evaluate import evaluate
from ._evaluate_by import evaluate_by

__all__ = ["evaluate", "evaluate_by"]
