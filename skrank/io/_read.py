"""Readers of TREC qrels and run files, and of the tables users already hold.

Everything becomes a :class:`~skrank.io._tables.TrecTable`: query and
document ids as integer codes into label arrays, plus one number per line
(relevance or score). The fast path parses with pyarrow's CSV reader (the
``io`` extra), which dictionary-encodes the ids while it reads; pandas' C
parser is the second choice and a pure-Python reader the fallback, so files
load without the extra too. :func:`as_table` takes what a user passes (a
path, a DataFrame, a dict of dicts, a dict of id lists: ``_id_lists``).
"""

import gzip
import io
import os
import re
import zlib

import numpy as np

from .._core._factorize import not_utf8, pandas_may_merge
from ._arrow import arrow_call, numeric
from ._id_lists import id_list_rows, is_id_lists, rank_column, scores_of_ranks
from ._numbers import parse_number, parse_numbers
from ._scan import _BOM, _plain_delimiter
from ._tables import TrecTable

# name, the column holding the number, the number of whitespace-separated fields
FORMATS = {
    "qrels": ("relevance", 4, ("query_id", "iteration", "doc_id", "relevance")),
    "run": ("score", 6, ("query_id", "q0", "doc_id", "rank", "score", "tag")),
}


def grouped_by_query(codes):
    """True when each query's lines are together, in any order of the queries.

    ``codes`` number the ids in order of first appearance, as every reader
    here does: then a code never comes back after a larger one. (Codes
    numbered otherwise may say False of a grouped run: it is then read and
    measured as a shuffled one, with the same numbers.)
    """
    return bool((codes[1:] >= codes[:-1]).all())


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

    pandas' hash table when pandas is installed, except for ids it may
    merge (not UTF-8, or a NUL inside: see
    :func:`~skrank._core._factorize.pandas_may_merge`): those take a dict.
    """
    try:
        import pandas as pd
    except ImportError:
        return _codes(ids)
    if pandas_may_merge(ids):
        return _codes(ids)
    codes, labels = pd.factorize(np.asarray(ids, dtype=object))
    return codes.astype(np.int64), np.asarray(labels, dtype=object)


def _from_strings(queries, docs, values, *, source, tag=None):
    q, ql = _ids_codes(queries)
    d, dl = _ids_codes(docs)
    value = np.asarray(values, dtype=np.float64)
    return TrecTable(q, ql, d, dl, value, source=source, tag=tag)


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
        value = numeric(table.column(value_name), np.float64)
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
        return TrecTable(query, query_labels, doc, doc_labels, value, source=path,
                      doc_label_array=encoded.dictionary)
    return TrecTable(query, query_labels, None, None, value, source=path, tag=tag,
                  doc_array=docs)


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
        indices = numeric(chunk.indices, np.dtype(f"int{chunk.indices.type.bit_width}"))
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
    return TrecTable(q.astype(np.int64), np.asarray(ql, dtype=object), d.astype(np.int64),
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
    """A TREC file as a :class:`TrecTable`: the fastest reader that parses every line."""
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


# the column names a DataFrame's ids and numbers may have
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


def as_table(value, kind, argument, compat=None):
    """A path, a DataFrame or a dict of dicts as a :class:`TrecTable`."""
    if isinstance(value, TrecTable):
        return value
    if isinstance(value, (str, os.PathLike)):
        return _load_file(value, kind, compat)
    number_name = FORMATS[kind][0]
    if isinstance(value, dict) and is_id_lists(value):  # {qid: [doc ids]}
        queries, docs, numbers = id_list_rows(value, kind, argument)
        table = _from_strings(queries, docs, numbers, source=argument)
    elif isinstance(value, dict):
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
        ranks = rank_column(value) if kind == "run" else None
        if ranks is not None and not any(c in value.columns for c in _COLUMNS["run"]):
            numbers = scores_of_ranks(ranks, argument)  # (query, doc, rank)
        else:
            column = _column(value, kind, argument)  # names the missing column
            try:
                numbers = np.asarray(column, dtype=np.float64)
            except (TypeError, ValueError):
                raise ValueError(f"`{argument}`: every {number_name} (column "
                                 f"{column.name!r}) must be a number.") from None
        table = _from_strings(queries, docs, numbers, source=argument)
    else:
        raise ValueError(
            f"`{argument}` must be a path to a TREC {kind} file, a pandas DataFrame, "
            f"a dict of dicts or a dict of id lists, got {type(value).__name__}."
        )
    if np.isnan(table.value).any() or (kind == "run" and np.isinf(table.value).any()):
        raise ValueError(f"`{argument}` has a {number_name} that is NaN or infinite.")
    return table


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
