"""skrank.spark.evaluate equals the in-memory skrank.evaluate on the same rows.

The expected values are skrank.evaluate's on the pandas frame the Spark
DataFrame is made from (the in-memory path has its own brute-force tests);
these tests check that Spark's repartitioning, the per-partition kernels and
the merged partial means change nothing. A real local SparkSession
(``conftest.py``); skipped, with the reason, without pyspark or Java.
"""

import re
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning

import skrank
import skrank.spark
from skrank.metrics._registry import METRICS
from skrank.spark._evaluate import _n_partitions, _partitioned_on

pytestmark = pytest.mark.filterwarnings(
    # pyspark's own notice about the installed pandas version
    "ignore:PySpark does not yet fully support:FutureWarning"
)

# every registry metric, with and without a cutoff
NAMES = sorted(
    name for stem, spec in METRICS.items()
    for name in ([stem, f"{stem}@3", f"{stem}@1"] if spec.takes_k else [stem])
)


def click_log(seed, n_rows=300, n_queries=40, ids="str", graded=False):
    """Rows in random order, many tied scores, some queries with no relevant row."""
    rng = np.random.default_rng(seed)
    query = rng.integers(0, n_queries, n_rows)
    qid = {"str": np.array([f"user-{q:03d}" for q in query], dtype=object),
           "int": query * 7 - 50}[ids]
    label = rng.integers(0, 4 if graded else 2, n_rows) * (rng.random(n_rows) < 0.6)
    return pd.DataFrame({
        "qid": qid, "label": label.astype(np.int64),
        "score": rng.integers(0, 5, n_rows) / 4.0,
        "w": rng.uniform(0.1, 3.0, n_rows),
    })


def in_memory(rows, metrics, weight=None, **options):
    return skrank.evaluate(
        rows["label"], rows["score"], query_id=rows["qid"], metrics=metrics,
        sample_weight=None if weight is None else rows[weight], **options,
    )


def assert_close(got, expected):
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=1e-12,
                                   err_msg=name)


def collected(df):
    """A small Spark DataFrame's rows as a pandas frame."""
    return pd.DataFrame([row.asDict() for row in df.collect()], columns=df.columns)


def frame(spark, rows, partitions=4):
    """A Spark DataFrame of ``rows`` in their order, sliced over ``partitions``."""
    records = [tuple(record) for record in rows.astype(object).to_numpy().tolist()]
    return spark.sparkContext.parallelize(records, partitions).toDF(list(rows.columns))


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("no_relevant", ["skip", "zero", "one"])
def test_every_registry_metric_equals_in_memory(spark, weight, no_relevant):
    rows = click_log(0)
    rows["label"] = (rows["label"] > 0).astype(np.int64)  # gauc wants 0/1
    got = skrank.spark.evaluate(frame(spark, rows), metrics=NAMES,
                                sample_weight=weight, no_relevant=no_relevant)
    assert_close(got, in_memory(rows, NAMES, weight, no_relevant=no_relevant))


@pytest.mark.parametrize("ids", ["str", "int"])
def test_graded_labels_ties_and_id_types(spark, ids):
    rows = click_log(1, ids=ids, graded=True)
    names = ["ndcg@5", "dcg", "map", "fap@2", "rbp@4", "gap", "bpref", "mrr"]
    got = skrank.spark.evaluate(frame(spark, rows), metrics=names, sample_weight="w")
    assert_close(got, in_memory(rows, names, "w"))
    # a metric option reaches the kernels as in memory
    got = skrank.spark.evaluate(frame(spark, rows), metrics=["ndcg@5", "dcg"],
                                gain="linear")
    assert_close(got, in_memory(rows, ["ndcg@5", "dcg"], gain="linear"))


def test_per_query_frame_equals_in_memory_query_values(spark):
    rows = click_log(2)
    rows["label"] = (rows["label"] > 0).astype(np.int64)
    names = ["ndcg@3", "map", "gauc", "fap@2"]
    result = skrank.spark.evaluate(frame(spark, rows), metrics=names,
                                   sample_weight="w", per_query=True)
    assert type(result).__name__ == "DataFrame" and hasattr(result, "toPandas")
    assert result.columns == ["qid"] + names + ["weight", "gauc_weight"]
    assert dict(result.dtypes)["qid"] == "string"
    got = collected(result).set_index("qid")
    assert got.index.is_unique
    expected = in_memory(rows, names, "w", aggregate=None)
    got = got.loc[expected["map"].query_id]
    for name in names:
        np.testing.assert_allclose(got[name], expected[name].value, atol=1e-12,
                                   rtol=0, err_msg=name)
    np.testing.assert_allclose(got["weight"], expected["map"].weight, rtol=1e-14)
    np.testing.assert_allclose(got["gauc_weight"], expected["gauc"].weight,
                               rtol=1e-14)


def test_per_query_keeps_integer_ids(spark):
    rows = click_log(3, ids="int")
    result = skrank.spark.evaluate(frame(spark, rows), metrics="mrr", per_query=True,
                                   no_relevant="zero")
    assert dict(result.dtypes)["qid"] == "bigint"
    got = collected(result).set_index("qid").sort_index()
    expected = in_memory(rows, ["mrr"], aggregate=None, no_relevant="zero")["mrr"]
    np.testing.assert_array_equal(got.index.to_numpy(), expected.query_id)
    np.testing.assert_allclose(got["mrr"], expected.value, atol=1e-12, rtol=0)


