"""evaluate_run against pytrec_eval (trec_eval's own C code), per query."""

import gzip

import numpy as np
import pytest

from skrank import evaluate_run, read_qrels, read_run

from ._trec_data import awkward_case
from .._needs import needs

pytrec_eval = needs("pytrec_eval")

NAMES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "ndcg", "P_5", "P_10", "P_1000", "recall_5", "recall_10", "ndcg_cut_5",
    "ndcg_cut_10", "map_cut_5", "map_cut_10", "success_1", "success_5", "success_10",
]
FAMILIES = {"num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref",
            "recip_rank", "ndcg", "P", "recall", "ndcg_cut", "map_cut", "success"}


def _check(qrels, run, level=1, **options):
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, FAMILIES, relevance_level=level
    ).evaluate(run)
    got = evaluate_run(qrels, run, NAMES, compat="trec_eval", relevance_level=level,
                       **options)
    assert list(got.query_ids) == sorted(reference)
    for name in NAMES:
        expected = np.array([reference[q][name] for q in got.query_ids])
        np.testing.assert_allclose(got.per_query[name].value, expected, rtol=0, atol=1e-12,
                                   err_msg=name)
        mean = expected.sum() if name.startswith("num_") else expected.mean()
        assert got.mean[name] == pytest.approx(mean, abs=1e-12)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
def test_awkward_cases_match_trec_eval_per_query(seed, level):
    # ties, unjudged and unretrieved documents, graded qrels, a query with
    # no relevant document, run and qrels queries missing from the other
    qrels, run = awkward_case(seed)
    _check(qrels, run, level)


def test_binary_qrels_and_large_generated_run():
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(30):
        docs = [f"doc{i}" for i in rng.choice(5000, 1200, replace=False)]
        run[str(q)] = {d: float(s) for d, s in zip(docs, rng.normal(size=1200).round(1))}
        judged = docs[:300] + [f"new{q}_{i}" for i in range(20)]
        qrels[str(q)] = {d: int(rng.random() < 0.2) for d in judged}
    _check(qrels, run)


def test_means_add_per_query_values_in_order_as_trec_eval():
    # trec_eval adds each query's value to a running double, in its query
    # order, then divides by the count; a pairwise sum can differ in the last
    # bit and flip the 4th printed decimal of a mean on a rounding boundary
    # (P_10 over 2000 queries: 0.01755 printed 0.0176 by trec_eval).
    rng = np.random.default_rng(3)
    qrels, run = {}, {}
    for q in range(400):
        docs = [f"d{i}" for i in range(12)]
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.normal(size=12))}
        qrels[f"q{q}"] = {d: int(rng.random() < 0.15) for d in docs}
    got = evaluate_run(qrels, run, ["P_10", "map", "recip_rank"], compat="trec_eval")
    for name, values in got.per_query.items():
        running = 0.0
        for value in values.value.tolist():  # trec_eval's loop, in its query order
            running += value
        assert got.mean[name] == running / len(values.value), name


def test_average_precision_adds_precisions_in_rank_order_as_trec_eval():
    # trec_eval's map: sum += rel_so_far / rank at each relevant rank, in a C
    # loop, then / R; numpy's pairwise sums differ in the last bit on long
    # queries, which flips about one printed mean in 30,000
    rng = np.random.default_rng(5)
    qrels, run, expected = {}, {}, {}
    for q in range(60):
        n = 400
        docs = [f"d{i:03d}" for i in range(n)]
        scores = rng.permutation(n).astype(float)
        relevant = rng.random(n) < 0.4
        run[f"q{q}"] = dict(zip(docs, scores))
        qrels[f"q{q}"] = {d: int(r) for d, r in zip(docs, relevant)}
        total, found = 0.0, 0
        for rank, i in enumerate(np.argsort(-scores), start=1):
            if relevant[i]:
                found += 1
                total += found / rank
        expected[f"q{q}"] = total / relevant.sum()
    got = evaluate_run(qrels, run, ["map"], compat="trec_eval")
    values = dict(zip(got.per_query["map"].query_id, got.per_query["map"].value))
    assert values == expected  # bit for bit


