"""The bootstrap over queries: stratified resampling as whole-array arithmetic.

One helper serves :func:`skrank.compare` (one stratum: all queries) and
:func:`skrank.evaluate_by` (one stratum per segment). A resample draws, in
every stratum, as many queries as the stratum has, uniformly with
replacement; what comes back are the sums of some per-query columns over the
drawn queries, per resample and stratum.

There is no Python loop over resamples or strata. Consecutive strata are
grouped into panels of about ``_PANEL_QUERIES`` queries; for a panel, the
draws of a chunk of resamples become counts with one ``np.bincount``, and
the counts become sums with one batched matrix product. A chunk holds as
many resamples as keep its counts in the processor's cache, so a panel's
per-query columns are read once per chunk of many resamples rather than
once per resample. The resamples are split into ``_STREAMS`` fixed
streams, each with its own generator seeded from the caller's, which run on
threads where the machine has the cores (numpy releases the GIL in all of
this work); the draws never depend on the number of threads.
"""

import math
import warnings

import numpy as np
import scipy.sparse as sp

from ._threads import available_cores, run_in_threads

#: below this many queries a query bootstrap's interval is too narrow to
#: trust (with G queries the bootstrap variance is (G - 1) / G of the truth at
#: best, and percentile intervals of ratio estimates undercover further): in
#: simulations of click logs (conditional, noisy logger, 100 sessions per
#: query) the 95% interval covered 0.84 of the time with 5 queries, 0.88 with
#: 10 and 0.92-0.94 with 20, 40 and 80
FEW_QUERIES = 20


def check_resampled_queries(n_queries, n_resamples, *, source, advice, stacklevel=3):
    """Refuse a bootstrap over one query; warn when queries are few.

    A query bootstrap with one query draws the sample itself every time: its
    interval has zero width whatever the uncertainty (a ``ValueError``
    saying so, with ``advice``). Below :data:`FEW_QUERIES` queries the
    interval is too narrow (a ``UserWarning``). ``source`` names what holds
    the queries ("the log"). Nothing is checked when ``n_resamples`` is 0.
    ``stacklevel`` is that of ``warnings.warn`` seen from the caller.
    """
    if not n_resamples:
        return
    if n_queries < 2:
        raise ValueError(
            f"The bootstrap interval resamples queries, and {source} has "
            f"{n_queries} query: every resample would be {source} itself and the "
            f"interval would have zero width. {advice}"
        )
    if n_queries < FEW_QUERIES:
        warnings.warn(
            f"The bootstrap interval resamples queries, and {source} has only "
            f"{n_queries}: with fewer than {FEW_QUERIES} the interval is too "
            "narrow to trust.", UserWarning, stacklevel=stacklevel + 1)


# counts per chunk (resamples x padded panel queries): 2 MiB of float64
_CHUNK_CELLS = 1 << 18
# queries per panel of consecutive strata (a larger stratum is a panel alone)
_PANEL_QUERIES = 1 << 14
# streams of resamples, each with its own generator (and thread, if the
# machine has the cores and the work is large enough to gain from them)
_STREAMS = 4
_THREADED_DRAWS = 1 << 20
# random word and product types for draws from strata of at most 2**bits queries
_WORDS = {16: (np.uint16, np.uint32), 32: (np.uint32, np.uint64)}


