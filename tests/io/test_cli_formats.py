"""Every ``--format`` of ``skrank evaluate``, with and without ``-q``, parsed back.

Machine-readable output is read with the standard library's csv and json
modules; every value must be a plain number equal to the hand-worked one.
"""

import csv
import io
import json
import subprocess
import sys

import pytest

# q1: d1 relevant at rank 2 (d2 above it): AP 1/2; q2: nothing relevant: 0;
# q3: d1 relevant at rank 1: AP 1. MAP over the three: 1/2. num_rel: 1, 0, 1.
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 0\nq3 0 d1 1\n"
RUN = "q1 Q0 d1 1 1 r\nq1 Q0 d2 1 2 r\nq2 Q0 d5 1 1 r\nq3 Q0 d1 1 1 r\n"
EXPECTED = {"map": {"q1": 0.5, "q2": 0.0, "q3": 1.0, "all": 0.5},
            "num_rel": {"q1": 1.0, "q2": 0.0, "q3": 1.0, "all": 2.0}}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path


def _skrank(*args):
    done = subprocess.run([sys.executable, "-m", "skrank", "evaluate", *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("per_query", [False, True])
def test_csv_holds_plain_numbers(files, per_query):
    out = _skrank(files / "qrels", files / "run", "-m", "map", "-m", "num_rel",
                  "--format", "csv", *(["-q"] if per_query else []))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and set(rows[0]) == {"run", "measure", "query", "value"}
    seen = {(r["measure"], r["query"]): float(r["value"]) for r in rows}  # plain floats
    expected = {(m, q): v for m, values in EXPECTED.items() for q, v in values.items()
                if per_query or q == "all"}
    assert seen == expected


@pytest.mark.parametrize("per_query", [False, True])
def test_json_holds_plain_numbers(files, per_query):
    out = _skrank(files / "qrels", files / "run", "-m", "map", "-m", "num_rel",
                  "--format", "json", *(["-q"] if per_query else []))
    data = json.loads(out, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))
    assert data["mean"] == {m: values["all"] for m, values in EXPECTED.items()}
    if per_query:
        assert data["per_query"] == {
            m: {q: v for q, v in values.items() if q != "all"} for m, values in EXPECTED.items()}
    else:
        assert "per_query" not in data


def test_json_holds_skrank_metric_names_per_query(files):
    # mrr: 1/2, 0 (no relevant document: 0, trec_eval's rule), 1
    out = _skrank(files / "qrels", files / "run", "-m", "mrr", "--format", "json", "-q")
    data = json.loads(out, parse_constant=lambda name: pytest.fail(f"not JSON: {name}"))
    assert data["per_query"]["mrr"] == {"q1": 0.5, "q2": 0.0, "q3": 1.0}


@pytest.mark.parametrize("per_query", [False, True])
def test_trec_format_holds_four_decimals(files, per_query):
    out = _skrank(files / "qrels", files / "run", "-m", "map", "-m", "num_rel",
                  "--format", "trec", *(["-q"] if per_query else []))
    seen = {}
    for line in out.splitlines():
        name, query, value = line.split("\t")
        seen[(name.strip(), query)] = value
    expected = {(m, q): (str(int(v)) if m == "num_rel" else f"{v:.4f}")
                for m, values in EXPECTED.items() for q, v in values.items()
                if per_query or q == "all"}
    assert seen == expected


@pytest.mark.parametrize("per_query", [False, True])
def test_table_format_notes_queries_without_a_relevant_document(files, per_query):
    out = _skrank(files / "qrels", files / "run", "-m", "map",
                  *(["-q"] if per_query else []))
    assert "0.5000" in out
    assert ("note: 1 of 3 queries of " in out and "they score 0 and count in every mean"
            in out and "no_relevant='skip'" in out)


def test_swapped_files_get_a_hint(files):
    done = subprocess.run([sys.executable, "-m", "skrank", "evaluate", str(files / "run"),
                           str(files / "qrels")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "malformed qrels line" in done.stderr
    assert "is it a run? the qrels come first: skrank evaluate QRELS RUN" in done.stderr


def test_non_utf8_ids_are_written_back_as_their_bytes(tmp_path):
    (tmp_path / "qrels").write_bytes(b"caf\xe9 0 d1 1\n")
    (tmp_path / "run").write_bytes(b"caf\xe9 Q0 d1 1 1 r\n")
    done = subprocess.run([sys.executable, "-m", "skrank", "evaluate", str(tmp_path / "qrels"),
                           str(tmp_path / "run"), "-m", "map", "-q", "--format", "trec"],
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"\tcaf\xe9\t1.0000" in done.stdout


def test_stream_reports_a_malformed_line_from_a_subprocess(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 0 1 t\nq1 Q0 d2 0 x t\n")
    done = subprocess.run([sys.executable, "-m", "skrank", "evaluate", str(tmp_path / "qrels"),
                           str(tmp_path / "run"), "--stream"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith("skrank: error: ") and "run:2: malformed run line" in done.stderr
    assert "Traceback" not in done.stderr


def test_explain_from_a_subprocess(files):
    # ndcg@2 under ranx's rules (q2, no relevant document: 0) and LightGBM's
    # (q2 scores 1): the explanation names that step. (scikit-learn's own
    # ndcg_score refuses q2's one-row ranking, and so does its preset.)
    args = [sys.executable, "-m", "skrank", "explain", str(files / "qrels"),
            str(files / "run"), "-m", "ndcg@2", "--a", "ranx"]
    done = subprocess.run([*args, "--b", "lightgbm"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ndcg@2:") and "no_relevant" in done.stdout
    done = subprocess.run([*args, "--b", "no-such-tool"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("skrank")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("lines_read", [0, 1])
def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path, lines_read):
    # `skrank evaluate ... -q | head -1`: 20,000 per-query lines (about 300 kB,
    # more than a pipe holds), and the reader closes the pipe after a line or
    # at once; the command stops with status 0 and nothing on stderr, as Unix
    # tools do (it printed "skrank: error: [Errno 32] Broken pipe", status 2)
    n = 20_000
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 d1 1\n" for i in range(n)))
    (tmp_path / "run").write_text("".join(f"q{i} Q0 d1 1 1 r\n" for i in range(n)))
    process = subprocess.Popen(
        [sys.executable, "-m", "skrank", "evaluate", str(tmp_path / "qrels"),
         str(tmp_path / "run"), "-m", "map", "-q"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    first = [process.stdout.readline() for _ in range(lines_read)]
    process.stdout.close()
    try:
        stderr = process.stderr.read().decode()
        status = process.wait(timeout=120)
    finally:
        process.kill()
    assert [line.split() for line in first] == [[b"query", b"map"]][:lines_read]
    assert stderr == ""
    assert status == 0
