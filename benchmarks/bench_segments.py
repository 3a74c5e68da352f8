"""evaluate_by against evaluate on the same data: the cost of segments and intervals.

    python benchmarks/bench_segments.py                 # 1e6 rows, 1e5 queries
    python benchmarks/bench_segments.py --rows 100000 --queries 10000 --repeats 2

Data as in the issue: 1e6 rows over 1e5 queries (10 rows each, in random
order), 20 segments (a segment per query), evaluate's 5 default metrics
(nDCG@10, MAP, MRR, P@10, R@10), 1,000 resamples. Binary labels, each
query with its own rate of relevant rows; scores 0.6 * relevance + N(0, 1).

Both run in one process, taking turns, ``--repeats`` times; the minimum of
each is reported with the ratio (goal: at most 3x evaluate), of wall-clock
and of CPU time (the steadier of the two on a shared machine). evaluate_by's
time is also split: its one evaluate(aggregate=None) call, the segment
bookkeeping, and the resampling after evaluate (``Resampler.sums``: the draws and
the sums).
"""

import argparse
import time

import numpy as np

import skrank
from skrank._core import _resample


def make_data(n_rows, n_queries, n_segments, seed=0):
    rng = np.random.default_rng(seed)
    per_query = n_rows // n_queries
    query = np.repeat(np.arange(n_queries), per_query)
    rng.shuffle(query)
    query_id = 10**9 + 7919 * query
    rate = rng.beta(1, 4, n_queries)
    y_true = (rng.random(query.shape[0]) < rate[query]).astype(np.int64)
    y_score = 0.6 * y_true + rng.normal(size=query.shape[0])
    segment = (query * 7) % n_segments
    return y_true, y_score, query_id, segment


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--segments", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    y_true, y_score, query_id, segment = make_data(args.rows, args.queries,
                                                   args.segments)

    resample_time = []
    original = _resample.Resampler.sums

    def timed(self, columns):
        start = time.perf_counter()
        out = original(self, columns)
        resample_time.append(time.perf_counter() - start)
        return out

    _resample.Resampler.sums = timed

    calls = {
        "evaluate": lambda: skrank.evaluate(y_true, y_score, query_id=query_id),
        "evaluate(aggregate=None)": lambda: skrank.evaluate(
            y_true, y_score, query_id=query_id, aggregate=None),
        "evaluate_by": lambda: skrank.evaluate_by(
            y_true, y_score, by=segment, query_id=query_id,
            n_resamples=args.resamples, random_state=0),
    }
    times = {name: [] for name in calls}
    cpu = {name: [] for name in calls}
    for _ in range(args.repeats):
        for name, call in calls.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            result = call()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    result = calls["evaluate_by"]()
    best = {name: min(values) for name, values in times.items()}
    best_cpu = {name: min(values) for name, values in cpu.items()}
    print(f"{args.rows:,} rows, {args.queries:,} queries, {len(result.segments)} "
          f"segments, {len(result.metrics)} metrics, {args.resamples:,} resamples; "
          f"best of {args.repeats}")
    for name, value in best.items():
        print(f"  {name:<26} {value:7.3f} s   {value / best['evaluate']:5.2f}x evaluate")
    print(f"  {'of which resampling':<26} {min(resample_time):7.3f} s   "
          f"{min(resample_time) / best['evaluate']:5.2f}x evaluate")
    ratio = best["evaluate_by"] / best["evaluate"]
    ratio_cpu = best_cpu["evaluate_by"] / best_cpu["evaluate"]
    print(f"ratio evaluate_by / evaluate: {ratio:.2f} wall clock, {ratio_cpu:.2f} CPU "
          "time (goal: at most 3)")


if __name__ == "__main__":
    main()
