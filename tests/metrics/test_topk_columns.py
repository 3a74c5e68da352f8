"""The top-k path for grouped queries of one length (DCG@k column by column).

Each case is checked against the definition written out per query (rows
sorted by score, each tie block's mean gain at each of its positions, the
first k positions discounted) and against the full layout (the metric's own
function), whose bits the column path gives exactly.
"""

import math

import numpy as np
import pytest

from skrank import dcg_score, evaluate, ndcg_score
from skrank._core._sort import key_order
from skrank.metrics import _topk, _topk_columns


def _definition(y, score, query, k, gain="exponential", normalized=True):
    """Query id -> DCG@k (or nDCG@k), ties averaged.

    Each position holds its tie block's mean gain.
    """
    out = {}
    for q in np.unique(query):
        rows = np.flatnonzero(query == q)
        grades = y[rows].astype(np.float64)
        gains = np.exp2(grades) - 1.0 if gain == "exponential" else grades
        by_score = np.argsort(-score[rows], kind="stable")
        ranked_score, ranked_gain = score[rows][by_score], gains[by_score]
        total = 0.0
        for position in range(min(k, rows.shape[0])):
            block = ranked_score == ranked_score[position]
            total += ranked_gain[block].mean() / math.log2(position + 2.0)
        if normalized:
            best = np.sort(gains)[::-1][:k]
            ideal = sum(g / math.log2(i + 2.0) for i, g in enumerate(best))
            total = total / ideal if ideal > 0 else np.nan
        out[q] = total if (grades > 0).any() else np.nan  # no_relevant="skip"
    return out


def _one_length(seed, n_queries, length, grades=(0, 0, 0, 1, 2, 3), spread=3):
    """Grouped queries of ``length`` rows, ids in no order, scores in quarters (ties)."""
    rng = np.random.default_rng(seed)
    query = np.repeat(rng.permutation(n_queries) * 13 + 1, length)
    y = rng.choice(np.asarray(grades), size=query.shape[0])
    score = np.round(rng.standard_normal(query.shape[0]) * spread) / 4
    return y, score, query


