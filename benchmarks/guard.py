"""The regression guard: the working tree against a git revision, case by case.

    python benchmarks/run.py --against main                 # the quick suite
    python benchmarks/run.py --against HEAD~1 evaluate_by    # one case
    python benchmarks/run.py --against v0.9 --rounds 12 --full   # slower, steadier

REV is checked out in a temporary ``git worktree`` (removed afterwards).
Each round runs every chosen case on both trees, one tree after the other,
each in fresh processes with ``PYTHONPATH`` on that tree (the child checks
that ``skrank.__file__`` is in it); the order of the trees alternates from
round to round (ABBA), so that a drift of the machine's load falls on both.
In a child, each case is called once untimed (imports, first-call caches),
then ``--repeats`` times; the round's time is the fastest of those, in
wall-clock and in CPU time (the child's own: steadier on a shared machine;
Spark has the wall clock only, its work being in the JVM). The TREC command
is timed as a whole process, interpreter start included, once per layout
and round.

Each figure's ratio (working tree / REV) is the Hodges-Lehmann estimate of
the per-round log ratios, with the distribution-free interval of the
Wilcoxon signed-rank test (see :func:`hodges_lehmann`). Why that and not a
bootstrap: with 6-12 rounds a percentile bootstrap covers less than it
says, and one round slowed by another program on a shared machine moves a
mean (and a bootstrap of it) but barely moves the median of the Walsh
averages. A figure is marked ``SLOWER`` when its interval (wall-clock or
CPU) lies entirely above 1.05, ``faster`` when it lies below 0.95; the exit
status is 1 when any figure is ``SLOWER``.
"""

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

SLOWER = 1.05  # an interval above this ratio is a slowdown
FASTER = 0.95  # below this, a speed-up
CHILD_TIMEOUT = 1800  # seconds


# -- the statistics (pure functions) -----------------------------------------------
def signed_rank_cdf(n):
    """``P(T <= t)`` for t = 0..n(n+1)/2, T the signed-rank statistic of n
    symmetric, continuous differences (all 2**n sign patterns equally likely)."""
    counts = [1]  # counts[t]: sign patterns of the ranks so far with sum t
    for rank in range(1, n + 1):
        grown = counts + [0] * rank
        for t, count in enumerate(counts):
            grown[t + rank] += count
        counts = grown
    total, running, cdf = 2**n, 0, []
    for count in counts:
        running += count
        cdf.append(running / total)
    return cdf


def hodges_lehmann(values, confidence=0.9):
    """Hodges-Lehmann estimate of the centre of ``values``, and its interval.

    The estimate is the median of the Walsh averages ``(x_i + x_j) / 2``,
    ``i <= j``; the interval runs from the k-th smallest to the k-th largest
    of them, k the largest with ``P(T <= k - 1) <= (1 - confidence) / 2``
    (T the Wilcoxon signed-rank statistic): the set of shifts the
    signed-rank test does not reject. Exact for any n, assuming only that
    the values are independent and symmetric about their centre. Returns
    ``(estimate, low, high, achieved)``, ``achieved`` the interval's exact
    coverage (at least ``confidence``); with too few values for that
    (n < 5 at 0.9), the interval is infinite.
    """
    x = sorted(float(v) for v in values)
    n = len(x)
    if n == 0:
        raise ValueError("hodges_lehmann needs at least one value")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    walsh = sorted((x[i] + x[j]) / 2 for i in range(n) for j in range(i, n))
    m = len(walsh)
    middle = (m - 1) / 2
    estimate = (walsh[math.floor(middle)] + walsh[math.ceil(middle)]) / 2
    cdf = signed_rank_cdf(n)
    tail = (1 - confidence) / 2
    k = 0  # P(T <= k - 1) <= tail for this k; cdf[-1] is P(T <= -1) = 0
    while k < len(cdf) and cdf[k] <= tail:
        k += 1
    if k == 0:
        return estimate, -math.inf, math.inf, 1.0
    achieved = 1 - 2 * cdf[k - 1]
    return estimate, walsh[k - 1], walsh[m - k], achieved


def verdict(low, high, slower=SLOWER, faster=FASTER):
    """``"SLOWER"`` if the ratio's interval lies above ``slower``, ``"faster"``
    below ``faster``, ``"wide"`` if it reaches past both, else ``""``."""
    if low > slower:
        return "SLOWER"
    if high < faster:
        return "faster"
    if low < faster and high > slower:
        return "wide"
    return ""


