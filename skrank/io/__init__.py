"""TREC qrels and runs: readers, :func:`evaluate_run` and the ``skrank`` command."""

from ._evaluate import RunEvaluationResult, evaluate_run
from ._passages import aggregate_run
from ._read import read_qrels, read_run

RunEvaluation = RunEvaluationResult  # its earlier name

__all__ = ["RunEvaluationResult", "aggregate_run", "evaluate_run", "read_qrels", "read_run"]
