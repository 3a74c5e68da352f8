"""skrank.spark.evaluate against Spark MLlib's RankingMetrics, in one SparkSession.

Usage (from the repository root, with ``pip install -e ".[spark,dask,bench]"``
and Java 17)::

    python benchmarks/bench_spark.py --rows 1e6 --queries 1e5
    python benchmarks/bench_spark.py --rows 1e7 --queries 1e6 --rounds 2
    python benchmarks/bench_spark.py --rows 1e7 --skip-dask --skip-inmemory

What it does, in order (each step prints one line; everything lands in
``<out>/spark_results.json``):

1. **Data.** The Parquet files of ``bench_dask.py`` (its ``write_parquet``:
   ``qid`` int64 drawn uniformly, so every query's rows are spread over all
   files, ``label`` int8, ``score`` float64 without ties, ``item`` int64),
   written once and reused.
2. **Spark**, one ``local[--cores]`` session: the session's first call of
   ``skrank.spark.evaluate`` (four metrics) on the data, before anything
   else ran (the JVM's first jobs and the Python workers' start are in
   it); then a warm-up of both tools on a
   tiny frame (the JVM, its code generation and the Python workers start
   once, for both; skrank also on one of the files, so that its workers have
   read Parquet once), then ``--rounds`` rounds taking turns:
   ``skrank.spark.evaluate`` on the four metrics RankingMetrics has
   (nDCG@10, MAP, P@10, R@10), the same with MRR and group AUC (six), the
   four again with ``read_files=False`` (Spark reads the files and hands
   the rows to the Python workers, as for any other frame), and
   ``RankingMetrics`` (``groupBy`` query, items ordered by score,
   ``meanAveragePrecision``, ``ndcgAt(10)``, ``precisionAt(10)``,
   ``recallAt(10)``). The fastest round of each is reported, and the values
   are compared where the definitions agree (``no_relevant="zero"``, binary
   labels, no tied scores: see RESULTS.md).
   With ``--cold-start``, first (in a session of its own, stopped before
   the measured one) a trivial Python job on 4 rows, three times: what a
   session's first Python job costs whatever it does.
   With ``--breakdown``, where skrank's time goes: the Parquet scan alone,
   the repartition by query alone, and the repartition plus the hand-over of
   Arrow batches to Python (no metric).
3. **Dask**, after the SparkSession stopped and its JVM ended: ``skrank.dask.evaluate`` on a
   ``LocalCluster`` of ``--cores`` single-threaded workers (``bench_dask.py``'s
   ``run_dask``), four and six metrics.
4. **In memory** (``--inmemory-max-rows``, default 1e7): ``skrank.evaluate`` in
   a fresh process, as ``bench_dask.py`` runs it.

Nothing here is a test: timings depend on the machine (and on what else it
runs); compare the ratios taken in one run.
"""

import argparse
import os
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_common  # noqa: E402
from bench_dask import SPARK_METRICS, ranking_metrics, run_dask  # noqa: E402
from bench_data import write_parquet  # noqa: E402

FOUR = ["ndcg@10", "map", "precision@10", "recall@10"]
FIRST = "skrank.spark (4 metrics), the session's first call"
SIX = FOUR + ["mrr", "gauc"]