def summarise(before, after, confidence=0.9):
    """One figure: per-round seconds on REV (``before``) and the tree (``after``).

    Rounds are paired (the same index is the same round). Returns the
    ratio after / before (Hodges-Lehmann on the log ratios, back on the
    ratio scale), its interval, the interval's exact coverage, the median
    seconds of each and the verdict.
    """
    if len(before) != len(after):
        raise ValueError(f"{len(before)} rounds on REV but {len(after)} on the tree")
    logs = [math.log(a / b) for a, b in zip(after, before)]
    estimate, low, high, achieved = hodges_lehmann(logs, confidence)
    ratio, low, high = math.exp(estimate), math.exp(low), math.exp(high)
    return {"ratio": ratio, "low": low, "high": high, "coverage": achieved,
            "rounds": len(logs), "before_median": _median(before),
            "after_median": _median(after), "verdict": verdict(low, high)}


def _median(values):
    values = sorted(values)
    middle = (len(values) - 1) / 2
    return (values[math.floor(middle)] + values[math.ceil(middle)]) / 2


def figure(name, seconds, confidence=0.9):
    """One case's wall-clock and CPU figures from the rounds' seconds.

    ``seconds`` is ``{"before": [round, ...], "after": [round, ...]}``, a
    round ``{name: {"wall": s, "cpu": s or None}}``. The case is ``SLOWER``
    when either figure is (a slowdown on a busy machine often shows in the
    CPU time alone: the wall clock also counts the time other programs had
    the core), ``faster`` when either is and neither is ``SLOWER``, ``wide``
    when both are (neither figure rules out 0.95 or 1.05).
    """
    pairs = [(b[name], a[name]) for b, a in zip(seconds["before"], seconds["after"])
             if name in a and name in b]
    for side, index in (("REV", 0), ("working tree", 1)):
        errors = [p[index]["error"] for p in pairs if "error" in p[index]]
        if errors:
            return {"error": f"fails on {side}: {errors[0][:200]}", "verdict": ""}
    out = {}
    for clock in ("wall", "cpu"):
        if all(b[clock] is not None and a[clock] is not None for b, a in pairs):
            out[clock] = summarise([b[clock] for b, _ in pairs],
                                   [a[clock] for _, a in pairs], confidence)
    verdicts = [f["verdict"] for f in out.values()]
    out["verdict"] = ("SLOWER" if "SLOWER" in verdicts else
                      "faster" if "faster" in verdicts else
                      "wide" if verdicts and all(v == "wide" for v in verdicts)
                      else "")
    return out


def table(figures, rev):
    """The report: one line per figure, the wall-clock and the CPU ratios."""
    lines = [f"| figure | {rev}, median s | working tree, median s | ratio, wall "
             "(interval) | ratio, CPU (interval) | |", "|---|---:|---:|---|---|---|"]
    for name, f in figures.items():
        if "error" in f:
            lines.append(f"| {name} | | | | | {f['error']} |")
            continue
        wall = f["wall"]
        cells = [f"{c['ratio']:.3f} ({c['low']:.3f}–{c['high']:.3f})" if c else "—"
                 for c in (f.get("wall"), f.get("cpu"))]
        lines.append(f"| {name} | {wall['before_median']:.3f} | "
                     f"{wall['after_median']:.3f} | {cells[0]} | {cells[1]} | "
                     f"{f['verdict']} |")
    return "\n".join(lines)


