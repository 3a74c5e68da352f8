"""evaluate()'s top-k path for DCG/nDCG@k equals the full layout and a brute force.

The brute force enumerates every order of a query's rows that is sorted by
score (each order of the tied rows, equally likely under
``ties="average"``) and averages DCG@k over them; the ideal DCG@k sorts the
grades. The full layout is the metric's own function (one full sort): the
top-k path gives its values to the last bit.
"""

import itertools
import math

import numpy as np
import pytest

import skrank
from skrank import dcg_score, evaluate, ndcg_score
from skrank._core._sort import packed_order
from skrank.metrics import _evaluate, _topk, _topk_columns


def _dcg(grades, k, gain):
    grades = np.asarray(grades, dtype=np.float64)[:k]
    gains = np.exp2(grades) - 1.0 if gain == "exponential" else grades
    return float(sum(g / math.log2(i + 2.0) for i, g in enumerate(gains)))


def _brute_force(y, score, query, k, gain="exponential", normalized=True):
    """Query id -> expected DCG@k (or nDCG@k) over the orders of tied rows."""
    out = {}
    for q in np.unique(query):
        rows = np.flatnonzero(query == q)
        orders = [p for p in itertools.permutations(rows)
                  if all(score[a] >= score[b] for a, b in zip(p, p[1:]))]
        dcg = sum(_dcg(y[list(p)], k, gain) for p in orders) / len(orders)
        if normalized:
            ideal = _dcg(np.sort(y[rows])[::-1], k, gain)
            dcg = dcg / ideal if ideal > 0 else np.nan
        out[q] = dcg
    return out


def _random_queries(seed, n_queries=40, max_size=6, grades=(0, 1, 2, 3)):
    """Small queries with scores from three values: ties at every cutoff."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, size=n_queries)
    query = np.repeat(np.arange(n_queries) * 7 + 3, sizes)
    y = rng.choice(np.asarray(grades, dtype=np.float64), size=query.shape[0])
    y[query == 3] = 0.0  # a query without a relevant row
    score = rng.integers(0, 3, size=query.shape[0]).astype(np.float64)
    return y, score, query


def _shuffled(seed, *arrays):
    order = np.random.default_rng(seed + 100).permutation(arrays[0].shape[0])
    return [a[order] for a in arrays]


def _topk_spec(stem):
    from skrank.metrics._registry import METRICS

    return METRICS[stem]


def _values(result):
    return dict(zip(np.asarray(result.query_id).tolist(), np.asarray(result.value)))


def _no_full_layout(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the full layout was built")

    monkeypatch.setattr(_evaluate, "rank_queries", refuse)


@pytest.fixture(params=["grades carried", "row order"])
def sort_kind(request, monkeypatch):
    """Both sorts of the top-k path: grades in the sorted values, or a row order."""
    if request.param == "row order":
        monkeypatch.setattr(_topk, "sorted_with_payload", lambda *args, **kwargs: None)
    return request.param


@pytest.fixture(params=["every block", "shared blocks only"])
def tie_means(request, monkeypatch):
    """Both ways to the tie blocks' means: every block's, or the shared blocks' only."""
    monkeypatch.setattr(_topk, "_TIED_SHARE", 0.0 if request.param == "every block" else 2.0)
    return request.param


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 2, 3, 5, 10])
@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
def test_top_k_path_equals_brute_force_and_full_layout(seed, k, layout, sort_kind,
                                                       tie_means, monkeypatch):
    y, score, query = _random_queries(seed)
    if layout == "shuffled":
        y, score, query = _shuffled(seed, y, score, query)
    expected = _brute_force(y, score, query, k)
    full = _values(ndcg_score(y, score, query_id=query, k=k, aggregate=None))
    _no_full_layout(monkeypatch)
    fast = _values(evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}"],
                            aggregate=None)[f"ndcg@{k}"])
    assert list(fast) == sorted(expected)
    for q, value in expected.items():
        if np.isnan(value):
            assert np.isnan(fast[q]) and np.isnan(full[q])
        else:
            assert fast[q] == pytest.approx(value, rel=1e-12, abs=1e-12)
            assert fast[q] == full[q]  # the same bits


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("grades", [(0, 1), (0, 1, 7), (0, 0.5, 1.7, 3.25)])
def test_dcg_with_fractional_and_binary_grades(gain, grades, monkeypatch):
    """Fractional grades take the full layout (their sums depend on the order)."""
    y, score, query = _random_queries(5, grades=grades)
    y, score, query = _shuffled(5, y, score, query)
    expected_dcg = _brute_force(y, score, query, 3, gain=gain, normalized=False)
    expected_ndcg = _brute_force(y, score, query, 3, gain=gain)
    requests = [_evaluate.make_request(name, _topk_spec(name), 3, {"gain": gain})
                for name in ("dcg", "ndcg")]
    taken = _topk.top_k_scores(y, score, requests, query)
    assert (taken is None) == (grades[1] == 0.5)
    if taken is not None:
        _no_full_layout(monkeypatch)
    result = evaluate(y, score, query_id=query, metrics=["dcg@3", "ndcg@3"],
                      gain=gain, aggregate=None, no_relevant="zero")
    dcg, ndcg = _values(result["dcg@3"]), _values(result["ndcg@3"])
    for q in expected_dcg:
        assert dcg[q] == pytest.approx(expected_dcg[q], rel=1e-12, abs=1e-12)
        if not np.isnan(expected_ndcg[q]):
            assert ndcg[q] == pytest.approx(expected_ndcg[q], rel=1e-12)


