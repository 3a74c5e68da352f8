"""skrank.dask.expected_exposure equals the in-memory function on the same rows."""

import numpy as np
import pandas as pd
import pytest

import dask.dataframe as dd
from distributed import Client, LocalCluster

import skrank.dask
from skrank.fairness import expected_exposure


def _rows(seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, size=n_queries)
    qid = np.repeat([f"q{i}" for i in range(n_queries)], sizes)
    label = rng.integers(0, 3, size=qid.shape[0])
    score = np.round(rng.random(qid.shape[0]), 1)  # ties
    weight = rng.uniform(0.5, 2, size=qid.shape[0])
    order = rng.permutation(qid.shape[0])  # queries scattered over partitions
    return pd.DataFrame({"qid": qid, "label": label, "score": score,
                         "w": weight}).iloc[order].reset_index(drop=True)


@pytest.mark.parametrize("options", [
    {}, {"complete": True, "user_model": "rbp", "patience": 0.8},
    {"ties": "input", "utility": 0.9},
])
def test_equals_in_memory(options):
    rows = _rows()
    got = skrank.dask.expected_exposure(dd.from_pandas(rows, npartitions=4), **options)
    expected = expected_exposure(rows["label"], rows["score"], query_id=rows["qid"],
                                 **options)
    assert got == pytest.approx(expected, rel=1e-12)


def test_weights_index_ids_and_a_local_cluster():
    rows = _rows(1)
    expected = expected_exposure(rows["label"], rows["score"], query_id=rows["qid"],
                                 sample_weight=rows["w"])
    df = dd.from_pandas(rows.set_index("qid").sort_index(), npartitions=3)
    with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster):
        got = skrank.dask.expected_exposure(df, sample_weight="w")
    assert got == pytest.approx(expected, rel=1e-12)


def test_bad_input_names_the_argument():
    df = dd.from_pandas(_rows(), npartitions=2)
    with pytest.raises(ValueError, match="`patience`"):
        skrank.dask.expected_exposure(df, patience=1.0)
    with pytest.raises(ValueError, match="`y_score`"):
        skrank.dask.expected_exposure(df, y_score="nope")
    with pytest.raises(ValueError, match="`df`"):
        skrank.dask.expected_exposure(_rows())
