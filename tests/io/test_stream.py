"""Runs measured a piece at a time: pieces of whole queries, and ``--stream`` on grouped runs.

Queries are independent, so measuring a run in pieces must give, bit for
bit, the numbers of one layout of the whole run; the expected values are
the whole-run numbers (themselves checked against trec_eval's rules in
test_trec_hostile.py and against pytrec_eval in test_evaluate_run.py).
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from skrank.io import _evaluate, _pieces, _read

pytest.importorskip("pyarrow")

MEASURES = ["num_ret", "num_rel", "num_rel_ret", "map", "P_5", "recip_rank", "bpref",
            "ndcg_cut_10", "iprec_at_recall_0.50", "mrr"]


def _files(tmp_path, seed, grouped=True, n_queries=40):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in rng.permutation(n_queries):
        n = int(rng.integers(1, 30))
        for d in range(n):
            if rng.random() < 0.6:
                qrels.append(f"q{q} 0 d{d} {int(rng.choice([-1, 0, 1, 2]))}")
            if rng.random() < 0.8:
                run.append(f"q{q} Q0 d{d} 0 {int(rng.integers(0, 5)) / 4} tag")
    qrels.append("never 0 d1 1")  # a qrels query the run lacks
    run.append("unjudged Q0 d1 0 1.0 tag")  # a run query the qrels lack
    if not grouped:
        run = [run[i] for i in rng.permutation(len(run))]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return tmp_path / "qrels", tmp_path / "run"


def _evaluate_run(qrels, run, stream, **options):
    base = dict(compat=None, relevance_level=1, complete_qrels=False, judged_docs_only=False,
                max_docs=None, ties="input", no_relevant="zero")
    base.update(options)
    return _evaluate._evaluate_run(qrels, run, MEASURES, stream=stream, **base)


def _same(a, b):
    assert a.mean == b.mean
    assert a.query_ids.tolist() == b.query_ids.tolist()
    for name in a.per_query:
        np.testing.assert_array_equal(a.per_query[name].value, b.per_query[name].value)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", [
    {}, {"compat": "trec_eval"}, {"complete_qrels": True}, {"judged_docs_only": True},
    {"compat": "trec_eval", "max_docs": 3, "judged_docs_only": True, "relevance_level": 0},
])
@pytest.mark.parametrize("grouped", [False, True])  # pieces taken, or sliced
def test_pieces_of_whole_queries_give_the_numbers_of_one_layout(tmp_path, monkeypatch,
                                                                seed, options, grouped):
    qrels, run = _files(tmp_path, seed, grouped=grouped)
    whole = _evaluate_run(qrels, run, False, **options)
    monkeypatch.setattr(_pieces, "CHUNK_LINES", 7)  # many pieces
    _same(_evaluate_run(qrels, run, False, **options), whole)


@pytest.mark.parametrize("grouped", [False, True])
@pytest.mark.parametrize("duplicate", [False, True])
def test_pieces_joined_ahead_or_beside_give_the_same_numbers_and_errors(
        tmp_path, monkeypatch, grouped, duplicate):
    # a run grouped by query has each piece joined and checked on one
    # thread a piece ahead of its layout; other runs (and streams) have the
    # layout join beside it: either way, the same numbers, the same error
    qrels, run = _files(tmp_path, 2, grouped=grouped)
    if duplicate:  # in a later piece than the first, in a query's own lines
        lines = run.read_text().splitlines()
        lines.insert(50, lines[49])
        run.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(_pieces, "CHUNK_LINES", 7)
    measure = _evaluate._measure
    seen = []

    def outcome(ahead):
        def forced(*args, **kwargs):
            seen.append(kwargs["ahead"])
            return measure(*args, **{**kwargs, "ahead": ahead})

        monkeypatch.setattr(_evaluate, "_measure", forced)
        try:
            return _evaluate_run(qrels, run, False, compat="trec_eval")
        except ValueError as exc:
            return str(exc)

    joined_ahead, beside = outcome(True), outcome(False)
    assert seen == [grouped, grouped]  # ahead by default for a grouped run only
    if duplicate:
        assert "appears twice" in joined_ahead and joined_ahead == beside
    else:
        _same(joined_ahead, beside)


@pytest.mark.parametrize("grouped", [False, True])
def test_a_grouped_run_is_cut_in_file_order_into_ranges(tmp_path, monkeypatch, grouped):
    # its queries come in no sorted order: pieces in trec_eval's order of
    # queries would gather lines from all over the file
    qrels, run = _files(tmp_path, 5, grouped=grouped)
    monkeypatch.setattr(_pieces, "CHUNK_LINES", 7)
    qrels_table = _read.as_table(str(qrels), "qrels", "qrels", None)
    run_table = _read.as_table(str(run), "run", "run", None)
    pieces, in_file_order = _pieces._pieces(qrels_table, run_table, complete_qrels=True)
    assert in_file_order == grouped
    pieces = list(pieces)
    assert len(pieces) > 5
    if grouped:  # ranges of lines, in file order, and the lines of no query split
        starts = [int(p[1].origin[0]) for p in pieces if len(p[1])]
        assert starts == sorted(starts)
        for _, piece_run, _, _ in pieces[:-1]:
            assert np.array_equal(piece_run.origin, np.arange(piece_run.origin[0],
                                                              piece_run.origin[-1] + 1))
        assert len(pieces[-1][1]) == 0  # the qrels query without a line, scored at 0
    owners = [set(p[1].query_labels[p[1].query].tolist()) for p in pieces]
    for a in range(len(owners)):
        for b in range(a + 1, len(owners)):
            assert not owners[a] & owners[b]


@pytest.mark.parametrize("grouped", [False, True])
def test_a_duplicate_in_a_piece_names_its_line(tmp_path, monkeypatch, grouped):
    qrels, run = _files(tmp_path, 3, grouped=grouped)
    lines = run.read_text().splitlines()
    # the 30th line again, inserted right after the 40th
    duplicate = lines[29]
    lines.insert(40, duplicate)
    run.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(_pieces, "CHUNK_LINES", 7)
    query, _, doc = duplicate.split()[:3]
    with pytest.raises(ValueError, match=rf"document '{doc}' appears twice in query "
                                         rf"'{query}' \(line (30|41) of the run\)"):
        _evaluate_run(qrels, run, False)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", [
    {}, {"compat": "trec_eval"}, {"complete_qrels": True},
    {"compat": "trec_eval", "max_docs": 3, "judged_docs_only": True},
])
def test_a_grouped_run_streamed_in_small_blocks_gives_the_same_numbers(
        tmp_path, monkeypatch, seed, options):
    qrels, run = _files(tmp_path, seed, grouped=True)
    whole = _evaluate_run(qrels, run, False, **options)
    monkeypatch.setattr(_pieces, "BLOCK_BYTES", 200)  # a query spans several blocks
    read_whole = []
    monkeypatch.setattr(_evaluate, "as_table", _spy(_evaluate.as_table, read_whole))
    _same(_evaluate_run(qrels, run, True, **options), whole)
    assert read_whole == ["qrels"]  # the run itself was never read whole


def _spy(func, calls):
    def spied(value, kind, *args):
        calls.append(kind)
        return func(value, kind, *args)
    return spied


def test_a_run_that_is_not_grouped_is_read_whole_with_the_same_numbers(tmp_path, monkeypatch):
    qrels, run = _files(tmp_path, 7, grouped=False)
    monkeypatch.setattr(_pieces, "BLOCK_BYTES", 200)
    _same(_evaluate_run(qrels, run, True), _evaluate_run(qrels, run, False))


def test_a_malformed_line_is_named_when_streaming(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 0 1 t\nq1 Q0 d2 0 x t\n")
    with pytest.raises(ValueError, match=r"run:2: malformed run line"):
        _evaluate_run(tmp_path / "qrels", tmp_path / "run", True)


def test_the_command_streams(tmp_path):
    qrels, run = _files(tmp_path, 3, grouped=True)
    outputs = []
    for flag in ([], ["--stream"]):
        done = subprocess.run(
            [sys.executable, "-m", "skrank", "evaluate", str(qrels), str(run), "-q",
             "--format", "json", "--compat", "trec_eval", "-m", "map", "-m", "P_5", *flag],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]



@pytest.mark.parametrize("path", ["whole", "pieces", "stream"])
@pytest.mark.parametrize("grouped", [False, True])
def test_the_lines_of_a_query_the_qrels_lack_are_dropped_before_any_check(
        tmp_path, monkeypatch, path, grouped):
    # trec_eval drops a run query without judgments right after reading it:
    # a document twice in it is no error, and its lines change nothing
    qrels, run = _files(tmp_path, 2, grouped=grouped)
    expected = _evaluate_run(qrels, run, False)  # one line of query "unjudged"
    lines = run.read_text().splitlines()
    extra = [f"unjudged Q0 d{i % 3} 0 {i} tag" for i in range(12)]  # d0, d1, d2 again
    if grouped:
        at = lines.index("unjudged Q0 d1 0 1.0 tag")
        lines[at + 1:at + 1] = extra
    else:  # spread through the run
        lines = lines[:1] + [x for pair in zip(extra, lines[1:]) for x in pair] + lines[13:]
    run.write_text("\n".join(lines) + "\n")
    if path == "pieces":
        monkeypatch.setattr(_pieces, "CHUNK_LINES", 7)
    if path == "stream":
        monkeypatch.setattr(_pieces, "BLOCK_BYTES", 200)
    _same(_evaluate_run(qrels, run, path == "stream"), expected)


def test_trec_eval_ignores_a_duplicate_in_a_query_the_qrels_lack(tmp_path):
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not binary:
        pytest.skip("no trec_eval binary (set TREC_EVAL=path to one built from NIST's sources)")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "run").write_text("q1 Q0 d2 1 2 r\nq1 Q0 d1 2 1 r\n"
                                  "q9 Q0 d1 1 2 r\nq9 Q0 d1 2 1 r\n")
    files = [str(tmp_path / "qrels"), str(tmp_path / "run")]
    want = subprocess.run([binary, "-m", "map", *files], capture_output=True, text=True)
    assert want.returncode == 0 and want.stdout.split() == ["map", "all", "0.5000"]
    got = subprocess.run([sys.executable, "-m", "skrank", "evaluate", *files, "-m", "map",
                          "--compat", "trec_eval", "--format", "trec"],
                         capture_output=True, text=True, timeout=120)
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout
