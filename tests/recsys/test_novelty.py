"""Tests of skrank/recsys/_novelty.py: novelty, ARP, tail share."""

import math
import warnings

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from skrank.recsys import novelty_score, popularity_score, tail_share_score
from . import _reference as ref
from ._world import top_k, world

USER, ITEM, SCORE, H_USER, H_ITEM = world()


def _lists(k):
    u, i, _ = top_k(USER, ITEM, SCORE, k)
    return {user: i[u == user].tolist() for user in np.unique(u)}


def test_novelty_worked_example():
    # history: a x3, b x1 (4 interactions); list [a, b, cold c]
    hist = ["a", "a", "a", "b"]
    got = novelty_score(["a", "b", "c"], [3, 2, 1], query_id=[0, 0, 0], k=3,
                        history_item_id=hist)
    assert got == pytest.approx((-math.log2(3 / 4) + -math.log2(1 / 4) + 0) / 3)
    got = novelty_score(["a", "b", "c"], [3, 2, 1], query_id=[0, 0, 0], k=3,
                        history_item_id=hist, unseen="skip")
    assert got == pytest.approx((-math.log2(3 / 4) + 2) / 2)
    got = novelty_score(["a", "b", "c"], [3, 2, 1], query_id=[0, 0, 0], k=3,
                        history_item_id=hist, unseen="one", base=math.e)
    assert got == pytest.approx((-math.log(3 / 4) + -math.log(1 / 4) * 2) / 3)


@pytest.mark.parametrize("options", [
    {}, {"popularity": "users"}, {"unseen": "one"}, {"unseen": "skip"},
    {"average": "rows"}, {"base": 10, "unseen": "skip", "average": "rows"},
])
@pytest.mark.parametrize("k", [1, 5, 10])
def test_novelty_against_the_reference(options, k):
    got = novelty_score(ITEM, SCORE, query_id=USER, k=k, history_item_id=H_ITEM,
                        history_query_id=H_USER, **options)
    want = ref.novelty(_lists(k), history_user=H_USER.tolist(),
                       history_item=H_ITEM.tolist(), **options)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("k", [1, 3, 10])
def test_popularity_and_tail_share_against_the_reference(k):
    lists = _lists(k)
    for options in [{}, {"normalize": True}, {"divide_by": "k"}]:
        got = popularity_score(ITEM, SCORE, query_id=USER, k=k, history_item_id=H_ITEM,
                               **options)
        assert got == pytest.approx(ref.popularity(lists, history_item=H_ITEM.tolist(),
                                                   k=k, **options), rel=1e-12)
    # tail as a count: items with at most 2 interactions (cold items: 0)
    counts = np.bincount(H_ITEM, minlength=45)
    got = tail_share_score(ITEM, SCORE, query_id=USER, k=k, history_item_id=H_ITEM, tail=2)
    assert got == pytest.approx(ref.tail_share(lists, tail_set=set(np.flatnonzero(
        counts <= 2).tolist())), rel=1e-12)
    # the least popular 10 % of the history's items (ties by id), cold items never
    seen = np.flatnonzero(counts > 0)
    least = sorted(seen.tolist(), key=lambda i: (counts[i], i))[:int(len(seen) * 0.1)]
    got = tail_share_score(ITEM, SCORE, query_id=USER, k=k, history_item_id=H_ITEM,
                           unseen="head")
    assert got == pytest.approx(ref.tail_share(lists, tail_set=set(least)), rel=1e-12)


TIED = dict(
    user=np.array([0, 0, 0, 0, 1, 1, 1, 2]),
    item=np.array([1, 2, 3, 9, 1, 4, 5, 2]),
    score=np.array([2.0, 1, 1, 1, 5, 5, 5, 0]),
)
TIED_HISTORY = dict(user=[5, 5, 6, 6, 7, 7, 7], item=[1, 1, 2, 3, 1, 4, 5])


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("options", [{}, {"unseen": "one", "popularity": "users"},
                                     {"average": "rows"}])
def test_novelty_ties_at_the_cutoff_are_the_mean_over_every_tie_order(k, options):
    got = novelty_score(TIED["item"], TIED["score"], query_id=TIED["user"], k=k,
                        history_item_id=TIED_HISTORY["item"],
                        history_query_id=TIED_HISTORY["user"], **options)
    want = ref.expected(ref.novelty, TIED["user"], TIED["item"], TIED["score"], k,
                        history_user=TIED_HISTORY["user"],
                        history_item=TIED_HISTORY["item"], **options)
    assert got == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("k", [1, 2])
