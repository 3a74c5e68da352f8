"""The bootstrap over queries: stratified resampling as whole-array arithmetic.

One helper serves :func:`skrank.compare` (one stratum: all queries) and
:func:`skrank.evaluate_by` (one stratum per segment). A resample draws, in
every stratum, as many queries as the stratum has, uniformly with
replacement; what comes back are the sums of some per-query columns over the
drawn queries, per resample and stratum. There is no Python loop over
resamples or strata: the draws of a chunk of resamples become counts with
one ``np.bincount``, and the counts become sums with one batched matrix
product. Chunks are sized to keep the counts in the processor's cache.
"""

import sys

import numpy as np

# which 32-bit word of a uint64 holds its low bits
_LOW_WORD = 0 if sys.byteorder == "little" else 1

# counts per chunk (resamples x padded queries): 2 MiB of int64, cache-sized
_CHUNK_CELLS = 1 << 18


def _uniform_draws(rng, n, threshold, offset, shape, threshold_max=None):
    """``offset + j`` with ``0 <= j < n`` (``n`` per column) exactly uniform, as int64.

    Lemire's multiply-shift on 32 random bits, with rejection of the few
    values that would make some outcomes more likely than others (D. Lemire,
    "Fast random integer generation in an interval", ACM TOMACS 2019).
    ``threshold`` is ``2**32 mod n`` per column (``threshold_max`` its
    largest value); ``offset`` (uint64, shifted left by 32 bits, broadcast
    to ``shape``) is added before the shift.
    """
    if threshold_max is None:
        threshold_max = threshold.max(initial=0)
    raw = _raw_uint32(rng, int(np.prod(shape))).reshape(shape)
    product = np.multiply(raw, n, dtype=np.uint64)
    # the low 32 bits of each product, a view (no copy)
    low = product.view(np.uint32)[..., _LOW_WORD::2]
    # most draws are below no column's threshold: one test against a scalar
    reject = low < threshold_max
    if reject.any():
        reject &= low < threshold
    while reject.any():
        where = np.nonzero(reject)
        redraw = _raw_uint32(rng, where[0].shape[0])
        product[where] = np.multiply(redraw, n[where[-1]], dtype=np.uint64)
        reject[where] = low[where] < threshold[where[-1]]
    product += offset
    np.right_shift(product, np.uint64(32), out=product)
    return product.view(np.int64)


def _raw_uint32(rng, count):
    """``count`` random 32-bit words from the generator's raw 64-bit output."""
    raw = rng.bit_generator.random_raw((count + 1) // 2)
    return raw.view(np.uint32)[:count]


def stratified_resample_sums(columns, sizes, n_resamples, rng):
    """Sums of per-query columns over queries resampled within strata.

    Parameters
    ----------
    columns : ndarray of shape (n_queries, n_columns)
        Per-query values, the queries of stratum 0 first, then stratum 1, ...
    sizes : ndarray of int of shape (n_strata,)
        Queries per stratum (each at least 1), summing to ``n_queries``.
    n_resamples : int
    rng : numpy.random.Generator
        The draws depend only on its state, ``sizes`` and ``n_resamples``,
        so the same generator and strata give the same resamples anywhere.

    Returns
    -------
    sums : ndarray of shape (n_resamples, n_strata, n_columns)
        ``sums[b, s]``: the column sums over the ``sizes[s]`` queries of
        stratum ``s`` drawn with replacement in resample ``b``.
    """
    columns = np.asarray(columns, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.int64)
    n_queries, n_columns = columns.shape
    n_strata = sizes.shape[0]
    # strata padded to whole blocks of `width` queries, so that the sums are
    # one batched product (block, resample, width) @ (block, width, column)
    width = int(min(1024, max(16, n_queries // (4 * n_strata))))
    n_blocks = -(-sizes // width)
    total_blocks = int(n_blocks.sum())
    padded = total_blocks * width
    first_block = np.concatenate([[0], np.cumsum(n_blocks)[:-1]])
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.repeat(first_block * width - start, sizes) + np.arange(n_queries)
    blocks = np.zeros((padded, n_columns))
    blocks[position] = columns
    blocks = blocks.reshape(total_blocks, width, n_columns)

    size_of_draw = np.repeat(sizes, sizes).astype(np.uint64)
    threshold = ((np.uint64(2**32) - size_of_draw) % size_of_draw).astype(np.uint32)
    threshold_max = threshold.max(initial=0)
    chunk = max(1, _CHUNK_CELLS // padded)
    # where each draw of each resample of a chunk lands in the padded counts
    offset = np.repeat(first_block * width, sizes)[None, :] + (
        np.arange(chunk) * padded
    )[:, None]
    offset = offset.astype(np.uint64) << np.uint64(32)
    out = np.empty((n_resamples, n_strata, n_columns))
    for done in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - done)
        picks = _uniform_draws(
            rng, size_of_draw, threshold, offset[:size], (size, n_queries),
            threshold_max,
        )
        counts = np.bincount(picks.ravel(), minlength=size * padded)
        counts = counts.astype(np.float64).reshape(size, total_blocks, width)
        sums = np.matmul(counts.transpose(1, 0, 2), blocks)  # (block, resample, col)
        out[done:done + size] = np.add.reduceat(sums, first_block, axis=0).transpose(
            1, 0, 2
        )
    return out
