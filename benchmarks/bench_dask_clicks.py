"""skrank.dask's click functions on a Parquet click log, beside skrank.dask.evaluate.

Usage (from the repository root, with ``pip install -e ".[dask,bench]"``)::

    python benchmarks/bench_dask_clicks.py                 # 1e8 rows, 2 workers
    python benchmarks/bench_dask_clicks.py --rows 1e6 --workers 2

What it does (each step prints one line; all land in
``<out>/dask_clicks_results.json``):

1. **Data.** Writes ``--rows`` rows as Parquet files of 1e6 rows: lists of
   10 documents at positions 1..10, four lists (sessions) per query, each
   showing the query's 10 documents in a new random order, so that
   intervention harvesting has pairs at several positions. Clicks follow
   the position-based model with ``theta(k) = 1 / k`` and a fixed
   relevance per (query, document); ``label`` is that relevance above 0.5
   (for ``skrank.dask.evaluate``) and ``score`` a noisy copy of it (the new
   ranker). Rows are shuffled within each file. Reused when already there.
2. **Dask.** A ``LocalCluster`` of ``--workers`` single-threaded worker
   processes runs, on ``dd.read_parquet``, after an untimed warm-up, one
   after the other:
   ``skrank.dask.evaluate`` (dcg@10, precision@10 on the labels, per
   list), ``skrank.dask.evaluate_clicks`` (dcg@10, precision@10, arp on
   the clicks, propensities 1/k), and ``skrank.dask.estimate_position_bias``
   with ``method="randomized"`` (sums per position, no shuffle) and
   ``"harvest"`` (shuffle by query), both without bootstrap.
3. **In memory** (only when ``--rows`` is at most ``--inmemory-max``):
   ``skrank.clicks.evaluate`` and ``estimate_position_bias`` on the same
   rows in this process, and the largest difference from the Dask values.

Nothing here is a test: timings depend on the machine; compare the ratios
taken in one run.
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_data import mark_written, written_already  # noqa: E402

HERE = Path(__file__).resolve().parent
ROWS_PER_FILE = 1_000_000
LIST_SIZE = 10
SESSIONS = 4
LABEL_METRICS = ["dcg@10", "precision@10"]
CLICK_METRICS = ["dcg@10", "precision@10", "arp"]
COLUMNS = ["list", "qid", "doc", "position", "click", "label", "score"]


def write_parquet(path, rows, seed):
    """``rows`` rows (a multiple of 10) in files of ROWS_PER_FILE; reused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = {"rows": rows, "seed": seed, "per_file": ROWS_PER_FILE, "version": 1}
    if written_already(path, spec):
        return 0.0
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    theta = 1.0 / np.arange(1, LIST_SIZE + 1)
    first_list = 0
    for number, first in enumerate(range(0, rows, ROWS_PER_FILE)):
        n_lists = min(ROWS_PER_FILE, rows - first) // LIST_SIZE
        lists = first_list + np.arange(n_lists)
        first_list += n_lists
        doc = rng.random((n_lists, LIST_SIZE)).argsort(axis=1)  # a new order each
        query = np.repeat(lists // SESSIONS, LIST_SIZE)
        doc = doc.ravel()
        # a fixed relevance per (query, document), in [0.1, 0.9)
        gamma = 0.1 + 0.8 * (((query * 7919 + doc * 104729) % 1000) / 1000.0)
        position = np.tile(np.arange(1, LIST_SIZE + 1), n_lists)
        click = rng.random(gamma.shape[0]) < theta[position - 1] * gamma
        order = rng.permutation(gamma.shape[0])
        table = pa.table({
            "list": np.repeat(lists, LIST_SIZE)[order],
            "qid": query[order],
            "doc": doc[order].astype(np.int64),
            "position": position[order].astype(np.int64),
            "click": click[order].astype(np.int8),
            "label": (gamma > 0.5)[order].astype(np.int8),
            "score": (gamma + 0.3 * rng.standard_normal(gamma.shape[0]))[order],
        })
        pq.write_table(table, path / f"part-{number:05d}.parquet")
    mark_written(path, spec)
    return time.perf_counter() - start


def _timed(label, function, results):
    start = time.perf_counter()
    value = function()
    seconds = time.perf_counter() - start
    results[label] = {"seconds": seconds}
    print(f"{label}: {seconds:.1f} s", flush=True)
    return value


def run_dask(path, n_workers, memory_limit, local_directory):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import skrank.dask
    from skrank.clicks import PositionBias

    propensity = PositionBias(1.0 / np.arange(1, LIST_SIZE + 1))
    runs, values = {}, {}
    with LocalCluster(
        n_workers=n_workers, threads_per_worker=1, processes=True,
        memory_limit=memory_limit, dashboard_address=":0",
        local_directory=str(local_directory),
    ) as cluster, Client(cluster) as client:
        def frame():
            return dd.read_parquet(str(path), columns=COLUMNS)

        # untimed warm-up: workers import pandas, pyarrow and skrank once
        frame()["click"].sum().compute()
        client.run(__import__, "skrank.clicks")
        values["evaluate"] = _timed(
            "dask evaluate (labels)",
            lambda: skrank.dask.evaluate(frame(), LABEL_METRICS, y_true="label",
                                         query_id="list", no_relevant="zero"),
            runs)
        values["evaluate_clicks"] = dict(_timed(
            "dask evaluate_clicks",
            lambda: skrank.dask.evaluate_clicks(frame(), CLICK_METRICS,
                                                list_id="list",
                                                propensity=propensity),
            runs))
        for method in ("randomized", "harvest"):
            bias = _timed(
                f"dask estimate_position_bias {method}",
                lambda: skrank.dask.estimate_position_bias(
                    frame(), list_id="list", query_id="qid", doc_id="doc",
                    method=method), runs)
            values[method] = bias.propensity.tolist()
    return runs, values


def run_inmemory(path):
    import pyarrow.parquet as pq

    import skrank.clicks

    runs, values = {}, {}
    table = pq.read_table(str(path), columns=COLUMNS)
    rows = {name: table[name].to_numpy() for name in COLUMNS}
    propensity = skrank.clicks.PositionBias(1.0 / np.arange(1, LIST_SIZE + 1))
    values["evaluate_clicks"] = dict(_timed(
        "in-memory clicks.evaluate",
        lambda: skrank.clicks.evaluate(
            rows["click"], rows["score"], position=rows["position"],
            list_id=rows["list"], propensity=propensity, metrics=CLICK_METRICS),
        runs))
    for method in ("randomized", "harvest"):
        bias = _timed(
            f"in-memory estimate_position_bias {method}",
            lambda: skrank.clicks.estimate_position_bias(
                rows["click"], rows["position"], list_id=rows["list"],
                query_id=rows["qid"], doc_id=rows["doc"], method=method,
                n_resamples=0), runs)
        values[method] = bias.propensity.tolist()
    return runs, values


def _flat(value):
    """A dict of metric values or a list of propensities, as one array."""
    return np.asarray(list(value.values()) if isinstance(value, dict) else value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=float, default=1e8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--inmemory-max", type=float, default=1e7)
    parser.add_argument("--data-dir", type=Path, default=HERE / "out" / "dask-clicks")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rows = int(args.rows) // LIST_SIZE * LIST_SIZE
    path = args.data_dir / f"rows{rows}"
    seconds = write_parquet(path, rows, args.seed)
    print(f"data: {rows:.0e} rows, {rows // LIST_SIZE:.0e} lists, "
          f"{rows // LIST_SIZE // SESSIONS:.0e} queries "
          f"({'written in %.0f s' % seconds if seconds else 'reused'})", flush=True)
    results = {
        "command": " ".join(sys.argv), "machine": platform.processor()
        or platform.machine(), "cpus": os.cpu_count(),
        "python": platform.python_version(), "rows": rows,
        "workers": args.workers, "memory_limit": args.memory_limit,
    }
    spill = args.data_dir / "dask-worker-space"
    spill.mkdir(parents=True, exist_ok=True)
    results["dask"], dask_values = run_dask(path, args.workers, args.memory_limit,
                                            spill)
    results["dask_values"] = dask_values
    ratio = (results["dask"]["dask evaluate_clicks"]["seconds"]
             / results["dask"]["dask evaluate (labels)"]["seconds"])
    results["ratio_evaluate_clicks_to_evaluate"] = ratio
    print(f"ratio dask evaluate_clicks / dask evaluate: {ratio:.2f}", flush=True)
    if rows <= args.inmemory_max:
        results["inmemory"], memory_values = run_inmemory(path)
        differences = {
            key: float(np.max(np.abs(_flat(memory_values[key])
                                     - _flat(dask_values[key]))))
            for key in memory_values
        }
        results["max_abs_difference_dask_vs_memory"] = differences
        print(f"largest |dask - in memory|: {differences}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    out_file = args.out / "dask_clicks_results.json"
    out_file.write_text(json.dumps(results, indent=1, default=float))
    print(f"results in {out_file}")


if __name__ == "__main__":
    main()
