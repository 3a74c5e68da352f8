"""The history (training interactions) as item popularity, on the lists' item codes.

Shared by every metric that reads the history. Items of a list that the
history never saw ("cold" or "unseen" items) get a count of 0; what a
metric does with them is its ``unseen`` option. Users of the history that
have no list, and users of a list that have no history, change nothing
here: popularity is a property of items.
"""

import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._core._aggregate import QueryValues
from ._lists import code_items, distinct_count, top_k_inclusion, _codes


class Popularity(NamedTuple):
    """Item popularity from the history, indexed by item code.

    ``count[code]``: interactions with the item (or distinct users who
    interacted with it, ``popularity="users"``); ``total``: all interactions
    (or distinct users of the history); ``seen[code]``: whether the history
    has the item.
    """

    count: np.ndarray
    total: int
    seen: np.ndarray


def _history_codes(history_item_id, history_query_id, needs_users):
    if history_item_id is None:
        raise ValueError(
            "`history_item_id` is required: the items of the training interactions "
            "(one row per interaction), from which item popularity is counted."
        )
    n = len(history_item_id)
    if n == 0:
        raise ValueError("`history_item_id` is empty: popularity needs at least one "
                         "interaction.")
    if history_query_id is None:
        if needs_users:
            raise ValueError(
                "`history_query_id` is required with popularity='users': the user of "
                "each history row (to count the distinct users of each item)."
            )
        return None
    if len(history_query_id) != n:
        raise ValueError(
            f"Inputs have different lengths: `history_item_id` has {n}, "
            f"`history_query_id` has {len(history_query_id)} rows."
        )
    codes, _ = _codes(history_query_id, n, "history_query_id")
    return codes


def prepare(item_id, y_score, query_id, k, history_item_id, history_query_id=None,
            popularity="interactions"):
    """The lists (:class:`~._lists.TopK`), item codes of the rows and :class:`Popularity`."""
    topk = top_k_inclusion(item_id, y_score, query_id, k)
    user_codes = _history_codes(history_item_id, history_query_id,
                                popularity == "users")
    item_code, (history_code,), _ = code_items(
        item_id, history_item_id, names=("history_item_id",))
    n_codes = int(max(item_code.max(initial=-1), history_code.max(initial=-1))) + 1
    seen = np.bincount(history_code, minlength=n_codes) > 0
    if popularity == "users":
        pairs = np.sort(user_codes * np.int64(n_codes) + history_code)
        pairs = pairs[np.r_[True, pairs[1:] != pairs[:-1]]]
        count = np.bincount(pairs % n_codes, minlength=n_codes)
        total = distinct_count(user_codes)
    else:
        count = np.bincount(history_code, minlength=n_codes)
        total = len(history_code)
    return topk, item_code, Popularity(count.astype(np.float64), total, seen)


def per_user_sum(topk, values):
    """Expected sum of ``values`` over each user's list (rows weighted by inclusion)."""
    return np.bincount(topk.query_code, weights=topk.inclusion * values,
                       minlength=topk.n_queries)


def finish(topk, values, aggregate, *, what):
    """The mean of the per-user ``values`` (nan: left out), or :class:`QueryValues`.

    A mean with no user left warns (``UndefinedMetricWarning``) and is nan.
    """
    if aggregate is None:
        return QueryValues(topk.queries, values, np.ones(len(values)))
    defined = ~np.isnan(values)
    if not defined.any():
        warnings.warn(
            f"{what}: no user has a defined value (every list was left out), so the "
            "mean is undefined; returning nan.", UndefinedMetricWarning, stacklevel=3)
        return float("nan")
    return float(np.mean(values[defined]))


def check_base(name, value):
    """A logarithm base: a real number > 0 and != 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise ValueError(f"`{name}` must be a real number > 0 other than 1, got {value!r}.")
    value = float(value)
    if not np.isfinite(value) or value <= 0 or value == 1:
        raise ValueError(f"`{name}` must be a real number > 0 other than 1, got {value!r}.")
    return value