def test_ties_are_broken_by_document_id_descending():
    qrels = {"1": {"a": 1, "b": 0, "c": 0}}
    run = {"1": {"a": 1.0, "b": 1.0, "c": 1.0}}
    # trec_eval ranks c, b, a: the relevant document comes third
    assert evaluate_run(qrels, run, ["recip_rank"], compat="trec_eval").mean == {
        "recip_rank": pytest.approx(1 / 3)
    }
    # skrank's default: the expected value over the orders of the tie
    # (1 + 1/2 + 1/3) / 3
    assert evaluate_run(qrels, run, ["recip_rank"]).mean["recip_rank"] == pytest.approx(
        (1 + 1 / 2 + 1 / 3) / 3
    )


def test_iprec_at_recall_uses_trec_eval_10_rounding():
    # R = 5 relevant: level 0.1 -> lround(0.5) = 1 (old trec_eval: (long)(1.4) = 1),
    # level 0.3 -> lround(1.5) = 2 (old: (long)(2.4) = 2), 0.5 -> lround(2.5) = 3
    # relevant at ranks 1, 3, 4; precisions 1, 2/3, 3/4
    qrels = {"q": {f"r{i}": 1 for i in range(5)}}
    run = {"q": {"r0": 9.0, "n0": 8.0, "r1": 7.0, "r2": 6.0, "n1": 5.0}}
    got = evaluate_run(qrels, run, ["iprec_at_recall"], compat="trec_eval").mean
    assert got["iprec_at_recall_0.00"] == 1.0
    assert got["iprec_at_recall_0.10"] == 1.0
    assert got["iprec_at_recall_0.30"] == 0.75  # 2nd relevant (rank 3): max(2/3, 3/4)
    assert got["iprec_at_recall_0.50"] == 0.75  # 3rd relevant at rank 4
    assert got["iprec_at_recall_0.70"] == 0.0  # 4 relevant needed, 3 retrieved


def test_iprec_at_recall_rounds_the_level_to_the_nearest_count():
    # R = 4, relevant at ranks 1, 4, 5 (the 4th is not retrieved); precisions
    # 1, 1/2, 1/3, 2/4, 3/5. trec_eval 10.0 counts lround(level * R) relevant
    # documents: 0.3 -> lround(1.2) = 1, 0.8 -> lround(3.2) = 3. Up to 9.x it
    # took (long)(level * R + 0.9): 2 and 4, giving 0.6 and 0.0 instead.
    qrels = {"q": {"r1": 1, "r2": 1, "r3": 1, "r4": 1}}
    run = {"q": {"r1": 5.0, "n1": 4.0, "n2": 3.0, "r2": 2.0, "r3": 1.0}}
    got = evaluate_run(qrels, run, ["iprec_at_recall.0.3,0.8"], compat="trec_eval").mean
    assert got["iprec_at_recall_0.30"] == 1.0  # best precision from rank 1 on
    assert got["iprec_at_recall_0.80"] == 0.6  # best precision from rank 5 on: 3/5


def test_complete_qrels_scores_a_missing_query_zero():
    qrels = {"1": {"a": 1}, "2": {"b": 1, "c": 0}}
    run = {"1": {"a": 1.0}}
    default = evaluate_run(qrels, run, ["map", "num_rel"], compat="trec_eval")
    assert list(default.query_ids) == ["1"]
    complete = evaluate_run(qrels, run, ["map", "num_rel"], compat="trec_eval",
                            complete_qrels=True)
    assert list(complete.query_ids) == ["1", "2"]
    assert complete.per_query["map"].value.tolist() == [1.0, 0.0]
    assert complete.mean == {"map": 0.5, "num_rel": 2.0}


