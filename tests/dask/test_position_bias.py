"""skrank.dask.estimate_position_bias equals the in-memory estimate_position_bias.

The expected values are skrank.clicks.estimate_position_bias's on the
computed rows (the in-memory estimator has its own hand-worked and
simulated tests); these check that the partitions, the shuffle by query and
the reduction of sufficient statistics change nothing (the bootstrap
interval too), and that bad input raises the in-memory errors. Dask's
synchronous scheduler here; a LocalCluster in test_distributed.py.
"""

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import skrank.clicks
import skrank.dask


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="sync"):
        yield


def harvest_log(seed, n_queries=60, ids="str", n_sessions=6):
    """Each query's 6 documents shown in random orders over sessions: pairs move."""
    rng = np.random.default_rng(seed)
    theta = 1.0 / np.arange(1, 7)
    frames = []
    for query in range(n_queries):
        gamma = rng.uniform(0.1, 0.9, 6)
        for _ in range(n_sessions):
            order = rng.permutation(6)
            frames.append(pd.DataFrame({
                "query": query, "session": len(frames),
                "doc": order, "position": np.arange(1, 7),
                "click": (rng.random(6) < theta * gamma[order]).astype(int),
            }))
    rows = pd.concat(frames, ignore_index=True).sample(frac=1.0, random_state=seed)
    rows = rows.reset_index(drop=True)
    rows["qid"] = (rows["query"].map(lambda n: f"q{n:03d}").astype(object)
                   if ids == "str" else rows["query"] * 5 + 2)
    rows["doc_id"] = rows["doc"].map(lambda n: f"d{n}").astype(object)
    rows["list"] = rows["session"] * 3 + 1  # the displayed list
    return rows


def in_memory_bias(rows, **options):
    return skrank.clicks.estimate_position_bias(
        rows["click"], rows["position"], list_id=rows["list"], query_id=rows["qid"],
        doc_id=rows["doc_id"], **options)


def assert_same_bias(got, expected):
    np.testing.assert_allclose(got.propensity, expected.propensity, rtol=0,
                               atol=1e-12)
    np.testing.assert_array_equal(got.n_impressions, expected.n_impressions)
    np.testing.assert_array_equal(got.n_clicks, expected.n_clicks)
    if expected.interval is None:
        assert got.interval is None
    else:
        np.testing.assert_allclose(got.interval, expected.interval, rtol=0, atol=1e-12)
    assert got.method == expected.method


@pytest.mark.parametrize("method", ["randomized", "harvest"])
@pytest.mark.parametrize("ids", ["str", "int"])
def test_estimate_position_bias_equals_in_memory(method, ids):
    rows = harvest_log(5, ids=ids)
    df = dd.from_pandas(rows, npartitions=6, sort=False)
    for options in ({"n_resamples": 0}, {"n_resamples": 40, "random_state": 3},
                    {"n_resamples": 30, "random_state": 4, "max_position": 4}):
        got = skrank.dask.estimate_position_bias(df, list_id="list", query_id="qid",
                                                 doc_id="doc_id", method=method,
                                                 **options)
        assert_same_bias(got, in_memory_bias(rows, method=method, **options))


def test_estimate_position_bias_refusals():
    rows = harvest_log(6, n_queries=10)
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.raises(ValueError, match="method='em' runs in memory only"):
        skrank.dask.estimate_position_bias(df, list_id="list", query_id="qid",
                                           doc_id="doc_id", method="em")
    with pytest.raises(ValueError, match="method='conditional' runs in memory only"):
        skrank.dask.estimate_position_bias(df, list_id="list", query_id="qid",
                                           doc_id="doc_id", method="conditional")
    with pytest.raises(ValueError, match="`doc_id` is required for method='harvest'"):
        skrank.dask.estimate_position_bias(df, list_id="list", query_id="qid",
                                           method="harvest")
    with pytest.raises(ValueError, match="`n_resamples` must be a non-negative"):
        skrank.dask.estimate_position_bias(df, list_id="list", query_id="qid",
                                           method="randomized", n_resamples=-1)
    bad = rows.copy()
    bad.loc[7, "click"] = 2
    with pytest.raises(ValueError, match="`click` must be 0 or 1"):
        skrank.dask.estimate_position_bias(dd.from_pandas(bad, npartitions=3),
                                           list_id="list", method="randomized")
    # a position without a click: the in-memory error, naming it
    deep = rows.copy()
    deep.loc[0, "position"] = 9
    deep.loc[0, "click"] = 0
    with pytest.raises(ValueError, match="Position 7 has no evidence") as memory:
        in_memory_bias(deep, method="randomized", n_resamples=0)
    with pytest.raises(ValueError, match="Position 7 has no evidence") as cluster:
        skrank.dask.estimate_position_bias(dd.from_pandas(deep, npartitions=3),
                                           list_id="list", method="randomized")
    assert str(memory.value) == str(cluster.value)


