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
import zlib
from dataclasses import dataclass

import numpy as np

from .._core._factorize import not_utf8
from ._numbers import parse_number, parse_numbers
from ._scan import _BOM, _plain_delimiter

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
    # the document ids as a pyarrow string array (or chunked array, as the
    # parser left them), one per line; then ``doc`` and ``doc_labels`` are
    # None: a run's millions of ids are never dictionary-encoded (hashing
    # them costs more than all the rest). :func:`one_array` joins chunks
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


def grouped_by_query(codes):
    """True when each query's lines are together, in any order of the queries.

    ``codes`` number the ids in order of first appearance, as every reader
    here does: then a code never comes back after a larger one. (Codes
    numbered otherwise may say False of a grouped run: it is then read and
    measured as a shuffled one, with the same numbers.)
    """
    return bool((codes[1:] >= codes[:-1]).all())


def one_array(strings):
    """A pyarrow array, or a chunked array's chunks joined into one."""
    return strings.combine_chunks() if hasattr(strings, "chunks") else strings


def index_array(rows):
    """A pyarrow int64 array of ``rows``, built from its buffer (pa.array would import pandas)."""
    import pyarrow as pa

    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), rows.shape[0], [None, pa.py_buffer(rows)])


def mask_array(mask):
    """A pyarrow boolean array of the numpy ``mask``, built from its packed bits."""
    import pyarrow as pa

    bits = np.packbits(np.asarray(mask, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), mask.shape[0], [None, pa.py_buffer(bits)])


def _compute_name(name):
    """``name`` (``call_function``, an options class) from pyarrow's compute layer.

    Taken from the compiled ``pyarrow._compute``, not ``pyarrow.compute``:
    that module builds a Python wrapper and a docstring for each of its ~300
    functions when imported (about 30 ms of the command's start, and array
    methods such as ``take`` or ``dictionary_encode`` import it). A pyarrow
    that moved the name gets it from the public module.
    """
    from importlib import import_module

    try:
        return getattr(import_module("pyarrow._compute"), name)
    except (ImportError, AttributeError):
        return getattr(import_module("pyarrow.compute"), name)


def arrow_call(name, *args, options=None):
    """pyarrow's compute function ``name`` on ``args`` (see :func:`_compute_name`)."""
    return _compute_name("call_function")(name, list(args), options)


def arrow_options(name, **kwargs):
    """An options object of pyarrow's compute functions (``"SetLookupOptions"``, ...)."""
    return _compute_name(name)(**kwargs)


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
        try:
            with gzip.open(path, "rb") as handle:
                return handle.read()
        except (EOFError, OSError, zlib.error) as exc:
            raise ValueError(
                f"{path}: starts as a gzip file but cannot be decompressed "
                f"({exc}); is it truncated or corrupt?"
            ) from None
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            return b""
        import mmap

        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


# trec_eval splits fields on C's isspace: space, \t, \v, \f and \r (and \n ends a line)
_OTHER_SPACE = bytes.maketrans(b"\t\v\f\r", b"    ")
_SPACE_RUN = re.compile(rb"  +")
_EDGE_SPACE = re.compile(rb"(?m)^ | $")
# comments as trec_eval 10.0 reads them: a qrels line starting with "#"; a run
# line whose first character after leading white space is "#"
_COMMENT = {
    "qrels": re.compile(rb"(?m)^#[^\n]*"),
    "run": re.compile(rb"(?m)^[ \t\v\f\r]*#[^\n]*"),
}


