"""The ``skrank evaluate`` command against trec_eval, pytrec_eval and ranx.

A run of 2e6 lines with string ids, its rows shuffled (not grouped by
query), and qrels that judge documents the run did not retrieve. Each tool
runs as a fresh process (interpreter start included) with its own loader;
the ratios come from one run. trec_eval's binary is used when one is given
(``TREC_EVAL=/path/to/trec_eval`` or on PATH). Each tool's median and
fastest time and its peak resident memory (the child's own ``ru_maxrss``,
as ``/usr/bin/time`` reports it: ``bench_common.run_command``; the largest
of the rounds) are reported; ``skrank evaluate``, with and
without ``--stream``, and trec_eval also run on the same lines grouped by
query, sorted by query and rank (as systems write run files), and sorted
so with the queries in numeric order (Q2 before Q10, not trec_eval's order
of ids). Results are appended to benchmarks/RESULTS.md.

    python benchmarks/bench_trec.py [--lines 2000000] [--queries 2000] [--rounds 5]

The files are ``bench_data``'s ``trec_files``.
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
from bench_data import trec_files  # noqa: E402

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
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp())
    try:
        _compare(args, trec_files(root, args.lines, args.queries))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _compare(args, files):
    qrels, run = files["qrels"], files["run"]
    grouped, ranked, numeric = files["grouped"], files["ranked"], files["numeric"]
    measures = sum((["-m", m] for m in MEASURES), [])
    skrank = [sys.executable, "-m", "skrank", "evaluate", str(qrels), str(run),
              *measures, "--compat", "trec_eval", "--format", "trec"]
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    commands = {"skrank evaluate": skrank}
    if binary:
        commands["trec_eval (C binary)"] = [
            binary, *sum((["-m", m] for m in BINARY_MEASURES), []), str(qrels), str(run)]
    commands["skrank evaluate (grouped run)"] = [*skrank[:5], str(grouped), *skrank[6:]]
    commands["skrank evaluate --stream (grouped run)"] = [
        *skrank[:5], str(grouped), *skrank[6:], "--stream"]
    if binary:
        commands["trec_eval (C binary, grouped run)"] = [
            binary, *sum((["-m", m] for m in BINARY_MEASURES), []), str(qrels), str(grouped)]
    commands["skrank evaluate (ranked run)"] = [*skrank[:5], str(ranked), *skrank[6:]]
    if binary:
        commands["trec_eval (C binary, ranked run)"] = [
            binary, *sum((["-m", m] for m in BINARY_MEASURES), []), str(qrels), str(ranked)]
    commands["skrank evaluate (numeric order)"] = [*skrank[:5], str(numeric), *skrank[6:]]
    if binary:
        commands["trec_eval (C binary, numeric order)"] = [
            binary, *sum((["-m", m] for m in BINARY_MEASURES), []), str(qrels), str(numeric)]
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
        f"## TREC command, {args.lines:.0e} run lines, {args.queries} queries "
        "(string ids, rows shuffled, unretrieved judged documents)",
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
    base = float(np.median(times["skrank evaluate"]))
    for name, (seconds, _) in results.items():
        median = float(np.median(times[name]))
        peak = peaks.get(name)
        lines.append(f"| {name} | {median:.2f} | {seconds:.2f} | {median / base:.2f} | "
                     + ("—" if peak is None else f"{peak:.0f}") + " |")
    if binary:  # the two ratios, per layout of the run file
        lines += ["", "| run file | trec_eval / skrank, median time | skrank / trec_eval, "
                  "peak memory |", "|---|---|---|"]
        for layout, mine, theirs in (
            ("shuffled", "skrank evaluate", "trec_eval (C binary)"),
            ("grouped by query", "skrank evaluate (grouped run)",
             "trec_eval (C binary, grouped run)"),
            ("by query and rank", "skrank evaluate (ranked run)",
             "trec_eval (C binary, ranked run)"),
            ("by query (numeric order) and rank", "skrank evaluate (numeric order)",
             "trec_eval (C binary, numeric order)"),
        ):
            if mine in times and theirs in times:
                ratio = float(np.median(times[theirs]) / np.median(times[mine]))
                memory = (peaks[mine] / peaks[theirs] if peaks.get(mine) and peaks.get(theirs)
                          else float("nan"))
                lines.append(f"| {layout} | {ratio:.2f}x | {memory:.2f}x |")
    if not binary:
        lines.append("")
        lines.append("No trec_eval binary was given (TREC_EVAL=...); pytrec_eval runs "
                     "the same C code behind a Python loader.")
    data = {"lines": args.lines, "queries": args.queries, "rounds": args.rounds,
            "seconds": times, "cpu_seconds": cpu, "peak_mb": peaks}
    bench_common.publish(args, "\n".join(lines), data)


if __name__ == "__main__":
    main()