def test_popularity_and_tail_ties_are_the_mean_over_every_tie_order(k):
    kw = dict(query_id=TIED["user"], k=k, history_item_id=TIED_HISTORY["item"])
    got = popularity_score(TIED["item"], TIED["score"], **kw)
    want = ref.expected(ref.popularity, TIED["user"], TIED["item"], TIED["score"], k,
                        history_item=TIED_HISTORY["item"])
    assert got == pytest.approx(want, rel=1e-12)
    got = tail_share_score(TIED["item"], TIED["score"], tail=1, **kw)
    # at most one interaction: 2, 3, 4, 5 (item 1 has three); 9 is cold (0)
    want = ref.expected(ref.tail_share, TIED["user"], TIED["item"], TIED["score"], k,
                        tail_set={2, 3, 4, 5, 9})
    assert got == pytest.approx(want, rel=1e-12)


def test_users_without_history_one_item_lists_and_per_user_values():
    values = novelty_score([1, 2, 1], [1, 1, 1], query_id=["x", "y", "y"], k=1,
                           history_item_id=[1, 1, 2, 3], aggregate=None)
    assert values.query_id.tolist() == ["x", "y"]
    # x: item 1 (2 of 4 interactions): 1 bit; y: a tie of items 2 and 1, one slot
    assert values.value.tolist() == pytest.approx([1.0, (2 + 1) / 2])


def test_a_list_of_unseen_items_only_is_left_out_under_skip():
    values = novelty_score([8, 1], [1, 1], query_id=[0, 1], k=1, history_item_id=[1, 2],
                           unseen="skip", aggregate=None)
    assert np.isnan(values.value[0]) and values.value[1] == pytest.approx(1.0)
    assert novelty_score([8, 1], [1, 1], query_id=[0, 1], k=1, history_item_id=[1, 2],
                         unseen="skip") == pytest.approx(1.0)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(novelty_score([8], [1], query_id=[0], k=1, history_item_id=[1],
                                      unseen="skip"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # zero and one never leave a user out
        assert novelty_score([8], [1], query_id=[0], k=1, history_item_id=[1]) == 0


def test_bad_input():
    kw = dict(query_id=[0], history_item_id=[1])
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        novelty_score([1], [1.0], k=0, **kw)
    with pytest.raises(ValueError, match="history_query_id"):
        novelty_score([1], [1.0], popularity="users", **kw)
    with pytest.raises(ValueError, match="history_item_id"):
        novelty_score([1], [1.0], query_id=[0], history_item_id=[])
    with pytest.raises(ValueError, match="`unseen`"):
        novelty_score([1], [1.0], unseen="drop", **kw)
    with pytest.raises(ValueError, match="`base`"):
        novelty_score([1], [1.0], base=1, **kw)
    with pytest.raises(ValueError, match="`tail`"):
        tail_share_score([1], [1.0], tail=1.5, **kw)
    with pytest.raises(ValueError, match="`compat`"):
        novelty_score([1], [1.0], compat="lightgbm", **kw)
    with pytest.raises(ValueError, match="LensKit has no metric 'novelty'"):
        novelty_score([1], [1.0], compat="lenskit", **kw)
    with pytest.raises(ValueError, match="aggregate='mean'"):
        novelty_score([1], [1.0], average="rows", aggregate=None, **kw)


@pytest.mark.parametrize("seed", range(3))
def test_row_order_and_id_relabelling_change_nothing(seed):
    from skrank.recsys import (catalog_coverage_score, distributional_coverage_score,
                               gini_score)

    rng = np.random.default_rng(seed)
    n = 120
    user = rng.integers(0, 15, n)
    item = rng.integers(0, 30, n)
    score = rng.integers(0, 4, n).astype(float)  # many ties
    h_item = rng.integers(0, 30, 80)
    h_user = rng.integers(0, 9, 80)
    perm = rng.permutation(n)
    names = np.array([f"item-{i}" for i in range(30)], dtype=object)
    users = np.array([f"u{i}" for i in range(15)], dtype=object)

    def all_metrics(u, i, s, hi, hu):
        kw = dict(query_id=u, k=3)
        return [
            novelty_score(i, s, history_item_id=hi, history_query_id=hu,
                          popularity="users", **kw),
            popularity_score(i, s, history_item_id=hi, **kw),
            # a count: a share cuts items of equal counts by id, which relabelling moves
            tail_share_score(i, s, history_item_id=hi, tail=2, **kw),
            catalog_coverage_score(i, s, history_item_id=hi, **kw),
            distributional_coverage_score(i, s, **kw),
            gini_score(i, s, n_items=40, weight="geometric", **kw),
        ]

    base = all_metrics(user, item, score, h_item, h_user)
    moved = all_metrics(users[user][perm], names[item][perm], score[perm] * 3 + 1,
                        names[h_item], h_user)
    assert moved == pytest.approx(base, rel=1e-12)
