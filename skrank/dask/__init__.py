"""Ranking metrics on Dask DataFrames: :func:`evaluate` over data larger than memory.

Importing this subpackage does not import Dask; :func:`evaluate` does, and
raises an ImportError naming the ``dask`` extra when it is missing.
"""

from ._evaluate import evaluate

__all__ = ["evaluate"]
