"""skrank.dask.evaluate on Parquet data larger than a worker's memory, against Spark.

Usage (from the repository root, with ``pip install -e ".[dask,bench]"``)::

    python benchmarks/bench_dask.py                      # 1e8 rows / 1e7 queries
    python benchmarks/bench_dask.py --rows 1e7 --queries 1e6 --skip-spark
    python benchmarks/bench_dask.py --spark-python /path/to/venv/bin/python

What it does, in order (each step prints one line and lands in
``<out>/dask_results.json``):

1. **Data.** Writes ``--rows`` rows of ``(qid, label, score)`` as Parquet
   files of 1e6 rows each (once; reused when the same files are there).
   Query ids are drawn uniformly, so every query's rows are spread over
   many files; about a fifth of the rows are relevant, scores are
   continuous (no ties). A second set of ``--inmemory-rows`` rows is written
   the same way for the in-memory comparison.
2. **Dask.** For each ``--workers`` count, a fresh ``LocalCluster`` of
   single-threaded worker processes with ``--memory-limit`` each runs
   ``skrank.dask.evaluate(dd.read_parquet(...))`` on both data sets, while a
   thread samples every worker's resident memory (RSS) four times a second:
   the peak per worker is what is reported.
3. **In memory.** ``skrank.evaluate`` on the smaller set, in a fresh process
   (Parquet read by pyarrow, then the arrays), reporting the time of the
   call and the process's peak RSS.
4. **Spark.** ``pyspark.mllib.evaluation.RankingMetrics`` in local mode on
   the same Parquet files (``groupBy`` query, items ordered by score), run by
   ``--spark-python`` (a Python with pyspark, default: this one); values are
   compared with skrank's where the definitions agree.

Nothing here is a test: timings depend on the machine; compare the ratios
taken in one run.
"""

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_common  # noqa: E402
from bench_data import write_parquet  # noqa: E402

METRICS = ["ndcg@10", "map", "precision@10", "recall@10", "mrr", "gauc"]
# Spark's RankingMetrics -> skrank name (binary labels, no ties, queries with
# no relevant row score 0 in Spark: skrank's no_relevant="zero")
SPARK_METRICS = {
    "ndcgAt(10)": "ndcg@10",
    "meanAveragePrecision": "map",
    "precisionAt(10)": "precision@10",
    "recallAt(10)": "recall@10",
}
class RssSampler(threading.Thread):
    """Peak resident memory of every worker, sampled while a computation runs."""

    def __init__(self, client, interval=0.25):
        super().__init__(daemon=True)
        self.client, self.interval = client, interval
        self.peak = {}
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                rss = self.client.run(_rss)
            except Exception:  # a worker restarting: try again
                rss = {}
            for worker, value in rss.items():
                self.peak[worker] = max(self.peak.get(worker, 0), value)
            self.stop.wait(self.interval)


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def run_dask(paths, workers, memory_limit, local_directory, metrics):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import skrank.dask

    runs = []
    for n_workers in workers:
        with LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True,
            memory_limit=memory_limit, dashboard_address=":0",
            local_directory=str(local_directory),
        ) as cluster, Client(cluster) as client:
            for name, path in paths.items():
                df = dd.read_parquet(str(path), columns=["qid", "label", "score"])
                sampler = RssSampler(client)
                sampler.start()
                seconds, _, values = bench_common.time_call(
                    skrank.dask.evaluate, df, metrics, no_relevant="zero")
                sampler.stop.set()
                sampler.join()
                peak = max(sampler.peak.values()) if sampler.peak else float("nan")
                run = {
                    "data": name, "workers": n_workers, "seconds": seconds,
                    "peak_rss_per_worker_gb": peak / 1e9, "values": values,
                    "partitions": df.npartitions,
                }
                print(f"dask {name} workers={n_workers}: {seconds:.1f} s, peak RSS "
                      f"per worker {peak / 1e9:.2f} GB", flush=True)
                runs.append(run)
    return runs


def run_inmemory(path, metrics):
    """skrank.evaluate on all rows, in this process (called in a fresh one)."""
    import pyarrow.parquet as pq

    import skrank

    def read_arrays():
        table = pq.read_table(str(path), columns=["qid", "label", "score"])
        return [table[c].to_numpy() for c in ("qid", "label", "score")]

    read, _, (qid, label, score) = bench_common.time_call(read_arrays)
    seconds, _, values = bench_common.time_call(
        skrank.evaluate, label, score, query_id=qid, metrics=metrics,
        no_relevant="zero")
    peak = bench_common.max_rss_bytes()
    return {"seconds": seconds, "read_seconds": read, "peak_rss_gb": peak / 1e9,
            "values": values, "rows": int(qid.shape[0])}


