"""compat= of skrank.recsys against the numbers the libraries computed.

Every expected value below was printed by ``tests/recsys/_make_reference.py``
run in a side venv with the library itself, on ``_world.world()``:

    /tmp/rs-recommenders/bin/python tests/recsys/_make_reference.py recommenders
        (recommenders 1.2.1, pandas 2.3.3)
    /tmp/rs-rectools/bin/python tests/recsys/_make_reference.py rectools
        (RecTools 0.19.0, pandas 2.3.3)
    /tmp/rs-lenskit/bin/python tests/recsys/_make_reference.py lenskit
        (LensKit 2025.8.1; float32 exposures, hence 2e-6)
    /tmp/rs-recbole/bin/python tests/recsys/_make_reference.py recbole
        (RecBole 1.2.1 installed with --no-deps, then torch 2 and tensorboard;
        its metric classes' own methods, unrounded)
"""

import numpy as np
import pytest

from skrank.recsys import (catalog_coverage_score, distributional_coverage_score,
                           gini_score, novelty_score, popularity_score, tail_share_score)
from ._world import N_COLD, N_ITEMS, world

USER, ITEM, SCORE, H_USER, H_ITEM = world()
CATALOG = np.arange(N_ITEMS + N_COLD)
KW = dict(query_id=USER)

RECOMMENDERS = {
    "novelty@5": 5.313019346230977,
    "catalog_coverage@5": 1.0975609756097562,
    "distributional_coverage@5": 5.2972315653105975,
    "novelty@10": 5.195939078623277,
    "catalog_coverage@10": 1.0975609756097562,
    "distributional_coverage@10": 5.316155198364723,
}
RECTOOLS = {
    "novelty@5": 3.69940239837887,
    "popularity@5": 9.8,
    "popularity_normalized@5": 0.025587467362924284,
    "catalog_coverage@5": 1.0,
    "catalog_count@5": 45.0,
    "novelty@10": 3.78312437528474,
    "popularity@10": 9.185,
    "popularity_normalized@10": 0.023981723237597907,
    "catalog_coverage@10": 1.0,
    "catalog_count@10": 45.0,
}
LENSKIT = {
    "list_gini@5": 0.2868148148148148,
    "exposure_gini@5": 0.28740155202552575,
    "list_gini@10": 0.27955555555555556,
    "exposure_gini@10": 0.27314173766324773,
}
RECBOLE = {
    "item_coverage@5": 0.9782608695652174,
    "shannon_entropy@5": 0.08159469165040409,
    "gini_index@5": 0.30231884057971015,
    "average_popularity@5": 9.799999999999999,
    "tail_percentage_0.1@5": 0.08000000000000003,
    "tail_percentage_3@5": 0.2666666666666666,
    "item_coverage@10": 0.9782608695652174,
    "shannon_entropy@10": 0.08188617749256898,
    "gini_index@10": 0.2952173913043478,
    "average_popularity@10": 9.185,
    "tail_percentage_0.1@10": 0.06833333333333337,
    "tail_percentage_3@10": 0.2566666666666666,
}


@pytest.mark.parametrize("k", [5, 10])
def test_recbole(k):
    want = RECBOLE
    kw = dict(k=k, compat="recbole", **KW)
    got = catalog_coverage_score(ITEM, SCORE, catalog=CATALOG, **kw)
    assert got == pytest.approx(want[f"item_coverage@{k}"], abs=1e-9)
    got = distributional_coverage_score(ITEM, SCORE, **kw)
    assert got == pytest.approx(want[f"shannon_entropy@{k}"], abs=1e-9)
    got = gini_score(ITEM, SCORE, n_items=len(CATALOG), **kw)
    assert got == pytest.approx(want[f"gini_index@{k}"], abs=1e-9)
    got = popularity_score(ITEM, SCORE, history_item_id=H_ITEM, **kw)
    assert got == pytest.approx(want[f"average_popularity@{k}"], abs=1e-9)
    got = tail_share_score(ITEM, SCORE, history_item_id=H_ITEM, **kw)
    assert got == pytest.approx(want[f"tail_percentage_0.1@{k}"], abs=1e-9)
    got = tail_share_score(ITEM, SCORE, history_item_id=H_ITEM, tail=3, **kw)
    assert got == pytest.approx(want[f"tail_percentage_3@{k}"], abs=1e-9)


@pytest.mark.parametrize("k", [5, 10])
def test_recommenders(k):
    want = RECOMMENDERS
    got = novelty_score(ITEM, SCORE, k=k, history_item_id=H_ITEM, compat="recommenders",
                        **KW)
    assert got == pytest.approx(want[f"novelty@{k}"], abs=1e-9)
    got = catalog_coverage_score(ITEM, SCORE, k=k, history_item_id=H_ITEM,
                                 compat="recommenders", **KW)
    assert got == pytest.approx(want[f"catalog_coverage@{k}"], abs=1e-9)
    got = distributional_coverage_score(ITEM, SCORE, k=k, compat="recommenders", **KW)
    assert got == pytest.approx(want[f"distributional_coverage@{k}"], abs=1e-9)


@pytest.mark.parametrize("k", [5, 10])
def test_rectools(k):
    want = RECTOOLS
    got = novelty_score(ITEM, SCORE, k=k, history_item_id=H_ITEM, history_query_id=H_USER,
                        compat="rectools", **KW)
    assert got == pytest.approx(want[f"novelty@{k}"], abs=1e-9)
    got = popularity_score(ITEM, SCORE, k=k, history_item_id=H_ITEM, compat="rectools",
                           **KW)
    assert got == pytest.approx(want[f"popularity@{k}"], abs=1e-9)
    got = popularity_score(ITEM, SCORE, k=k, history_item_id=H_ITEM, compat="rectools",
                           normalize=True, **KW)
    assert got == pytest.approx(want[f"popularity_normalized@{k}"], abs=1e-9)
    got = catalog_coverage_score(ITEM, SCORE, k=k, catalog=CATALOG, compat="rectools", **KW)
    assert got == pytest.approx(want[f"catalog_coverage@{k}"], abs=1e-9)
    got = catalog_coverage_score(ITEM, SCORE, k=k, catalog=CATALOG, compat="rectools",
                                 normalize=None, **KW)
    assert got == pytest.approx(want[f"catalog_count@{k}"], abs=1e-9)


@pytest.mark.parametrize("k", [5, 10])
def test_lenskit(k):
    got = gini_score(ITEM, SCORE, k=k, n_items=len(CATALOG), compat="lenskit", **KW)
    assert got == pytest.approx(LENSKIT[f"list_gini@{k}"], abs=2e-6)
    got = gini_score(ITEM, SCORE, k=k, n_items=len(CATALOG), compat="lenskit",
                     weight="geometric", **KW)
    assert got == pytest.approx(LENSKIT[f"exposure_gini@{k}"], abs=2e-6)


def test_the_presets_differ_where_the_libraries_do():
    # the point: one name, different numbers
    kw = dict(k=10, history_item_id=H_ITEM, history_query_id=H_USER, **KW)
    a = novelty_score(ITEM, SCORE, compat="recommenders", **kw)
    b = novelty_score(ITEM, SCORE, compat="rectools", **kw)
    assert a - b > 1
    # an option given explicitly wins over the preset's
    assert novelty_score(ITEM, SCORE, compat="rectools", popularity="interactions",
                         unseen="zero", average="rows", **kw) == pytest.approx(a)
