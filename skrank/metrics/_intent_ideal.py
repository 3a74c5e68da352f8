"""ndeval's greedy "ideal" ranking of a query's judged rows, for all queries at once.

At each rank the row with the largest marginal gain
``sum_j v_j * rel_j * (1 - alpha)**c_j`` (``c_j``: rows relevant to intent j
already placed) takes the rank; equal gains go to the larger document key
(ndeval compares docnos with ``strcmp``: the larger wins). Finding the true
ideal is NP-hard; the greedy one can be beaten by a run, so alpha-nDCG can
exceed 1 (Clarke et al., 2008; ndeval's own comment).

Rows with the same intents (the same *pattern*) have the same gain, so the
greedy step chooses among each query's patterns (at most ``2**n_intents - 1``
of them), and within a pattern takes the rows by descending key. One
iteration per rank, vectorised over the queries; gains are summed intent by
intent in column order, as ndeval adds them, so ties are decided on the
same floating-point values.
"""

import numpy as np

#: the (query, slot) table is used while it holds at most this many slots per
#: group (plus 64); otherwise the steps run on the groups' segments
PADDING = 4


def _pattern_codes(layout):
    """The rows relevant to some intent, and one integer per distinct row of
    the boolean matrix there (its bits, for up to 62 intents)."""
    packed = layout.cache.get("packed")  # the rows' intents as bytes of bits
    relevant = layout.relevant
    n_intents = relevant.shape[1]
    if packed is None or n_intents > 62:
        rows = np.flatnonzero(relevant.any(axis=1))
        _, codes = np.unique(relevant[rows], axis=0, return_inverse=True)
        return rows, codes.reshape(-1)
    if packed.shape[1] == 1:
        codes = packed[:, 0]
        rows = np.flatnonzero(codes)
        return rows, codes[rows].astype(np.int64)
    rows = np.flatnonzero(packed.any(axis=1))
    codes = np.zeros(rows.shape[0], dtype=np.int64)
    for byte in range(packed.shape[1]):
        codes |= packed[rows, byte].astype(np.int64) << (8 * byte)
    return rows, codes


def _taking_order(query, code, key):
    """Rows by (query, pattern, descending key): one sort of packed int64 keys
    where they fit (the keys are distinct within a query), else a lexsort."""
    n = query.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    low, high = int(key.min()), int(key.max())
    key_bits = (high - low).bit_length()
    code_bits = int(code.max()).bit_length()
    query_bits = int(query.max()).bit_length()
    if key_bits + code_bits + query_bits <= 63:
        packed = (query.astype(np.int64) << (code_bits + key_bits)
                  | code << key_bits | (high - key))
        return np.argsort(packed)
    return np.lexsort((-key, code, query))


