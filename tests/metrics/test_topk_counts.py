"""The top-k path's grade counts and integer grades (grades carried in the sort).

:func:`skrank.metrics._topk._grade_counts` counts each query's grades in
fields of one integer; the ideal DCG and the relevant count come from those
counts, and the ranked grades stay integers. Each is checked against a
count per query written out, and the public call against the full layout
(the same bits) and a per-query brute force.
"""

import itertools
import math

import numpy as np
import pytest

from skrank import dcg_score, evaluate, ndcg_score
from skrank.metrics import _evaluate, _topk
from skrank.metrics._topk_columns import _Rows


def _counted(grades, starts, n_rows):
    """Each query's count of grades top..1 (column 0 the top grade), grade 0's column 0."""
    top = int(grades.max()) if grades.shape[0] else 0
    ends = np.r_[starts[1:], n_rows]
    out = np.zeros((starts.shape[0], top + 1), dtype=np.intp)
    for q, (a, b) in enumerate(zip(starts, ends)):
        for g in grades[a:b]:
            if g:
                out[q, top - int(g)] += 1
    return out


def _rows(grades, sizes):
    starts = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.intp)
    return _Rows(grades.astype(np.float64), None, starts, np.asarray(sizes), len(sizes),
                 grades=grades.astype(np.int64)), starts


@pytest.mark.parametrize("case", ["random", "one-row queries", "all zero", "one grade",
                                  "long query", "top grade 9"])
def test_grade_counts_equal_a_count_per_query(case):
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 30, size=200)
    top = 4
    if case == "one-row queries":
        sizes = np.ones(500, dtype=int)
    elif case == "long query":
        sizes[7] = 60_000  # 16 bits a field: four grades fill the 64 bits
    elif case == "top grade 9":
        top = 9
    grades = rng.integers(0, top + 1, size=int(sizes.sum()))
    if case == "all zero":
        grades[:] = 0
    elif case == "one grade":
        grades[:] = 2
    rows, starts = _rows(grades, sizes)
    counts, relevant = _topk._grade_counts(rows, grades.max())
    np.testing.assert_array_equal(counts, _counted(grades, starts, grades.shape[0]))
    np.testing.assert_array_equal(relevant, np.add.reduceat(grades > 0, starts))


def test_grade_counts_refuse_fields_past_64_bits_and_many_grades():
    """None where the fields would overflow a word, or the full layout would sort."""
    for long, top, taken in ((60_000, 4, True), (70_000, 4, False), (60_000, 5, False),
                             (2_000, 5, True)):
        sizes = np.array([3, long, 5])  # bit_length(long) bits a field
        grades = np.zeros(int(sizes.sum()), dtype=np.int64)
        grades[:4] = [3, top, 1, 2]
        grades[-1] = top
        rows, starts = _rows(grades, sizes)
        counts = _topk._grade_counts(rows, top)
        assert (counts is not None) == taken
        if taken:
            expected = _counted(grades, starts, grades.shape[0])
            np.testing.assert_array_equal(counts[0], expected)
            np.testing.assert_array_equal(counts[1], np.add.reduceat(grades > 0, starts))
    many = np.arange(2000, dtype=np.int64) % 1500  # 1500 grades x 2000 queries of one row
    rows_many, _ = _rows(many, np.ones(2000, dtype=int))
    assert _topk._grade_counts(rows_many, 1499) is None  # _ideal_dcg_per_query would sort
    rows_none = _Rows(many.astype(np.float64), None, np.array([0]), np.array([many.size]),
                      1, grades=None)
    assert _topk._grade_counts(rows_none, 1499) is None


def _brute(y, score, query, k, gain, normalized):
    out = {}
    for q in np.unique(query):
        rows = np.flatnonzero(query == q)
        orders = [p for p in itertools.permutations(rows)
                  if all(score[a] >= score[b] for a, b in zip(p, p[1:]))]

        def dcg(grades):
            g = np.asarray(grades, dtype=np.float64)[:k]
            g = np.exp2(g) - 1.0 if gain == "exponential" else g
            return sum(v / math.log2(i + 2.0) for i, v in enumerate(g))

        value = sum(dcg(y[list(p)]) for p in orders) / len(orders)
        if normalized:
            ideal = dcg(np.sort(y[rows])[::-1])
            value = value / ideal if ideal > 0 else 0.0
        out[q] = value
    return out


