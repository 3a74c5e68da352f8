"""The ``skrank evaluate`` command against trec_eval, pytrec_eval and ranx.

Every layout of run file the benchmark has, each measured against NIST's
trec_eval binary (``TREC_EVAL=/path/to/trec_eval`` or on PATH) with the
same measures and the same printed numbers:

- **shuffled**: a synthetic run of 2e6 lines with string ids, its rows
  shuffled (not grouped by query), and qrels that also judge documents the
  run did not retrieve;
- **grouped by query**, **by query and rank** (as systems write run files)
  and **by query (numeric order) and rank** (Q2 before Q10, not
  trec_eval's order of ids): the same lines in those orders;
- **mostly unjudged**: the shuffled run against qrels of one query in ten
  (trec_eval drops a run query without judgments right after reading it);
- **real**: 67 copies of trec_eval's own ``test/results.comment.test`` with
  the queries renamed per copy (2,016,700 lines, 20,167 queries, about a
  tenth judged; MS MARCO ids with a "#"), built at run time from
  trec_eval's source archive (``--trec-eval-src``, by default
  ``../shared/tools/trec_eval-src.tar.gz`` beside the repository; the layout
  is left out, saying so, when the archive is missing).

Each tool runs as a fresh process (interpreter start included) with its own
loader; the tools take turns, round after round, and each one's median
and fastest time and its peak resident memory (the child's own
``ru_maxrss``, as ``/usr/bin/time`` reports it: ``bench_common.run_command``;
the largest of the rounds) are reported, with the ratios per layout.
``skrank evaluate --stream`` also runs on the grouped run, and pytrec_eval,
ranx and trec_eval's run reader alone on the shuffled one. Results are
appended to benchmarks/RESULTS.md.

    python benchmarks/bench_trec.py [--lines 2000000] [--queries 2000] [--rounds 5]

The synthetic files are ``bench_data``'s ``trec_files`` and
``sparse_qrels``; the real ones ``bench_data.trec_eval_test_files``.
"""

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402
from bench_data import sparse_qrels, trec_eval_test_files, trec_files  # noqa: E402

#: the layouts, by the short names --layouts takes
LAYOUTS = {"shuffled": "shuffled", "grouped by query": "grouped",
           "by query and rank": "ranked", "by query (numeric order) and rank": "numeric",
           "mostly unjudged": "unjudged", "real": "real"}
TREC_EVAL_SRC = Path(__file__).resolve().parents[2] / "shared" / "tools" / "trec_eval-src.tar.gz"

MEASURES = ["map", "P_10", "ndcg_cut_10", "recall_1000", "recip_rank", "bpref"]
# the same measures as trec_eval's -m takes them (name.cutoff)
BINARY_MEASURES = ["map", "P.10", "ndcg_cut.10", "recall.1000", "recip_rank", "bpref"]

PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10",
    "recall_1000", "recip_rank", "bpref"})
res = ev.evaluate(run)
print(sum(v["map"] for v in res.values()) / len(res))
"""

# trec_eval's own reader of run files, as compiled into pytrec_eval-terrier's
# extension (trec_eval's C sources): it parses every line and sorts them all
# by query and document. The trec_eval binary runs it and then ranks, joins
# and measures each query, so its time is a lower bound for the binary's.
TREC_READER = """
import ctypes, sys, time
import pytrec_eval_ext
lib = ctypes.CDLL(pytrec_eval_ext.__file__)
epi, out = ctypes.create_string_buffer(4096), ctypes.create_string_buffer(256)
start = time.perf_counter()
if lib.te_get_trec_results(epi, sys.argv[2].encode(), out) != 1:
    raise SystemExit("te_get_trec_results failed")
