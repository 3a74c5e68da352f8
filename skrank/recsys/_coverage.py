"""Catalog coverage, distributional coverage (entropy) and the Gini index of exposure.

These read all lists at once. Catalog coverage counts the distinct items of
the lists: with ties at the cutoff it is the exact expectation (an item is
in no list with the product of its rows' probabilities of being out, the
users' tie orders being independent). Entropy and Gini are not sums over
rows: skrank computes them on the EXPECTED recommendation counts (or
exposures), which is exact without ties at the cutoff and, with them, the
entropy/Gini of the expected distribution, not the expected entropy/Gini.
"""

import numpy as np

from .._core._params import COUNT, Rule, choice
from .._core._validation import describe
from ._lists import code_items, distinct_count, expected_rank_weight, top_k_inclusion
from ._novelty import BASE, _flag
from ._presets import validate_with_recsys_preset

FLAG = Rule(_flag, (1, "yes", None))


def _check_items(name, value):
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 1:
        raise ValueError(f"`{name}` must be a positive integer or None, got "
                         f"{describe(value)}.")
    return int(value)


N_ITEMS = Rule(_check_items, (0, -1, 2.5, "10", True))


def _catalog_check(item_code, catalog_code, where):
    known = np.zeros(int(max(item_code.max(initial=-1), catalog_code.max(initial=-1))) + 1,
                     dtype=bool)
    known[catalog_code] = True
    outside = ~known[item_code]
    if outside.any():
        raise ValueError(
            f"`item_id` has {int(len(np.unique(item_code[outside])))} item(s) that are "
            f"not in {where}: coverage is a share of {where}. Add them to it, or pass "
            "outside='count' to count them anyway (as the libraries do)."
        )


@validate_with_recsys_preset(
    {"k": COUNT, "normalize": choice("catalog", "history", None),
     "outside": choice("error", "count"), "padding_item": FLAG},
    stem="catalog_coverage",
)
def catalog_coverage_score(item_id, y_score, *, query_id, k=10, catalog=None,
                           history_item_id=None, normalize="catalog", outside="error",
                           padding_item=False, compat=None):
    """Catalog coverage: the share of the catalog that appears in some user's list.

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
    catalog : array-like, default=None
        The items that could be recommended. None: every item of
        ``item_id`` (the candidates) and of ``history_item_id``.
    history_item_id : array-like, default=None
        The items of the training interactions (needed for
        ``normalize="history"``; otherwise they join the default catalog).
    normalize : {"catalog", "history", None}, default="catalog"
        Divide the number of distinct recommended items by the catalog's
        size, by the number of distinct items of the history (Microsoft
        recommenders), or not at all (the count, RecTools'
        ``normalize=False``).
    outside : {"error", "count"}, default="error"
        A recommended item outside the catalog (or, with
        ``normalize="history"``, without history): a ``ValueError``, or
        counted in the numerator anyway (every library does: the share can
        then exceed 1).
    padding_item : bool, default=False
        Count one more catalog item (RecBole's padding item 0).
    compat : {"recommenders", "rectools", "recbole"}, default=None
        The library's convention; options given explicitly win.

    Returns
    -------
    score : float

    Notes
    -----
    With ties at the cutoff, the expected number of distinct recommended
    items: :math:`\\sum_i 1 - \\prod_{r \\in i} (1 - p_r)`, ``p_r`` a row's
    probability of being in its user's list.

    Examples
    --------
    >>> from skrank.recsys import catalog_coverage_score
    >>> catalog_coverage_score(["a", "b", "a", "c"], [2, 1, 2, 1],
    ...                        query_id=[0, 0, 1, 1], k=1, catalog=["a", "b", "c", "d"])
    0.25
    """
    topk = top_k_inclusion(item_id, y_score, query_id, k)
    others, names = [], []
    if catalog is not None:
        others.append(catalog)
        names.append("catalog")
    if history_item_id is not None:
        others.append(history_item_id)
        names.append("history_item_id")
    item_code, other_codes, labels = code_items(item_id, *others, names=tuple(names))
    codes = dict(zip(names, other_codes))
    covered = _expected_distinct(item_code, topk.inclusion, len(labels))
    if normalize == "history":
        if history_item_id is None:
            raise ValueError("normalize='history' divides by the history's distinct "
                             "items: pass `history_item_id`.")
        universe = codes["history_item_id"]
        where = "the history"
    elif catalog is not None:
        universe = codes["catalog"]
        where = "the catalog"
    else:
        universe = np.r_[item_code, codes.get("history_item_id", np.empty(0, np.int64))]
        where = "the catalog"
    if outside == "error":
        _catalog_check(item_code[topk.inclusion > 0], universe, where)
    if normalize is None:
        return float(covered)
    size = distinct_count(universe) + (1 if padding_item else 0)
    return float(covered / size)


def _expected_distinct(item_code, inclusion, n_codes):
    """Expected number of distinct items among the rows, rows in or out independently."""
    sure = np.bincount(item_code, weights=inclusion >= 1, minlength=n_codes) > 0
    partial = (inclusion > 0) & (inclusion < 1)
    log_out = np.bincount(item_code[partial], weights=np.log1p(-inclusion[partial]),
                          minlength=n_codes)
    chance = np.where(sure, 1.0, -np.expm1(log_out))
    return chance.sum()


