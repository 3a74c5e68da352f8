"""cross_validate with five metrics: one multi-metric scorer against a dict of five.

    python benchmarks/bench_multi_metric.py              # 400k rows, 4 folds
    python benchmarks/bench_multi_metric.py --rows 1000000 --repeats 3

The model is a ``HistGradientBoostingRegressor`` fitted once (``cv`` folds
reuse a prefit-like cheap fit: ``max_iter=50``), so the time is split between
fitting, predicting and scoring. Both scorings run in one process, side by
side, ``--repeats`` times; the minimum of each is reported with the ratio
and the number of ``predict`` calls each made.
"""

import argparse
import time

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GroupKFold, cross_validate

import skrank

NAMES = ["ndcg@10", "map", "gauc", "precision@5", "fap@10"]


class Counting(HistGradientBoostingRegressor):
    calls = 0

    def predict(self, X):
        type(self).calls += 1
        return super().predict(X)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = args.rows
    qid = rng.integers(0, n // 20, size=n)
    X = rng.normal(size=(n, 10))
    y = (X[:, 0] + rng.normal(size=n) > 1.0).astype(int)
    sklearn.set_config(enable_metadata_routing=True)
    scorings = {
        "multi-metric scorer": skrank.get_scorer(NAMES),
        "dict of 5 scorers": {name: skrank.get_scorer(name) for name in NAMES},
    }
    times = {name: [] for name in scorings}
    calls = {}
    for _ in range(args.repeats):
        for name, scoring in scorings.items():
            Counting.calls = 0
            start = time.perf_counter()
            cross_validate(
                Counting(max_iter=50), X, y, cv=GroupKFold(4), scoring=scoring,
                params={"query_id": qid, "groups": qid},
            )
            times[name].append(time.perf_counter() - start)
            calls[name] = Counting.calls
    base = min(times["multi-metric scorer"])
    print(f"{n:,} rows, {n // 20:,} queries, 4 folds, {len(NAMES)} metrics")
    for name in scorings:
        best = min(times[name])
        print(f"  {name:22s} {best:7.2f} s  {best / base:5.2f}x  "
              f"predict calls: {calls[name]}")


if __name__ == "__main__":
    main()