def spark_session(cores, driver_memory, shuffle_partitions):
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(f"local[{cores}]")
        .appName("skrank-bench-spark")
        .config("spark.driver.memory", driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def skrank_spark(df, metrics, **options):
    import skrank.spark

    return skrank.spark.evaluate(df, metrics=metrics, no_relevant="zero", **options)


def _timed(function, *args):
    """(wall seconds, value) of one call (driver CPU time says little here)."""
    seconds, _, values = bench_common.time_call(function, *args)
    return seconds, values


def breakdown(df):
    """Seconds of the steps under skrank.spark.evaluate, each run on its own."""
    from pyspark.sql import functions as F

    columns = df.select("qid", "label", "score")
    steps = {
        "scan": lambda: columns.write.format("noop").mode("overwrite").save(),
        "repartition": lambda: columns.repartition(F.col("qid")).write.format("noop")
        .mode("overwrite").save(),
        "repartition + Arrow to Python": lambda: columns.repartition(F.col("qid"))
        .mapInArrow(_drop_batches, columns.schema).count(),
    }
    return {name: _timed(step)[0] for name, step in steps.items()}


def _drop_batches(batches):
    for batch in batches:
        yield batch.slice(0, 0)


def cold_start(args, rounds=3):
    """Seconds of a trivial Python job (4 rows) as a fresh session's first job, then again.

    The part of a session's first call that is Spark's own, whatever the
    call: the Python workers' daemon and imports and the JVM's first jobs.
    Run in a session of its own, stopped (and its JVM ended) before the
    measured session starts.
    """
    from skrank.spark._workers import driver_python_for_local_workers

    spark = spark_session(args.cores, args.driver_memory, args.shuffle_partitions)
    try:
        frame = spark.range(4).repartition(args.cores)
        with driver_python_for_local_workers(frame):  # the workers skrank's calls get
            times = [_timed(lambda: frame.mapInArrow(_drop_batches, frame.schema).count())[0]
                     for _ in range(rounds)]
    finally:
        spark.stop()
        _end_jvm()
    return times


def run_spark(path, args):
    warnings.filterwarnings("ignore", "PySpark does not yet fully support",
                            FutureWarning)
    spark = spark_session(args.cores, args.driver_memory, args.shuffle_partitions)
    try:
        # a session's first call, before anything else ran: the JVM's first
        # jobs, the Python workers' start and imports are in it
        df = spark.read.parquet(str(path))
        seconds, _ = _timed(lambda: skrank_spark(df, FOUR))
        first = {FIRST: [seconds]}
        print(f"{FIRST}: {seconds:.1f} s", flush=True)
        # warm-up on a tiny frame: JVM, code generation, Python workers
        tiny = spark.read.parquet(str(path)).limit(2000)
        # and one file, a plain scan: the Python workers' own read of the files
        one_file = spark.read.parquet(str(sorted(path.glob("*.parquet"))[0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # few rows per query: gauc is nan
            skrank_spark(tiny, SIX)
            skrank_spark(one_file, SIX)
            ranking_metrics(tiny)
        df = spark.read.parquet(str(path))
        calls = {
            "skrank.spark (4 metrics)": lambda: skrank_spark(df, FOUR),
            "skrank.spark (6 metrics)": lambda: skrank_spark(df, SIX),
            # the rows read by Spark and handed to the Python workers
            "skrank.spark, Spark's reader (4 metrics)":
                lambda: skrank_spark(df, FOUR, read_files=False),
            "RankingMetrics (4 metrics)": lambda: ranking_metrics(df),
        }
        runs = {name: [] for name in calls}
        runs.update(first)
        values = {}
        for round_ in range(args.rounds):
            for name, call in calls.items():
                seconds, values[name] = _timed(call)
                runs[name].append(seconds)
                print(f"round {round_ + 1}: {name}: {seconds:.1f} s", flush=True)
        steps = breakdown(df) if args.breakdown else None
        if steps:
            for name, seconds in steps.items():
                print(f"breakdown: {name}: {seconds:.1f} s", flush=True)
        partitions = df.rdd.getNumPartitions()
    finally:
        spark.stop()
        _end_jvm()
    return {"seconds": runs, "values": values, "breakdown": steps,
            "input_partitions": partitions}


def _end_jvm():
    """End the JVM behind the stopped session: Dask then runs with the machine to itself.

    ``SparkSession.stop`` leaves the JVM running until Python exits, with
    the heap RankingMetrics grew (gigabytes the page cache of Dask's
    shuffle files would otherwise use).
    """
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return
    process = getattr(gateway, "proc", None)
    gateway.shutdown()
    if process is not None:
        process.terminate()
        process.wait(timeout=60)
    SparkContext._gateway = SparkContext._jvm = None


def _inmemory(path):
    command = [sys.executable, str(HERE / "bench_dask.py"), "--worker", "inmemory",
               "--path", str(path)]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    return bench_common.run_command(command, env=env, timeout=3600).last_json()


def compare(results):
    """Largest absolute difference of each tool's values from skrank.spark's."""
    reference = results["spark"]["values"]["skrank.spark (6 metrics)"]
    spark_names = {skrank: spark for spark, skrank in SPARK_METRICS.items()}
    diffs = {}
    ranking = results["spark"]["values"]["RankingMetrics (4 metrics)"]
    diffs["RankingMetrics"] = max(
        abs(ranking[spark_names[name]] - reference[name]) for name in FOUR
    )
    for run in results.get("dask", []):
        diffs[f"skrank.dask ({len(run['values'])} metrics)"] = max(
            abs(value - reference[name]) for name, value in run["values"].items()
        )
    if "inmemory" in results:
        diffs["skrank.evaluate"] = max(
            abs(value - reference[name])
            for name, value in results["inmemory"]["values"].items()
        )
    return diffs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--queries", type=float, default=None,
                        help="default: rows / 10")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--driver-memory", default="6g")
    parser.add_argument("--shuffle-partitions", type=int, default=None,
                        help="default: Spark's (200, merged by adaptive execution)")
    parser.add_argument("--memory-limit", default="1.5GB",
                        help="each Dask worker's")
    parser.add_argument("--inmemory-max-rows", type=float, default=1e7)
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--cold-start", action="store_true",
                        help="first time a trivial Python job in a session of its own")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--skip-inmemory", action="store_true")
    parser.add_argument("--data-dir", type=Path, default=HERE / "out" / "dask-data")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = int(args.rows)
    queries = int(args.queries) if args.queries else max(1, rows // 10)

    path = args.data_dir / f"rows{rows}"
    seconds = write_parquet(path, rows, queries, seed=args.seed)
    print(f"data: {rows:.0e} rows, {queries:.0e} queries "
          f"({'written in %.0f s' % seconds if seconds else 'reused'})", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    machine = bench_common.machine()
    results = {
        "command": " ".join(sys.argv), "machine": machine["cpu"],
        "cpus": machine["cores"], "python": machine["python"],
        "rows": rows, "queries": queries,
        "shuffle_partitions": args.shuffle_partitions,
    }
    import pyspark

    results["pyspark"] = pyspark.__version__
    if args.cold_start:
        results["cold_start"] = cold_start(args)
        first, *then = results["cold_start"]
        print(f"Spark's cold start: a trivial Python job takes {first:.2f} s as a fresh "
              f"session's first job, then {', '.join(f'{t:.2f}' for t in then)} s",
              flush=True)
    results["spark"] = run_spark(path, args)
    best = {name: min(times) for name, times in results["spark"]["seconds"].items()}
    base = best["RankingMetrics (4 metrics)"]
    for name, seconds in best.items():
        print(f"{name}: {seconds:.1f} s ({base / seconds:.1f}x RankingMetrics' speed)")

    if not args.skip_dask:
        spill = args.data_dir / "dask-worker-space"
        spill.mkdir(parents=True, exist_ok=True)
        results["dask"] = []
        for metrics in (FOUR, SIX):
            run = run_dask({"data": path}, [args.cores], args.memory_limit, spill,
                           metrics)[0]
            results["dask"].append(run)
    if not args.skip_inmemory and rows <= args.inmemory_max_rows:
        results["inmemory"] = _inmemory(path)
        print(f"in-memory skrank.evaluate (6 metrics): "
              f"{results['inmemory']['seconds']:.1f} s", flush=True)
    results["max_abs_difference"] = compare(results)
    for name, diff in results["max_abs_difference"].items():
        print(f"values: {name} vs skrank.spark: max |difference| {diff:.1e}")
    out_file = args.out / f"spark_results_{rows:.0e}.json"
    bench_common.write_json(out_file, results)
    print(f"results in {out_file.name}")


if __name__ == "__main__":
    main()
