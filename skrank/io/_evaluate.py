"""evaluate_run: qrels and a run (files, DataFrames or dicts) -> means and per-query values."""

import os
from dataclasses import dataclass, field, replace

import numpy as np

from .._core._aggregate import QueryValues
from .._core._factorize import hash_words
from .._core._layout import (
    RankedQueries,
    _key_runs,
    _packed_order,
    distinct_sorted,
    rank_queries,
    sort_each_run,
    sort_runs,
)
from .._core._params import (
    choice,
    COMPAT,
    CUTOFF,
    FLAG,
    REAL,
    TIES,
    validate_params,
)
from ._measures import parse_measures
from ._read import (
    FORMATS,
    _from_strings,
    _line_of_row,
    _load_file,
    _numeric,
    _Table,
    arrow_call,
    arrow_options,
    grouped_by_query,
    index_array,
    one_array,
)

DEFAULT_MEASURES = ("map", "ndcg", "P_10", "recall_100")


@dataclass
class RunEvaluation:
    """What :func:`evaluate_run` returns: means and per-query values.

    Attributes
    ----------
    mean : dict
        Measure name -> value over all evaluated queries: the mean, or the
        sum for trec_eval's counts (``num_ret``, ``num_rel``,
        ``num_rel_ret``), as trec_eval prints them on its ``all`` lines.
    per_query : dict
        Measure name -> :class:`~skrank.QueryValues` ``(query_id, value,
        weight)``, as skrank's metrics return with ``aggregate=None``: each
        value beside its query's id, in the order of :attr:`query_ids`
        (``nan`` for a query left out of the mean, ``weight`` 1).
    query_ids : ndarray
        The evaluated queries' ids (strings), sorted as trec_eval sorts them.
    name : str or None
        The run's name: its file's last column (the run tag), when known.
    n_without_relevant : int
        How many evaluated queries have no relevant document. They score 0
        and count in the means of trec_eval's measures (and of skrank's
        names under the default ``no_relevant="zero"``), where
        :func:`skrank.evaluate` leaves them out by default.

    Examples
    --------
    >>> from skrank import evaluate_run
    >>> result = evaluate_run({"q1": {"d1": 1}, "q2": {"d2": 1}},
    ...                       {"q1": {"d1": 2.0, "d3": 1.0}, "q2": {"d3": 1.0}},
    ...                       ["recip_rank", "num_rel_ret"])
    >>> result.mean                    # num_rel_ret: a sum, as trec_eval's "all"
    {'recip_rank': 0.5, 'num_rel_ret': 1.0}
    >>> result.per_query["recip_rank"]
    QueryValues(query_id=array(['q1', 'q2'], dtype=object), value=array([1., 0.]), weight=array([1., 1.]))
    >>> result.to_frame()           # doctest: +SKIP
              recip_rank  num_rel_ret
    query_id
    q1               1.0          1.0
    q2               0.0          0.0
    """

    mean: dict
    per_query: dict
    query_ids: np.ndarray
    name: str | None = None
    summed: tuple = field(default=(), repr=False)
    n_without_relevant: int = 0

    def to_frame(self):
        """Per-query values as a pandas DataFrame (index: query id; needs pandas)."""
        from .._core._optional import import_optional

        pd = import_optional("pandas", "RunEvaluation.to_frame()")

        return pd.DataFrame({name: values.value for name, values in self.per_query.items()},
                            index=pd.Index(self.query_ids, name="query_id"))

    def __repr__(self):
        means = ", ".join(f"{k}={v:.4f}" for k, v in self.mean.items())
        return f"RunEvaluation({len(self.query_ids)} queries: {means})"


# --------------------------------------------------------------- inputs --

_COLUMNS = {
    "query_id": ("query_id", "qid", "query", "q_id"),
    "doc_id": ("doc_id", "docno", "docid", "doc", "doc_no"),
    "qrels": ("relevance", "rel", "label", "judgment", "grade"),
    "run": ("score", "sim", "similarity"),
}


def _column(frame, what, argument):
    for name in _COLUMNS[what]:
        if name in frame.columns:
            return frame[name]
    raise ValueError(
        f"`{argument}` has no {what.replace('qrels', 'relevance').replace('run', 'score')} "
        f"column: name one of {', '.join(_COLUMNS[what])} (it has "
        f"{', '.join(map(str, frame.columns))})."
    )


def _missing_id(values):
    """Index of the first missing id (None, NaN, pandas NA), -1 if none."""
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v) or type(v).__name__ in (
            "NAType", "NaTType"
        ):
            return i
    return -1


def _ids_of(frame, what, argument):
    """A DataFrame's id column as strings; a missing id is an error naming its row."""
    column = _column(frame, what, argument)
    values = np.asarray(column, dtype=object)
    bad = _missing_id(values)
    if bad >= 0:
        label = frame.index[bad] if hasattr(frame, "index") else bad
        raise ValueError(
            f"`{argument}` has a missing {what} (row {label!r}: {values[bad]!r}); "
            f"every line needs its {what}: drop or fill those rows first."
        )
    return [str(v) for v in values]


