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
processes (with a progress bar when run in a terminal), and ends with a per-query comparison of the
two scorers (:func:`skrank.compare` on the per-query frames). It needs the
``dask`` extra: ``pip install -e ".[dask]"`` from a checkout of skrank.

Dask starts its workers as new processes that import this file again, so
every step that runs on the cluster sits under
``if __name__ == "__main__":``.
"""

try:
    import dask.dataframe  # noqa: F401
    import distributed  # noqa: F401
    import pyarrow  # noqa: F401
except ImportError as missing:
    print(f"This example needs {missing.name}: "
          'pip install "dask[dataframe]" distributed pyarrow')
    raise SystemExit(0)

import sys
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


# %%
# A local cluster and the click log
# ---------------------------------
# Two worker processes with one thread each, as on a small machine; on a
# real cluster, ``Client("scheduler-address:8786")`` is the only change.
# Each Parquet file holds one day, and every user's rows are spread over
# the days, so no partition holds a whole query. ``silence_logs`` keeps the
# shuffle's informational log lines out of the output.
import logging

if __name__ == "__main__":  # worker processes re-import this file
    metrics = ["ndcg@10", "map", "mrr", "precision@5", "gauc"]
    tmp = tempfile.TemporaryDirectory()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    client = Client(cluster)
    folder = Path(tmp.name)
    n_rows = write_click_log(folder)
    log = dd.read_parquet(str(folder))
    print(f"click log: {n_rows} rows in {log.npartitions} Parquet files")

# %%
# Mean over users
# ---------------
# One shuffle by user id, skrank's kernels on each partition, then partial
# sums merged into the mean: only a few numbers come back to the client.
if __name__ == "__main__":
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

# %%
# Per-user values and a paired comparison
# ---------------------------------------
# ``aggregate=None`` gives a Dask DataFrame with one row per user. The
# frames stay on the cluster (``persist``, with Dask's progress bar) until
# :func:`skrank.compare` pairs them on the user id and tests the
# difference. The bar redraws itself with control characters, so it is
# shown only on a terminal, not when the output goes to a file or a pipe.
if __name__ == "__main__":
    per_query = {
        model: skrank.dask.evaluate(
            log, ["ndcg@10", "map"], y_true="click", y_score=model,
            query_id="user", aggregate=None,
        ).persist()
        for model in ("new_model", "old_model")
    }
    print("\nper-query values of both models:")
    if sys.stdout.isatty():
        progress(*per_query.values())
    print()
    result = skrank.compare(None, per_query, metrics=["ndcg@10", "map"],
                            n_resamples=2000, random_state=0)
    print(result)

# %%
# Where the new model wins
# ------------------------
# The mean difference hides its spread over users. The per-user nDCG@10
# differences are computed on the cluster; only one number per user reaches
# the client. Most users gain, some lose: a mean gain is not a gain for
# everyone.
import os

try:
    import matplotlib.pyplot as plt
except ImportError:  # the figure is optional
    plt = None
    print("(matplotlib is not installed: no figure. pip install matplotlib)")

if __name__ == "__main__":
    # users without a click have no nDCG (skipped): they drop out here
    difference = (per_query["new_model"]["ndcg@10"]
                  - per_query["old_model"]["ndcg@10"]).dropna().compute()
    print(f"users whose nDCG@10 improves: {(difference > 0).mean():.0%}, "
          f"unchanged: {(difference == 0).mean():.0%}, "
          f"worse: {(difference < 0).mean():.0%}")
    if plt is not None:
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.hist(difference, bins=41, range=(-1, 1))
        ax.axvline(0, color="grey", linestyle="--")
        ax.axvline(difference.mean(), color="black",
                   label=f"mean {difference.mean():+.3f}")
        ax.set_xlabel("nDCG@10 of new_model minus old_model, per user")
        ax.set_ylabel("users")
        ax.set_title("Per-user difference, computed on the Dask cluster")
        ax.legend()
        fig.tight_layout()
        # the figure goes to $SKRANK_EXAMPLE_PLOT (empty: no file; the
        # documentation shows the figure itself), else to a new temporary
        # folder: never into the folder the script is run from
        plot_path = os.environ.get("SKRANK_EXAMPLE_PLOT")
        if plot_path is None:
            folder = tempfile.mkdtemp(prefix="skrank-")
            plot_path = os.path.join(folder, "evaluate_click_log_dask.png")
        if plot_path:
            fig.savefig(plot_path, dpi=100)
            print(f"\nplot saved to {plot_path}")

# %%
# Shut down
# ---------
if __name__ == "__main__":
    client.close()
    cluster.close()
    tmp.cleanup()
