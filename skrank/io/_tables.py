"""The TREC table type and its verbs: lines as id codes beside their labels.

A :class:`TrecTable` is one file's (or one frame's) lines as query and
document codes beside their labels, with one number per line. Its methods
take lines out of it without copying its labels and find its queries among
another table's; :func:`indexer` looks labels up. The readers
(:mod:`skrank.io._read`) make tables; the join, the pieces and the
measures use them.
"""

from dataclasses import dataclass, replace

import numpy as np

from .._core._factorize import not_utf8
from ._arrow import arrow_call, index_array


@dataclass
class TrecTable:
    """One file's (or one frame's) lines: ids as codes into labels, one value per line.

    What every reader of skrank.io returns (:mod:`skrank.io._read`) and
    what the join, the pieces and the measures take. Labels are numpy
    arrays of str; a run's document ids may stay a pyarrow array.
    """

    query: np.ndarray  # (n,) int64 codes into query_labels
    query_labels: np.ndarray
    doc: np.ndarray  # (n,) int64 codes into doc_labels
    doc_labels: np.ndarray
    value: np.ndarray  # (n,) float64
    source: str = "input"
    tag: str | None = None  # a run's name (its last column), when known
    # the document ids as a pyarrow string array (or chunked array, as the
    # parser left them), one per line; then ``doc`` and ``doc_labels`` are
    # None: a run's millions of ids are never dictionary-encoded (hashing
    # them costs more than all the rest). :func:`~skrank.io._arrow.one_array` joins chunks
    # where one array is needed.
    doc_array: object = None
    # ``doc_labels`` as a pyarrow string array, when the reader had one
    doc_label_array: object = None
    # the file it was read from (None for a DataFrame or a dict): error
    # messages turn a row into the file's line number through it
    path: str | None = None
    # for a piece of a table: each line's row in the whole table
    origin: np.ndarray | None = None
    # a run's lines: each one's document index in the qrels' documents (-1
    # if unjudged), when it was looked up once for the whole run
    qrels_doc: np.ndarray | None = None
    # for a piece of a run whose lines are scattered through it: each line's
    # row in ``doc_array``, which is then the whole run's (no string is
    # copied out for the piece)
    doc_rows: np.ndarray | None = None

    def __len__(self):
        return self.query.shape[0]

    def doc_strings(self, rows=None):
        """The document ids (numpy object array) of ``rows`` (all by default)."""
        if self.doc_array is not None:
            if rows is None and self.doc_rows is None:
                return np.asarray(self.doc_array.to_numpy(zero_copy_only=False), dtype=object)
            if rows is None:
                rows = np.arange(len(self))
            # read with to_pylist: to_numpy would import pandas (0.4 s)
            out = np.empty(len(rows), dtype=object)
            out[:] = self.take_docs(rows).to_pylist()
            return out
        codes = self.doc if rows is None else self.doc[rows]
        return self.doc_labels[codes]

    def take_docs(self, rows):
        """The pyarrow string array of the document ids of ``rows``."""
        if self.doc_rows is not None:
            rows = self.doc_rows[rows]
        return arrow_call("take", self.doc_array, index_array(rows))

    def queries_in(self, qrels):
        """Each line's query among the ``qrels``' queries (-1: the qrels lack it).

        A run-length array, so int32 where the number of queries allows it.
        """
        return self.label_queries_in(qrels)[self.query]

    def label_queries_in(self, qrels):
        """Each query label's index among the ``qrels``' queries (-1: absent)."""
        lookup = indexer(qrels.query_labels, self.query_labels)
        return lookup.astype(np.int32) if qrels.query_labels.shape[0] < 2**31 else lookup

    def take(self, rows):
        """The lines ``rows`` (ascending), as a table sharing this one's labels.

        Consecutive lines (a piece of a run grouped by query) are slices: views
        that copy nothing. Scattered lines keep the whole run's document ids and
        the row of each line's id in them.
        """
        doc_array, doc_rows = self.doc_array, None
        if rows.shape[0] and int(rows[-1]) - int(rows[0]) + 1 == rows.shape[0]:
            rows = slice(int(rows[0]), int(rows[-1]) + 1)
            origin = np.arange(rows.start, rows.stop) if self.origin is None \
                else self.origin[rows]
            if doc_array is not None and self.doc_rows is None:
                doc_array = doc_array.slice(rows.start, rows.stop - rows.start)
        else:
            origin = rows if self.origin is None else self.origin[rows]
        if doc_array is not None and (self.doc_rows is not None or isinstance(rows, np.ndarray)):
            doc_rows = rows if self.doc_rows is None else self.doc_rows[rows]
        return replace(
            self, query=self.query[rows], value=self.value[rows],
            doc=None if self.doc is None else self.doc[rows], doc_array=doc_array,
            doc_rows=doc_rows, origin=origin,
            qrels_doc=None if self.qrels_doc is None else self.qrels_doc[rows],
        )


def indexer(labels, targets):
    """For each target label, its index in ``labels`` (-1 if absent).

    A dict for few labels, and for ids that are not UTF-8, which pandas'
    hash table may merge (see :func:`~skrank._core._factorize.not_utf8`).
    """
    try:
        if len(labels) + len(targets) < 200_000:  # a dict is quick; spare pandas' import
            raise ImportError
        if not_utf8(labels) or not_utf8(targets):
            raise ImportError
        import pandas as pd
    except ImportError:
        lookup = {label: i for i, label in enumerate(labels)}
        return np.fromiter((lookup.get(t, -1) for t in targets), dtype=np.int64,
                           count=len(targets))
    return pd.Index(labels).get_indexer(targets).astype(np.int64)


def no_shared_query(qrels, run):
    """The error for a run and qrels without a query id in common."""
    return ValueError(
        f"{run.source} and {qrels.source} share no query id: the qrels hold "
        f"{qrels.query_labels[0]!r}, ... and the run holds {run.query_labels[0]!r}, ... "
        "(ids compare as text: '301' is not 'q301', and '1' is not '1.0'); "
        "pass complete_qrels=True (-c) to score every qrels query anyway."
    )
