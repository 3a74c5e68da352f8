"""TREC qrels and runs: readers, :func:`evaluate_run` and the ``skrank`` command."""

from ._evaluate import RunEvaluation, evaluate_run
from ._read import read_qrels, read_run

__all__ = ["RunEvaluation", "evaluate_run", "read_qrels", "read_run"]
