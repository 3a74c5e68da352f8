"""Intent-aware (diversity) measures: the layout of 2-D grades and the kernels.

``y_true`` has one column per intent (a subtopic); a row is relevant to an
intent when its grade there is >= ``relevance_level``. The rows are ranked
once (:func:`~skrank._core._layout.rank_queries` on the rows' scores), and
the grades follow that order. Every measure is a sum over intents of a
per-intent quantity weighted by ``v[q, j]`` (1, or the intent's weight, for
the intents the query has; 0 for the others) and divided by
``Z[q] = sum_j v[q, j]``, so ndeval's uniform weighting is ``v = 1``.

The per-intent quantities are AP (MAP-IA: the tie-aware kernel of the
single-relevance metric, run on the layout with that intent's column as its
relevance), the expected hits and the chance of a hit in the top k (P-IA,
S-recall: read on the rows whose tie block starts within k, each with its
chance of being in the top k, the same for every intent), and one
new quantity: the expected redundancy-discounted gain at each position,
``E[rel_j(r) (1 - alpha)^{c_j(r)}]`` with ``c_j(r)`` the rows relevant to j
ranked above r, from which alpha-DCG, ERR-IA and NRBP are positional sums.
"""

from dataclasses import dataclass, field

import numpy as np

from .._core._layout import rank_queries, segment_sum
from .._core._ties import expected_hits_at_k, hypergeometric_some
from ._first_relevant import _hit_rate_per_query
from ._intent_ideal import greedy_ideal_gains

#: beyond this rank a geometric weight beta**(r - 1) adds less than 2**-60
#: of the total (used to stop NRBP's tie expectations and its ideal)
_NEGLIGIBLE = 2.0 ** -60


@dataclass(frozen=True, eq=False)
class IntentRanking:
    """Rows ranked once, with their intents' relevance in ranked order."""

    ranked: object  # RankedQueries of the rows (relevance: relevant to any intent)
    relevant: np.ndarray  # (n_rows, n_intents) bool, ranked order, retrieved or not
    weight: np.ndarray  # (n_queries, n_intents) v: intent weight, 0 if absent
    doc_key: np.ndarray  # (n_rows,) int64, ranked order: larger wins the ideal's ties
    alpha: float
    # what several measures of one call share: intent layouts, gains, the ideal
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def total(self):
        """Z: the sum of each query's intent weights."""
        return self.weight.sum(axis=1)

    def intent(self, j):
        """The layout with intent ``j``'s relevance (structure shared; cached).
        Only the paths without a cutoff need it; the others read
        :attr:`block_counts` and the rows they need."""
        key = ("intent", j)
        if key not in self.cache:
            for name in ("rank", "block", "block_size", "block_first_rank",
                         "block_query"):
                getattr(self.ranked, name)  # computed once, shared by every intent
            self.cache[key] = self.ranked.with_relevance(
                self.relevant[:, j].astype(np.float64))
        return self.cache[key]

    @property
    def block_counts(self):
        """(n_blocks, n_intents): the relevant rows each tie block retrieved,
        per intent (a block is one row where nothing ties)."""
        if "block counts" not in self.cache:
            self._count_blocks()
        return self.cache["block counts"]

    @property
    def before_block(self):
        """(n_blocks, n_intents): the relevant rows retrieved above each tie
        block in its query, per intent."""
        if "before block" not in self.cache:
            counts = self.block_counts
            running = np.cumsum(counts, axis=0, dtype=counts.dtype)
            running -= counts
            first = self.cache["first block"]
            n_blocks = np.diff(first, append=counts.shape[0])  # blocks of each query
            running -= np.repeat(running[first], n_blocks, axis=0)
            self.cache["before block"] = running
        return self.cache["before block"]

    def _count_blocks(self):
        ranked = self.ranked
        counts = self.cache.pop("all block counts")
        if ranked.retrieved is not None:  # a tied block is retrieved whole or not at all
            counts = counts * ranked.retrieved[ranked.block_start][:, None]
        self.cache["block counts"] = counts

    def reserve_ranks(self, limit):
        """Let the next redundant gains reach rank ``limit`` (None: all), so
        that measures with different cutoffs share one computation."""
        held = self.cache.get("rank_limit", 0)
        if held is not None and (limit is None or limit > held):
            self.cache["rank_limit"] = limit

    def top_rows(self):
        """The rows ranked within the reserved limit (all rows for None)."""
        reach = self.cache.get("rank_limit", 0)
        key = ("top", reach)
        if key not in self.cache:
            self.cache[key] = (np.arange(self.ranked.n_rows) if reach is None
                               else np.flatnonzero(self.ranked.rank <= reach))
        return self.cache[key]

    def weighted_gains(self):
        """``sum_j v_j E[rel_j(r) q**c_j(r)]`` at each of :meth:`top_rows`
        (:func:`_weighted_gains`; cached: computed once to the reserved
        limit, shared by every positional measure)."""
        reach = self.cache.get("rank_limit", 0)
        key = ("gain", reach)
        if key not in self.cache:
            self.cache[key] = _weighted_gains(self, 1.0 - self.alpha, reach,
                                              self.top_rows())
        return self.cache[key]

    def gain_table(self):
        """:meth:`weighted_gains` as a (query, rank) table (0 past a query's
        end), or None where the table would be much larger than the rows
        (no rank limit, or queries far shorter than it)."""
        reach = self.cache.get("rank_limit", 0)
        key = ("gain table", reach)
        if key not in self.cache:
            top = self.top_rows()
            n_queries = self.ranked.n_queries
            table = None
            if reach is not None and n_queries * reach <= 4 * top.shape[0] + 1024:
                cell = self.ranked.query[top] * reach + self.ranked.rank[top] - 1
                table = np.zeros(n_queries * reach)
                table[cell] = self.weighted_gains()
                table = table.reshape(n_queries, reach)
            self.cache[key] = table
        return self.cache[key]

    def ideal_gains(self, depth):
        """:func:`greedy_ideal_gains` to ``depth`` ranks (cached, computed once
        to the deepest rank reserved)."""
        held = self.cache.get("ideal")
        if held is None or held[0] < depth:
            reach = self.cache.get("rank_limit", 0)
            deepest = depth if reach is None else max(depth, reach)
            held = self.cache["ideal"] = (deepest, greedy_ideal_gains(self, deepest))
        return held[1][:, :depth]


