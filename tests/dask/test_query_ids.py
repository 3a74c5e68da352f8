"""skrank.dask groups object query ids as skrank.evaluate does, or refuses them.

In memory, object ids are grouped by Python equality: ``3``, ``3.0``,
``np.int64(3)`` and ``True == 1`` are one query each, ``5`` and ``"5"`` two.
The expected query count comes from a Python ``set`` of the ids (equality,
independent of skrank); the expected values from the in-memory
:func:`skrank.evaluate`, which has its own brute-force tests.
"""

from fractions import Fraction

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

import skrank
import skrank.dask

NAMES = ["map", "ndcg@3", "mrr", "precision@2", "gauc"]
MIXED = [5, "5", 3, 3.0, np.int64(3), Fraction(6, 2), 1, True, 2.5, "2.5",
         ("a", 1), ("a", 1.0), b"x", "x", np.float32(0.5), 0.5]


def mixed_rows(seed, n_rows=600):
    rng = np.random.default_rng(seed)
    qid = np.empty(n_rows, dtype=object)
    qid[:] = [MIXED[i] for i in rng.integers(0, len(MIXED), n_rows)]
    return pd.DataFrame({
        "qid": qid, "label": rng.integers(0, 2, n_rows),
        "score": rng.integers(0, 4, n_rows) / 3.0,
    })


def object_frame(rows, npartitions):
    with dask.config.set({"dataframe.convert-string": False}):
        df = dd.from_pandas(rows, npartitions=npartitions, sort=False)
    assert df._meta["qid"].dtype == object
    return df


def check_equals_in_memory(df, rows, **options):
    expected = skrank.evaluate(rows["label"], rows["score"], query_id=rows["qid"],
                               metrics=NAMES, **options)
    got = skrank.dask.evaluate(df, NAMES, **options)
    for name in NAMES:
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=1e-12,
                                   err_msg=name)
    per_query = skrank.dask.evaluate(df, NAMES, aggregate=None, **options).compute()
    in_memory = skrank.evaluate(rows["label"], rows["score"], query_id=rows["qid"],
                                metrics=NAMES, aggregate=None, **options)
    n_queries = len(set(rows["qid"]))  # Python equality: 3 == 3.0, 5 != "5"
    assert per_query.shape[0] == n_queries
    for name in NAMES:
        by_id = dict(zip(in_memory[name].query_id, in_memory[name].value))
        assert len(by_id) == n_queries
        got_values = np.array([by_id[label] for label in per_query.index])
        np.testing.assert_allclose(per_query[name].to_numpy(), got_values,
                                   rtol=0, atol=1e-12, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
@pytest.mark.parametrize("ties", ["average", "input"])
def test_mixed_object_ids_group_as_in_memory(npartitions, ties):
    rows = mixed_rows(npartitions)
    with dask.config.set(scheduler="sync"):
        check_equals_in_memory(object_frame(rows, npartitions), rows, ties=ties)


def test_partition_key_is_shared_by_equal_ids():
    from skrank.dask._shuffle import partition_key

    for a, b in [(3, 3.0), (3, np.int64(3)), (3, Fraction(6, 2)), (1, True),
                 (0.5, np.float32(0.5)), (("a", 1), ("a", 1.0))]:
        assert a == b and partition_key(a) == partition_key(b)


@pytest.mark.parametrize("ids, message", [
    ([3, 3.0], "3 and 3.0, which skrank.evaluate counts as one query"),
    ([5, "5"], "5 and '5', which skrank.evaluate counts as two queries"),
    ([1, True], "1 and True, which skrank.evaluate counts as one query"),
])
@pytest.mark.parametrize("on_index", [False, True])
def test_ids_regrouped_by_string_conversion_are_refused(ids, message, on_index):
    qid = np.empty(6, dtype=object)
    qid[:] = ids * 3
    rows = pd.DataFrame({"qid": qid, "label": [1, 0, 0, 1, 1, 0],
                         "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    if on_index:
        rows = rows.set_index("qid")
    with dask.config.set({"dataframe.convert-string": True, "scheduler": "sync"}):
        df = dd.from_pandas(rows, npartitions=2, sort=False)
        with pytest.raises(ValueError, match="convert-string") as error:
            skrank.dask.evaluate(df[df["score"] > 0], ["map"])
    assert message in str(error.value)


def test_string_conversion_that_keeps_the_queries_is_accepted():
    rows = mixed_rows(5)
    rows["qid"] = rows["qid"].map(lambda value: 7 if value == 3 else 8)  # ints only
    rows["qid"] = rows["qid"].astype(object)
    with dask.config.set({"dataframe.convert-string": True, "scheduler": "sync"}):
        df = dd.from_pandas(rows, npartitions=3, sort=False)
        assert df._meta["qid"].dtype != object
        got = skrank.dask.evaluate(df, ["map"])
    expected = skrank.evaluate(rows["label"], rows["score"], query_id=rows["qid"],
                               metrics=["map"])
    assert got["map"] == pytest.approx(expected["map"], abs=1e-12)


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


def test_mixed_object_ids_on_a_cluster_of_processes(client):
    # worker processes salt string hashes differently: the key must not depend on it
    rows = mixed_rows(11, n_rows=2000)
    check_equals_in_memory(object_frame(rows, 8), rows)
