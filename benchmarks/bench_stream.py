"""Streaming evaluation with RankingAccumulator: peak memory and time.

    python benchmarks/bench_stream.py                  # 2e7 rows in 1e6-row chunks
    python benchmarks/bench_stream.py --rows 2e6       # a smaller run
    python benchmarks/bench_stream.py --part loop      # only the batch loop

Two parts, each tool in its own subprocess (peak memory is per process):

* ``stream``: ``--rows`` rows (10 per query, queries in order, as in a log
  written query by query), streamed in ``--chunk``-row chunks through
  ``RankingAccumulator(contiguous=True)``, against ``skrank.evaluate`` on
  all the rows at once. Peak memory is tracemalloc's peak (numpy's arrays
  included) from before the data is made: the in-memory run holds the whole
  input, the stream one chunk. Time counts the metric calls only, not the
  making of the data.
* ``loop``: an epoch of ``--batches`` batches of ``--batch-rows`` rows
  (whole queries of 10 rows) with 10 metrics, as a validation loop sees
  them: ``RankingAccumulator.update(..., complete=True)`` on torch tensors
  against torchmetrics' retrieval metrics (``update`` per batch,
  ``compute`` at the end). Peak memory is the growth of the process's
  peak RSS during the loop (torch's allocations are not seen by
  tracemalloc). Needs torch and torchmetrics.

Prints one table per part with the ratios; ``--json`` writes the numbers.
"""

import argparse
import json
import resource
import subprocess
import sys
import time

ROWS_PER_QUERY = 10
STREAM_METRICS = ["ndcg@10", "map", "mrr", "precision@10", "recall@10"]
LOOP_METRICS = ["ndcg@10", "ndcg", "map", "map@10", "mrr", "mrr@10",
                "precision@10", "recall@10", "hit_rate@10", "r_precision"]


