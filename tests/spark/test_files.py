"""skrank.spark.evaluate on a scan of Parquet files, which the Python workers read.

Expected values are in-memory ``skrank.evaluate``'s on the rows written to
the files; the tests also check which path ran (the workers' read of the
files, or Spark's reader after a fallback), so that a silent fallback
cannot pass for the direct read. A real local SparkSession (``conftest.py``).
"""

import numpy as np
import pandas as pd
import pytest

import skrank.spark
import skrank.spark._evaluate as spark_evaluate
from skrank.spark import _files

from .test_evaluate import NAMES, assert_close, click_log, in_memory

pa = pytest.importorskip("pyarrow", reason="pyarrow (the io extra) writes the Parquet files")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow writes the Parquet files")

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support:FutureWarning"
)


def write_files(rows, directory, n_files=3, row_group_size=40, name="part {}.parquet"):
    """``rows`` in ``n_files`` Parquet files (a space in the names), small row groups."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, piece in enumerate(np.array_split(np.arange(len(rows)), n_files)):
        table = pa.Table.from_pandas(rows.iloc[piece], preserve_index=False)
        pq.write_table(table, directory / name.format(i), row_group_size=row_group_size)
    return str(directory)


@pytest.fixture
def paths_taken(monkeypatch):
    """What each call's direct read returned: partials (it ran) or None (fallback)."""
    taken = []
    original = spark_evaluate._scored_from_files

    def spy(*args):
        result = original(*args)
        taken.append(result)
        return result

    monkeypatch.setattr(spark_evaluate, "_scored_from_files", spy)
    return taken


@pytest.mark.parametrize("ids", ["str", "int"])
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("no_relevant", ["skip", "zero"])
def test_the_workers_read_the_files_and_equal_in_memory(spark, tmp_path, monkeypatch,
                                                       paths_taken, ids, weight,
                                                       no_relevant):
    rows = click_log(20, n_rows=600, n_queries=70, ids=ids)
    rows["label"] = (rows["label"] > 0).astype(np.int8)  # gauc wants 0/1
    # a few hundred bytes per read task: each file is cut into several parts
    monkeypatch.setattr(_files, "SPLIT_BYTES", 1500)
    df = spark.read.parquet(write_files(rows, tmp_path / "log"))
    tasks, n_slices = _files.read_tasks(_files.parquet_files(df, "qid"), cores=2)
    assert len(tasks) > 3 * 3 and n_slices > 2  # each file in parts, several tasks
    got = skrank.spark.evaluate(df, metrics=NAMES, sample_weight=weight,
                                no_relevant=no_relevant)
    assert paths_taken and paths_taken[-1] is not None  # the direct read ran
    assert_close(got, in_memory(rows, NAMES, weight, no_relevant=no_relevant))
    # Spark's own reader, asked for, gives the same values
    paths_taken.clear()
    assert_close(skrank.spark.evaluate(df, metrics=NAMES, sample_weight=weight,
                                       no_relevant=no_relevant, read_files=False),
                 got)
    assert not paths_taken


def test_integer_widths_that_differ_between_files_hash_alike(spark, tmp_path, paths_taken):
    rows = click_log(21, n_rows=200, n_queries=15, ids="int")
    directory = tmp_path / "mixed"
    directory.mkdir()
    half = len(rows) // 2
    for i, piece in enumerate((rows.iloc[:half], rows.iloc[half:])):
        piece = piece.astype({"qid": np.int32 if i else np.int64})
        pq.write_table(pa.Table.from_pandas(piece, preserve_index=False),
                       directory / f"{i}.parquet")
    schema = "qid bigint, label bigint, score double, w double"
    df = spark.read.schema(schema).parquet(str(directory))
    names = ["ndcg@3", "map", "mrr"]
    got = skrank.spark.evaluate(df, metrics=names)
    assert paths_taken[-1] is not None
    assert_close(got, in_memory(rows, names))


def test_a_file_the_workers_cannot_read_falls_back_to_spark(spark, tmp_path, paths_taken):
    rows = click_log(22, n_rows=200, n_queries=15)
    path = write_files(rows, tmp_path / "log")
    # Spark matches column names regardless of case; pyarrow does not find "QID"
    df = spark.read.schema("QID string, label bigint, score double, w double").parquet(path)
    names = ["ndcg@3", "map"]
    got = skrank.spark.evaluate(df, metrics=names, query_id="QID")
    assert paths_taken == [None]  # tried, then Spark's reader
    assert_close(got, in_memory(rows, names))


def test_bad_rows_in_a_file_raise_the_in_memory_error(spark, tmp_path, paths_taken):
    rows = click_log(23, n_rows=60, n_queries=5)
    rows.loc[7, "label"] = -1
    with pytest.raises(ValueError) as expected:
        in_memory(rows, ["map"])
    df = spark.read.parquet(write_files(rows, tmp_path / "log"))
    with pytest.raises(ValueError) as got:
        skrank.spark.evaluate(df, metrics=["map"])
    # the row number is the line's in its worker's frame, not in the files
    message = str(expected.value).split(" at row ")[0]
    assert message.startswith("`y_true` must") and str(got.value).startswith(message)


