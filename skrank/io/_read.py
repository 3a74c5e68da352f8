"""Readers of TREC qrels and run files, and of the tables users already hold.

Everything becomes a :class:`_Table`: query and document ids as integer codes
into label arrays, plus one number per line (relevance or score). The fast
path parses with pyarrow's CSV reader (the ``io`` extra), which dictionary-
encodes the ids while it reads; pandas' C parser is the second choice and a
pure-Python reader the fallback, so files load without the extra too.
"""

import gzip
import io
import os
import re
from dataclasses import dataclass

import numpy as np

IO_EXTRA = (
    "reading TREC files as DataFrames needs pandas: pip install pandas pyarrow, "
    "or the io extra from a checkout of skrank: pip install -e '.[io]'."
)

# name, the column holding the number, the number of whitespace-separated fields
FORMATS = {
    "qrels": ("relevance", 4, ("query_id", "iteration", "doc_id", "relevance")),
    "run": ("score", 6, ("query_id", "q0", "doc_id", "rank", "score", "tag")),
}


@dataclass
class _Table:
    """Ids as codes into labels (labels are numpy arrays of str), one value per line."""

    query: np.ndarray  # (n,) int64 codes into query_labels
    query_labels: np.ndarray
    doc: np.ndarray  # (n,) int64 codes into doc_labels
    doc_labels: np.ndarray
    value: np.ndarray  # (n,) float64
    source: str = "input"
    tag: str | None = None  # a run's name (its last column), when known
    # the document ids as a pyarrow string array, one per line; then ``doc``
    # and ``doc_labels`` are None: a run's millions of ids are never
    # dictionary-encoded (hashing them costs more than all the rest)
    doc_array: object = None
    # ``doc_labels`` as a pyarrow string array, when the reader had one
    doc_label_array: object = None

    def __len__(self):
        return self.query.shape[0]

    def doc_strings(self, rows=None):
        """The document ids (numpy object array) of ``rows`` (all by default)."""
        if self.doc_array is not None:
            if rows is None:
                return np.asarray(self.doc_array.to_numpy(zero_copy_only=False), dtype=object)
            import pyarrow as pa

            # built from buffers and read with to_pylist: pa.array and to_numpy
            # would import pandas (0.4 s) for a few tied ids
            rows = np.ascontiguousarray(rows, dtype=np.int64)
            index = pa.Array.from_buffers(pa.int64(), rows.shape[0], [None, pa.py_buffer(rows)])
            out = np.empty(rows.shape[0], dtype=object)
            out[:] = self.doc_array.take(index).to_pylist()
            return out
        codes = self.doc if rows is None else self.doc[rows]
        return self.doc_labels[codes]


