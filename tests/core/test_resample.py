"""The query bootstrap's sparse sums and per-query counts (_core/_resample.py).

Both must make the very draws of the dense sums (same generator, same
strata): the dense sums of the same columns are the reference, and each
resample's counts must add up to the number of queries of each stratum.
The dense sums themselves are checked against the draws written plainly
(``_plain_draws``): a faster way of counting and summing must not change
which queries a seed draws.
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


def _plain_draws(sizes, n_resamples, rng):
    """The bootstrap's draws, written plainly: ``picks[b][s]``, the queries of stratum s in resample b.

    How skrank has drawn since the query bootstrap was written (the seeds,
    the streams, the panels and their chunks, Lemire's multiply-shift with
    rejection, the redraws), one step at a time, so that a faster way of
    counting and summing the same draws is checked against it: the same
    ``random_state`` must keep giving the same intervals.
    """
    sizes = [int(n) for n in sizes]
    n_queries, n_strata = sum(sizes), len(sizes)
    seeds = rng.integers(2**63, size=4, dtype=np.int64)
    rngs = [np.random.default_rng(seed) for seed in seeds]
    bounds = np.linspace(0, n_resamples, 5).astype(np.int64).tolist()
    # strata padded to blocks of `width` queries; panels: the strata whose
    # padded start falls in the same window of 2**14 queries
    width = min(1024, max(16, n_queries // (4 * n_strata)))
    blocks = [-(-n // width) for n in sizes]
    first_block = [sum(blocks[:s]) for s in range(n_strata)]
    window = [first_block[s] * width // 2**14 for s in range(n_strata)]
    panels = []
    for s in range(n_strata):
        if s and window[s] == window[s - 1]:
            panels[-1].append(s)
        else:
            panels.append([s])
    picks = [[[] for _ in range(n_strata)] for _ in range(n_resamples)]
    for stream, generator in enumerate(rngs):
        for panel in panels:
            padded = sum(blocks[s] for s in panel) * width
            chunk = min(n_resamples, max(1, 2**18 // padded))
            bits = 16 if max(sizes[s] for s in panel) <= 2**16 else 32
            word = np.uint16 if bits == 16 else np.uint32
            # one column per query of the panel: the size of its stratum
            n = np.concatenate([np.full(sizes[s], sizes[s], dtype=np.uint64)
                                for s in panel])
            stratum = np.concatenate([np.full(sizes[s], s) for s in panel])
            for done in range(bounds[stream], bounds[stream + 1], chunk):
                size = min(chunk, bounds[stream + 1] - done)

                def words(count):
                    per = 8 // np.dtype(word).itemsize
                    raw = generator.bit_generator.random_raw(-(-count // per))
                    return raw.view(word)[:count].astype(np.uint64)

                product = (words(size * n.shape[0]).reshape(size, -1) * n).reshape(-1)
                column = np.tile(np.arange(n.shape[0]), size)
                threshold = (2**bits) % n[column]
                rejected = np.flatnonzero(product % 2**bits < threshold)
                while rejected.shape[0]:  # in order, one new word each
                    product[rejected] = words(rejected.shape[0]) * n[column[rejected]]
                    again = product[rejected] % 2**bits < threshold[rejected]
                    rejected = rejected[again]
                pick = (product >> np.uint64(bits)).astype(np.int64).reshape(size, -1)
                for b in range(size):
                    for s in panel:
                        picks[done + b][s] = pick[b, stratum == s]
    return picks


@pytest.mark.parametrize("sizes", [[7], [3, 5, 2], [5000] * 7, [40_000], [5, 70_000],
                                   [1] * 3 + [20_000, 9000, 300]])
def test_sums_are_the_plainly_written_draws(sizes):
    rng = np.random.default_rng(5)
    n_queries = sum(sizes)
    columns = rng.random((n_queries, 3))
    n_resamples = 21
    sums = Resampler(sizes, n_resamples, np.random.default_rng(6)).sums(columns)
    picks = _plain_draws(sizes, n_resamples, np.random.default_rng(6))
    start = np.cumsum(sizes) - sizes
    expected = np.array([[columns[start[s] + picks[b][s]].sum(axis=0)
                          for s in range(len(sizes))] for b in range(n_resamples)])
    np.testing.assert_allclose(sums, expected, rtol=1e-12)
    counts = [[np.bincount(picks[b][s], minlength=n) for s, n in enumerate(sizes)]
              for b in range(n_resamples)]
    if len(sizes) == 1:  # counts(): the same draws
        got = np.zeros((n_resamples, n_queries))
        for first, chunk in Resampler(sizes, n_resamples,
                                      np.random.default_rng(6)).counts():
            got[first:first + chunk.shape[0]] = chunk
        np.testing.assert_array_equal(got, np.array(counts)[:, 0])


@pytest.mark.parametrize("cores", [1, 2])
def test_threaded_and_single_thread_counting_make_the_plainly_written_sums(cores, monkeypatch):
    # 7 x 5000 queries x 40 resamples: enough draws for threads where there
    # are two cores (np.bincount counts there, np.add.at on one thread)
    from skrank._core import _resample

    monkeypatch.setattr(_resample, "available_cores", lambda: cores)
    sizes, n_resamples = [5000] * 7, 40
    resampler = Resampler(sizes, n_resamples, np.random.default_rng(8))
    assert resampler.threaded() == (cores > 1)
    columns = np.random.default_rng(9).random((sum(sizes), 2))
    sums = resampler.sums(columns)
    picks = _plain_draws(sizes, n_resamples, np.random.default_rng(8))
    start = np.cumsum(sizes) - sizes
    expected = np.array([[columns[start[s] + picks[b][s]].sum(axis=0)
                          for s in range(len(sizes))] for b in range(n_resamples)])
    np.testing.assert_allclose(sums, expected, rtol=1e-12)
