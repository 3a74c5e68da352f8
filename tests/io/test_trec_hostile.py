"""Hostile TREC files: skrank's reader and evaluate_run against trec_eval 10.0's rules.

The reference below is trec_eval's pipeline as its C source writes it
(get_qrels.c, get_trec_results.c, form_res_rels.c, m_map.c, m_bpref.c, ...),
in plain Python on bytes: fields split on C's isspace, relevance read with
atol and scores with atof, ties broken by document id descending, -M before
-J, negative judgments in the pool but unjudged. Each test of a single
mistake gives its expected number by hand from those rules.
"""

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest

from skrank import evaluate_run, read_qrels, read_run
from skrank.io import _read

from .._needs import needs

# ------------------------------------------------------------ reference --

_ATOL = re.compile(rb"[ \t\n\v\f\r]*([+-]?\d+)")


def _atol(token):
    match = _ATOL.match(token)
    return int(match.group(1)) if match else 0


def _atof(token):
    match = re.match(rb"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", token)
    return float(match.group()) if match else 0.0


def _trec_eval(qrels_bytes, run_bytes, *, level=1, judged_only=False, max_docs=None,
               complete=False):
    """Per-query num_ret, num_rel, num_rel_ret, map, P_5, recip_rank, bpref; and means."""
    judgments = {}
    for line in qrels_bytes.split(b"\n"):
        if line.startswith(b"#") or not line.split():
            continue
        qid, _, docno, rel = line.split()
        judgments.setdefault(qid, {})[docno] = _atol(rel)
    results = {}
    for line in run_bytes.split(b"\n"):
        line = line.lstrip(b" \t\v\f\r")
        if not line or line.startswith(b"#"):
            continue
        qid, _, docno, _, sim = line.split()[:5]
        results.setdefault(qid, []).append((docno, _atof(sim)))
    per_query = {}
    for qid in sorted(judgments):  # strcmp order
        if qid not in results and not complete:
            continue
        ranked = sorted(results.get(qid, []), key=lambda d: (d[1], d[0]), reverse=True)
        ranked = ranked[:max_docs] if max_docs is not None else ranked
        rels = []
        for docno, _ in ranked:
            rel = judgments[qid].get(docno, -1)  # RELVALUE_NONPOOL
            rels.append(-2 if rel < -1 or (docno in judgments[qid] and rel < 0) else rel)
        if judged_only:
            rels = [r for r in rels if r >= 0]
        pool = [r for r in judgments[qid].values() if r >= 0]
        num_rel = sum(r >= level for r in pool)
        num_nonrel = sum(r < level for r in pool)
        hits, total, rr, nonrel, bpref = 0, 0.0, 0.0, 0, 0.0
        for rank, rel in enumerate(rels, start=1):
            if rel >= level and rel >= 0:
                hits += 1
                total += hits / rank
                rr = rr or 1.0 / rank
                bpref += 1.0 - (min(nonrel, num_rel) / min(num_nonrel, num_rel)
                                if nonrel else 0.0)
            elif 0 <= rel < level:
                nonrel += 1
        per_query[qid.decode("utf-8", "surrogateescape")] = {
            "num_ret": len(rels), "num_rel": num_rel, "num_rel_ret": hits,
            "map": total / num_rel if num_rel else 0.0,
            "P_5": sum(1 for r in rels[:5] if r >= level and r >= 0) / 5,
            "recip_rank": rr, "bpref": bpref / num_rel if num_rel else 0.0,
        }
    return per_query


MEASURES = ["num_ret", "num_rel", "num_rel_ret", "map", "P_5", "recip_rank", "bpref"]


def _assert_matches(tmp_path, qrels_bytes, run_bytes, gz=False, **flags):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_bytes(qrels_bytes)
    run_path.write_bytes(gzip.compress(run_bytes) if gz else run_bytes)
    options = dict(relevance_level=flags.get("level", 1),
                   judged_docs_only=flags.get("judged_only", False),
                   max_docs=flags.get("max_docs"),
                   complete_qrels=flags.get("complete", False))
    expected = _trec_eval(qrels_bytes, run_bytes, **flags)
    got = evaluate_run(qrels_path, run_path, MEASURES, compat="trec_eval", **options)
    assert list(got.query_ids) == list(expected), flags
    for name in MEASURES:
        values = got.per_query[name].value
        want = np.array([expected[q][name] for q in got.query_ids], dtype=float)
        np.testing.assert_allclose(values, want, rtol=0, atol=1e-12, err_msg=f"{name} {flags}")


