"""skrank.dask.evaluate(top_k_merge=True): per-partition accumulators, no shuffle.

Expected values: skrank.evaluate on the same rows and the shuffle path of
skrank.dask.evaluate (both checked elsewhere); here the rows of every query
are spread over many partitions, and the shuffle is forbidden.
"""

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import skrank
import skrank.dask
from skrank.dask._accumulate import only_top_k
from skrank.metrics._accumulator import TOP_K_STEMS

TOP_K = [f"{stem}@{k}" for stem in sorted(TOP_K_STEMS) for k in (1, 3)]


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="sync"):
        yield


def _rows(seed, n_rows=3000, n_queries=12, ids="int"):
    """Long queries (about 250 rows each) over every partition, tied scores."""
    rng = np.random.default_rng(seed)
    query = rng.integers(0, n_queries, n_rows)
    return pd.DataFrame({
        "qid": query * 3 + 1 if ids == "int" else [f"q{q}" for q in query],
        "label": rng.integers(0, 4, n_rows) * (rng.random(n_rows) < 0.3),
        "score": rng.integers(0, 40, n_rows) / 8.0,
        "w": rng.uniform(0.1, 3.0, n_rows),
    })


def _forbid_shuffle(monkeypatch):
    def no_shuffle(*args, **kwargs):
        raise AssertionError("shuffled with top_k_merge=True")

    monkeypatch.setattr(dd.DataFrame, "shuffle", no_shuffle)


def _assert_close(got, expected):
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("npartitions", [1, 7, 30])
def test_no_shuffle_path_equals_the_shuffle_path(monkeypatch, ties, weight, npartitions):
    rows = _rows(npartitions)
    df = dd.from_pandas(rows, npartitions=npartitions, sort=False)
    shuffled = skrank.dask.evaluate(df, TOP_K, ties=ties, sample_weight=weight)
    expected = skrank.evaluate(
        rows["label"], rows["score"], query_id=rows["qid"], metrics=TOP_K,
        ties=ties, sample_weight=None if weight is None else rows[weight],
    )
    _forbid_shuffle(monkeypatch)
    merged = skrank.dask.evaluate(df, TOP_K, ties=ties, sample_weight=weight,
                                  top_k_merge=True)
    _assert_close(merged, shuffled)
    _assert_close(merged, expected)


def test_string_ids_and_no_relevant(monkeypatch):
    rows = _rows(5, ids="str")
    rows.loc[rows["qid"] == "q3", "label"] = 0
    df = dd.from_pandas(rows, npartitions=9, sort=False)
    for policy in ("skip", "zero", "one"):
        expected = skrank.dask.evaluate(df, ["map@2", "ndcg@4"], no_relevant=policy)
        with monkeypatch.context() as patch:
            _forbid_shuffle(patch)
            got = skrank.dask.evaluate(df, ["map@2", "ndcg@4"], no_relevant=policy,
                                       top_k_merge=True)
        _assert_close(got, expected)
    with pytest.raises(ValueError, match="no relevant row"):
        skrank.dask.evaluate(df, ["map@2"], no_relevant="error", top_k_merge=True)


def test_the_merged_state_keeps_the_top_rows_only():
    """Many long queries: what reaches the last merge is far fewer rows."""
    from skrank.dask._accumulate import merged_accumulator
    from skrank.metrics._plan import PartitionPlan

    rng = np.random.default_rng(0)
    n_rows = 200_000
    rows = pd.DataFrame({
        "qid": rng.integers(0, 20, n_rows), "label": rng.integers(0, 2, n_rows),
        "score": rng.random(n_rows),
    })
    df = dd.from_pandas(rows, npartitions=2, sort=False)
    plan = PartitionPlan(["precision@5"], "label", "score", "qid", None, "average",
                         "skip", False, False)
    accumulator = merged_accumulator(df, plan)
    # each partition (100,000 rows) compacts past 65,536 open rows
    assert accumulator._n_open() < n_rows / 2
    expected = skrank.evaluate(rows["label"], rows["score"], query_id=rows["qid"],
                               metrics=["precision@5"])
    _assert_close(accumulator.result(), expected)


def test_only_top_k_metrics_and_means():
    assert only_top_k(["ndcg@10", "precision@5"])
    assert not only_top_k(["ndcg@10", "map"])
    assert not only_top_k(["gauc"])
    df = dd.from_pandas(_rows(0), npartitions=2)
    with pytest.raises(ValueError, match="only the top k"):
        skrank.dask.evaluate(df, ["map"], top_k_merge=True)
    with pytest.raises(ValueError, match="aggregate='mean'"):
        skrank.dask.evaluate(df, ["map@3"], top_k_merge=True, aggregate=None)
    with pytest.raises(ValueError, match="`top_k_merge`"):
        skrank.dask.evaluate(df, ["map@3"], top_k_merge="yes")
    empty = dd.from_pandas(_rows(0).iloc[:0], npartitions=1)
    with pytest.raises(ValueError, match="no rows"):
        skrank.dask.evaluate(empty, ["map@3"], top_k_merge=True)