def greedy_ideal_gains(layout, depth):
    """The weighted marginal gain at each rank 1..depth of each query's greedy ideal.

    Returns an array of shape (n_queries, depth') with depth' <= depth (the
    ranks beyond are all 0: no relevant row left).
    """
    ranked = layout.ranked
    relevant = layout.relevant
    n_queries = ranked.n_queries
    rows, code = _pattern_codes(layout)
    if rows.shape[0] == 0 or depth == 0:
        return np.zeros((n_queries, 0))
    query = ranked.query[rows]
    # rows by (query, pattern, descending key): each group's rows in taking order
    order = _taking_order(query, code, layout.doc_key[rows])
    rows, query = rows[order], query[order]
    pattern_of_row = code[order]
    new_group = np.ones(rows.shape[0], dtype=bool)
    new_group[1:] = (query[1:] != query[:-1]) | (pattern_of_row[1:] != pattern_of_row[:-1])
    group_start = np.flatnonzero(new_group)
    group_size = np.diff(group_start, append=rows.shape[0])
    group_query = query[group_start]
    pattern = relevant[rows[group_start]]  # (n_groups, n_intents)
    keys = layout.doc_key[rows]
    # the groups of each query that has any: a segment of the group arrays
    new_query = np.ones(group_query.shape[0], dtype=bool)
    new_query[1:] = group_query[1:] != group_query[:-1]
    query_group_start = np.flatnonzero(new_query)
    queries_with_groups = group_query[query_group_start]
    group_segment = np.cumsum(new_query) - 1

    depth = int(min(depth, np.bincount(query, minlength=n_queries).max()))
    gains = np.zeros((n_queries, depth))
    # the running factor of each intent, per query with groups: v_j (1 - alpha)**c_j
    factor = layout.weight[queries_with_groups].copy()
    q = 1.0 - layout.alpha
    # each query's groups in slots by descending size: the small groups (rows
    # of several intents, taken early) come last, where used-up slots are cut
    by_size = np.lexsort((-group_size, group_segment))
    slot = np.empty(group_start.shape[0], dtype=np.intp)
    slot[by_size] = (np.arange(group_start.shape[0])
                     - query_group_start[group_segment[by_size]])
    n_slots = int(slot.max()) + 1
    if queries_with_groups.shape[0] * n_slots <= PADDING * group_start.shape[0] + 64:
        # few patterns a query: a (query, slot) table, reduced along its rows
        table = (group_segment, slot)
        filled = _padded(queries_with_groups.shape[0], n_slots, table)
        return _greedy_padded(
            gains, factor, q, keys, filled(group_size, 0), filled(group_start, 0),
            filled(pattern, False), queries_with_groups,
        )
    used = np.zeros(group_start.shape[0], dtype=np.int64)
    no_key = np.iinfo(np.int64).min
    for rank in range(depth):
        left = used < group_size
        if not left.any():
            gains = gains[:, :rank]
            break
        gain = _pattern_gains(pattern, factor[group_segment])
        gain = np.where(left, gain, -1.0)
        best = np.maximum.reduceat(gain, query_group_start)
        candidate = left & (gain == best[group_segment])
        next_key = np.where(
            candidate, keys[np.minimum(group_start + used, rows.shape[0] - 1)], no_key
        )
        best_key = np.maximum.reduceat(next_key, query_group_start)
        chosen = np.flatnonzero(candidate & (next_key == best_key[group_segment]))
        segment = group_segment[chosen]
        gains[queries_with_groups[segment], rank] = gain[chosen]
        used[chosen] += 1
        factor[segment] *= np.where(pattern[chosen], q, 1.0)
    return gains


def _pattern_gains(pattern, factor):
    """Row sums of ``factor`` over ``pattern``, added in column order from 0.0
    (as ndeval adds its gains): numpy sums fewer than 8 terms one after the
    other; more columns are added one by one."""
    terms = np.where(pattern, factor, 0.0)
    if pattern.shape[1] < 8:
        return terms.sum(axis=1)
    gain = np.zeros(pattern.shape[0])
    for j in range(pattern.shape[1]):
        gain += terms[:, j]
    return gain


def _padded(n_rows, n_columns, table):
    """A function placing group values in a (query, slot) table, padded."""
    def fill(values, pad):
        out = np.full((n_rows, n_columns) + values.shape[1:], pad, dtype=values.dtype)
        out[table] = values
        return out

    return fill


class _Table:
    """The arrays of the greedy steps, the queries along their last axis; cut
    down to the queries that still have rows to place when fewer than half
    of them do."""

    def __init__(self, **arrays):
        self.__dict__.update(arrays)

    #: the arrays with a slot axis (second to last)
    SLOTTED = ("size", "start", "used", "head_key", "base", "code", "pattern", "columns")

    def keep(self, queries):
        for name, value in list(self.__dict__.items()):
            self.__dict__[name] = value[..., queries]

    def keep_slots(self, n_slots):
        for name in self.SLOTTED:
            if name in self.__dict__:
                self.__dict__[name] = self.__dict__[name][..., :n_slots, :]


