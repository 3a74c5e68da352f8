"""Ranking metrics on Spark DataFrames: :func:`evaluate` over data in Spark tables.

Importing this subpackage does not import pyspark; :func:`evaluate` does,
and raises an ImportError naming the ``spark`` extra when it is missing.
"""

from ._evaluate import evaluate

__all__ = ["evaluate"]
