"""skrank.dask.evaluate equals the in-memory skrank.evaluate on the same rows.

The expected values are skrank.evaluate's on the computed frame (the
in-memory path has its own brute-force tests); these tests check that
shuffling, partitioning and the mergeable reduction change nothing. Dask's
synchronous scheduler here; the distributed one in test_distributed.py.
"""

import re
import subprocess
import sys
import warnings

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import skrank
import skrank.dask
from skrank import compare
from skrank.metrics._registry import METRICS

# every registry metric, with and without a cutoff
NAMES = sorted(
    name for stem, spec in METRICS.items()
    for name in ([stem, f"{stem}@3", f"{stem}@1"] if spec.takes_k else [stem])
)


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="sync"):
        yield


def click_log(seed, n_rows=400, n_queries=40, ids="str", graded=False):
    """Rows in random order (each query over many partitions), many tied scores."""
    rng = np.random.default_rng(seed)
    query = rng.integers(0, n_queries, n_rows)
    qid = {"str": np.array([f"user-{q:03d}" for q in query], dtype=object),
           "int": query * 7 - 50,
           "cat": pd.Categorical([f"c{q}" for q in query])}[ids]
    label = rng.integers(0, 4 if graded else 2, n_rows) * (rng.random(n_rows) < 0.6)
    return pd.DataFrame({
        "qid": qid, "label": label, "score": rng.integers(0, 5, n_rows) / 4.0,
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


def per_query_frame(rows, metrics, **options):
    """In-memory per-query values as a frame indexed like skrank.dask's."""
    results = in_memory(rows, metrics, aggregate=None, **options)
    first = results[metrics[0]]
    frame = pd.DataFrame({name: results[name].value for name in metrics},
                         index=pd.Index(first.query_id, name="qid"))
    frame["weight"] = first.weight
    return frame


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("no_relevant", ["skip", "zero", "one"])
def test_every_registry_metric_equals_in_memory(ties, weight, no_relevant):
    rows = click_log(0)
    rows["label"] = (rows["label"] > 0).astype(int)  # gauc wants binary labels
    df = dd.from_pandas(rows, npartitions=7, sort=False)
    got = skrank.dask.evaluate(df, NAMES, sample_weight=weight, ties=ties,
                               no_relevant=no_relevant)
    assert_close(got, in_memory(rows, NAMES, weight, ties=ties,
                                no_relevant=no_relevant))


@pytest.mark.parametrize("ids", ["str", "int", "cat"])
def test_graded_labels_and_id_types(ids):
    rows = click_log(1, ids=ids, graded=True)
    names = ["ndcg@5", "dcg", "map", "fap@2", "rbp@4", "gap", "bpref", "mrr"]
    df = dd.from_pandas(rows, npartitions=5, sort=False)
    assert_close(skrank.dask.evaluate(df, names), in_memory(rows, names))


@pytest.mark.parametrize("aggregate", ["mean", None])
def test_metric_options_as_in_memory(aggregate):
    rows = click_log(2, graded=True)
    names = ["ndcg@5", "dcg", "precision@3", "map"]
    options = dict(gain="linear", normalize="min")
    df = dd.from_pandas(rows, npartitions=4, sort=False)
    got = skrank.dask.evaluate(df, names, aggregate=aggregate, **options)
    if aggregate is None:
        got = got.compute()
        expected = per_query_frame(rows, names, **options)
        got = got.set_axis(got.index.astype(str)).loc[expected.index.astype(str)]
        np.testing.assert_allclose(got[names], expected[names], rtol=0, atol=1e-12)
    else:
        expected = in_memory(rows, names, **options)
        assert_close(got, expected)
        # the options change the numbers: the test can tell them apart
        assert got["ndcg@5"] != in_memory(rows, ["ndcg@5"])["ndcg@5"]


def test_metric_options_with_top_k_merge():
    rows = click_log(3, graded=True)
    names = ["ndcg@5", "precision@3"]
    df = dd.from_pandas(rows, npartitions=4, sort=False)
    got = skrank.dask.evaluate(df, names, top_k_merge=True, gain="linear",
                               normalize="min")
    assert_close(got, in_memory(rows, names, gain="linear", normalize="min"))


@pytest.mark.parametrize("options, match", [
    ({"compat": "lightgbm"}, "skrank.dask.evaluate does not take compat: a peer's preset"),
    ({"score_dtype": "float32"}, "does not take score_dtype"),
    ({"gain": "linear"}, "No requested metric takes the option 'gain'"),
    ({"colour": 1}, "No requested metric takes the option 'colour'"),
])
def test_refused_options_say_what_to_do(options, match):
    df = dd.from_pandas(click_log(4), npartitions=2)
    with pytest.raises(ValueError, match=match):
        skrank.dask.evaluate(df, ["map"], **options)


def test_categorical_ids_with_unknown_categories():
    rows = click_log(13, ids="cat")
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    df["qid"] = df["qid"].cat.as_unknown()
    assert_close(skrank.dask.evaluate(df, ["map"]), in_memory(rows, ["map"]))
    got = skrank.dask.evaluate(df, ["map"], aggregate=None).compute()
    expected = in_memory(rows, ["map"], aggregate=None)["map"]
    assert sorted(got.index.astype(str)) == sorted(expected.query_id.astype(str))
    np.testing.assert_allclose(got.loc[expected.query_id, "map"], expected.value,
                               atol=1e-12, rtol=0)


def test_per_query_frame_equals_in_memory_query_values():
    rows = click_log(2)
    rows["label"] = (rows["label"] > 0).astype(int)
    names = ["ndcg@3", "map", "gauc", "fap@2"]
    df = dd.from_pandas(rows, npartitions=6, sort=False)
    frame = skrank.dask.evaluate(df, names, sample_weight="w", aggregate=None)
    assert isinstance(frame, dd.DataFrame)
    assert list(frame.columns) == names + ["weight", "gauc_weight"]
    got = frame.compute()
    assert got.index.name == "qid" and got.index.is_unique
    expected = in_memory(rows, names, "w", aggregate=None)
    got = got.loc[expected["map"].query_id]
    for name in names:
        np.testing.assert_allclose(got[name], expected[name].value, atol=1e-12,
                                   rtol=0)
    np.testing.assert_allclose(got["weight"], expected["map"].weight, rtol=1e-14)
    np.testing.assert_allclose(got["gauc_weight"], expected["gauc"].weight,
                               rtol=1e-14)
    # the mean of the per-query frame is the mean the reduction gives
    keep = got["map"].notna()
    mean = np.average(got["map"][keep], weights=got["weight"][keep])
    assert mean == pytest.approx(skrank.dask.evaluate(df, "map", sample_weight="w")
                                 ["map"], abs=1e-12)


def test_frame_partitioned_by_query_is_not_shuffled(monkeypatch):
    rows = click_log(3)
    indexed = dd.from_pandas(rows, npartitions=4, sort=False).set_index("qid")
    assert indexed.known_divisions
    expected = in_memory(rows, ["ndcg@3", "map"])

    def no_shuffle(*args, **kwargs):
        raise AssertionError("shuffled a frame already partitioned by query")

    monkeypatch.setattr(dd.DataFrame, "shuffle", no_shuffle)
    assert_close(skrank.dask.evaluate(indexed, ["ndcg@3", "map"]), expected)
    per_query = skrank.dask.evaluate(indexed, ["map"], aggregate=None)
    assert per_query.divisions == indexed.divisions  # still sorted by query
    # a column, partitioned by the caller's promise
    by_query = dd.from_pandas(rows.sort_values("qid"), npartitions=1)
    assert_close(skrank.dask.evaluate(by_query, ["ndcg@3", "map"],
                                      partitioned_by_query=True), expected)
    with pytest.raises(AssertionError, match="already partitioned"):
        skrank.dask.evaluate(by_query, ["map"])  # "auto" can't know: shuffles


def test_ties_input_follows_the_frame_order_through_the_shuffle():
    rows = click_log(4)
    rows["score"] = 1.0  # every row tied: the order is all that matters
    df = dd.from_pandas(rows, npartitions=8, sort=False)
    names = ["ndcg@3", "mrr", "precision@2", "map"]
    assert_close(skrank.dask.evaluate(df, names, ties="input"),
                 in_memory(rows, names, ties="input"))


def test_no_relevant_error_raises_the_in_memory_error():
    rows = click_log(5)
    df = dd.from_pandas(rows, npartitions=5, sort=False)
    with pytest.raises(ValueError) as expected:
        in_memory(rows, ["map"], no_relevant="error")
    with pytest.raises(ValueError) as got:
        skrank.dask.evaluate(df, ["map"], no_relevant="error")
    assert str(got.value) == str(expected.value)
    # gauc leaves single-class queries out whatever no_relevant says
    rows["label"] = (rows["label"] > 0).astype(int)
    df = dd.from_pandas(rows, npartitions=5, sort=False)
    assert_close(skrank.dask.evaluate(df, ["gauc"], no_relevant="error"),
                 in_memory(rows, ["gauc"], no_relevant="error"))


def test_nothing_left_warns_and_returns_nan_as_in_memory():
    rows = click_log(6)
    rows["label"] = 0
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.warns(UndefinedMetricWarning, match="No query is left"):
        got = skrank.dask.evaluate(df, ["map", "ndcg@2"])
    assert np.isnan(got["map"]) and np.isnan(got["ndcg@2"])
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(in_memory(rows, ["map"])["map"])


def test_more_partitions_than_queries():
    rows = click_log(7, n_rows=30, n_queries=3)
    df = dd.from_pandas(rows, npartitions=10, sort=False)
    names = ["ndcg@3", "map", "mrr"]
    assert_close(skrank.dask.evaluate(df, names), in_memory(rows, names))
    assert len(skrank.dask.evaluate(df, names, aggregate=None).compute()) == 3


def test_query_id_as_unsorted_index_and_other_column_names():
    rows = click_log(8).rename(columns={"qid": "user", "label": "click", "score": "s"})
    df = dd.from_pandas(rows.set_index("user"), npartitions=4, sort=False)
    assert not df.known_divisions
    got = skrank.dask.evaluate(df, ["map", "mrr@2"], y_true="click", y_score="s",
                               query_id="user")
    expected = skrank.evaluate(rows["click"], rows["s"], query_id=rows["user"],
                               metrics=["map", "mrr@2"])
    assert_close(got, expected)


# drawn scores may be only 0 and 1: the label-score warning is expected here
@pytest.mark.filterwarnings("ignore:`y_score` holds only the values 0 and 1")
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), npartitions=st.integers(1, 9),
       n_rows=st.integers(1, 60))
