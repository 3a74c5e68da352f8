"""Qrels joined with a run: the layout trec_eval measures, one piece at a time.

Each run line finds its judgment; the lines are put in trec_eval's order
(or ranked under ``ties``), cut at ``max_docs``, and the judged documents
the run did not retrieve join them as rows at ``-inf``.
"""

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .._core._layout import RankedQueries, rank_queries, segment_ids
from .._core._sort import distinct_sorted, packed_order, sort_runs
from .._core._threads import Background, Done
from ._arrow import arrow_call, arrow_options, index_array, numeric
from ._ids import _check_duplicates, _doc_byte_rank, _line_ids, _words_rank
from ._ids import query_order as qrels_query_order
from ._tables import indexer, no_shared_query


def _run_docs_in_qrels(run, qrels, dtype=np.int64):
    """For each run line, its document's index in the qrels' documents (-1 if unjudged).

    Unjudged: no line of ``qrels`` (which may be a piece of larger qrels,
    sharing their document labels) judges it.
    """
    if run.qrels_doc is not None:
        return run.qrels_doc
    if run.doc_array is not None:
        import pyarrow as pa

        value_set = qrels.doc_label_array  # pa.array() would import pandas
        if value_set is None:
            try:
                value_set = pa.array(qrels.doc_labels.tolist(), type=pa.string())
            except (UnicodeEncodeError, pa.ArrowException):  # ids that are not UTF-8
                return indexer(qrels.doc_labels, run.doc_strings())
        docs = run.doc_array if run.doc_rows is None else run.take_docs(slice(None))
        present = None
        if 4 * len(qrels) < len(value_set):
            # a piece of the qrels: its own ids make the table that is
            # looked into (built at every call, it costs as many ids)
            if len(qrels) == 0:
                return np.full(len(docs), -1, dtype=dtype)
            present = distinct_sorted(np.sort(qrels.doc))
            value_set = arrow_call("take", value_set, index_array(present))
        found = _index_in(docs, value_set, dtype)
        if present is not None:
            found = np.where(found >= 0, present[found], -1).astype(dtype, copy=False)
        return found
    return indexer(qrels.doc_labels, run.doc_labels)[run.doc].astype(dtype, copy=False)


#: ids looked up at a time: a longer array is looked up in two halves, side by side
SPLIT_LOOKUP = 1 << 20


def _index_in(docs, value_set, dtype):
    """Each of ``docs``' index in ``value_set`` (-1: absent), as ``dtype``.

    pyarrow's lookup runs on one thread and releases the GIL: the halves of
    a long array (a whole run's ids) are looked up on two threads, each
    with its own table of ``value_set`` (1.6-1.8x faster on 2e6 ids).
    """
    options = arrow_options("SetLookupOptions", value_set=value_set)
    if len(docs) < SPLIT_LOOKUP:
        return _positions(arrow_call("index_in", docs, options=options), dtype)
    half = len(docs) // 2
    second = Background(lambda: arrow_call("index_in", docs.slice(half), options=options))
    first = _positions(arrow_call("index_in", docs.slice(0, half), options=options), dtype)
    return np.concatenate([first, _positions(second.result(), dtype)])


def _positions(index, dtype):
    """index_in's result as ``dtype``, -1 where absent."""
    width = index.type.bit_width  # buffer views: np.asarray would import pandas
    return numeric(index, np.dtype(f"int{width}"), fill=-1).astype(dtype, copy=False)


def _qrels_rows(run, qrels, run_query, keep):
    """For each run line, its line in the qrels (-1: not judged, or query dropped)."""
    n_qdocs = max(qrels.doc_labels.shape[0], 1)
    run_doc = _run_docs_in_qrels(run, qrels)
    qrels_key = qrels.query * n_qdocs + qrels.doc
    key_order = np.argsort(qrels_key, kind="stable")
    sorted_key = qrels_key[key_order]
    # only lines whose document the qrels judge (in some query) are looked up
    candidate = np.flatnonzero(keep & (run_doc >= 0))
    run_key = run_query[candidate].astype(np.int64) * n_qdocs + run_doc[candidate]
    position = np.minimum(np.searchsorted(sorted_key, run_key), sorted_key.shape[0] - 1)
    match = sorted_key[position] == run_key
    qrels_row = np.full(run_query.shape[0], -1, dtype=np.int64)
    qrels_row[candidate[match]] = key_order[position[match]]
    return qrels_row