def _as_table(value, kind, argument, compat=None):
    """A path, a DataFrame or a dict of dicts as a :class:`_Table`."""
    if isinstance(value, _Table):
        return value
    if isinstance(value, (str, os.PathLike)):
        return _load_file(value, kind, compat)
    number_name = FORMATS[kind][0]
    if isinstance(value, dict):
        queries, docs, values = [], [], []
        for qid, docs_of_query in value.items():
            if not isinstance(docs_of_query, dict):
                raise ValueError(
                    f"`{argument}` as a dict must map each query id to a dict "
                    f"{{doc_id: {number_name}}}; query {qid!r} maps to a "
                    f"{type(docs_of_query).__name__}."
                )
            for doc, number in docs_of_query.items():
                queries.append(str(qid))
                docs.append(str(doc))
                values.append(number)
        try:
            numbers = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"`{argument}`: every {number_name} must be a number.") from None
        table = _from_strings(queries, docs, numbers, source=argument)
    elif hasattr(value, "columns"):
        queries = _ids_of(value, "query_id", argument)
        docs = _ids_of(value, "doc_id", argument)
        column = _column(value, kind, argument)  # names the missing column
        try:
            numbers = np.asarray(column, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"`{argument}`: every {number_name} (column {column.name!r}) must be a number."
            ) from None
        table = _from_strings(queries, docs, numbers, source=argument)
    else:
        raise ValueError(
            f"`{argument}` must be a path to a TREC {kind} file, a pandas DataFrame "
            f"or a dict of dicts, got {type(value).__name__}."
        )
    if np.isnan(table.value).any() or (kind == "run" and np.isinf(table.value).any()):
        raise ValueError(f"`{argument}` has a {number_name} that is NaN or infinite.")
    return table


def _indexer(labels, targets):
    """For each target label, its index in ``labels`` (-1 if absent)."""
    try:
        if len(labels) + len(targets) < 200_000:  # a dict is quick; spare pandas' import
            raise ImportError
        import pandas as pd
    except ImportError:
        lookup = {label: i for i, label in enumerate(labels)}
        return np.fromiter((lookup.get(t, -1) for t in targets), dtype=np.int64,
                           count=len(targets))
    return pd.Index(labels).get_indexer(targets).astype(np.int64)


def _run_queries(qrels, run):
    """Each run line's query among the qrels' queries (-1: the qrels lack it).

    A run-length array, so int32 where the number of queries allows it.
    """
    return _label_queries(qrels, run)[run.query]


def _label_queries(qrels, run):
    """Each of the run's query labels' index among the qrels' queries (-1: absent)."""
    lookup = _indexer(qrels.query_labels, run.query_labels)
    return lookup.astype(np.int32) if qrels.query_labels.shape[0] < 2**31 else lookup


