"""evaluate with ndcg@10 alone against one np.lexsort, on every layout (issue 45's stretch).

    python benchmarks/bench_topk.py                       # 2e6 rows, 8 shapes x 2 layouts
    python benchmarks/bench_topk.py --shapes q10-binary-ties-int --rounds 9

A cutoff metric reads each query's top k rows only, so ``evaluate`` with
``ndcg@10`` alone takes a top-k path. Each shape of the core matrix
(``bench_data``) is timed in two layouts: ``shuffled`` (bench_data's rows,
queries neither sorted nor contiguous) and ``grouped`` (the same rows,
each query's rows together, queries in code order, rows in random order
inside a query). In each round the contenders run in turn:

* ``floor``: ``np.lexsort((-y_score, codes))``, codes made before timing,
  as in the core matrix (``bench_methods``);
* ``lexsort ids``: ``np.lexsort((y_score, query_id))`` on the ids as given
  (strings for ``str`` shapes);
* ``ndcg@10``: ``skrank.evaluate(..., metrics=["ndcg@10"])``;
* ``five``: ``skrank.evaluate`` with its five default metrics.

Each round gives a ratio to the floor (wall clock, and CPU time of this
process); the table shows the median ratio and the range over rounds.
"""

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

import skrank

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402
import bench_data  # noqa: E402

SHAPES = (
    "q10-binary-noties-int", "q100-binary-noties-int", "zipf-binary-noties-int",
    "q10-graded-noties-int", "q10-binary-ties-int", "q10-binary-noties-str",
    "q100-graded-ties-int", "zipf-graded-ties-str",
)
LAYOUTS = ("shuffled", "grouped")


def layout_arrays(arrays, layout, seed=0):
    """bench_data's arrays, or the same rows grouped by query (random inside each)."""
    if layout == "shuffled":
        return arrays
    rng = np.random.default_rng(seed)
    inside = rng.permutation(arrays["codes"].shape[0])
    order = inside[np.argsort(arrays["codes"][inside], kind="stable")]
    return {name: values[order] for name, values in arrays.items()}


def contenders(d):
    y_true, y_score, query_id, codes = d["y_true"], d["y_score"], d["query_id"], d["codes"]
    return {
        "floor": lambda: np.lexsort((-y_score, codes)),
        "lexsort ids": lambda: np.lexsort((y_score, query_id)),
        "ndcg@10": lambda: skrank.evaluate(y_true, y_score, query_id=query_id,
                                           metrics=["ndcg@10"]),
        "five": lambda: skrank.evaluate(y_true, y_score, query_id=query_id),
    }


def ratios(timings, name, clock="wall"):
    """Per-round ratio of ``name`` to the floor."""
    mine, floor = getattr(timings[name], clock), getattr(timings["floor"], clock)
    return [a / b for a, b in zip(mine, floor)]


def shown(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=2e6)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES))
    parser.add_argument("--layouts", nargs="+", default=list(LAYOUTS), choices=LAYOUTS)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)
    rows = int(args.rows)
    header = (f"{'shape':24s} {'layout':8s} {'floor s':>8s}  {'ndcg@10 / floor':>18s}"
              f"  {'(cpu)':>18s}  {'five / floor':>18s}  {'ndcg@10 / lexsort ids':>21s}")
    lines = [f"{bench_data.format_rows(rows)} rows, {args.rounds} rounds: "
             "median ratio (range over rounds)", header]
    print("\n".join(lines), flush=True)
    data = {"rows": rows, "rounds": args.rounds, "versions": bench_common.versions(),
            "cases": {}}
    for shape in args.shapes:
        arrays = bench_data.generate(bench_data.parse_config(
            f"{bench_data.format_rows(rows)}-{shape}"), seed=0)
        for layout in args.layouts:
            d = layout_arrays(arrays, layout)
            calls = contenders(d)
            for call in calls.values():  # imports, first-call caches
                call()
            timings = bench_common.alternate(calls, args.rounds)
            line = (f"{shape:24s} {layout:8s} {timings['floor'].median:8.3f}  "
                    f"{shown(ratios(timings, 'ndcg@10')):>18s}  "
                    f"{shown(ratios(timings, 'ndcg@10', 'cpu')):>18s}  "
                    f"{shown(ratios(timings, 'five')):>18s}  "
                    f"{shown([a / b for a, b in zip(timings['ndcg@10'].wall, timings['lexsort ids'].wall)]):>21s}")
            print(line, flush=True)
            lines.append(line)
            data["cases"][f"{shape}/{layout}"] = {
                name: t.as_dict() for name, t in timings.items()}
    bench_common.publish(args, "\n".join(lines), data, echo=False,
                         title="evaluate(ndcg@10) against one lexsort", preformatted=True)


if __name__ == "__main__":
    main()
