"""Benchmark skrank against one np.lexsort (the floor) and the tools users pick instead.

Usage (from the repository root, with ``pip install -e ".[bench]"``)::

    python benchmarks/run.py                       # 1e5, 1e6, 1e7 rows, ~25 minutes
    python benchmarks/run.py --quick               # smoke run, about a minute
    python benchmarks/run.py --sizes 1e5 1e6 --out benchmarks/out

    python benchmarks/run.py list                  # the other benchmarks, by name
    python benchmarks/run.py trec --rounds 1       # one of them: bench_trec.py's main

    python benchmarks/run.py --against main        # the regression guard (guard.py)
    python benchmarks/run.py --against HEAD~1 evaluate_by --rounds 10

Writes ``<out>/results.json`` (every sample) and ``<out>/results.md`` (the
tables). See ``benchmarks/README.md`` for what is measured and how.

Each (dataset, tool) pair runs in a fresh worker process (this same script
with ``--worker``): the parent generates a dataset, saves it as ``.npy``
files, and starts one worker per tool group. A worker loads the arrays,
warms every method up on a small slice (imports, numba JIT), then for each
method: one run under the memory probe, more timed runs, and the floor
timed in between so that every ratio compares timings taken minutes apart
at most, on the same arrays, in the same kind of process.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_common  # noqa: E402
import bench_data  # noqa: E402
import bench_methods  # noqa: E402
from bench_data import format_rows  # noqa: E402

# -- the matrix ------------------------------------------------------------------
BASE = "q10-binary-noties-int"  # the target case: 10**7 rows are 10**6 queries
# one factor at a time around BASE, and two combinations
SHAPES = (
    BASE,
    "q100-binary-noties-int",
    "zipf-binary-noties-int",
    "q10-graded-noties-int",
    "q10-binary-ties-int",
    "q10-binary-noties-str",
    "q100-graded-ties-int",
    "zipf-graded-ties-str",
)
LARGE_ROWS = 10**7  # at and above this size, only LARGE_SHAPES
LARGE_SHAPES = (BASE, "zipf-graded-ties-str")
QUICK_SHAPES = (BASE, "zipf-graded-ties-str")

# Peers are run up to these sizes (rows); larger datasets report them at the
# largest size they ran, next to skrank at that same size.
PEER_MAX_ROWS = {
    "skrank": 10**9,
    "ranx": 10**6,
    "trec_eval": 10**6,
    "torchmetrics": 10**5,
    "pandas": 10**5,
    "dictloop": 10**5,
}
# Peers run on these shapes only: the base case and the one with everything
# (long tail, grades, ties, string ids). Their time goes into their own
# per-query loops, so the other shapes say little more and would take most of
# a run's time.
PEER_SHAPES = (BASE, "zipf-graded-ties-str")
TRACEMALLOC_MAX_ROWS = 10**6  # the tracemalloc pass costs one more run per method

WORKER_TIMEOUT = 3600  # seconds


# -- measuring (the probes are bench_common's) -------------------------------------
def measured_run(method, state):
    """One run of ``method``: (seconds, extra peak RSS in bytes or None, value)."""
    with bench_common.PeakRSS() as probe:
        seconds, _, value = bench_common.time_call(method.run, state)
    # without the reset of VmHWM (outside Linux) the figure is reported as missing
    return seconds, probe.extra if probe.reset else None, value


def timed_run(method, state):
    return bench_common.time_call(method.run, state)[0]


def traced_peak(method, state):
    """Peak bytes allocated during one run, as tracemalloc sees them (numpy too)."""
    with bench_common.TracedPeak() as probe:
        method.run(state)
    return probe.peak


def summarise(value):
    """A JSON-friendly look at a method's result."""
    if isinstance(value, dict):
        return {str(k): summarise(v) for k, v in value.items()}
    if isinstance(value, tuple) and len(value) == 2 and all(
        isinstance(v, np.ndarray) for v in value
    ):  # fap_curve: (k, fap)
        k, fap = value
        best = int(np.nanargmax(fap))
        return {"best_k": int(k[best]), "best_fap": float(fap[best])}
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