def _first_duplicate(keys):
    """Index of a key that occurs twice (-1 if all are distinct)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = np.flatnonzero(sorted_keys[1:] == sorted_keys[:-1])
    return -1 if same.shape[0] == 0 else int(order[same[0] + 1])


def _unaligned_words(data):
    """A view of ``data`` (uint8) as the little-endian uint64 starting at each byte."""
    return np.ndarray((data.shape[0] - 7,), dtype="<u8", buffer=data, strides=(1,))


def _id_words(docs):
    """Each id's bytes as little-endian uint64 words (zero past its end), and its length.

    ``docs`` is a pyarrow string or binary array. The words are read from
    its own buffers, 8 bytes at each id's start, and masked to the id's
    length: no padded copy of the strings is made. Equal (words, length)
    rows are equal ids, byte for byte. None when an id is longer than 64
    bytes (too wide a matrix).
    """
    import pyarrow as pa

    large = pa.types.is_large_string(docs.type) or pa.types.is_large_binary(docs.type)
    buffers = docs.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64 if large else np.int32)
    offsets = offsets[docs.offset:docs.offset + len(docs) + 1].astype(np.int64)
    start = offsets[:-1]
    lengths = np.diff(offsets)
    longest = int(lengths.max(initial=0))
    if longest > 64:
        return None
    n_words = max((longest + 7) // 8, 1)
    data = (np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None
            else np.zeros(0, dtype=np.uint8))
    size = data.shape[0]
    # the buffer's last bytes, followed by zeros: a word that would run past
    # the end of the buffer is read from this copy
    tail_start = max(size - 8 * n_words - 8, 0)
    tail = np.zeros(size - tail_start + 8 * n_words + 8, dtype=np.uint8)
    tail[:size - tail_start] = data[tail_start:]
    tail = _unaligned_words(tail)
    body = _unaligned_words(data) if size >= 8 else None
    words = np.empty((start.shape[0], n_words), dtype=np.uint64)
    every = np.uint64(0xFFFFFFFFFFFFFFFF)
    for k in range(n_words):
        at = start + 8 * k
        word = (body[np.minimum(at, size - 8)] if body is not None
                else np.zeros(at.shape[0], dtype=np.uint64))
        late = np.flatnonzero(at > size - 8)
        word[late] = tail[at[late] - tail_start]
        kept_bits = (np.clip(lengths - 8 * k, 0, 8) * 8).astype(np.uint64)
        word &= ~np.left_shift(every, kept_bits)  # a shift by 64 gives 0: all kept
        words[:, k] = word
    return words, lengths


def _repeated_rows(values, starts=None):
    """The rows (ascending) whose uint64 value occurs more than once.

    Only the values' top 32 bits are sorted (a narrower sort, about half
    the time); the few rows whose top bits repeat are then compared whole.
    With ``starts`` (the first rows of runs that no repeated value spans,
    such as the lines of one query each) each run is sorted on its own:
    small sorts that stay in the CPU's cache.
    """
    top = (values >> np.uint64(32)).astype(np.uint32)
    if starts is None:
        ordered = np.sort(top)
    else:
        ordered = top.copy()
        sort_each_run(ordered, starts)
        # neighbours across two runs may be equal: they are only candidates
    repeated_top = ordered[1:][ordered[1:] == ordered[:-1]]
    if repeated_top.shape[0] == 0:
        return repeated_top.astype(np.intp)
    del ordered
    rows = np.flatnonzero(np.isin(top, repeated_top))
    values = values[rows]
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    same = np.flatnonzero(ordered[1:] == ordered[:-1])
    repeated = np.zeros(values.shape[0], dtype=bool)
    repeated[order[same]] = repeated[order[same + 1]] = True
    return rows[repeated]


def _first_duplicate_arrow(query, docs, rows=None):
    """A row repeating an earlier (query, id) pair, from hashed id words; -1 if none.

    ``docs`` is a pyarrow string array; ``rows`` (optional) the row of each
    line's id in it, for lines scattered through a larger run (they are
    taken out first: pyarrow copies them faster than words can be gathered
    from all over the larger buffers). A 64-bit hash of each line's query
    and id words is computed; only lines of repeated hashes are then
    compared exactly, so a collision is never taken for a duplicate.
    """
    if rows is not None:
        docs = arrow_call("take", docs, index_array(rows))
    docs = one_array(docs)  # a piece of a chunked run: a copy of its ids only
    found = _id_words(docs)
    if found is None:  # an id over 64 bytes: exact codes from a hash table
        codes = np.asarray(arrow_call("dictionary_encode", docs).indices, dtype=np.int64)
        return _first_duplicate(query * (int(codes.max(initial=0)) + 1) + codes)
    words, lengths = found
    mixed = hash_words(words, seed=query)
    runs = _key_runs(query)  # each query's lines together: a duplicate stays in its run
    group = _repeated_rows(mixed, None if runs is None else runs[0])
    if group.shape[0] == 0:
        return -1
    # those lines by (hash, query, length, words): equal lines become
    # neighbours even where other ids share their hash
    keys = [words[group, j] for j in range(words.shape[1] - 1, -1, -1)]
    group = group[np.lexsort(keys + [lengths[group], query[group], mixed[group]])]
    a, b = group[:-1], group[1:]
    equal = ((mixed[a] == mixed[b]) & (query[a] == query[b]) & (lengths[a] == lengths[b])
             & (words[a] == words[b]).all(axis=1))
    return int(b[equal].min()) if equal.any() else -1


def _check_duplicates(table, kind):
    if table.doc_array is not None:
        position = _first_duplicate_arrow(table.query, table.doc_array, table.doc_rows)
    else:
        n_docs = max(table.doc_labels.shape[0], 1)
        position = _first_duplicate(table.query * n_docs + table.doc)
    if position >= 0:
        row = position if table.origin is None else int(table.origin[position])
        where = (f"line {_line_of_row(table.path, kind, row)} of the {kind}"
                 if table.path is not None else f"row {position} of `{table.source}`")
        raise ValueError(
            f"{table.source}: document {table.doc_strings([position])[0]!r} appears "
            f"twice in query {table.query_labels[table.query[position]]!r} "
            f"({where}); trec_eval refuses this too."
        )


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
                return _indexer(qrels.doc_labels, run.doc_strings())
        docs = run.doc_array if run.doc_rows is None else run.take_docs(slice(None))
        present = None
        if 4 * len(qrels) < len(value_set):
            # a piece of the qrels: its own ids make the table that is
            # looked into (built at every call, it costs as many ids)
            if len(qrels) == 0:
                return np.full(len(docs), -1, dtype=dtype)
            present = distinct_sorted(np.sort(qrels.doc))
            value_set = arrow_call("take", value_set, index_array(present))
        index = arrow_call("index_in", docs,
                           options=arrow_options("SetLookupOptions", value_set=value_set))
        width = index.type.bit_width  # buffer views: np.asarray would import pandas
        found = _numeric(index, np.dtype(f"int{width}"), fill=-1).astype(dtype, copy=False)
        if present is not None:
            found = np.where(found >= 0, present[found], -1).astype(dtype, copy=False)
        return found
    return _indexer(qrels.doc_labels, run.doc_labels)[run.doc].astype(dtype, copy=False)


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


def _byte_order(strings):
    """Indices that sort ``strings`` (a sequence of str) as strcmp sorts their bytes.

    Ids read from a file that is not UTF-8 hold surrogate escapes; they
    compare as the bytes they stand for. No fixed-width array: memory grows
    with the ids' total length, not with (count x longest id).
    """
    encoded = [s.encode("utf-8", "surrogateescape") for s in strings]
    try:
        import pyarrow as pa
    except ImportError:
        return np.array(sorted(range(len(encoded)), key=encoded.__getitem__), dtype=np.int64)
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    # built from buffers: pa.array would import pandas
    return _binary_order(pa.Array.from_buffers(pa.large_binary(), len(encoded), [
        None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]))


def _binary_order(array):
    """Indices that sort a pyarrow binary array as memcmp (and strcmp) sorts bytes."""
    return _numeric(arrow_call("sort_indices", array), np.uint64).astype(np.int64)


def _rank(order):
    """Each position's rank, from the indices that sort them."""
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    return rank


def _sorted_label_rank(labels):
    """Rank of each label in sorted (byte-wise, as strcmp) order."""
    return _rank(_byte_order(labels))


def _doc_byte_rank(table, rows):
    """Each of ``rows``' document ids' rank among them, in strcmp's (byte) order.

    A run read by pyarrow has its ids in one string array: their UTF-8 bytes
    are sorted as binary, with no Python string made per id.
    """
    if table.doc_array is None:
        return _sorted_label_rank(table.doc_strings(rows))
    import pyarrow as pa

    taken = one_array(table.take_docs(rows))
    return _rank(_binary_order(taken.view(
        pa.large_binary() if pa.types.is_large_string(taken.type) else pa.binary())))


def _by_query_then_score(query, score):
    """Rows by query, then score descending: one argsort of packed keys if they fit."""
    packed = _packed_order(score, query) if query.shape[0] > 1 else None
    return np.lexsort((-score, query)) if packed is None else packed[0]


