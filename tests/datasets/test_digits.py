"""load_digits_retrieval (skrank/datasets/_digits.py)."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

from skrank import load_digits_retrieval

from .._needs import needs


def test_shapes_and_query_blocks():
    data = load_digits_retrieval(n_queries=40, n_candidates=15, random_state=3)
    assert data.data.shape == (600, len(data.feature_names)) == (600, 20)
    assert data.target.shape == data.query_id.shape == (600,)
    # query ids are contiguous blocks of n_candidates rows
    assert np.array_equal(data.query_id, np.repeat(np.arange(40), 15))


def test_relevance_means_the_same_digit():
    # a candidate is relevant exactly when it shows the query's digit; the
    # ink difference of an image with itself would be 0, and candidates are
    # never the query image, so check the label rule through the digits
    data = load_digits_retrieval(n_queries=30, n_candidates=10, random_state=0)
    digits = load_digits()
    assert set(np.unique(data.target)) <= {0, 1}
    assert set(np.unique(data.query_digit)) <= set(np.unique(digits.target))
    # about one candidate in ten shares the query's digit (ten balanced classes)
    assert 0.03 < data.target.mean() < 0.25


def test_same_seed_same_data_and_frame_has_qid_column():
    needs("pandas")
    a = load_digits_retrieval(n_queries=5, n_candidates=4, random_state=1)
    b = load_digits_retrieval(n_queries=5, n_candidates=4, random_state=1, as_frame=True)
    assert np.array_equal(a.data, b.data.drop(columns="qid").to_numpy())
    assert np.array_equal(b.data["qid"].to_numpy(), a.query_id)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"n_queries": 0}, "n_queries"), ({"n_candidates": 1.5}, "n_candidates"),
     ({"n_queries": 5000}, "at most 1797"), ({"as_frame": "yes"}, "as_frame")],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_digits_retrieval(**kwargs)


def test_candidate_id_is_the_candidate_image():
    # the item id of skrank.recsys: a row is relevant when its candidate
    # image shows the query's digit
    from sklearn.datasets import load_digits

    data = load_digits_retrieval(n_queries=20, n_candidates=10)
    digits = load_digits()
    assert data.candidate_id.shape == data.target.shape
    same = digits.target[data.candidate_id] == data.query_digit
    np.testing.assert_array_equal(same.astype(int), data.target)