def _by_query_then_score(query, score):
    """``(order, query[order])``: rows by query, then score descending.

    One sort of packed keys if they fit (which gives the sorted queries
    too), else a lexsort.
    """
    packed = packed_order(score, query) if query.shape[0] > 1 else None
    if packed is None:
        order = np.lexsort((-score, query))
        return order, query[order]
    return packed


def _trec_order(query, score, doc_rank):
    """Rows by (query, score descending, document id descending): trec_eval's order.

    One argsort of packed keys; only the runs of tied scores look at the
    document ids (``doc_rank(rows)`` ranks those rows' ids, as strcmp orders
    them). Returns the order and ``query`` and ``score`` in it (reordering
    inside a tie leaves both unchanged).
    """
    order, q = _by_query_then_score(query, score)
    s = score[order]
    tied = np.flatnonzero((q[1:] == q[:-1]) & (s[1:] == s[:-1]))
    # each run of tied rows by document id, descending
    sort_runs(order, tied, lambda rows: -doc_rank(order[rows]))
    return order, q, s


@dataclass
class _Parts:
    binary: RankedQueries
    graded: RankedQueries
    judged: np.ndarray
    # the run's duplicate check, still running: ``checked()`` raises on a
    # duplicate; it finishes while the piece is measured
    run_check: object = None
    # in the qrels at all (a negative judgment too), ranked order: infAP's pool
    pooled: np.ndarray = None

    @cached_property
    def graded_as_relevance(self):
        """The graded layout with the grades of the rows that are not relevant at 0.

        What skrank's own names measure on a run (``relevance_level`` decides
        which rows are relevant); made on first use only.
        """
        return self.graded.with_relevance(
            np.where(self.binary.relevance > 0, self.graded.relevance, 0.0))

    def checked(self):
        if self.run_check is not None:
            self.run_check.result()
            self.run_check = None


def _truncate(run_qkey, score, rows, max_docs, ties, labels):
    """The best ``max_docs`` rows of each query (rows sorted by query, then score).

    With ``ties="average"`` a cut through a block of tied scores has no one
    answer: it is refused, naming the query.
    """
    start = np.flatnonzero(np.r_[True, run_qkey[1:] != run_qkey[:-1]])
    size = np.diff(np.r_[start, run_qkey.shape[0]])
    position = np.arange(run_qkey.shape[0]) - np.repeat(start, size)
    inside = position < max_docs
    if ties == "average":
        last = np.flatnonzero(position == max_docs - 1)
        last = last[last + 1 < run_qkey.shape[0]]
        split = last[(run_qkey[last + 1] == run_qkey[last]) & (score[last + 1] == score[last])]
        if split.shape[0]:
            raise ValueError(
                f"max_docs={max_docs} cuts through documents with tied scores in query "
                f"{labels[run_qkey[split[0]]]!r}: with ties='average' which of them are "
                "kept is undefined. Pass ties='input' (keep them in input order) or "
                "compat='trec_eval' (break ties by document id, as trec_eval does)."
            )
    return run_qkey[inside], score[inside], rows[inside]


def join_and_check(piece):
    """A piece's join with its qrels and its run's duplicate check.

    ``piece`` is ``(qrels, run, query_order, run_query)``. Returns
    ``(run_query, qrels_rows, check, words)``: ``check`` is a
    :class:`~skrank._core._threads.Done` that raises the duplicate error,
    if any, when the layout asks (after the piece is measured, as when
    the check runs beside the layout); ``words`` the check's words of the
    ids (:func:`~skrank.io._ids._id_words`, None if the ids have none),
    which break tied scores by document id. For :func:`_layout`'s
    ``joined``, worked out ahead of the layout on one thread
    (:func:`~skrank._core._threads.ahead`). Both steps are mostly lookups,
    sorts and pyarrow calls that release the GIL; the layout's order of
    the lines, many small numpy steps, stays on the layout's thread.
    """
    qrels, run, _, run_query = piece  # every producer of pieces gives run_query
    qrels_rows = _qrels_rows(run, qrels, run_query, run_query >= 0)
    ids = _line_ids(run.doc_array, run.doc_rows) if run.doc_array is not None else None
    check = Done.of(_check_duplicates, run, "run", ids)
    return run_query, qrels_rows, check, None if ids is None else ids[1]