def test_max_docs_and_judged_docs_only():
    qrels = {"1": {"a": 1, "z": 1}}
    run = {"1": {"a": 3.0, "u": 2.0, "z": 1.0}}
    # -M 2 keeps a, u: z is judged, relevant and now not retrieved
    got = evaluate_run(qrels, run, ["map", "num_ret"], compat="trec_eval", max_docs=2)
    assert got.mean == {"map": 0.5, "num_ret": 2.0}
    # -J drops the unjudged u: a, z at ranks 1, 2
    got = evaluate_run(qrels, run, ["map"], compat="trec_eval", judged_docs_only=True)
    assert got.mean == {"map": 1.0}


def test_inputs_paths_frames_and_dicts_agree(tmp_path):
    qrels, run = awkward_case(2)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run.gz"
    qrels_path.write_text("".join(
        f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()
    ))
    with gzip.open(run_path, "wt") as handle:
        for q, docs in run.items():
            for i, (d, s) in enumerate(docs.items()):
                handle.write(f"{q}\tQ0\t{d}\t{i}\t{s!r}\ttag\n")
    from_dicts = evaluate_run(qrels, run, NAMES, compat="trec_eval")
    from_paths = evaluate_run(str(qrels_path), run_path, NAMES, compat="trec_eval")
    from_frames = evaluate_run(read_qrels(qrels_path), read_run(run_path), NAMES,
                               compat="trec_eval")
    assert from_paths.name == "tag"
    for other in (from_paths, from_frames):
        assert list(other.query_ids) == list(from_dicts.query_ids)
        for name in NAMES:
            np.testing.assert_array_equal(other.per_query[name].value, from_dicts.per_query[name].value)


def test_skrank_names_and_no_relevant_policy():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 0}}
    run = {"1": {"a": 1.0, "b": 0.5}, "2": {"c": 1.0}}
    assert evaluate_run(qrels, run, ["mrr"]).mean == {"mrr": 0.5}
    assert evaluate_run(qrels, run, ["mrr"], no_relevant="skip").mean == {"mrr": 1.0}


@pytest.mark.parametrize("kwargs, match", [
    ({"compat": "trec"}, "compat"),
    ({"metrics": ["nope"]}, "Unknown measure 'nope'"),
    ({"metrics": []}, "metrics"),
    ({"metrics": ["P.5,x"]}, "cutoffs"),
    ({"max_docs": 0}, "max_docs"),
    ({"relevance_level": "1"}, "relevance_level"),
    ({"no_relevant": "error"}, "no_relevant"),
])
def test_bad_options(kwargs, match):
    kwargs = {"metrics": ["map"], **kwargs}
    with pytest.raises(ValueError, match=match):
        evaluate_run({"1": {"a": 1}}, {"1": {"a": 1.0}}, **kwargs)


def test_duplicate_document_in_a_query_is_an_error(tmp_path):
    path = tmp_path / "run"
    path.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n1 Q0 a 3 0.5 t\n")
    with pytest.raises(ValueError, match=r"document 'a' appears twice in query '1'"):
        evaluate_run({"1": {"a": 1}}, path, ["map"])