def test_tie_block_far_past_the_cutoff(tie_means):
    """A block cut by the cutoff counts all its rows, however far it goes on."""
    rng = np.random.default_rng(0)
    size = 300
    score = np.r_[[9.0, 8.0], np.full(250, 5.0), rng.random(48)]
    y = rng.integers(0, 4, size=size).astype(np.float64)
    query = np.zeros(size, dtype=np.int64)
    query = np.r_[query, np.ones(5, dtype=np.int64)]  # and a short query
    y, score = np.r_[y, [1, 0, 2, 0, 0]], np.r_[score, np.ones(5)]
    k = 10
    block = y[2:252]
    mean_gain = np.mean(np.exp2(block) - 1.0)
    gains = np.exp2(y[:2]) - 1.0
    expected = (gains[0] + gains[1] / math.log2(3.0)
                + mean_gain * sum(1.0 / math.log2(i + 1.0) for i in range(3, k + 1)))
    for a, b, c in [(y, score, query), _shuffled(1, y, score, query)]:
        values = _values(evaluate(a, b, query_id=c, metrics=["dcg@10"],
                                  aggregate=None)["dcg@10"])
        assert values[0] == pytest.approx(expected, rel=1e-12)
        short = np.mean(np.exp2([1.0, 0, 2, 0, 0]) - 1.0)
        assert values[1] == pytest.approx(
            short * sum(1.0 / math.log2(i + 1.0) for i in range(1, 6)), rel=1e-12)


@pytest.mark.parametrize("ids", ["int", "str", "float"])
@pytest.mark.parametrize("no_relevant", ["skip", "zero", "one"])
def test_means_and_ids_equal_the_full_layout(ids, no_relevant, sort_kind):
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 40, size=300)
    query = np.repeat(rng.permutation(300) * 11 + 5, sizes)
    y = rng.choice([0, 0, 0, 1, 2, 4], size=query.shape[0])
    score = np.round(rng.standard_normal(query.shape[0]) * 4) / 4
    if ids == "str":
        query = np.array([f"q{v}" for v in query.tolist()])
    elif ids == "float":
        query = query + 0.5
    for layout in ("grouped", "shuffled"):
        if layout == "shuffled":
            y, score, query = _shuffled(0, y, score, query)
        for k in (1, 10, 25):
            name = f"ndcg@{k}"
            fast = evaluate(y, score, query_id=query, metrics=[name],
                            no_relevant=no_relevant)[name]
            full = ndcg_score(y, score, query_id=query, k=k, no_relevant=no_relevant)
            assert fast == full
            fast = evaluate(y, score, query_id=query, metrics=["dcg@5"],
                            aggregate=None)["dcg@5"]
            full = dcg_score(y, score, query_id=query, k=5, aggregate=None)
            np.testing.assert_array_equal(np.asarray(fast.query_id),
                                          np.asarray(full.query_id))
            np.testing.assert_array_equal(fast.value, full.value)


