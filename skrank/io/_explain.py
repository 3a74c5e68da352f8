"""``skrank explain QRELS RUN``: why a metric differs between two conventions, on files.

The run's lines, labelled by the qrels, are scored under both conventions
by :func:`~skrank.metrics._conventions.walk_conventions`, as
:func:`skrank.explain_difference` scores rows. A trec_eval side is
trec_eval's own number on the files, :func:`evaluate_run` with
``compat="trec_eval"``: tied scores ordered by document id (descending),
and judged documents the run did not retrieve counted in R and in the
ideal DCG. Rows cannot say either, so the path gets one more step,
``rows``, between trec_eval's reading of the files and the run's lines.
"""

import numpy as np

from ..metrics._conventions import changed_queries, walk_conventions
from ._evaluate import evaluate_run, run_rows

#: the two readings of the files the ``rows`` step goes between
TREC_FILES = "trec_eval on the files"
RUN_LINES = "the run's lines"


def explain_run(qrels, run, *, metric="ndcg@10", a="trec_eval", b="lightgbm",
                relevance_level=1, n_queries=5):
    """The :class:`~skrank.metrics._conventions.DifferenceExplanationResult` of a run.

    ``a`` and ``b`` are preset names; a ``"trec_eval"`` side equals
    ``evaluate_run(qrels, run, [metric], compat="trec_eval")``.
    """
    y_true, y_score, query_id, _ = run_rows(qrels, run, relevance_level)
    path = walk_conventions(y_true, y_score, query_id, None, metric, a, b)
    if "trec_eval" not in (a, b):
        return path.explanation(n_queries)
    side = 0 if a == "trec_eval" else 1
    spec, k = path.specs[side]
    name = f"{spec.stem}@{k}" if k is not None else spec.stem
    p = (path.options_a, path.options_b)[side].get("p")
    if spec.stem == "rbp" and k is None and p != 0.9:  # the name's persistence
        name = f"rbp_p={p!r}"
    result = evaluate_run(qrels, run, [name], compat="trec_eval",
                          relevance_level=relevance_level)
    mean, per_query = result.mean[name], result.per_query[name]
    if a == b:  # trec_eval on both sides: nothing between them
        path.value_a = path.value_b = mean
        path.start = path.end = per_query
        path.steps = []
        return path.explanation(n_queries)
    if side == 0:
        on_lines = path.start
        aligned = _aligned(per_query, on_lines.query_id)
        path.steps.insert(0, {
            "option": "rows", "from": TREC_FILES, "to": RUN_LINES,
            "value": path.value_a, "change": path.value_a - mean,
            "queries_changed": changed_queries(aligned, on_lines.value),
        })
        path.value_a, path.start = mean, on_lines._replace(value=aligned)
    else:
        on_lines = path.end
        aligned = _aligned(per_query, on_lines.query_id)
        path.steps.append({
            "option": "rows", "from": RUN_LINES, "to": TREC_FILES,
            "value": mean, "change": mean - path.value_b,
            "queries_changed": changed_queries(on_lines.value, aligned),
        })
        path.value_b, path.end = mean, on_lines._replace(value=aligned)
    return path.explanation(n_queries)


def _aligned(per_query, query_ids):
    """``per_query``'s values in the order of ``query_ids`` (the same queries)."""
    position = {qid: i for i, qid in enumerate(per_query.query_id.tolist())}
    index = np.array([position[qid] for qid in np.asarray(query_ids).tolist()],
                     dtype=np.int64)
    return per_query.value[index]