def _is_gzip(path):
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _read_bytes(path):
    """The file's bytes, decompressed when it is gzip (by content, not by name).

    A plain file comes memory-mapped (read-only): the parser reads the page
    cache directly, with no copy of the file into the process.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise ValueError(f"{path}: no such file.")
    if _is_gzip(path):
        with gzip.open(path, "rb") as handle:
            return handle.read()
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""
        import mmap

        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _first_line(data):
    """The first line with more than white space, leading white space removed."""
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start)
        end = size if end < 0 else end
        line = bytes(data[start:end]).lstrip()
        if line.strip():
            return line
        start = end + 1
    return b""


def _blank_comments(data):
    """Empty every line that starts with ``#`` (trec_eval 10.0's comments).

    The line breaks stay, so error messages keep the file's line numbers;
    a ``#`` inside a line (a document id such as ``CR#93E-1860``) is data.
    """
    if data.find(b"#") >= 0 and _COMMENT.search(data):  # memchr first: most have none
        return _COMMENT.sub(b"", data)
    return data


_COMMENT = re.compile(rb"(?m)^#[^\n]*")


def _malformed(path, kind, line_number, line):
    _, n_fields, columns = FORMATS[kind]
    shown = line.strip()
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return ValueError(
        f"{path}:{line_number}: malformed {kind} line {shown!r}: expected "
        f"{n_fields} whitespace-separated fields ({' '.join(columns)})"
        + (", the score a number." if kind == "run" else ", the relevance a number.")
    )


def _split_python(data, path, kind):
    """The pure-Python reader: split every line (slow, needs nothing)."""
    _, n_fields, _ = FORMATS[kind]
    value_field = 4 if kind == "run" else 3
    queries, docs, values, tag = [], [], [], None
    text = data.decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != n_fields:
            raise _malformed(path, kind, number, line)
        try:
            value = float(fields[value_field])
        except ValueError:
            raise _malformed(path, kind, number, line) from None
        if value != value or (kind == "run" and abs(value) == float("inf")):
            raise _malformed(path, kind, number, line)
        queries.append(fields[0])
        docs.append(fields[2])
        values.append(value)
        if tag is None and kind == "run":
            tag = fields[5]
    return _from_strings(queries, docs, values, source=path, tag=tag)


def _codes(ids):
    """Codes (first appearance order) and labels of a sequence of ids."""
    labels, codes = {}, None
    codes = np.fromiter((labels.setdefault(i, len(labels)) for i in ids),
                        dtype=np.int64, count=len(ids))
    out = np.empty(len(labels), dtype=object)
    out[:] = list(labels)
    return codes, out


def _from_strings(queries, docs, values, *, source, tag=None):
    try:
        import pandas as pd
    except ImportError:
        q, ql = _codes(queries)
        d, dl = _codes(docs)
    else:
        q, ql = pd.factorize(np.asarray(queries, dtype=object))
        d, dl = pd.factorize(np.asarray(docs, dtype=object))
        q, d = q.astype(np.int64), d.astype(np.int64)
        ql, dl = np.asarray(ql, dtype=object), np.asarray(dl, dtype=object)
    value = np.asarray(values, dtype=np.float64)
    return _Table(q, ql, d, dl, value, source=source, tag=tag)


def _read_pyarrow(data, path, kind):
    """Parse with pyarrow.csv (multi-threaded, ids dictionary-encoded); None if it can't."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pv
    except ImportError:
        return None
    value_name, n_fields, columns = FORMATS[kind]
    first = _first_line(data)
    delimiter = "\t" if b"\t" in first and b" " not in first.strip() else " "
    dictionary = pa.dictionary(pa.int32(), pa.string())
    types = {"query_id": dictionary, "doc_id": pa.string(), value_name: pa.float64()}
    try:
        table = pv.read_csv(
            pa.BufferReader(pa.py_buffer(data)),  # no copy of bytes or a mapped file
            read_options=pv.ReadOptions(column_names=list(columns), block_size=1 << 22),
            parse_options=pv.ParseOptions(delimiter=delimiter, quote_char=False,
                                          ignore_empty_lines=True),
            convert_options=pv.ConvertOptions(
                column_types=types, include_columns=["query_id", "doc_id", value_name],
                strings_can_be_null=False, quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    value = _numeric(table.column(value_name), np.float64)
    if value is None:
        return None  # a line without its value
    if value.dtype != np.float64 or np.isnan(value).any() or (
        kind == "run" and np.isinf(value).any()
    ):
        return None
    tag = None
    if kind == "run" and table.num_rows:  # every line has its 6 fields: pyarrow checked
        tag = first.split()[-1].decode("utf-8", "replace")
    query, query_labels = _dictionary_codes(table.column("query_id"))
    docs = table.column("doc_id").combine_chunks()
    if kind == "qrels":  # few lines: codes are cheap and handy
        encoded = docs.dictionary_encode()
        doc, doc_labels = _dictionary_codes(pa.chunked_array([encoded]))
        return _Table(query, query_labels, doc, doc_labels, value, source=path,
                      doc_label_array=encoded.dictionary)
    return _Table(query, query_labels, None, None, value, source=path, tag=tag,
                  doc_array=docs)


def _numeric(column, dtype, fill=None):
    """A numeric pyarrow column as one numpy array; nulls become ``fill``.

    None if there are nulls and no ``fill``. Built from the value and
    validity buffers: pyarrow's own ``to_numpy`` and ``fill_null`` import
    pandas, which alone costs about 0.4 s of a command's start.
    """
    chunks = column.chunks if hasattr(column, "chunks") else [column]
    if fill is None and any(c.null_count for c in chunks):
        return None
    size = np.dtype(dtype).itemsize
    parts = []
    for c in chunks:
        values = np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c), offset=size * c.offset)
        if c.null_count:
            bits = np.unpackbits(np.frombuffer(c.buffers()[0], dtype=np.uint8), bitorder="little")
            values = np.where(bits[c.offset:c.offset + len(c)].astype(bool), values, fill)
        parts.append(values)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _dictionary_codes(column):
    """Codes and labels of a dictionary-encoded pyarrow column (chunks unified)."""
    column = column.unify_dictionaries()
    chunks = column.chunks
    if not chunks:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    labels = np.empty(len(chunks[0].dictionary), dtype=object)
    labels[:] = chunks[0].dictionary.to_pylist()
    codes = np.concatenate([
        _numeric(chunk.indices, np.dtype(f"int{chunk.indices.type.bit_width}"))
        for chunk in chunks
    ]).astype(np.int64, copy=False)
    return codes, labels