def ranking_metrics(df):
    """Spark MLlib's RankingMetrics on (ranked items, relevant items) per query."""
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import functions as F

    grouped = df.groupBy("qid").agg(
        # items in descending score order: sort structs (-score, item)
        F.sort_array(F.collect_list(F.struct((-F.col("score")).alias("s"), "item")))
        .getField("item").alias("ranked"),
        F.collect_list(F.when(F.col("label") > 0, F.col("item"))).alias("relevant"),
    )
    pairs = grouped.select("ranked", "relevant").rdd.map(
        lambda row: (row.ranked, row.relevant)
    ).cache()
    metrics = RankingMetrics(pairs)
    values = {
        "ndcgAt(10)": metrics.ndcgAt(10),
        "meanAveragePrecision": metrics.meanAveragePrecision,
        "precisionAt(10)": metrics.precisionAt(10),
        "recallAt(10)": metrics.recallAt(10),
    }
    pairs.unpersist()
    return values


def run_spark(path, cores, driver_memory):
    """Spark MLlib's RankingMetrics on the Parquet files (run by a pyspark Python)."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.driver.memory", driver_memory)
        .config("spark.sql.shuffle.partitions", str(4 * cores))
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    start = time.perf_counter()
    values = ranking_metrics(spark.read.parquet(str(path)))
    seconds = time.perf_counter() - start
    spark.stop()
    return {"seconds": seconds, "values": values, "cores": cores}


def _subprocess(python, args, timeout):
    command = [python, str(Path(__file__).resolve()), *args]
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    return bench_common.run_command(command, env=env, timeout=timeout).last_json()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--queries", type=float, default=1e7)
    parser.add_argument("--inmemory-rows", type=float, default=1e7)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--data-dir", type=Path, default=HERE / "out" / "dask-data")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--spark-python", default=sys.executable)
    parser.add_argument("--spark-data", choices=["small", "large", "both"],
                        default="both")
    parser.add_argument("--skip-spark", action="store_true")
    parser.add_argument("--skip-large", action="store_true",
                        help="only the --inmemory-rows data set")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker", choices=["inmemory", "spark"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker == "inmemory":
        print(json.dumps(run_inmemory(args.path, METRICS)))
        return
    if args.worker == "spark":
        print(json.dumps(run_spark(args.path, cores=os.cpu_count(),
                                   driver_memory="6g")))
        return

    rows, queries = int(args.rows), int(args.queries)
    small_rows = int(args.inmemory_rows)
    small_queries = max(1, small_rows * queries // rows)
    paths = {"small": args.data_dir / f"rows{small_rows}"}
    if not args.skip_large:
        paths["large"] = args.data_dir / f"rows{rows}"
    sizes = {"small": (small_rows, small_queries), "large": (rows, queries)}
    args.out.mkdir(parents=True, exist_ok=True)
    machine = bench_common.machine()
    results = {
        "command": " ".join(sys.argv), "machine": machine["cpu"],
        "cpus": machine["cores"], "python": machine["python"],
        "memory_limit": args.memory_limit, "sizes": {}, "dask": [],
    }
    for name, path in paths.items():
        seconds = write_parquet(path, *sizes[name], seed=args.seed)
        results["sizes"][name] = {"rows": sizes[name][0], "queries": sizes[name][1]}
        print(f"data {name}: {sizes[name][0]:.0e} rows, {sizes[name][1]:.0e} queries "
              f"({'written in %.0f s' % seconds if seconds else 'reused'})", flush=True)

    out_file = args.out / "dask_results.json"

    def save():
        bench_common.write_json(out_file, results)

    results["inmemory"] = _subprocess(
        sys.executable, ["--worker", "inmemory", "--path", str(paths["small"])], 3600
    )
    inmemory = results["inmemory"]
    print(f"in-memory skrank.evaluate on {small_rows:.0e} rows: "
          f"{inmemory['seconds']:.1f} s (+{inmemory['read_seconds']:.1f} s Parquet "
          f"read), peak RSS {inmemory['peak_rss_gb']:.2f} GB", flush=True)
    save()

    spill = args.data_dir / "dask-worker-space"
    spill.mkdir(parents=True, exist_ok=True)
    for n_workers in args.workers:
        results["dask"] += run_dask(paths, [n_workers], args.memory_limit, spill,
                                    METRICS)
        save()

    if not args.skip_spark:
        results["spark"] = []
        targets = ["small", "large"] if args.spark_data == "both" else [args.spark_data]
        for name in targets:
            if name not in paths:
                continue
            try:
                run = _subprocess(
                    args.spark_python,
                    ["--worker", "spark", "--path", str(paths[name])], 7200,
                )
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"spark {name}: failed: {str(exc)[-500:]}", flush=True)
                results["spark"].append({"data": name, "error": str(exc)[-2000:]})
                save()
                continue
            run["data"] = name
            results["spark"].append(run)
            print(f"spark {name}: {run['seconds']:.1f} s", flush=True)
            save()
    save()
    print(f"results in {out_file}")


if __name__ == "__main__":
    main()
