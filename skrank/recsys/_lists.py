"""Recommendation lists: the top k rows of each user, with ties at the cutoff.

Every metric of :mod:`skrank.recsys` reads its input through here. Rows are
(user, item) pairs: ``item_id``, ``y_score`` ordering each user's candidates
(higher first) and ``query_id`` the user; the top ``k`` rows of a user are
their recommendation list. The history (training interactions) is coded
with the same item codes as the lists, so an item of a list that the
history never saw ("cold", "unseen") is recognisable.

Ties at the cutoff. When a block of ``B`` rows with equal scores straddles
the cutoff with ``m`` of its rows inside the top k, every order of the tied
rows is equally likely (as for skrank's ranking metrics, McSherry & Najork,
ECIR 2008): each row of the block is in the list with probability ``m/B``.
A row above the block is in with probability 1, one below it with 0. A
metric that is a sum over the rows of a list (novelty, ARP, tail share,
coverage indicators through products) is then exact in expectation by
weighting each row by its inclusion probability; two rows of the same
straddling block are both in with probability ``m(m-1) / (B(B-1))``
(:func:`pair_inclusion`), two rows of different blocks independently.

The public entry is :func:`top_k_inclusion`; :func:`code_items` codes the
items of lists, history and catalog together.
"""

from dataclasses import dataclass

import numpy as np

from .._core._factorize import factorize
from .._core._validation import check_positive_int, check_score, check_same_length


@dataclass(frozen=True)
class TopK:
    """The top k rows of each user, in the input's row order.

    Attributes
    ----------
    inclusion : ndarray of float64, shape (n_rows,)
        Probability that the row is in its user's top k (1, 0, or
        ``slots / block_size`` for a tie block straddling the cutoff).
    query_code : ndarray of int64, shape (n_rows,)
        The row's user as a code ``0..n_queries-1`` (``queries[code]``).
    queries : ndarray, shape (n_queries,)
        The distinct user ids, in ascending order where they can be ordered.
    block : ndarray of int64, shape (n_rows,)
        A code of the row's tie block (rows of one user with equal scores).
    block_size : ndarray of int64, shape (n_rows,)
        ``B``, the number of rows in the row's tie block.
    slots : ndarray of int64, shape (n_rows,)
        ``m``, how many rows of the row's tie block are inside the top k
        (``B`` when the whole block is in, 0 when it is out).
    above : ndarray of int64, shape (n_rows,)
        Rows of the same user ranked strictly above the row's tie block (its
        block takes positions ``above + 1 .. above + block_size``).
    list_length : ndarray of int64, shape (n_queries,)
        ``min(k, rows of the user)``: the length of each user's list.
    k : int
        The cutoff.
    """

    inclusion: np.ndarray
    query_code: np.ndarray
    queries: np.ndarray
    block: np.ndarray
    list_length: np.ndarray
    k: int
    # per tie block (indexed by ``block``): its size, its rows inside the
    # top k, the user's rows ranked above it; the per-row views below
    sizes_of_block: np.ndarray
    slots_of_block: np.ndarray
    above_block: np.ndarray

    @property
    def n_queries(self):
        return len(self.queries)

    @property
    def block_size(self):
        return self.sizes_of_block[self.block]

    @property
    def slots(self):
        return self.slots_of_block[self.block]

    @property
    def above(self):
        return self.above_block[self.block]


def dense_codes(keys):
    """``(codes, distinct)`` of integer ``keys`` in a small range, in O(n); else None.

    Item and user ids are often integers ``0..m`` with ``m`` about the number
    of rows: a table lookup is then several times faster than a sort.
    """
    if keys.dtype.kind not in "iu" or len(keys) == 0:
        return None
    low, high = int(keys.min()), int(keys.max())
    if low < 0 or high > 4 * len(keys) + 1024:
        return None
    present = np.bincount(keys, minlength=high + 1) > 0
    code_of = np.cumsum(present) - 1
    return code_of[keys].astype(np.int64), np.flatnonzero(present).astype(keys.dtype)


def distinct_count(values):
    """The number of distinct values of an integer array (a sort; numpy's hash
    path of ``np.unique`` is slower on a million distinct values)."""
    if len(values) == 0:
        return 0
    ordered = np.sort(values)
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + 1


def _codes(ids, n_rows, name):
    """Dense codes ``0..n-1`` of ``ids`` and the distinct ids (ascending where orderable)."""
    keys, labels = factorize(ids, n_rows, name=name)
    if labels is None:  # numeric ids are their own keys
        dense = dense_codes(np.asarray(keys))
        if dense is not None:
            return dense
        labels, codes = np.unique(keys, return_inverse=True)
        return codes.reshape(-1).astype(np.int64), labels
    used, codes = np.unique(keys, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), np.asarray(labels)[used]


