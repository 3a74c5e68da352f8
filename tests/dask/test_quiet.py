"""skrank.dask says nothing on a healthy call: Dask's chatter is silenced, for the call only.

Without the fix, each call on a distributed cluster in this process logged
distributed's "Shuffle ... initialized" lines and, when the rows started in
memory, warned "Sending large graph".
"""

import logging
import warnings

import numpy as np
import pandas as pd
import pytest

import dask
import dask.dataframe as dd
from distributed import Client, LocalCluster

import skrank
import skrank.dask
from skrank._core._quiet import SHUFFLE_LOGGER, quiet_dask


class Records(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


def click_log(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "qid": rng.integers(0, 200, n),
        "label": rng.integers(0, 2, n),
        "score": rng.normal(size=n),
    })


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        yield client


@pytest.fixture
def shuffle_log():
    logger = logging.getLogger(SHUFFLE_LOGGER)
    handler = Records()
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def _p2p_shuffle_logs(frame, records):
    """What a shuffle by Dask alone logs here (the fixture's logger is in use)."""
    frame.shuffle(on="qid").compute()
    return [r.getMessage() for r in records if "Shuffle" in r.getMessage()]


def test_evaluate_on_a_cluster_prints_no_warning_and_no_shuffle_log(client, shuffle_log):
    rows = click_log()
    frame = dd.from_pandas(rows, npartitions=4)
    # a graph of any size is "large" here, so the warning would be due
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1kB"}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            means = skrank.dask.evaluate(frame, ["map", "ndcg@5"])
            per_query = skrank.dask.evaluate(frame, ["map"], aggregate=None)
            result = skrank.compare(None, {"a": per_query, "b": per_query},
                                    metrics=["map"], n_resamples=20, random_state=0)
        assert [str(w.message) for w in caught] == []
        assert [r.getMessage() for r in shuffle_log] == []
        expected = skrank.evaluate(rows["label"], rows["score"], metrics=["map", "ndcg@5"],
                                   query_id=rows["qid"])
        assert means == pytest.approx(expected)
        assert "map" in repr(result)

        # the same graph run by Dask alone warns and logs: the test can fail
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            logs = _p2p_shuffle_logs(frame, shuffle_log)
        assert any("Sending large graph" in str(w.message) for w in caught)
        assert any("initialized" in message for message in logs)


def test_the_silence_ends_with_the_call():
    logger = logging.getLogger(SHUFFLE_LOGGER)
    logger.setLevel(logging.INFO)
    try:
        with quiet_dask():
            assert logger.level == logging.ERROR
            warnings.warn("Sending large graph of size 99 MiB.", UserWarning)  # silenced
        assert logger.level == logging.INFO
        with pytest.warns(UserWarning, match="Sending large graph"):
            warnings.warn("Sending large graph of size 99 MiB.", UserWarning)
    finally:
        logger.setLevel(logging.NOTSET)


def test_errors_are_not_silenced():
    with pytest.raises(ValueError, match="boom"), quiet_dask():
        raise ValueError("boom")


def test_a_worker_refusal_names_the_binary_only_metric(client):
    rows = click_log(200)
    rows.loc[7, "label"] = 2  # a graded label: fine for map, not for gauc
    frame = dd.from_pandas(rows, npartitions=3)
    with pytest.raises(ValueError, match=r"binary \(0/1\) for gauc, got values such as 2"):
        skrank.dask.evaluate(frame, ["map", "gauc"])
    per_query = skrank.dask.evaluate(frame, ["gauc"], aggregate=None)
    with pytest.raises(ValueError, match=r"binary \(0/1\) for gauc"):
        per_query.compute()


def test_per_query_frame_of_gauc_alone(client):
    # GAUC weighs a query by its rows: its frame has "gauc_weight", no "weight"
    rows = click_log(300)
    frame = skrank.dask.evaluate(dd.from_pandas(rows, npartitions=3), ["gauc"],
                                 aggregate=None).compute()
    assert list(frame.columns) == ["gauc", "gauc_weight"]
    expected = skrank.gauc_score(rows["label"], rows["score"], query_id=rows["qid"],
                                 aggregate=None)
    by_query = frame.sort_index()
    np.testing.assert_allclose(by_query["gauc"].to_numpy(), expected.value)