def test_ties_input_follows_the_frame_order_through_the_repartition(spark):
    rows = click_log(4)
    rows["score"] = 1.0  # every row tied: the order is all that matters
    names = ["ndcg@3", "mrr", "precision@2", "map"]
    got = skrank.spark.evaluate(frame(spark, rows, partitions=5), metrics=names,
                                ties="input")
    assert_close(got, in_memory(rows, names, ties="input"))
    # and differs from the tie average, so the order was what was tested
    assert got["mrr"] != pytest.approx(in_memory(rows, ["mrr"])["mrr"])


def test_no_relevant_error_raises_the_in_memory_error(spark):
    rows = click_log(5)
    with pytest.raises(ValueError) as expected:
        in_memory(rows, ["map"], no_relevant="error")
    with pytest.raises(ValueError) as got:
        skrank.spark.evaluate(frame(spark, rows), metrics=["map"],
                              no_relevant="error")
    assert str(got.value) == str(expected.value)


def test_nothing_left_warns_and_returns_nan(spark):
    rows = click_log(6, n_rows=40, n_queries=4)
    rows["label"] = 0
    with pytest.warns(UndefinedMetricWarning, match="No query is left"):
        got = skrank.spark.evaluate(frame(spark, rows), metrics=["map", "ndcg@2"])
    assert np.isnan(got["map"]) and np.isnan(got["ndcg@2"])


def test_more_partitions_than_queries_and_an_empty_frame(spark):
    rows = click_log(7, n_rows=30, n_queries=2, ids="int")
    names = ["ndcg@3", "map", "mrr"]
    df = frame(spark, rows, partitions=8)
    assert_close(skrank.spark.evaluate(df, metrics=names, partitioned_by_query=False),
                 in_memory(rows, names))
    # already partitioned by query (Spark's plan says so): no repartition, same values
    by_query = df.repartition(6, "qid")
    assert _partitioned_on(by_query, "qid") and not _partitioned_on(df, "qid")
    assert not _partitioned_on(by_query.withColumn("qid", by_query["qid"] + 1), "qid")
    assert_close(skrank.spark.evaluate(by_query, metrics=names),
                 in_memory(rows, names))
    assert by_query.count() == 30
    with pytest.raises(ValueError, match="no rows"):
        skrank.spark.evaluate(df.limit(0), metrics=names)


def test_frames_with_a_size_estimate_get_one_partition_per_8_mib(spark, tmp_path):
    rows = click_log(10, ids="int")
    names = ["ndcg@3", "map", "gauc"]
    rows["label"] = (rows["label"] > 0).astype(np.int64)
    local = spark.createDataFrame(rows)  # Spark knows its size: a few kB
    assert _n_partitions(local) == spark.sparkContext.defaultParallelism
    assert_close(skrank.spark.evaluate(local, metrics=names), in_memory(rows, names))
    local.write.parquet(str(tmp_path / "log"))
    files = spark.read.parquet(str(tmp_path / "log"))
    assert _n_partitions(files) == spark.sparkContext.defaultParallelism
    assert_close(skrank.spark.evaluate(files, metrics=names), in_memory(rows, names))


def test_bad_rows_raise_the_in_memory_error_on_the_driver(spark):
    """The in-memory error, naming the row by its query (issue 34, B10).

    A Spark row has no position the caller knows: the worker's position
    inside its shuffled partition named another row ("row 58" for row 5).
    """
    rows = click_log(8, n_rows=60, n_queries=6)
    rows.loc[5, "label"] = -1
    with pytest.raises(ValueError) as expected:
        in_memory(rows, ["map"])
    assert "at row 5." in str(expected.value)
    with pytest.raises(ValueError) as got:
        skrank.spark.evaluate(frame(spark, rows), metrics=["map"])
    query = rows.loc[5, "qid"]
    assert str(got.value) == str(expected.value).replace(
        "at row 5.", f"at a row of query {query!r}.")
    rows = click_log(8, n_rows=60, n_queries=6)
    rows.loc[5, "score"] = np.nan
    with pytest.raises(ValueError, match=rf"`y_score` contains NaN.*\(nan at a row "
                                         rf"of query {query!r}\)") as got:
        skrank.spark.evaluate(frame(spark, rows), metrics=["map"])
    assert re.search(r"row \d", str(got.value)) is None


def test_argument_errors(spark):
    rows = click_log(9, n_rows=20, n_queries=3)
    df = frame(spark, rows)
    with pytest.raises(ValueError, match="pyspark.sql.DataFrame"):
        skrank.spark.evaluate(rows)
    with pytest.raises(ValueError, match="`y_score` must name a column"):
        skrank.spark.evaluate(df, y_score="prediction")
    with pytest.raises(ValueError, match="`metrics` is empty"):
        skrank.spark.evaluate(df, metrics=[])
    with pytest.raises(ValueError, match="ties"):
        skrank.spark.evaluate(df, ties="random")
    with pytest.raises(ValueError, match="per_query"):
        skrank.spark.evaluate(df, per_query="yes")
    with pytest.raises(ValueError, match="No requested metric takes"):
        skrank.spark.evaluate(df, metrics=["map"], gain="linear")
    with pytest.raises(ValueError, match="does not take compat: a peer's preset"):
        skrank.spark.evaluate(df, metrics=["ndcg@10"], compat="lightgbm")
    with pytest.raises(ValueError, match="does not take retrieved, score_dtype"):
        skrank.spark.evaluate(df, score_dtype="float32", retrieved="positive")


def test_missing_pyspark_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError) as info:
        skrank.spark.evaluate(None)
    message = str(info.value)
    assert message.startswith("skrank.spark.evaluate needs pyspark")
    assert '`pip install "pyspark[sql]"`' in message
    assert '`pip install -e ".[spark]"`' in message