def top_k_inclusion(item_id, y_score, query_id, k):
    """Each row's probability of being in its user's top ``k`` by ``y_score``.

    Parameters
    ----------
    item_id : array-like of shape (n_samples,)
        The recommended item of each row (checked for length and missing values).
    y_score : array-like of shape (n_samples,)
        Scores; higher ranks first within a user.
    query_id : array-like of shape (n_samples,)
        The user of each row (any hashable ids).
    k : int
        The list length (a positive integer).

    Returns
    -------
    topk : TopK
        Inclusion probabilities and codes, aligned with the input rows.
    """
    k = check_positive_int("k", k, allow_none=False)
    if query_id is None:
        raise ValueError(
            "`query_id` is required: one user id per row (the rows are (user, item) "
            "pairs and each user's top k rows are their list)."
        )
    score = check_score("y_score", y_score, ndim=(1,))
    n_rows = score.shape[0]
    if n_rows == 0:
        raise ValueError("`y_score` is empty: give at least one (user, item) row.")
    check_same_length(y_score=score, item_id=np.asarray(item_id, dtype=object)
                      if not hasattr(item_id, "__len__") else item_id,
                      query_id=query_id)
    factorize(item_id, n_rows, name="item_id")  # missing or unhashable ids
    query_code, queries = _codes(query_id, n_rows, "query_id")
    if score.dtype.kind == "f" and np.isneginf(score).any():
        raise ValueError("`y_score` contains -inf: every candidate needs a finite score.")
    order = _by_user_then_score(query_code, score)
    if order is None:  # already sorted
        q, s = query_code, score
    else:
        q, s = query_code[order], score[order]
    new_block = np.empty(n_rows, dtype=bool)
    new_block[0] = True
    np.not_equal(s[1:], s[:-1], out=new_block[1:])
    new_block[1:] |= q[1:] != q[:-1]
    block_sorted = np.cumsum(new_block) - 1
    block_start = np.flatnonzero(new_block)
    sizes = np.diff(np.r_[block_start, n_rows])
    # rows of the same user ranked strictly above each block
    per_user = np.bincount(query_code, minlength=len(queries))
    query_start = np.r_[0, np.cumsum(per_user)[:-1]]
    above = block_start - query_start[q[block_start]]
    block_slots = np.minimum(np.maximum(k - above, 0), sizes)
    inclusion = (block_slots / sizes)[block_sorted]
    block = block_sorted
    if order is not None:
        inclusion = np.empty(n_rows)
        inclusion[order] = (block_slots / sizes)[block_sorted]
        block = np.empty(n_rows, dtype=np.int64)
        block[order] = block_sorted
    return TopK(
        inclusion=inclusion,
        query_code=query_code,
        queries=queries,
        block=block,
        list_length=np.minimum(per_user, k).astype(np.int64),
        k=k,
        sizes_of_block=sizes,
        slots_of_block=block_slots,
        above_block=above,
    )


def expected_rank_weight(topk, weights):
    """Each row's expected rank weight: ``weights[r - 1]`` for rank r <= k, 0 beyond.

    ``weights`` has length ``k``. A row of a tie block spanning positions
    ``a+1 .. a+B`` takes each with probability ``1/B``; with unit weights
    this is the inclusion probability.
    """
    cumulative = np.r_[0.0, np.cumsum(weights)]
    k = len(weights)
    low = np.minimum(topk.above, k)
    high = np.minimum(topk.above + topk.block_size, k)
    return (cumulative[high] - cumulative[low]) / topk.block_size


def _by_user_then_score(query_code, score):
    """Row order by user, then descending score (equal scores adjacent);
    None when the rows are in that order already.

    Rows already in that order (checked in O(n)) are not sorted. Float
    scores: one sort of the scores, then one of the integer key
    ``user * n + position in that sort`` (about six times faster than a
    lexsort of the two keys on a million rows); other dtypes: a lexsort.
    """
    n = len(score)
    same_user = query_code[1:] == query_code[:-1]
    if (query_code[1:] >= query_code[:-1]).all() and (
            score[1:][same_user] <= score[:-1][same_user]).all():
        return None  # already sorted, as a recommender's output often is
    if score.dtype.kind != "f":
        return np.lexsort((_descending_rank(score), query_code))
    position = np.empty(n, dtype=np.int64)
    position[np.argsort(-score)] = np.arange(n)
    return np.argsort(query_code * np.int64(n) + position)


def _descending_rank(score):
    """An integer key ordering ``score`` descending (equal scores equal keys)."""
    order = np.argsort(score, kind="stable")
    ordered = score[order]
    step = np.r_[0, (ordered[1:] != ordered[:-1]).astype(np.int64)]
    key = np.empty(len(score), dtype=np.int64)
    key[order] = -np.cumsum(step)
    return key


def pair_inclusion(topk, first, second):
    """Probability that rows ``first`` and ``second`` (index arrays) are both in the list.

    Rows of different tie blocks are in or out independently (the product
    of their inclusion probabilities); two distinct rows of one block with
    ``m`` slots among ``B`` rows are both in with ``m(m-1) / (B(B-1))``.
    """
    first = np.asarray(first)
    second = np.asarray(second)
    together = topk.inclusion[first] * topk.inclusion[second]
    same = topk.block[first] == topk.block[second]
    if same.any():
        b = topk.block_size[first[same]].astype(np.float64)
        m = topk.slots[first[same]].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            both = np.where(b > 1, m * (m - 1) / (b * (b - 1)), m / b)
        together[same] = both
    return together


def code_items(item_id, *others, names=()):
    """Codes of ``item_id`` and of every other item array, on one shared code.

    Returns ``(item_code, [other codes...], labels)``: ``labels[code]`` is the
    item id. Ids of different types (``1`` and ``"1"``) are different items.
    ``names`` are the argument names of ``others`` for error messages.
    """
    arrays = [item_id, *others]
    names = ("item_id", *names)
    lengths = [len(a) for a in arrays]
    pieces = []
    for array, name, n in zip(arrays, names, lengths):
        keys, labels = factorize(array, n, name=name)
        pieces.append(np.asarray(keys) if labels is None else np.asarray(labels)[keys])
    kinds = {p.dtype.kind for p in pieces if len(p)}
    if len(kinds) > 1 and not kinds <= set("biuf"):
        joined = np.empty(sum(lengths), dtype=object)
        joined[:] = [value for p in pieces for value in p.tolist()]
    else:
        joined = np.concatenate(pieces) if pieces else np.empty(0)
    codes, labels = _codes(joined, len(joined), "item_id")
    bounds = np.cumsum([0, *lengths])
    split = [codes[bounds[i]:bounds[i + 1]] for i in range(len(arrays))]
    return split[0], split[1:], labels