def _small(seed, ids):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=30)
    sizes[:3] = [1, 6, 5]
    query = np.repeat(np.arange(30), sizes)
    y = rng.integers(0, 5, size=query.shape[0])  # int64: the grades' own fast path
    y[query == 2] = 0  # no relevant row
    score = rng.integers(0, 3, size=query.shape[0]) * 0.25  # ties everywhere
    score[query == 1] = 0.5  # all tied
    if ids == "str":  # ids with long equal prefixes
        query = np.array([f"query-{q:04d}" for q in query])
    return y, score, query


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
@pytest.mark.parametrize("ids", ["int", "str"])
@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_counted_ideal_and_integer_grades_equal_brute_force_and_full_layout(
        seed, layout, ids, gain, monkeypatch):
    y, score, query = _small(seed, ids)
    if layout == "shuffled":
        order = np.random.default_rng(seed + 9).permutation(y.shape[0])
        y, score, query = y[order], score[order], query[order]
    calls = []
    counts = _topk._grade_counts

    def watched(*args):
        found = counts(*args)
        calls.append(found is not None)
        return found

    def refuse(*args, **kwargs):
        raise AssertionError("the full layout was built")

    for k in (1, 3, 10):
        full_n = ndcg_score(y, score, query_id=query, k=k, gain=gain, aggregate=None,
                            no_relevant="zero")
        full_d = dcg_score(y, score, query_id=query, k=k, gain=gain, aggregate=None,
                           no_relevant="zero")
        with monkeypatch.context() as patch:
            patch.setattr(_topk, "_grade_counts", watched)
            patch.setattr(_topk, "_ideal_dcg_per_query", refuse)
            patch.setattr(_evaluate, "rank_queries", refuse)
            fast = evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}", f"dcg@{k}"],
                            gain=gain, aggregate=None, no_relevant="zero")
        for got, full in ((fast[f"ndcg@{k}"], full_n), (fast[f"dcg@{k}"], full_d)):
            np.testing.assert_array_equal(got.value, full.value)  # the same bits
            np.testing.assert_array_equal(got.query_id, full.query_id)
        for name, normalized in ((f"ndcg@{k}", True), (f"dcg@{k}", False)):
            expected = _brute(y, score, query, k, gain, normalized)
            got = dict(zip(fast[name].query_id.tolist(), fast[name].value))
            assert got.keys() == expected.keys()
            for q, value in expected.items():
                assert got[q] == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert calls and all(calls)  # the counted path, every call


def test_float_grades_and_relevant_counts_through_the_counted_path():
    """Whole float grades take the same path; the mean skips no-relevant queries alike."""
    y, score, query = _small(5, "int")
    for grades in (y, y.astype(np.float64)):
        fast = evaluate(grades, score, query_id=query, metrics=["ndcg@5"])
        full = evaluate(grades, score, query_id=query, metrics=["ndcg@5", "mrr"])
        assert fast["ndcg@5"] == full["ndcg@5"]


def test_summed_width_of_a_whole_query_is_its_size():
    """What lets _sum_as_full_query skip the queries the window holds whole."""
    n = np.arange(1, 3000)
    np.testing.assert_array_equal(_topk.summed_width(n, n), n)
    assert (_topk.summed_width(n[20:], 10) < n[20:]).any()  # cut queries: shorter


@pytest.mark.parametrize("piece_rows", [1, 7, 64, 1 << 14])
def test_sorted_with_payload_in_pieces_of_whole_runs(piece_rows, monkeypatch):
    """Packed and sorted a piece of whole runs at a time: the one sort's values."""
    from skrank._core import _sort
    from skrank._core._layout import segment_ids

    monkeypatch.setattr(_sort, "_SORTED_PIECE_ROWS", piece_rows)
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 40, size=300)
    sizes[[0, 50, 299]] = [1, 900, 200]  # runs longer than a piece
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    n = int(sizes.sum())
    score = np.round(rng.standard_normal(n) * 4) / 4
    grade = rng.integers(0, 5, size=n)
    keys = segment_ids(starts, n)
    whole = _sort.sorted_with_payload(score, keys, grade, 3)
    pieces = _sort.sorted_with_payload(score, None, grade, 3, run_starts=starts)
    np.testing.assert_array_equal(pieces[0], whole[0])
    assert pieces[1:] == whole[1:]
    cuts = _sort._piece_cuts(np.r_[starts, n], n)
    assert cuts[0] == 0 and cuts[-1] == starts.shape[0] and cuts == sorted(set(cuts))
    late = score.copy()
    late[-1] = 0.75 + 2.0**-45  # a bit the packing would cut, in the last piece
    assert _sort.sorted_with_payload(late, None, grade, 3, run_starts=starts) is None