def rank_intents(relevant, score, *, query_id, intent_weight, doc_key, ties, alpha):
    """Lay out checked inputs: ``relevant`` (n_rows, n_intents) bool, ``score``
    1-D, ``doc_key`` int64 per row (larger wins the ideal's ties) or None
    (the earlier row wins).

    One sort of the rows (no canonical order inside the tie blocks: every
    kernel here reads a block's counts, never which row holds which of its
    positions), then the relevant rows of each block and query per intent.
    """
    n_rows, n_intents = relevant.shape
    packed = _pack_rows(relevant)  # (n_rows, bytes): a row's intents as bits
    any_relevant = (packed != 0).any(axis=1) if packed.shape[1] > 1 else packed[:, 0] != 0
    ranked = rank_queries(any_relevant.astype(np.float64), score, query_id=query_id,
                          ties=ties, canonical=False)
    packed = packed[ranked.order]  # a fraction of the bytes of the boolean matrix
    relevant = np.unpackbits(packed, axis=1, count=n_intents,
                             bitorder="little").view(bool)
    count_type = np.int32 if n_rows < 2**31 else np.int64
    first_block = np.searchsorted(ranked.block_start, ranked.query_start)  # per query
    if n_rows:
        block_counts = _block_counts(relevant, packed, ranked, count_type)
        counts = np.add.reduceat(block_counts, first_block, axis=0)
    else:
        block_counts = np.zeros((0, n_intents), dtype=count_type)
        counts = np.zeros((0, n_intents), dtype=count_type)
    base = np.ones(n_intents) if intent_weight is None else intent_weight
    weight = np.where(counts > 0, base[None, :], 0.0)
    # without doc_id (None) the earlier row wins the ideal's ties
    doc_key = -ranked.order.astype(np.int64) if doc_key is None else doc_key[ranked.order]
    layout = IntentRanking(ranked, relevant, weight, doc_key, alpha)
    layout.cache["all block counts"] = block_counts
    layout.cache["query counts"] = counts
    layout.cache["first block"] = first_block
    layout.cache["packed"] = packed
    return layout


