"""skrank.dask.evaluate_clicks equals the in-memory skrank.clicks.evaluate.

The expected values are skrank.clicks.evaluate's on the computed rows (the
in-memory estimator has its own hand-worked tests); these check that the
shuffle, the partitions and the reduction change nothing, and that bad rows
raise the in-memory errors. Dask's synchronous scheduler
here; a LocalCluster in test_distributed.py.
"""

import re

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


def click_log(seed, n_lists=120, ids="str"):
    """Lists of 2..8 rows at positions 1..n, ties in the scores, rows shuffled.

    ``list_id`` names the list, ``qid`` the query (three lists each, sharing
    documents ``doc``)."""
    rng = np.random.default_rng(seed)
    frames = []
    for number in range(n_lists):
        size = int(rng.integers(2, 9))
        position = rng.permutation(size) + 1
        frames.append(pd.DataFrame({
            "list": number, "position": position, "doc": rng.permutation(size),
            "click": (rng.random(size) < 0.6 / position).astype(int),
            "score": rng.integers(0, 4, size) / 3.0,
            "w": rng.uniform(0.5, 2.0, size),
        }))
    rows = pd.concat(frames, ignore_index=True).sample(frac=1.0, random_state=seed)
    rows = rows.reset_index(drop=True)
    rows["list_id"] = (rows["list"].map(lambda n: f"list-{n:04d}").astype(object)
                       if ids == "str" else rows["list"] * 3 - 100)
    rows["qid"] = rows["list"] // 3
    rows["propensity"] = 1.0 / rows["position"] ** 0.7
    return rows


def in_memory_clicks(rows, **options):
    return skrank.clicks.evaluate(
        rows["click"], rows["score"], position=rows["position"],
        list_id=rows["list_id"], **options)


def assert_same_evaluation(got, expected):
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=1e-12)
    for name in ("effective_sample_size", "max_weight", "clipped_share"):
        np.testing.assert_allclose(getattr(got, name), getattr(expected, name),
                                   rtol=1e-12, atol=0)
    for name in ("n_lists", "n_clicks", "n_lists_without_click"):
        assert getattr(got, name) == getattr(expected, name)


METRICS = ["dcg@5", "dcg", "ndcg@3", "precision@2", "arp"]


@pytest.mark.parametrize("ids", ["str", "int"])
def test_evaluate_clicks_equals_in_memory(ids):
    rows = click_log(1, ids=ids)
    df = dd.from_pandas(rows, npartitions=7, sort=False)
    bias = skrank.clicks.PositionBias(1.0 / np.arange(1, 9))
    for propensity, given in ((bias, bias), ("propensity", rows["propensity"]),
                              (lambda k: 1.0 / np.sqrt(k), lambda k: 1.0 / np.sqrt(k))):
        got = skrank.dask.evaluate_clicks(df, METRICS, propensity=propensity, clip=0.2,
                                          sample_weight="w")
        expected = in_memory_clicks(rows, propensity=given, metrics=METRICS, clip=0.2,
                                    sample_weight=rows["w"])
        assert_same_evaluation(got, expected)


def test_evaluate_clicks_per_list_and_on_an_index():
    rows = click_log(2, ids="int")
    expected = in_memory_clicks(rows, propensity=rows["propensity"],
                                metrics=METRICS, aggregate=None)
    df = dd.from_pandas(rows, npartitions=5, sort=False)
    per_list = skrank.dask.evaluate_clicks(df, METRICS, propensity="propensity",
                                           aggregate=None).compute()
    per_list = per_list.loc[expected["arp"].query_id]
    for name in METRICS:
        np.testing.assert_allclose(per_list[name], expected[name].value, rtol=0,
                                   atol=1e-12)
    np.testing.assert_allclose(per_list["weight"], expected["arp"].weight)
    # ids on a sorted index: no shuffle, same values
    indexed = dd.from_pandas(rows.set_index("list_id").sort_index(), npartitions=4)
    got = skrank.dask.evaluate_clicks(indexed, METRICS, propensity="propensity")
    assert_same_evaluation(got, in_memory_clicks(rows, propensity=rows["propensity"],
                                                 metrics=METRICS))