# -------------------------------------------------------- random files --

_SEPARATORS = [b" ", b"\t", b" \t", b"\t ", b"  ", b"\x0b", b"\x0c", b" \x0c "]


def _hostile_files(rng):
    """A qrels and a run with mixed white space, comments, blank lines, BOM,
    ids that are not UTF-8, negative judgments and ties."""
    def sep():
        return _SEPARATORS[rng.integers(len(_SEPARATORS))]

    def edge():
        return [b"", b" ", b"\t", b"\x0b"][rng.integers(4)]

    alphabet = [b"d", b"D", b"caf\xe9", b"caf\xe8", b"caf\xc3\xa9", b"x#", b"\xff", b"e\xe2\x80\xa8"]
    queries = [b"q1", b"q2", b"q10", b"Q\xe9"][: rng.integers(1, 5)]
    qrels_lines, run_lines = [], []
    for q in queries:
        docs = list(dict.fromkeys(
            alphabet[rng.integers(len(alphabet))] + str(rng.integers(8)).encode()
            for _ in range(rng.integers(1, 10))
        ))
        for d in docs:
            if rng.random() < 0.7:
                grade = int(rng.choice([-1, 0, 0, 1, 1, 2]))
                qrels_lines.append(q + sep() + b"0" + sep() + d + sep() + str(grade).encode())
            if rng.random() < 0.8:
                score = str(int(rng.integers(0, 4)) / 2).encode()  # many ties
                line = edge() + q + sep() + b"Q0" + sep() + d + sep() + b"1" + sep() + score \
                    + sep() + b"run" + edge()
                run_lines.append(line)
        if rng.random() < 0.3:
            run_lines.append(b"# a comment" + sep() + b"with fields")
        if rng.random() < 0.3:
            run_lines.append(edge())  # a blank line
    rng.shuffle(run_lines)
    if rng.random() < 0.2:
        qrels_lines.insert(0, b"# judged by hand")
    end = b"\r\n" if rng.random() < 0.2 else b"\n"
    qrels = b"\n".join(qrels_lines) + b"\n"
    run = end.join(run_lines) + end
    return qrels, run


