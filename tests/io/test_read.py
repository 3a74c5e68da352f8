"""The TREC readers: formats, gzip, errors naming file and line, the fallbacks."""

import gzip
import sys

import numpy as np
import pytest

from skrank import read_qrels, read_run
from skrank.io import _read, _scan

from .._needs import needs


def test_read_run_whitespace_and_gzip(tmp_path):
    text = "q1 Q0 d1 1 2.5 t\nq1\tQ0\td2\t2\t-1e3\tt\n\nq2  Q0  d3 1   7 t\n"
    plain, packed = tmp_path / "run.txt", tmp_path / "run.txt.gz"
    plain.write_text(text)
    with gzip.open(packed, "wt") as handle:
        handle.write(text)
    for path in (plain, packed):
        frame = read_run(path)
        assert frame["query_id"].tolist() == ["q1", "q1", "q2"]
        assert frame["doc_id"].tolist() == ["d1", "d2", "d3"]
        assert frame["score"].tolist() == [2.5, -1000.0, 7.0]


@pytest.mark.parametrize("reader", ["pyarrow", "pandas", "python"])
def test_every_reader_gives_the_same_table(tmp_path, reader, monkeypatch):
    path = tmp_path / "qrels"
    path.write_text("1 0 a 1\n1 0 b 0\n2 0 a 2\n")
    if reader != "pyarrow":
        monkeypatch.setattr(_read, "_read_pyarrow", lambda *a: None)
    if reader == "python":
        monkeypatch.setattr(_read, "_read_pandas", lambda *a: None)
    table = _read._load_file(path, "qrels")
    assert table.query_labels[table.query].tolist() == ["1", "1", "2"]
    assert table.doc_labels[table.doc].tolist() == ["a", "b", "a"]
    assert table.value.tolist() == [1.0, 0.0, 2.0]


@pytest.mark.parametrize("reader", ["pyarrow", "pandas", "python"])
def test_comment_lines_are_skipped_as_trec_eval_10_does(tmp_path, reader, monkeypatch):
    # a line starting with "#" is a comment; a "#" inside a document id is data
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("# judged by hand\n1 0 a 1\n# next one\n1 0 CR#93E-1860 0\n")
    run.write_text("# my run\n1\tQ0\ta\t1\t  2.5\tSTANDARD\n"
                   "# more\n1\tQ0\tb\t2\t  1.5\tSTANDARD\n")
    if reader != "pyarrow":
        monkeypatch.setattr(_read, "_read_pyarrow", lambda *a: None)
    if reader == "python":
        monkeypatch.setattr(_read, "_read_pandas", lambda *a: None)
    frame = read_qrels(qrels)
    assert frame["doc_id"].tolist() == ["a", "CR#93E-1860"]
    assert frame["relevance"].tolist() == [1, 0]
    frame = read_run(run)
    assert frame["doc_id"].tolist() == ["a", "b"]
    assert frame["score"].tolist() == [2.5, 1.5]


def _file_bytes(ids):
    """Ids read from a file, as the bytes they were in it."""
    return [i.encode("utf-8", "surrogateescape") for i in ids]


def test_read_qrels_and_run_keep_ids_that_are_not_utf8(tmp_path):
    # a UTF-8 byte-order mark, then a latin-1 byte in an id: pandas 3's
    # pyarrow-backed strings refused the id (UnicodeEncodeError)
    (tmp_path / "qrels").write_bytes(b"\xef\xbb\xbfq1 0 a 1\nq1 0 b 0\nq3 0 caf\xe9 1\n")
    frame = read_qrels(tmp_path / "qrels")
    assert _file_bytes(frame["query_id"]) == [b"q1", b"q1", b"q3"]  # no mark
    assert _file_bytes(frame["doc_id"]) == [b"a", b"b", b"caf\xe9"]
    assert frame["relevance"].tolist() == [1.0, 0.0, 1.0]
    (tmp_path / "run").write_bytes(b"Q\xe9 Q0 caf\xe9 1 2 r\nQ\xe9 Q0 caf\xe8 2 1 r\nq1 Q0 a 1 1 r\n")
    frame = read_run(tmp_path / "run")
    assert _file_bytes(frame["query_id"]) == [b"Q\xe9", b"Q\xe9", b"q1"]
    assert _file_bytes(frame["doc_id"]) == [b"caf\xe9", b"caf\xe8", b"a"]
    assert len(set(frame["doc_id"])) == 3  # (pandas 2.0's own nunique() says 2)