def _greedy_padded(gains, factor, q, keys, size, start, pattern, queries):
    """The greedy steps on a (query, slot) table of each query's patterns.

    ``size``, ``start`` (first row of the group in ``keys``), ``pattern``
    (slot x intents) per query and slot; padding slots have size 0. Each
    step takes, per query, the slot of largest gain, equal gains to the
    larger next key; fills ``gains`` (rank columns) and returns it.

    The steps hold the table transposed, (slot, query), so that the
    reductions over a query's slots run along the long axis; the queries
    with no row left and the last slots, once used up in every query, are
    cut off as the steps go. A slot's gain
    is the sum of the factors of its intents, added in column order from
    0.0 as ndeval adds them: one 0/1 table per intent is multiplied and
    added (a product by 1.0 or 0.0 is the factor or 0.0 exactly). (The sums
    of every subset of intents, made once a step and read per slot, were
    slower: a query has far fewer slots than subsets.)
    """
    last = keys.shape[0] - 1
    no_key = np.iinfo(np.int64).min
    n_intents = pattern.shape[2]
    size = np.ascontiguousarray(size.T)
    start = np.ascontiguousarray(start.T)
    exhausted = size == 0  # the padding slots
    t = _Table(
        factor=np.ascontiguousarray(factor.T),  # (intent, query)
        size=size, start=start, queries=queries,
        used=np.zeros(size.shape, dtype=np.int64),
        head_key=np.where(exhausted, no_key, keys[np.minimum(start, last)]),
        pattern=np.ascontiguousarray(np.transpose(pattern, (2, 1, 0))),  # intent, slot, query
    )
    t.columns = t.pattern.astype(np.float64)
    # a slot's gain starts from 0.0, or -inf once its rows are used up
    t.base = np.where(exhausted, -np.inf, 0.0)
    if n_intents <= 8:  # each slot's intents as bits: the factors' steps looked up
        t.code = np.zeros(size.shape, dtype=np.intp)
        for j in range(n_intents):
            t.code |= t.pattern[j].astype(np.intp) << j
        bits = (np.arange(1 << n_intents)[:, None] >> np.arange(n_intents)) & 1
        steps = np.where(bits == 1, q, 1.0)  # (code, intent)
    for rank in range(gains.shape[1]):
        if rank % 4 == 3:  # slots used up in every query are cut off the end
            live = np.flatnonzero(np.isfinite(t.base).any(axis=1))
            if live.shape[0] and live[-1] + 1 < t.base.shape[0]:
                t.keep_slots(live[-1] + 1)
        n_queries = t.size.shape[1]
        gain = t.base.copy()
        term = np.empty(t.size.shape)
        for j in range(n_intents):
            np.multiply(t.columns[j], t.factor[j], out=term)
            gain += term
        best = gain.max(axis=0)
        active = best >= 0.0
        n_active = int(np.count_nonzero(active))
        if n_active == 0:  # every query has placed all its rows
            return gains[:, :rank]
        if 2 * n_active < n_queries:  # most queries are done: drop them
            t.keep(active)
            gain, best = gain[:, active], best[active]
        # equal gains: the larger key of the group's next row (keys are
        # distinct within a query: one slot holds the largest)
        tied_key = np.where(gain == best, t.head_key, no_key)
        choice = tied_key.argmax(axis=0)
        everyone = 2 * n_active < n_queries or n_active == n_queries
        if everyone:
            active = np.arange(t.size.shape[1])
        else:
            active = np.flatnonzero(active)
            choice = choice[active]
        gains[t.queries[active], rank] = best[active]
        taken = t.used[choice, active] + 1
        t.used[choice, active] = taken
        done = taken >= t.size[choice, active]
        t.base[choice, active] = np.where(done, -np.inf, 0.0)
        t.head_key[choice, active] = np.where(
            done, no_key, keys[np.minimum(t.start[choice, active] + taken, last)])
        if n_intents <= 8:
            step = steps[t.code[choice, active]].T
        else:
            step = np.where(t.pattern[:, choice, active], q, 1.0)
        if everyone:
            t.factor *= step
        else:
            t.factor[:, active] *= step
    return gains
