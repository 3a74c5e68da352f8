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
import sys
import time
from pathlib import Path

import skrank
from skrank._core import _resample

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402
from bench_data import segment_data  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--segments", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)
    y_true, y_score, query_id, segment = segment_data(args.rows, args.queries,
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
    timings = bench_common.alternate(calls, args.repeats)
    result = calls["evaluate_by"]()
    best = {name: t.best for name, t in timings.items()}
    best_cpu = {name: t.cpu_best for name, t in timings.items()}
    lines = [f"{args.rows:,} rows, {args.queries:,} queries, {len(result.segments)} "
             f"segments, {len(result.metrics)} metrics, {args.resamples:,} resamples; "
             f"best of {args.repeats}"]
    for name, value in best.items():
        lines.append(f"  {name:<26} {value:7.3f} s   "
                     f"{value / best['evaluate']:5.2f}x evaluate")
    lines.append(f"  {'of which resampling':<26} {min(resample_time):7.3f} s   "
                 f"{min(resample_time) / best['evaluate']:5.2f}x evaluate")
    ratio = best["evaluate_by"] / best["evaluate"]
    ratio_cpu = best_cpu["evaluate_by"] / best_cpu["evaluate"]
    lines.append(f"ratio evaluate_by / evaluate: {ratio:.2f} wall clock, "
                 f"{ratio_cpu:.2f} CPU time (goal: at most 3)")
    data = {"rows": args.rows, "queries": args.queries, "segments": args.segments,
            "resamples": args.resamples, "resampling_seconds": resample_time,
            "seconds": {name: t.as_dict() for name, t in timings.items()}}
    bench_common.publish(args, "\n".join(lines), data, preformatted=True,
                         title="evaluate_by against evaluate (`bench_segments.py`)")


if __name__ == "__main__":
    main()
