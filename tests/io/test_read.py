"""The TREC readers: formats, gzip, errors naming file and line, the fallbacks."""

import gzip

import pytest

from skrank import read_qrels, read_run
from skrank.io import _read


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
