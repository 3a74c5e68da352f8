"""Novelty, average recommendation popularity (ARP) and long-tail share (APLT).

All three are sums over the rows of a list, so ties at the cutoff are exact
in expectation: each row counts by its probability of being in the list
(:func:`~._lists.top_k_inclusion`).
"""

from numbers import Integral, Real

import numpy as np

from .._core._params import Rule, choice, COUNT
from .._core._validation import describe
from ._history import check_base, finish, per_user_sum, prepare
from ._presets import validate_with_recsys_preset

POPULARITY = ("interactions", "users")
DIVIDE_BY = ("length", "k")
_COMMON = {"k": COUNT, "aggregate": choice("mean", None)}
_POPULARITY = {"popularity": choice(*POPULARITY)}
_DIVIDE_BY = {"divide_by": choice(*DIVIDE_BY)}


def _check_tail(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) \
            or not np.isfinite(value) or value <= 0:
        raise ValueError(
            f"`{name}` must be a share of the items in (0, 1] (a float) or a number of "
            f"interactions >= 1 (an int, or a float above 1), got {describe(value)}."
        )
    if isinstance(value, Integral):
        return int(value)
    return float(value)


TAIL = Rule(_check_tail, (0, -1, -0.5, float("nan"), "0.1", True))
BASE = Rule(check_base, (1, 0, -2.0, "2", True))


def _list_length(topk, divide_by, k):
    if divide_by == "k":
        return np.full(topk.n_queries, float(k))
    return topk.list_length.astype(np.float64)


