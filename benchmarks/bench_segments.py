"""evaluate_by against evaluate on the same data: the cost of segments and intervals.

    python benchmarks/bench_segments.py                 # 1e6 rows, 1e5 queries
    python benchmarks/bench_segments.py --rows 100000 --queries 10000 --repeats 2

Data as in the issue: 1e6 rows over 1e5 queries (10 rows each, in random
order), 20 segments (a segment per query), evaluate's 5 default metrics
(nDCG@10, MAP, MRR, P@10, R@10), 1,000 resamples. Binary labels, each
query with its own rate of relevant rows; scores 0.6 * relevance + N(0, 1).

They run in one process, taking turns, for ``--repeats`` rounds (5). Each
round gives the ratio evaluate_by / evaluate (goal: at most 3) in
wall-clock and in CPU time (the steadier of the two on a shared machine;
evaluate_by's bootstrap runs on two threads where there are two cores, so
its wall-clock ratio is the lower one on a quiet machine): printed as the
median with the range over the rounds, beside the fastest run of each.
evaluate_by's time is also split: its one evaluate(aggregate=None) call,
the resampling after it (``Resampler.sums``: the draws, their counts and
the sums), and the rest (segments, means, intervals). ``draws alone``
times the least numpy does for the same resamples on one thread: each
segment's exactly uniform draws (``Generator.integers``), neither counted
nor summed.
"""

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

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
    parser.add_argument("--repeats", type=int, default=5)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)
    y_true, y_score, query_id, segment = segment_data(args.rows, args.queries,
                                                      args.segments)

    resample_time, resample_cpu = [], []
    original = _resample.Resampler.sums

    def timed(self, columns):
        wall, cpu, out = bench_common.time_call(original, self, columns)
        resample_time.append(wall)
        resample_cpu.append(cpu)
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
    sizes = np.bincount(np.unique(np.stack([segment, query_id]), axis=1)[0])
    sizes = sizes[sizes > 0]
    draws_rng = np.random.default_rng(0)

    def draws_alone():
        # the least a query bootstrap's exact draws cost in numpy: the
        # resamples' uniform draws of each segment's queries, nothing
        # counted or summed
        for size in sizes.tolist():
            draws_rng.integers(0, size, size=(args.resamples, size), dtype=np.uint16)

    calls["draws alone (numpy floor)"] = draws_alone
    calls["evaluate_by"]()  # imports and first-call caches, untimed
    resample_time.clear()
    resample_cpu.clear()
    timings = bench_common.alternate(calls, args.repeats)
    result = calls["evaluate_by"]()
    by, ev, none = (timings[name] for name in
                    ("evaluate_by", "evaluate", "evaluate(aggregate=None)"))
    lines = [f"{args.rows:,} rows, {args.queries:,} queries, {len(result.segments)} "
             f"segments, {len(result.metrics)} metrics, {args.resamples:,} resamples; "
             f"{args.repeats} alternating rounds, fastest run (wall, CPU)"]
    for name, t in timings.items():
        lines.append(f"  {name:<26} {t.best:7.3f} s {t.cpu_best:7.3f} s   "
                     f"{t.best / ev.best:5.2f}x evaluate")
    sums_wall, sums_cpu = resample_time[:args.repeats], resample_cpu[:args.repeats]
    lines.append(f"  {'of which resampling':<26} {min(sums_wall):7.3f} s "
                 f"{min(sums_cpu):7.3f} s   {min(sums_wall) / ev.best:5.2f}x evaluate")
    rest = [b - s_ - n for b, s_, n in zip(by.wall, sums_wall, none.wall)]
    lines.append(f"  {'of which the rest':<26} {min(rest):7.3f} s "
                 f"{'':9}   {min(rest) / ev.best:5.2f}x evaluate  (segments, means, "
                 "intervals)")
    ratios = {}
    for clock, b, e in (("wall clock", by.wall, ev.wall), ("CPU time", by.cpu, ev.cpu)):
        per_round = [x / y for x, y in zip(b, e)]
        ratios[clock] = per_round
        lines.append(f"ratio evaluate_by / evaluate, {clock}: median "
                     f"{statistics.median(per_round):.2f} (rounds "
                     f"{min(per_round):.2f}-{max(per_round):.2f}; fastest runs "
                     f"{min(b) / min(e):.2f}); goal: at most 3")
    data = {"rows": args.rows, "queries": args.queries, "segments": args.segments,
            "resamples": args.resamples, "resampling_seconds": sums_wall,
            "resampling_cpu_seconds": sums_cpu, "per_round_ratio": ratios,
            "seconds": {name: t.as_dict() for name, t in timings.items()}}
    bench_common.publish(args, "\n".join(lines), data, preformatted=True,
                         title="evaluate_by against evaluate (`bench_segments.py`)")


if __name__ == "__main__":
    main()
