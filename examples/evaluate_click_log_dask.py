"""
Evaluate a click log on a Dask cluster
======================================

A click log too big for one machine's memory is usually a folder of
Parquet files, with the rows of one user (the query) spread over many files.
:func:`skrank.dask.evaluate` scores it on a Dask cluster: one shuffle by
query id, skrank's in-memory kernels on each partition, and a reduction of
partial sums, so no row is collected on the client and the result equals
:func:`skrank.evaluate` on the same rows.

This script writes a small partitioned click log (about 40,000 rows) to a
temporary folder, evaluates two scorers on a local cluster of two worker
processes with a progress bar, and ends with a per-query comparison of the
two scorers (:func:`skrank.compare` on the per-query frames). It needs the
``dask`` extra: ``pip install "skrank[dask]"``.
"""

import tempfile
from pathlib import Path

import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster, progress

import skrank
import skrank.dask


def write_click_log(folder, n_users=2000, n_files=8, seed=0):
    """One Parquet file per "day": each user's impressions are spread over days."""
    rng = np.random.default_rng(seed)
    n_rows = n_users * 20
    user = rng.integers(0, n_users, n_rows)
    interest = rng.normal(size=n_rows)  # what the user actually likes
    clicked = (interest + rng.normal(scale=0.8, size=n_rows) > 1.0).astype(int)
    log = pd.DataFrame({
        "user": np.array([f"user-{u:05d}" for u in user]),
        "click": clicked,
        # the new model sees the interest better than the old one
        "new_model": np.round(interest + rng.normal(scale=0.6, size=n_rows), 2),
        "old_model": np.round(interest + rng.normal(scale=1.2, size=n_rows), 1),
        "day": rng.integers(0, n_files, n_rows),
    })
    for day, rows in log.groupby("day"):
        rows.drop(columns="day").to_parquet(folder / f"day-{day}.parquet", index=False)
    return n_rows


if __name__ == "__main__":  # worker processes re-import this file
    metrics = ["ndcg@10", "map", "mrr", "precision@5", "gauc"]
    with tempfile.TemporaryDirectory() as tmp, LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
    ) as cluster, Client(cluster) as client:
        folder = Path(tmp)
        n_rows = write_click_log(folder)
        log = dd.read_parquet(str(folder))
        print(f"click log: {n_rows} rows in {log.npartitions} Parquet files")

        # the mean over users: shuffle, kernels per partition, partial sums
        means = {}
        for model in ("new_model", "old_model"):
            means[model] = skrank.dask.evaluate(
                log, metrics, y_true="click", y_score=model, query_id="user"
            )
        print()
        print(f"{'metric':<12} {'new_model':>10} {'old_model':>10}")
        for name in metrics:
            print(f"{name:<12} {means['new_model'][name]:>10.4f} "
                  f"{means['old_model'][name]:>10.4f}")

        # per-query values, kept on the cluster (with Dask's progress bar)
        # until compare() pairs them on the user id
        per_query = {
            model: skrank.dask.evaluate(
                log, ["ndcg@10", "map"], y_true="click", y_score=model,
                query_id="user", aggregate=None,
            ).persist()
            for model in ("new_model", "old_model")
        }
        print("\nper-query values of both models:")
        progress(*per_query.values())
        print()
        result = skrank.compare(None, per_query, metrics=["ndcg@10", "map"],
                                n_resamples=2000, random_state=0)
        print(result)
