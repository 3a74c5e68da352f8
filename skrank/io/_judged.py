"""How much of a run the qrels judge: ``judged@k``, and the unjudged documents of the top k.

``judged@k`` is ir_measures' ``Judged@k``: the share of a query's top
``min(k, retrieved)`` documents that the qrels judge, a judgment of any
grade (a negative one too: it is a line of the qrels). ``judged`` without a
cutoff takes the whole list. With tied scores the value is the expected
share over the orders of the tied rows (``ties="average"``), as every
measure of skrank's; under ``compat="trec_eval"`` ties fall by document
id, descending, as trec_eval ranks (ir_measures breaks them by id,
ascending: the two differ only when a tie straddles the cutoff). As every
measure of :func:`~skrank.evaluate_run`, it is computed on the queries of
both the qrels and the run; ir_measures also scores 0 each qrels query the
run lacks, which ``complete_qrels=True`` does (its mean is then
ir_measures').

:func:`unjudged_documents` lists, per query, the retrieved documents of
the top k that the qrels do not judge: what a user sends to a judge
(:meth:`RunEvaluationResult.unjudged`).
"""

import re

import numpy as np

from .._core._layout import segment_sum
from ._join import _qrels_rows
from ._read import as_table

_JUDGED_NAME = re.compile(r"^[jJ]udged(?:@(\d+))?$")


def parse_judged(name):
    """``(printed name, kernel)`` for ``judged@k`` (or ir_measures' ``Judged@k``), else None."""
    match = _JUDGED_NAME.match(name)
    if match is None:
        return None
    k = None if match.group(1) is None else int(match.group(1))
    if k is not None and k < 1:
        raise ValueError(f"Measure {name!r}: the cutoff must be at least 1.")
    return name, lambda parts: judged_at(parts, k)


def judged_at(parts, k):
    """Per query, the (expected) share of the top min(k, retrieved) rows that are judged."""
    ranked = parts.binary
    retrieved = np.ones(ranked.n_rows, dtype=bool) if ranked.retrieved is None \
        else ranked.retrieved
    flags = (parts.pooled.astype(bool) & retrieved).astype(np.float64)
    n_retrieved = ranked.n_retrieved
    cut = n_retrieved if k is None else np.minimum(k, n_retrieved)
    if not ranked.has_ties:
        count = segment_sum(flags * (ranked.rank <= cut[ranked.query]), ranked.query_start)
    else:
        # a tie block's judged rows spread evenly over its places: the
        # expected count of judged rows among its places inside the cut
        judged_in_block = segment_sum(flags, ranked.block_start)
        size = ranked.block_size
        inside = np.clip(cut[ranked.block_query] - ranked.block_first_rank + 1, 0, size)
        count = np.bincount(ranked.block_query, weights=judged_in_block * inside / size,
                            minlength=ranked.n_queries)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cut > 0, count / np.maximum(cut, 1), 0.0)


def unjudged_documents(qrels, run, k, *, compat=None, ties="average", max_docs=None,
                       judged_docs_only=False):
    """``{query_id: [doc ids]}``: the unjudged documents among each query's top k.

    The queries of both the qrels and the run, in the qrels' id order; only
    those with an unjudged document. Documents in rank order (score
    descending; ties by document id, descending, as trec_eval). A tie block
    that straddles the cut is listed whole under ``ties`` other than
    ``"input"`` (each of its documents may be in the top k), and cut
    there under ``compat="trec_eval"`` and ``ties="input"`` (one order).
    """
    if judged_docs_only:  # -J: what is ranked is judged
        return {}
    if max_docs is not None:
        k = min(k, max_docs)
    qrels = as_table(qrels, "qrels", "qrels", compat)
    run = as_table(run, "run", "run", compat)
    run_query = run.queries_in(qrels)
    keep = run_query >= 0
    judged = _qrels_rows(run, qrels, run_query, keep) >= 0
    rows = np.flatnonzero(keep)
    query, score = run_query[rows].astype(np.int64), run.value[rows]
    docs = run.doc_strings(rows)
    one_order = compat == "trec_eval" or ties == "input"
    if ties == "input" and compat != "trec_eval":
        tie_break = np.arange(rows.shape[0])
    else:  # document id descending
        _, codes = np.unique(docs.astype(str), return_inverse=True)
        tie_break = -codes.ravel()
    order = np.lexsort((tie_break, -score, query))
    query, score, docs, judged = query[order], score[order], docs[order], judged[rows][order]
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    sizes = np.diff(np.r_[starts, query.shape[0]])
    position = np.arange(query.shape[0]) - np.repeat(starts, sizes)  # 0-based
    if one_order:
        inside = position < k
    else:  # the k-th row's score, or the last row's in a shorter list
        last = starts + np.minimum(k, sizes) - 1
        inside = score >= np.repeat(score[last], sizes)
    wanted = inside & ~judged
    out, found, labels = {}, {}, qrels.query_labels
    for code, doc in zip(query[wanted], docs[wanted]):
        found.setdefault(int(code), []).append(str(doc))
    for code in sorted(found, key=lambda c: labels[c].encode("utf-8", "surrogateescape")):
        out[str(labels[code])] = found[code]
    return out
