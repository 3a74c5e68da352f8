"""The shared layout: query ids of any type, one sort, tie blocks."""

import numpy as np
import pandas as pd
import pytest

from skrank import average_precision_score, ndcg_score
from skrank._core._layout import rank_queries, segment_cumsum

Y = np.array([1, 0, 1, 0, 1, 1, 0])
S = np.array([0.2, 0.9, 0.2, 0.5, 0.1, 0.3, 0.3])
IDS = ["b", "a", "b", "a", "c", "c", "a"]


@pytest.mark.parametrize(
    "query_id",
    [
        np.array(IDS),
        np.array(IDS, dtype=object),
        pd.Series(IDS),
        pd.Series(IDS, dtype="category"),
        pd.Categorical(IDS),
        pd.Series(IDS, dtype="string"),
        list(IDS),
    ],
    ids=["str", "object", "series", "series-category", "categorical", "string-dtype", "list"],
)
def test_query_id_types_give_the_same_layout(query_id):
    ranked = rank_queries(Y, S, query_id=query_id)
    assert list(ranked.query_ids) == ["a", "b", "c"]
    np.testing.assert_array_equal(ranked.query_start, [0, 3, 5])
    # query "a": rows 1 (0.9), 3 (0.5), 6 (0.3); "b": rows 0, 2 tied; "c": 5, 4
    np.testing.assert_array_equal(ranked.order, [1, 3, 6, 0, 2, 5, 4])
    np.testing.assert_array_equal(ranked.rank, [1, 2, 3, 1, 2, 1, 2])


def test_numeric_ids_sort_numerically_and_keep_their_values():
    ids = np.array([10, 2, 10, 2, 33, 33, 2], dtype=np.uint16)
    result = ndcg_score(Y, S, query_id=ids, aggregate=None)
    np.testing.assert_array_equal(result.query_id, [2, 10, 33])


def test_mixed_type_object_ids_are_factorised():
    ids = np.array([1, "a", 1, "a", 2.5, 2.5, "a"], dtype=object)
    value = average_precision_score(Y, S, query_id=ids)
    assert value == average_precision_score(Y, S, query_id=IDS)


def test_tie_blocks_follow_the_policy():
    averaged = rank_queries(Y, S, query_id=IDS)
    # query "b" has its two rows tied at 0.2: one block of two rows
    assert averaged.block_start.shape[0] == Y.shape[0] - 1
    by_input = rank_queries(Y, S, query_id=IDS, ties="input")
    assert by_input.block_start.shape[0] == Y.shape[0]


def test_equal_scores_in_different_queries_are_not_one_block():
    ranked = rank_queries([1, 0], [0.5, 0.5], query_id=[1, 2])
    np.testing.assert_array_equal(ranked.block_start, [0, 1])


def test_relevant_before_block_and_tie_share():
    # one query, scores 3,2,2,2,1 -> blocks [0], [1,2,3], [4]
    ranked = rank_queries([1, 1, 0, 0, 1], [3, 2, 2, 2, 1])
    np.testing.assert_array_equal(ranked.relevant_before_block, [0, 1, 2])
    np.testing.assert_allclose(ranked.tie_share, [1, 1 / 3, 1 / 3, 1 / 3, 1])


def test_segment_cumsum_restarts_at_each_segment():
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    out = segment_cumsum(values, np.array([0, 2]))
    np.testing.assert_allclose(out, [1, 3, 3, 7, 12])


def test_pandas_inputs_are_accepted():
    frame = pd.DataFrame({"y": Y, "s": S, "q": IDS})
    assert ndcg_score(frame["y"], frame["s"], query_id=frame["q"]) == ndcg_score(
        Y, S, query_id=IDS
    )


def _reference_order(score, keys):
    """(key ascending, score descending) by a plain lexsort."""
    return np.lexsort((-score, keys))