@pytest.mark.parametrize("n_queries", [300, 40_000])  # counted, then sorted, by the full path
@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_integer_grades_without_the_counts_equal_the_full_layout(n_queries, gain,
                                                                 monkeypatch):
    """Grades up to 33 (fields past 64 bits): the ranked integer grades, ideal as before."""
    rng = np.random.default_rng(n_queries)
    sizes = rng.integers(1, 4 if n_queries > 1000 else 30, size=n_queries)
    query = np.repeat(np.arange(n_queries) * 3 + 1, sizes)
    y = rng.integers(0, 34, size=query.shape[0])
    y[query == 1] = 0
    score = rng.integers(0, 4, size=query.shape[0]) * 0.5
    y[: n_queries // 2] = 33  # the top grade in many queries
    calls = []
    counts = _topk._grade_counts

    def watched(*args):
        found = counts(*args)
        calls.append(found)
        return found

    monkeypatch.setattr(_topk, "_grade_counts", watched)
    for k in (1, 5):
        fast = evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}", f"dcg@{k}"],
                        gain=gain, aggregate=None, no_relevant="zero")
        full_n = ndcg_score(y, score, query_id=query, k=k, gain=gain, aggregate=None,
                            no_relevant="zero")
        full_d = dcg_score(y, score, query_id=query, k=k, gain=gain, aggregate=None,
                           no_relevant="zero")
        np.testing.assert_array_equal(fast[f"ndcg@{k}"].value, full_n.value)
        np.testing.assert_array_equal(fast[f"dcg@{k}"].value, full_d.value)
    assert calls and all(found is None for found in calls)  # taken, refused the counts


def test_taken_strings_equal_the_plain_gather():
    """String ids gathered as fixed-width bytes: the same ids, dtype and all."""
    rng = np.random.default_rng(1)
    ids = np.array([f"q{i:05d}é" * (i % 3 + 1) for i in rng.integers(0, 999, size=500)])
    index = rng.integers(0, 500, size=300)
    for case in (ids, ids[::2], ids.astype(">U30"), np.arange(500), np.array(["a", ""])):
        at = index % case.shape[0]
        got, expected = _topk._taken(case, at), case[at]
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("mode", ["keys", "run starts", "run length"])
def test_sorted_with_payload_apart(mode, monkeypatch):
    """The payloads apart (int64, sorted order), the values shifted past them: same order."""
    from skrank._core import _sort
    from skrank._core._layout import segment_ids

    monkeypatch.setattr(_sort, "_SORTED_PIECE_ROWS", 50)
    rng = np.random.default_rng(11)
    sizes = np.full(200, 6) if mode == "run length" else rng.integers(1, 20, size=200)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    n = int(sizes.sum())
    score = np.round(rng.standard_normal(n) * 4) / 4
    grade = rng.integers(0, 8, size=n)
    keys = segment_ids(starts, n)
    options = {"keys": {}, "run starts": {"run_starts": starts},
               "run length": {"run_length": 6}}[mode]
    given = None if mode != "keys" else keys
    whole = _sort.sorted_with_payload(score, given, grade, 3, **options)
    packed, key_bits, low, apart = _sort.sorted_with_payload(score, given, grade, 3,
                                                             payload_apart=True, **options)
    assert apart.dtype == np.int64 and (key_bits, low) == whole[1:]
    np.testing.assert_array_equal(apart, (whole[0] & np.uint64(7)).view(np.int64))
    np.testing.assert_array_equal(packed, whole[0] >> np.uint64(3))
    order = np.lexsort((grade, -score, keys))
    np.testing.assert_array_equal(apart, grade[order])  # by run, descending score, grade
