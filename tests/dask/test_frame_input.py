"""The one frame-input step every skrank.dask face takes: the same checks, the same words.

Each face (evaluate, evaluate_by, evaluate_clicks, estimate_position_bias)
is called with the same bad inputs; the expected messages are written here
once, so a face that checked its frame its own way would fail.
"""

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import skrank.dask
from skrank.dask._frame_input import frame_input
from skrank.dask._shuffle import whole_queries


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="sync"):
        yield


ROWS = pd.DataFrame({
    "qid": [1, 1, 2, 2, 3, 3],
    "label": [1, 0, 0, 1, 1, 0],
    "score": [0.9, 0.1, 0.4, 0.8, 0.7, 0.2],
    "click": [1, 0, 0, 1, 1, 0],
    "position": [1, 2, 2, 1, 1, 2],
    "doc": [10, 11, 11, 10, 10, 11],
    "device": ["a", "a", "b", "b", "a", "a"],
})

FACES = {
    "evaluate": lambda df, **kw: skrank.dask.evaluate(df, ["mrr"], **kw),
    "evaluate_by": lambda df, **kw: skrank.dask.evaluate_by(
        df, ["mrr"], by="device", n_resamples=10, random_state=0, **kw),
    "evaluate_clicks": lambda df, **kw: skrank.dask.evaluate_clicks(
        df, ["arp"], propensity=1.0, list_id="qid", **kw),
    "estimate_position_bias": lambda df, **kw: skrank.dask.estimate_position_bias(
        df, method="harvest", doc_id="doc", n_resamples=0, list_id="qid", **kw),
}
IN_MEMORY = {"evaluate": "skrank.evaluate", "evaluate_by": "skrank.evaluate_by",
             "evaluate_clicks": "skrank.clicks.evaluate",
             "estimate_position_bias": "skrank.clicks.estimate_position_bias"}


@pytest.mark.parametrize("face", FACES)
def test_every_face_checks_its_frame_in_the_same_words(face):
    call = FACES[face]
    df = dd.from_pandas(ROWS, npartitions=2)
    with pytest.raises(ValueError, match=(
            r"`df` must be a dask.dataframe.DataFrame, got a pandas DataFrame; "
            rf"for in-memory data use {IN_MEMORY[face]}\.")):
        call(ROWS)
    with pytest.raises(ValueError, match=(
            r"`query_id` must name a column of `df` or the index name, got 'nope'; "
            r"the columns are \['qid', 'label', ")):
        call(df, query_id="nope")
    with pytest.raises(ValueError, match="`partitioned_by_query` must be one of"):
        call(df, partitioned_by_query="yes")
    # estimate_position_bias takes no weights: a column argument of its own
    argument = "position" if face == "estimate_position_bias" else "sample_weight"
    with pytest.raises(ValueError, match=rf"`{argument}` must name a column of `df`, "
                                         r"got 'w'; the columns are \['qid', "):
        call(df, **{argument: "w"})


def test_frame_input_keeps_the_columns_used_and_says_where_the_ids_are():
    df = dd.from_pandas(ROWS, npartitions=2)
    got = frame_input(df, [("y_true", "label"), ("y_score", "score"),
                           ("sample_weight", None)],
                      query_id="qid", partitioned_by_query="auto", extra=["device"])
    assert list(got.frame.columns) == ["label", "score", "qid", "device"]
    assert (got.on_index, got.partitioned, got.row_label) == (False, False, "index")
    indexed = dd.from_pandas(ROWS.set_index("qid"), npartitions=2)  # sorted: divisions
    got = frame_input(indexed, [("y_true", "label"), ("y_score", "label")],
                      query_id="qid", partitioned_by_query="auto")
    assert list(got.frame.columns) == ["label"]
    assert (got.on_index, got.partitioned, got.row_label) == (True, True, "query")
    got = frame_input(indexed, [("y_true", "label")], query_id="qid",
                      partitioned_by_query=False)
    assert got.partitioned is False


def test_whole_queries_puts_each_query_in_one_partition():
    rng = np.random.default_rng(0)
    rows = pd.DataFrame({"qid": rng.integers(0, 30, 300), "x": np.arange(300)})
    df = dd.from_pandas(rows, npartitions=5, sort=False)  # queries spread over all
    frame, on_index, restore = whole_queries(df, "qid", False, False, "input")
    assert on_index is False and restore is True
    parts = [part for part in frame.partitions]
    where = {}
    for number, part in enumerate(parts):
        for qid in part.compute()["qid"].unique().tolist():
            assert where.setdefault(qid, number) == number  # never in two partitions
    assert sorted(where) == sorted(set(rows["qid"].tolist()))
    assert sorted(frame.compute()["x"].tolist()) == list(range(300))  # no row lost


def test_frame_input_names_the_id_argument_of_its_face():
    df = dd.from_pandas(ROWS, npartitions=2)
    with pytest.raises(ValueError, match=r"`list_id` must name a column of `df` or the "
                                         r"index name, got 'nope'"):
        frame_input(df, [("click", "click")], query_id="nope",
                    partitioned_by_query="auto", id_argument="list_id")
