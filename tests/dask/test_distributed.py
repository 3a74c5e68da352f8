"""On the distributed scheduler: a LocalCluster of 2 worker processes.

One cluster for the module (starting one takes seconds). The expected
values are the in-memory skrank.evaluate's and the default joblib
backend's.
"""

import joblib
import numpy as np
import pytest
import sklearn
from distributed import Client, LocalCluster, get_task_stream
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold

import dask.dataframe as dd
import skrank
import skrank.clicks
import skrank.dask
from skrank import compare

from .test_evaluate import assert_close, click_log, in_memory


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


def test_many_partitions_ties_string_ids_equal_in_memory(client):
    rows = click_log(20, n_rows=3000, n_queries=250)
    rows["label"] = (rows["label"] > 0).astype(int)
    df = dd.from_pandas(rows, npartitions=12, sort=False)
    names = ["ndcg@10", "ndcg", "map", "mrr", "precision@5", "recall@10", "f1@3",
             "fap@5", "fap", "hit_rate@3", "r_precision", "gauc", "bpref", "rbp@10"]
    got = skrank.dask.evaluate(df, names, sample_weight="w")
    assert_close(got, in_memory(rows, names, "w"))
    per_query = skrank.dask.evaluate(df, names, aggregate=None).compute()
    expected = in_memory(rows, names, aggregate=None)
    per_query = per_query.loc[expected["map"].query_id]
    for name in names:
        np.testing.assert_allclose(per_query[name], expected[name].value, atol=1e-12,
                                   rtol=0)


def test_ties_input_on_the_cluster(client):
    rows = click_log(21, n_rows=2000, n_queries=100)
    df = dd.from_pandas(rows, npartitions=10, sort=False)
    names = ["ndcg@5", "map", "mrr"]
    assert_close(skrank.dask.evaluate(df, names, ties="input"),
                 in_memory(rows, names, ties="input"))


def test_compare_two_per_query_frames_from_the_cluster(client):
    rows = click_log(22, n_rows=1500, n_queries=120)
    df = dd.from_pandas(rows, npartitions=6, sort=False)
    df["worse"] = df["score"] * -1.0
    a = skrank.dask.evaluate(df, ["map"], aggregate=None)
    b = skrank.dask.evaluate(df, ["map"], y_score="worse", aggregate=None)
    result = compare(None, {"a": a, "b": b}, metrics=["map"], random_state=0)
    expected = compare(rows["label"], {"a": rows["score"], "b": -rows["score"]},
                       query_id=rows["qid"], metrics=["map"], random_state=0)
    np.testing.assert_allclose(result.tests.column("difference"),
                               expected.tests.column("difference"), atol=1e-12)
    assert result.tests.column("n_queries") == expected.tests.column("n_queries")


def test_grid_search_with_routed_query_ids_on_the_dask_joblib_backend(client):
    data = skrank.load_digits_retrieval(n_queries=30, n_candidates=15)
    X, y, qid = data.data, data.target, data.query_id
    scoring = {"ndcg@10": skrank.get_scorer("ndcg@10"), "map": skrank.get_scorer("map")}

    def search():
        return GridSearchCV(
            LogisticRegression(max_iter=500), {"C": [0.01, 1.0]}, scoring=scoring,
            refit="ndcg@10", cv=GroupKFold(3), n_jobs=2, error_score="raise",
        )

    with sklearn.config_context(enable_metadata_routing=True):
        expected = search().fit(X, y, query_id=qid, groups=qid)
        with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
            got = search().fit(X, y, query_id=qid, groups=qid)
    assert stream.data, "no task ran on the Dask cluster"
    for key in ("mean_test_ndcg@10", "mean_test_map", "split0_test_map"):
        np.testing.assert_allclose(got.cv_results_[key], expected.cv_results_[key],
                                   rtol=0, atol=1e-12)
    assert got.best_params_ == expected.best_params_


def test_click_functions_on_the_cluster(client):
    from .test_clicks import (
        METRICS, assert_same_evaluation, click_log, in_memory_clicks,
    )
    from .test_position_bias import assert_same_bias, harvest_log, in_memory_bias

    rows = click_log(30)
    df = dd.from_pandas(rows, npartitions=8, sort=False)
    bias = skrank.clicks.PositionBias(1.0 / np.arange(1, 9))  # pickled to workers
    for propensity, given in ((bias, bias), (lambda k: k ** -0.5, lambda k: k ** -0.5)):
        got = skrank.dask.evaluate_clicks(df, METRICS, propensity=propensity, clip=0.3)
        assert_same_evaluation(got, in_memory_clicks(rows, propensity=given,
                                                     metrics=METRICS, clip=0.3))
    rows = harvest_log(31, ids="int")
    df = dd.from_pandas(rows, npartitions=8, sort=False)
    for method in ("randomized", "harvest"):
        got = skrank.dask.estimate_position_bias(
            df, list_id="list", query_id="qid", doc_id="doc_id", method=method,
            n_resamples=30, random_state=0)
        assert_same_bias(got, in_memory_bias(rows, method=method, n_resamples=30,
                                             random_state=0))
    bad = rows.copy()
    bad.loc[11, "position"] = 0
    with pytest.raises(ValueError, match="`position` must be 1 or more"):
        skrank.dask.estimate_position_bias(dd.from_pandas(bad, npartitions=4),
                                           list_id="list", query_id="qid",
                                           doc_id="doc_id", method="harvest")
