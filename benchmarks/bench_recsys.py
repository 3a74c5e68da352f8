"""skrank.recsys on 1e6 (user, item) rows of 1e5 users, against the recommender libraries.

    python benchmarks/bench_recsys.py                  # 1e6 rows, 3 rounds
    python benchmarks/bench_recsys.py --rows 1e5 --repeats 2

The rows: 1e5 users with 10 scored candidates each (distinct scores), items
drawn from 1e4 with a Zipf-like popularity; the history is 1e6 interactions
of other users (so no (user, item) pair of the lists is in the history, as
Microsoft recommenders requires). k = 5. Each metric is timed against the
fastest library that computes it, on the same rows, in one run: the
library runs in its own side venv (``/tmp/rs-rectools``,
``/tmp/rs-recommenders``, ``/tmp/rs-recbole``), a child process that loads
the rows once, builds its DataFrame or matrix (not timed), then times its
metric call each time the parent asks; the parent alternates skrank's call
and the child's, ``--repeats`` rounds. A library missing is skipped.

The libraries take ready-made lists: RecTools a frame with a ``rank``
column (it cuts at k itself), recommenders the top-k rows, RecBole the
(users x k) item matrix. skrank takes the scored candidates and makes the
lists (two sorts), ties included, so its time includes the top-k step
the libraries are given for free; with ``--sorted`` the rows come ordered
by user and rank (a recommender's usual output), which skrank checks in
O(n) and does not sort. Values are compared too.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skrank.recsys import (catalog_coverage_score, gini_score,  # noqa: E402
                           novelty_score, popularity_score)

K = 5

CHILD = r"""
import sys, time, json
import numpy as np, pandas as pd
data = np.load(sys.argv[1])
user, item, score, rank = data["user"], data["item"], data["score"], data["rank"]
h_user, h_item = data["h_user"], data["h_item"]
k = int(sys.argv[3])
which = sys.argv[2]
if which.startswith("rectools"):
    from rectools import Columns
    from rectools.metrics import AvgRecPopularity, CatalogCoverage, MeanInvUserFreq
    reco = pd.DataFrame({Columns.User: user, Columns.Item: item, Columns.Rank: rank})
    prev = pd.DataFrame({Columns.User: h_user, Columns.Item: h_item})
    catalog = np.unique(np.r_[item, h_item])
    call = {"rectools-novelty": lambda: MeanInvUserFreq(k=k).calc(reco, prev),
            "rectools-arp": lambda: AvgRecPopularity(k=k).calc(reco, prev),
            "rectools-coverage": lambda: CatalogCoverage(k=k, normalize=True).calc(
                reco, catalog)}[which]
elif which == "recommenders-novelty":
    from recommenders.evaluation.python_evaluation import novelty
    keep = rank <= k
    train = pd.DataFrame({"userID": h_user, "itemID": h_item})
    reco = pd.DataFrame({"userID": user[keep], "itemID": item[keep]})
    call = lambda: novelty(train, reco)
elif which == "recbole-gini":
    from recbole.evaluator.metrics import GiniIndex
    keep = rank <= k
    order = np.lexsort((rank[keep], user[keep]))
    matrix = item[keep][order].reshape(-1, k) + 1
    n_items = int(max(item.max(), h_item.max())) + 2
    metric = GiniIndex({"topk": [k], "metric_decimal_place": 12})
    call = lambda: metric.get_gini(matrix, n_items)
for line in sys.stdin:
    start = time.perf_counter()
    value = call()
    print(json.dumps([time.perf_counter() - start, float(value)]), flush=True)
"""


def make_rows(n_rows, n_users, n_items=10_000, seed=0):
    rng = np.random.default_rng(seed)
    per_user = n_rows // n_users
    user = np.repeat(np.arange(n_users), per_user)
    p = 1.0 / np.arange(1, n_items + 1) ** 0.9
    p /= p.sum()
    item = rng.choice(n_items, size=len(user), p=p)
    score = rng.random(len(user))
    h_item = rng.choice(n_items, size=n_rows, p=p)
    h_user = n_users + rng.integers(0, n_users, n_rows)
    order = np.lexsort((-score, user))
    rank = np.empty(len(user), dtype=np.int64)
    rank[order] = np.tile(np.arange(1, per_user + 1), n_users)
    return dict(user=user, item=item, score=score, rank=rank, h_user=h_user, h_item=h_item)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--users", type=float, default=1e5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sorted", action="store_true",
                        help="rows ordered by user and rank (as a recommender's output "
                        "often is), for every contender")
    args = parser.parse_args(argv)
    rows = make_rows(int(args.rows), int(args.users))
    if args.sorted:
        order = np.lexsort((rows["rank"], rows["user"]))
        rows.update({name: rows[name][order] for name in ("user", "item", "score", "rank")})
    user, item, score = rows["user"], rows["item"], rows["score"]
    h_user, h_item = rows["h_user"], rows["h_item"]
    catalog = np.unique(np.r_[item, h_item])
    n_items = int(max(item.max(), h_item.max())) + 1
    ours = {
        "novelty (RecTools convention)": (
            lambda: novelty_score(item, score, query_id=user, k=K, history_item_id=h_item,
                                  history_query_id=h_user, compat="rectools"),
            "rectools-novelty", "/tmp/rs-rectools"),
        "novelty (recommenders convention)": (
            lambda: novelty_score(item, score, query_id=user, k=K, history_item_id=h_item,
                                  compat="recommenders"),
            "recommenders-novelty", "/tmp/rs-recommenders"),
        "ARP": (lambda: popularity_score(item, score, query_id=user, k=K,
                                         history_item_id=h_item, compat="rectools"),
                "rectools-arp", "/tmp/rs-rectools"),
        "catalog coverage": (
            lambda: catalog_coverage_score(item, score, query_id=user, k=K,
                                           catalog=catalog, compat="rectools"),
            "rectools-coverage", "/tmp/rs-rectools"),
        "Gini": (lambda: gini_score(item, score, query_id=user, k=K, n_items=n_items,
                                    compat="recbole"),
                 "recbole-gini", "/tmp/rs-recbole"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.npz"
        np.savez(path, **rows)
        print(f"{len(user):.0e} rows, {len(np.unique(user)):.0e} users, k={K}, "
              f"{args.repeats} alternating rounds; seconds: fastest (slowest)")
        for name, (ours_call, which, venv) in ours.items():
            python = Path(venv) / "bin" / "python"
            if not python.exists():
                print(f"{name}: {venv} missing, skipped")
                continue
            child = subprocess.Popen([str(python), "-c", CHILD, str(path), which, str(K)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
            mine, theirs, values = [], [], []
            for _ in range(args.repeats):
                start = time.perf_counter()
                value = ours_call()
                mine.append(time.perf_counter() - start)
                child.stdin.write("go\n")
                child.stdin.flush()
                seconds, their_value = json.loads(child.stdout.readline())
                theirs.append(seconds)
                values = (value, their_value)
            child.stdin.close()
            child.wait()
            ratios = sorted(m / t for m, t in zip(mine, theirs))
            print(f"{name:34s} skrank {min(mine):.3f} ({max(mine):.3f})  "
                  f"{which.split('-')[0]} {min(theirs):.3f} ({max(theirs):.3f})  "
                  f"ratio {ratios[0]:.2f}-{ratios[-1]:.2f}  "
                  f"values {values[0]:.9g} / {values[1]:.9g}")


if __name__ == "__main__":
    main()
