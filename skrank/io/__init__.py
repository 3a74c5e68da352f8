"""TREC qrels and runs: readers, :func:`evaluate_run` and the ``skrank`` command."""

from ._evaluate import RunEvaluationResult, evaluate_run
from ._read import read_qrels, read_run

from ._evaluate import RunEvaluation  # noqa: F401 (old name)

__all__ = ["RunEvaluationResult", "evaluate_run", "read_qrels", "read_run"]