def test_property_any_partitioning_gives_the_in_memory_numbers(seed, npartitions,
                                                               n_rows):
    rows = click_log(seed, n_rows=n_rows, n_queries=8)
    rows["label"] = (rows["label"] > 0).astype(int)
    df = dd.from_pandas(rows, npartitions=min(npartitions, n_rows), sort=False)
    names = ["ndcg@2", "map", "gauc", "fap@3", "hit_rate@1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = skrank.dask.evaluate(df, names, sample_weight="w")
        expected = in_memory(rows, names, "w")
    for name in names:
        assert np.isnan(got[name]) == np.isnan(expected[name])
        if not np.isnan(expected[name]):
            assert abs(got[name] - expected[name]) <= 1e-12


def test_compare_accepts_two_per_query_frames():
    rows = click_log(9)
    rng = np.random.default_rng(9)
    rows["other"] = rows["score"] + rng.normal(0, 0.5, len(rows))
    df = dd.from_pandas(rows, npartitions=5, sort=False)
    names = ["ndcg@3", "map"]
    a = skrank.dask.evaluate(df, names, aggregate=None)
    b = skrank.dask.evaluate(df, names, y_score="other", aggregate=None)
    got = compare(None, {"model": a, "other": b}, metrics=names, random_state=0)
    expected = compare(rows["label"], {"model": rows["score"], "other": rows["other"]},
                       query_id=rows["qid"], metrics=names, random_state=0)
    assert got.tests.columns == expected.tests.columns
    for row_got, row_expected in zip(got.tests.rows, expected.tests.rows):
        assert row_got[:3] == row_expected[:3]
        np.testing.assert_allclose(row_got[3:], row_expected[3:], atol=1e-12, rtol=0)
    np.testing.assert_array_equal(got.per_query["map"]["model"].query_id,
                                  expected.per_query["map"]["model"].query_id)


def test_compare_frames_errors():
    rows = click_log(10)
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    a = skrank.dask.evaluate(df, ["map"], aggregate=None)
    fewer = skrank.dask.evaluate(df[df["qid"] != "user-001"], ["map"], aggregate=None)
    with pytest.raises(ValueError, match="different queries"):
        compare(None, {"a": a, "b": fewer}, metrics=["map"])
    with pytest.raises(ValueError, match="no column 'ndcg@10'"):
        compare(None, {"a": a, "b": a}, metrics=["ndcg@10"])
    with pytest.raises(ValueError, match="y_true=None"):
        compare(rows["label"], {"a": a, "b": a}, metrics=["map"])
    with pytest.raises(ValueError, match="a frame for every system"):
        compare(None, {"a": a, "b": rows["score"]}, metrics=["map"])


@pytest.mark.parametrize("kwargs, match", [
    ({"y_true": "nope"}, "`y_true` must name a column"),
    ({"y_score": "label2"}, "`y_score` must name a column"),
    ({"query_id": "q"}, "`query_id` must name a column of `df` or the index"),
    ({"sample_weight": "weights"}, "`sample_weight` must name a column"),
    ({"ties": "random"}, "ties"),
    ({"no_relevant": "drop"}, "no_relevant"),
    ({"aggregate": "sum"}, "aggregate"),
    ({"partitioned_by_query": "yes"}, "partitioned_by_query"),
    ({"metrics": []}, "`metrics` is empty"),
    ({"metrics": ["ndgc@10"]}, "Unknown metric name"),
])
def test_bad_arguments_raise_value_errors_naming_them(kwargs, match):
    df = dd.from_pandas(click_log(11), npartitions=2)
    with pytest.raises(ValueError, match=match):
        skrank.dask.evaluate(df, **kwargs)


def test_bad_data_raises_the_in_memory_error_and_empty_frame():
    rows = click_log(12)
    rows.loc[3, "score"] = np.nan
    with pytest.raises(ValueError, match="y_score"):
        skrank.dask.evaluate(dd.from_pandas(rows, npartitions=3), ["map"])
    with pytest.raises(ValueError, match="dask.dataframe.DataFrame"):
        skrank.dask.evaluate(rows, ["map"])
    empty = dd.from_pandas(click_log(12).iloc[:0], npartitions=1)
    with pytest.raises(ValueError, match="no rows"):
        skrank.dask.evaluate(empty, ["map"])


def test_without_dask_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[dask\]"'):
        skrank.dask.evaluate(None)


def test_import_skrank_does_not_import_dask():
    code = ("import sys, skrank; skrank.dask.evaluate; "
            "assert 'dask' not in sys.modules and 'distributed' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_refused_row_is_named_by_the_frame_not_by_its_partition():
    """"row 58" named a row inside a shuffled partition (issue 34, B10).

    The frame's own index value (and query id) names the row; with the ids
    on the index, the query names it. Never a position inside a partition.
    """
    rows = click_log(13, n_rows=100, n_queries=10)
    rows.index = [f"r{i}" for i in range(rows.shape[0])]  # not positions
    query = rows["qid"].iloc[5]
    rows.iloc[5, rows.columns.get_loc("score")] = np.nan
    df = dd.from_pandas(rows, npartitions=4, sort=False)
    where = f"at index 'r5' of `df`, query {query!r}"
    with pytest.raises(ValueError, match=f"`y_score` contains NaN.*{where}") as got:
        skrank.dask.evaluate(df, ["map"])
    assert re.search(r"row \d", str(got.value)) is None
    with pytest.raises(ValueError, match=where):  # per-query values too
        skrank.dask.evaluate(df, ["map"], aggregate=None).compute()
    with pytest.raises(ValueError, match=where):  # and the merge of accumulators
        skrank.dask.evaluate(df, ["map@3"], top_k_merge=True)
    with pytest.raises(ValueError, match=f"at a row of query {query!r}"):
        skrank.dask.evaluate(dd.from_pandas(rows.set_index("qid"), npartitions=4),
                             ["map"], query_id="qid")
    # a bad grade, and a missing query id, the same way
    rows = click_log(13, n_rows=100, n_queries=10)
    rows.loc[7, "label"] = -1
    with pytest.raises(ValueError, match=r"got -1 at index 7 of `df`, query "):
        skrank.dask.evaluate(dd.from_pandas(rows, npartitions=4, sort=False), ["map"])
    rows = click_log(13, n_rows=100, n_queries=10)
    rows["qid"] = rows["qid"].astype(object)
    rows.loc[9, "qid"] = None
    with dask.config.set({"dataframe.convert-string": False}):
        df = dd.from_pandas(rows, npartitions=4, sort=False)
        with pytest.raises(ValueError, match=r"missing.*at index 9 of `df`:"):
            skrank.dask.evaluate(df, ["map"])


@pytest.mark.parametrize("ids, index, where", [
    # pandas' str dtype for the ids, a DatetimeIndex for the rows
    (pd.Series(["q0", "q0", "q1", "q1", "q2", "q2"], dtype="str"),
     pd.date_range("2024-01-01", periods=6, name="day"),
     "at index Timestamp('2024-01-04 00:00:00') of `df`, query 'q1'"),
    # nullable integers, a string index
    (pd.Series([7, 7, 8, 8, 9, 9], dtype="Int64"),
     pd.Index(["a", "b", "c", "d", "e", "f"]),
     "at index 'd' of `df`, query 8"),
    # categorical ids (categories other than the values' order), float index
    (pd.Series(pd.Categorical(["x", "x", "y", "y", "z", "z"],
                              categories=["z", "y", "x"])),
     pd.Index([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]),
     "at index 3.5 of `df`, query 'y'"),
])
def test_a_refused_row_is_named_whatever_the_dtypes(ids, index, where):
    """Only the refused row's id and index value become Python objects now.

    The names must read as a conversion of the whole columns named them:
    the row at position 3 (its score is nan) of each frame.
    """
    rows = pd.DataFrame({
        "qid": ids.to_numpy(), "label": [1, 0, 1, 0, 1, 0],
        "score": [0.9, 0.1, 0.8, np.nan, 0.7, 0.3],
    }, index=index)
    rows["qid"] = rows["qid"].astype(ids.dtype)
    df = dd.from_pandas(rows, npartitions=2, sort=False)
    with pytest.raises(ValueError, match=re.escape(where)):
        skrank.dask.evaluate(df, ["map"])
