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
from ._average_precision import _average_precision_per_query
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
        """The layout with intent ``j``'s relevance (structure shared; cached)."""
        key = ("intent", j)
        if key not in self.cache:
            for name in ("rank", "block", "block_size", "block_first_rank",
                         "block_query"):
                getattr(self.ranked, name)  # computed once, shared by every intent
            self.cache[key] = self.ranked.with_relevance(
                self.relevant[:, j].astype(np.float64))
        return self.cache[key]

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

    def redundant_gains(self, j, limit):
        """:func:`_redundant_gain` of intent ``j`` on :meth:`top_rows`, 0 below
        rank ``limit`` (cached: computed once to the reserved limit)."""
        self.reserve_ranks(limit)
        reach = self.cache["rank_limit"]
        key = ("gain", j, reach)
        if key not in self.cache:
            self.cache[key] = _redundant_gain(self.intent(j), 1.0 - self.alpha, reach,
                                              self.top_rows())
        gain = self.cache[key]
        if limit is None or limit == reach:
            return gain
        return np.where(self.ranked.rank[self.top_rows()] <= limit, gain, 0.0)

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
    """Lay out checked inputs: ``relevant`` (n_rows, n_intents) bool, ``score`` 1-D."""
    any_relevant = relevant.any(axis=1).astype(np.float64)
    ranked = rank_queries(any_relevant, score, query_id=query_id, ties=ties)
    relevant = relevant[ranked.order]
    if relevant.shape[0]:
        counts = np.add.reduceat(relevant, ranked.query_start, axis=0, dtype=np.int64)
    else:
        counts = np.zeros((0, relevant.shape[1]), dtype=np.int64)
    base = np.ones(relevant.shape[1]) if intent_weight is None else intent_weight
    weight = np.where(counts > 0, base[None, :], 0.0)
    return IntentRanking(ranked, relevant, weight, doc_key[ranked.order], alpha)


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


def _redundant_gain(ranked, q, limit, rows):
    """E[rel(r) * q**c(r)] at each row (its position), for one intent's layout.

    ``c(r)``: the relevant rows ranked above r. Without ties it is
    ``rel * q**c``. A tie block of B rows holding b relevant ones, with a
    relevant rows above it, is shuffled uniformly: at its position t
    (0-based) the relevant rows among the first t positions, Y_t, are
    hypergeometric, and the expectation is
    ``q**a * sum_y P(Y_t = y) * (b - y) / (B - t) * q**y``. The law of
    Y_t is carried from t to t + 1 by its exact recursion (one loop over
    the positions, up to ``limit`` ranks, vectorised over the blocks).
    Returns the values at ``rows`` (ascending: every row ranked ``limit``
    or better, or all rows).
    """
    relevant = ranked.is_relevant[rows]
    with np.errstate(divide="ignore"):
        log_q = np.log(q) if q > 0 else -np.inf
    if not ranked.has_ties:
        before = _relevant_before(ranked)[rows]
        return np.where(relevant > 0, _power(q, before), 0.0)
    size = ranked.block_size
    first = ranked.block_first_rank
    b = ranked.block_relevant
    a = ranked.relevant_before_block
    # single rows and blocks without relevant rows: rel * q**a
    block_of_row = ranked.block[rows]
    out = np.where(relevant > 0, _power(q, a[block_of_row]), 0.0)
    shuffled = (size > 1) & (b > 0)
    if limit is not None:
        shuffled &= first <= limit
    blocks = np.flatnonzero(shuffled)
    if blocks.shape[0] == 0:
        return out
    B = size[blocks].astype(np.float64)
    nb = b[blocks]
    span = B if limit is None else np.minimum(B, limit - first[blocks] + 1)
    n_positions = int(span.max())
    width = int(min(n_positions, nb.max())) + 1
    law = np.zeros((blocks.shape[0], width))  # P(Y_t = y), y < width
    law[:, 0] = 1.0
    y = np.arange(width, dtype=np.float64)
    powers = np.exp(np.where(y > 0, y * log_q, 0.0)) if q > 0 else (y == 0) * 1.0
    start = np.searchsorted(rows, ranked.block_start[blocks])  # positions in ``rows``
    block_factor = _power(q, a[blocks])
    for t in range(n_positions):
        live = t < span
        rest = np.where(live, B - t, 1.0)
        take = np.clip(nb[:, None] - y[None, :], 0.0, None) / rest[:, None]
        take[~live] = 0.0
        value = (law * take * powers[None, :]).sum(axis=1)
        out[start[live] + t] = (block_factor * value)[live]
        # the next position holds a relevant row with probability take
        moved = law * take
        law = law - moved
        law[:, 1:] += moved[:, :-1]
    return out


def _power(q, exponent):
    exponent = np.asarray(exponent, dtype=np.float64)
    if q == 0.0:
        return (exponent == 0).astype(np.float64)
    return np.power(q, exponent)


def _relevant_before(ranked):
    """Relevant rows ranked above each row in its query (untied layout)."""
    running = np.cumsum(ranked.is_relevant)
    offset = (running - ranked.is_relevant)[ranked.query_start]
    return running - ranked.is_relevant - offset[ranked.query]


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
    top = layout.top_rows()
    weight_of_rank = _position_weight(ranked.rank[top], measure, beta)
    query = ranked.query[top]
    total = np.zeros(ranked.n_queries)
    for j in range(layout.relevant.shape[1]):
        v = layout.weight[:, j]
        if not v.any():
            continue
        gain = layout.redundant_gains(j, limit)
        total += v * np.bincount(query, weights=gain * weight_of_rank,
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
        layout.cache[key] = (rows, ranked.query[rows], share, size, inside)
    return layout.cache[key]


def _expected_hits(layout, j, k):
    """E[relevant rows of intent ``j`` in each query's top ``k``]."""
    if k is None:
        return expected_hits_at_k(layout.intent(j), k)
    rows, query, share, _, _ = _top_share(layout, k)
    return np.bincount(query, weights=share * layout.relevant[rows, j],
                       minlength=layout.ranked.n_queries)


def _intent_found(layout, j, k):
    """P(a row relevant to intent ``j`` is in each query's top ``k``)."""
    if k is None:
        return _hit_rate_per_query(layout.intent(j), k=k)
    rows, query, share, size, inside = _top_share(layout, k)
    n_queries = layout.ranked.n_queries
    relevant = layout.relevant[rows, j]
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


def map_ia_per_query(layout, *, k):
    """MAP-IA: sum_j v_j AP_j@k / Z, AP_j over all the rows relevant to j."""
    total = np.zeros(layout.ranked.n_queries)
    for j in np.flatnonzero(layout.weight.any(axis=0)):
        v = layout.weight[:, j]
        ap = _average_precision_per_query(layout.intent(j), k=k)
        total += np.where(v > 0, v * np.nan_to_num(ap), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(layout.total > 0, total / layout.total, 0.0)
