"""
Evaluate a click log on Spark
=============================

Click and search logs often live in Spark tables: Parquet files with the
rows of one user (the query) spread over many files. :func:`skrank.spark.evaluate`
scores such a log with Spark's own engine: one shuffle by query id,
skrank's in-memory kernels on each partition, and the partial sums merged
on the driver, so no row is collected on the driver and the result equals
:func:`skrank.evaluate` on the same rows. On a plain scan of Parquet files
like this one, Spark's Python workers read the files themselves and
Spark's shuffle moves the rows as Arrow messages, by a hash of the query id.

This script writes a small click log (about 20,000 rows) as Parquet files
to a temporary folder, scores two models on a local Spark session, and
compares them query by query with Spark itself. It needs the ``spark``
extra (``pip install -e ".[spark]"`` from a checkout of skrank) and a Java
runtime (17 or later).
"""

import shutil

try:
    import pyarrow  # noqa: F401
    import pyspark  # noqa: F401
except ImportError as missing:
    print(f"This example needs {missing.name}: pip install \"pyspark[sql]\"")
    raise SystemExit(0)
if shutil.which("java") is None:
    print("This example needs a Java runtime (17 or later) for Spark.")
    raise SystemExit(0)

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import skrank
import skrank.spark

# pyspark's notice when pandas is newer than the versions it was tested with
warnings.filterwarnings("ignore", "PySpark does not yet fully support", FutureWarning)


def write_click_log(folder, n_users=1000, n_files=4, seed=0):
    """One Parquet file per "day": each user's impressions are spread over days."""
    rng = np.random.default_rng(seed)
    n_rows = n_users * 20
    user = rng.integers(0, n_users, n_rows)
    interest = rng.normal(size=n_rows)  # what the user actually likes
    clicked = (interest + rng.normal(scale=0.8, size=n_rows) > 1.0).astype(np.int8)
    log = pd.DataFrame({
        "user": [f"user-{u:05d}" for u in user],
        "click": clicked,
        # the new model sees the interest better than the old one
        "new_model": np.round(interest + rng.normal(scale=0.6, size=n_rows), 2),
        "old_model": np.round(interest + rng.normal(scale=1.2, size=n_rows), 1),
        "day": rng.integers(0, n_files, n_rows),
    })
    for day, rows in log.groupby("day"):
        rows.drop(columns="day").to_parquet(folder / f"day-{day}.parquet", index=False)
    return log.drop(columns="day")


# %%
# A local Spark session and the click log
# ---------------------------------------
# Two cores and a few shuffle partitions, as on a small machine; on a
# cluster the session comes from ``spark-submit`` or the notebook, and
# nothing else changes. Each Parquet file holds one day, and every user's
# rows are spread over the days, so no file holds a whole query.
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = (
    SparkSession.builder.master("local[2]")
    .appName("skrank-click-log")
    .config("spark.sql.shuffle.partitions", "4")
    .config("spark.ui.enabled", "false")
    .config("spark.ui.showConsoleProgress", "false")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")

tmp = tempfile.TemporaryDirectory()
folder = Path(tmp.name)
rows = write_click_log(folder)
log = spark.read.parquet(str(folder))
print(f"click log: {log.count()} rows in {log.rdd.getNumPartitions()} partitions")

# %%
# Score both models
# -----------------
# One call per model; each is one Spark job. Users without a click have no
# relevant row: by default they are left out of the mean
# (``no_relevant="skip"``); ``"gauc"`` leaves out users with clicks only.
metrics = ["ndcg@10", "map", "mrr", "precision@5", "gauc"]
results = {
    model: skrank.spark.evaluate(log, metrics=metrics, y_true="click",
                                 y_score=model, query_id="user")
    for model in ("new_model", "old_model")
}
print(pd.DataFrame(results).round(4))

# %%
# The same numbers as in memory
# -----------------------------
# The log is small enough to check: :func:`skrank.evaluate` on the same rows.
expected = skrank.evaluate(rows["click"], rows["new_model"], query_id=rows["user"],
                           metrics=metrics)
gap = max(abs(results["new_model"][name] - expected[name]) for name in metrics)
print(f"largest difference from skrank.evaluate: {gap:.1e}")

# %%
# Per-user values, compared with Spark
# ------------------------------------
# ``per_query=True`` returns a Spark DataFrame with one row per user (lazy,
# like any Spark DataFrame). Joining the two models' frames on the user
# tells on how many users the new model ranks the clicks higher, without
# leaving Spark.
new = skrank.spark.evaluate(log, metrics=["ndcg@10"], y_true="click",
                            y_score="new_model", query_id="user", per_query=True)
old = skrank.spark.evaluate(log, metrics=["ndcg@10"], y_true="click",
                            y_score="old_model", query_id="user", per_query=True)
paired = (
    new.select("user", F.col("`ndcg@10`").alias("new"))
    .join(old.select("user", F.col("`ndcg@10`").alias("old")), "user")
    .where(~F.isnan("new"))  # users without a click
)
counts = paired.agg(
    F.count("*").alias("users"),
    F.sum((F.col("new") > F.col("old")).cast("int")).alias("new_better"),
    F.sum((F.col("new") < F.col("old")).cast("int")).alias("old_better"),
).first()
print(f"nDCG@10 per user: the new model is better for {counts['new_better']} "
      f"users, the old one for {counts['old_better']}, of {counts['users']}")

spark.stop()
tmp.cleanup()
