"""A run file whose lines are grouped by query, read and measured a piece at a time.

``skrank evaluate --stream`` (and ``_evaluate_run(stream=True)``) holds one
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

import numpy as np

from . import _read
from ._read import FORMATS, _first_line, _numeric, _plain_delimiter, _Table, arrow_call

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

        from ._tables import _indexer, _no_shared_query, _query_order, _take

        qrels = self.qrels
        order = _query_order(qrels)
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
                codes = _numeric(encoded.indices, np.int32).astype(np.int64)
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
                value = _numeric(table.column("score").chunk(0).slice(0, cut), np.float64)
                if value is None or not np.isfinite(value).all():
                    raise NotStreamable  # the whole-file reader names the line
                in_qrels = _indexer(qrels.query_labels, labels)
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
                piece_run = _Table(
                    part_codes, labels, None, None, value, source=self.path, tag=self.tag,
                    doc_array=table.column("doc_id").chunk(0).slice(0, cut),
                    path=self.path, origin=rows,
                )
                yield (_take(qrels, np.flatnonzero(wanted[qrels.query])), piece_run, order,
                       in_qrels[part_codes])
                del piece_run, table, batch
                if _read._after_parse is not None:  # the command's malloc_trim
                    _read._after_parse()
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            raise NotStreamable from None
        if offset == 0:
            raise ValueError(f"{self.path}: the run holds no retrieved document.")
        if self.complete_qrels and not seen.all():  # qrels queries the run lacks score 0
            empty = _Table(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object),
                           np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object),
                           np.zeros(0), source=self.path, tag=self.tag)
            yield (_take(qrels, np.flatnonzero(~seen[qrels.query])), empty, order,
                   np.zeros(0, dtype=np.int64))
        elif not shared and not self.complete_qrels:
            run_labels = np.array([first_id], dtype=object)
            raise _no_shared_query(qrels, _Table(np.zeros(1, dtype=np.int64), run_labels,
                                                 None, None, np.zeros(1), source=self.path))