@pytest.mark.parametrize("seed", range(6))
def test_the_packed_sort_orders_like_a_lexsort(seed):
    # scores that differ only in their last bits, across many queries, with
    # negative values, signed zeros and exact ties: the packed key's
    # truncation collisions must be re-sorted exactly
    rng = np.random.default_rng(seed)
    n = 5000
    base = rng.choice([-1.5, -0.0, 0.0, 1e-300, 0.25, 3.0], size=n)
    score = base + rng.integers(0, 4, size=n) * np.spacing(np.abs(base) + 1e-300)
    keys = rng.integers(0, [2, 700, 2**20, 2**39][seed % 4], size=n) - 3
    ranked = rank_queries(np.zeros(n), score, query_id=keys)
    expected = _reference_order(score, keys)
    np.testing.assert_array_equal(keys[ranked.order], keys[expected])
    np.testing.assert_array_equal(score[ranked.order], score[expected])
    np.testing.assert_array_equal(ranked.query_ids, np.unique(keys))


def test_the_packed_sort_falls_back_for_wide_or_float_ids():
    score = np.array([0.5, 0.25, 0.5, 1.0])
    for keys in (np.array([0, 2**45, 0, 2**45]), np.array([0.5, 1.5, 0.5, 1.5])):
        ranked = rank_queries(np.zeros(4), score, query_id=keys)
        np.testing.assert_array_equal(score[ranked.order], score[_reference_order(score, keys)])


def test_the_packed_sort_resorts_truncation_collisions():
    from skrank._core._sort import packed_order

    rng = np.random.default_rng(7)
    n = 20000
    score = rng.random(n)
    keys = rng.integers(0, 2**39, size=30)[rng.integers(0, 30, size=n)]
    # a few rows equal to another row of their query but for the last bits
    twins = rng.choice(n, size=60, replace=False)
    score[twins[:30]] = np.nextafter(score[twins[30:]], 2.0)
    keys[twins[:30]] = keys[twins[30:]]
    result = packed_order(score, keys)
    assert result is not None  # the packed path, not the lexsort fallback
    order, sorted_keys = result
    expected = _reference_order(score, keys)
    np.testing.assert_array_equal(score[order], score[expected])
    np.testing.assert_array_equal(sorted_keys, keys[expected])


@pytest.mark.parametrize("n_keys", [1, 40])
@pytest.mark.parametrize("layout", ["shuffled", "ranked"])
def test_the_packed_sort_with_row_indices_resorts_collisions(n_keys, layout):
    # few rows and narrow keys: the row index rides in the packed values
    # (the plain-sort path), so even one query's scores lose their last
    # bits, and twins that differ only there must still come out in order
    from skrank._core import _sort

    rng = np.random.default_rng(n_keys)
    n = 3000
    score = rng.normal(size=n).round(3)  # exact ties as well
    keys = rng.integers(0, n_keys, size=n)
    twins = rng.choice(n, size=40, replace=False)
    score[twins[:20]] = np.nextafter(score[twins[20:]], 9.0)
    keys[twins[:20]] = keys[twins[20:]]
    if layout == "ranked":  # already in (key, score descending) order
        first = _reference_order(score, keys)
        score, keys = score[first], keys[first]
    key_bits = int(keys.max() - keys.min()).bit_length()
    assert 64 - key_bits - (n - 1).bit_length() >= _sort._MIN_SCORE_BITS
    result = _sort.packed_order(score, keys)
    assert result is not None
    order, sorted_keys = result
    assert np.array_equal(np.sort(order), np.arange(n))  # a permutation
    expected = _reference_order(score, keys)
    np.testing.assert_array_equal(score[order], score[expected])
    np.testing.assert_array_equal(sorted_keys, keys[expected])


def _checked_packed_order(monkeypatch, score, keys, spied, note):
    """``(order, notes)``: packed_order's order, checked against the reference, and
    ``note(*args)`` of each call it made to ``_sort.<spied>``."""
    from skrank._core import _sort

    notes = []
    real = getattr(_sort, spied)
    monkeypatch.setattr(_sort, spied, lambda *args: notes.append(note(*args)) or real(*args))
    order, sorted_keys = _sort.packed_order(score, keys)
    assert np.array_equal(np.sort(order), np.arange(keys.shape[0]))  # a permutation
    expected = _reference_order(score, keys)
    np.testing.assert_array_equal(score[order], score[expected])
    np.testing.assert_array_equal(sorted_keys, keys[expected])
    return order, notes