def _block_counts(relevant, packed, ranked, count_type):
    """(n_blocks, n_intents): the rows of each tie block relevant to each intent.

    Up to 8 intents, the counts are summed in fields of an integer: each
    row's intent bits are spread to F-bit fields (F = 8, 16 or 32, wider
    than the largest block: no field can carry into the next) and the
    blocks' sums are one 1-D ``reduceat`` per 64-bit word, several times
    faster than a ``reduceat`` along the rows of the boolean matrix.
    """
    n_intents = relevant.shape[1]
    largest = int(ranked.block_size.max())
    field = next((f for f in (8, 16, 32) if largest < 1 << f), None)
    if packed.shape[1] > 1 or field is None:
        return np.add.reduceat(relevant, ranked.block_start, axis=0, dtype=count_type)
    per_word = 64 // field
    code = np.arange(256, dtype=np.uint64)
    counts = np.empty((ranked.block_start.shape[0], n_intents), dtype=count_type)
    mask = np.uint64((1 << field) - 1)
    for first in range(0, n_intents, per_word):
        intents = range(first, min(first + per_word, n_intents))
        spread = np.zeros(256, dtype=np.uint64)  # a code's bits, one to a field
        for j in intents:
            spread |= ((code >> np.uint64(j)) & np.uint64(1)) << np.uint64(field * (j - first))
        sums = np.add.reduceat(spread[packed[:, 0]], ranked.block_start)
        for j in intents:
            counts[:, j] = (sums >> np.uint64(field * (j - first))) & mask
    return counts


def _pack_rows(relevant):
    """Each row's intents as bits, little-endian: (n_rows, ceil(n_intents / 8))
    uint8 (one column at a time for up to 8 intents: faster than
    ``np.packbits`` along the short axis)."""
    n_intents = relevant.shape[1]
    if n_intents > 8:
        return np.packbits(relevant, axis=1, bitorder="little")
    codes = np.zeros((relevant.shape[0], 1), dtype=np.uint8)
    column = codes[:, 0]
    bits = relevant.view(np.uint8)
    for j in range(n_intents):
        column |= bits[:, j] << np.uint8(j)
    return codes


def _position_weight(rank, measure, beta):
    """The weight of each rank in a positional sum: alpha-DCG, ERR-IA or NRBP."""
    rank = np.asarray(rank, dtype=np.float64)
    if measure == "dcg":
        return np.log(2.0) / np.log(rank + 1.0)  # ndeval's discount
    if measure == "err":
        return 1.0 / rank
    return np.power(beta, rank - 1.0)


def rank_limit(measure, k, beta):
    """The last rank a positional sum needs (None: every rank)."""
    if measure != "nrbp":
        return k
    if beta >= 1.0:
        return k
    if beta <= 0.0:
        return 1
    limit = int(np.ceil(np.log(_NEGLIGIBLE * (1.0 - beta)) / np.log(beta))) + 1
    return limit if k is None else min(k, limit)


