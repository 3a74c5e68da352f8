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
    block_size: np.ndarray
    slots: np.ndarray
    above: np.ndarray
    list_length: np.ndarray
    k: int

    @property
    def n_queries(self):
        return len(self.queries)


def _codes(ids, n_rows, name):
    """Dense codes ``0..n-1`` of ``ids`` and the distinct ids (ascending where orderable)."""
    keys, labels = factorize(ids, n_rows, name=name)
    if labels is None:  # numeric ids are their own keys
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
    # one lexsort: by user, then descending score
    order = np.lexsort((-score if score.dtype.kind == "f" else -score.astype(np.float64),
                        query_code))
    q = query_code[order]
    s = score[order]
    new_query = np.r_[True, q[1:] != q[:-1]]
    new_block = new_query | np.r_[True, s[1:] != s[:-1]]
    block_sorted = np.cumsum(new_block) - 1
    block_start = np.flatnonzero(new_block)
    sizes = np.diff(np.r_[block_start, n_rows])
    query_start = np.flatnonzero(new_query)
    # rows of the same user ranked strictly above each block
    first_row_of_query = np.repeat(query_start, np.diff(np.r_[query_start, n_rows]))
    above = block_start - first_row_of_query[block_start]
    block_slots = np.clip(k - above, 0, sizes)
    inclusion_sorted = (block_slots / sizes)[block_sorted]

    inclusion = np.empty(n_rows)
    inclusion[order] = inclusion_sorted
    block = np.empty(n_rows, dtype=np.int64)
    block[order] = block_sorted
    per_user = np.bincount(query_code, minlength=len(queries))
    return TopK(
        inclusion=inclusion,
        query_code=query_code,
        queries=queries,
        block=block,
        block_size=sizes[block],
        slots=block_slots[block],
        above=above[block],
        list_length=np.minimum(per_user, k).astype(np.int64),
        k=k,
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