def test_no_relevant_error_names_a_query():
    with pytest.raises(ValueError, match="no relevant row"):
        evaluate([0, 0, 1, 0], [1, 2, 3, 4], query_id=[7, 7, 8, 8],
                 metrics=["ndcg@2"], no_relevant="error")


@pytest.mark.parametrize("call", [
    dict(metrics=["ndcg@10", "map"]),  # a metric it does not compute
    dict(metrics=["ndcg"]),  # no cutoff: the whole query
    dict(metrics=["ndcg@10"], ties="input"),
    dict(metrics=["ndcg@10"], sample_weight=np.ones(6)),
    dict(metrics=["ndcg@10"], retrieved="positive"),
])
def test_other_calls_take_the_full_layout(call):
    requests_taken = []
    original = _topk.top_k_scores

    def watch(*args, **kwargs):
        requests_taken.append(True)
        return original(*args, **kwargs)

    y, score = [1, 0, 2, 0, 1, 1], [0.5, 0.2, 0.2, 0.9, 0.1, 0.3]
    query = [1, 1, 1, 2, 2, 2]
    mp = pytest.MonkeyPatch()
    mp.setattr(_evaluate, "top_k_scores", watch)
    try:
        evaluate(y, score, query_id=query, **call)
    finally:
        mp.undo()
    assert not requests_taken


def test_input_the_top_k_path_leaves_to_the_full_layout():
    """-inf scores (judged, not retrieved) and integer scores fall back: same values."""
    y, score = [1, 0, 2, 0, 1, 1], [0.5, -np.inf, 0.2, 0.9, 0.1, 0.3]
    query = [1, 1, 1, 2, 2, 2]
    assert _topk.top_layout(y, score, query) is None
    assert evaluate(y, score, query_id=query, metrics=["ndcg@2"])["ndcg@2"] == (
        ndcg_score(y, score, query_id=query, k=2))
    big = np.array([3, 1, 2, 2, 1, 1], dtype=np.int64) + 2**60  # not exact in float64
    assert _topk.top_layout(y, big, query) is None
    assert evaluate(y, big, query_id=query, metrics=["ndcg@2"])["ndcg@2"] == (
        ndcg_score(y, big, query_id=query, k=2))


def test_errors_are_the_full_layouts():
    with pytest.raises(ValueError, match="y_true"):
        evaluate([1, -1], [0.5, 0.2], query_id=[1, 1], metrics=["ndcg@2"])
    with pytest.raises(ValueError, match="query_id"):
        evaluate([1, 0], [0.5, 0.2], query_id=[1, 1, 1], metrics=["ndcg@2"])
    with pytest.raises(ValueError, match="y_score"):
        evaluate([1, 0], [0.5, np.nan], query_id=[1, 1], metrics=["ndcg@2"])


def test_label_like_scores_still_warn():
    y = np.tile([1, 0, 0, 1], 5)
    with pytest.warns(UserWarning):
        evaluate(y, y.astype(np.float64), query_id=np.repeat(np.arange(5), 4),
                 metrics=["ndcg@2"])


def test_packed_order_without_cut_bits_and_with_collisions():
    """Scores whose cut bits are zero skip the collision check; others are re-sorted."""
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**30, size=5000) * 3  # a wide key: few bits left
    for score in (np.round(rng.standard_normal(5000) * 4) / 4,  # no bit cut
                  1.0 + rng.integers(0, 3, size=5000) * 2.0**-50):  # cut bits differ
        order, sorted_keys = packed_order(score, keys)
        np.testing.assert_array_equal(sorted_keys, keys[order])
        expected = np.lexsort((-score, keys))
        np.testing.assert_array_equal(keys[order], keys[expected])
        np.testing.assert_array_equal(score[order], score[expected])


