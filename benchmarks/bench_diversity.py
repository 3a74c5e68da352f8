"""The intent-aware measures on 1e6 rows x 6 intents with tied scores, against
pyndeval and against one np.lexsort of the rows.

skrank computes alpha-nDCG@20, alpha-DCG@20, ERR-IA@20, nERR-IA@20, NRBP,
nNRBP, MAP-IA, P-IA@20 and S-recall@20 with :func:`skrank.evaluate` (one
sort, exact expectations over the tie orders). pyndeval 0.0.8 (ndeval's C
code; it breaks ties by docno, no expectation) computes all its measures on
the same rows, in a side environment given by ``--pyndeval-python``; only
its ``ndeval(qrels, run)`` calls are timed, not the building of its tuples.
Two layouts by default: 1,000 rows a query (1,000 queries) and 100 rows a
query (10,000 queries). In each round every contender makes ``--calls``
calls in a row and keeps its fastest (pyndeval in its own process, skrank
and the lexsort in this one); the contenders take turns, round after round
(a shared machine: read the ratios, with their ranges).

    python benchmarks/bench_diversity.py --pyndeval-python /tmp/divvenv/bin/python
    python benchmarks/bench_diversity.py --rows 100000 --repeats 3 --rows-per-query 100
"""

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_common  # noqa: E402

NAMES = ["alpha_ndcg@20", "alpha_dcg@20", "err_ia@20", "nerr_ia@20", "nrbp", "nnrbp",
         "map_ia", "p_ia@20", "s_recall@20"]

# run inside pyndeval's environment: time its ndeval call, print the seconds
_PYNDEVAL = r"""
import sys, time, numpy as np, pyndeval
from pyndeval import SubtopicQrel, ScoredDoc
data = np.load(sys.argv[1])
grades, score, query = data["grades"], data["score"], data["query"]
qrels = [SubtopicQrel(str(query[i]), str(j), f"d{i}", 1)
         for i, j in zip(*np.nonzero(grades))]
run = [ScoredDoc(str(q), f"d{i}", float(s)) for i, (q, s) in enumerate(zip(query, score))]
times = []
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    pyndeval.ndeval(qrels, run)
    times.append(time.perf_counter() - start)
print(" ".join(map(repr, times)))
"""


def make_data(n_rows, n_intents, rows_per_query, seed=0):
    """Grades (5% relevant per intent), scores on 100 levels (ties), query ids."""
    rng = np.random.default_rng(seed)
    grades = (rng.random((n_rows, n_intents)) < 0.05).astype(np.int8)
    score = np.round(rng.random(n_rows), 2)
    query = np.repeat(np.arange(n_rows // rows_per_query + 1), rows_per_query)[:n_rows]
    return grades, score, query


def _best(func, calls):
    return min(bench_common.time_call(func)[0] for _ in range(calls))


def run_layout(args, rows_per_query, folder):
    """Rounds of one layout: {ratio name: [per round]} and the rounds' seconds."""
    import skrank

    grades, score, query = make_data(args.rows, args.intents, rows_per_query)
    data = Path(folder) / f"data{rows_per_query}.npz"
    np.savez(data, grades=grades, score=score, query=query)
    ratios = {"skrank/lexsort": []}
    seconds = []
    for _ in range(args.repeats):
        theirs = float("nan")
        if args.pyndeval_python:
            done = subprocess.run(
                [args.pyndeval_python, "-c", _PYNDEVAL, str(data), str(args.calls)],
                capture_output=True, text=True, check=True)
            theirs = min(map(float, done.stdout.split()))
        ours = _best(lambda: skrank.evaluate(grades, score, query_id=query, metrics=NAMES,
                                             no_relevant="zero"), args.calls)
        floor = _best(lambda: np.lexsort((-score, query)), args.calls)
        ratios["skrank/lexsort"].append(ours / floor)
        if args.pyndeval_python:
            ratios.setdefault("pyndeval/skrank", []).append(theirs / ours)
        seconds.append((ours, floor, theirs))
    return ratios, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--intents", type=int, default=6)
    parser.add_argument("--rows-per-query", type=int, nargs="+", default=[1000, 100])
    parser.add_argument("--repeats", type=int, default=5, help="rounds")
    parser.add_argument("--calls", type=int, default=2,
                        help="calls in a row per contender and round (the fastest kept)")
    parser.add_argument("--pyndeval-python", default=None,
                        help="a Python with pyndeval 0.0.8 installed")
    args = parser.parse_args(argv)

    report = {}
    with tempfile.TemporaryDirectory() as folder:
        for rows_per_query in args.rows_per_query:
            ratios, seconds = run_layout(args, rows_per_query, folder)
            report[rows_per_query] = {
                name: {"min": min(v), "median": float(np.median(v)), "max": max(v)}
                for name, v in ratios.items()}
            print(f"{args.rows} rows x {args.intents} intents, {rows_per_query} rows a "
                  f"query, scores on 100 levels (ties); {args.repeats} rounds, best of "
                  f"{args.calls} calls")
            print("  seconds per round (skrank, lexsort, pyndeval): " + ", ".join(
                f"({a:.3f}, {b:.3f}, {c:.3f})" for a, b, c in seconds))
            print(json.dumps(report[rows_per_query], indent=2))
    return report


if __name__ == "__main__":
    main()