@pytest.mark.parametrize("method", ["randomized", "harvest"])
def test_the_bootstrap_draws_the_queries_in_memory_draws(method):
    # queries with no row above max_position are not drawn, whether their ids
    # sort first or last; a query with rows but no pair of positions is
    rows = harvest_log(8, n_queries=30)
    extra = pd.DataFrame({
        "query": 99, "doc": [0, 1, 0, 1, 0], "position": [7, 8, 7, 8, 2],
        "list": [-1, -1, -2, -2, -3],
        "click": [1, 0, 1, 0, 0], "doc_id": ["d0", "d1", "d0", "d1", "d0"],
        "qid": ["q-deep", "q-deep", "z-deep", "z-deep", "q-single"],
    })
    rows = pd.concat([rows, extra], ignore_index=True)
    rows = rows.sample(frac=1.0, random_state=0).reset_index(drop=True)
    rows["qid"] = rows["qid"].astype(object)
    df = dd.from_pandas(rows, npartitions=4, sort=False)
    options = {"n_resamples": 25, "random_state": 2, "max_position": 5}
    got = skrank.dask.estimate_position_bias(df, list_id="list", query_id="qid",
                                                 doc_id="doc_id", method=method,
                                             **options)
    assert_same_bias(got, in_memory_bias(rows, method=method, **options))


@pytest.mark.parametrize("method", ["randomized", "harvest"])
@pytest.mark.parametrize("n_resamples", [0, 20])
def test_a_partition_with_rows_only_below_max_position(method, n_resamples):
    # whole queries per partition; the last holds only second pages (positions
    # 5 and 6 of queries of their own), which max_position=4 leaves out (was
    # numpy's "need at least one array to concatenate"); an empty one too
    rows = harvest_log(9, n_queries=20)
    second = rows[rows["position"] <= 2].copy()
    second["position"] += 4
    second["qid"] = ("page2-" + second["qid"]).astype(object)
    second["list"] += 10_000
    first_half = rows["query"] < 10
    parts = [rows[first_half], rows[~first_half], rows.iloc[:0], second]
    df = dd.concat([dd.from_pandas(part, npartitions=1, sort=False) for part in parts])
    assert df.npartitions == 4
    options = {"max_position": 4, "n_resamples": n_resamples, "random_state": 1}
    got = skrank.dask.estimate_position_bias(
        df, list_id="list", query_id="qid", doc_id="doc_id", method=method,
        partitioned_by_query=True, **options)
    every = pd.concat(parts, ignore_index=True)
    assert_same_bias(got, in_memory_bias(every, method=method, **options))


def test_ids_on_the_index_and_a_log_partitioned_by_query():
    rows = harvest_log(10, n_queries=30, ids="int")
    expected = {method: in_memory_bias(rows, method=method, n_resamples=20,
                                       random_state=2)
                for method in ("randomized", "harvest")}
    by_query = dd.from_pandas(rows.set_index("qid").sort_index(), npartitions=4)
    assert by_query.known_divisions
    by_list = dd.from_pandas(rows.set_index("list"), npartitions=5, sort=False)
    # the query ids on an index without divisions: kept through a shuffle by list
    unsorted = dd.from_pandas(rows.set_index("qid"), npartitions=4, sort=False)
    for method, bias in expected.items():
        got = skrank.dask.estimate_position_bias(
            unsorted, list_id="list", query_id="qid", doc_id="doc_id",
            method=method, n_resamples=20, random_state=2)
        assert_same_bias(got, bias)
        got = skrank.dask.estimate_position_bias(
            by_query, list_id="list", query_id="qid", doc_id="doc_id",
            method=method, n_resamples=20, random_state=2)
        assert_same_bias(got, bias)
        got = skrank.dask.estimate_position_bias(
            by_list, list_id="list", query_id="qid", doc_id="doc_id",
            method=method, n_resamples=20, random_state=2)
        assert_same_bias(got, bias)


def test_list_id_is_required_and_checked():
    rows = harvest_log(11, n_queries=10)
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.raises(TypeError, match="list_id"):
        skrank.dask.estimate_position_bias(df, method="randomized")
    with pytest.raises(ValueError, match="`list_id` must name a column"):
        skrank.dask.estimate_position_bias(df, list_id="nope", method="randomized")
    # the query as the list: a query's sessions put two rows at one position
    with pytest.raises(ValueError, match="Two rows of one list.*same `list_id`"):
        skrank.dask.estimate_position_bias(df, list_id="qid", method="randomized")


def test_one_query_is_refused_with_the_in_memory_error():
    rows = harvest_log(12, n_queries=10)
    rows["one"] = "q"
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.raises(ValueError, match="resamples queries.*1 query.*zero width"):
        skrank.dask.estimate_position_bias(df, list_id="list", query_id="one",
                                           method="randomized", n_resamples=10)


@pytest.mark.parametrize("method", ["randomized", "harvest"])
def test_a_far_position_is_a_clear_error_not_terabytes(method):
    # one row at position 2**40 asked the partition for tables of 2**40
    # positions (a MemoryError); max_position leaves it out
    rows = pd.DataFrame({"list": [0, 0, 1, 1, 2, 2], "qid": [0, 0, 0, 0, 1, 1],
                         "doc": [0, 1, 1, 0, 0, 1], "click": [1, 1, 1, 0, 1, 0],
                         "position": [1, 2, 1, 2, 1, 2**40]})
    df = dd.from_pandas(rows, npartitions=2)
    ids = dict(list_id="list", query_id="qid", doc_id="doc", method=method)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match=r"`position` 1099511627776 at index 5 "
                                             r"of `df`.*pass `max_position`"):
            skrank.dask.estimate_position_bias(df, **ids)
        near = skrank.dask.estimate_position_bias(df, max_position=2, **ids)
    kept = rows[rows["position"] <= 2]
    expected = skrank.clicks.estimate_position_bias(
        kept["click"], kept["position"], list_id=kept["list"], query_id=kept["qid"],
        doc_id=kept["doc"], method=method, n_resamples=0)
    np.testing.assert_allclose(near.propensity, expected.propensity, rtol=1e-12)