def _trec_order(query, score, doc_rank):
    """Rows by (query, score descending, document id descending): trec_eval's order.

    One argsort of packed keys; only the runs of tied scores look at the
    document ids (``doc_rank(rows)`` ranks those rows' ids, as strcmp orders
    them). Returns the order and ``query`` and ``score`` in it (reordering
    inside a tie leaves both unchanged).
    """
    order = _by_query_then_score(query, score)
    q = query[order]
    s = score[order]
    tied = np.flatnonzero((q[1:] == q[:-1]) & (s[1:] == s[:-1]))
    # each run of tied rows by document id, descending
    sort_runs(order, tied, lambda rows: -doc_rank(order[rows]))
    return order, q, s


class _Background:
    """``func(*args)`` in a thread; ``result()`` waits, returns its value or re-raises.

    For numpy and pyarrow work that releases the GIL: it uses the second core.
    """

    def __init__(self, func, *args):
        import threading

        self._error = self._value = None

        def work():
            try:
                self._value = func(*args)
            except BaseException as exc:  # re-raised in the caller's thread
                self._error = exc

        self._thread = threading.Thread(target=work, daemon=True)
        self._thread.start()

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


@dataclass
class _Parts:
    binary: RankedQueries
    graded: RankedQueries
    judged: np.ndarray
    # the run's duplicate check, still running: ``checked()`` raises on a
    # duplicate; it finishes while the piece is measured
    run_check: object = None

    def checked(self):
        if self.run_check is not None:
            self.run_check.result()
            self.run_check = None


def _query_order(qrels):
    """``(rank, labels_sorted)``: each qrels query's rank in strcmp order, and the labels in it."""
    rank = _sorted_label_rank(qrels.query_labels)
    return rank, qrels.query_labels[np.argsort(rank)]


def _no_shared_query(qrels, run):
    return ValueError(
        f"{run.source} and {qrels.source} share no query id: the qrels hold "
        f"{qrels.query_labels[0]!r}, ... and the run holds {run.query_labels[0]!r}, ... "
        "(ids compare as text: '301' is not 'q301', and '1' is not '1.0'); "
        "pass complete_qrels=True (-c) to score every qrels query anyway."
    )


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


def _layout(qrels, run, *, relevance_level, complete_qrels, judged_docs_only,
            max_docs, compat, ties, query_order=None, run_query=None):
    """Join qrels and run; the shared layout with unretrieved judged rows at -inf.

    As trec_eval: a document is relevant when it is judged with a grade at
    or above ``relevance_level`` and not below 0; a negative judgment counts
    as not judged; ``max_docs`` keeps the best ranked documents first, and
    ``judged_docs_only`` then drops the unjudged ones among them; a query
    with run lines is evaluated even when none of them is kept.

    ``query_order`` (from :func:`_query_order`) and ``run_query`` (each run
    line's query among the qrels queries) may come from the caller, which
    computes them once for all the pieces of a run.
    """
    _check_duplicates(qrels, "qrels")
    # the run's join with the qrels (lookups and sorts that release the GIL)
    # runs on another thread, beside trec_eval's order of the run, which
    # does not need it; the run's duplicate check starts there once the
    # join is done (the layout waits for the join, not for the check)
    if run_query is None:
        run_query = _run_queries(qrels, run)
    keep = run_query >= 0  # trec_eval drops run queries the qrels lack
    joining = _Background(_qrels_rows, run, qrels, run_query, keep)
    rows = np.flatnonzero(keep)
    if rows.shape[0] == 0 and not complete_qrels:
        _check_duplicates(run, "run")
        raise _no_shared_query(qrels, run)
    query_rank, labels_sorted = query_order or _query_order(qrels)
    run_qkey = query_rank[run_query[rows]]
    score = run.value[rows]
    # the queries with lines in the run, before -M and -J keep fewer
    has_lines = np.zeros(qrels.query_labels.shape[0], dtype=bool)
    has_lines[run_qkey] = True  # by query rank: no sort needed

    if compat == "trec_eval":
        order, run_qkey, score = _trec_order(
            run_qkey, score, lambda i, rows=rows: _doc_byte_rank(run, rows[i]))
        rows = rows[order]
        if max_docs is not None:
            run_qkey, score, rows = _truncate(run_qkey, score, rows, max_docs,
                                              "input", labels_sorted)
    elif max_docs is not None:
        order = _by_query_then_score(run_qkey, score)
        run_qkey, score, rows = _truncate(run_qkey[order], score[order], rows[order],
                                          max_docs, ties, labels_sorted)
        back = np.argsort(rows, kind="stable")  # input order again: ties="input" keeps it
        run_qkey, score, rows = run_qkey[back], score[back], rows[back]
    all_qrels_row = joining.result()
    run_check = _Background(_check_duplicates, run, "run")
    qrels_row = all_qrels_row[rows]
    # row-length arrays are let go as soon as they are used: a smaller peak
    del all_qrels_row, keep, run_query, joining
    grade = np.where(qrels_row >= 0, qrels.value[np.maximum(qrels_row, 0)], 0.0)
    judged = (qrels_row >= 0) & (grade >= 0)  # a negative judgment: in the pool, unjudged
    if judged_docs_only:
        run_qkey, score, grade, judged, qrels_row = (
            run_qkey[judged], score[judged], grade[judged], judged[judged], qrels_row[judged])
    del rows
    # judged rows the (kept) run did not retrieve, for the evaluated queries
    unretrieved = qrels.value >= 0
    unretrieved[qrels_row[qrels_row >= 0]] = False
    if complete_qrels:  # every query of these qrels lines
        evaluated = np.zeros(qrels.query_labels.shape[0], dtype=bool)
        evaluated[qrels.query] = True
    else:
        evaluated = has_lines[query_rank]
    unretrieved &= evaluated[qrels.query]
    missing = np.flatnonzero(unretrieved)
    # an evaluated query with no row left (-J kept none, nothing judged):
    # one placeholder row, not relevant and not retrieved, so that it scores
    # 0 and counts in the mean, as in trec_eval
    present = np.zeros(qrels.query_labels.shape[0], dtype=bool)
    present[run_qkey] = True
    present[query_rank[qrels.query[missing]]] = True
    empty = np.flatnonzero(evaluated & ~present[query_rank])  # qrels query indices

    grade = np.concatenate([grade, qrels.value[missing], np.zeros(empty.shape[0])])
    judged = np.concatenate([judged, np.ones(missing.shape[0], dtype=bool),
                             np.zeros(empty.shape[0], dtype=bool)])
    qkey = np.concatenate([run_qkey, query_rank[qrels.query[missing]], query_rank[empty]])
    all_score = np.concatenate([score, np.full(missing.shape[0] + empty.shape[0], -np.inf)])
    del qrels_row, run_qkey, score, missing
    binary = (judged & (grade >= relevance_level)).astype(np.float64)

    if compat == "trec_eval":
        # rows are in their final order already: merge by query, no second sort
        order = np.argsort(qkey, kind="stable")
        qkey, all_score, binary = qkey[order], all_score[order], binary[order]
        new = np.r_[True, qkey[1:] != qkey[:-1]]
        query_start = np.flatnonzero(new)
        retrieved = all_score != -np.inf
        ranked = RankedQueries(
            relevance=binary,
            query=np.cumsum(new) - 1,
            query_start=query_start,
            block_start=np.arange(qkey.shape[0]),
            query_ids=labels_sorted[qkey[query_start]],
            order=order,
            row_weight=None,
            score=all_score,
            retrieved=None if retrieved.all() else retrieved,
        )
    else:
        ranked = rank_queries(binary, all_score, query_id=qkey, ties=ties)
        ranked = replace(ranked, query_ids=labels_sorted[ranked.query_ids])
    ranked.rank  # computed once, shared by the graded layouts below
    graded = ranked.with_relevance(np.where(judged, np.maximum(grade, 0.0), 0.0)[ranked.order])
    return _Parts(ranked, graded, judged[ranked.order].astype(np.float64), run_check)