def test_a_missing_query_id_in_a_file_raises_the_in_memory_error(spark, tmp_path,
                                                                 paths_taken):
    rows = click_log(27, n_rows=60, n_queries=5)
    rows.loc[11, "qid"] = None
    with pytest.raises(ValueError) as expected:
        in_memory(rows, ["map"])
    df = spark.read.parquet(write_files(rows, tmp_path / "log"))
    with pytest.raises(ValueError) as got:
        skrank.spark.evaluate(df, metrics=["map"])
    assert paths_taken == []  # raised inside the direct read, not a fallback
    message = str(expected.value).split(" at row ")[0]
    assert "query" in message and str(got.value).startswith(message)


def test_files_without_rows(spark, tmp_path):
    rows = click_log(24, n_rows=30, n_queries=3).iloc[:0]
    df = spark.read.parquet(write_files(rows, tmp_path / "empty", n_files=2))
    assert _files.parquet_files(df, "qid") is not None
    with pytest.raises(ValueError, match="no rows"):
        skrank.spark.evaluate(df, metrics=["map"])


def test_only_a_plain_scan_of_local_parquet_files_is_read_directly(spark, tmp_path):
    rows = click_log(25, n_rows=60, n_queries=5, ids="int")
    df = spark.read.parquet(write_files(rows, tmp_path / "log"))
    paths = _files.parquet_files(df.select("qid", "label", "score"), "qid")
    assert sorted(paths) == sorted(str(p) for p in (tmp_path / "log").iterdir())
    assert any(" " in p for p in paths)  # file: URIs decoded
    from pyspark.sql import functions as F

    not_plain = {
        "filtered": df.filter(F.col("score") > 0.2),
        "computed column": df.withColumn("score", F.col("score") * 2),
        "renamed column": df.withColumnRenamed("w", "weight"),
        "limited": df.limit(10),
        "in memory": spark.createDataFrame(rows),
        "decimal score": df.withColumn("score", F.col("score").cast("decimal(10,3)")),
    }
    for what, frame in not_plain.items():
        assert _files.parquet_files(frame, "qid") is None, what
    rows.to_parquet(tmp_path / "by_day", partition_cols=["label"])
    assert _files.parquet_files(spark.read.parquet(str(tmp_path / "by_day")), "qid") is None
    # a float query id is read by Spark (its hash is not the workers')
    floats = rows.assign(qid=rows["qid"] / 2)
    floats.to_parquet(tmp_path / "floats.parquet")
    assert _files.parquet_files(spark.read.parquet(str(tmp_path / "floats.parquet")),
                                "qid") is None


def test_read_files_option(spark, tmp_path):
    rows = click_log(26, n_rows=30, n_queries=3)
    df = spark.read.parquet(write_files(rows, tmp_path / "log"))
    with pytest.raises(ValueError, match="`read_files` must be one of 'auto', False"):
        skrank.spark.evaluate(df, read_files=True)


def test_read_tasks_cut_files_and_share_them_among_tasks(tmp_path, monkeypatch):
    paths = []
    for i in range(3):
        paths.append(str(tmp_path / f"{i}.parquet"))
        (tmp_path / f"{i}.parquet").write_bytes(b"x" * 1000)
    monkeypatch.setattr(_files, "SPLIT_BYTES", 400)
    tasks, n_slices = _files.read_tasks(paths, cores=1)
    # 1000 bytes in parts of 400: 3 parts a file; 3000 bytes: 8 slices of 400
    assert tasks == [(p, part, 3) for p in paths for part in range(3)]
    assert n_slices == 8
    assert _files.read_tasks(paths, cores=4)[1] == 9  # 4 a core is 16: only 9 parts
    monkeypatch.setattr(_files, "SPLIT_BYTES", 10**6)
    tasks, n_slices = _files.read_tasks(paths + [str(tmp_path / "gone.parquet")], cores=2)
    assert [part for _, part, _ in tasks] == [0, 0, 0, 0] and n_slices == 4


def test_buckets_depend_on_the_id_value_only():
    ids = np.array([5, -3, 5, 2**40, 0, -3], dtype=np.int64)
    wide = _files._buckets(pa.array(ids), 7)
    narrow = _files._buckets(pa.chunked_array([pa.array(ids[:2], pa.int32())]), 7)
    assert wide.min() >= 0 and wide.max() < 7
    assert wide[0] == wide[2] and wide[1] == wide[5]
    assert narrow[0] == wide[0] and narrow[1] == wide[1]
    # a missing id gets some bucket: the score step raises on it
    strings = pa.chunked_array([pa.array(["a", "b", None]), pa.array(["b", "c", "a"])])
    buckets = _files._buckets(strings, 5)
    assert buckets[0] == buckets[5] and buckets[1] == buckets[3]
    # the hash is pandas' (keyed, the same in every process), not Python's hash()
    expected = pd.util.hash_array(np.array(["a", "b", "c"], dtype=object)) % np.uint64(5)
    np.testing.assert_array_equal(buckets[[0, 1, 4]], expected.astype(np.int64))