@pytest.mark.parametrize("change, message", [
    ({"click": (3, 2)}, "`click` must be 0 or 1"),
    ({"position": (5, 0)}, "`position` must be 1 or more"),
    ({"propensity": (4, 0.0)}, "`propensity` must be positive and finite"),
])
def test_evaluate_clicks_bad_rows_raise_the_in_memory_errors(change, message):
    rows = click_log(3, n_lists=20)
    (column, (row, value)), = change.items()
    rows.loc[row, column] = value
    with pytest.raises(ValueError, match=re.escape(message)):
        in_memory_clicks(rows, propensity=rows["propensity"])
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.raises(ValueError, match=re.escape(message)):
        skrank.dask.evaluate_clicks(df, propensity="propensity")


def test_evaluate_clicks_two_rows_at_one_position_and_bad_arguments():
    rows = click_log(4, n_lists=20)
    first = rows.index[rows["list_id"] == rows.loc[0, "list_id"]]
    rows.loc[first[1], "position"] = rows.loc[first[0], "position"]
    df = dd.from_pandas(rows, npartitions=3, sort=False)
    with pytest.raises(ValueError, match="Two rows of one list are at") as error:
        skrank.dask.evaluate_clicks(df, propensity="propensity")
    # named as the caller knows them (the frame's index), not by partition row
    for row in first[:2]:
        assert (f"index {row} of `df`, query {rows.loc[0, 'list_id']!r}"
                in str(error.value))
    with pytest.raises(ValueError, match="`clip` must be a number in"):
        skrank.dask.evaluate_clicks(df, propensity="propensity", clip=0)
    with pytest.raises(ValueError, match="Unknown click metric"):
        skrank.dask.evaluate_clicks(df, ["map"], propensity="propensity")
    with pytest.raises(ValueError, match="`y_score` must name a column"):
        skrank.dask.evaluate_clicks(df, y_score="nope", propensity="propensity")
    with pytest.raises(ValueError, match="`df` must be a dask.dataframe.DataFrame"):
        skrank.dask.evaluate_clicks(rows, propensity="propensity")


@pytest.mark.parametrize("npartitions", [1, 4])
def test_evaluate_clicks_with_queries_and_documents_equals_in_memory(npartitions):
    # shuffled by query: the lists of a query pool their clicks for ndcg's
    # ideal order (doc_id), as in memory
    rows = click_log(5, ids="int")
    df = dd.from_pandas(rows, npartitions=npartitions, sort=False)
    options = dict(metrics=METRICS, propensity="propensity")
    got = skrank.dask.evaluate_clicks(df, query_id="qid", doc_id="doc", **options)
    expected = in_memory_clicks(rows, query_id=rows["qid"], doc_id=rows["doc"],
                                **{**options, "propensity": rows["propensity"]})
    assert_same_evaluation(got, expected)
    # the pooled ideal order changes ndcg, and only ndcg
    alone = in_memory_clicks(rows, propensity=rows["propensity"], metrics=METRICS)
    assert alone["ndcg@3"] != pytest.approx(expected["ndcg@3"], abs=1e-6)
    assert alone["dcg@5"] == pytest.approx(expected["dcg@5"], abs=1e-12)
    per_list = skrank.dask.evaluate_clicks(df, query_id="qid", doc_id="doc",
                                           aggregate=None, **options).compute()
    expected = in_memory_clicks(rows, query_id=rows["qid"], doc_id=rows["doc"],
                                aggregate=None, **{**options,
                                                   "propensity": rows["propensity"]})
    per_list = per_list.loc[expected["ndcg@3"].query_id]
    np.testing.assert_allclose(per_list["ndcg@3"], expected["ndcg@3"].value, atol=1e-12)
    assert list(per_list.columns) == METRICS + ["weight"]


def test_evaluate_clicks_needs_a_propensity_and_a_list_column():
    df = dd.from_pandas(click_log(6, n_lists=5), npartitions=2)
    with pytest.raises(ValueError, match="`propensity` is required"):
        skrank.dask.evaluate_clicks(df, propensity=None)
    with pytest.raises(ValueError, match="`position` is required"):
        skrank.dask.evaluate_clicks(df, position=None, propensity=0.5)
    with pytest.raises(ValueError, match="`list_id` is required"):
        skrank.dask.evaluate_clicks(df, list_id=None, propensity=0.5)
    with pytest.raises(ValueError, match="`list_id` must name a column"):
        skrank.dask.evaluate_clicks(df, list_id="session", propensity=0.5)
