"""cross_validate with five metrics: one multi-metric scorer against a dict of five.

    python benchmarks/bench_multi_metric.py              # 400k rows, 4 folds
    python benchmarks/bench_multi_metric.py --rows 1000000 --repeats 3

The model is a ``HistGradientBoostingRegressor`` fitted once (``cv`` folds
reuse a prefit-like cheap fit: ``max_iter=50``), so the time is split between
fitting, predicting and scoring. Both scorings run in one process, side by
side, ``--repeats`` times; the minimum of each is reported with the ratio
and the number of ``predict`` calls each made. Data: ``bench_data``'s
``features_data`` (10 normal features, about 20 rows per query).
"""

import argparse
import sys
from pathlib import Path

import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import GroupKFold, cross_validate

import skrank

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402
from bench_data import features_data  # noqa: E402

NAMES = ["ndcg@10", "map", "gauc", "precision@5", "fap@10"]


class Counting(HistGradientBoostingRegressor):
    calls = 0

    def predict(self, X):
        type(self).calls += 1
        return super().predict(X)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=2)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)
    n = args.rows
    X, y, qid = features_data(n)
    sklearn.set_config(enable_metadata_routing=True)
    scorings = {
        "multi-metric scorer": skrank.get_scorer(NAMES),
        "dict of 5 scorers": {name: skrank.get_scorer(name) for name in NAMES},
    }

    def run(scoring):
        Counting.calls = 0
        cross_validate(
            Counting(max_iter=50), X, y, cv=GroupKFold(4), scoring=scoring,
            params={"query_id": qid, "groups": qid},
        )
        return Counting.calls

    calls = {}
    timings = bench_common.alternate(
        {name: (lambda scoring=scoring: run(scoring)) for name, scoring in scorings.items()},
        args.repeats, after=calls.__setitem__)
    base = timings["multi-metric scorer"].best
    lines = [f"{n:,} rows, {n // 20:,} queries, 4 folds, {len(NAMES)} metrics"]
    for name in scorings:
        best = timings[name].best
        lines.append(f"  {name:22s} {best:7.2f} s  {best / base:5.2f}x  "
                     f"predict calls: {calls[name]}")
    data = {"rows": n, "metrics": NAMES, "predict_calls": calls,
            "seconds": {name: t.as_dict() for name, t in timings.items()}}
    bench_common.publish(args, "\n".join(lines), data, preformatted=True,
                         title="Several metrics in cross_validate "
                               "(`bench_multi_metric.py`)")


if __name__ == "__main__":
    main()
