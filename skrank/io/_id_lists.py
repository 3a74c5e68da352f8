"""Id lists, the form RAG and vector-search code holds: ``{qid: [doc ids]}``.

A run ``{query_id: [doc ids, best first]}`` is a run whose scores fall with
the position: the first id gets the list's length, the last 1, so no two
documents of a query tie. Qrels ``{query_id: [relevant ids]}`` are qrels
whose listed documents have grade 1. A DataFrame run with a ``rank``
column and no score column ranks by it (rank 1 first; the score is minus
the rank, so equal ranks tie). :func:`~skrank.io._read.as_table` turns
what these return into a :class:`~skrank.io._tables.TrecTable`, as it does
the dicts of dicts they equal.
"""

import numpy as np

# the column names a DataFrame run's rank may have
RANK_COLUMNS = ("rank", "position", "pos")

_LISTS = (list, tuple, np.ndarray)


def is_id_lists(value):
    """True when a dict maps some query to a list (or tuple, array) of ids."""
    return any(isinstance(docs, _LISTS) for docs in value.values())


def _check_ids(ids, qid, kind, argument):
    """The ids of one query's list as str; a grade or a pair among them is an error."""
    if isinstance(ids, np.ndarray) and ids.ndim != 1:
        raise ValueError(f"`{argument}`: query {qid!r} maps to an array of shape "
                         f"{ids.shape}; an id list is one-dimensional.")
    kinds = set()
    for doc in ids:
        if isinstance(doc, (str, np.str_)):
            kinds.add("str")
        elif isinstance(doc, (int, np.integer)) and not isinstance(doc, (bool, np.bool_)):
            kinds.add("int")
        else:
            what = "grades" if kind == "qrels" else "scores"
            raise ValueError(
                f"`{argument}`: query {qid!r} lists {doc!r} ({type(doc).__name__}); an "
                f"id list holds document ids (str or int) only. With {what}, pass "
                f"{{query_id: {{doc_id: {'relevance' if kind == 'qrels' else 'score'}}}}} "
                "instead."
            )
    if len(kinds) > 1:
        raise ValueError(
            f"`{argument}`: query {qid!r} lists str and int ids together "
            f"({list(ids)[:4]!r}...): are grades mixed in with the ids? An id list holds "
            "document ids only; pass {query_id: {doc_id: relevance}} for grades."
        )
    docs = [str(doc) for doc in ids]
    if len(set(docs)) != len(docs):
        seen = set()
        repeated = next(d for d in docs if d in seen or seen.add(d))
        raise ValueError(
            f"`{argument}`: query {qid!r} lists document {repeated!r} more than once; "
            "each id may appear once in a query's list."
        )
    return docs


def id_list_rows(value, kind, argument):
    """``(queries, docs, numbers)`` of a dict of id lists, one entry per id.

    A run's numbers fall with the position (``len(list) - position``, best
    first); the qrels' numbers are 1. Every query must map to a list: a dict
    mixing lists and ``{doc: number}`` dicts is refused, as its numbers
    would mix ranks with scores (or grades with list membership).
    """
    queries, docs, numbers = [], [], []
    for qid, ids in value.items():
        if not isinstance(ids, _LISTS):
            raise ValueError(
                f"`{argument}` mixes id lists with {type(ids).__name__}s: query {qid!r} "
                f"maps to a {type(ids).__name__}. Pass every query as a list of ids "
                f"(best first for a run), or every query as a dict "
                f"{{doc_id: {'relevance' if kind == 'qrels' else 'score'}}}."
            )
        ids = _check_ids(ids, qid, kind, argument)
        n = len(ids)
        queries += [str(qid)] * n
        docs += ids
        numbers.append(np.arange(n, 0, -1, dtype=np.float64) if kind == "run"
                       else np.ones(n))
    numbers = np.concatenate(numbers) if numbers else np.empty(0)
    return queries, docs, numbers


def rank_column(frame):
    """A DataFrame run's rank column (``rank``, ``position``, ``pos``), None if none."""
    for name in RANK_COLUMNS:
        if name in frame.columns:
            return frame[name]
    return None


def scores_of_ranks(column, argument):
    """Minus the ranks: rank 1 scores highest; equal ranks tie."""
    try:
        ranks = np.asarray(column, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"`{argument}`: every rank (column {column.name!r}) must be a number."
        ) from None
    if not np.isfinite(ranks).all():
        raise ValueError(f"`{argument}` has a rank (column {column.name!r}) that is NaN "
                         "or infinite.")
    return -ranks