def _layout(qrels, run, *, relevance_level, complete_qrels, judged_docs_only,
            max_docs, compat, ties, query_order=None, run_query=None, joined=None):
    """Join qrels and run; the shared layout with unretrieved judged rows at -inf.

    As trec_eval: a document is relevant when it is judged with a grade at
    or above ``relevance_level`` and not below 0; a negative judgment counts
    as not judged; ``max_docs`` keeps the best ranked documents first, and
    ``judged_docs_only`` then drops the unjudged ones among them; a query
    with run lines is evaluated even when none of them is kept.

    ``query_order`` (from :func:`~skrank.io._ids.query_order`) and ``run_query`` (each run
    line's query among the qrels queries) may come from the caller, which
    computes them once for all the pieces of a run. ``joined`` is
    :func:`join_and_check`'s answer for this piece (a
    :class:`~skrank._core._threads.Done`), when the caller had it worked
    out ahead.
    """
    _check_duplicates(qrels, "qrels")
    words = run_check = None
    if joined is not None:
        run_query, qrels_rows, run_check, words = joined.result()
        joining = Done(qrels_rows)
    else:
        # the run's join with the qrels (lookups and sorts that release the
        # GIL) runs on another thread, beside trec_eval's order of the run,
        # which does not need it; the run's duplicate check starts there
        # once the join is done (the layout waits for the join, not for the
        # check)
        if run_query is None:
            run_query = run.queries_in(qrels)
        joining = Background(_qrels_rows, run, qrels, run_query, run_query >= 0)
    keep = run_query >= 0  # trec_eval drops run queries the qrels lack
    if keep.all():  # the pieces of evaluate_run: dropped already, nothing to take
        rows, kept_query, score = np.arange(run_query.shape[0]), run_query, run.value
    else:
        rows = np.flatnonzero(keep)
        kept_query, score = run_query[rows], run.value[rows]
    if rows.shape[0] == 0 and not complete_qrels:
        if run_check is None:
            _check_duplicates(run, "run")
        else:
            run_check.result()
        raise no_shared_query(qrels, run)
    query_rank, labels_sorted = query_order or qrels_query_order(qrels)
    run_qkey = query_rank[kept_query]
    del kept_query
    # the queries with lines in the run, before -M and -J keep fewer
    has_lines = np.zeros(qrels.query_labels.shape[0], dtype=bool)
    has_lines[run_qkey] = True  # by query rank: no sort needed

    run_qkey, score, rows = _order_and_cut(run, run_qkey, score, rows, compat=compat,
                                           max_docs=max_docs, ties=ties,
                                           labels_sorted=labels_sorted, words=words)
    all_qrels_row = joining.result()
    if run_check is None:
        run_check = Background(_check_duplicates, run, "run")
    qrels_row = all_qrels_row[rows]
    # row-length arrays are let go as soon as they are used: a smaller peak
    del all_qrels_row, keep, run_query, joining, rows
    run_qkey, score, grade, judged, qrels_row = _judged_lines(
        qrels, qrels_row, run_qkey, score, judged_docs_only)
    evaluated = _evaluated_queries(qrels, has_lines, query_rank, complete_qrels)
    n_run, pooled = run_qkey.shape[0], qrels_row >= 0
    qkey, all_score, grade, judged = _with_unretrieved_rows(
        qrels, qrels_row, run_qkey, score, grade, judged, evaluated, query_rank)
    del qrels_row, run_qkey, score
    # the rows added are judged documents (in the pool) or placeholders (not)
    pooled = np.concatenate([pooled, judged[n_run:]])
    binary = (judged & (grade >= relevance_level)).astype(np.float64)
    ranked = _ranked(qkey, all_score, binary, labels_sorted, compat=compat, ties=ties)
    del qkey, all_score, binary
    ranked.rank  # computed once, shared by the graded layouts below
    graded = ranked.with_relevance(np.where(judged, np.maximum(grade, 0.0), 0.0)[ranked.order])
    return _Parts(ranked, graded, judged[ranked.order].astype(np.float64), run_check,
                  pooled=pooled[ranked.order])


def _order_and_cut(run, run_qkey, score, rows, *, compat, max_docs, ties, labels_sorted,
                   words=None):
    """The run lines kept by ``max_docs`` (-M), as ``(run_qkey, score, rows)``.

    Under ``compat="trec_eval"`` they come in trec_eval's order (query,
    score descending, document id descending), which the layout keeps;
    otherwise in input order, the best ``max_docs`` of each query kept.
    ``words``: the run's id words from its duplicate check, if done
    already (tied scores are then ordered from them, with no copy of ids).
    """
    if compat == "trec_eval":
        if words is not None:
            def doc_rank(i, rows=rows):
                return _words_rank(words, rows[i])
        else:
            def doc_rank(i, rows=rows):
                return _doc_byte_rank(run, rows[i])
        order, run_qkey, score = _trec_order(run_qkey, score, doc_rank)
        rows = rows[order]
        if max_docs is not None:
            run_qkey, score, rows = _truncate(run_qkey, score, rows, max_docs,
                                              "input", labels_sorted)
    elif max_docs is not None:
        order, sorted_qkey = _by_query_then_score(run_qkey, score)
        run_qkey, score, rows = _truncate(sorted_qkey, score[order], rows[order],
                                          max_docs, ties, labels_sorted)
        back = np.argsort(rows, kind="stable")  # input order again: ties="input" keeps it
        run_qkey, score, rows = run_qkey[back], score[back], rows[back]
    return run_qkey, score, rows