def test_top_k_path_is_used_from_the_public_call(monkeypatch):
    _no_full_layout(monkeypatch)
    assert skrank.evaluate([1, 0, 1], [0.3, 0.2, 0.1], query_id=[1, 1, 2],
                           metrics=["ndcg@2"]) == {"ndcg@2": 1.0}


@pytest.mark.parametrize("window", [1, 2, 9, 10, 64, 65, 100, 129, 300])
def test_summed_width_groups_the_sum_as_the_full_query(window):
    """The window padded to summed_width sums to the bits of the whole query."""
    rng = np.random.default_rng(window)
    sizes = np.r_[np.arange(window, window + 300),
                  rng.integers(window, 40_000, size=100)]
    widths = _topk.summed_width(sizes, np.full(sizes.shape[0], window))
    assert (widths >= window).all() and (widths <= sizes).all()
    for size, width in zip(sizes.tolist(), widths.tolist()):
        values = np.zeros(size)
        values[:window] = rng.random(window) * np.exp(rng.normal(size=window) * 5)
        whole = np.add.reduceat(values, [0])[0]
        assert whole == np.add.reduceat(values[:width], [0])[0]


@pytest.mark.parametrize("k", [10, 100, 150])
@pytest.mark.parametrize("scores", ["eighths", "real"])
def test_long_queries_give_the_full_layouts_bits(k, scores, tie_means):
    rng = np.random.default_rng(k)
    sizes = np.r_[rng.integers(1, 30, size=200), rng.integers(100, 3000, size=12)]
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    y = rng.choice([0, 0, 0, 1, 2, 3], size=query.shape[0])
    score = rng.standard_normal(query.shape[0])
    if scores == "eighths":  # ties, and grades carried by the sort
        score = np.round(score * 8) / 8
    y, score, query = _shuffled(k, y, score, query)
    for name, function in (("ndcg", ndcg_score), ("dcg", dcg_score)):
        fast = evaluate(y, score, query_id=query, metrics=[f"{name}@{k}"],
                        aggregate=None)[f"{name}@{k}"]
        full = function(y, score, query_id=query, k=k, aggregate=None)
        np.testing.assert_array_equal(fast.value, full.value)


@pytest.mark.parametrize("piece_rows", [None, 7])
def test_sorted_with_payload(piece_rows, monkeypatch):
    """Rows by (key, descending score) with their payload; None when a score bit is cut."""
    from skrank._core import _sort
    from skrank._core._sort import sorted_with_payload

    if piece_rows:  # packed a few rows at a time, the last piece shorter
        monkeypatch.setattr(_sort, "_PIECE_ROWS", piece_rows)
    rng = np.random.default_rng(2)
    keys = rng.integers(-50, 2**20, size=3000)
    score = np.round(rng.standard_normal(3000) * 4) / 4
    grade = rng.integers(0, 5, size=3000)
    packed, key_bits, low = sorted_with_payload(score, keys, grade, 3)
    order = np.lexsort((grade, -score, keys))
    np.testing.assert_array_equal((packed >> np.uint64(64 - key_bits)).astype(np.int64)
                                  + low, keys[order])
    np.testing.assert_array_equal(packed & np.uint64(7), grade[order])
    middle = (packed << np.uint64(key_bits)) >> np.uint64(key_bits + 3)  # the scores
    same_key = keys[order][1:] == keys[order][:-1]
    assert (middle[1:][same_key] >= middle[:-1][same_key]).all()
    assert ((middle[1:] == middle[:-1]) == (score[order][1:] == score[order][:-1]))[
        same_key].all()
    assert sorted_with_payload(rng.standard_normal(3000), keys, grade, 3) is None
    late = score.copy()
    late[-1] = 0.75 + 2.0**-45  # a bit the packing would cut, past the first rows
    assert sorted_with_payload(late, keys, grade, 3) is None