def _weighted_gains(layout, q, limit, rows):
    """``sum_j v_j E[rel_j(r) * q**c_j(r)]`` at each of ``rows`` (its position).

    ``c_j(r)``: the rows relevant to j ranked above r; ``v_j`` the query's
    weight of intent j. Without ties the expectation is ``rel_j * q**c_j``.
    A tie block of B rows holding b rows relevant to j, with a of them
    ranked above it, is shuffled uniformly: at its position t (0-based) the
    relevant rows among the first t positions, Y_t, are hypergeometric, and
    the expectation is ``q**a * sum_y P(Y_t = y) * (b - y) / (B - t) * q**y``.
    The law of Y_t is carried from t to t + 1 by its exact recursion (one
    loop over the positions, up to ``limit`` ranks, vectorised over the
    (block, intent) pairs). ``rows``: ascending, every row ranked ``limit``
    or better (or all rows).
    """
    ranked = layout.ranked
    counts = layout.block_counts
    before = layout.before_block
    weight = layout.weight
    size = ranked.block_size
    first = ranked.block_first_rank
    shuffled = size > 1
    if limit is not None:
        shuffled &= first <= limit
    # the rows relevant to j outside a shuffled (block, intent): v_j q**a
    packed = layout.cache["packed"]
    candidate = np.flatnonzero(packed[rows].any(axis=1) if packed.shape[1] > 1
                               else packed[rows, 0])  # relevant to some intent
    if ranked.has_ties:
        candidate = candidate[~shuffled[ranked.block[rows[candidate]]]]
    relevant = layout.relevant[rows[candidate]]
    if ranked.retrieved is not None:
        relevant &= ranked.retrieved[rows[candidate]][:, None]
    at, intent_at = np.nonzero(relevant)
    at = candidate[at]
    block_at = ranked.block[rows[at]]
    out = np.bincount(at, weights=weight[ranked.block_query[block_at], intent_at]
                      * _power(q, before[block_at, intent_at]),
                      minlength=rows.shape[0]).astype(np.float64)  # int64 when empty
    if not ranked.has_ties:
        return out
    with np.errstate(divide="ignore"):
        log_q = np.log(q) if q > 0 else -np.inf
    # the shuffled (block, intent) pairs of an intent the query weighs
    shuffled = np.flatnonzero(shuffled)
    blocks, intents = np.nonzero(counts[shuffled] > 0)
    blocks = shuffled[blocks]
    pair_weight = weight[ranked.block_query[blocks], intents]
    kept = pair_weight > 0
    blocks, intents, pair_weight = blocks[kept], intents[kept], pair_weight[kept]
    if blocks.shape[0] == 0:
        return out
    span = size[blocks] if limit is None else np.minimum(size[blocks],
                                                         limit - first[blocks] + 1)
    by_span = np.argsort(-span, kind="stable")  # the pairs still open come first
    blocks, intents, span = blocks[by_span], intents[by_span], span[by_span]
    pair_weight = pair_weight[by_span]
    start = _top_position(ranked, limit, ranked.block_start[blocks])
    B = size[blocks].astype(np.float64)
    nb = counts[blocks, intents]
    n_positions = int(span[0])
    width = int(min(n_positions, nb.max())) + 1
    # (y, pair) tables, so that a sum over y runs along the pairs: P(Y_t = y)
    law = np.zeros((width, blocks.shape[0]))
    law[0] = 1.0
    y = np.arange(width, dtype=np.float64)
    powers = np.exp(np.where(y > 0, y * log_q, 0.0)) if q > 0 else (y == 0) * 1.0
    left = np.clip(nb[None, :] - y[:, None], 0.0, None)  # relevant rows not yet placed
    block_factor = pair_weight * _power(q, before[blocks, intents])
    n_open = np.searchsorted(-span, -np.arange(n_positions), side="left")  # span > t
    where, values = [], []
    for t in range(n_positions):
        n = n_open[t]  # the pairs whose block still has a position t within reach
        current = law[:, :n]
        # the next position holds a relevant row with probability left / (B - t)
        moved = current * (left[:, :n] / (B[:n] - t))
        value = (moved * powers[:, None]).sum(axis=0)  # y by y, in order
        where.append(start[:n] + t)
        values.append(block_factor[:n] * value)
        current -= moved
        current[1:] += moved[:-1]
    return out + np.bincount(np.concatenate(where), weights=np.concatenate(values),
                             minlength=out.shape[0])


def _top_position(ranked, limit, row):
    """The place of each of ``row`` among the rows ranked ``limit`` or better
    (all rows for None): the row less the rows below the limit of the
    queries before its own."""
    if limit is None:
        return row
    below = np.maximum(ranked.query_size - limit, 0)
    return row - (np.cumsum(below) - below)[ranked.query[row]]


def _power(q, exponent):
    exponent = np.asarray(exponent, dtype=np.float64)
    if q == 0.0:
        return (exponent == 0).astype(np.float64)
    return np.power(q, exponent)


def _ideal_ideal(n_queries_total, k, measure, q, beta, query_size):
    # query_size: the rows each query retrieved
    """ndeval's "ideal ideal": sum over r <= k of q**(r-1) * weight(r), per query (Z = 1)."""
    longest = max(int(query_size.max()), 1) if query_size.shape[0] else 1
    depth = longest if k is None else k
    r = np.arange(1, depth + 1, dtype=np.float64)
    terms = _power(q, r - 1.0) * _position_weight(r, measure, beta)
    if measure == "nrbp":
        return np.full(n_queries_total, terms.sum())
    cumulative = np.cumsum(terms)
    if k is None:  # the whole list: as many ranks as the query retrieved
        return cumulative[np.maximum(query_size, 1) - 1]
    return np.full(n_queries_total, cumulative[k - 1])