def test_scores_crowded_beside_the_row_index_are_sorted_with_every_bit(monkeypatch):
    # 2**16 rows, keys over 24 bits: 24 bits of the score fit beside the row
    # index, and these scores (1 + k * 2**-24) all but collide in them; the
    # argsort with the score's 40 bits below the key orders them exactly
    from skrank._core import _sort

    rng = np.random.default_rng(3)
    n = 1 << 16
    keys = rng.integers(0, 1 << 24, size=64)[rng.integers(0, 64, size=n)]
    keys[:2] = [0, (1 << 24) - 1]
    score = 1.0 + rng.integers(0, 1 << 20, size=n) * 2.0**-24
    assert 64 - 24 - 16 == _sort._MIN_SCORE_BITS
    _, calls = _checked_packed_order(monkeypatch, score, keys, "_sorted_packed",
                                     lambda *args: args[-1])
    assert calls == [16, 0]  # beside the row index (crowded), then by an argsort


@pytest.mark.parametrize("change", ["none", "a_score_rises", "a_key_falls"])
def test_rows_in_order_already_are_left_as_they_are(monkeypatch, change):
    # by key, then score descending (ties, and scores rising from one key to
    # the next, included): nothing is packed; one row out of place is sorted
    rng = np.random.default_rng(5)
    n = 500
    keys = np.sort(rng.integers(0, 20, size=n))
    score = rng.normal(size=n).round(1)
    first = _reference_order(score, keys)
    score, keys = score[first], keys[first]
    if change == "a_score_rises":  # two rows of one key, swapped
        i = int(np.flatnonzero((keys[1:] == keys[:-1]) & (score[1:] < score[:-1]))[0])
        score[[i, i + 1]] = score[[i + 1, i]]
    elif change == "a_key_falls":  # the last row's key before its neighbour's
        keys[-1] = keys[-2] - 1
    order, packed = _checked_packed_order(monkeypatch, score, keys, "_descending_bits",
                                          lambda score: 1)
    assert bool(packed) == (change != "none")
    if change == "none":
        np.testing.assert_array_equal(order, np.arange(n))


@pytest.mark.parametrize("runs", ["shuffled_keys", "ascending_keys", "a_key_twice"])
def test_the_packed_sort_run_by_run(monkeypatch, runs):
    # each key's rows together (as a run file grouped by query): the runs
    # are sorted one by one and put in key order, with the same result as
    # one sort, twins that differ in the last bits of the score included
    rng = np.random.default_rng(11)
    n_keys, n = 30, 6000
    keys = np.sort(rng.integers(0, 1000, size=n_keys))[rng.integers(0, n_keys, size=n)]
    keys.sort()
    if runs == "shuffled_keys":  # the runs in no order of their keys
        values = np.unique(keys)
        relabel = dict(zip(values.tolist(), rng.permutation(values).tolist()))
        keys = np.array([relabel[k] for k in keys.tolist()])
    elif runs == "a_key_twice":  # the first key comes back at the end
        keys[-100:] = keys[0]
    score = rng.normal(size=n).round(2)  # ties
    twins = rng.choice(n - 1, size=30, replace=False)
    score[twins + 1] = np.nextafter(score[twins], 9.0)
    keys[twins + 1] = keys[twins]
    _, calls = _checked_packed_order(monkeypatch, score, keys, "_sort_by_run",
                                     lambda *args: 1)
    assert bool(calls) == (runs != "a_key_twice")


def test_with_relevance_shares_the_structure_not_the_relevance():
    from skrank._core._layout import rank_queries

    ranked = rank_queries([1, 0, 0, 1, 1], [3.0, 2.0, 2.0, 5.0, 1.0],
                          query_id=[1, 1, 1, 2, 2])
    ranked.rank, ranked.n_relevant  # cache one structural, one relevance value
    other = ranked.with_relevance(np.array([0.0, 1.0, 1.0, 0.0, 0.0]))
    assert other.rank is ranked.rank  # shared, not recomputed
    assert other.n_relevant.tolist() == [2, 0]  # from the new relevance
    assert ranked.n_relevant.tolist() == [1, 2]  # the original untouched
    np.testing.assert_array_equal(other.query_start, ranked.query_start)


