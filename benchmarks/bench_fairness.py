"""skrank.fairness.expected_exposure (GERR, exact under ties) against one lexsort.

    python benchmarks/bench_fairness.py                  # 1e6 rows, 5 rounds
    python benchmarks/bench_fairness.py --rows 1e5 --repeats 3 --expeval 2e4

Issue 47's goal: ``expected_exposure`` (GERR), exact under ties, on 1e6
rows at most 5x one ``np.lexsort`` of the rows by (query, score). The data:
lists of 100 rows in random row order (1e4 queries at 1e6 rows), grades 0-3
(a third relevant), scores rounded to one decimal so that most rows tie.
Each round runs every contender once, in turn (``bench_common.alternate``);
the ratios are per round, reported as median (range), in wall-clock and CPU
time. A shared machine makes them noisy: quote the range.

``--expeval N``: also expeval (Diaz et al.'s reference; untied scores only,
each query a TREC run) on the first N rows, through its own command and
files, against skrank on the same N rows without ties.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_common  # noqa: E402

from skrank.fairness import expected_exposure  # noqa: E402


def data(rows, seed=0, list_size=100, ties=True):
    rng = np.random.default_rng(seed)
    query = rng.permutation(np.arange(rows) // list_size).astype(np.int64)
    grade = rng.choice(4, size=rows, p=[0.67, 0.17, 0.1, 0.06]).astype(np.float64)
    score = rng.random(rows) + 0.3 * grade
    if ties:
        score = np.round(score, 1)
    return grade, score, query


def ratios(timings, name, floor):
    wall = [a / b for a, b in zip(timings[name].wall, timings[floor].wall)]
    cpu = [a / b for a, b in zip(timings[name].cpu, timings[floor].cpu)]
    return wall, cpu


def describe(values):
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def run_expeval(rows, script):
    """expeval's wall time on ``rows`` untied rows, and skrank's on the same rows."""
    grade, score, query = data(rows, ties=False)
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder) / "qrels", Path(folder) / "run"
        qrels.write_text("".join(f"{q} 0 d{i} {int(g)}\n"
                                 for i, (q, g) in enumerate(zip(query, grade))))
        order = np.lexsort((-score, query))
        rank = np.empty(rows, dtype=np.int64)
        starts = np.flatnonzero(np.diff(query[order], prepend=-1))
        rank[order] = np.arange(rows) - np.repeat(starts, np.diff(starts, append=rows)) + 1
        run.write_text("".join(f"{query[i]} 0 d{i} {rank[i]} {score[i]:.6f} r\n"
                               for i in order))
        start = time.perf_counter()
        subprocess.run([sys.executable, str(script), "-U", str(qrels), str(run)],
                       check=True, capture_output=True)
        expeval_wall = time.perf_counter() - start
    start = time.perf_counter()
    expected_exposure(grade, score, query_id=query)
    return expeval_wall, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--expeval", type=float, default=0,
                        help="rows for the comparison with expeval (0: none)")
    parser.add_argument("--expeval-script", default="/tmp/skrank-expeval/expeval/expeval.py")
    args = parser.parse_args()
    rows = int(args.rows)
    grade, score, query = data(rows)
    contenders = {
        "lexsort": lambda: np.lexsort((score, query)),
        "expected_exposure (gerr, ties)": lambda: expected_exposure(
            grade, score, query_id=query),
        "expected_exposure (rbp, ties)": lambda: expected_exposure(
            grade, score, query_id=query, user_model="rbp"),
    }
    contenders["expected_exposure (gerr, ties)"]()  # warm up (imports)
    timings = bench_common.alternate(contenders, args.repeats)
    print(f"{rows:.0e} rows, {rows // 100} queries of 100 rows, tied scores; "
          f"{args.repeats} rounds; ratio to one np.lexsort, median (range)")
    for name in contenders:
        if name == "lexsort":
            print(f"  {name:34s} {timings[name].spread()} s")
            continue
        wall, cpu = ratios(timings, name, "lexsort")
        print(f"  {name:34s} {timings[name].spread()} s   wall x{describe(wall)}"
              f"   cpu x{describe(cpu)}")
    if args.expeval:
        script = Path(args.expeval_script)
        if not script.exists():
            print(f"expeval not found at {script}: skipped")
            return
        expeval_wall, skrank_wall = run_expeval(int(args.expeval), script)
        print(f"expeval on {int(args.expeval):.0e} untied rows: {expeval_wall:.2f} s "
              f"(its command, files included); skrank {skrank_wall:.3f} s "
              f"(x{expeval_wall / skrank_wall:.0f} faster)")


if __name__ == "__main__":
    main()