#: run lines per piece of whole queries that evaluate_run lays out at a time
CHUNK_LINES = 1 << 17


def _take(table, rows):
    """The lines ``rows`` (ascending) of ``table``, as a table sharing its labels.

    Consecutive lines (a piece of a run grouped by query) are slices: views
    that copy nothing. Scattered lines keep the whole run's document ids and
    the row of each line's id in them.
    """
    doc_array, doc_rows = table.doc_array, None
    if rows.shape[0] and int(rows[-1]) - int(rows[0]) + 1 == rows.shape[0]:
        rows = slice(int(rows[0]), int(rows[-1]) + 1)
        origin = np.arange(rows.start, rows.stop) if table.origin is None \
            else table.origin[rows]
        if doc_array is not None and table.doc_rows is None:
            doc_array = doc_array.slice(rows.start, rows.stop - rows.start)
    else:
        origin = rows if table.origin is None else table.origin[rows]
    if doc_array is not None and (table.doc_rows is not None or isinstance(rows, np.ndarray)):
        doc_rows = rows if table.doc_rows is None else table.doc_rows[rows]
    return replace(
        table, query=table.query[rows], value=table.value[rows],
        doc=None if table.doc is None else table.doc[rows], doc_array=doc_array,
        doc_rows=doc_rows, origin=origin,
        qrels_doc=None if table.qrels_doc is None else table.qrels_doc[rows],
    )


def _pieces(qrels, run, *, complete_qrels):
    """``(pieces, in_file_order)``: ``(qrels, run, query_order, run_query)`` of whole queries.

    A run of many lines is laid out and measured a piece at a time: the
    layout's dozen row-length arrays then exist for one piece only, not for
    the whole run, which bounds the peak memory. Queries are independent,
    so the per-query values of the pieces are those of one layout. A run
    whose lines come grouped by query (in any order of the queries) is cut
    in file order, into ranges of lines that copy nothing; then
    ``in_file_order`` is True and the caller puts the queries in trec_eval's
    order. Any other run is cut in trec_eval's order of queries, each piece
    taking its lines from all over the run.
    """
    run_query = _run_queries(qrels, run)
    if not complete_qrels and not (run_query >= 0).any():
        raise _no_shared_query(qrels, run)
    order = _query_order(qrels)
    if len(run) <= CHUNK_LINES:
        return iter([(qrels, run, order, run_query)]), False
    # each query's lines together: each piece's documents are then looked
    # up among its own qrels' documents, on the thread that joins the piece
    # with its qrels
    if grouped_by_query(run.query):
        return _file_pieces(qrels, run, order, run_query, complete_qrels), True
    # else each line's document among the qrels' documents, looked up once
    # for the whole run (one hash table of the qrels' ids, not one per
    # piece): the pieces take their lines from all over the run
    doc_dtype = np.int32 if qrels.doc_labels.shape[0] < 2**31 else np.int64
    run = replace(run, qrels_doc=_run_docs_in_qrels(run, qrels, doc_dtype))
    return _rank_pieces(qrels, run, order, run_query, complete_qrels), False


def _qrels_pieces(qrels, piece_of_query, n_pieces):
    """The qrels lines (indices) of each piece, from each qrels query's piece."""
    qrels_piece = piece_of_query[qrels.query]
    qrels_order = np.argsort(qrels_piece, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(qrels_piece, minlength=n_pieces + 1))]
    return [qrels_order[bounds[i]:bounds[i + 1]] for i in range(n_pieces + 1)]