def test_segment_cumsum_of_floats_is_each_segments_own_running_sum():
    # brute force: np.cumsum of each segment alone, bit for bit, whatever
    # precedes it (a global running sum would carry rounding across segments)
    rng = np.random.default_rng(0)
    sizes = np.concatenate([rng.geometric(0.05, 400), [1, 1, 2, 300, 1]])
    starts = np.cumsum(sizes) - sizes
    values = rng.random(sizes.sum()) * 1e3
    out = segment_cumsum(values, starts)
    for start, size in zip(starts, sizes):
        np.testing.assert_array_equal(out[start:start + size],
                                      np.cumsum(values[start:start + size]))
    # the same segment after different neighbours: the same bits
    alone = segment_cumsum(values[starts[7]:starts[7] + sizes[7]], np.array([0]))
    np.testing.assert_array_equal(alone, out[starts[7]:starts[7] + sizes[7]])
    # whole numbers: one exact global running sum
    counts = rng.integers(0, 3, 50)
    np.testing.assert_array_equal(
        segment_cumsum(counts, np.array([0, 20])),
        np.concatenate([np.cumsum(counts[:20]), np.cumsum(counts[20:])]),
    )


@pytest.mark.parametrize("weighted", [False, True])
def test_a_querys_values_are_its_own_rows_bits_not_their_order_or_neighbours(weighted):
    # every registry metric: the per-query values of a query are the same
    # bits whether it is scored among all queries in one row order, or with
    # its rows shuffled and half the other queries gone (as on a Dask or
    # Spark partition); many ties, fractional labels and weights
    from skrank import evaluate
    from skrank.metrics._registry import METRICS

    rng = np.random.default_rng(5)
    n = 3000
    query = rng.integers(0, 200, n)
    label = rng.integers(0, 2, n).astype(float)
    graded = rng.integers(0, 4, n)
    fractional = rng.integers(0, 4, n) * 0.3
    score = rng.integers(0, 6, n) / 5.0
    weight = rng.uniform(0.1, 3.0, n) if weighted else None
    names = sorted(f"{stem}@5" if spec.takes_k else stem for stem, spec in METRICS.items())

    def per_query(rows, labels, used):
        return evaluate(labels[rows], score[rows], query_id=query[rows], metrics=used,
                        aggregate=None,
                        sample_weight=None if weight is None else weight[rows])

    def accepts(name, labels):
        try:
            evaluate(labels[:50], score[:50], query_id=query[:50], metrics=[name])
        except ValueError:  # binary-only or integer-grade-only metrics
            return False
        return True

    for labels in (label, graded, fractional):
        used = [m for m in names if accepts(m, labels)]
        assert len(used) >= len(names) // 2
        everything = per_query(np.arange(n), labels, used)
        kept = np.flatnonzero(query % 2 == 0)
        part = per_query(rng.permutation(kept), labels, used)
        for name in used:
            whole, some = everything[name], part[name]
            index = np.searchsorted(whole.query_id, some.query_id)
            np.testing.assert_array_equal(whole.query_id[index], some.query_id)
            np.testing.assert_array_equal(whole.value[index], some.value, err_msg=name)
            np.testing.assert_array_equal(whole.weight[index], some.weight, err_msg=name)


@pytest.mark.parametrize("packs", [True, False])
def test_tied_rows_are_put_in_one_order_of_their_values(monkeypatch, packs):
    # within each tie block: descending weight, then descending relevance,
    # whichever way the rows are sorted (whole numbers, packed keys, or the
    # lexsort the packed sort falls back to); against a brute force per block
    from skrank._core import _layout

    if not packs:
        monkeypatch.setattr(_layout, "packed_order", lambda *args: None)
    rng = np.random.default_rng(1)
    for trial in range(120):
        size = rng.integers(1, 7, rng.integers(1, 25))
        starts = np.cumsum(size) - size
        n = int(size.sum())
        relevance = rng.integers(0, 3, n) * (1.0 if trial % 2 else 0.3)
        weight = None if trial % 3 == 0 else rng.choice([0.5, 1.0, 2.0], n)
        order = rng.permutation(n)
        got_order, got_relevance, got_weight = _layout._canonical_tie_order(
            order, relevance, weight, starts)
        for start, m in zip(starts, size):
            block = slice(start, start + m)
            w = np.ones(m) if weight is None else weight[block]
            expected = sorted(zip(w, relevance[block]), reverse=True)
            got = list(zip(np.ones(m) if weight is None else got_weight[block],
                           got_relevance[block]))
            assert got == expected
            # the rows moved with their values
            np.testing.assert_array_equal(np.sort(got_order[block]), np.sort(order[block]))
        np.testing.assert_array_equal(relevance[np.argsort(order)][got_order],
                                      got_relevance)


