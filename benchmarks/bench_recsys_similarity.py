"""Intra-list diversity on 1e6 (user, item) rows, 1e5 users: skrank against a library.

    python benchmarks/bench_recsys_similarity.py                       # RecTools
    python benchmarks/bench_recsys_similarity.py --library recommenders --rows 1e5
    python benchmarks/bench_recsys_similarity.py --rows 1e5 --users 1e4 --repeats 3

The same rows for both: ``--users`` users with ``rows / users`` candidates
each (random scores, no ties), ``--items`` items with 8 binary features,
``k = 10``. The library runs in its own venv (``--python``, default
``/tmp/rs-<library>/bin/python``) in a worker process that loads the rows
from a temporary ``.npz``, builds its frames untimed and times only the
metric call; skrank is timed in this process from the raw arrays (its time
includes selecting each user's top k, which the library is handed as
ranks). The two take turns ``--repeats`` times; the minimum of each and
their ratio are printed, and the two values are compared (to 1e-9).

* ``rectools``: ``IntraListDiversity(k, PairwiseHammingDistanceCalculator)``
  against ``intra_list_diversity_score(..., compat="rectools")``;
* ``recommenders``: ``diversity(item_sim_measure="item_feature_vector")``
  (its item x item cross join) against ``compat="recommenders"``.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

K = 10


def make_rows(rows, users, items, seed=0):
    rng = np.random.default_rng(seed)
    per_user = rows // users
    user = np.repeat(np.arange(users), per_user)
    # distinct items per user: a random offset and stride into the catalog
    start = rng.integers(0, items, users)
    item = (np.repeat(start, per_user) + np.tile(np.arange(per_user), users) * 7) % items
    score = rng.random(len(user))
    features = (rng.random((items, 8)) < 0.3).astype(np.int64)
    features[np.arange(items), rng.integers(0, 8, items)] = 1
    return {"user": user, "item": item, "score": score, "features": features}


def _worker(library, path):
    import pandas as pd

    data = np.load(path)
    frame = pd.DataFrame({"user": data["user"], "item": data["item"], "score": data["score"]})
    frame = frame.sort_values(["user", "score"], ascending=[True, False])
    frame["rank"] = frame.groupby("user").cumcount() + 1
    top = frame[frame["rank"] <= K]
    features = data["features"]
    if library == "rectools":
        from rectools import Columns
        from rectools.metrics import IntraListDiversity
        from rectools.metrics.distances import PairwiseHammingDistanceCalculator

        reco = pd.DataFrame({Columns.User: top["user"].to_numpy(),
                             Columns.Item: top["item"].to_numpy(),
                             Columns.Rank: top["rank"].to_numpy()})
        calculator = PairwiseHammingDistanceCalculator(pd.DataFrame(
            features, index=pd.Index(np.arange(len(features)), name=Columns.Item)))
        start = time.perf_counter()
        value = IntraListDiversity(K, calculator).calc(reco)
    else:
        from recommenders.evaluation.python_evaluation import diversity

        reco = pd.DataFrame({"userID": top["user"].to_numpy(), "itemID": top["item"].to_numpy()})
        train = pd.DataFrame({"userID": [-1], "itemID": [0]})
        item_features = pd.DataFrame({"itemID": np.arange(len(features)),
                                      "features": [row.astype(float) for row in features]})
        start = time.perf_counter()
        value = diversity(train, reco, item_feature_df=item_features,
                          item_sim_measure="item_feature_vector")
    print(json.dumps({"seconds": time.perf_counter() - start, "value": float(value)}))


def _skrank(data, library):
    import pandas as pd

    from skrank.recsys import intra_list_diversity_score

    features = pd.DataFrame(data["features"])
    start = time.perf_counter()
    value = intra_list_diversity_score(data["item"], data["score"], query_id=data["user"],
                                       k=K, item_features=features, compat=library)
    return time.perf_counter() - start, value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--users", type=float, default=1e5)
    parser.add_argument("--items", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--library", choices=("rectools", "recommenders"), default="rectools")
    parser.add_argument("--python", default=None)
    parser.add_argument("--worker", nargs=2, metavar=("LIBRARY", "NPZ"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return _worker(*args.worker)
    python = args.python or f"/tmp/rs-{args.library}/bin/python"
    data = make_rows(int(args.rows), int(args.users), args.items)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "rows.npz")
        np.savez(path, **data)
        ours, theirs = [], []
        for _ in range(args.repeats):
            seconds, value = _skrank(data, args.library)
            ours.append(seconds)
            out = subprocess.run(
                [python, "-W", "ignore", __file__, "--worker", args.library, path],
                check=True, capture_output=True, text=True)
            result = json.loads(out.stdout.strip().splitlines()[-1])
            theirs.append(result["seconds"])
            if abs(result["value"] - value) > 1e-9:
                raise SystemExit(f"values differ: skrank {value!r}, {args.library} "
                                 f"{result['value']!r}")
    print(f"ILD, {int(args.rows):,} rows, {int(args.users):,} users, k={K}, "
          f"{args.items} items: skrank {min(ours):.3f} s, {args.library} "
          f"{min(theirs):.3f} s, ratio skrank/{args.library} "
          f"{min(ours) / min(theirs):.4f} (value {value:.6f}; times "
          f"{[round(t, 3) for t in ours]} vs {[round(t, 3) for t in theirs]})")


if __name__ == "__main__":
    main()
