"""The ``skrank evaluate`` command against trec_eval, pytrec_eval and ranx.

A run of 2e6 lines with string ids, its rows shuffled (not grouped by
query), and qrels that judge documents the run did not retrieve. Each tool
runs as a fresh process (interpreter start included) with its own loader;
the ratios come from one run. trec_eval's binary is used when one is given
(``TREC_EVAL=/path/to/trec_eval`` or on PATH). Results are appended to
benchmarks/RESULTS.md.

    python benchmarks/bench_trec.py [--lines 2000000] [--queries 2000]
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

PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_10", "ndcg_cut_10",
    "recall_1000", "recip_rank", "bpref"})
res = ev.evaluate(run)
print(sum(v["map"] for v in res.values()) / len(res))
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
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{command[0]} failed: {done.stderr[-500:]}")
    return elapsed, done.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--queries", type=int, default=2_000)
    parser.add_argument("--no-append", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp())
    qrels, run = make_files(root, args.lines, args.queries)
    measures = sum((["-m", m] for m in MEASURES), [])
    skrank = [sys.executable, "-m", "skrank", "evaluate", str(qrels), str(run),
              *measures, "--compat", "trec_eval", "--format", "trec"]
    results = {}
    results["skrank evaluate"] = timed(skrank)
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if binary:
        results["trec_eval (C binary)"] = timed(
            [binary, *sum((["-m", m] for m in MEASURES), []), str(qrels), str(run)])
    for name, script in (("pytrec_eval", PYTREC), ("ranx", RANX)):
        try:
            results[name] = timed([sys.executable, "-c", script, str(qrels), str(run)])
        except RuntimeError as exc:
            print(f"{name}: {exc}")
    base = results["skrank evaluate"][0]
    lines = [
        "",
        f"## TREC command, {args.lines:.0e} run lines, {args.queries} queries "
        "(string ids, rows shuffled, unretrieved judged documents)",
        "",
        "| tool (own loader, fresh process) | seconds | ratio to skrank |",
        "|---|---|---|",
    ]
    for name, (seconds, _) in results.items():
        lines.append(f"| {name} | {seconds:.2f} | {seconds / base:.2f} |")
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
