"""The query bootstrap's sparse sums and per-query counts (_core/_resample.py).

Both must make the very draws of the dense sums (same generator, same
strata): the dense sums of the same columns are the reference, and each
resample's counts must add up to the number of queries of each stratum.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from skrank._core._resample import Resampler


@pytest.mark.parametrize("sizes", [[7], [3, 5, 2], [40_000], [5, 70_000]])
def test_sparse_sums_equal_dense_sums(sizes):
    rng = np.random.default_rng(0)
    n_queries = sum(sizes)
    columns = np.where(rng.random((n_queries, 5)) < 0.3, rng.random((n_queries, 5)), 0)
    dense = Resampler(sizes, 30, np.random.default_rng(1)).sums(columns)
    sparse = Resampler(sizes, 30, np.random.default_rng(1)).sums(sp.csr_matrix(columns))
    np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n_queries", [9, 50_000])
def test_counts_are_the_draws_of_sums(n_queries):
    rng = np.random.default_rng(2)
    columns = rng.random((n_queries, 3))
    sums = Resampler([n_queries], 40, np.random.default_rng(3)).sums(columns)[:, 0]
    counts = np.zeros((40, n_queries))
    for first, chunk in Resampler([n_queries], 40, np.random.default_rng(3)).counts():
        counts[first:first + chunk.shape[0]] = chunk
    np.testing.assert_array_equal(counts.sum(axis=1), n_queries)  # n draws each
    np.testing.assert_allclose(counts @ columns, sums, rtol=1e-10)


def test_counts_once_and_from_one_stratum():
    resampler = Resampler([4], 5, np.random.default_rng(0))
    list(resampler.counts())
    with pytest.raises(RuntimeError, match="used up"):
        list(resampler.counts())
    with pytest.raises(ValueError, match="one stratum"):
        list(Resampler([2, 3], 5, np.random.default_rng(0)).counts())


def test_resampled_counts_regroup_the_same_draws():
    from skrank._core._resample import resampled_counts

    n_queries, n_resamples = 30_000, 23
    whole = np.zeros((n_resamples, n_queries))
    for first, chunk in Resampler([n_queries], n_resamples,
                                  np.random.default_rng(4)).counts():
        whole[first:first + chunk.shape[0]] = chunk
    chunks = list(resampled_counts(n_queries, n_resamples, np.random.default_rng(4), 5))
    assert [chunk.shape[0] for chunk in chunks] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(np.concatenate(chunks), whole)