def _file_pieces(qrels, run, order, run_query, complete_qrels):
    """Pieces of a run grouped by query: ranges of about CHUNK_LINES lines, cut between queries.

    The qrels queries without a line in the run come last, in a piece of
    their own, when ``complete_qrels`` scores them.
    """
    n_lines = len(run)
    start = np.flatnonzero(np.r_[True, run.query[1:] != run.query[:-1]])  # each query's
    cuts = start[np.searchsorted(start, np.arange(CHUNK_LINES, n_lines, CHUNK_LINES))
                 .clip(max=start.shape[0] - 1)]
    bounds = distinct_sorted(np.r_[0, cuts, n_lines])
    n_pieces = bounds.shape[0] - 1
    # each qrels query's piece (n_pieces: no line in the run)
    piece_of_query = np.full(qrels.query_labels.shape[0], n_pieces, dtype=np.int64)
    found = run_query[start] >= 0
    piece_of_query[run_query[start][found]] = (
        np.searchsorted(bounds, start[found], side="right") - 1)
    qrels_rows = _qrels_pieces(qrels, piece_of_query, n_pieces)
    for piece in range(n_pieces):
        lines = slice(int(bounds[piece]), int(bounds[piece + 1]))
        if qrels_rows[piece].shape[0] == 0:
            continue  # only queries the qrels lack: dropped, as trec_eval drops them
        yield (_take(qrels, qrels_rows[piece]), _take(run, np.arange(lines.start, lines.stop)),
               order, run_query[lines])
    if complete_qrels and qrels_rows[n_pieces].shape[0]:
        yield (_take(qrels, qrels_rows[n_pieces]), _take(run, np.zeros(0, dtype=np.int64)),
               order, np.zeros(0, dtype=run_query.dtype))


def _rank_pieces(qrels, run, order, run_query, complete_qrels):
    """Pieces of any run, in trec_eval's order of queries: about CHUNK_LINES lines each."""
    query_rank = order[0]
    n_queries = qrels.query_labels.shape[0]
    # run lines per query, in query-rank order (index 0: dropped lines),
    # counted per label of the run (a bincount of its own codes needs no cast)
    lines = np.bincount(_label_queries(qrels, run) + 1, minlength=n_queries + 1,
                        weights=np.bincount(run.query, minlength=run.query_labels.shape[0]))
    lines = lines.astype(np.int64)
    by_rank = np.empty(n_queries, dtype=np.int64)
    by_rank[query_rank] = lines[1:]
    run_end = np.cumsum(by_rank)
    # query ranks at which a piece ends: about CHUNK_LINES run lines each
    targets = np.arange(CHUNK_LINES, run_end[-1], CHUNK_LINES)
    ends = distinct_sorted(np.r_[np.searchsorted(run_end, targets), n_queries - 1] + 1)
    n_pieces = ends.shape[0]
    width = np.uint8 if n_pieces < 255 else np.uint16 if n_pieces < 65535 else np.int64
    # each query's piece (index -1: a query the qrels lack, one past the last)
    piece_of_query = np.append(
        np.searchsorted(ends, query_rank, side="right"), n_pieces
    ).astype(width)
    # each line's piece; a stable sort of small integers is a radix sort,
    # and keeps file order inside each piece
    run_order = np.argsort(piece_of_query[run_query], kind="stable")
    # the lines of each piece, then the dropped ones
    run_bounds = np.r_[0, run_end[ends - 1], run_end[-1] + lines[0]]
    # the pieces' ids are taken from all over the run, which pyarrow does
    # from one array (across chunks it joins them at every take): the
    # reader has joined the ids of a run that is not grouped_by_query
    # already, so this only guards tables made elsewhere
    run = replace(run, doc_array=one_array(run.doc_array))
    qrels_rows = _qrels_pieces(qrels, piece_of_query[:-1], n_pieces)
    for piece in range(n_pieces):
        run_rows = run_order[run_bounds[piece]:run_bounds[piece + 1]]
        if run_rows.shape[0] or complete_qrels:
            yield (_take(qrels, qrels_rows[piece]), _take(run, run_rows), order,
                   run_query[run_rows])


# ---------------------------------------------------------------- entry --

def _mean(values, *, sequential):
    """Mean of ``values`` (nan if empty).

    ``sequential``: added one after the other in the given order, as
    trec_eval adds its per-query values (in its query order) before dividing
    by their count; a pairwise sum can differ in the last bit, which moves a
    mean that falls on a rounding boundary of trec_eval's 4 printed decimals.
    """
    if values.shape[0] == 0:
        return float("nan")
    if sequential:
        return float(np.cumsum(values)[-1] / values.shape[0])
    return float(values.mean())