def _watch_columns(monkeypatch):
    """The calls of the column path (and a refusal of the other windows)."""
    calls = []
    original = _topk.column_scores

    def watch(*args, **kwargs):
        calls.append(args[0].packed.shape)
        return original(*args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("the window of ranked rows was built")

    monkeypatch.setattr(_topk, "column_scores", watch)
    monkeypatch.setattr(_topk, "window_dcg", refuse)
    return calls


def _check(y, score, query, k, gain="exponential"):
    """evaluate's values equal the full layout's bits and the definition."""
    for name, function in (("ndcg", ndcg_score), ("dcg", dcg_score)):
        fast = evaluate(y, score, query_id=query, metrics=[f"{name}@{k}"], gain=gain,
                        aggregate=None, no_relevant="skip")[f"{name}@{k}"]
        full = function(y, score, query_id=query, k=k, gain=gain, aggregate=None,
                        no_relevant="skip")
        np.testing.assert_array_equal(np.asarray(fast.query_id), np.asarray(full.query_id))
        np.testing.assert_array_equal(fast.value, full.value)  # the same bits
        expected = _definition(y, score, query, k, gain, normalized=name == "ndcg")
        for q, value in zip(np.asarray(fast.query_id).tolist(), np.asarray(fast.value)):
            if np.isnan(expected[q]):
                assert np.isnan(value)
            else:
                assert value == pytest.approx(expected[q], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("length", [2, 3, 8, 9, 10, 17, 100, 130, 300])
@pytest.mark.parametrize("k", [1, 3, 10, 20, 400])
@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_column_path_equals_definition_and_full_layout(length, k, gain, monkeypatch):
    y, score, query = _one_length(length * 7 + k, 40, length)
    calls = _watch_columns(monkeypatch)
    _check(y, score, query, k, gain)
    assert calls == [(40, length)] * 2


@pytest.mark.parametrize("grades", [(0, 1), (0, 0, 0, 0, 1), (0, 4, 9),
                                    (0, 1, 2, 3, 4, 40)])
@pytest.mark.parametrize("k", [2, 5, 10])
def test_grades_and_small_pieces(grades, k, monkeypatch):
    """Binary and graded labels, up to 6 bits; pieces of 3 queries (the last shorter)."""
    monkeypatch.setattr(_topk_columns, "_CHUNK", 3)
    monkeypatch.setattr(_topk_columns, "_PREPARED_ROWS", 7 * 6)
    y, score, query = _one_length(len(grades) + k, 31, 6, grades=grades)
    calls = _watch_columns(monkeypatch)
    _check(y, score, query, k)
    assert calls == [(31, 6)] * 2


def test_edge_cases(monkeypatch):
    """All-tied queries, all-zero grades, +0.0 tied with -0.0, negative scores."""
    length = 5
    score = np.array([1.0, 1.0, 1.0, 1.0, 1.0,  # all tied
                      0.0, -0.0, 0.0, -0.5, -0.5,  # +0.0 and -0.0 tie
                      -1.0, -2.0, -0.25, -1.0, -3.0,  # negative scores
                      2.0, 2.0, 1.0, 1.0, 0.5,  # all grades 0
                      4.0, 3.0, 2.0, 1.0, 0.0])  # no tie
    y = np.array([1, 0, 3, 0, 2,
                  2, 0, 1, 0, 1,
                  0, 1, 0, 2, 1,
                  0, 0, 0, 0, 0,
                  0, 1, 0, 1, 0])
    query = np.repeat(np.arange(5), length)
    calls = _watch_columns(monkeypatch)
    for k in (1, 2, 3, 4, 5, 6):
        _check(y, score, query, k)
    assert calls == [(5, length)] * 12


def _full_values(y, score, query, k):
    return ndcg_score(y, score, query_id=query, k=k, aggregate=None,
                      no_relevant="zero").value


@pytest.mark.parametrize("case", ["real scores", "real scores tied", "scores a cut merges",
                                  "large grade", "-inf score", "float grades", "too long"])
def test_input_the_column_path_leaves(case, monkeypatch):
    """Tied or merged real-valued scores, large grades, -inf: other paths, same values."""
    y, score, query = _one_length(3, 20, 6)
    taken = case in ("float grades", "real scores")
    if case == "real scores":  # no tie: the cut bits lose no order
        score = score + np.random.default_rng(0).random(score.shape[0]) * 1e-3
    elif case == "real scores tied":  # ties of scores with every mantissa bit
        score = np.round(np.random.default_rng(0).random(score.shape[0]), 1) + 0.1
    elif case == "scores a cut merges":  # two scores one unit of the last bit apart
        score = score + np.random.default_rng(0).random(score.shape[0]) * 1e-3
        score[12] = (score[12:13].view(np.int64) & ~0xFF).view(np.float64)[0]
        score[13] = np.nextafter(score[12], np.copysign(np.inf, score[12]))  # last bit set
        y[12], y[13] = 0, 3
    elif case == "large grade":
        y[4] = 256
    elif case == "-inf score":
        score[7] = -np.inf
    elif case == "float grades":
        y = y.astype(np.float64)
    elif case == "too long":
        monkeypatch.setattr(_topk_columns, "MAX_LENGTH", 5)
    found = _topk.top_layout(y, score, query)
    assert (found is not None and isinstance(found[0], _topk_columns.OneLength)) == taken
    for k in (1, 3, 6):
        fast = evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}"], aggregate=None,
                        no_relevant="zero")[f"ndcg@{k}"]
        np.testing.assert_array_equal(fast.value, _full_values(y, score, query, k))


