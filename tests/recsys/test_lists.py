"""Tests of skrank/recsys/_lists.py: each user's top k, ties at the cutoff."""

import itertools

import numpy as np
import pytest

from skrank.recsys._lists import code_items, pair_inclusion, top_k_inclusion
from ._reference import orders_of_user


def test_a_tie_block_straddling_the_cutoff_shares_its_slots():
    # scores 3 > 2 = 2 = 2 > 1, k = 2: one slot for the three tied rows
    topk = top_k_inclusion(list("abcde"), [3, 2, 2, 2, 1], [7] * 5, 2)
    assert topk.inclusion.tolist() == pytest.approx([1, 1 / 3, 1 / 3, 1 / 3, 0])
    assert topk.list_length.tolist() == [2]
    assert topk.queries.tolist() == [7]


def test_rows_need_not_be_sorted_and_users_are_apart():
    topk = top_k_inclusion([1, 2, 3, 4], [0.1, 0.9, 0.5, 0.5], ["u", "v", "u", "v"], 1)
    assert topk.inclusion.tolist() == [0, 1, 1, 0]
    assert topk.queries.tolist() == ["u", "v"]


def test_short_lists_take_every_row():
    topk = top_k_inclusion([1, 2], [1, 1], [0, 0], 10)
    assert topk.inclusion.tolist() == [1, 1]
    assert topk.list_length.tolist() == [2]


@pytest.mark.parametrize("seed", range(5))
def test_inclusion_and_pair_inclusion_against_every_tie_order(seed):
    rng = np.random.default_rng(seed)
    n, k = 6, 3
    scores = rng.integers(0, 3, n).astype(float)
    items = list(range(n))
    orders = list(orders_of_user(items, scores.tolist()))
    single = np.array([np.mean([i in o[:k] for o in orders]) for i in items])
    topk = top_k_inclusion(items, scores, [0] * n, k)
    np.testing.assert_allclose(topk.inclusion, single)
    first, second = zip(*itertools.combinations(items, 2))
    both = [np.mean([a in o[:k] and b in o[:k] for o in orders])
            for a, b in zip(first, second)]
    np.testing.assert_allclose(pair_inclusion(topk, np.array(first), np.array(second)), both)


def test_code_items_shares_one_code_across_arrays():
    item_code, (history_code,), labels = code_items(["b", "c"], ["a", "b"],
                                                    names=("history_item_id",))
    assert labels.tolist() == ["a", "b", "c"]
    assert item_code.tolist() == [1, 2] and history_code.tolist() == [0, 1]
    # 1 and "1" are different items
    _, _, labels = code_items([1, "1"])
    assert len(labels) == 2


@pytest.mark.parametrize("k", [0, -1, 2.5, None, True])
def test_bad_k(k):
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        top_k_inclusion([1], [1.0], [0], k)


def test_bad_input():
    with pytest.raises(ValueError, match="query_id"):
        top_k_inclusion([1], [1.0], None, 1)
    with pytest.raises(ValueError, match="different lengths"):
        top_k_inclusion([1, 2], [1.0], [0], 1)
    with pytest.raises(ValueError, match="y_score"):
        top_k_inclusion([1], [np.nan], [0], 1)
    with pytest.raises(ValueError, match="empty"):
        top_k_inclusion([], [], [], 1)
    with pytest.raises(ValueError, match="item_id"):
        top_k_inclusion([None], [1.0], [0], 1)


def test_sorted_and_unsorted_rows_give_the_same_lists():
    rng = np.random.default_rng(3)
    user = np.repeat(np.arange(50), 6)
    score = rng.integers(0, 4, len(user)).astype(float)
    order = np.lexsort((-score, user))  # the fast path for sorted rows
    shuffled = rng.permutation(len(user))
    a = top_k_inclusion(np.arange(len(user))[order], score[order], user[order], 3)
    b = top_k_inclusion(np.arange(len(user))[shuffled], score[shuffled], user[shuffled], 3)
    got_a = np.empty(len(user)); got_a[order] = a.inclusion
    got_b = np.empty(len(user)); got_b[shuffled] = b.inclusion
    np.testing.assert_array_equal(got_a, got_b)
    # integer scores beyond 2**53 keep their order
    big = top_k_inclusion([1, 2, 3], [2**60, 2**60 + 1, 5], [0, 0, 0], 1)
    assert big.inclusion.tolist() == [0, 1, 0]