def _expected_counts(topk, item_code, weight="count", patience=0.85):
    """Expected exposure of each item code: rows weighted by their expected rank weight."""
    if weight == "count":
        row = topk.inclusion
    else:
        ranks = np.arange(1, topk.k + 1, dtype=np.float64)
        if weight == "geometric":
            weights = patience ** (ranks - 1)
        else:  # "log2", DCG's discount
            weights = 1.0 / np.log2(ranks + 1)
        row = expected_rank_weight(topk, weights)
    return np.bincount(item_code, weights=row)


@validate_with_recsys_preset(
    {"k": COUNT, "base": BASE, "per_item": FLAG}, stem="distributional_coverage")
def distributional_coverage_score(item_id, y_score, *, query_id, k=10, base=2,
                                  per_item=False, compat=None):
    """Distributional coverage: the entropy of how often each item is recommended.

    The share of an item is its number of appearances in all lists divided
    by the number of list rows; the result is the Shannon entropy
    :math:`-\\sum_i p_i \\log_b p_i` (0 when every list is the same single
    item; ``log_b`` of the number of items when all are equally often
    recommended).

    Parameters
    ----------
    item_id, y_score, query_id, k
        As for :func:`catalog_coverage_score`.
    base : float, default=2
        The base of the logarithm (RecBole: ``numpy.e``).
    per_item : bool, default=False
        Divide the entropy by the number of distinct recommended items
        (RecBole's ShannonEntropy does, a bug reported upstream).
    compat : {"recommenders", "recbole"}, default=None
        The library's convention; options given explicitly win.

    Returns
    -------
    score : float

    Notes
    -----
    With ties at the cutoff the entropy of the expected counts (each row
    counting by its probability of being in the list), not the expected
    entropy.

    Examples
    --------
    >>> from skrank.recsys import distributional_coverage_score
    >>> distributional_coverage_score(["a", "b", "a", "c"], [2, 1, 2, 1],
    ...                               query_id=[0, 0, 1, 1], k=2)
    1.5
    """
    topk = top_k_inclusion(item_id, y_score, query_id, k)
    item_code, _, _ = code_items(item_id)
    counts = _expected_counts(topk, item_code)
    share = counts[counts > 0] / counts.sum()
    entropy = float(-(share * np.log(share)).sum() / np.log(base))
    if per_item:
        entropy /= len(share)
    return entropy + 0.0


@validate_with_recsys_preset(
    {"k": COUNT, "n_items": N_ITEMS, "weight": choice("count", "geometric", "log2"),
     "patience": Rule(lambda name, v: _check_patience(name, v), (0, 1, 1.5, "0.5")),
     "padding_item": FLAG},
    stem="gini",
)
def gini_score(item_id, y_score, *, query_id, k=10, n_items=None, weight="count",
               patience=0.85, padding_item=False, compat=None):
    """Gini index of item exposure: 0 when every item is recommended equally, towards 1
    when a few items take every list.

    Parameters
    ----------
    item_id, y_score, query_id, k
        As for :func:`catalog_coverage_score`.
    n_items : int, default=None
        The number of items in the catalog (items never recommended have
        exposure 0). None: the distinct items of ``item_id`` (every
        candidate).
    weight : {"count", "geometric", "log2"}, default="count"
        An item's exposure: the number of lists it is in (RecBole's
        GiniIndex, LensKit's ListGini), the sum of ``patience ** (rank -
        1)`` over the lists (LensKit's ExposureGini), or of
        ``1 / log2(rank + 1)`` (DCG's discount; LensKit's ``LogRankWeight``
        clips ranks 1 and 2 to weight 1 by default, its ``offset=1`` is this).
    patience : float, default=0.85
        The patience of ``weight="geometric"``, in (0, 1).
    padding_item : bool, default=False
        Count one more catalog item with exposure 0 (RecBole's padding item).
    compat : {"recbole", "lenskit"}, default=None
        The library's convention; options given explicitly win.

    Returns
    -------
    score : float

    Notes
    -----
    .. math:: G = \\frac{\\sum_{j=1}^{n} (2j - n - 1) e_{(j)}}{n \\sum_j e_{(j)}}

    with the exposures :math:`e_{(j)}` in ascending order over the ``n``
    catalog items. With ties at the cutoff, the Gini of the expected
    exposures, not the expected Gini.

    Examples
    --------
    >>> from skrank.recsys import gini_score
    >>> # counts a:2, b:0, c:0, d:0 (ascending 0, 0, 0, 2) => (2*4 - 5) * 2 / (4 * 2)
    >>> gini_score(["a", "b", "a", "c"], [2, 1, 2, 1], query_id=[0, 0, 1, 1], k=1,
    ...            n_items=4)
    0.75
    """
    topk = top_k_inclusion(item_id, y_score, query_id, k)
    item_code, _, _ = code_items(item_id)
    exposure = _expected_counts(topk, item_code, weight, patience)
    exposure = exposure[exposure > 0]
    if n_items is None:
        n_items = distinct_count(item_code)
    if len(exposure) > n_items:
        raise ValueError(
            f"`n_items` is {n_items}, but the lists hold {len(exposure)} distinct items: "
            "n_items must count every item of the catalog."
        )
    n = n_items + (1 if padding_item else 0)
    sorted_exposure = np.sort(exposure)
    rank = np.arange(n - len(exposure) + 1, n + 1, dtype=np.float64)
    return float(np.sum((2 * rank - n - 1) * sorted_exposure) / (n * exposure.sum()))


def _check_patience(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)) \
            or not 0 < value < 1:
        raise ValueError(f"`{name}` must be a number in (0, 1), got {describe(value)}.")
    return float(value)