def _judged_lines(qrels, qrels_row, run_qkey, score, judged_docs_only):
    """Each run line's grade and whether it is judged; -J keeps the judged lines only.

    Returns ``(run_qkey, score, grade, judged, qrels_row)``.
    """
    # one gather: a row of -1 (unjudged) takes the 0.0 appended after the grades
    grade = np.append(qrels.value, 0.0)[qrels_row]
    judged = (qrels_row >= 0) & (grade >= 0)  # a negative judgment: in the pool, unjudged
    if judged_docs_only:
        return (run_qkey[judged], score[judged], grade[judged], judged[judged],
                qrels_row[judged])
    return run_qkey, score, grade, judged, qrels_row


def _evaluated_queries(qrels, has_lines, query_rank, complete_qrels):
    """Which qrels queries (by index) are evaluated: those with run lines, or all (-c)."""
    if complete_qrels:  # every query of these qrels lines
        evaluated = np.zeros(qrels.query_labels.shape[0], dtype=bool)
        evaluated[qrels.query] = True
        return evaluated
    return has_lines[query_rank]


def _with_unretrieved_rows(qrels, qrels_row, run_qkey, score, grade, judged, evaluated,
                           query_rank):
    """The run's rows, then the judged rows it did not retrieve, then placeholders.

    Judged rows the (kept) run did not retrieve, for the evaluated queries,
    come at score ``-inf``. An evaluated query with no row left (-J kept
    none, nothing judged) gets one placeholder row, not relevant and not
    retrieved, so that it scores 0 and counts in the mean, as in trec_eval.
    Returns ``(qkey, score, grade, judged)`` of all rows.
    """
    unretrieved = qrels.value >= 0
    unretrieved[qrels_row[qrels_row >= 0]] = False
    unretrieved &= evaluated[qrels.query]
    missing = np.flatnonzero(unretrieved)
    present = np.zeros(qrels.query_labels.shape[0], dtype=bool)
    present[run_qkey] = True
    present[query_rank[qrels.query[missing]]] = True
    empty = np.flatnonzero(evaluated & ~present[query_rank])  # qrels query indices

    grade = np.concatenate([grade, qrels.value[missing], np.zeros(empty.shape[0])])
    judged = np.concatenate([judged, np.ones(missing.shape[0], dtype=bool),
                             np.zeros(empty.shape[0], dtype=bool)])
    qkey = np.concatenate([run_qkey, query_rank[qrels.query[missing]], query_rank[empty]])
    all_score = np.concatenate([score, np.full(missing.shape[0] + empty.shape[0], -np.inf)])
    return qkey, all_score, grade, judged


def _ranked(qkey, all_score, binary, labels_sorted, *, compat, ties):
    """The rows as :class:`RankedQueries`, their query ids the qrels' labels.

    Under ``compat="trec_eval"`` the rows are in their final order already:
    a stable sort by query merges the unretrieved rows in, with no second
    sort of the scores. Otherwise :func:`rank_queries` ranks them under
    ``ties``.
    """
    if compat == "trec_eval":
        order = np.argsort(qkey, kind="stable")
        qkey, all_score, binary = qkey[order], all_score[order], binary[order]
        new = np.r_[True, qkey[1:] != qkey[:-1]]
        query_start = np.flatnonzero(new)
        retrieved = all_score != -np.inf
        return RankedQueries(
            relevance=binary,
            query=segment_ids(query_start, qkey.shape[0]),
            query_start=query_start,
            block_start=np.arange(qkey.shape[0]),
            query_ids=labels_sorted[qkey[query_start]],
            order=order,
            row_weight=None,
            score=all_score,
            retrieved=None if retrieved.all() else retrieved,
        )
    ranked = rank_queries(binary, all_score, query_id=qkey, ties=ties)
    return replace(ranked, query_ids=labels_sorted[ranked.query_ids])
