"""The ``skrank evaluate`` command against trec_eval, pytrec_eval and ranx.

A run of 2e6 lines with string ids, its rows shuffled (not grouped by
query), and qrels that judge documents the run did not retrieve. Each tool
runs as a fresh process (interpreter start included) with its own loader;
the ratios come from one run. trec_eval's binary is used when one is given
(``TREC_EVAL=/path/to/trec_eval`` or on PATH). Each tool's median and
fastest time and its peak resident memory (``/usr/bin/time``'s maximum RSS,
or the child's ``ru_maxrss``) are reported; ``skrank evaluate``, with and
without ``--stream``, and trec_eval also run on the same lines grouped by
query, sorted by query and rank (as systems write run files), and sorted
so with the queries in numeric order (Q2 before Q10, not trec_eval's order
of ids). Results are appended to benchmarks/RESULTS.md.

    python benchmarks/bench_trec.py [--lines 2000000] [--queries 2000] [--rounds 5]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

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


def make_files(root, n_lines, n_queries, seed=0):
    rng = np.random.default_rng(seed)
    per_query = n_lines // n_queries
    qids = np.repeat(np.arange(n_queries), per_query)
    docs = rng.integers(0, 50_000_000, size=qids.shape[0])
    # one document per (query, doc): make the ids unique inside a query
    docs = docs + (np.arange(qids.shape[0]) % per_query) * 50_000_000
    scores = rng.normal(size=qids.shape[0]).round(4)
    shuffle = rng.permutation(qids.shape[0])
    qids, docs, scores = qids[shuffle], docs[shuffle], scores[shuffle]
    run = root / "run.txt"
    with open(run, "w") as handle:
        for q, d, s in zip(qids.tolist(), docs.tolist(), scores.tolist()):
            handle.write(f"Q{q} Q0 DOC-{d} 0 {s} bench\n")
    # qrels: 60 judged retrieved documents and 20 judged unretrieved per query
    qrels = root / "qrels.txt"
    with open(qrels, "w") as handle:
        order = np.argsort(qids, kind="stable")
        start = np.searchsorted(qids[order], np.arange(n_queries))
        for q in range(n_queries):
            rows = order[start[q] : start[q] + 60]
            for d in docs[rows].tolist():
                handle.write(f"Q{q} 0 DOC-{d} {int(rng.random() < 0.3)}\n")
            for i in range(20):
                handle.write(f"Q{q} 0 NEW-{q}-{i} {int(rng.random() < 0.5)}\n")
    return qrels, run


def timed(command):
    """Wall time, peak resident memory (MB) and stdout of one fresh process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{command[0]} failed: {done.stderr[-500:]}")
    # ru_maxrss of children is the largest so far: exact when this child is
    # the largest yet, else a lower bound; wrapping in /usr/bin/time is exact
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, (peak if peak > before else float("nan")) / 1024, done.stdout


def peak_of(command):
    """Peak RSS in MB of ``command`` measured by /usr/bin/time, or None without it."""
    if not os.path.exists("/usr/bin/time"):
        return None
    done = subprocess.run(["/usr/bin/time", "-f", "%M", *command], capture_output=True,
                          text=True)
    return int(done.stderr.strip().splitlines()[-1]) / 1024 if done.returncode == 0 else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5,
                        help="turns each tool takes; the median and fastest are kept")
    parser.add_argument("--grouped", action="store_true",
                        help="each tool runs its rounds back to back (warm memory)")
    parser.add_argument("--no-append", action="store_true")
    parser.add_argument("--skip", action="append", default=[], metavar="TOOL",
                        help="leave out a Python peer (ranx, pytrec_eval); repeatable")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp())
    qrels, run = make_files(root, args.lines, args.queries)
    grouped = root / "run_grouped.txt"
    with open(run) as source, open(grouped, "w") as target:
        lines = source.readlines()
        lines.sort(key=lambda line: line.split(" ", 1)[0])  # stable: by query only
        target.writelines(lines)
        del lines
    # as systems write runs: by query, then by rank (score descending), with
    # the rank field filled in
    ranked = root / "run_ranked.txt"
    with open(grouped) as source, open(ranked, "w") as target:
        fields = [line.split() for line in source]
        fields.sort(key=lambda f: (f[0], -float(f[4])))
        rank, previous = 0, None
        for f in fields:
            rank = rank + 1 if f[0] == previous else 1
            previous = f[0]
            target.write(f"{f[0]} {f[1]} {f[2]} {rank} {f[4]} {f[5]}\n")
        del fields
    # the same, queries in numeric order (Q2 before Q10), as systems that
    # number their topics write them: not trec_eval's order of query ids
    numeric = root / "run_numeric.txt"
    with open(ranked) as source, open(numeric, "w") as target:
        lines = source.readlines()
        lines.sort(key=lambda line: int(line.split(" ", 1)[0][1:]))  # stable: ranks stay
        target.writelines(lines)
        del lines
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
    results, times, peaks = {}, {}, {}
    if args.grouped:
        schedule = [name for name in list(commands) for _ in range(args.rounds)]
    else:
        schedule = [name for _ in range(args.rounds) for name in list(commands)]
    for name in schedule:
        if name not in commands:
            continue
        command = commands[name]
        try:
            seconds, _, out = timed(command)
        except RuntimeError as exc:
            print(f"{name}: {exc}")
            del commands[name]
            continue
        if name == reader:  # the C call's own time, no interpreter start
            seconds = float(out)
        results[name] = min(seconds, results.get(name, (np.inf, ""))[0]), out
        times.setdefault(name, []).append(seconds)
    for name, command in commands.items():
        if name != reader:
            peaks[name] = peak_of(command)
    lines = [
        "",
        f"## TREC command, {args.lines:.0e} run lines, {args.queries} queries "
        "(string ids, rows shuffled, unretrieved judged documents)",
        "",
        f"Median and fastest of {args.rounds} rounds, "
        + ("each tool's rounds back to back." if args.grouped else
           "the tools taking turns.")
        + " Peak RSS from /usr/bin/time in one more run.",
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
    text = "\n".join(lines)
    print(text)
    if not args.no_append:
        with open(Path(__file__).with_name("RESULTS.md"), "a") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