def _prepare(data, kind):
    """The file's bytes as the readers take them, and the field delimiter.

    A byte-order mark is dropped, comment lines are emptied and, unless the
    fields are already separated by single spaces or by single tabs, every
    run of white space becomes one space (trec_eval splits on any run of
    ``isspace`` bytes: space, tab, \\v, \\f and \\r). Line breaks stay
    where they are, so line numbers are the file's. The common files pass
    with a few memchr scans and no copy.
    """
    if data[:3] == _BOM:
        data = bytes(data[3:])
    data = _blank_comments(data, kind)
    find = data.find
    tab, space = find(b"\t") >= 0, find(b" ") >= 0
    other = find(b"\v") >= 0 or find(b"\f") >= 0 or find(b"\r") >= 0
    if not other and not (tab and space):
        sep = b"\t" if tab else b" "
        if (find(sep + sep) < 0 and find(b"\n" + sep) < 0 and find(sep + b"\n") < 0
                and data[:1] != sep and data[-1:] != sep):
            return data, sep.decode()
    data = bytes(data).translate(_OTHER_SPACE)
    data = _EDGE_SPACE.sub(b"", _SPACE_RUN.sub(b" ", data))
    return data, " "


def _first_line(data):
    """The first line with more than white space."""
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start)
        end = size if end < 0 else end
        line = bytes(data[start:end])
        if line.strip():
            return line
        start = end + 1
    return b""


def _blank_comments(data, kind="run"):
    """Empty the comment lines (line breaks stay, so line numbers hold)."""
    # memchr first: most files have no "#" at all
    if data.find(b"#") >= 0 and _COMMENT[kind].search(data):
        return _COMMENT[kind].sub(b"", data)
    return data


def _display(token):
    """An id or a line, as bytes from a file, for an error message."""
    return token.decode("utf-8", "backslashreplace")


def _malformed(path, kind, line_number, line, reason=None):
    _, n_fields, columns = FORMATS[kind]
    shown = _display(line.strip()) if isinstance(line, bytes) else line.strip()
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    if reason is None:
        reason = (
            f"expected {n_fields} whitespace-separated fields ({' '.join(columns)}), "
            f"the {FORMATS[kind][0]} a number"
        )
    hint = ""
    if kind == "qrels" and len(line.split()) == 6:
        hint = " (6 fields: is it a run? the qrels come first: skrank evaluate QRELS RUN)"
    elif kind == "run" and len(line.split()) == 4:
        hint = " (4 fields: is it a qrels file? the run comes second: skrank evaluate QRELS RUN)"
    return ValueError(f"{path}:{line_number}: malformed {kind} line {shown!r}: {reason}{hint}.")