@pytest.mark.parametrize("ids", [
    ["d1", "doc-22", "d1", "longer-id-333", "x"],
    ["dé1", "doc-ü22", "d1", "ñ", "x" * 9],                  # not ASCII
    ["abcdefgh", "12345678"],                                # one width
    ["abcdefgh-1", "12345678", "x" * 23, "DOC-17778126715"],  # each fills its first word
    ["a", "", "bc"],                                         # a buffer under 8 bytes
    ["y" * 64, "z", "", "w" * 17],                           # the widest allowed
])
@pytest.mark.parametrize("kind", ["string", "large_string", "slice"])
@pytest.mark.parametrize("route", ["padded by pyarrow", "gathered word by word"])
def test_id_words_are_the_zero_padded_bytes(ids, kind, route, monkeypatch):
    pa = needs("pyarrow")
    from skrank.io import _ids
    from skrank.io._ids import _id_words

    if route == "gathered word by word":
        monkeypatch.setattr(_ids, "_padded_words", lambda docs, n_words: None)

    raw = [i.encode() for i in ids]
    width = max((max(map(len, raw)) + 7) // 8 * 8, 8)
    expected = np.frombuffer(b"".join(r.ljust(width, b"\0") for r in raw),
                             dtype="<u8").reshape(len(ids), width // 8)
    if kind == "large_string":
        docs = pa.array(ids, type=pa.large_string())
    elif kind == "slice":  # an array with an offset into longer buffers
        docs = pa.array(["before"] + ids + ["after-the-end"]).slice(1, len(ids))
    else:
        docs = pa.array(ids, type=pa.string())
    words, lengths = _id_words(docs)
    np.testing.assert_array_equal(words, expected)
    np.testing.assert_array_equal(lengths, [len(r) for r in raw])


@pytest.mark.parametrize("longest", [20, 64, 65])
def test_doc_byte_rank_and_words_rank_are_strcmps_order(longest):
    # trec_eval breaks tied scores by document id as strcmp orders the bytes:
    # prefixes first, bytes unsigned (UTF-8 after ASCII); ids over 64 bytes
    # go through pyarrow's binary sort
    pa = needs("pyarrow")
    from skrank.io._ids import _doc_byte_rank, _id_words, _words_rank
    from skrank.io._tables import TrecTable

    rng = np.random.default_rng(longest)
    alphabet = ["a", "b", "z", "A", "0", "9", "-", "é", "ü", "#", "~"]
    ids = ["", "a", "ab", "abc", "abd", "b", "ab\x00"] + [
        "".join(rng.choice(alphabet, size=rng.integers(1, longest)))
        for _ in range(300)]
    ids += [i + "x" for i in ids[:40]] + ["q" * longest]
    docs = pa.array(ids)
    table = TrecTable(np.zeros(len(ids), dtype=np.int64), np.array(["q"], dtype=object), None,
                   None, np.zeros(len(ids)), doc_array=docs)
    rows = rng.permutation(len(ids))[:250]
    keys = [ids[r].encode() for r in rows]
    every = [i.encode() for i in ids]
    expected = sorted(range(len(rows)), key=lambda i: (keys[i], i))
    rank = _doc_byte_rank(table, rows)
    np.testing.assert_array_equal(np.argsort(rank, kind="stable"), expected)
    # from the duplicate check's words of the ids, when it ran first
    found = _id_words(docs)
    if max(map(len, every)) > 64:  # bytes: "é" and "ü" are two each
        assert found is None
    else:
        rank = _words_rank(found, rows)
        np.testing.assert_array_equal(np.argsort(rank, kind="stable"), expected)


def test_id_words_refuse_ids_over_64_bytes():
    pa = needs("pyarrow")
    from skrank.io._ids import _id_words

    assert _id_words(pa.array(["a", "b" * 65])) is None


@pytest.mark.parametrize("rows", [None, [5, 0, 3, 1]])
def test_first_duplicate_of_ids_over_64_bytes(rows):
    # too wide for words: exact codes from pyarrow's hash table instead
    pa = needs("pyarrow")
    from skrank.io._ids import _first_duplicate_arrow

    long = "L" * 80
    ids = ["a", long, "b", long + "x", "c", long]
    query = np.zeros(4, dtype=np.int64)
    lines = [ids[i] for i in (rows or range(4))]
    docs = pa.array(ids if rows else lines)
    index = None if rows is None else np.array(rows)
    expected = 3 if rows else -1  # rows 5 and 1 are the same long id
    assert lines.count(long) == (2 if rows else 1)
    assert _first_duplicate_arrow(query, docs, index) == expected


@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize("lines", ["all", "few", "none"])
def test_run_docs_in_qrels_of_a_piece_of_the_qrels(tmp_path, monkeypatch, lines, split):
    # a piece of the qrels looks the run's documents up among its own lines'
    # documents only: others are unjudged there (-1), judged ones keep
    # their index among all the qrels' documents; a long run is looked up
    # in two halves on two threads (here past 7 ids: halves of 300)
    needs("pyarrow")
    from skrank.io import _join, _read

    if split:
        monkeypatch.setattr(_join, "SPLIT_LOOKUP", 7)

    rng = np.random.default_rng(2)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"q{rng.integers(9)} 0 d{d} 1\n" for d in range(400)))
    run_path.write_text("".join(f"q1 Q0 d{d} 0 1.0 r\n" for d in rng.permutation(600)))
    qrels = _read._load_file(str(qrels_path), "qrels")
    run = _read._load_file(str(run_path), "run")
    rows = {"all": np.arange(len(qrels)), "few": np.sort(rng.choice(len(qrels), 40, False)),
            "none": np.zeros(0, dtype=np.int64)}[lines]
    piece = qrels.take(rows)
    judged = {qrels.doc_labels[c]: c for c in piece.doc.tolist()}
    expected = [judged.get(d, -1) for d in run.doc_strings().tolist()]
    got = _join._run_docs_in_qrels(run, piece)
    assert got.tolist() == expected
    whole = _join._run_docs_in_qrels(run, qrels)  # the whole qrels: every judged id
    assert whole.tolist() == [qrels.doc_labels.tolist().index(d)
                              if d in set(qrels.doc_labels.tolist()) else -1
                              for d in run.doc_strings().tolist()]