def _raw_words(rng, count, word):
    """``count`` random words of dtype ``word`` from the generator's raw 64-bit output."""
    per_output = 8 // np.dtype(word).itemsize
    raw = rng.bit_generator.random_raw(-(-count // per_output))
    return raw.view(word)[:count]


def draw_thresholds(n, bits):
    """``2**bits mod n``: Lemire's rejection threshold per stratum size ``n``."""
    word, _ = _WORDS[bits]
    n = np.asarray(n, dtype=np.uint64)
    return (np.uint64(1 << bits) % n).astype(word)


class _Workspace:
    """Buffers that one stream reuses for every chunk of every panel.

    Memory allocated afresh for each chunk costs page faults, which on some
    hosts cost more than the arithmetic done in it.
    """

    def __init__(self):
        self._bytes = {}
        self._views = {}

    def get(self, name, shape, dtype):
        """An uninitialised array of ``shape`` and ``dtype`` over buffer ``name``.

        The views are kept: a chunk asks for the same shapes as the chunk
        before it, and a dictionary lookup costs less than making a view.
        """
        key = (name, shape, dtype)
        view = self._views.get(key)
        if view is None:
            size = math.prod(shape) * np.dtype(dtype).itemsize
            buffer = self._bytes.get(name)
            if buffer is None or buffer.shape[0] < size:
                buffer = self._bytes[name] = np.empty(size, dtype=np.uint8)
                # the views over the buffer this one replaces are dropped
                self._views = {k: v for k, v in self._views.items() if k[0] != name}
            view = self._views[key] = buffer[:size].view(dtype).reshape(shape)
        return view


def _uniform_draws(rng, n, threshold, bits, rows, workspace):
    """``(rows, n.shape[0])`` draws of ``j`` with ``0 <= j < n`` (per column), exactly uniform.

    Lemire's multiply-shift on ``bits`` random bits, with rejection of the
    few values that would make some outcomes more likely than others
    (D. Lemire, "Fast random integer generation in an interval", ACM TOMACS
    2019). Every value of ``n`` is at most ``2**bits``; ``n`` has the
    product dtype of ``bits`` (uint32 for 16, uint64 for 32), which the
    draws have too, and ``threshold`` is :func:`draw_thresholds` of it.
    """
    word, wide = _WORDS[bits]
    n_columns = n.shape[0]
    shape = (rows, n_columns)
    raw = _raw_words(rng, rows * n_columns, word).reshape(shape)
    product = np.multiply(raw, n, out=workspace.get("product", shape, wide))
    low = workspace.get("low", shape, word)
    low[...] = product  # the low bits, one contiguous pass
    reject = np.less(low, threshold, out=workspace.get("reject", shape, bool))
    # the rejected draws (few), drawn again until none is rejected
    where = np.flatnonzero(reject)
    flat_product = product.reshape(-1)
    while where.shape[0]:
        column = where % n_columns
        redraw = np.multiply(_raw_words(rng, where.shape[0], word), n[column],
                             dtype=wide)
        flat_product[where] = redraw
        where = where[redraw.astype(word) < threshold[column]]
    return np.right_shift(product, wide(bits), out=product)


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
    return Resampler(sizes, n_resamples, rng).sums(columns)


def resampled_counts(n_queries, n_resamples, rng, chunk):
    """How often each query is drawn, in arrays of ``chunk`` resamples (the last fewer).

    The draws of :class:`Resampler` over one stratum of ``n_queries``
    (:meth:`Resampler.counts`), regrouped into ``(size, n_queries)`` float
    arrays for estimators that refit on weighted queries (the bootstrap of
    ``skrank.clicks.estimate_position_bias``'s ``"em"``) and that pick
    their chunk by their own memory.
    """
    pending, held = [], 0
    for _, counts in Resampler([n_queries], n_resamples, rng).counts():
        pending.append(counts)
        held += counts.shape[0]
        while held >= chunk:
            joined = np.concatenate(pending)
            yield joined[:chunk]
            pending, held = [joined[chunk:]], held - chunk
    if held:
        yield np.concatenate(pending)


class Resampler:
    """:func:`stratified_resample_sums` in two steps: the draws need only the strata.

    Made from ``sizes``, ``n_resamples`` and ``rng`` (whose state it reads
    here, once); :meth:`sums` draws and sums, once.
    """

    def __init__(self, sizes, n_resamples, rng):
        sizes = np.asarray(sizes, dtype=np.int64)
        self.sizes, self.n_resamples = sizes, n_resamples
        self.n_queries = n_queries = int(sizes.sum())
        n_strata = sizes.shape[0]
        # strata padded to whole blocks of `width` queries, so that the sums
        # are one batched product (block, resample, width) @ (block, width, column)
        width = int(min(1024, max(16, n_queries // (4 * max(n_strata, 1)))))
        n_blocks = -(-sizes // width)
        self.total_blocks = int(n_blocks.sum())
        block_end = np.cumsum(n_blocks)
        first_block = block_end - n_blocks
        start = np.cumsum(sizes) - sizes
        self.width = width
        self.position = (np.repeat(first_block * width - start, sizes)
                         + np.arange(n_queries))
        # panels: the strata that start in the same window of _PANEL_QUERIES
        # padded queries
        panel = (first_block * width) // _PANEL_QUERIES
        panel_start = np.flatnonzero(np.diff(panel, prepend=-1))
        self.panels = [
            _Panel(s0, s1, sizes, first_block, block_end, start, width, n_resamples)
            for s0, s1 in zip(panel_start.tolist(),
                              np.append(panel_start[1:], n_strata).tolist())
        ]
        # fixed streams of resamples, each with its own generator seeded from
        # `rng`: the draws do not depend on how many threads run them
        seeds = rng.integers(2**63, size=_STREAMS, dtype=np.int64)
        self.bounds = np.linspace(0, n_resamples, _STREAMS + 1).astype(np.int64).tolist()
        self._rngs = [np.random.default_rng(seed) for seed in seeds]
        self._workspaces = [_Workspace() for _ in range(_STREAMS)]
        self._summed = False

    def threaded(self):
        """Whether the streams run on threads (several cores, enough draws)."""
        return self.threaded_for(self.n_resamples, self.n_queries)

    @staticmethod
    def threaded_for(n_resamples, n_queries):
        """Whether ``n_resamples`` of ``n_queries`` queries would run on threads."""
        return (min(_STREAMS, available_cores()) > 1
                and n_resamples * n_queries >= _THREADED_DRAWS)

    def _chunks(self, stream):
        begin, end = self.bounds[stream], self.bounds[stream + 1]
        for p, panel in enumerate(self.panels):
            for done in range(begin, end, panel.chunk):
                yield p, panel, done, min(panel.chunk, end - done)

    def _use_up(self):
        if self._summed:
            raise RuntimeError("a Resampler's draws are used up by its first sums()")
        self._summed = True

    def sums(self, columns):
        """The sums of ``columns`` (n_queries, n_columns) over each resample, stratum.

        ``columns`` may be a scipy sparse matrix (per-query statistics with
        many empty columns): the sums are then sparse products, never a
        dense copy of the columns. Once: the draws are used up.
        """
        self._use_up()
        if sp.issparse(columns):
            return self._sparse_sums(columns)
        columns = np.asarray(columns, dtype=np.float64)
        n_columns = columns.shape[1]
        blocks = np.zeros((self.total_blocks * self.width, n_columns))
        blocks[self.position] = columns
        blocks = blocks.reshape(self.total_blocks, self.width, n_columns)
        out = np.empty((self.n_resamples, self.sizes.shape[0], n_columns))
        threaded = self.threaded()

        def run(stream):
            rng, workspace = self._rngs[stream], self._workspaces[stream]
            for p, panel, done, size in self._chunks(stream):
                cells = workspace.get("cells", (size * panel.padded,), np.float64)
                panel.count_into(cells, rng, size, workspace, threaded)
                panel.sums(cells, size, done, blocks, out)

        self._run(run)
        return out

    def _run(self, run):
        """``run(stream)`` for every stream, on threads where :meth:`threaded`."""
        if self.threaded():
            run_in_threads(run, range(_STREAMS), min(_STREAMS, available_cores()))
        else:
            for stream in range(_STREAMS):
                run(stream)

    def _sparse_sums(self, columns):
        """:meth:`sums` of a sparse (n_queries, n_columns) matrix: the same draws."""
        columns = sp.csr_matrix(columns, dtype=np.float64)
        n_columns = columns.shape[1]
        out = np.empty((self.n_resamples, self.sizes.shape[0], n_columns))
        stratum = np.repeat(np.arange(self.sizes.shape[0]), self.sizes)
        # per panel: its queries' columns spread to (stratum, column) rows,
        # so that one sparse product gives every stratum's sums
        spread = []
        for panel in self.panels:
            q0, q1 = panel.queries
            part = columns[q0:q1].tocoo()
            n_strata = panel.strata.stop - panel.strata.start
            row = (stratum[q0:q1][part.row] - panel.strata.start) * n_columns + part.col
            spread.append((
                sp.csr_matrix((part.data, (row, part.row)),
                              shape=(n_strata * n_columns, q1 - q0)),
                self.position[q0:q1] - panel.b0 * self.width, n_strata))

        def run(stream):
            rng, workspace = self._rngs[stream], self._workspaces[stream]
            for p, panel, done, size in self._chunks(stream):
                matrix, where, n_strata = spread[p]
                counts = panel.counts(rng, size, workspace).reshape(size, -1)
                drawn = counts[:, where].T.astype(np.float64)
                out[done:done + size, panel.strata] = np.asarray(
                    matrix @ drawn).T.reshape(size, n_strata, n_columns)

        self._run(run)
        return out

    def counts(self):
        """How often each query is drawn: ``(first, counts)`` chunk by chunk.

        ``counts`` has shape (size, n_queries) (float64): resamples
        ``first .. first + size - 1``. The same draws as :meth:`sums` would
        make (the chunks come stream by stream, in order, on this thread),
        for estimators that refit on weighted queries rather than add
        columns up. One stratum only. Once: the draws are used up.
        """
        if self.sizes.shape[0] != 1:
            raise ValueError("Resampler.counts() draws from one stratum only.")
        self._use_up()
        for stream in range(_STREAMS):
            rng, workspace = self._rngs[stream], self._workspaces[stream]
            for _, panel, done, size in self._chunks(stream):
                counts = panel.counts(rng, size, workspace).reshape(size, -1)
                q0, q1 = panel.queries
                yield done, counts[:, self.position[q0:q1] - panel.b0 * self.width
                                   ].astype(np.float64)


class _Panel:
    """Consecutive strata ``s0:s1`` whose draws are counted together."""

    def __init__(self, s0, s1, sizes, first_block, block_end, start, width,
                 n_resamples):
        self.strata = slice(s0, s1)
        self.b0, self.b1 = int(first_block[s0]), int(block_end[s1 - 1])
        self.n_queries = int(start[s1 - 1] + sizes[s1 - 1] - start[s0])
        self.queries = (int(start[s0]), int(start[s0]) + self.n_queries)
        self.width = width
        self.padded = (self.b1 - self.b0) * width
        self.bits = 16 if sizes[s0:s1].max() <= 1 << 16 else 32
        wide = _WORDS[self.bits][1]
        self.n = np.repeat(sizes[s0:s1], sizes[s0:s1]).astype(wide)
        self.threshold = draw_thresholds(self.n, self.bits)
        self.chunk = int(min(n_resamples, max(1, _CHUNK_CELLS // self.padded)))
        # where each draw of each resample of a chunk lands in the counts
        # (in the draws' dtype: every cell index is below 2**32)
        self.offset = (np.repeat((first_block[s0:s1] - self.b0) * width,
                                 sizes[s0:s1])[None, :] + (
            np.arange(self.chunk) * self.padded
        )[:, None]).astype(wide)
        self.first = first_block[s0:s1] - self.b0

    def _cells(self, rng, size, workspace):
        """The (resample, padded query) cell of each draw of a chunk of ``size`` resamples.

        Platform integers, drawn from ``rng``: the index type ``np.bincount``
        and ``np.add.at`` count from (either would otherwise make a copy).
        """
        picks = _uniform_draws(rng, self.n, self.threshold, self.bits, size, workspace)
        bins = np.add(picks, self.offset[:size], out=picks)
        index = workspace.get("index", bins.shape, np.intp)
        np.copyto(index, bins, casting="unsafe")  # every cell index fits
        return index.reshape(-1)

    def counts(self, rng, size, workspace):
        """How often each (resample, padded query) cell of a chunk of ``size`` resamples is drawn.

        Integer counts (``np.bincount``'s), drawn from ``rng``.
        """
        return np.bincount(self._cells(rng, size, workspace), minlength=size * self.padded)

    def count_into(self, cells, rng, size, workspace, threaded):
        """:meth:`counts` (the same draws), written as floats into ``cells``.

        On one thread, ``np.add.at`` adds the draws into the zeroed float
        cells the matrix product reads: 15% less time for the whole
        resampling than ``np.bincount``'s integer counts and their copy to
        floats. But ``np.add.at`` holds the GIL while it adds (numpy 2.4),
        which would stop the other streams' threads at their next call;
        ``np.bincount`` releases it, so threaded streams count with it.
        """
        index = self._cells(rng, size, workspace)
        if threaded:
            cells[...] = np.bincount(index, minlength=size * self.padded)
        else:
            cells[...] = 0.0
            np.add.at(cells, index, 1.0)

    def sums(self, cells, size, done, blocks, out):
        """Write ``out[done:done + size, strata]`` from a chunk's counts ``cells`` (floats)."""
        # (block, resample, column), then summed over each stratum's blocks
        sums = np.matmul(cells.reshape(size, -1, self.width).transpose(1, 0, 2),
                         blocks[self.b0:self.b1])
        out[done:done + size, self.strata] = np.add.reduceat(
            sums, self.first, axis=0
        ).transpose(1, 0, 2)