@pytest.mark.parametrize("seed", range(25))
def test_hostile_files_match_trec_eval_under_every_flag(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, run = _hostile_files(rng)
    if not any(line.split() and not line.lstrip().startswith(b"#") for line in run.split(b"\n")):
        run += b"q1 Q0 only-here 1 1 run\n"
    shared = {line.split()[0] for line in qrels.split(b"\n") if line.split()
              and not line.startswith(b"#")} & {
        line.split()[0] for line in run.split(b"\n") if line.split()
        and not line.lstrip().startswith(b"#")}
    for level in (0, 1, 2):
        for judged_only in (False, True):
            for max_docs in (None, 3):
                for complete in (False, True):
                    if not shared and not complete:
                        with pytest.raises(ValueError, match="share no query id"):
                            _assert_matches(tmp_path, qrels, run, level=level)
                        continue
                    _assert_matches(tmp_path, qrels, run, gz=bool(seed % 2), level=level,
                                    judged_only=judged_only, max_docs=max_docs,
                                    complete=complete)


@pytest.mark.parametrize("seed", range(6))
def test_a_byte_order_mark_is_dropped_by_every_reader(tmp_path, seed, monkeypatch):
    rng = np.random.default_rng(seed)
    qrels, run = _hostile_files(rng)
    run += b"q1 Q0 only-here 1 1 run\n"
    expected = _trec_eval(qrels, run, complete=True)
    (tmp_path / "qrels").write_bytes(b"\xef\xbb\xbf" + qrels)
    (tmp_path / "run").write_bytes(b"\xef\xbb\xbf" + run)
    if seed % 2:  # the pure-Python reader, as for a file pyarrow refuses
        monkeypatch.setattr(_read, "_read_pyarrow", lambda *a: None)
        monkeypatch.setattr(_read, "_read_pandas", lambda *a: None)
    got = evaluate_run(tmp_path / "qrels", tmp_path / "run", ["map"], compat="trec_eval",
                       complete_qrels=True)
    assert list(got.query_ids) == list(expected)
    np.testing.assert_allclose(got.per_query["map"].value,
                               [expected[q]["map"] for q in got.query_ids], atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_truncated_gzip_is_a_clear_error_naming_the_file(tmp_path, seed):
    rng = np.random.default_rng(seed)
    packed = gzip.compress(b"q1 Q0 d1 1 1 r\n" * 200)
    cut = packed[: int(rng.integers(2, len(packed) - 1))]
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run.gz").write_bytes(cut)
    with pytest.raises(ValueError, match=r"run\.gz: starts as a gzip file but cannot be"):
        evaluate_run(tmp_path / "qrels", tmp_path / "run.gz", ["map"])
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8bnot gzip at all")
    with pytest.raises(ValueError, match=r"bad\.gz: starts as a gzip file"):
        read_run(tmp_path / "bad.gz")


def test_a_crc_error_names_the_file(tmp_path):
    packed = bytearray(gzip.compress(b"q1 Q0 d1 1 1 r\n" * 50))
    packed[-8] ^= 0xFF  # the CRC32 of the trailer
    (tmp_path / "run.gz").write_bytes(bytes(packed))
    with pytest.raises(ValueError, match=r"run\.gz: starts as a gzip file.*CRC"):
        read_run(tmp_path / "run.gz")


# ------------------------------------------------- one mistake at a time --

QRELS = b"q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\n"


def _run(tmp_path, qrels, run, measures, **options):
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    return evaluate_run(tmp_path / "q", tmp_path / "r", measures, **options).mean


@pytest.mark.parametrize("run", [
    b"\tq1 Q0 d1 1 1 r\nq1 Q0 d9 2 3 r\nq1 Q0 d2 3 0.5 r\n",        # a leading tab
    b"q1\tQ0\td1\t1\t1\tr\nq1\tQ0 d9\t2\t3\tr\nq1\tQ0\td2\t3\t0.5\tr\n",  # a space among tabs
    b"q1 Q0 d1\t 1 1 r\nq1 Q0 d9 2 3 r\nq1\x0bQ0\x0cd2 3 0.5 r\n",  # tab + space, \v, \f
])
def test_any_run_of_white_space_separates_fields(tmp_path, run):
    # ranking d9 (unjudged), d1, d2: AP = (1/2 + 2/3) / 2, as trec_eval prints
    for compat in (None, "trec_eval"):
        mean = _run(tmp_path, QRELS, run, ["map", "num_ret"], compat=compat)
        assert mean == pytest.approx({"map": (1 / 2 + 2 / 3) / 2, "num_ret": 3})


def test_relevance_level_zero_counts_judged_documents_only(tmp_path):
    # -l 0: every judged document is relevant (d1, d2, d3), the unjudged d9 is not
    run = b"q1 Q0 d1 1 3 r\nq1 Q0 d9 2 2 r\nq1 Q0 d3 3 1 r\n"
    for compat in (None, "trec_eval"):
        mean = _run(tmp_path, QRELS, run, ["num_rel", "num_rel_ret", "map"],
                    relevance_level=0, compat=compat)
        assert mean == pytest.approx({"num_rel": 3, "num_rel_ret": 2, "map": (1 + 2 / 3) / 3})


def test_judged_docs_only_keeps_a_query_with_no_judged_line(tmp_path):
    qrels = b"q1 0 d1 1\nq2 0 d5 1\n"
    run = b"q1 Q0 d1 1 3 r\nq2 Q0 d9 1 3 r\n"
    mean = _run(tmp_path, qrels, run, ["map", "num_ret"], judged_docs_only=True,
                compat="trec_eval")
    assert mean == {"map": 0.5, "num_ret": 1.0}  # q2 scores 0 and counts
    # nothing judged retrieved at all: zeros, as trec_eval prints
    mean = _run(tmp_path, b"q1 0 d1 1\n", b"q1 Q0 d8 1 3 r\n", ["map", "num_ret"],
                judged_docs_only=True)
    assert mean == {"map": 0.0, "num_ret": 0.0}


def test_negative_judgments_are_in_the_pool_but_unjudged(tmp_path):
    qrels = b"q1 0 d1 1\nq1 0 d2 -1\nq1 0 d3 0\n"
    run = b"q1 Q0 d2 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d3 3 1 r\n"
    # bpref: no judged nonrelevant document above d1 -> 1; d2 is not relevant
    mean = _run(tmp_path, qrels, run, ["bpref", "num_rel", "map"], compat="trec_eval")
    assert mean == {"bpref": 1.0, "num_rel": 1.0, "map": 0.5}
    # -J drops d2 as unjudged: d1 comes first
    mean = _run(tmp_path, qrels, run, ["num_ret", "map"], compat="trec_eval",
                judged_docs_only=True)
    assert mean == {"num_ret": 2.0, "map": 1.0}


def test_max_docs_keeps_the_top_documents_before_judged_docs_only(tmp_path):
    # -M 2 keeps d9 (unjudged) and d1; -J then drops d9: d2 was cut by -M
    qrels = b"q1 0 d1 1\nq1 0 d2 1\n"
    run = b"q1 Q0 d9 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d2 3 1 r\n"
    mean = _run(tmp_path, qrels, run, ["map", "num_ret"], compat="trec_eval", max_docs=2,
                judged_docs_only=True)
    assert mean == {"map": 0.5, "num_ret": 1.0}


def test_max_docs_keeps_the_ties_option(tmp_path):
    qrels = b"q1 0 a 1\n"
    run = b"q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\nq1 Q0 c 3 1 r\n"
    # three tied documents, one relevant: E[1/rank] over the orders = (1 + 1/2 + 1/3) / 3
    for max_docs in (None, 3, 1000):
        assert _run(tmp_path, qrels, run, ["map"], max_docs=max_docs) == pytest.approx(
            {"map": (1 + 1 / 2 + 1 / 3) / 3})
        assert _run(tmp_path, qrels, run, ["map"], max_docs=max_docs, ties="input") == {
            "map": 1.0}  # input order: a first
    assert _run(tmp_path, qrels, run, ["map"], max_docs=2, ties="input") == {"map": 1.0}
    with pytest.raises(ValueError, match="max_docs=2 cuts through documents with tied"):
        _run(tmp_path, qrels, run, ["map"], max_docs=2)
    # trec_eval: ties by document id descending, c b a: a is cut at -M 2
    assert _run(tmp_path, qrels, run, ["map"], max_docs=2, compat="trec_eval") == {"map": 0.0}


def _iprec_brute_force(relevant, scores, n_relevant, level):
    """Mean over every order of the tied rows of trec_eval's iprec_at_recall."""
    import itertools

    blocks = [[i for i in range(len(scores)) if scores[i] == v]
              for v in sorted(set(scores), reverse=True)]
    wanted = max(int(np.floor(level * n_relevant + 0.5)), 1)
    values = []
    for orders in itertools.product(*[itertools.permutations(b) for b in blocks]):
        ranking = [i for order in orders for i in order]
        precision, hits = [], 0
        for rank, i in enumerate(ranking, start=1):
            if relevant[i]:
                hits += 1
                precision.append(hits / rank)
        values.append(max(precision[wanted - 1:]) if wanted <= len(precision) else 0.0)
    return float(np.mean(values))


def test_iprec_at_recall_averages_over_the_orders_of_ties():
    # qrels a=1, b=1; run a 2, b 1, c 1: b is second or third, each half the time
    got = evaluate_run({"q": {"a": 1, "b": 1}}, {"q": {"a": 2.0, "b": 1.0, "c": 1.0}},
                       ["iprec_at_recall_1.00"])
    assert got.mean["iprec_at_recall_1.00"] == pytest.approx((1.0 + 2 / 3) / 2)
    rng = np.random.default_rng(0)
    for _ in range(150):
        n = int(rng.integers(1, 7))
        scores = [float(rng.integers(0, 3)) for _ in range(n)]
        relevant = [bool(rng.random() < 0.5) for _ in range(n)]
        extra = int(rng.integers(0, 2))  # judged relevant, not retrieved
        qrels = {"q": {f"d{i}": int(r) for i, r in enumerate(relevant)}}
        qrels["q"].update({f"x{i}": 1 for i in range(extra)})
        run = {"q": {f"d{i}": s for i, s in enumerate(scores)}}
        for level in (0.0, 0.2, 0.5, 1.0):
            name = f"iprec_at_recall_{level:.2f}"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # 0/1 scores warn that they look like labels
                got = evaluate_run(qrels, run, [name]).mean[name]
            assert got == pytest.approx(
                _iprec_brute_force(relevant, scores, sum(relevant) + extra, level), abs=1e-12)


def test_ids_are_bytes_not_decoded_text(tmp_path):
    qrels = b"q1 0 caf\xe9 1\n"
    run = b"q1 Q0 caf\xe8 1 3 r\nq1 Q0 caf\xe9 2 2 r\n"  # two distinct ids, not a duplicate
    mean = _run(tmp_path, qrels, run, ["map", "num_ret", "num_rel_ret"], compat="trec_eval")
    assert mean == {"map": 0.5, "num_ret": 2.0, "num_rel_ret": 1.0}
    # a UTF-8 id never matches the same letters in another encoding
    mean = _run(tmp_path, b"q1 0 caf\xc3\xa9 1\n", run, ["num_rel_ret"])
    assert mean == {"num_rel_ret": 0.0}


def test_many_distinct_ids_that_are_not_utf8_are_no_duplicates(tmp_path):
    # 60 ids, each two latin-1 bytes after "c": distinct bytes, so 60 distinct
    # documents; pandas 2.0's factorize gave them one code ("appears twice")
    docs = [b"c" + bytes([0x80 + i % 8, 0xc0 + i // 8]) for i in range(60)]
    qrels = b"".join(b"q1 0 " + d + b" " + str(i % 2).encode() + b"\n"
                     for i, d in enumerate(docs))
    # ranked by score in file order: relevant at ranks 2, 4, ..., 60
    run = b"".join(b"q1 Q0 " + d + b" 1 " + str(100 - i).encode() + b" r\n"
                   for i, d in enumerate(docs))
    mean = _run(tmp_path, qrels, run, ["num_ret", "num_rel", "num_rel_ret", "map"],
                compat="trec_eval")
    # AP: the k-th relevant at rank 2k, precision k / 2k = 1/2 each
    assert mean == {"num_ret": 60.0, "num_rel": 30.0, "num_rel_ret": 30.0, "map": 0.5}


def test_ids_that_differ_in_one_byte_that_is_not_utf8(tmp_path):
    # the case: "caf\xe90" and "caf\xe80", tied, are two documents;
    # trec_eval breaks the tie by id descending (\xe9 > \xe8): ranks 1, 2, 3
    # hold grades 1, 0, 1: AP (1 + 2/3) / 2, 2 relevant retrieved
    qrels = b"q2 0 caf\xe90 1\nq2 0 caf\xe80 0\nq2 0 d1 1\n"
    run = b"q2 Q0 caf\xe80 1 1.0 r\nq2 Q0 caf\xe90 2 1.0 r\nq2 Q0 d1 3 0.5 r\n"
    mean = _run(tmp_path, qrels, run, ["num_rel_ret", "map"], compat="trec_eval")
    assert mean == pytest.approx({"num_rel_ret": 2.0, "map": (1 + 2 / 3) / 2}, abs=1e-12)


def test_numbers_as_trec_eval_reads_them_under_compat(tmp_path):
    # atol: "1e1" and "1.5" are grade 1, "0.5" is 0
    qrels = b"q1 0 d1 1e1\nq1 0 d2 1.5\nq1 0 d3 0.5\n"
    run = b"q1 Q0 d3 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d2 3 1 r\n"
    mean = _run(tmp_path, qrels, run, ["num_rel", "map"], compat="trec_eval",
                relevance_level=2)
    assert mean == {"num_rel": 0.0, "map": 0.0}  # no grade reaches 2
    # atof: "0_9", a fullwidth "1" and an Arabic-Indic "3" are 0
    for score in ("0_9", "\uff11", "\u0663"):
        run = f"q1 Q0 d2 1 {score} r\nq1 Q0 d1 2 0.5 r\n".encode()
        mean = _run(tmp_path, b"q1 0 d1 1\n", run, ["map"], compat="trec_eval")
        assert mean == {"map": 1.0}, score
        with pytest.raises(ValueError, match=r"/r:1: malformed run line.*not a finite plain"):
            _run(tmp_path, b"q1 0 d1 1\n", run, ["map"])


def test_a_line_with_a_line_separator_keeps_the_line_numbers(tmp_path):
    # U+2028 inside an id is not a line break; a bad line after it is line 3
    run = "q1 Q0 d\u20281 1 1 r\nq1 Q0 \xe9 2 1 r\nq1 Q0 d3 x 1\n".encode("utf-8")
    run = run.replace("\xe9".encode(), b"\xe9")  # not UTF-8: the pure-Python reader
    (tmp_path / "r").write_bytes(run)
    with pytest.raises(ValueError, match=r"/r:3: malformed run line"):
        read_run(tmp_path / "r")


def test_a_duplicate_is_reported_at_its_line(tmp_path):
    run = b"\n# c\n\nq1 Q0 d1 1 1 r\n\nq1 Q0 d2 1 1 r\nq1 Q0 d1 1 1 r\n"
    with pytest.raises(ValueError, match=r"'d1' appears twice in query 'q1' \(line 7 of"):
        _run(tmp_path, b"q1 0 d1 1\n", run, ["map"])


def test_no_shared_query_names_an_id_of_each(tmp_path):
    with pytest.raises(ValueError, match=r"share no query id.*'301'.*'q301'"):
        _run(tmp_path, b"301 0 d1 1\n", b"q301 Q0 d1 1 1 r\n", ["map"])
    pd = needs("pandas")
    qrels = pd.DataFrame({"query_id": [1], "doc_id": ["d"], "relevance": [1]})
    run = pd.DataFrame({"query_id": [1.0], "doc_id": ["d"], "score": [1.0]})
    for compat in (None, "trec_eval"):
        with pytest.raises(ValueError, match=r"share no query id.*'1'.*'1\.0'"):
            evaluate_run(qrels, run, ["map"], compat=compat)


def test_dataframe_runs_refuse_missing_ids_and_name_missing_columns():
    pd = needs("pandas")
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["nan"], "relevance": [1]})
    for missing in (None, float("nan")):
        run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", missing],
                            "score": [1.0, 2.0]})
        with pytest.raises(ValueError, match=r"`run` has a missing doc_id \(row 1"):
            evaluate_run(qrels, run, ["map"])
    # (a rank column alone is a run ranked by it: tests/io/test_id_lists.py)
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "weight": [1]})
    with pytest.raises(ValueError, match="`run` has no score column"):
        evaluate_run(qrels, run, ["map"])