@validate_params({
    "compat": COMPAT, "relevance_level": REAL,
    "complete_qrels": FLAG, "judged_docs_only": FLAG, "max_docs": CUTOFF,
    "ties": choice(*TIES), "no_relevant": choice("zero", "skip", "one"),
})
def evaluate_run(
    qrels,
    run,
    metrics=DEFAULT_MEASURES,
    *,
    compat=None,
    relevance_level=1,
    complete_qrels=False,
    judged_docs_only=False,
    max_docs=None,
    ties="average",
    no_relevant="zero",
):
    """Evaluate a TREC run against qrels: the mean and per-query value of each measure.

    Parameters
    ----------
    qrels : str, path-like, pandas.DataFrame or dict
        Relevance judgments: a TREC qrels file (``query_id iteration doc_id
        relevance``, gzip too), a DataFrame with columns ``query_id``,
        ``doc_id``, ``relevance`` (``qid``/``docno``/``rel`` are recognised
        too), or ``{query_id: {doc_id: relevance}}`` as pytrec_eval, ranx
        and ir_measures take them.
    run : str, path-like, pandas.DataFrame or dict
        A system's results: a TREC run file (``query_id Q0 doc_id rank
        score tag``), a DataFrame with ``query_id``, ``doc_id``, ``score``,
        or ``{query_id: {doc_id: score}}``. Documents rank by score.
    metrics : str or list of str, default=("map", "ndcg", "P_10", "recall_100")
        trec_eval's names as it prints them (``num_ret``, ``num_rel``,
        ``num_rel_ret``, ``map``, ``P_10``, ``recall_10``, ``ndcg``,
        ``ndcg_cut_10``, ``map_cut_10``, ``Rprec``, ``bpref``,
        ``recip_rank``, ``success_10``, ``iprec_at_recall_0.10``), its
        ``-m`` forms (``P.5,10``; ``P`` alone for its default cutoffs), or
        skrank metric names (``ndcg@10``, ``mrr``, ``fap``, ...). Under
        ``compat="trec_eval"`` a skrank name is trec_eval's measure
        (``ndcg@10`` is ``ndcg_cut_10``, ``hits`` is ``num_rel_ret``), and a
        metric trec_eval lacks is refused; without ``compat`` each name
        keeps its own definition.
    compat : str, default=None
        ``"trec_eval"`` reproduces trec_eval 10.0: tied scores broken by
        document id, descending, and trec_eval's rule for queries without a
        relevant document (0, kept in the mean). None: skrank's
        conventions, ``ties`` as given. Another preset of
        :func:`~skrank.describe_convention` (``"lightgbm"``, ``"ranx"``,
        ...) scores the run's lines (the retrieved documents, in file order,
        each labelled with its judgment, 0 when unjudged or below
        ``relevance_level``) with :func:`~skrank.evaluate` under that
        preset: ``metrics`` are then skrank's or the peer's names, and
        ``ties`` and ``no_relevant`` given explicitly win over the preset.
    relevance_level : float, default=1
        Judgments at or above it are relevant (trec_eval ``-l``). nDCG's
        gains are the grades themselves, as in trec_eval.
    complete_qrels : bool, default=False
        Evaluate every qrels query, a query the run lacks scoring 0
        (trec_eval ``-c``). By default only the queries of both are
        evaluated. Run queries absent from the qrels are always dropped.
    judged_docs_only : bool, default=False
        Drop the retrieved documents the qrels do not judge before ranking
        (trec_eval ``-J``).
    max_docs : int, default=None
        Keep at most this many documents per query, the best ranked
        (trec_eval ``-M``). None keeps all, as trec_eval 10.0 does by
        default (its ``max_num_docs_per_topic`` is ``MAXLONG``); TREC runs
        conventionally hold 1000.
    ties : {"average", "input", "pessimistic", "optimistic"}, default="average"
        With ``compat=None``: the expected value over the orders of tied
        scores, the input order, or the lower (higher) grade first. Ignored
        with ``compat="trec_eval"``; with another preset, the preset's
        unless given.
    no_relevant : {"zero", "skip", "one"}, default="zero"
        What a query without a relevant document scores in the skrank
        metrics: 0 and kept in the mean (trec_eval, ranx), left out, or 1.
        trec_eval names always follow trec_eval (0); a skrank name follows
        this option, under ``compat="trec_eval"`` too.
        This default differs from :func:`skrank.evaluate`'s
        (``no_relevant="skip"``), so the two give different means on the
        same rows when some query has no relevant document: pass the
        same ``no_relevant`` to both to compare them. :attr:`RunEvaluation.n_without_relevant`
        counts such queries.

    Returns
    -------
    result : RunEvaluation
        ``result.mean[name]`` and ``result.per_query[name]`` (one value per
        query of ``result.query_ids``).

    Notes
    -----
    Judged documents the run did not retrieve count in R, the ideal DCG,
    recall, R-precision and bpref, as in trec_eval: they become rows with
    ``y_score=-inf``, skrank's mark for "judged, not retrieved".

    Examples
    --------
    >>> from skrank import evaluate_run
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}, "q2": {"d4": 2}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d5": 0.1}, "q2": {"d4": 1.0}}
    >>> result = evaluate_run(qrels, run, ["map", "P_2", "num_rel"],
    ...                       compat="trec_eval")
    >>> result.mean                  # q1: AP 1/2 (d3 not retrieved), P@2 1/2
    {'map': 0.75, 'P_2': 0.5, 'num_rel': 3.0}
    >>> result.per_query["map"].value   # per query, beside .query_id
    array([0.5, 1. ])
    """
    if compat not in (None, "trec_eval"):
        _check_preset_run_options(compat, complete_qrels, judged_docs_only, max_docs)
        explicit = _explicit_run_options(ties, no_relevant)
        return _evaluate_run_preset(qrels, run, metrics, compat, relevance_level,
                                    explicit)
    return _evaluate_run(
        qrels, run, metrics, compat=compat, relevance_level=relevance_level,
        complete_qrels=complete_qrels, judged_docs_only=judged_docs_only,
        max_docs=max_docs, ties=ties, no_relevant=no_relevant,
    )


def _explicit_run_options(ties, no_relevant):
    """The options a preset must not override: those not at evaluate_run's defaults."""
    explicit = {}
    if ties != "average":
        explicit["ties"] = ties
    if no_relevant != "zero":
        explicit["no_relevant"] = no_relevant
    return explicit


def _check_preset_run_options(compat, complete_qrels, judged_docs_only, max_docs):
    """trec_eval's -c, -J and -M have no meaning for another peer: refused."""
    given = [flag for flag, on in (("complete_qrels (-c)", complete_qrels),
                                   ("judged_docs_only (-J)", judged_docs_only),
                                   ("max_docs (-M)", max_docs is not None)) if on]
    if given:
        raise ValueError(
            f"{', '.join(given)}: trec_eval's options, which compat={compat!r} does "
            "not take (it scores the run's lines as they are); use "
            "compat='trec_eval' or None."
        )


