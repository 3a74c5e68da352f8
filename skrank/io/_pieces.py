"""The pieces evaluate_run lays out and measures one at a time: whole queries each.

Three producers yield ``(qrels, run, query_order, run_query)`` pieces:

- :func:`_file_pieces`: a run read whole whose lines come grouped by query,
  cut in file order into ranges of about :data:`CHUNK_LINES` lines;
- :func:`_rank_pieces`: any other run read whole, cut in trec_eval's order
  of queries, each piece taking its lines from all over the run;
- :func:`stream_pieces`: a run file grouped by query, read a block at a
  time (``skrank evaluate --stream``), described below.

The stream: ``skrank evaluate --stream`` (and ``_evaluate_run(stream=True)``) holds one
block of the file and the lines of the query it ends in, not the whole
run: pyarrow's streaming CSV reader yields blocks, the queries a block
completes become one piece, and :func:`skrank.io._join._layout` measures
each piece as it measures the pieces of a run read whole. The per-query
values are sorted into trec_eval's order at the end, so the numbers are
the same as without ``--stream``.

A run that cannot be streamed this way (not a plain file of single-space or
single-tab separated fields, no pyarrow, a query whose lines come back after
another query's, a line pyarrow refuses) is read whole instead: the caller
catches :class:`NotStreamable` and starts again, which also gives a
malformed line its file:line error.
"""

import os
from dataclasses import replace

import numpy as np

from .._core._sort import distinct_sorted
from . import _read
from ._join import _run_docs_in_qrels
from ._arrow import arrow_call, mask_array, numeric, one_array
from ._ids import query_order
from ._read import FORMATS, _first_line, grouped_by_query
from ._scan import _plain_delimiter
from ._tables import TrecTable, indexer, no_shared_query

BLOCK_BYTES = 1 << 22


class NotStreamable(Exception):
    """The run file cannot be read in pieces; read it whole."""


def stream_pieces(qrels, run, *, complete_qrels):
    """``(qrels, run, query_order, run_query)`` pieces of a grouped run file, or None.

    None: the run cannot be streamed (not a path, not a plain file, no pyarrow).
    """
    if not isinstance(run, (str, os.PathLike)):
        return None
    path = os.fspath(run)
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file.")
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        return None
    delimiter = _plain_delimiter(path)
    if delimiter is None:
        return None
    return _Pieces(qrels, path, delimiter, complete_qrels)


