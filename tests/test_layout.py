"""The shared layout: query ids of any type, one sort, tie blocks."""

import numpy as np
import pandas as pd
import pytest

from skrank import average_precision_score, ndcg_score
from skrank._layout import rank_queries, segment_cumsum

Y = np.array([1, 0, 1, 0, 1, 1, 0])
S = np.array([0.2, 0.9, 0.2, 0.5, 0.1, 0.3, 0.3])
IDS = ["b", "a", "b", "a", "c", "c", "a"]


@pytest.mark.parametrize(
    "query_id",
    [
        np.array(IDS),
        np.array(IDS, dtype=object),
        pd.Series(IDS),
        pd.Series(IDS, dtype="category"),
        pd.Categorical(IDS),
        pd.Series(IDS, dtype="string"),
        list(IDS),
    ],
    ids=["str", "object", "series", "series-category", "categorical", "string-dtype", "list"],
)
def test_query_id_types_give_the_same_layout(query_id):
    ranked = rank_queries(Y, S, query_id=query_id)
    assert list(ranked.query_ids) == ["a", "b", "c"]
    np.testing.assert_array_equal(ranked.query_start, [0, 3, 5])
    # query "a": rows 1 (0.9), 3 (0.5), 6 (0.3); "b": rows 0, 2 tied; "c": 5, 4
    np.testing.assert_array_equal(ranked.order, [1, 3, 6, 0, 2, 5, 4])
    np.testing.assert_array_equal(ranked.rank, [1, 2, 3, 1, 2, 1, 2])


def test_numeric_ids_sort_numerically_and_keep_their_values():
    ids = np.array([10, 2, 10, 2, 33, 33, 2], dtype=np.uint16)
    result = ndcg_score(Y, S, query_id=ids, aggregate=None)
    np.testing.assert_array_equal(result.query_id, [2, 10, 33])


def test_mixed_type_object_ids_are_factorised():
    ids = np.array([1, "a", 1, "a", 2.5, 2.5, "a"], dtype=object)
    value = average_precision_score(Y, S, query_id=ids)
    assert value == average_precision_score(Y, S, query_id=IDS)


def test_tie_blocks_follow_the_policy():
    averaged = rank_queries(Y, S, query_id=IDS)
    # query "b" has its two rows tied at 0.2: one block of two rows
    assert averaged.block_start.shape[0] == Y.shape[0] - 1
    by_input = rank_queries(Y, S, query_id=IDS, ties="input")
    assert by_input.block_start.shape[0] == Y.shape[0]


def test_equal_scores_in_different_queries_are_not_one_block():
    ranked = rank_queries([1, 0], [0.5, 0.5], query_id=[1, 2])
    np.testing.assert_array_equal(ranked.block_start, [0, 1])


def test_relevant_before_block_and_tie_share():
    # one query, scores 3,2,2,2,1 -> blocks [0], [1,2,3], [4]
    ranked = rank_queries([1, 1, 0, 0, 1], [3, 2, 2, 2, 1])
    np.testing.assert_array_equal(ranked.relevant_before_block, [0, 1, 2])
    np.testing.assert_allclose(ranked.tie_share, [1, 1 / 3, 1 / 3, 1 / 3, 1])


def test_segment_cumsum_restarts_at_each_segment():
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    out = segment_cumsum(values, np.array([0, 2]), np.array([0, 0, 1, 1, 1]))
    np.testing.assert_allclose(out, [1, 3, 3, 7, 12])


def test_pandas_inputs_are_accepted():
    frame = pd.DataFrame({"y": Y, "s": S, "q": IDS})
    assert ndcg_score(frame["y"], frame["s"], query_id=frame["q"]) == ndcg_score(
        Y, S, query_id=IDS
    )
