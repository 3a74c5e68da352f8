"""Compute the recommender libraries' own numbers on ``_world.world()``.

Run it with each library's interpreter (side venvs, never skrank's):

    /tmp/rs-recommenders/bin/python tests/recsys/_make_reference.py recommenders
    /tmp/rs-rectools/bin/python tests/recsys/_make_reference.py rectools
    /tmp/rs-lenskit/bin/python tests/recsys/_make_reference.py lenskit
    /tmp/rs-recbole/bin/python tests/recsys/_make_reference.py recbole

with recommenders 1.2.1, RecTools 0.19.0, LensKit 2025.8.1 and RecBole 1.2.1
(installed with --no-deps; its metric classes are called without its
trainer). It prints ``name: value`` lines, recorded in test_reference.py.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from _world import N_COLD, N_ITEMS, top_k, world  # noqa: E402

USER, ITEM, SCORE, H_USER, H_ITEM = world()
KS = (5, 10)


def recommenders():
    from recommenders.evaluation.python_evaluation import (
        catalog_coverage, distributional_coverage, novelty)

    train = pd.DataFrame({"userID": H_USER, "itemID": H_ITEM, "rating": 1.0})
    out = {}
    for k in KS:
        u, i, r = top_k(USER, ITEM, SCORE, k)
        reco = pd.DataFrame({"userID": u, "itemID": i, "prediction": 1.0 / r})
        out[f"novelty@{k}"] = novelty(train, reco)
        out[f"catalog_coverage@{k}"] = catalog_coverage(train, reco)
        out[f"distributional_coverage@{k}"] = distributional_coverage(train, reco)
    return out


def rectools():
    from rectools import Columns
    from rectools.metrics import AvgRecPopularity, CatalogCoverage, MeanInvUserFreq

    prev = pd.DataFrame({Columns.User: H_USER, Columns.Item: H_ITEM})
    u, i, r = top_k(USER, ITEM, SCORE, max(KS))
    reco = pd.DataFrame({Columns.User: u, Columns.Item: i, Columns.Rank: r})
    catalog = np.arange(N_ITEMS + N_COLD)
    out = {}
    for k in KS:
        out[f"novelty@{k}"] = MeanInvUserFreq(k=k).calc(reco, prev)
        out[f"popularity@{k}"] = AvgRecPopularity(k=k).calc(reco, prev)
        out[f"popularity_normalized@{k}"] = AvgRecPopularity(k=k, normalize=True).calc(
            reco, prev)
        out[f"catalog_coverage@{k}"] = CatalogCoverage(k=k, normalize=True).calc(
            reco, catalog)
        out[f"catalog_count@{k}"] = CatalogCoverage(k=k).calc(reco, catalog)
    return out


def lenskit():
    from lenskit.data import ItemList
    from lenskit.metrics import ExposureGini, ListGini

    out = {}
    n_items = N_ITEMS + N_COLD
    for k in KS:
        u, i, _ = top_k(USER, ITEM, SCORE, k)
        lists = [ItemList(item_ids=i[u == user], ordered=True) for user in np.unique(u)]
        for name, metric in [("list_gini", ListGini(k, items=n_items)),
                             ("exposure_gini", ExposureGini(k, items=n_items))]:
            data = [metric.compute_list_data(one, None) for one in lists]
            out[f"{name}@{k}"] = float(metric.global_aggregate(data))
    return out


def recbole():
    from collections import Counter

    from recbole.evaluator.metrics import (AveragePopularity, GiniIndex, ItemCoverage,
                                           ShannonEntropy, TailPercentage)

    # RecBole's ids: item i is i + 1 (0 is its padding item), users in order
    k_max = max(KS)
    u, i, _ = top_k(USER, ITEM, SCORE, k_max)
    matrix = np.stack([i[u == user] + 1 for user in np.unique(u)])
    num_items = N_ITEMS + N_COLD + 1
    counts = dict(Counter((H_ITEM + 1).tolist()))
    out = {}
    config = {"topk": list(KS), "metric_decimal_place": 12, "tail_ratio": 0.1}
    for k in KS:
        out[f"item_coverage@{k}"] = ItemCoverage(config).get_coverage(matrix[:, :k], num_items)
        out[f"shannon_entropy@{k}"] = ShannonEntropy(config).get_entropy(matrix[:, :k])
        out[f"gini_index@{k}"] = GiniIndex(config).get_gini(matrix[:, :k], num_items)
        pop = AveragePopularity(config)
        out[f"average_popularity@{k}"] = pop.metric_info(
            pop.get_pop(matrix, counts).astype(float)).mean(axis=0)[k - 1]
        for tail in (0.1, 3):
            metric = TailPercentage({**config, "tail_ratio": tail})
            out[f"tail_percentage_{tail}@{k}"] = metric.metric_info(
                metric.get_tail(matrix, counts).astype(float)).mean(axis=0)[k - 1]
    return out


if __name__ == "__main__":
    for name, value in globals()[sys.argv[1]]().items():
        print(f"{name}: {float(value)!r}")