@pytest.mark.parametrize("values", [[], [3], [1, 1, 2, 5, 5, 5, 9], [0, 0]])
def test_distinct_sorted_is_np_unique_of_an_ascending_array(values):
    from skrank._core._sort import distinct_sorted

    values = np.array(values, dtype=np.int64)
    np.testing.assert_array_equal(distinct_sorted(values), np.unique(values))


def test_sort_each_run_sorts_inside_runs_only():
    from skrank._core._sort import sort_each_run

    values = np.array([5, 1, 3, 9, 2, 8, 7, 0])
    sort_each_run(values, np.array([0, 3, 4]))  # runs [5 1 3] [9] [2 8 7 0]
    assert values.tolist() == [1, 3, 5, 9, 0, 2, 7, 8]


@pytest.mark.parametrize("metric", ["ndcg@5", "dcg@5", "ndcg", "map", "map@5", "precision@3",
                                    "recall@3", "mrr", "hit_rate@3", "bpref"])
def test_a_query_scores_the_same_bits_whatever_the_ties_of_other_queries(metric):
    # a layout with a tie anywhere takes the kernels' general paths, one
    # without ties their short paths: a query without ties must score the
    # same bits in both (in memory, on Dask and Spark its partition decides)
    import skrank

    rng = np.random.default_rng(4)
    n = 300  # many terms: sums in another order round otherwise
    y = (rng.random(n) < 0.6).astype(float)
    if "dcg" in metric:
        y *= rng.integers(1, 4, size=n)
    score = rng.random(n)  # no ties in query 0
    tied_y = (rng.random(20) < 0.4).astype(float)
    tied_score = np.repeat([0.5, 0.25], 10)  # query 1: two blocks of ties
    alone = skrank.evaluate(y, score, query_id=np.zeros(n), metrics=[metric],
                            aggregate=None)[metric]
    mixed = skrank.evaluate(np.r_[y, tied_y], np.r_[score, tied_score],
                            query_id=np.r_[np.zeros(n), np.ones(20)], metrics=[metric],
                            aggregate=None)[metric]
    assert float(mixed.value[0]) == float(alone.value[0])


@pytest.mark.parametrize("seed", range(5))
def test_colliding_runs_are_those_of_a_pass_over_every_row(seed):
    # the rows of the runs of equal packed values with a differing pair, and
    # a run number each, against their definition: runs marked on every row
    from skrank._core._sort import _colliding_runs

    rng = np.random.default_rng(seed)
    n = 400
    packed = np.sort(rng.integers(0, 120, size=n))  # runs of 1 to ~10 rows
    same = np.flatnonzero(packed[1:] == packed[:-1])
    differ = rng.random(same.shape[0]) < 0.3
    differ[rng.integers(0, same.shape[0])] = True
    rows, run = _colliding_runs(same, differ)
    # the definition: number every row's run, keep the runs of a differing pair
    run_of_row = np.cumsum(np.r_[True, packed[1:] != packed[:-1]])
    bad = np.unique(run_of_row[same[differ]])
    expected = np.flatnonzero(np.isin(run_of_row, bad))
    np.testing.assert_array_equal(rows, expected)
    # the same grouping: equal numbers exactly where the definition's are
    np.testing.assert_array_equal(run[1:] == run[:-1],
                                  run_of_row[expected][1:] == run_of_row[expected][:-1])


def test_colliding_runs_of_three_rows_and_runs_side_by_side_resort():
    from skrank._core._sort import packed_order

    # triplets whose scores differ only in their last bits, next to each
    # other in one query, and equal twins: each comes out by descending score
    base = np.array([0.5, 0.25, 0.125, 0.75])
    filler = np.random.default_rng(0).random(2000)  # distinct scores: not crowded
    # the lowest first: the packed sort leaves equal values in row order,
    # the reverse of the scores' order
    score = np.concatenate([np.nextafter(base, -1.0), base, np.nextafter(base, 2.0),
                            np.full(4, 0.3), filler])
    keys = np.zeros(score.shape[0], dtype=np.int64)
    keys[12:16] = 1
    keys[16:] = np.arange(2000) % 7
    result = packed_order(score, keys, max_key_bits=40)
    assert result is not None
    order, _ = result
    expected = _reference_order(score, keys)
    np.testing.assert_array_equal(score[order], score[expected])