def _string_ids(kind, n_queries, rng):
    """Distinct string ids of one kind: padded numbers, ragged lengths, wide code points."""
    numbers = rng.permutation(n_queries) * 37 + 5
    if kind == "padded":
        return np.array([f"u{v:09d}" for v in numbers.tolist()])
    if kind == "ragged":  # lengths differ: the padding's NULs vary too
        return np.array([f"q{v}" if v % 3 else f"q{v}x" for v in numbers.tolist()])
    if kind == "unicode":  # code points above 0xFFFF, a NUL inside
        return np.array([chr(0x1F600 + v % 50) + "é\0" + f"{v:05d}"
                         for v in numbers.tolist()])
    # hex of 32 characters: too many varying bits to pack, factorised instead
    return np.array([f"{v * 0x9E3779B97F4A7C15 % 2**128:032x}" for v in numbers.tolist()])


@pytest.mark.parametrize("kind", ["padded", "ragged", "unicode", "wide"])
def test_string_keys_sort_as_the_ids_and_give_them_back(kind):
    from skrank._core._factorize import string_keys

    rng = np.random.default_rng(7)
    labels = _string_ids(kind, 500, rng)
    ids = labels[rng.integers(0, labels.shape[0], size=5000)]
    found = string_keys(ids)
    if kind == "wide":
        assert found is None
        return
    keys, labels_of = found
    expected_labels, expected_codes = np.unique(ids, return_inverse=True)
    distinct, codes = np.unique(keys, return_inverse=True)
    np.testing.assert_array_equal(codes, expected_codes)  # same groups, same order
    back = labels_of(distinct)
    assert back.dtype == ids.dtype
    np.testing.assert_array_equal(back, expected_labels)
    assert back.tolist() == expected_labels.tolist()


def test_string_keys_of_one_id_and_of_other_arrays():
    from skrank._core._factorize import string_keys

    keys, labels_of = string_keys(np.array(["same"] * 3))
    np.testing.assert_array_equal(keys, [0, 0, 0])
    assert labels_of(keys[:1]).tolist() == ["same"]
    keys, labels_of = string_keys(np.array(["b", "", "a", ""]))  # an empty id first
    assert keys[1] == keys[3] < keys[2] < keys[0]
    assert labels_of(keys[[1, 2, 0]]).tolist() == ["", "a", "b"]
    assert string_keys(np.array([b"a", b"b"])) is None  # bytes: factorised
    assert string_keys(np.array(["a", "b"], dtype=">U1")) is None  # not native
    assert string_keys(["a", "b"]) is None


@pytest.mark.parametrize("kind", ["padded", "ragged", "unicode", "wide"])
@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
def test_string_ids_give_the_full_layouts_values_and_ids(kind, layout, sort_kind):
    rng = np.random.default_rng(11)
    sizes = rng.integers(1, 30, size=400)
    labels = _string_ids(kind, sizes.shape[0], rng)
    query = np.repeat(labels, sizes)
    y = rng.choice([0, 0, 0, 1, 2, 4], size=query.shape[0])
    score = np.round(rng.standard_normal(query.shape[0]) * 4) / 4
    if layout == "shuffled":
        y, score, query = _shuffled(3, y, score, query)
    assert _topk.top_layout(y, score, query) is not None
    for k in (3, 10):
        fast = evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}"],
                        aggregate=None)[f"ndcg@{k}"]
        full = ndcg_score(y, score, query_id=query, k=k, aggregate=None)
        assert np.asarray(fast.query_id).dtype == np.asarray(full.query_id).dtype
        np.testing.assert_array_equal(np.asarray(fast.query_id),
                                      np.asarray(full.query_id))
        np.testing.assert_array_equal(fast.value, full.value)