# -- the child: time the cases on one tree -----------------------------------------
def child(args):
    import skrank

    tree = Path(args.tree).resolve()
    where = Path(skrank.__file__).resolve()
    if tree not in where.parents:
        raise SystemExit(f"skrank imported from {where}, not from the tree {tree}")
    import bench_common
    import guard_cases

    result = {"skrank": str(where), "seconds": {}}
    try:
        for name in args.cases.split(","):
            try:  # a case this revision cannot run is reported, not fatal
                call = guard_cases.build(name, args.data)
                first = bench_common.time_call(call)  # the warm-up: not in the figure
            except Exception as error:  # noqa: BLE001
                result["seconds"][name] = {"error": f"{type(error).__name__}: {error}"}
                continue
            # Spark: a session's first call, then one more (the JVM's start
            # is most of a Spark child's time)
            repeats = 1 if name == "spark" else args.repeats
            times = [bench_common.time_call(call) for _ in range(repeats)]
            # the fastest wall and the least CPU, each over the timed calls
            result["seconds"][name] = {"wall": min(t[0] for t in times),
                                       "cpu": min(t[1] for t in times)}
            if name == "spark":  # the work is in the JVM and its Python workers:
                # the driver's CPU time says nothing; a session's first call
                # is a figure of its own
                result["seconds"][name]["cpu"] = None
                result["seconds"]["spark (first call)"] = {"wall": first[0],
                                                           "cpu": None}
            del call, first
            bench_common.settle()
    finally:
        guard_cases.stop_spark()
    Path(args.result).write_text(json.dumps(result))