def test_duplicates_found_among_ids_of_mixed_lengths_and_scripts(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 dé1 1\n1 0 d2 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 dé1 1 2.0 r\n1 Q0 longer-doc 2 1.5 r\n1 Q0 dé1 3 1.0 r\n")
    with pytest.raises(ValueError, match="'dé1' appears twice in query '1'"):
        evaluate_run(str(qrels), str(run), ["map"])


@pytest.mark.parametrize("weak_hash", [False, True])
def test_first_duplicate_equals_a_brute_force_search(monkeypatch, weak_hash):
    pa = needs("pyarrow")
    from skrank.io import _ids

    rng = np.random.default_rng(3)
    n = 20000
    query = rng.integers(0, 50, n)
    ids = [f"d{v}" for v in rng.integers(0, 10**9, n)]
    if weak_hash:  # few distinct hashes: slots and hashes collide all the time
        monkeypatch.setattr(_ids, "hash_words", lambda words, seed: (
            (seed.astype(np.uint64) % np.uint64(7)) << np.uint64(61)))
    docs = pa.array(ids, type=pa.string())
    assert _ids._first_duplicate_arrow(query, docs) == -1
    for first, later in [(17, 19000), (5, 6), (12000, 12001)]:
        repeated = list(ids)
        repeated[later] = repeated[first]
        q = query.copy()
        q[later] = q[first]
        seen, expected = set(), -1
        for row, key in enumerate(zip(q.tolist(), repeated)):
            if key in seen:
                expected = row
                break
            seen.add(key)
        assert expected == later
        got = _ids._first_duplicate_arrow(q, pa.array(repeated, type=pa.string()))
        assert got == expected
        # the same lines as rows scattered through a larger array
        mix = rng.permutation(n + 100)
        larger = np.empty(n + 100, dtype=object)
        larger[:] = [f"other{i}" for i in range(n + 100)]
        larger[mix[:n]] = repeated
        got = _ids._first_duplicate_arrow(
            q, pa.array(larger.tolist(), type=pa.string()), mix[:n])
        assert got == expected
        # the same id in another query is no duplicate
        q[later] = q[first] + 1
        assert _ids._first_duplicate_arrow(q, pa.array(repeated, type=pa.string())) == -1


@pytest.mark.parametrize("weak_hash", [False, True])
def test_first_duplicate_in_lines_grouped_by_query(monkeypatch, weak_hash):
    # each query's lines together: the hashes are sorted query by query
    pa = needs("pyarrow")
    from skrank.io import _ids

    rng = np.random.default_rng(4)
    n = 20000
    query = np.sort(rng.integers(0, 40, n))
    ids = [f"d{v}" for v in rng.integers(0, 10**9, n)]
    if weak_hash:
        monkeypatch.setattr(_ids, "hash_words", lambda words, seed: (
            (seed.astype(np.uint64) % np.uint64(7)) << np.uint64(61)))
    calls = []
    real = _ids._repeated_rows
    monkeypatch.setattr(_ids, "_repeated_rows",
                        lambda values, starts=None: calls.append(starts) or real(values, starts))
    assert _ids._first_duplicate_arrow(query, pa.array(ids)) == -1
    assert calls[-1] is not None  # the run-by-run sort
    first = int(np.flatnonzero(query == 7)[3])
    for later, same_query in ((first + 5, True), (int(np.flatnonzero(query == 8)[0]), False)):
        repeated = list(ids)
        repeated[later] = repeated[first]
        expected = later if same_query else -1
        assert _ids._first_duplicate_arrow(query, pa.array(repeated)) == expected


def test_no_negative_zero_in_per_query_values(tmp_path):
    # hit rate is 1 - (a probability of no hit): a query without a hit in
    # the top k came out as -0.0 and printed "-0.0000" where trec_eval
    # prints "0.0000"
    qrels = {"q1": {"a": 0, "b": 1}, "q2": {"c": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}
    got = evaluate_run(qrels, run, ["success_1", "P_1", "recip_rank"], compat="trec_eval")
    for name, values in got.per_query.items():
        assert not np.signbit(values.value).any(), name
    assert got.per_query["success_1"].value.tolist() == [0.0, 1.0]


def test_iprec_at_recall_is_exact_in_late_queries():
    # the best precision after a rank is a running max per query; it used to
    # be taken on values shifted by 2 x the query's index, which rounds: with
    # thousands of queries, 3/160 = 0.01875 (printed 0.0187 by trec_eval)
    # came back a hair above and printed 0.0188
    qrels, run = {}, {}
    for q in range(3000):
        qrels[f"a{q:04d}"] = {"d": 1}
        run[f"a{q:04d}"] = {"d": 1.0}
    docs = [f"x{i:03d}" for i in range(160)]  # the last query in trec_eval's order
    qrels["z"] = {docs[157]: 1, docs[158]: 1, docs[159]: 1}
    run["z"] = {d: float(160 - i) for i, d in enumerate(docs)}  # ranks 1..160
    got = evaluate_run(qrels, run, ["iprec_at_recall_1.00"], compat="trec_eval")
    assert got.query_ids[-1] == "z"
    assert got.per_query["iprec_at_recall_1.00"].value[-1] == 3 / 160  # bit for bit


def test_an_empty_run_file_is_named_in_the_error(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "run"
    run.write_text("")
    with pytest.raises(ValueError, match=r"run: the run holds no retrieved document"):
        evaluate_run(str(qrels), str(run), ["map"])


def test_the_qrels_error_comes_first_when_both_files_are_bad(tmp_path):
    # the two files are read side by side; the qrels' error is the one raised
    (tmp_path / "qrels").write_text("q1 0 d1\n")  # 3 fields
    (tmp_path / "run").write_text("q1 Q0 d1 1 x t\n")  # not a number
    with pytest.raises(ValueError, match=r"qrels:1: malformed qrels line"):
        evaluate_run(tmp_path / "qrels", tmp_path / "run", ["map"])
    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    with pytest.raises(ValueError, match=r"run:1: malformed run line"):
        evaluate_run(tmp_path / "qrels", tmp_path / "run", ["map"])