# -- the worker: one tool group on one dataset ------------------------------------
def worker(args):
    arrays = bench_data.load(Path(args.data))
    n_rows = arrays["y_true"].shape[0]
    floor = bench_methods.floor_method(arrays)
    methods = bench_methods.build(args.worker, arrays)

    # warm-up: imports, numba compilation, first-call caches, on a small slice
    small = bench_data.head(arrays)
    for method in [bench_methods.floor_method(small)] + bench_methods.build(
        args.worker, small
    ):
        method.run(method.setup() if method.setup else None)
    del small, method

    floor_record = None
    records = []
    every = max(1, len(methods) // max(args.repeats, 1))
    for i, method in enumerate([floor] + methods):
        state = method.setup() if method.setup else None
        seconds, rss, value = measured_run(method, state)
        times = [seconds]
        while len(times) < args.repeats and sum(times) < args.budget:
            times.append(timed_run(method, state))
        trace = None
        if args.tracemalloc and method.numpy_only:
            trace = traced_peak(method, state)
        del state
        record = {
            "name": method.name, "tool": method.tool, "task": method.task,
            "stage": method.stage, "times": times, "rss_bytes": rss,
            "tracemalloc_bytes": trace, "value": summarise(value),
        }
        if method is floor:
            floor_record = record
        else:
            records.append(record)
            if i % every == 0 or i == len(methods):  # the floor, now and then
                floor_record["times"].append(timed_run(floor, None))
        print(f"    {method.name:34s} {min(times):9.4f} s", file=sys.stderr, flush=True)
        del value
        bench_common.settle()

    result = {"group": args.worker, "rows": n_rows, "floor": floor_record,
              "methods": records}
    Path(args.result).write_text(json.dumps(result))


# -- the parent: plan, generate, run workers, report -----------------------------
def plan(sizes, quick):
    datasets = []
    for rows in sizes:
        if quick:
            shapes = QUICK_SHAPES
        elif rows >= LARGE_ROWS:
            shapes = LARGE_SHAPES
        else:
            shapes = SHAPES
        for shape in shapes:
            datasets.append(bench_data.parse_config(f"{format_rows(rows)}-{shape}"))
    return datasets


# the modules each group needs (pip install -e ".[bench]" installs them all)
REQUIRES = {
    "skrank": ("skrank",),
    "ranx": ("ranx",),
    "trec_eval": ("pytrec_eval",),
    "torchmetrics": ("torch", "torchmetrics"),
    "pandas": ("pandas", "sklearn"),
    "dictloop": ("sklearn",),
}


def missing_modules(group):
    from importlib.util import find_spec

    return [name for name in REQUIRES[group] if find_spec(name) is None]


def groups_for(config, groups, peer_max_rows):
    """The tool groups run on this dataset, and why the others are not."""
    run, skipped = [], {}
    for group in groups:
        missing = missing_modules(group)
        if missing:
            skipped[group] = (f"{', '.join(missing)} not installed "
                              '(pip install -e ".[bench]")')
        elif group == "skrank":
            run.append(group)
        elif config.rows > peer_max_rows[group]:
            skipped[group] = f"above {format_rows(peer_max_rows[group])} rows"
        elif config.shape not in PEER_SHAPES:
            skipped[group] = "peers run on the shapes " + ", ".join(PEER_SHAPES)
        else:
            run.append(group)
    return run, skipped


def run_worker(group, config, data_dir, args):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result_path = handle.name
    command = [
        sys.executable, str(Path(__file__).resolve()), "--worker", group,
        "--data", str(data_dir), "--result", result_path,
        "--repeats", str(args.repeats), "--budget", str(args.budget),
    ]
    if not args.tracemalloc or config.rows > args.tracemalloc_max_rows:
        command.append("--no-tracemalloc")
    start = time.perf_counter()
    try:
        # the worker's progress lines go straight to our stderr
        completed = subprocess.run(command, timeout=WORKER_TIMEOUT)
        if completed.returncode != 0:
            return {"group": group,
                    "error": f"worker exited with {completed.returncode} (see the log)"}
        result = json.loads(Path(result_path).read_text())
    except subprocess.TimeoutExpired:
        return {"group": group, "error": f"timed out after {WORKER_TIMEOUT} s"}
    finally:
        Path(result_path).unlink(missing_ok=True)
    result["wall_seconds"] = time.perf_counter() - start
    return result


# -- the other benchmarks, by name ------------------------------------------------------
HELPERS = ("common", "data", "methods", "report")  # bench_<helper>.py: not benchmarks


def scripts():
    """The other benchmarks' names: every bench_<name>.py here that is not a helper."""
    return sorted(path.stem[len("bench_"):] for path in HERE.glob("bench_*.py")
                  if path.stem[len("bench_"):] not in HELPERS)


def run_script(name, argv):
    """``bench_<name>.main(argv)``, as if ``python benchmarks/bench_<name>.py`` ran."""
    import importlib

    sys.argv = [str(HERE / f"bench_{name}.py"), *argv]
    return importlib.import_module(f"bench_{name}").main(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(arg == "--against" or arg.startswith("--against=") for arg in argv):
        import guard  # the working tree against a revision: guard.py

        return guard.main(argv)
    if argv and argv[0] == "list":
        for name in scripts():
            print(f"{name:14s} benchmarks/bench_{name}.py")
        return None
    if argv and not argv[0].startswith("-"):
        if argv[0] not in scripts():
            raise SystemExit(f"no benchmark named {argv[0]!r}; "
                             f"one of: {', '.join(scripts())}")
        return run_script(argv[0], argv[1:])

    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Other benchmarks: python benchmarks/run.py NAME [options], NAME one "
               f"of {', '.join(scripts())} (NAME --help for its options). The "
               "regression guard: run.py --against REV [NAME ...] (--against REV "
               "--help for its options).")
    parser.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6, 1e7],
                        help="numbers of rows (default: 1e5 1e6 1e7)")
    parser.add_argument("--out", default=str(HERE / "out"),
                        help="output folder (default: benchmarks/out)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 1e4 rows, two shapes, every tool, 1 run each")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed runs per method; the minimum is reported "
                             "(default 3)")
    parser.add_argument("--budget", type=float, default=10.0,
                        help="stop repeating a method once its runs took this many "
                             "seconds (at least 1 run; default 10)")
    parser.add_argument("--groups", nargs="+", default=list(bench_methods.GROUPS),
                        choices=bench_methods.GROUPS, help="tool groups to run")
    parser.add_argument("--shapes", nargs="+", default=None,
                        help="only these shapes, e.g. q10-binary-noties-int")
    parser.add_argument("--peer-max-rows", nargs="+", default=[], metavar="GROUP=ROWS",
                        help="change a peer's size limit, e.g. ranx=1e5 pandas=1e6")
    parser.add_argument("--no-tracemalloc", dest="tracemalloc", action="store_false",
                        help="skip the tracemalloc pass over numpy-only methods")
    parser.add_argument("--tracemalloc-max-rows", type=float,
                        default=TRACEMALLOC_MAX_ROWS,
                        help="no tracemalloc pass above this many rows (default 1e6)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--note", default="",
                        help="free text stored with the results (e.g. the skrank "
                             "revision)")
    parser.add_argument("--data-dir", default=None,
                        help="where datasets are written (default: a temporary folder)")
    # internal: the worker process
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        return worker(args)

    if args.quick:
        if args.sizes == [1e5, 1e6, 1e7]:
            args.sizes = [1e4]
        args.repeats = 1
    sizes = [int(size) for size in args.sizes]
    peer_max_rows = dict(PEER_MAX_ROWS)
    for item in args.peer_max_rows:
        group, rows = item.split("=")
        peer_max_rows[group] = int(float(rows))

    datasets = plan(sizes, args.quick)
    if args.shapes:
        datasets = [c for c in datasets if c.shape in args.shapes]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data_root = Path(args.data_dir or tempfile.mkdtemp(prefix="skrank-bench-"))
    data_root.mkdir(parents=True, exist_ok=True)

    report = {
        "meta": {
            "started": time.strftime("%Y-%m-%d %H:%M:%S"),
            "command": bench_common.command_line(),
            "machine": bench_common.machine(), "versions": bench_common.versions(),
            "repeats": args.repeats, "budget_seconds": args.budget,
            "peer_max_rows": peer_max_rows, "seed": args.seed,
            "fap_curve_max_k": bench_methods.FAP_CURVE_MAX_K, "note": args.note,
        },
        "datasets": [],
    }
    print(f"{len(datasets)} datasets; results in {out}", flush=True)
    start = time.perf_counter()
    try:
        for config in datasets:
            print(f"== {config.name}", flush=True)
            directory = data_root / config.name
            directory.mkdir(exist_ok=True)
            arrays = bench_data.generate(config, seed=args.seed)
            bench_data.save(arrays, directory)
            description = bench_data.describe(arrays)
            del arrays
            run, skipped = groups_for(config, args.groups, peer_max_rows)
            entry = {"name": config.name, "shape": config.shape, "rows": config.rows,
                     "data": description, "skipped": skipped, "workers": []}
            for group in run:
                print(f"  -- {group}", flush=True)
                entry["workers"].append(run_worker(group, config, directory, args))
            shutil.rmtree(directory, ignore_errors=True)
            report["datasets"].append(entry)
            report["meta"]["wall_seconds"] = time.perf_counter() - start
            bench_common.write_json(out / "results.json", report)
    finally:
        if args.data_dir is None:
            shutil.rmtree(data_root, ignore_errors=True)

    import bench_report

    (out / "results.md").write_text(bench_report.markdown(report))
    print(f"done in {time.perf_counter() - start:.0f} s: {out / 'results.md'}")


if __name__ == "__main__":
    main()