def test_per_query_frame_keeps_query_ids_that_are_not_utf8(tmp_path):
    from skrank import evaluate_run

    (tmp_path / "qrels").write_bytes(b"Q\xe9 0 a 1\nQ\xe8 0 a 1\n")
    (tmp_path / "run").write_bytes(b"Q\xe9 Q0 a 1 1 r\nQ\xe8 Q0 b 1 1 r\n")
    frame = evaluate_run(tmp_path / "qrels", tmp_path / "run", ["map"]).to_frame()
    assert sorted(_file_bytes(frame.index)) == [b"Q\xe8", b"Q\xe9"]
    assert frame["map"].sort_index().tolist() == [0.0, 1.0]  # Q\xe8 missed a


def test_many_ids_that_are_not_utf8_are_looked_up_exactly():
    from skrank.io._tables import indexer

    # over 200,000 ids: the lookup a pandas Index would do; these ids made
    # pandas 2.0 match wrong labels and pandas 3 raise
    labels = np.array([f"d{i}" for i in range(150_000)]
                      + [bytes([0x80 + i % 64, 0xc0 + i // 64]).decode("utf-8", "surrogateescape")
                         for i in range(2048)], dtype=object)
    targets = labels[::-1].copy()
    expected = np.arange(labels.shape[0])[::-1]
    np.testing.assert_array_equal(indexer(labels, targets), expected)
    missing = np.array([b"\xff\xfe".decode("utf-8", "surrogateescape")] * 60_000, dtype=object)
    assert (indexer(labels, missing) == -1).all()


def test_ids_with_a_nul_inside_stay_apart():
    from skrank import evaluate_run

    # pandas 2.0's string hash table reads a str up to its first NUL: it gave
    # "q\0a" and "q\0b" one code, so q\0b's "d" looked like a duplicate of
    # q\0a's. By hand: q\0a AP 1 (its one relevant first); q\0b AP 1/2 (its
    # one relevant, "e", second)
    qrels = {"q\0a": {"d": 1}, "q\0b": {"d": 0, "e": 1}}
    run = {"q\0a": {"d": 1.0}, "q\0b": {"d": 2.0, "e": 1.0}}
    result = evaluate_run(qrels, run, ["map", "num_q"])
    assert result.mean == {"map": 0.75, "num_q": 2.0}


def test_line_numbers_count_comment_lines(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("# a comment\n1 0 a 1\n1 0 b\n")
    with pytest.raises(ValueError, match=r"qrels:3: malformed qrels line '1 0 b'"):
        read_qrels(path)


@pytest.mark.parametrize("line, kind", [
    ("q1 Q0 d1 1 2.5", "run"),           # a field missing
    ("q1 Q0 d1 1 high t", "run"),        # a score that is not a number
    ("q1 Q0 d1 1 nan t", "run"),
    ("q1 0 d1", "qrels"),
    ("q1 0 d1 yes", "qrels"),
])
def test_malformed_line_names_file_and_line(tmp_path, line, kind):
    path = tmp_path / "input"
    good = "q0 Q0 d0 1 1.0 t\n" if kind == "run" else "q0 0 d0 1\n"
    path.write_text(good * 3 + line + "\n" + good)
    read = read_run if kind == "run" else read_qrels
    with pytest.raises(ValueError, match=rf"{path}:4: malformed {kind} line"):
        read(path)


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_qrels(tmp_path / "absent")


def test_without_pandas_the_error_names_the_install_that_works(tmp_path, monkeypatch):
    import sys

    path = tmp_path / "qrels"
    path.write_text("1 0 a 1\n")
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError,
                       match=r"read_qrels\(\) needs pandas.*`pip install pandas`"):
        read_qrels(str(path))


@pytest.mark.parametrize("private_module", [True, False])
def test_arrow_kernels_with_or_without_pyarrows_private_compute_module(
        private_module, monkeypatch):
    # the command calls pyarrow's kernels without importing pyarrow.compute;
    # a pyarrow whose private module lacks them falls back to the public one
    import types

    pa = needs("pyarrow")
    from skrank.io._arrow import arrow_call, arrow_options

    if not private_module:
        import pyarrow.compute  # noqa: F401 - loaded before its private part is hidden

        monkeypatch.setitem(sys.modules, "pyarrow._compute",
                            types.ModuleType("pyarrow._compute"))
    docs = pa.array(["b", "a", "zz", "a"])
    index = arrow_call("index_in", docs, options=arrow_options(
        "SetLookupOptions", value_set=pa.array(["a", "zz"])))
    assert index.to_pylist() == [None, 0, 1, 0]
    padded = arrow_call("utf8_rpad", docs, options=arrow_options(
        "PadOptions", width=3, padding="\x00"))
    assert padded.to_pylist() == ["b\x00\x00", "a\x00\x00", "zz\x00", "a\x00\x00"]
    assert arrow_call("take", docs, pa.array([2, 0])).to_pylist() == ["zz", "b"]


@pytest.mark.parametrize("text, expected", [
    ("q1 Q0 d1 1 2.5 r\n" * 9, " "),
    ("q1\tQ0\td1\t1\t2.5\tr\n" * 9, "\t"),
    ("q1 Q0 d1 1 2.5 r\n" * 9 + "q1\tQ0\td2\t2\t1.5\tr\n", None),  # both, blocks apart
    ("q1 Q0 d1 1 2.5 r\n" * 9 + "#q1 Q0 d2 2 1.5 r\n", None),  # a comment, late
    ("q1 Q0 d1 1 2 rr\n#q1 Q0 d2 2 1.5 r\n", None),  # a comment starts the 2nd block
    ("#q1 Q0 d2 2 1.5 r\n" + "q1 Q0 d1 1 2.5 r\n" * 3, None),  # the first line
    ("q1 Q0 d#1 1 2.5 r\n" * 9 + "q1 Q0 #d2 2 1.5 r#\n", " "),  # "#" in ids: no comment
    ("q1 Q0 d1 1 2.5 r\n" * 9 + "q1 Q0 d2 2 1.5 r\r\n", None),
    ("q1 Q0 d1 1 2.5 r\n" * 9 + "q1 Q0 d2 2 1.5\vr\n", None),
    ("\ufeffq1 Q0 d1 1 2.5 r\n", None),  # a byte-order mark
])
def test_plain_delimiter_scans_every_block(tmp_path, monkeypatch, text, expected):
    # blocks of 16 bytes: what decides is never in the first block
    monkeypatch.setattr(_scan, "_SCAN_BLOCK", 16)
    path = tmp_path / "run"
    path.write_bytes(text.encode())
    assert _scan._plain_delimiter(str(path)) == expected


def test_plain_delimiter_leaves_gzip_to_the_other_readers(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(gzip.compress(b"q1 Q0 d1 1 2.5 r\n"))
    assert _scan._plain_delimiter(str(path)) is None


@pytest.mark.parametrize("codes, expected", [
    ([0, 0, 1, 1, 1, 2], True),   # each id's lines together
    ([0, 1, 0, 2], False),        # id 0 comes back
    ([0], True),
])
def test_grouped_by_query_on_first_appearance_codes(codes, expected):
    assert _read.grouped_by_query(np.array(codes)) is expected


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_numeric_fills_nulls_in_every_chunk_and_slice(dtype):
    # pyarrow columns (chunks, slices with an offset, nulls) read as one
    # numpy array, each null as `fill`, without importing pandas
    pa = needs("pyarrow")
    from skrank.io._arrow import numeric

    values = [[3, None, 5, None], [None], [7, 8], [None, 9, None, 10, 11]]
    chunks = [pa.array(v, type=pa.from_numpy_dtype(np.dtype(dtype))) for v in values]
    chunks[3] = chunks[3].slice(1, 3)  # 9, None, 10: an offset into the buffers
    column = pa.chunked_array(chunks)
    expected = [-1 if v is None else v
                for v in [3, None, 5, None, None, 7, 8, 9, None, 10]]
    got = numeric(column, np.dtype(dtype), fill=-1)
    assert got.dtype == np.dtype(dtype)
    assert got.tolist() == expected
    assert numeric(column, np.dtype(dtype)) is None  # nulls and no fill
    assert numeric(chunks[2], np.dtype(dtype)).tolist() == [7, 8]