@pytest.mark.parametrize("y, message", [
    (np.array([0, 1, -1, 2] * 3), "non-negative"),
    (np.array([0.0, 1.0, np.nan, 2.0] * 3), "y_true"),
])
def test_grades_are_checked_as_the_full_layout_checks_them(y, message):
    score, query = np.arange(12.0), np.repeat(np.arange(3), 4)
    with pytest.raises(ValueError, match=message) as fast:
        evaluate(y, score, query_id=query, metrics=["ndcg@3"])
    with pytest.raises(ValueError) as full:
        ndcg_score(y, score, query_id=query, k=3)
    assert str(fast.value) == str(full.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_scores_are_checked_as_the_full_layout_checks_them(bad):
    y, score, query = _one_length(1, 3, 4)
    score[5] = bad
    with pytest.raises(ValueError) as fast:
        evaluate(y, score, query_id=query, metrics=["ndcg@3"])
    with pytest.raises(ValueError) as full:
        ndcg_score(y, score, query_id=query, k=3)
    assert str(fast.value) == str(full.value)


def test_masked_grades_take_the_checks():
    """Only a plain int64 array skips check_relevance: a masked one is refused as before."""
    y, score, query = _one_length(2, 3, 4)
    masked = np.ma.masked_array(y, mask=np.arange(y.shape[0]) == 5)
    with pytest.raises(Exception) as fast:
        evaluate(masked, score, query_id=query, metrics=["ndcg@3"])
    with pytest.raises(Exception) as full:
        ndcg_score(masked, score, query_id=query, k=3)
    assert type(fast.value) is type(full.value) and str(fast.value) == str(full.value)


@pytest.mark.parametrize(
    "n", list(range(1, 20)) + [63, 64, 65, 127, 128, 129, 130, 257, 300, 1000])
def test_pairwise_columns_add_as_reduceat(n):
    """The column sums repeat np.add.reduceat's grouping (first value, then pairwise)."""
    rng = np.random.default_rng(n)
    values = rng.random((50, n)) * 10.0 ** rng.integers(-8, 8, size=(50, n))
    values[:, rng.random(n) < 0.3] = 0.0  # zero columns, passed as None
    columns = [None if not column.any() else column.copy() for column in values.T]
    if columns[0] is None:
        columns[0] = np.zeros(50)
    rest = _topk_columns._pairwise_columns(columns, 1, n - 1)
    found = _topk_columns._add(columns[0], rest)
    expected = np.add.reduceat(values.ravel(), np.arange(0, 50 * n, n))
    np.testing.assert_array_equal(np.zeros(50) if found is None else found, expected)


@pytest.mark.parametrize("keys", [
    np.array([5, 3, 9, 3, 1, 5]),
    np.random.default_rng(0).integers(-10**12, 10**12, size=1000),
    np.array([2**62, -2**62, 0, 7]),  # a span with no room for the row index
    np.array([3]),
])
def test_key_order_is_a_stable_argsort(keys):
    np.testing.assert_array_equal(key_order(keys), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("scores", ["quarters", "real", "real tied", "merged"])
@pytest.mark.parametrize("k", [1, 4, 10])
def test_shuffled_rows_with_wide_ids(scores, k, monkeypatch):
    """Shuffled rows, ids of a wide span: grouped by one sort, then the column path.

    (Scores of few bits sort with their grades and ids in one packed value
    instead: that path is the other windows'.)
    """
    monkeypatch.setattr(_topk_columns, "_PREPARED_ROWS", 7 * 5)  # pieces, the last shorter
    y, score, query = _one_length(k, 61, 5)
    query = 10**12 + 7919 * 10**4 * query  # 36 bits: no room for the score beside the row
    if scores != "quarters":
        score = score + np.random.default_rng(k).random(score.shape[0]) * 1e-3
    if scores == "real tied":  # ties of scores with every mantissa bit, in the last piece
        score[-5:-2] = 0.1
    elif scores == "merged":  # two scores one unit of the last bit apart
        score[-3] = (score[-3:-2].view(np.int64) & ~0xFF).view(np.float64)[0]
        score[-2] = np.nextafter(score[-3], np.copysign(np.inf, score[-3]))  # last bit set
        y[-3], y[-2] = 0, 3
    order = np.random.default_rng(k + 1).permutation(score.shape[0])
    y, score, query = y[order], score[order], query[order]
    calls = _watch_columns(monkeypatch) if scores == "real" else []
    _check(y, score, query, k)
    assert calls == ([(61, 5)] * 2 if scores == "real" else [])
    found = _topk.top_layout(y, score, query)
    assert isinstance(found[0], _topk_columns.OneLength) == (scores == "real")


@pytest.mark.parametrize("grade", [0, 3])
def test_sorted_side_by_side_refuses_minus_infinity(grade):
    """A -inf score (ranked last, whatever its grade's bits) sends the input elsewhere."""
    y, score, query = _one_length(4, 10, 6)
    assert _topk_columns.sorted_side_by_side(score, y, 6, y.max()) is not None
    score[20], y[20] = -np.inf, grade
    assert _topk_columns.sorted_side_by_side(score, y, 6, max(y.max(), grade)) is None


def test_shuffled_ties_found_at_the_head_before_the_whole_gather(monkeypatch):
    """Tied real-valued scores in the first grouped queries: refused after one piece."""
    monkeypatch.setattr(_topk_columns, "_PREPARED_ROWS", 7 * 5)
    y, score, query = _one_length(5, 30, 5)
    score = score + np.random.default_rng(5).random(score.shape[0]) * 1e-3
    rows = np.argsort(query, kind="stable")  # the rows grouped, as a sort of (id, row)
    score[rows[:2]] = 0.1  # a tie in the first query
    pieces = []
    original = _topk_columns._prepare

    def watch(score, *args):
        pieces.append(score.shape[0])
        return original(score, *args)

    monkeypatch.setattr(_topk_columns, "_prepare", watch)
    assert _topk_columns.sorted_side_by_side(score, y, 5, y.max(), rows=rows) is None
    assert pieces == [35]  # the head only
    pieces.clear()
    score[rows[:2]] = [0.1, 0.2]  # no tie: every piece, after the head
    assert _topk_columns.sorted_side_by_side(score, y, 5, y.max(), rows=rows) is not None
    assert pieces == [35, 35, 35, 35, 35, 10]