def run_rows(qrels, run, relevance_level=1):
    """``(y_true, y_score, query_id, tag)``: a run's lines as rows, labelled by the qrels.

    Rows are the run's lines of the queries the qrels hold, in file order;
    ``y_true`` is the line's judgment (0 when unjudged, negative or below
    ``relevance_level``).
    """
    qrels = _as_table(qrels, "qrels", "qrels")
    run = _as_table(run, "run", "run")
    run_query = _run_queries(qrels, run)
    keep = run_query >= 0  # as trec_eval: run queries the qrels lack are dropped
    if not keep.any():
        raise _no_shared_query(qrels, run)
    qrels_row = _qrels_rows(run, qrels, run_query, keep)
    rows = np.flatnonzero(keep)
    judged = qrels_row[rows]
    grade = np.where(judged >= 0, qrels.value[np.maximum(judged, 0)], 0.0)
    y_true = np.where(grade >= relevance_level, grade, 0.0)
    return y_true, run.value[rows], run.query_labels[run.query[rows]], run.tag


def _evaluate_run_preset(qrels, run, metrics, compat, relevance_level, explicit):
    """A run scored as a peer scores it: its lines as rows, through ``evaluate``."""
    from ..metrics._evaluate import evaluate

    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    y_true, y_score, query_id, tag = run_rows(qrels, run, relevance_level)
    options = dict(query_id=query_id, metrics=metrics, compat=compat, **explicit)
    per_query = evaluate(y_true, y_score, aggregate=None, **options)
    mean = evaluate(y_true, y_score, **options)
    query_ids = next(iter(per_query.values())).query_id
    _, codes = np.unique(query_id, return_inverse=True)
    n_without = int((np.bincount(codes, weights=y_true > 0) == 0).sum())
    return RunEvaluation(mean, per_query, query_ids, name=tag,
                         n_without_relevant=n_without)


def _evaluate_run(qrels, run, metrics, *, compat, relevance_level, complete_qrels,
                  judged_docs_only, max_docs, ties, no_relevant, stream=False):
    """:func:`evaluate_run`'s work; ``stream`` reads a run file grouped by query in pieces."""
    measures = list({m.name: m for m in parse_measures(metrics, compat)}.values())
    qrels = _as_table(qrels, "qrels", "qrels", compat)
    if compat == "trec_eval":
        relevance_level = float(int(relevance_level))  # trec_eval reads -l with atol
    if len(qrels) == 0:
        raise ValueError(f"{qrels.source}: the qrels hold no judgment.")
    options = dict(relevance_level=relevance_level, complete_qrels=complete_qrels,
                   judged_docs_only=judged_docs_only, max_docs=max_docs, compat=compat,
                   ties=ties)
    if stream:
        from ._stream import NotStreamable, stream_pieces

        pieces = stream_pieces(qrels, run, complete_qrels=complete_qrels)
        if pieces is not None:
            try:
                return _measure(pieces, measures, options, no_relevant, pieces.tag,
                                in_file_order=True)
            except NotStreamable:  # read whole: grouped or not, the same numbers
                pass
    run_table = _as_table(run, "run", "run", compat)
    if len(run_table) == 0:
        raise ValueError(f"{run_table.source}: the run holds no retrieved document.")
    pieces, in_file_order = _pieces(qrels, run_table, complete_qrels=complete_qrels)
    tag = run_table.tag
    del run_table  # the pieces hold the run now: what they let go of is freed
    return _measure(pieces, measures, options, no_relevant, tag, in_file_order=in_file_order)


def _measure(pieces, measures, options, no_relevant, tag, *, in_file_order):
    """Lay out and measure each piece; the per-query values in trec_eval's order, the means."""
    values_of = {name: [] for name, *_ in measures}
    query_ids, n_without_relevant = [], 0
    for qrels_piece, run_piece, query_order, run_query in pieces:
        parts = _layout(qrels_piece, run_piece, query_order=query_order,
                        run_query=run_query, **options)
        del qrels_piece, run_piece
        parts.graded_as_relevance = parts.graded.with_relevance(
            np.where(parts.binary.relevance > 0, parts.graded.relevance, 0.0)
        )
        no_rel = parts.binary.n_relevant == 0
        n_without_relevant += int(no_rel.sum())
        query_ids.append(parts.binary.query_ids)
        for measure in measures:
            # + 0.0: a -0.0 (1 - 1 in a kernel) prints as 0.0000, as trec_eval's
            values = np.asarray(measure.kernel(parts), dtype=np.float64) + 0.0
            if measure.fill:  # a name of skrank's: no_relevant applies
                fill = {"zero": 0.0, "one": 1.0, "skip": np.nan}[no_relevant]
                values = np.where(no_rel, fill, values)
            values_of[measure.name].append(values)
        parts.checked()  # a duplicate document raises here, before any output
        del parts
    query_ids = np.concatenate(query_ids)
    # pieces that come in file order: trec_eval's order is by query id
    order = _byte_order(query_ids) if in_file_order else slice(None)
    query_ids = query_ids[order]
    mean, per_query, summed = {}, {}, []
    for measure in measures:
        name = measure.name
        values = np.concatenate(values_of.pop(name))[order]
        per_query[name] = QueryValues(query_ids, values, np.ones(values.shape[0]))
        kept = values[~np.isnan(values)]
        if measure.summed:
            summed.append(name)
            mean[name] = float(kept.sum())
        else:
            mean[name] = _mean(kept, sequential=measure.trec)
    return RunEvaluation(mean, per_query, query_ids, name=tag,
                         summed=tuple(summed), n_without_relevant=n_without_relevant)
