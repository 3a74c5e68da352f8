"""The libraries' own intra-list diversity and serendipity on one small synthetic world.

``make_world()`` builds the world (numpy's legacy ``RandomState``, the same
numbers on every numpy); ``tests/recsys/test_similarity.py`` imports it and
holds the numbers this script printed. Each library runs in its own venv
(they pin different numpy and pandas)::

    /tmp/rs-recommenders/bin/python tests/recsys/_make_similarity_reference.py recommenders
    /tmp/rs-rectools/bin/python tests/recsys/_make_similarity_reference.py rectools

(recommenders 1.2.1 and RecTools 0.19.0, each with pandas 2.3.3; LensKit
2025.8.1, the newest release, has no ILS: its ``ILS`` metric exists only on
LensKit's main branch, so the LensKit preset is tested by its definition.)
The world: 60 users, 42 items (40 and 41 never in the history, "cold"),
6 binary genre features, 8 history items per user (user 59 has none), 14
candidates per user outside their history scored at random without ties
(user 58 has a single candidate: a one-item list), about a third of the
candidates relevant.
"""

import json
import sys

import numpy as np

N_USERS, N_ITEMS, N_FEATURES = 60, 42, 6


def make_world(seed=48):
    """(features, history, reco) as plain numpy arrays."""
    rng = np.random.RandomState(seed)
    features = (rng.rand(N_ITEMS, N_FEATURES) < 0.35).astype(np.int64)
    features[np.arange(N_ITEMS), rng.randint(0, N_FEATURES, N_ITEMS)] = 1
    warm = np.arange(N_ITEMS - 2)
    hist_user, hist_item = [], []
    for user in range(N_USERS - 1):
        items = rng.choice(warm, 8, replace=False)
        hist_user += [user] * 8
        hist_item += items.tolist()
    hist_user, hist_item = np.array(hist_user), np.array(hist_item)
    reco_user, reco_item, reco_score, reco_rel = [], [], [], []
    for user in range(N_USERS):
        seen = set(hist_item[hist_user == user].tolist())
        pool = np.array([i for i in range(N_ITEMS) if i not in seen])
        n = 1 if user == N_USERS - 2 else 14
        items = rng.choice(pool, n, replace=False)
        scores = rng.permutation(n) + rng.rand() * 0  # distinct scores
        reco_user += [user] * n
        reco_item += items.tolist()
        reco_score += scores.astype(float).tolist()
        reco_rel += (rng.rand(n) < 0.35).astype(int).tolist()
    reco = {
        "user": np.array(reco_user), "item": np.array(reco_item),
        "score": np.array(reco_score), "relevant": np.array(reco_rel),
    }
    return features, (hist_user, hist_item), reco


def graded(reco):
    """A graded relevance (0, 1/3, 2/3, 1): recommenders reads it as float16."""
    return reco["relevant"] * (1 + reco["user"] % 3) / 3


def _ranked(reco, k):
    """The top-k rows as a pandas frame with a 1-based rank per user."""
    import pandas as pd

    frame = pd.DataFrame(reco)
    frame = frame.sort_values(["user", "score"], ascending=[True, False])
    frame["rank"] = frame.groupby("user").cumcount() + 1
    return frame[frame["rank"] <= k]


def recommenders_numbers():
    import pandas as pd
    from recommenders.evaluation.python_evaluation import diversity, serendipity

    features, (hist_user, hist_item), reco = make_world()
    train = pd.DataFrame({"userID": hist_user, "itemID": hist_item})
    item_features = pd.DataFrame({
        "itemID": np.arange(N_ITEMS),
        "features": [row.astype(float) for row in features],
    })
    out = {"pandas": pd.__version__}
    for k in (5, 10):
        top = _ranked(reco, k)
        reco_df = pd.DataFrame({"userID": top["user"].to_numpy(),
                                "itemID": top["item"].to_numpy(),
                                "relevance": top["relevant"].to_numpy()})
        plain = reco_df[["userID", "itemID"]]
        out[f"ild_features@{k}"] = float(diversity(
            train, plain, item_feature_df=item_features,
            item_sim_measure="item_feature_vector"))
        out[f"ild_cooccurrence@{k}"] = float(diversity(
            train, plain, item_sim_measure="item_cooccurrence_count"))
        out[f"serendipity_features@{k}"] = float(serendipity(
            train, reco_df, item_feature_df=item_features,
            item_sim_measure="item_feature_vector", col_relevance="relevance"))
        graded_df = reco_df.assign(relevance=graded(
            {"relevant": top["relevant"].to_numpy(), "user": top["user"].to_numpy()}))
        out[f"serendipity_graded@{k}"] = float(serendipity(
            train, graded_df, item_feature_df=item_features,
            item_sim_measure="item_feature_vector", col_relevance="relevance"))
        out[f"serendipity_cooccurrence@{k}"] = float(serendipity(
            train, reco_df, item_sim_measure="item_cooccurrence_count",
            col_relevance="relevance"))
    return out


def rectools_numbers():
    import pandas as pd
    import rectools
    from rectools import Columns
    from rectools.metrics import IntraListDiversity, Serendipity
    from rectools.metrics.distances import PairwiseHammingDistanceCalculator

    features, (hist_user, hist_item), reco = make_world()
    features_df = pd.DataFrame(features, index=pd.Index(np.arange(N_ITEMS), name=Columns.Item))
    calculator = PairwiseHammingDistanceCalculator(features_df)
    prev = pd.DataFrame({Columns.User: hist_user, Columns.Item: hist_item})
    out = {"pandas": pd.__version__, "rectools": rectools.__version__}
    top = _ranked(reco, 14)
    frame = pd.DataFrame({Columns.User: top["user"].to_numpy(),
                          Columns.Item: top["item"].to_numpy(),
                          Columns.Rank: top["rank"].to_numpy()})
    relevant = top[top["relevant"] > 0]
    interactions = pd.DataFrame({Columns.User: relevant["user"].to_numpy(),
                                 Columns.Item: relevant["item"].to_numpy()})
    for k in (5, 10):
        out[f"ild_hamming@{k}"] = float(IntraListDiversity(k, calculator).calc(frame))
        out[f"serendipity@{k}"] = float(Serendipity(k).calc(
            frame, interactions, prev, np.arange(N_ITEMS)))
    return out


if __name__ == "__main__":
    which = sys.argv[1]
    numbers = {"recommenders": recommenders_numbers, "rectools": rectools_numbers}[which]()
    print(json.dumps(numbers, indent=1))
