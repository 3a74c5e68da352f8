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
  ``compute`` at the end). Peak memory is the process's peak RSS during
  the loop over its RSS before (``bench_common.PeakRSS``; torch's
  allocations are not seen by tracemalloc). Needs torch and torchmetrics.

Prints one table per part with the ratios; ``--json`` writes the numbers.
The data is ``bench_data``'s ``log_chunk`` and ``batches``; the probes are
``bench_common``'s (``TracedPeak``, ``PeakRSS``, ``run_command``).
"""

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_common  # noqa: E402
from bench_data import batches as log_batches  # noqa: E402
from bench_data import log_chunk  # noqa: E402

ROWS_PER_QUERY = 10
STREAM_METRICS = ["ndcg@10", "map", "mrr", "precision@10", "recall@10"]
LOOP_METRICS = ["ndcg@10", "ndcg", "map", "map@10", "mrr", "mrr@10",
                "precision@10", "recall@10", "hit_rate@10", "r_precision"]


def _chunk(seed, start_row, n_rows):
    """Rows ``start_row..start_row+n_rows`` of the log: ids in order, 10 per query."""
    return log_chunk(seed, start_row, n_rows, ROWS_PER_QUERY)


def run_stream(tool, n_rows, chunk):
    import skrank

    with bench_common.TracedPeak() as probe:  # from before the data is made
        if tool == "in-memory":
            seconds, result = _in_memory(skrank, n_rows, chunk)
        else:
            seconds, result = _streamed(skrank, n_rows, chunk)
    return {"seconds": seconds, "peak_mb": probe.peak / 2**20, "result": result}


def _in_memory(skrank, n_rows, chunk):
    import numpy as np

    parts = [_chunk(i, start, min(chunk, n_rows - start))
             for i, start in enumerate(range(0, n_rows, chunk))]
    label, score, query = (np.concatenate(p) for p in zip(*parts))
    del parts
    seconds, _, result = bench_common.time_call(
        skrank.evaluate, label, score, query_id=query, metrics=STREAM_METRICS)
    return seconds, result


def _streamed(skrank, n_rows, chunk):
    seconds = 0.0
    accumulator = skrank.RankingAccumulator(STREAM_METRICS, contiguous=True)
    for i, start in enumerate(range(0, n_rows, chunk)):
        label, score, query = _chunk(i, start, min(chunk, n_rows - start))
        seconds += bench_common.time_call(
            accumulator.update, label, score, query_id=query)[0]
        del label, score, query
    last, _, result = bench_common.time_call(accumulator.result)
    return seconds + last, result


def _loop_data(n_batches, batch_rows):
    import torch

    return [tuple(torch.from_numpy(a) for a in batch)
            for batch in log_batches(n_batches, batch_rows, ROWS_PER_QUERY)]


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
    def epoch():
        if tool == "skrank":
            for score, label, query in batches:
                accumulator.update(label, score, query_id=query, complete=True)
            return accumulator.result()
        for score, label, query in batches:
            for metric in metrics.values():
                metric.update(score, label, indexes=query)
        return {name: float(metric.compute()) for name, metric in metrics.items()}

    with bench_common.PeakRSS() as probe:
        seconds, _, result = bench_common.time_call(epoch)
    return {"seconds": seconds, "peak_mb": probe.extra / 2**20, "result": result}


def _warm_up():
    return [1, 0, 0], [0.3, 0.2, 0.1], [0, 0, 0]


def _warm_up_torch():
    import torch

    return (torch.tensor([0.3, 0.2, 0.1]), torch.tensor([True, False, False]),
            torch.tensor([0, 0, 0]))


def _in_subprocess(part, tool, args):
    code = (
        f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import bench_stream as b; "
        f"out = b.run_{part}({tool!r}, *{args!r}); print(json.dumps(out))"
    )
    return bench_common.run_command([sys.executable, "-c", code]).last_json()


def _table(title, rows, baseline):
    lines = [f"\n{title}",
             f"{'tool':<12} {'time (s)':>9} {'peak (MB)':>10} {'time ratio':>11} "
             f"{'memory ratio':>13}"]
    for tool, out in rows.items():
        lines.append(f"{tool:<12} {out['seconds']:9.2f} {out['peak_mb']:10.1f} "
                     f"{out['seconds'] / rows[baseline]['seconds']:11.2f} "
                     f"{out['peak_mb'] / max(rows[baseline]['peak_mb'], 1e-9):13.3f}")
    print("\n".join(lines), flush=True)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["stream", "loop", "both"], default="both")
    parser.add_argument("--rows", type=float, default=2e7)
    parser.add_argument("--chunk", type=float, default=1e6)
    parser.add_argument("--batches", type=int, default=1000)
    parser.add_argument("--batch-rows", type=int, default=1000)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)
    report, text = {}, []
    if args.part in ("stream", "both"):
        sizes = (int(args.rows), int(args.chunk))
        rows = {tool: _in_subprocess("stream", tool, sizes)
                for tool in ("in-memory", "stream")}
        text += _table(f"{sizes[0]:.0e} rows ({sizes[0] // ROWS_PER_QUERY:.0e} "
                       f"queries), chunks of {sizes[1]:.0e}", rows, "in-memory")
        difference = max(abs(rows["stream"]["result"][m] - rows["in-memory"]["result"][m])
                         for m in STREAM_METRICS)
        text.append(f"largest difference between the two results: {difference:.1e}")
        print(text[-1])
        report["stream"] = rows
    if args.part in ("loop", "both"):
        sizes = (args.batches, args.batch_rows)
        rows = {tool: _in_subprocess("loop", tool, sizes)
                for tool in ("torchmetrics", "skrank")}
        text += _table(f"{sizes[0]} batches of {sizes[1]} rows, 10 metrics", rows,
                       "torchmetrics")
        report["loop"] = rows
    bench_common.publish(args, "\n".join(text), report, echo=False, preformatted=True,
                         title="Streaming evaluation (`bench_stream.py`)")


if __name__ == "__main__":
    main()