@validate_with_recsys_preset(
    {**_COMMON, **_POPULARITY, "base": BASE, "unseen": choice("zero", "one", "skip"),
     "average": choice("queries", "rows")},
    stem="novelty",
)
def novelty_score(item_id, y_score, *, query_id, k=10, history_item_id,
                  history_query_id=None, popularity="interactions", base=2,
                  unseen="zero", average="queries", aggregate="mean", compat=None):
    """Novelty: the mean self-information of the recommended items.

    The novelty of an item is ``-log_base(count / total)`` where ``count``
    is the item's interactions in the history and ``total`` all
    interactions (``popularity="interactions"``, Castells et al.'s choice
    model), or the item's distinct users and the history's distinct users
    (``popularity="users"``, the inverse user frequency). A user's value is
    the mean over their list; the result is the mean over users
    (``average="queries"``) or over all rows of all lists (``"rows"``).

    Parameters
    ----------
    item_id : array-like of shape (n_rows,)
        The candidate item of each (user, item) row.
    y_score : array-like of shape (n_rows,)
        The model's score of each row; each user's ``k`` highest rows are
        their list.
    query_id : array-like of shape (n_rows,)
        The user of each row.
    k : int, default=10
        The list length.
    history_item_id : array-like of shape (n_interactions,)
        The item of each training interaction.
    history_query_id : array-like of shape (n_interactions,), default=None
        The user of each training interaction; needed for
        ``popularity="users"``.
    popularity : {"interactions", "users"}, default="interactions"
        What an item's popularity counts.
    base : float, default=2
        The base of the logarithm (``numpy.e`` for nats).
    unseen : {"zero", "one", "skip"}, default="zero"
        An item of a list that the history never saw: novelty 0 (it still
        counts in the mean; Microsoft recommenders), counted as one
        interaction/user (RecTools), or left out of the mean (a list of
        unseen items only is then left out of the mean over users).
    average : {"queries", "rows"}, default="queries"
        The mean over users of each user's mean, or the mean over all rows.
    aggregate : {"mean", None}, default="mean"
        None returns :class:`~skrank.QueryValues` (one value per user).
    compat : {"recommenders", "rectools"}, default=None
        The library's convention; options given explicitly win.

    Returns
    -------
    score : float or QueryValues

    Notes
    -----
    .. math:: \\text{novelty}(u) = \\frac{1}{|L_u|} \\sum_{i \\in L_u} -\\log_b \\frac{c_i}{N}

    A tie block straddling the cutoff counts each of its rows by its
    probability of being in the list, which is the exact expectation over
    the orders of the tied rows (with ``unseen="skip"`` the ratio of the
    expected sum to the expected number of seen items).

    Examples
    --------
    >>> from skrank.recsys import novelty_score
    >>> # history: item "a" 3 interactions, "b" 1 => novelty 2 - log2(3) and 2
    >>> novelty_score(["a", "b"], [2, 1], query_id=[0, 0], k=2,
    ...               history_item_id=["a", "a", "a", "b"])
    1.2075...
    """
    topk, item_code, pop = prepare(item_id, y_score, query_id, k, history_item_id,
                                   history_query_id, popularity)
    count = pop.count.copy()
    if unseen == "one":
        count[~pop.seen] = 1.0
    with np.errstate(divide="ignore"):
        item_novelty = np.where(count > 0, -np.log(count / pop.total) / np.log(base), 0.0)
    row_novelty = item_novelty[item_code]
    total = per_user_sum(topk, row_novelty)
    if unseen == "skip":
        counted = per_user_sum(topk, pop.seen[item_code].astype(np.float64))
    else:
        counted = topk.list_length.astype(np.float64)
    if average == "rows":
        if aggregate is None:
            raise ValueError("`average='rows'` pools every row into one value: it has "
                             "no per-user values; use aggregate='mean'.")
        if counted.sum() == 0:
            return finish(topk, np.full(topk.n_queries, np.nan), "mean",
                          what="novelty_score")
        return float(total.sum() / counted.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(counted > 0, total / counted, np.nan)
    return finish(topk, values, aggregate, what="novelty_score")


@validate_with_recsys_preset({**_COMMON, **_POPULARITY, **_DIVIDE_BY, "normalize": Rule(
    lambda name, v: _flag(name, v), (1, "yes", None))}, stem="popularity")
def popularity_score(item_id, y_score, *, query_id, k=10, history_item_id,
                     history_query_id=None, popularity="interactions", normalize=False,
                     divide_by="length", aggregate="mean", compat=None):
    """Average recommendation popularity (ARP): how popular the recommended items are.

    A user's value is the mean popularity of the items of their list, an
    item's popularity being its number of interactions in the history (or
    of distinct users, ``popularity="users"``); the result is the mean over
    users. An item the history never saw has popularity 0.

    Parameters
    ----------
    item_id, y_score, query_id, k, history_item_id, history_query_id, popularity
        As for :func:`novelty_score`.
    normalize : bool, default=False
        Divide each popularity by the total (all interactions, or all users
        of the history), as RecTools' ``normalize=True``.
    divide_by : {"length", "k"}, default="length"
        Divide a user's sum by the length of their list (``min(k, rows)``)
        or by ``k`` (RecBole; the two differ only for users with fewer than
        ``k`` candidates).
    aggregate : {"mean", None}, default="mean"
        None returns :class:`~skrank.QueryValues`.
    compat : {"rectools", "recbole"}, default=None
        The library's convention; options given explicitly win.

    Returns
    -------
    score : float or QueryValues

    Notes
    -----
    Ties at the cutoff are exact: each row counts by its probability of
    being in the list.

    Examples
    --------
    >>> from skrank.recsys import popularity_score
    >>> popularity_score(["a", "b", "c"], [3, 2, 1], query_id=[0, 0, 0], k=2,
    ...                  history_item_id=["a", "a", "a", "b"])
    2.0
    """
    topk, item_code, pop = prepare(item_id, y_score, query_id, k, history_item_id,
                                   history_query_id, popularity)
    count = pop.count / pop.total if normalize else pop.count
    values = per_user_sum(topk, count[item_code]) / _list_length(topk, divide_by, k)
    return finish(topk, values, aggregate, what="popularity_score")


def _flag(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"`{name}` must be True or False, got {describe(value)}.")
    return bool(value)


def tail_items(pop, candidate_codes, tail, unseen):
    """Boolean mask over item codes: the long-tail items.

    The universe is the history's items, with the candidates' unseen items
    (count 0) when ``unseen="tail"``. A float ``tail`` takes the
    ``max(int(tail * n), 1)`` least popular items of the universe (equal
    counts in ascending item id, as RecBole); an int (or a float above 1),
    the items with at most ``tail`` interactions.
    """
    universe = pop.seen.copy()
    if unseen == "tail":
        universe[candidate_codes] = True
    members = np.flatnonzero(universe)
    mask = np.zeros(len(universe), dtype=bool)
    if isinstance(tail, float) and tail <= 1:
        cut = max(int(len(members) * tail), 1)
        order = np.lexsort((members, pop.count[members]))
        mask[members[order[:cut]]] = True
    else:
        mask[members[pop.count[members] <= tail]] = True
    return mask


@validate_with_recsys_preset({**_COMMON, **_DIVIDE_BY, "tail": TAIL,
                              "unseen": choice("tail", "head")}, stem="tail_share")
def tail_share_score(item_id, y_score, *, query_id, k=10, history_item_id, tail=0.1,
                     unseen="tail", divide_by="length", aggregate="mean", compat=None):
    """Average percentage of long-tail items (APLT): the tail's share of each list.

    An item is in the long tail when it is among the least interacted items
    of the history: the ``tail`` share of them (a float in (0, 1); equal
    counts in ascending item id), or those with at most ``tail``
    interactions (an int). A user's value is the share of their list in
    the tail; the result is the mean over users.

    Parameters
    ----------
    item_id, y_score, query_id, k, history_item_id
        As for :func:`novelty_score`.
    tail : float or int, default=0.1
        A share of the items (a float in (0, 1]) or a number of
        interactions (an int, or a float above 1): RecBole's
        ``tail_ratio``, except that RecBole reads ``1`` as the share 1 (all
        items) where skrank's int ``1`` means at most one interaction.
    unseen : {"tail", "head"}, default="tail"
        Items without history: tail items with 0 interactions (and members
        of the item universe the share is taken of), or never tail items
        (RecBole, whose counts know only the history's items).
    divide_by : {"length", "k"}, default="length"
        As for :func:`popularity_score`.
    aggregate : {"mean", None}, default="mean"
        None returns :class:`~skrank.QueryValues`.
    compat : {"recbole"}, default=None
        The library's convention; options given explicitly win.

    Returns
    -------
    score : float or QueryValues

    Notes
    -----
    Ties at the cutoff are exact: each row counts by its probability of
    being in the list.

    Examples
    --------
    >>> from skrank.recsys import tail_share_score
    >>> # counts a:3, b:2, c:1; tail=1 => items with at most one interaction
    >>> tail_share_score(["a", "c"], [2, 1], query_id=[0, 0], k=2, tail=1,
    ...                  history_item_id=["a", "a", "a", "b", "b", "c"])
    0.5
    """
    topk, item_code, pop = prepare(item_id, y_score, query_id, k, history_item_id)
    mask = tail_items(pop, item_code, tail, unseen)
    values = per_user_sum(topk, mask[item_code].astype(np.float64))
    values = values / _list_length(topk, divide_by, k)
    return finish(topk, values, aggregate, what="tail_share_score")