# -- the parent --------------------------------------------------------------------
def run_child(python, tree, cases, data, repeats):
    """Seconds of each case on ``tree``, from one fresh process."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = Path(handle.name)
    command = [python, str(Path(__file__).resolve()), "--child", "--tree", str(tree),
               "--cases", ",".join(cases), "--data", str(data), "--result", str(out),
               "--repeats", str(repeats)]
    try:
        done = subprocess.run(command, env=_env(tree), cwd=data, capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT)
        if done.returncode:
            raise RuntimeError(f"child on {tree} failed ({done.returncode}): "
                               f"{done.stderr[-3000:]}")
        return json.loads(out.read_text())["seconds"]
    finally:
        out.unlink(missing_ok=True)


def _env(tree):
    # only the tree under test: not the PYTHONPATH of the shell that started us
    return {**os.environ, "PYTHONPATH": str(tree), "PYTHONWARNINGS": "ignore"}


def check_tree(python, tree, data):
    """The skrank a fresh process imports with PYTHONPATH on ``tree`` (or raise)."""
    done = subprocess.run([python, "-c", "import skrank; print(skrank.__file__)"],
                          env=_env(tree), cwd=data, capture_output=True, text=True)
    where = Path(done.stdout.strip()).resolve()
    if done.returncode or Path(tree).resolve() not in where.parents:
        raise SystemExit(f"with PYTHONPATH={tree}, skrank comes from {where} "
                         f"{done.stderr[-500:]}")


def time_trec(python, tree, layouts, data):
    import bench_common
    import guard_cases

    seconds = {}
    for layout, (qrels, run) in layouts.items():
        done = bench_common.run_command(guard_cases.trec_command(python, qrels, run),
                                        env=_env(tree), timeout=CHILD_TIMEOUT)
        # the child's own CPU time (os.wait4), interpreter start included
        seconds[f"trec ({layout})"] = {"wall": done.seconds, "cpu": done.cpu_seconds}
    return seconds


def spark_missing():
    """Why Spark cannot run here, or None."""
    from importlib.util import find_spec

    if find_spec("pyspark") is None:
        return "pyspark not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no java"
    return None


def worktree(repo, rev, where):
    """Check out ``rev`` at ``where`` (a detached worktree); returns its commit."""
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify",
                             f"{rev}^{{commit}}"], capture_output=True, text=True)
    if commit.returncode:  # a usage error (2), not a slowdown (1)
        print(f"run.py: error: --against: not a git revision: {rev!r}",
              file=sys.stderr)
        raise SystemExit(2)
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "--quiet",
                    str(where), commit.stdout.strip()], check=True)
    return commit.stdout.strip()


def remove_worktree(repo, where):
    subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force",
                    str(where)], capture_output=True)
    shutil.rmtree(where, ignore_errors=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "prune"], capture_output=True)


def parse(argv):
    import guard_cases

    parser = argparse.ArgumentParser(
        prog="run.py", description=__doc__.split("\n")[0])
    parser.add_argument("--against", required=True, metavar="REV",
                        help="the git revision to compare the working tree with")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="cases to run (default: all): "
                             + ", ".join(guard_cases.NAMES))
    parser.add_argument("--rounds", type=int, default=8,
                        help="rounds of both trees (default 8; at least 5)")
    parser.add_argument("--repeats", type=int, default=2,
                        help="timed calls per case in a child; the fastest counts "
                             "(default 2)")
    parser.add_argument("--spark-rounds", type=int, default=5,
                        help="rounds with Spark, the first of --rounds (default 5: "
                             "each starts two JVMs)")
    parser.add_argument("--confidence", type=float, default=0.9,
                        help="of each interval (default 0.9: each flag is a one-sided "
                             "test at 5%%)")
    parser.add_argument("--full", action="store_true",
                        help="the TREC command on 2e6 lines, Spark in every round")
    parser.add_argument("--json", type=Path, default=None,
                        help="write every round's seconds and the figures here")
    parser.add_argument("--data-cache", type=Path, default=HERE / "out" / "guard-data",
                        help="where Spark's Parquet files are kept between runs")
    # internal: the child
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--cases", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(guard_cases.NAMES))
    if unknown:
        parser.error(f"no case named {', '.join(unknown)}; "
                     f"one of: {', '.join(guard_cases.NAMES)}")
    if args.rounds < 5 and not args.child:
        parser.error(f"--rounds must be at least 5 for an interval, got {args.rounds}")
    if args.spark_rounds < 5 and not args.child:
        parser.error(f"--spark-rounds must be at least 5, got {args.spark_rounds}")
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    if not 0 < args.confidence < 1:
        parser.error(f"--confidence must be in (0, 1), got {args.confidence}")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--child" in argv:
        argv = ["--against", "-", *argv]
    args = parse(argv)
    if args.child:
        return child(args)
    import bench_common
    import guard_cases

    # a `kill` ends the run through the finally below: the worktree goes too
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    names = args.names or list(guard_cases.NAMES)
    if args.full:
        args.spark_rounds = args.rounds
    notes = {}
    if "spark" in names and spark_missing():
        notes["spark"] = f"skipped: {spark_missing()}"
        names.remove("spark")
    python = sys.executable
    repo = HERE.parent
    start = time.perf_counter()
    scratch = Path(tempfile.mkdtemp(prefix="skrank-guard-"))
    data, old = scratch / "data", scratch / "rev"
    data.mkdir()
    try:
        commit = worktree(repo, args.against, old)
        trees = {"before": old, "after": repo}
        for tree in trees.values():
            check_tree(python, tree, data)
        print(f"REV {args.against} = {commit[:10]}; working tree {repo}", flush=True)
        print(f"preparing data: {', '.join(names)}", flush=True)
        prepared = guard_cases.prepare(names, data, full=args.full,
                                       cache=args.data_cache)
        seconds = {side: [] for side in trees}
        in_python = [n for n in names if n in guard_cases.PYTHON_CASES]
        for number in range(args.rounds):
            order = ("before", "after") if number % 2 == 0 else ("after", "before")
            for side in order:
                tree, got = trees[side], {}
                if in_python:
                    got.update(run_child(python, tree, in_python, data, args.repeats))
                if "trec" in names:
                    got.update(time_trec(python, tree, prepared["trec"], data))
                if "spark" in names and number < args.spark_rounds:
                    got.update(run_child(python, tree, ["spark"], data, args.repeats))
                seconds[side].append(got)
            print(f"round {number + 1}/{args.rounds} done "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    finally:
        remove_worktree(repo, old)
        shutil.rmtree(scratch, ignore_errors=True)

    names_seen = dict.fromkeys(n for side in seconds.values() for r in side for n in r)
    figures = {name: figure(name, seconds, args.confidence) for name in names_seen}
    for name, note in notes.items():
        figures[name] = {"error": note}
    print(f"\nworking tree / {args.against} ({commit[:10]}), {args.rounds} rounds "
          f"alternating, fastest of {args.repeats} calls a round; Hodges-Lehmann "
          f"ratio, signed-rank interval (coverage at least {args.confidence}; "
          f"exact coverage in the JSON); SLOWER: interval "
          f"above {SLOWER}, faster: below {FASTER}; "
          f"{time.perf_counter() - start:.0f} s in all\n")
    print(table(figures, args.against))
    if args.json:
        bench_common.write_json(args.json, {
            "against": args.against, "commit": commit, "rounds": args.rounds,
            "repeats": args.repeats, "full": args.full, "figures": figures,
            "seconds": seconds, "machine": bench_common.machine(),
            "command": bench_common.command_line()})
    if any(f.get("verdict") == "SLOWER" for f in figures.values()):
        raise SystemExit(1)
    return figures


if __name__ == "__main__":
    main()
