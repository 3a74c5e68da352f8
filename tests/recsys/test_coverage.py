"""Tests of skrank/recsys/_coverage.py: catalog and distributional coverage, Gini."""

import math

import numpy as np
import pytest

from skrank.recsys import catalog_coverage_score, distributional_coverage_score, gini_score
from . import _reference as ref
from ._world import N_COLD, N_ITEMS, top_k, world

USER, ITEM, SCORE, H_USER, H_ITEM = world()
CATALOG = np.arange(N_ITEMS + N_COLD)


def _lists(k):
    u, i, _ = top_k(USER, ITEM, SCORE, k)
    return {user: i[u == user].tolist() for user in np.unique(u)}


def test_worked_examples():
    # lists at k=2: u0 [a, b], u1 [a, c]: a twice, b and c once
    kw = dict(query_id=[0, 0, 1, 1, 1], k=2)
    items, scores = ["a", "b", "a", "c", "d"], [2, 1, 3, 2, 1]
    assert catalog_coverage_score(items, scores, catalog=list("abcdef"), **kw) == 3 / 6
    assert catalog_coverage_score(items, scores, normalize=None, **kw) == 3.0
    # default catalog: every candidate (a, b, c, d)
    assert catalog_coverage_score(items, scores, **kw) == 3 / 4
    assert distributional_coverage_score(items, scores, **kw) == pytest.approx(1.5)
    assert distributional_coverage_score(items, scores, base=math.e, per_item=True,
                                         **kw) == pytest.approx(
        -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25)) / 3)
    # counts over 5 items: 0, 0, 1, 1, 2 => (2*3-6)*1 + (2*4-6)*1 + (2*5-6)*2 = 10
    assert gini_score(items, scores, n_items=5, **kw) == pytest.approx(10 / (5 * 4))


@pytest.mark.parametrize("k", [1, 5, 10])
def test_against_the_reference(k):
    lists = _lists(k)
    kw = dict(query_id=USER, k=k)
    assert catalog_coverage_score(ITEM, SCORE, catalog=CATALOG, **kw) == pytest.approx(
        ref.distinct(lists) / len(CATALOG))
    assert distributional_coverage_score(ITEM, SCORE, **kw) == pytest.approx(
        ref.entropy(lists), rel=1e-12)
    for weight in ["count", "geometric", "log2"]:
        got = gini_score(ITEM, SCORE, n_items=len(CATALOG), weight=weight, **kw)
        assert got == pytest.approx(ref.gini(lists, n_items=len(CATALOG), weight=weight),
                                    rel=1e-12)


TIED = dict(
    user=np.array([0, 0, 0, 0, 1, 1, 1, 2, 2]),
    item=np.array([1, 2, 3, 9, 1, 4, 2, 2, 6]),
    score=np.array([2.0, 1, 1, 1, 5, 5, 5, 0, 0]),
)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_coverage_with_ties_is_the_mean_over_every_tie_order(k):
    got = catalog_coverage_score(TIED["item"], TIED["score"], query_id=TIED["user"], k=k,
                                 normalize=None)
    want = ref.expected(ref.distinct, TIED["user"], TIED["item"], TIED["score"], k)
    assert got == pytest.approx(want, rel=1e-12)


def _expected_counts(k, weight="count", patience=0.85):
    """Exposures averaged over every tie order (the documented basis of Gini/entropy)."""
    sets = ref.all_list_sets(TIED["user"], TIED["item"], TIED["score"], k)
    total = {}
    for lists in sets:
        for items in lists.values():
            for rank, item in enumerate(items, 1):
                w = {"count": 1.0, "geometric": patience ** (rank - 1),
                     "log2": 1 / math.log2(rank + 1)}[weight]
                total[item] = total.get(item, 0.0) + w / len(sets)
    return total


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("weight", ["count", "geometric", "log2"])
def test_gini_and_entropy_with_ties_use_expected_counts(k, weight):
    counts = _expected_counts(k, weight)
    got = gini_score(TIED["item"], TIED["score"], query_id=TIED["user"], k=k, n_items=8,
                     weight=weight)
    assert got == pytest.approx(ref.gini_of(list(counts.values()) + [0.0] * (8 - len(counts))),
                                rel=1e-12)
    if weight == "count":
        share = np.array(list(counts.values())) / sum(counts.values())
        got = distributional_coverage_score(TIED["item"], TIED["score"],
                                            query_id=TIED["user"], k=k)
        assert got == pytest.approx(-(share * np.log2(share)).sum(), rel=1e-12)


def test_one_list_one_item():
    kw = dict(query_id=[0], k=5)
    assert distributional_coverage_score(["a"], [1.0], **kw) == 0.0
    assert gini_score(["a"], [1.0], **kw) == 0.0  # one item of a catalog of one
    assert gini_score(["a"], [1.0], n_items=4, **kw) == pytest.approx(0.75)
    assert catalog_coverage_score(["a"], [1.0], **kw) == 1.0


def test_history_that_does_not_cover_the_catalog():
    kw = dict(query_id=[0, 0], k=2)
    # the recommended cold item "z": an error by default with a catalog...
    with pytest.raises(ValueError, match="not in the catalog"):
        catalog_coverage_score(["a", "z"], [2, 1], catalog=["a", "b"], **kw)
    # ... counted with outside="count" (as the libraries do), above 1 possibly
    assert catalog_coverage_score(["a", "z"], [2, 1], history_item_id=["a"],
                                  normalize="history", outside="count", **kw) == 2.0
    with pytest.raises(ValueError, match="not in the history"):
        catalog_coverage_score(["a", "z"], [2, 1], history_item_id=["a"],
                               normalize="history", **kw)
    # without a catalog: candidates and history together are the catalog
    assert catalog_coverage_score(["a", "z"], [2, 1], history_item_id=["a", "b", "c"],
                                  **kw) == pytest.approx(2 / 4)


def test_bad_input():
    kw = dict(query_id=[0, 0], k=1)
    with pytest.raises(ValueError, match="`n_items` is 1"):
        gini_score(["a", "b"], [1, 1], n_items=1, **kw)
    with pytest.raises(ValueError, match="`n_items`"):
        gini_score(["a", "b"], [1, 2], n_items=0, **kw)
    with pytest.raises(ValueError, match="`patience`"):
        gini_score(["a", "b"], [1, 2], weight="geometric", patience=1.0, **kw)
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        catalog_coverage_score(["a", "b"], [1, 2], query_id=[0, 0], k=0)
    with pytest.raises(ValueError, match="history_item_id"):
        catalog_coverage_score(["a", "b"], [1, 2], normalize="history", **kw)
    with pytest.raises(ValueError, match="RecTools has no metric 'gini'"):
        gini_score(["a", "b"], [1, 2], compat="rectools", **kw)