print(time.perf_counter() - start)
"""

RANX = """
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
print(evaluate(qrels, run, ["map", "precision@10", "ndcg@10", "recall@1000", "mrr"]))
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5,
                        help="turns each tool takes; the median and fastest are kept")
    parser.add_argument("--grouped", action="store_true",
                        help="each tool runs its rounds back to back (warm memory)")
    bench_common.add_results_options(parser, append=True)
    parser.add_argument("--skip", action="append", default=[], metavar="TOOL",
                        help="leave out a Python peer (ranx, pytrec_eval); repeatable")
    parser.add_argument("--trec-eval-src", type=Path, default=TREC_EVAL_SRC,
                        help="trec_eval's source archive, for the real layout")
    parser.add_argument("--layouts", default=",".join(LAYOUTS.values()),
                        help="comma-separated layouts to run (default: all)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp())
    try:
        files = trec_files(root, args.lines, args.queries)
        files["sparse_qrels"] = sparse_qrels(files["qrels"], root / "qrels_sparse.txt")
        if args.trec_eval_src.exists():
            files["real"] = trec_eval_test_files(root, args.trec_eval_src)
        else:
            print(f"{args.trec_eval_src}: no trec_eval source archive; the real layout "
                  "is left out.")
        _compare(args, files)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _compare(args, files):
    qrels, run = files["qrels"], files["run"]
    measures = sum((["-m", m] for m in MEASURES), [])
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    runs = {"shuffled": (qrels, run), "grouped by query": (qrels, files["grouped"]),
            "by query and rank": (qrels, files["ranked"]),
            "by query (numeric order) and rank": (qrels, files["numeric"]),
            "mostly unjudged": (files["sparse_qrels"], run)}
    if "real" in files:
        runs["real"] = (files["real"]["qrels"], files["real"]["run"])
    wanted = args.layouts.split(",")
    commands, pairs = {}, {}  # pairs: layout -> (skrank's name, trec_eval's name)
    for layout, (q, r) in runs.items():
        if LAYOUTS[layout] not in wanted:
            continue
        mine = f"skrank evaluate ({layout})"
        commands[mine] = [sys.executable, "-m", "skrank", "evaluate", str(q), str(r),
                          *measures, "--compat", "trec_eval", "--format", "trec"]
        if layout == "grouped by query":
            commands[f"skrank evaluate --stream ({layout})"] = [*commands[mine], "--stream"]
        if binary:
            theirs = f"trec_eval (C binary, {layout})"
            commands[theirs] = [binary, *sum((["-m", m] for m in BINARY_MEASURES), []),
                                str(q), str(r)]
            pairs[layout] = (mine, theirs)
    reader = "trec_eval's run reader alone (C, lower bound for the binary)"
    commands[reader] = [sys.executable, "-c", TREC_READER, str(qrels), str(run)]
    for name, script in (("pytrec_eval", PYTREC), ("ranx", RANX)):
        if name not in args.skip:
            commands[name] = [sys.executable, "-c", script, str(qrels), str(run)]
    # the tools take turns, round after round (or, with --grouped, each runs
    # its rounds back to back); each keeps its fastest round
    results, times, peaks, cpu = {}, {}, {}, {}
    if args.grouped:
        schedule = [name for name in list(commands) for _ in range(args.rounds)]
    else:
        schedule = [name for _ in range(args.rounds) for name in list(commands)]
    for name in schedule:
        if name not in commands:
            continue
        command = commands[name]
        try:
            done = bench_common.run_command(command)
        except RuntimeError as exc:
            print(f"{name}: {exc}")
            del commands[name]
            continue
        seconds, out = done.seconds, done.stdout
        if name == reader:  # the C call's own time, no interpreter start
            seconds = float(out)
        else:
            peaks[name] = max(peaks.get(name, 0.0), done.peak_mb)
            cpu.setdefault(name, []).append(done.cpu_seconds)
        results[name] = min(seconds, results.get(name, (np.inf, ""))[0]), out
        times.setdefault(name, []).append(seconds)
    lines = [
        "",
        f"## TREC command: synthetic runs of {args.lines:.0e} lines, {args.queries} "
        "queries (string ids, unretrieved judged documents), and trec_eval's own "
        "test run 67 times over",
        "",
        f"Median and fastest of {args.rounds} rounds, "
        + ("each tool's rounds back to back." if args.grouped else
           "the tools taking turns.")
        + " Peak RSS: the tool's process's own maximum RSS (as /usr/bin/time "
        "reports it), the largest of its rounds.",
        "",
        "| tool (own loader, fresh process) | median s | fastest s | median ratio to "
        "skrank | peak MB |",
        "|---|---|---|---|---|",
    ]
    base = float(np.median(times[next(iter(times))]))
    for name, (seconds, _) in results.items():
        median = float(np.median(times[name]))
        peak = peaks.get(name)
        lines.append(f"| {name} | {median:.2f} | {seconds:.2f} | {median / base:.2f} | "
                     + ("—" if peak is None else f"{peak:.0f}") + " |")
    if binary:  # the two ratios, per layout of the run file
        lines += ["", "| run file | trec_eval / skrank, median time | skrank / trec_eval, "
                  "peak memory | same printed lines |", "|---|---|---|---|"]
        for layout, (mine, theirs) in pairs.items():
            if mine in times and theirs in times:
                ratio = float(np.median(times[theirs]) / np.median(times[mine]))
                memory = (peaks[mine] / peaks[theirs] if peaks.get(mine) and peaks.get(theirs)
                          else float("nan"))
                same = "yes" if results[mine][1] == results[theirs][1] else "NO"
                lines.append(f"| {layout} | {ratio:.2f}x | {memory:.2f}x | {same} |")
    if not binary:
        lines.append("")
        lines.append("No trec_eval binary was given (TREC_EVAL=...); pytrec_eval runs "
                     "the same C code behind a Python loader.")
    data = {"lines": args.lines, "queries": args.queries, "rounds": args.rounds,
            "seconds": times, "cpu_seconds": cpu, "peak_mb": peaks}
    bench_common.publish(args, "\n".join(lines), data)


if __name__ == "__main__":
    main()