def test_long_tied_ids_are_ordered_without_a_fixed_width_array():
    # 20,000 tied rows and one 5,000-character id: numpy's '<U5000' array of
    # them alone would take 400 MB
    docs = {f"d{i}": 1.0 for i in range(20_000)}
    docs["x" * 5000] = 1.0
    qrels = {"q": {"d1": 1}}
    tracemalloc.start()
    got = evaluate_run(qrels, {"q": docs}, ["recip_rank"], compat="trec_eval")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # ties by id descending: 'x...' first, then d9999 ... d1: d1 sits behind
    # every id that sorts above it
    above = sum(1 for d in docs if d > "d1")
    assert got.mean["recip_rank"] == 1 / (above + 1)
    assert peak < 100e6


def test_trec_eval_binary_agrees_on_hostile_files(tmp_path):
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not binary:
        pytest.skip("no trec_eval binary (set TREC_EVAL=path to one built from NIST's sources)")
    for seed in range(20):
        rng = np.random.default_rng(100 + seed)
        qrels, run = _hostile_files(rng)
        (tmp_path / "q").write_bytes(qrels)
        (tmp_path / "r").write_bytes(run)
        args = [binary, "-c", "-m", "map", "-m", "bpref", "-m", "P.5", str(tmp_path / "q"),
                str(tmp_path / "r")]
        out = subprocess.run(args, capture_output=True).stdout
        want = {line.split()[0].decode(): line.split()[2].decode()
                for line in out.splitlines() if line.split()[1] == b"all"}
        got = subprocess.run(
            [sys.executable, "-m", "skrank", "evaluate", "-c", "--compat", "trec_eval",
             "--format", "json", "-m", "map", "-m", "bpref", "-m", "P.5",
             str(tmp_path / "q"), str(tmp_path / "r")], capture_output=True, check=True)
        mean = json.loads(got.stdout)["mean"]
        for name, value in want.items():
            if name in mean:
                assert f"{mean[name]:.4f}" == value, (seed, name)