def _split_python(data, path, kind, compat=None):
    """The pure-Python reader: split every line (slow, needs nothing).

    Works on bytes from :func:`_prepare` (byte-order mark and comments
    gone): fields split on ASCII white space (C's ``isspace``), lines on
    ``\\n`` only, and ids that are not UTF-8 decode with
    ``surrogateescape``, so distinct bytes stay distinct ids.
    """
    _, n_fields, _ = FORMATS[kind]
    value_field = 4 if kind == "run" else 3
    queries, docs, values, tag = [], [], [], None
    for number, line in enumerate(bytes(data).split(b"\n"), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != n_fields and not (
            compat == "trec_eval" and kind == "run" and len(fields) > n_fields
        ):  # trec_eval reads a run line's first 6 fields, ignores the rest
            raise _malformed(path, kind, number, line)
        value = parse_number(fields[value_field], kind, compat)
        if value is None:
            raise _malformed(path, kind, number, line, reason=(
                f"the {FORMATS[kind][0]} {_display(fields[value_field])!r} is not a "
                "finite plain number (digits, an optional sign, point and exponent)"
                + ("" if compat else "; --compat trec_eval reads it as trec_eval does")
            ))
        queries.append(fields[0].decode("utf-8", "surrogateescape"))
        docs.append(fields[2].decode("utf-8", "surrogateescape"))
        values.append(value)
        if tag is None and kind == "run":
            tag = fields[5].decode("utf-8", "surrogateescape")
    return _from_strings(queries, docs, values, source=path, tag=tag)


def _codes(ids):
    """Codes (first appearance order) and labels of a sequence of ids."""
    labels, codes = {}, None
    codes = np.fromiter((labels.setdefault(i, len(labels)) for i in ids),
                        dtype=np.int64, count=len(ids))
    out = np.empty(len(labels), dtype=object)
    out[:] = list(labels)
    return codes, out


def _ids_codes(ids):
    """Codes (first appearance order) and labels of a list of str ids.

    pandas' hash table when pandas is installed, except for ids that are
    not UTF-8 (surrogate escapes), which it may merge (see
    :func:`~skrank._core._factorize.not_utf8`): those take a dict.
    """
    try:
        import pandas as pd
    except ImportError:
        return _codes(ids)
    if not_utf8(ids):
        return _codes(ids)
    codes, labels = pd.factorize(np.asarray(ids, dtype=object))
    return codes.astype(np.int64), np.asarray(labels, dtype=object)


def _from_strings(queries, docs, values, *, source, tag=None):
    q, ql = _ids_codes(queries)
    d, dl = _ids_codes(docs)
    value = np.asarray(values, dtype=np.float64)
    return _Table(q, ql, d, dl, value, source=source, tag=tag)


def _read_pyarrow(data, path, kind, delimiter=" ", compat=None):
    """Parse with pyarrow.csv (multi-threaded, ids dictionary-encoded); None if it can't.

    None sends the file to the next reader: a line that does not parse, a
    number that is not plain (or, with ``compat``, a relevance, which
    trec_eval reads with ``atol``), ids that are not UTF-8.
    """
    try:
        import pyarrow as pa
        import pyarrow.csv as pv
    except ImportError:
        return None
    value_name, n_fields, columns = FORMATS[kind]
    dictionary = pa.dictionary(pa.int32(), pa.string())
    # trec_eval reads a relevance with atol ("1.5" and "1e1" are 1): the few
    # distinct relevance fields are parsed one by one
    as_text = compat == "trec_eval" and kind == "qrels"
    types = {"query_id": dictionary, "doc_id": pa.string(),
             value_name: dictionary if as_text else pa.float64()}
    source = data if isinstance(data, str) else pa.BufferReader(pa.py_buffer(data))
    try:
        table = pv.read_csv(
            source,  # a path, or bytes and a mapped file without a copy
            read_options=pv.ReadOptions(column_names=list(columns), block_size=1 << 20),
            parse_options=pv.ParseOptions(delimiter=delimiter, quote_char=False,
                                          ignore_empty_lines=True),
            convert_options=pv.ConvertOptions(
                column_types=types, include_columns=["query_id", "doc_id", value_name],
                strings_can_be_null=False, quoted_strings_can_be_null=False,
                null_values=[],
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    if _after_parse is not None:  # the parser's freed blocks, back before the copies below
        _after_parse()
    query, query_labels = _dictionary_codes(table.column("query_id"))
    # the ids of a run grouped by query stay in the parser's blocks (one
    # chunk each): it is measured in ranges of lines, and joining the blocks
    # would copy every id once more. Other runs' pieces take their ids from
    # all over the run, which pyarrow does in half the time from one array;
    # it is made here, before the numbers below, which reuse the blocks'
    # memory
    docs = table.column("doc_id")
    if kind == "qrels" or not grouped_by_query(query):
        docs = docs.combine_chunks()
    table = table.drop_columns(["doc_id", "query_id"])
    if as_text:
        codes, tokens = _dictionary_codes(table.column(value_name))
        parsed = parse_numbers(tokens, kind, compat)
        value = parsed[codes] if len(tokens) else np.zeros(0)
    else:
        value = _numeric(table.column(value_name), np.float64)
        if value is None:
            return None  # a line without its value
        if not np.isfinite(value).all():
            return None  # nan, inf: the next reader names the line
    tag = None
    if kind == "run" and table.num_rows:  # every line has its 6 fields: pyarrow checked
        if isinstance(data, str):
            with open(data, "rb") as handle:
                data = handle.read(1 << 16)
        first = _first_line(data)
        tag = first.split()[-1].decode("utf-8", "replace")
    del table
    if kind == "qrels":  # few lines: codes are cheap and handy
        encoded = arrow_call("dictionary_encode", docs)
        doc, doc_labels = _dictionary_codes(pa.chunked_array([encoded]))
        return _Table(query, query_labels, doc, doc_labels, value, source=path,
                      doc_label_array=encoded.dictionary)
    return _Table(query, query_labels, None, None, value, source=path, tag=tag,
                  doc_array=docs)


def _numeric(column, dtype, fill=None):
    """A numeric pyarrow column as one numpy array; nulls become ``fill``.

    None if there are nulls and no ``fill``. Read from the value buffers,
    a chunk with nulls after pyarrow's ``coalesce`` fills them: pyarrow's
    own ``to_numpy``, ``fill_null`` and ``pa.scalar`` import pandas, which
    alone costs about 0.4 s of a command's start.
    """
    chunks = column.chunks if hasattr(column, "chunks") else [column]
    if fill is None and any(c.null_count for c in chunks):
        return None
    size = np.dtype(dtype).itemsize
    parts = []
    for c in chunks:
        if c.null_count:  # the nulls filled by pyarrow (C++), then read as the others
            c = arrow_call("coalesce", c, _scalar(fill, dtype, c.type))
        parts.append(np.frombuffer(c.buffers()[1], dtype=dtype, count=len(c),
                                   offset=size * c.offset))
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


def _scalar(value, dtype, arrow_type):
    """A pyarrow scalar of ``value`` (``pa.scalar`` would import pandas)."""
    import pyarrow as pa

    data = pa.py_buffer(np.array([value], dtype=dtype))
    return pa.Array.from_buffers(arrow_type, 1, [None, data])[0]


def _dictionary_codes(column):
    """Codes and labels of a dictionary-encoded pyarrow column (chunks unified)."""
    column = column.unify_dictionaries()
    chunks = column.chunks
    if not chunks:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    labels = np.empty(len(chunks[0].dictionary), dtype=object)
    labels[:] = chunks[0].dictionary.to_pylist()
    # filled chunk by chunk: no concatenated copy in the indices' width
    codes = np.empty(len(column), dtype=np.int64)
    start = 0
    for chunk in chunks:
        indices = _numeric(chunk.indices, np.dtype(f"int{chunk.indices.type.bit_width}"))
        codes[start:start + indices.shape[0]] = indices
        start += indices.shape[0]
    return codes, labels


def _read_pandas(data, path, kind, compat=None):
    """Parse with pandas' C parser on any whitespace; None if pandas is missing or it can't."""
    try:
        import pandas as pd
    except ImportError:
        return None
    value_name, n_fields, columns = FORMATS[kind]
    as_text = compat == "trec_eval" and kind == "qrels"
    try:
        frame = pd.read_csv(
            io.BytesIO(data), sep=r"\s+", header=None, names=list(columns),
            dtype={"query_id": str, "doc_id": str, value_name: str if as_text else np.float64},
            engine="c", quoting=3, na_filter=False, encoding="utf-8",
        )
    except (ValueError, pd.errors.ParserError):  # UnicodeDecodeError is a ValueError
        return None
    last = frame[columns[-1]]
    if frame.isna().any().any() or (last.astype(str) == "").any():
        return None  # a line with too few fields
    if as_text:
        codes, tokens = pd.factorize(frame[value_name])
        parsed = parse_numbers(list(tokens), kind, compat)
        value = parsed[codes] if len(tokens) else np.zeros(0)
    else:
        value = frame[value_name].to_numpy(dtype=np.float64)
        if not np.isfinite(value).all():
            return None
    q, ql = pd.factorize(frame["query_id"])
    d, dl = pd.factorize(frame["doc_id"])
    tag = str(frame["tag"].iloc[0]) if kind == "run" and len(frame) else None
    return _Table(q.astype(np.int64), np.asarray(ql, dtype=object), d.astype(np.int64),
                  np.asarray(dl, dtype=object), value, source=path, tag=tag)


#: called after a file is parsed; the ``skrank`` command's own process sets it
#: to glibc's ``malloc_trim``, which hands the parser's freed blocks back to
#: the system (they would otherwise add to every later peak). A library call
#: leaves process-wide allocator state alone.
_after_parse = None


def _load_file(path, kind, compat=None):
    table = _load_file_once(path, kind, compat)
    if _after_parse is not None:
        _after_parse()
    return table


def _load_file_once(path, kind, compat=None):
    """A TREC file as a :class:`_Table`: the fastest reader that parses every line."""
    name = os.fspath(path)
    if not os.path.exists(name):
        raise ValueError(f"{name}: no such file.")
    table = _read_plain(name, kind, compat)
    if table is not None:
        return table
    data, delimiter = _prepare(_read_bytes(name), kind)
    table = _read_pyarrow(data, name, kind, delimiter, compat)
    if table is None:
        data = bytes(data)  # the other readers take bytes, not a mapped file
        table = _read_pandas(data, name, kind, compat)
    if table is None:
        table = _split_python(data, name, kind, compat)  # slow, or finds the malformed line
    table.path = name
    return table


def _read_plain(path, kind, compat):
    """A plain file parsed by pyarrow from its path, block by block; None if it can't.

    The parse of a plain file with single spaces (the common file) starts
    on a thread at once, while this thread scans the file
    (:func:`_plain_delimiter`): the scan holds the GIL, the parser does
    not. When the scan finds otherwise, the parse is waited for and set
    aside.
    """
    with open(path, "rb") as handle:
        head = handle.read(3)
    if head[:2] == b"\x1f\x8b" or head == _BOM:
        return None
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return None
    from .._core._threads import Background

    parsing = Background(_read_pyarrow, path, path, kind, " ", compat)
    try:
        delimiter = _plain_delimiter(path)
    except BaseException:
        _wait_quietly(parsing)
        raise
    if delimiter != " ":
        _wait_quietly(parsing)
        table = None
    else:
        table = parsing.result()
    if delimiter == "\t":
        table = _read_pyarrow(path, path, kind, delimiter, compat)
    elif delimiter is None:
        return None
    if table is not None:
        table.path = path
    return table


def _wait_quietly(work):
    """Wait for a parse whose result is set aside (its error too)."""
    try:
        work.result()
    except Exception:
        pass


def _line_of_row(path, kind, row):
    """The line number, in the file, of the ``row``-th (0-based) line holding data."""
    data, _ = _prepare(_read_bytes(path), kind)
    seen = -1
    for number, line in enumerate(bytes(data).split(b"\n"), start=1):
        if line.strip():
            seen += 1
            if seen == row:
                return number
    return row + 1


def _to_frame(table, kind):
    from .._core._optional import import_optional

    pd = import_optional("pandas", f"read_{kind}()")
    value_name = FORMATS[kind][0]
    # ids that are not UTF-8 (surrogate escapes) stay Python str in an object
    # column: pandas 3's pyarrow-backed strings refuse them. The ids pyarrow
    # read (``doc_array``) are UTF-8: it checked them
    query_dtype = object if not_utf8(table.query_labels) else None
    doc_dtype = object if table.doc_array is None and not_utf8(table.doc_labels) else None
    return pd.DataFrame({
        "query_id": pd.Series(table.query_labels[table.query], dtype=query_dtype),
        "doc_id": pd.Series(table.doc_strings(), dtype=doc_dtype),
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
        extra: ``pip install -e '.[io]'`` from a checkout). Ids that are
        not UTF-8 are kept as trec_eval keeps them, as bytes: see Notes.

    Raises
    ------
    ValueError
        For a missing file or a malformed line, naming the file and the line.

    See Also
    --------
    read_run, evaluate_run

    Notes
    -----
    An id whose bytes are not UTF-8 (a latin-1 ``caf\\xe9``) is a str with
    surrogate escapes (``"caf\\udce9"``): distinct bytes stay distinct ids,
    and ``id.encode("utf-8", "surrogateescape")`` gives the file's bytes
    back. Such a column has object dtype (pandas 3's string dtype refuses
    them), and pandas' own ``unique`` or ``groupby`` on it may merge them in
    older pandas (pandas GH 34550); skrank's functions do not.

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
        Ids that are not UTF-8: as in :func:`read_qrels`.

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