class _Pieces:
    """The iterable of pieces; ``tag`` is the run's name once the file is open."""

    def __init__(self, qrels, path, delimiter, complete_qrels):
        self.qrels, self.path, self.delimiter = qrels, path, delimiter
        self.complete_qrels = complete_qrels
        with open(path, "rb") as handle:
            first = _first_line(handle.read(1 << 16))
        self.tag = first.split()[-1].decode("utf-8", "replace") if first.split() else None

    def _reader(self):
        import pyarrow as pa
        import pyarrow.csv as pv

        _, _, columns = FORMATS["run"]
        return pv.open_csv(
            self.path,
            read_options=pv.ReadOptions(column_names=list(columns), block_size=BLOCK_BYTES),
            parse_options=pv.ParseOptions(delimiter=self.delimiter, quote_char=False,
                                          ignore_empty_lines=True),
            convert_options=pv.ConvertOptions(
                column_types={"query_id": pa.string(), "doc_id": pa.string(),
                              "score": pa.float64()},
                include_columns=["query_id", "doc_id", "score"],
                strings_can_be_null=False, quoted_strings_can_be_null=False, null_values=[],
            ),
        )

    def __iter__(self):
        import pyarrow as pa

        qrels = self.qrels
        order = query_order(qrels)
        seen = np.zeros(qrels.query_labels.shape[0], dtype=bool)
        done, shared, offset, carry, first_id = set(), False, 0, None, None
        try:
            reader = self._reader()
            batches = iter(reader)
            while True:
                batch = next(batches, None)
                if batch is None and carry is None:
                    break
                table = pa.Table.from_batches([batch]) if batch is not None else None
                if carry is not None:
                    table = carry if table is None else pa.concat_tables([carry, table])
                table = table.combine_chunks()
                ids = table.column("query_id").chunk(0) if table.num_rows else None
                if ids is None:
                    carry = None
                    continue
                encoded = arrow_call("dictionary_encode", ids)
                codes = numeric(encoded.indices, np.int32).astype(np.int64)
                change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
                # the last query may go on in the next block: keep its lines
                cut = table.num_rows if batch is None else (int(change[-1]) if change.shape[0]
                                                            else 0)
                carry = table.slice(cut) if cut < table.num_rows else None
                if cut == 0:
                    continue
                labels = np.empty(len(encoded.dictionary), dtype=object)
                labels[:] = encoded.dictionary.to_pylist()
                part_codes = codes[:cut]
                runs = 1 + int(np.count_nonzero(part_codes[1:] != part_codes[:-1]))
                present = np.unique(part_codes)
                names = labels[present].tolist()
                if runs != present.shape[0] or done.intersection(names):
                    raise NotStreamable  # a query's lines are not together
                done.update(names)
                first_id = first_id if first_id is not None else names[0]
                value = numeric(table.column("score").chunk(0).slice(0, cut), np.float64)
                if value is None or not np.isfinite(value).all():
                    raise NotStreamable  # the whole-file reader names the line
                in_qrels = indexer(qrels.query_labels, labels)
                piece_queries = in_qrels[present]
                piece_queries = piece_queries[piece_queries >= 0]
                rows = np.arange(offset, offset + cut)
                offset += cut
                if not piece_queries.shape[0]:
                    continue  # queries the qrels lack: dropped, as trec_eval drops them
                shared = True
                seen[piece_queries] = True
                wanted = np.zeros(qrels.query_labels.shape[0], dtype=bool)
                wanted[piece_queries] = True
                piece_run = TrecTable(
                    part_codes, labels, None, None, value, source=self.path, tag=self.tag,
                    doc_array=table.column("doc_id").chunk(0).slice(0, cut),
                    path=self.path, origin=rows,
                )
                run_query = in_qrels[part_codes]
                kept = run_query >= 0  # the lines of queries the qrels lack are dropped
                if not kept.all():
                    kept_rows = np.flatnonzero(kept)
                    piece_run = _kept_lines(piece_run, kept_rows, 0, cut, kept)
                    run_query = run_query[kept_rows]
                yield (qrels.take(np.flatnonzero(wanted[qrels.query])), piece_run, order,
                       run_query)
                del piece_run, table, batch
                if _read._after_parse is not None:  # the command's malloc_trim
                    _read._after_parse()
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            raise NotStreamable from None
        if offset == 0:
            raise ValueError(f"{self.path}: the run holds no retrieved document.")
        if self.complete_qrels and not seen.all():  # qrels queries the run lacks score 0
            empty = TrecTable(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object),
                           np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object),
                           np.zeros(0), source=self.path, tag=self.tag)
            yield (qrels.take(np.flatnonzero(~seen[qrels.query])), empty, order,
                   np.zeros(0, dtype=np.int64))
        elif not shared and not self.complete_qrels:
            run_labels = np.array([first_id], dtype=object)
            raise no_shared_query(qrels, TrecTable(np.zeros(1, dtype=np.int64), run_labels,
                                                 None, None, np.zeros(1), source=self.path))


#: run lines per piece of whole queries that evaluate_run lays out at a time
CHUNK_LINES = 1 << 17


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
    taking its lines from all over the run. In every case the lines of
    queries the qrels lack are dropped before any other work (no lookup, no
    check for duplicates), as trec_eval drops them right after reading.
    """
    run_query = run.queries_in(qrels)
    if not complete_qrels and not (run_query >= 0).any():
        raise no_shared_query(qrels, run)
    order = query_order(qrels)
    if len(run) <= CHUNK_LINES:
        kept = run_query >= 0  # lines of queries the qrels lack are dropped first
        if not kept.all():
            rows = np.flatnonzero(kept)
            run, run_query = _kept_lines(run, rows, 0, len(run), kept), run_query[rows]
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
    kept = run_query >= 0  # the lines of queries the qrels lack are not looked up
    if kept.all():
        qrels_doc = _run_docs_in_qrels(run, qrels, doc_dtype)
    else:
        rows = np.flatnonzero(kept)
        qrels_doc = np.full(len(run), -1, dtype=doc_dtype)
        qrels_doc[rows] = _run_docs_in_qrels(run.take(rows), qrels, doc_dtype)
    run = replace(run, qrels_doc=qrels_doc)
    return _rank_pieces(qrels, run, order, run_query, complete_qrels), False


def _qrels_pieces(qrels, piece_of_query, n_pieces):
    """The qrels lines (indices) of each piece, from each qrels query's piece."""
    qrels_piece = piece_of_query[qrels.query]
    qrels_order = np.argsort(qrels_piece, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(qrels_piece, minlength=n_pieces + 1))]
    return [qrels_order[bounds[i]:bounds[i + 1]] for i in range(n_pieces + 1)]


