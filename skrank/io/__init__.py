"""TREC qrels and runs: readers, :func:`evaluate_run`, :func:`aggregate_run`.

The command that reads and scores them is ``skrank.cli``.
"""

from ._evaluate import RunEvaluationResult, evaluate_run
from ._passages import aggregate_run
from ._read import read_qrels, read_run

RunEvaluation = RunEvaluationResult  # its earlier name

__all__ = ["RunEvaluationResult", "aggregate_run", "evaluate_run", "read_qrels", "read_run"]