def positional_per_query(layout, *, measure, k, beta, normalize):
    """alpha-DCG@k, ERR-IA@k, NRBP (``normalize=False``: ndeval's collection-
    independent values) or alpha-nDCG@k, nERR-IA@k, nNRBP (``True``: over
    the greedy ideal); 0 where a query has no intent (its Z is 0)."""
    ranked = layout.ranked
    q = 1.0 - layout.alpha
    limit = rank_limit(measure, k, beta)
    layout.reserve_ranks(limit)
    table = layout.gain_table()
    if table is not None:  # (query, rank) gains: a product with the ranks' weights
        depth = table.shape[1] if limit is None else min(limit, table.shape[1])
        by_rank = _position_weight(np.arange(1, depth + 1), measure, beta)
        total = (table[:, :depth] * by_rank).sum(axis=1)
    else:
        top = layout.top_rows()
        rank = ranked.rank[top]
        gain = layout.weighted_gains()
        query = ranked.query[top]
        if limit is not None and layout.cache["rank_limit"] != limit:  # shallower
            within = rank <= limit
            rank, gain, query = rank[within], gain[within], query[within]
        reach = int(rank.max()) if rank.shape[0] else 0
        by_rank = _position_weight(np.arange(1, reach + 1), measure, beta)
        total = np.bincount(query, weights=gain * by_rank[rank - 1],
                            minlength=ranked.n_queries)
    z = layout.total
    if normalize:
        depth = limit if limit is not None else int(ranked.query_size.max())
        ideal = layout.ideal_gains(depth)  # (n_queries, depth) weighted gains
        r = np.arange(1, ideal.shape[1] + 1)
        ideal_total = ideal @ _position_weight(r, measure, beta)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(ideal_total > 0, total / ideal_total, 0.0)
    scale = _ideal_ideal(ranked.n_queries, k, measure, q, beta, ranked.n_retrieved)
    if measure == "nrbp":  # Clarke et al.'s (1 - (1 - alpha) beta), as ndeval
        scale = 1.0 / (1.0 - q * beta) if q * beta < 1.0 else scale
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(z > 0, total / (z * scale), 0.0)


def _top_share(layout, k):
    """The rows whose tie block starts within rank ``k``, and each one's
    probability of being in the top ``k`` (1 above the block the cutoff cuts,
    ``inside / size`` in it; 0 for a row not retrieved). The same for every
    intent: P-IA and S-recall read the intents' columns on these rows only."""
    key = ("top share", k)
    if key not in layout.cache:
        ranked = layout.ranked
        if ranked.has_ties:
            first = ranked.block_first_rank[ranked.block]
            rows = np.flatnonzero(first <= k)
            block = ranked.block[rows]
            size = ranked.block_size[block]
            inside = np.minimum(k - first[rows] + 1, size)
        else:
            rows = np.flatnonzero(ranked.rank <= k)
            size = inside = np.ones(rows.shape[0], dtype=np.int64)
        share = inside / size
        if ranked.retrieved is not None:
            share = np.where(ranked.retrieved[rows], share, 0.0)
        layout.cache[key] = (rows, ranked.query[rows], share, size, inside,
                             layout.relevant[rows])
    return layout.cache[key]


def _expected_hits(layout, j, k):
    """E[relevant rows of intent ``j`` in each query's top ``k``]."""
    if k is None:
        return expected_hits_at_k(layout.intent(j), k)
    _, query, share, _, _, relevant = _top_share(layout, k)
    return np.bincount(query, weights=share * relevant[:, j],
                       minlength=layout.ranked.n_queries)