def _file_pieces(qrels, run, order, run_query, complete_qrels):
    """Pieces of a run grouped by query: about CHUNK_LINES lines each, cut between queries.

    The lines of queries the qrels lack are dropped here, before any work,
    as trec_eval drops them after reading: the pieces count the kept lines
    only, and a piece takes its kept lines out of its range of the file
    (a slice when nothing in the range is dropped). The qrels queries
    without a line in the run come last, in a piece of their own, when
    ``complete_qrels`` scores them.
    """
    n_lines = len(run)
    start = np.flatnonzero(np.r_[True, run.query[1:] != run.query[:-1]])  # each query's
    # a query's lines are all kept or all dropped: the kept lines before
    # each query's first line, counted over the queries (not the lines)
    kept_size = np.where(run_query[start] >= 0, np.diff(np.r_[start, n_lines]), 0)
    kept_before = np.r_[0, np.cumsum(kept_size)]  # before each query, then in all
    cuts = start[np.searchsorted(kept_before[:-1],
                                 np.arange(CHUNK_LINES, kept_before[-1], CHUNK_LINES))
                 .clip(max=start.shape[0] - 1)]
    bounds = distinct_sorted(np.r_[0, cuts, n_lines])
    # the kept lines before each bound (a query's first line, or the end)
    kept_at = kept_before[np.searchsorted(np.r_[start, n_lines], bounds)]
    n_pieces = bounds.shape[0] - 1
    # each qrels query's piece (n_pieces: no line in the run)
    piece_of_query = np.full(qrels.query_labels.shape[0], n_pieces, dtype=np.int64)
    found = run_query[start] >= 0
    piece_of_query[run_query[start][found]] = (
        np.searchsorted(bounds, start[found], side="right") - 1)
    qrels_rows = _qrels_pieces(qrels, piece_of_query, n_pieces)
    for piece in range(n_pieces):
        first, stop = int(bounds[piece]), int(bounds[piece + 1])
        n_kept = int(kept_at[piece + 1] - kept_at[piece])
        if n_kept == 0:
            continue  # only queries the qrels lack: dropped, as trec_eval drops them
        if n_kept < stop - first:
            kept = run_query[first:stop] >= 0
            rows = first + np.flatnonzero(kept)
            lines = _kept_lines(run, rows, first, stop, kept)
            piece_query = run_query[rows]
        else:
            lines = run.take(np.arange(first, stop))  # a slice: no copy
            piece_query = run_query[first:stop]
        yield qrels.take(qrels_rows[piece]), lines, order, piece_query
    if complete_qrels and qrels_rows[n_pieces].shape[0]:
        yield (qrels.take(qrels_rows[n_pieces]), run.take(np.zeros(0, dtype=np.int64)),
               order, np.zeros(0, dtype=run_query.dtype))


def _kept_lines(run, rows, first, stop, mask):
    """The lines ``rows`` of the range ``first:stop`` of ``run`` (``mask`` in the range).

    Their document ids are filtered out of the range chunk by chunk into
    one array of their own: a ``take`` from the parser's many chunks would
    join them all first, at every take.
    """
    lines = run.take(rows)
    if run.doc_array is None or run.doc_rows is not None:
        return lines
    docs = arrow_call("filter", run.doc_array.slice(first, stop - first), mask_array(mask))
    return replace(lines, doc_array=one_array(docs), doc_rows=None)


def _rank_pieces(qrels, run, order, run_query, complete_qrels):
    """Pieces of any run, in trec_eval's order of queries: about CHUNK_LINES lines each."""
    query_rank = order[0]
    n_queries = qrels.query_labels.shape[0]
    # run lines per query, in query-rank order (index 0: dropped lines),
    # counted per label of the run (a bincount of its own codes needs no cast)
    lines = np.bincount(run.label_queries_in(qrels) + 1, minlength=n_queries + 1,
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
            yield (qrels.take(qrels_rows[piece]), run.take(run_rows), order,
                   run_query[run_rows])