@pytest.mark.parametrize("length", [1, 3, 10, 100])
@pytest.mark.parametrize("k", [1, 5, 10, 30])
@pytest.mark.parametrize("pieces", ["whole", "small pieces"])
def test_queries_of_one_length_sorted_side_by_side(length, k, pieces, monkeypatch):
    """Grouped queries of one length: each sorted as a row of a 2-D array, the full layout's bits."""
    rng = np.random.default_rng(length * 100 + k)
    n_queries = 300
    query = np.repeat(rng.permutation(n_queries) * 13 + 1, length)
    y = rng.choice([0, 0, 0, 1, 2, 3], size=query.shape[0])
    score = np.round(rng.standard_normal(query.shape[0]) * 3) / 4  # ties at every cutoff
    y[query == query[0]] = 0  # a query without a relevant row
    if pieces == "small pieces":  # several pieces, the last one shorter
        monkeypatch.setattr(_topk_columns, "_CHUNK", 7)
        monkeypatch.setattr(_topk_columns, "_PREPARED_ROWS", 7 * length)
    lengths = []
    original = _topk.sorted_side_by_side

    def watch(*args, **kwargs):
        lengths.append(args[2])
        return original(*args, **kwargs)

    monkeypatch.setattr(_topk, "sorted_side_by_side", watch)
    for name, function in (("ndcg", ndcg_score), ("dcg", dcg_score)):
        fast = evaluate(y, score, query_id=query, metrics=[f"{name}@{k}"],
                        aggregate=None, no_relevant="zero")[f"{name}@{k}"]
        full = function(y, score, query_id=query, k=k, aggregate=None,
                        no_relevant="zero")
        np.testing.assert_array_equal(np.asarray(fast.query_id), np.asarray(full.query_id))
        np.testing.assert_array_equal(fast.value, full.value)
    assert lengths == ([length] * 2 if length > 1 else [])  # single rows: not grouped


@pytest.mark.parametrize("split", [False, True])
def test_grouped_string_ids_are_not_factorised(split, monkeypatch):
    """Grouped string ids: the runs' ids only are ordered; a query in two runs falls back."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 20, size=300)
    labels = _string_ids("wide", sizes.shape[0], rng)  # not packable: no shortcut there
    query = np.repeat(labels, sizes)
    if split:  # the first query's rows again at the end
        query = np.r_[query, query[:3]]
    y = rng.choice([0, 0, 1, 3], size=query.shape[0])
    score = np.round(rng.standard_normal(query.shape[0]) * 4) / 4
    factorised = []
    original = _topk.factorize

    def watch(*args, **kwargs):
        factorised.append(True)
        return original(*args, **kwargs)

    monkeypatch.setattr(_topk, "factorize", watch)
    fast = evaluate(y, score, query_id=query, metrics=["ndcg@5"], aggregate=None)["ndcg@5"]
    full = ndcg_score(y, score, query_id=query, k=5, aggregate=None)
    np.testing.assert_array_equal(np.asarray(fast.query_id), np.asarray(full.query_id))
    np.testing.assert_array_equal(fast.value, full.value)
    assert factorised == ([True] if split else [])


@pytest.mark.parametrize("scores", ["real", "quarters"])
@pytest.mark.parametrize("ids", [10**9 + 7919, -(2**40) + 3, 2**44 + 1])
def test_wide_integer_ids_grouped_by_a_sort_first(ids, scores, sort_kind, monkeypatch):
    """Ids of a wide span, shuffled: rows grouped by (id, row), then ranked; the full layout's bits."""
    rng = np.random.default_rng(abs(ids) % 1000)
    sizes = rng.integers(1, 25, size=500)
    query = np.repeat(rng.permutation(500).astype(np.int64) * ids, sizes)
    y = rng.choice([0, 0, 0, 1, 2, 4], size=query.shape[0])
    score = rng.standard_normal(query.shape[0])
    if scores == "quarters":
        score = np.round(score * 4) / 4
    y, score, query = _shuffled(1, y, score, query)
    grouped = []
    original = _topk._rows_by_key

    def watch(keys):
        found = original(keys)
        grouped.append(found is not None)
        return found

    monkeypatch.setattr(_topk, "_rows_by_key", watch)
    for k in (1, 10):
        fast = evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}"],
                        aggregate=None)[f"ndcg@{k}"]
        full = ndcg_score(y, score, query_id=query, k=k, aggregate=None)
        np.testing.assert_array_equal(np.asarray(fast.query_id), np.asarray(full.query_id))
        np.testing.assert_array_equal(fast.value, full.value)
    if scores == "real":  # no grade rides in the sort: a row order, from two sorts if wide
        bits = int(query.max() - query.min()).bit_length() + (query.shape[0] - 1).bit_length()
        assert grouped == [bits <= 64] * 2