def _intent_found(layout, j, k):
    """P(a row relevant to intent ``j`` is in each query's top ``k``)."""
    if k is None:
        return _hit_rate_per_query(layout.intent(j), k=k)
    _, query, share, size, inside, relevant = _top_share(layout, k)
    n_queries = layout.ranked.n_queries
    relevant = relevant[:, j]
    sure = share == 1.0  # blocks wholly within the top k (a retrieved row)
    found = np.bincount(query[sure], weights=relevant[sure], minlength=n_queries) > 0
    # the block the cutoff cuts (at most one a query): hypergeometric
    cut = (share > 0.0) & (share < 1.0)
    n_relevant = np.bincount(query[cut], weights=relevant[cut], minlength=n_queries)
    m = np.zeros(n_queries, dtype=np.int64)
    t = np.zeros(n_queries, dtype=np.int64)
    m[query[cut]], t[query[cut]] = size[cut], inside[cut]
    values = found.astype(np.float64)
    open_ = np.flatnonzero(~found & (n_relevant > 0))
    values[open_] = hypergeometric_some(m[open_], n_relevant[open_].astype(np.int64),
                                        t[open_])
    return values


def precision_ia_per_query(layout, *, k):
    """P-IA@k: sum_j v_j hits_j@k / (k Z)."""
    ranked = layout.ranked
    total = np.zeros(ranked.n_queries)
    for j in np.flatnonzero(layout.weight.any(axis=0)):
        total += layout.weight[:, j] * _expected_hits(layout, j, k)
    # k=None: the rows retrieved (at least 1: a query that retrieved none scores 0)
    length = (np.maximum(ranked.n_retrieved, 1) if k is None
              else np.full(ranked.n_queries, float(k)))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(layout.total > 0, total / (length * layout.total), 0.0)


def subtopic_recall_per_query(layout, *, k):
    """S-recall@k: sum_j v_j P(intent j is in the top k) / Z."""
    total = np.zeros(layout.ranked.n_queries)
    for j in np.flatnonzero(layout.weight.any(axis=0)):
        total += layout.weight[:, j] * _intent_found(layout, j, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(layout.total > 0, total / layout.total, 0.0)


def _position_sums(layout, k):
    """Per tie block, the sums over its positions r <= k of ``1 / r`` and of
    ``(r - f) / r`` (``f``: the block's first rank): AP's expected terms
    ``(alone + (r - f) pair) / r`` summed over a block are
    ``alone * S1 + pair * S2`` (cached per cutoff)."""
    key = ("position sums", k)
    if key not in layout.cache:
        ranked = layout.ranked
        rank = ranked.rank
        inverse = 1.0 / rank
        if k is not None:
            inverse[rank > k] = 0.0
        if not ranked.has_ties:
            layout.cache[key] = (inverse, None)
        else:
            offset = rank - ranked.block_first_rank[ranked.block]
            layout.cache[key] = (np.add.reduceat(inverse, ranked.block_start),
                                 np.add.reduceat(offset * inverse, ranked.block_start))
    return layout.cache[key]


def map_ia_per_query(layout, *, k):
    """MAP-IA: sum_j v_j AP_j@k / Z, AP_j over all the rows relevant to j.

    AP_j is the expectation over the tie orders (as
    :func:`~skrank.metrics._average_precision._average_precision_terms`:
    a position t of a block of m rows holding r relevant rows, with H
    relevant rows above, adds ``((r/m)(H + 1) + (t - 1) r(r-1)/(m(m-1))) / rank``),
    summed block by block from the blocks' counts.
    """
    ranked = layout.ranked
    s1, s2 = _position_sums(layout, k)
    n_intents = layout.weight.shape[1]
    relevant = layout.cache["query counts"]  # retrieved or not: AP's R
    blocks, intents = np.nonzero(layout.block_counts)  # the others add nothing
    r = layout.block_counts[blocks, intents].astype(np.float64)
    m = ranked.block_size[blocks].astype(np.float64)
    terms = r / m * (layout.before_block[blocks, intents] + 1) * s1[blocks]
    if s2 is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            pair = np.where(m > 1, r * (r - 1) / (m * (m - 1)), 0.0)
        terms += pair * s2[blocks]
    cell = ranked.block_query[blocks] * n_intents + intents  # (query, intent)
    ap_sum = np.bincount(cell, weights=terms, minlength=ranked.n_queries * n_intents
                         ).reshape(ranked.n_queries, n_intents)
    total = np.zeros(ranked.n_queries)
    for j in np.flatnonzero(layout.weight.any(axis=0)):
        v = layout.weight[:, j]
        with np.errstate(invalid="ignore", divide="ignore"):
            total += np.where(v > 0, v * ap_sum[:, j] / relevant[:, j], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(layout.total > 0, total / layout.total, 0.0)