def _chunk(seed, start_row, n_rows):
    """Rows ``start_row..start_row+n_rows`` of the log: ids in order, 10 per query."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = np.arange(start_row, start_row + n_rows)
    query = rows // ROWS_PER_QUERY
    label = (rng.random(n_rows) < 0.2).astype(np.int8)
    score = rng.random(n_rows)
    return label, score, query


def run_stream(tool, n_rows, chunk):
    import tracemalloc

    import numpy as np

    import skrank

    tracemalloc.start()
    seconds = 0.0
    if tool == "in-memory":
        parts = [_chunk(i, start, min(chunk, n_rows - start))
                 for i, start in enumerate(range(0, n_rows, chunk))]
        label, score, query = (np.concatenate(p) for p in zip(*parts))
        del parts
        began = time.perf_counter()
        result = skrank.evaluate(label, score, query_id=query, metrics=STREAM_METRICS)
        seconds = time.perf_counter() - began
    else:
        accumulator = skrank.RankingAccumulator(STREAM_METRICS, contiguous=True)
        for i, start in enumerate(range(0, n_rows, chunk)):
            label, score, query = _chunk(i, start, min(chunk, n_rows - start))
            began = time.perf_counter()
            accumulator.update(label, score, query_id=query)
            seconds += time.perf_counter() - began
            del label, score, query
        began = time.perf_counter()
        result = accumulator.result()
        seconds += time.perf_counter() - began
    _, peak = tracemalloc.get_traced_memory()
    return {"seconds": seconds, "peak_mb": peak / 2**20, "result": result}


def _loop_data(n_batches, batch_rows):
    import numpy as np
    import torch

    rng = np.random.default_rng(0)
    batches = []
    for b in range(n_batches):
        query = b * (batch_rows // ROWS_PER_QUERY) + np.arange(batch_rows) // ROWS_PER_QUERY
        label = rng.random(batch_rows) < 0.2
        batches.append((torch.from_numpy(rng.random(batch_rows)),
                        torch.from_numpy(label), torch.from_numpy(query)))
    return batches


def _torchmetrics_collection():
    from torchmetrics import retrieval as r

    return {
        "ndcg@10": r.RetrievalNormalizedDCG(top_k=10),
        "ndcg": r.RetrievalNormalizedDCG(),
        "map": r.RetrievalMAP(),
        "map@10": r.RetrievalMAP(top_k=10),
        "mrr": r.RetrievalMRR(),
        "mrr@10": r.RetrievalMRR(top_k=10),
        "precision@10": r.RetrievalPrecision(top_k=10),
        "recall@10": r.RetrievalRecall(top_k=10),
        "hit_rate@10": r.RetrievalHitRate(top_k=10),
        "r_precision": r.RetrievalRPrecision(),
    }


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_loop(tool, n_batches, batch_rows):
    import skrank

    batches = _loop_data(n_batches, batch_rows)
    if tool == "skrank":
        accumulator = skrank.RankingAccumulator(LOOP_METRICS, no_relevant="zero")
        y, score, query = _warm_up()  # imports and first calls outside the timing
        accumulator.update(y, score, query_id=query)
        accumulator.reset()
    else:
        metrics = _torchmetrics_collection()
        for metric in metrics.values():  # the same warm-up
            metric.update(*_warm_up_torch())
            metric.compute()
            metric.reset()
    base = _peak_rss_mb()
    began = time.perf_counter()
    if tool == "skrank":
        for score, label, query in batches:
            accumulator.update(label, score, query_id=query, complete=True)
        result = accumulator.result()
    else:
        for score, label, query in batches:
            for metric in metrics.values():
                metric.update(score, label, indexes=query)
        result = {name: float(metric.compute()) for name, metric in metrics.items()}
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "peak_mb": _peak_rss_mb() - base, "result": result}


def _warm_up():
    return [1, 0, 0], [0.3, 0.2, 0.1], [0, 0, 0]


def _warm_up_torch():
    import torch

    return (torch.tensor([0.3, 0.2, 0.1]), torch.tensor([True, False, False]),
            torch.tensor([0, 0, 0]))


def _in_subprocess(part, tool, args):
    code = (
        "import json, sys; sys.path.insert(0, 'benchmarks'); import bench_stream as b; "
        f"out = b.run_{part}({tool!r}, *{args!r}); print(json.dumps(out))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _table(title, rows, baseline):
    print(f"\n{title}")
    print(f"{'tool':<12} {'time (s)':>9} {'peak (MB)':>10} {'time ratio':>11} "
          f"{'memory ratio':>13}")
    for tool, out in rows.items():
        print(f"{tool:<12} {out['seconds']:9.2f} {out['peak_mb']:10.1f} "
              f"{out['seconds'] / rows[baseline]['seconds']:11.2f} "
              f"{out['peak_mb'] / max(rows[baseline]['peak_mb'], 1e-9):13.3f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["stream", "loop", "both"], default="both")
    parser.add_argument("--rows", type=float, default=2e7)
    parser.add_argument("--chunk", type=float, default=1e6)
    parser.add_argument("--batches", type=int, default=1000)
    parser.add_argument("--batch-rows", type=int, default=1000)
    parser.add_argument("--json", help="write the numbers to this file")
    args = parser.parse_args(argv)
    report = {}
    if args.part in ("stream", "both"):
        sizes = (int(args.rows), int(args.chunk))
        rows = {tool: _in_subprocess("stream", tool, sizes)
                for tool in ("in-memory", "stream")}
        _table(f"{sizes[0]:.0e} rows ({sizes[0] // ROWS_PER_QUERY:.0e} queries), "
               f"chunks of {sizes[1]:.0e}", rows, "in-memory")
        difference = max(abs(rows["stream"]["result"][m] - rows["in-memory"]["result"][m])
                         for m in STREAM_METRICS)
        print(f"largest difference between the two results: {difference:.1e}")
        report["stream"] = rows
    if args.part in ("loop", "both"):
        sizes = (args.batches, args.batch_rows)
        rows = {tool: _in_subprocess("loop", tool, sizes)
                for tool in ("torchmetrics", "skrank")}
        _table(f"{sizes[0]} batches of {sizes[1]} rows, 10 metrics", rows,
               "torchmetrics")
        report["loop"] = rows
    if args.json:
        with open(args.json, "w") as file:
            json.dump(report, file, indent=1)


if __name__ == "__main__":
    main()