@pytest.mark.parametrize("discount", ["log2", "position"])
@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("layout", ["grouped", "shuffled", "one length"])
def test_binary_grades_ideal_dcg_from_the_relevant_count(layout, gain, discount,
                                                         monkeypatch):
    """Grades 0 and 1: the ideal DCG from each query's count, the full layout's bits."""
    rng = np.random.default_rng(4)
    sizes = np.full(300, 12) if layout == "one length" else rng.integers(1, 60, size=300)
    query = np.repeat(np.arange(300) * 5 + 2, sizes)
    y = (rng.random(query.shape[0]) < rng.beta(1, 4, size=300)[query // 5]).astype(int)
    y[query == 2] = 0  # a query without a relevant row
    score = np.round(rng.standard_normal(query.shape[0]) * 4) / 4
    if layout == "shuffled":
        y, score, query = _shuffled(2, y, score, query)

    def refuse(*args, **kwargs):
        raise AssertionError("counted per grade")

    for k in (1, 3, 10, 50):
        full = ndcg_score(y, score, query_id=query, k=k, gain=gain, discount=discount,
                          aggregate=None, no_relevant="zero")
        with monkeypatch.context() as patch:
            patch.setattr(_topk, "_ideal_dcg_per_query", refuse)
            fast = evaluate(y, score, query_id=query, metrics=[f"ndcg@{k}"], gain=gain,
                            discount=discount, aggregate=None,
                            no_relevant="zero")[f"ndcg@{k}"]
        np.testing.assert_array_equal(fast.value, full.value)


def _layouts_for_ids(rng):
    """(name, y, score, query) of each path making ids: grouped/shuffled, int/str, one length."""
    sizes = rng.integers(1, 25, size=120)
    ints = np.repeat(rng.permutation(120) * 7 + 3, sizes)
    y = rng.choice([0, 0, 1, 3], size=ints.shape[0])
    y[ints == ints[5]] = 0  # an undefined query, not the first
    score = np.round(rng.standard_normal(ints.shape[0]) * 4) / 4
    strs = np.array([f"id{v:05d}" for v in ints.tolist()])
    one = np.repeat(rng.permutation(50) * 3 + 1, 8)
    y_one = rng.choice([0, 1, 2], size=one.shape[0])
    y_one[one == one[9]] = 0
    cases = [("grouped int", y, score, ints), ("grouped str", y, score, strs),
             ("one length", y_one, rng.standard_normal(one.shape[0]), one)]
    for name, y_, s_, q_ in list(cases):
        order = rng.permutation(q_.shape[0])
        cases.append((name.replace("grouped", "shuffled") + " shuffled", y_[order],
                      s_[order], q_[order]))
    return cases


def test_query_ids_made_only_when_read(monkeypatch):
    """A mean reads no id (none is made); per-query values and an error name the full layout's."""
    for name, y, score, query in _layouts_for_ids(np.random.default_rng(8)):
        assert _topk.top_layout(y, score, query) is not None, name
        expected = ndcg_score(y, score, query_id=query, k=3, aggregate=None)
        with pytest.raises(ValueError, match="no relevant row") as full_error:
            ndcg_score(y, score, query_id=query, k=3, no_relevant="error")
        with monkeypatch.context() as mp:
            def refuse(*args, **kwargs):
                raise AssertionError("query ids made")

            mp.setattr(_topk, "_labels", refuse)
            for no_relevant in ("skip", "zero"):
                assert evaluate(y, score, query_id=query, metrics=["ndcg@3"],
                                no_relevant=no_relevant)["ndcg@3"] == ndcg_score(
                    y, score, query_id=query, k=3, no_relevant=no_relevant), name
        fast = evaluate(y, score, query_id=query, metrics=["ndcg@3", "dcg@2"],
                        aggregate=None)
        for key in ("ndcg@3", "dcg@2"):
            np.testing.assert_array_equal(np.asarray(fast[key].query_id),
                                          np.asarray(expected.query_id))
        np.testing.assert_array_equal(fast["ndcg@3"].value, expected.value)
        with pytest.raises(ValueError, match="no relevant row") as fast_error:
            evaluate(y, score, query_id=query, metrics=["ndcg@3"], no_relevant="error")
        assert str(fast_error.value) == str(full_error.value), name


def test_counted_positions_of_segments():
    """``_counted``: each segment's positions from its first value, as np.repeat gives them."""
    rng = np.random.default_rng(4)
    for sizes in ([1], [3], [1, 1, 1], [5, 1, 2, 10, 1], rng.integers(1, 12, size=500)):
        size = np.asarray(sizes, dtype=np.intp)
        start = np.cumsum(size) - size
        total = int(size.sum())
        first = rng.integers(0, 1000, size=size.shape[0]).astype(np.intp)
        within = np.arange(total) - np.repeat(start, size)
        np.testing.assert_array_equal(_topk._counted(start, size, total), within)
        np.testing.assert_array_equal(_topk._counted(start, size, total, first),
                                      np.repeat(first, size) + within)
        spare = rng.integers(-5, 5, size=total).astype(np.intp)  # any values: overwritten
        np.testing.assert_array_equal(_topk._counted(start, size, total, out=spare), within)


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("discount", ["log2", "position"])
@pytest.mark.parametrize("grades", ["int", "float"])
@pytest.mark.parametrize("layout", ["grouped", "shuffled"])
def test_one_row_queries_left_out_of_the_window(gain, discount, grades, layout, monkeypatch):
    """Many one-row queries beside longer ones: each DCG is its gain, the full layout's bits."""
    rng = np.random.default_rng(len(gain) * 7 + len(discount))
    sizes = np.r_[np.ones(60, dtype=int), rng.integers(2, 5, size=20), [6, 7]]
    sizes = rng.permutation(sizes)
    query = np.repeat(np.arange(sizes.shape[0]) * 5 + 2, sizes)
    y = rng.choice([0, 1, 2, 3], size=query.shape[0])
    y[:sizes[0]] = 0  # the first query without a relevant row
    y = y.astype(np.float64) if grades == "float" else y
    score = rng.integers(0, 3, size=query.shape[0]) / 2  # ties everywhere
    if layout == "shuffled":
        y, score, query = _shuffled(1, y, score, query)
    calls = []
    original = _topk.window_dcg

    def watch(score_, relevance, query_start, sizes_, *args, **kwargs):
        calls.append(int(np.count_nonzero(sizes_ == 1)))
        return original(score_, relevance, query_start, sizes_, *args, **kwargs)

    monkeypatch.setattr(_topk, "window_dcg", watch)
    expected = _brute_force(np.asarray(y, dtype=np.float64), score, query, 3,
                            gain=gain, normalized=False) if discount == "log2" else None
    values = {}
    for share in (4, 0):  # the split, and no split (every query in the window)
        monkeypatch.setattr(_topk, "_SINGLE_SHARE", share)
        calls.clear()
        for name, function in (("ndcg", ndcg_score), ("dcg", dcg_score)):
            fast = evaluate(y, score, query_id=query, metrics=[f"{name}@3"], gain=gain,
                            discount=discount, aggregate=None, no_relevant="zero")[f"{name}@3"]
            full = function(y, score, query_id=query, k=3, gain=gain, discount=discount,
                            aggregate=None, no_relevant="zero")
            np.testing.assert_array_equal(fast.value, full.value)
            values[share, name] = fast.value
        assert calls == ([60, 0] * 2 if share == 4 else [60] * 2)
        if expected is not None:
            dcg = _values(fast)
            for q, v in expected.items():
                assert dcg[q] == pytest.approx(v, rel=1e-12, abs=1e-12)
    for name in ("ndcg", "dcg"):
        np.testing.assert_array_equal(values[4, name], values[0, name])