def _read_pandas(data, path, kind):
    """Parse with pandas' C parser on any whitespace; None if pandas is missing."""
    try:
        import pandas as pd
    except ImportError:
        return None
    value_name, n_fields, columns = FORMATS[kind]
    try:
        frame = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=list(columns),
            dtype={"query_id": str, "doc_id": str, value_name: np.float64},
            engine="c", quoting=3, na_filter=False,
        )
    except (ValueError, pd.errors.ParserError):
        return None
    last = frame[columns[-1]]
    if frame.isna().any().any() or (last.astype(str) == "").any():
        return None  # a line with too few fields
    value = frame[value_name].to_numpy(dtype=np.float64)
    if kind == "run" and np.isinf(value).any():
        return None
    q, ql = pd.factorize(frame["query_id"])
    d, dl = pd.factorize(frame["doc_id"])
    tag = str(frame["tag"].iloc[0]) if kind == "run" and len(frame) else None
    return _Table(q.astype(np.int64), np.asarray(ql, dtype=object), d.astype(np.int64),
                  np.asarray(dl, dtype=object), value, source=path, tag=tag)


def _load_file(path, kind):
    """A TREC file as a :class:`_Table`: the fastest reader that parses every line."""
    name = os.fspath(path)
    data = _blank_comments(_read_bytes(name))
    table = _read_pyarrow(data, name, kind)
    if table is not None:
        return table
    data = bytes(data)  # the other readers take bytes, not a mapped file
    table = _read_pandas(data, name, kind)
    if table is not None:
        return table
    return _split_python(data, name, kind)  # slow, or finds the malformed line


def _to_frame(table, kind):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(IO_EXTRA) from None
    value_name = FORMATS[kind][0]
    return pd.DataFrame({
        "query_id": table.query_labels[table.query],
        "doc_id": table.doc_strings(),
        value_name: table.value,
    })


def read_qrels(path):
    """Read a TREC qrels file (relevance judgments) into a DataFrame.

    Parameters
    ----------
    path : str or path-like
        A qrels file: one judgment per line, ``query_id iteration doc_id
        relevance``, separated by any whitespace; gzip-compressed files are
        read as well (recognised by their content).

    Returns
    -------
    qrels : pandas.DataFrame
        Columns ``query_id`` and ``doc_id`` (strings) and ``relevance``
        (float), one row per line, in file order. Needs pandas (the ``io``
        extra: ``pip install -e '.[io]'`` from a checkout).

    Raises
    ------
    ValueError
        For a missing file or a malformed line, naming the file and the line.

    See Also
    --------
    read_run, evaluate_run

    Examples
    --------
    >>> import os, tempfile
    >>> from skrank import read_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\nq2 0 d7 2\\n")
    >>> read_qrels(path)
      query_id doc_id  relevance
    0       q1     d1        1.0
    1       q1     d2        0.0
    2       q2     d7        2.0
    """
    return _to_frame(_load_file(path, "qrels"), "qrels")


def read_run(path):
    """Read a TREC run file (a system's ranked results) into a DataFrame.

    Parameters
    ----------
    path : str or path-like
        A run file: one retrieved document per line, ``query_id Q0 doc_id
        rank score tag``, separated by any whitespace; gzip-compressed files
        are read as well. The ``rank`` column is ignored, as trec_eval
        ignores it: documents are ranked by score.

    Returns
    -------
    run : pandas.DataFrame
        Columns ``query_id`` and ``doc_id`` (strings) and ``score`` (float),
        one row per line, in file order. Needs pandas (the ``io`` extra).

    Raises
    ------
    ValueError
        For a missing file or a malformed line (wrong number of fields, a
        score that is not a finite number), naming the file and the line.

    See Also
    --------
    read_qrels, evaluate_run

    Examples
    --------
    >>> import os, tempfile
    >>> from skrank import read_run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d3 2 1.5 bm25\\n")
    >>> read_run(path)
      query_id doc_id  score
    0       q1     d1    2.5
    1       q1     d3    1.5
    """
    return _to_frame(_load_file(path, "run"), "run")
