"""skrank.dask.evaluate_by equals the in-memory skrank.evaluate_by on the same rows.

The expected results are skrank.evaluate_by's on the computed frame (its
own tests check it against skrank.evaluate and independent bootstraps):
the same values, bit for bit, and for the same random_state the same
resamples, so the same intervals. On a LocalCluster
of worker processes, like test_distributed.py.
"""

import dask.dataframe as dd
import numpy as np
import pytest
from distributed import Client, LocalCluster

import skrank
import skrank.dask

from .test_evaluate import click_log

NAMES = ["ndcg@5", "map", "mrr", "gauc"]


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


def segmented_log(seed, **kwargs):
    rows = click_log(seed, **kwargs)
    rows["label"] = (rows["label"] > 0).astype(int)  # gauc takes 0/1 labels
    codes = rows["qid"].astype(str).str[-1].map(ord)
    rows["device"] = np.array(["desktop", "mobile", "tablet"])[codes % 3]
    rows["freq"] = np.where(codes % 2 == 0, "head", "tail")
    return rows


def in_memory(rows, by, **options):
    return skrank.evaluate_by(
        rows["label"], rows["score"], by=rows[by], query_id=rows["qid"],
        metrics=NAMES, **options,
    )


def assert_same(got, expected):
    # the same bits: a query's per-query values depend on its own rows only
    # (not on their order or the queries beside them on a partition), and
    # the same random_state draws the same resamples
    assert got.segments == expected.segments
    assert got.metrics == expected.metrics
    assert got.overall == expected.overall
    assert got.overall_ci == expected.overall_ci
    for name in ("value", "ci_low", "ci_high"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name),
                                      err_msg=name)
    np.testing.assert_array_equal(got.n_queries, expected.n_queries)
    np.testing.assert_array_equal(got.n_rows, expected.n_rows)
    np.testing.assert_array_equal(got.notes, expected.notes)


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_on_a_cluster_equals_in_memory(client, method):
    rows = segmented_log(30, n_rows=3000, n_queries=250)
    df = dd.from_pandas(rows, npartitions=8, sort=False)
    got = skrank.dask.evaluate_by(df, NAMES, by=["device", "freq"], sample_weight="w",
                                  method=method, random_state=4)
    expected = in_memory(rows, ["device", "freq"], sample_weight=rows["w"],
                         method=method, random_state=4)
    assert_same(got, expected)
    assert not np.isnan(got.ci_low).any()
    dask_overall = skrank.dask.evaluate(df, NAMES, sample_weight="w")
    for m in NAMES:
        assert got.overall[m] == pytest.approx(dask_overall[m], abs=1e-12)


def test_int_ids_on_the_index_and_differences(client):
    rows = segmented_log(31, n_rows=2000, n_queries=150, ids="int")
    df = dd.from_pandas(rows.set_index("qid"), npartitions=5)
    got = skrank.dask.evaluate_by(df, NAMES, by="device", random_state=1)
    expected = in_memory(rows, "device", random_state=1)
    assert_same(got, expected)
    a = got.difference(baseline="mobile").to_frame()
    b = expected.difference(baseline="mobile").to_frame()
    np.testing.assert_array_equal(a[["value", "ci_low", "ci_high"]],
                                  b[["value", "ci_low", "ci_high"]])


def test_metric_options_as_in_memory(client):
    rows = segmented_log(33, n_rows=1500, n_queries=120, graded=True)
    rows["label"] = click_log(33, n_rows=1500, n_queries=120, graded=True)["label"]
    names = ["ndcg@5", "dcg@3", "precision@4"]
    df = dd.from_pandas(rows, npartitions=4, sort=False)
    got = skrank.dask.evaluate_by(df, names, by="device", random_state=2,
                                  gain="linear", normalize="min")
    expected = skrank.evaluate_by(
        rows["label"], rows["score"], by=rows["device"], query_id=rows["qid"],
        metrics=names, random_state=2, gain="linear", normalize="min")
    assert_same(got, expected)
    with pytest.raises(ValueError, match="skrank.dask.evaluate_by does not take compat"):
        skrank.dask.evaluate_by(df, names, by="device", compat="lightgbm")


def test_by_varying_within_a_query_and_bad_arguments(client):
    rows = segmented_log(32, n_rows=600, n_queries=50)
    first = rows["qid"].sort_values().iloc[0]
    rows.loc[rows.index[(rows["qid"] == first).to_numpy()][0], "device"] = "watch"
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.raises(ValueError, match=f"query_id '{first}'.*'watch'"):
        skrank.dask.evaluate_by(df, ["map"], by="device")
    with pytest.raises(ValueError, match="`by` must name a column"):
        skrank.dask.evaluate_by(df, ["map"], by="browser")
    with pytest.raises(ValueError, match="`method` must be one of"):
        skrank.dask.evaluate_by(df, ["map"], by="device", method="normal")
    with pytest.raises(ValueError, match="skrank.evaluate_by"):
        skrank.dask.evaluate_by(rows, ["map"], by="device")
