"""Serendipity: two unrelated formulas that share the name.

* ``formula="auralist"`` (Microsoft recommenders, after Zhang et al.'s
  Auralist, WSDM 2012): a recommended item's unexpectedness is one minus its
  mean similarity to the items of the user's history, times its relevance.
* ``formula="lab41"`` (RecTools, after Lab41's blog post): the amount by
  which the item's position in the user's list beats its popularity rank,
  ``max(p(rank) - p(popularity rank), 0)``, times its relevance.

Both are means over the rows of a list, so ties at the cutoff are exact by
weighting each row by its inclusion probability (Auralist) or by its
probability of sitting at each position of its tie block (Lab41).
"""

import numpy as np

from .._core._params import AGGREGATE, COUNT, choice
from .._core._validation import check_same_length
from ._cooccurrence import Cooccurrence
from ._diversity import METRICS, SIMILARITIES, item_vectors
from ._history import finish
from ._item_vectors import row_dots, set_sums
from ._lists import code_items, top_k_inclusion
from ._presets import validate_with_recsys_preset

FORMULAS = ("auralist", "lab41")

def _check_relevant(relevant, n_rows, dtype=None):
    if relevant is None:
        return np.ones(n_rows)
    values = np.asarray(relevant)
    if values.ndim != 1 or values.shape[0] != n_rows:
        raise ValueError(
            f"`relevant` must have one value per row ({n_rows}), got shape {values.shape}."
        )
    try:
        values = values.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("`relevant` must hold numbers (1 relevant, 0 not).") from None
    if not np.isfinite(values).all() or (values < 0).any():
        raise ValueError("`relevant` must be finite and non-negative.")
    if dtype == "float16":  # as Microsoft recommenders reads its relevance column
        values = values.astype(np.float16).astype(np.float64)
    return values


def _lab41_per_row(topk, popularity_rank, n_catalog, k):
    """Expected ``max(c - position, 0) / n`` over the positions of the row's tie block.

    The block takes positions ``above + 1 .. above + B`` with probability
    ``1/B`` each; the sum of ``c - position`` over those at most ``k`` and
    below ``c`` is an arithmetic series.
    """
    size = topk.block_size.astype(np.float64)
    c = popularity_rank.astype(np.float64)
    low = topk.above.astype(np.float64) + 1
    high = np.minimum(np.minimum(low + size - 1, k), c - 1)
    count = np.maximum(high - low + 1, 0)
    total = count * c - (low + high) * count / 2
    return total / (size * n_catalog)


def _popularity_rank(history_code, n_codes):
    """Dense rank of each item's interaction count (1 = most), ``n + 1`` later for cold."""
    counts = np.bincount(history_code, minlength=n_codes)
    distinct = np.unique(counts[counts > 0])[::-1]
    rank = np.zeros(n_codes, dtype=np.int64)
    seen = counts > 0
    rank[seen] = np.searchsorted(-distinct, -counts[seen]) + 1
    return rank, seen


@validate_with_recsys_preset({
    "k": COUNT,
    "formula": choice(*FORMULAS),
    "metric": choice(*METRICS),
    "similarity": choice(*SIMILARITIES),
    "relevant_dtype": choice(None, "float16"),
    "aggregate": choice(*AGGREGATE),
}, stem="serendipity")
def serendipity_score(
    item_id, y_score, *, query_id, k=10, relevant=None, history_item_id=None,
    history_query_id=None, catalog=None, item_features=None, formula="auralist",
    metric="cosine", similarity="features", relevant_dtype=None, compat=None,
    aggregate="mean",
):
    r"""Serendipity of each user's top ``k``: relevant and unexpected items.

    Two unrelated formulas carry this name; ``formula`` picks one.

    ``"auralist"`` (Microsoft recommenders): for a list of ``L`` items,

    .. math::

        \frac{1}{L} \sum_{i \in \text{list}} \Bigl(1 - \frac{1}{|H_u|}
        \sum_{h \in H_u} \mathrm{sim}(i, h)\Bigr)\, \mathrm{rel}(i)

    with ``H_u`` the user's history (its rows) and ``sim`` the cosine or
    Hamming similarity of the items' features or their co-occurrence in the
    history. A user without history is left out of the mean.

    ``"lab41"`` (RecTools): with ``n`` the catalog size, ``pos(i)`` the
    item's position in the list and ``pop(i)`` the dense rank of its
    interaction count in the history (1 = most interacted; ``n + 1`` for an
    item the history never saw),

    .. math::

        \frac{1}{L} \sum_{i \in \text{list}} \max\Bigl(\frac{pop(i) - pos(i)}{n},
        0\Bigr)\, [\mathrm{rel}(i) > 0]

    Parameters
    ----------
    item_id : array-like of shape (n_samples,)
        The item of each (user, item) row.
    y_score : array-like of shape (n_samples,)
        Scores ordering each user's candidates (higher first).
    query_id : array-like of shape (n_samples,)
        The user of each row.
    k : int, default=10
        The length of each list.
    relevant : array-like of shape (n_samples,), default=None
        The relevance of each row (1 when the user interacted with the
        item in the test period); None: every row is relevant (Microsoft
        recommenders' default).
    history_item_id, history_query_id : array-like, default=None
        The training interactions. ``"auralist"`` needs both; ``"lab41"``
        only the items.
    catalog : array-like, default=None
        Every item that could be recommended; ``"lab41"`` needs its size.
    item_features : pandas.DataFrame, default=None
        One numeric row per item, for ``similarity="features"`` (every
        recommended item and every history item needs one).
    formula : {"auralist", "lab41"}, default="auralist"
        Which serendipity (see above).
    metric : {"cosine", "hamming", "hamming_count"}, default="cosine"
        The feature similarity for ``"auralist"``: cosine, or the share of
        features on which two items agree (both Hamming options).
    similarity : {"features", "cooccurrence"}, default="features"
        Feature similarity, or co-occurrence in the history
        (``n_ij / sqrt(n_i n_j)``, Microsoft recommenders'
        ``item_cooccurrence_count``).
    relevant_dtype : {None, "float16"}, default=None
        Round ``relevant`` to float16 first, as Microsoft recommenders reads
        its relevance column (0 and 1 are exact; 0.3 becomes 0.2999...).
    compat : {"recommenders", "rectools"}, default=None
        ``"recommenders"``: the Auralist formula with cosine features (or
        co-occurrence when ``similarity="cooccurrence"``); ``"rectools"``:
        the Lab41 formula.
    aggregate : {"mean", None}, default="mean"
        The mean over users, or per-user values (:class:`skrank.QueryValues`).

    Returns
    -------
    score : float or QueryValues

    Notes
    -----
    Ties at the cutoff: the expectation over every order of the tied rows.

    Examples
    --------
    >>> from skrank.recsys import serendipity_score
    >>> items, scores, users = ["a", "b", "c"], [3, 2, 1], [1, 1, 1]
    >>> round(serendipity_score(items, scores, query_id=users, k=3, relevant=[1, 0, 1],
    ...                         history_item_id=["a", "a", "b"],
    ...                         catalog=["a", "b", "c", "d"], formula="lab41"), 4)
    0.1667
    """
    topk = top_k_inclusion(item_id, y_score, query_id, k)
    rel = _check_relevant(relevant, len(topk.inclusion), relevant_dtype)
    if history_item_id is None:
        raise ValueError("`history_item_id` is required: the training interactions.")
    if formula == "lab41":
        return _lab41(item_id, topk, rel, history_item_id, catalog, k, aggregate)
    if history_query_id is None:
        raise ValueError(
            "`history_query_id` is required with formula='auralist': each user's "
            "history is compared with their list."
        )
    check_same_length(history_item_id=history_item_id, history_query_id=history_query_id)
    vectors, item_code, (history_code,) = item_vectors(
        item_id, topk, item_features=item_features, metric=metric, similarity=similarity,
        history_item_id=history_item_id, history_query_id=history_query_id,
        extra_items=(history_item_id,))
    # the history's users on the lists' user codes (history-only users dropped)
    user_code, (history_user,), _ = code_items(
        query_id, history_query_id, names=("history_query_id",))
    to_list = np.full(int(max(user_code.max(), history_user.max())) + 1, -1)
    to_list[user_code] = topk.query_code
    history_list = to_list[history_user]
    keep = history_list >= 0
    n_queries = topk.n_queries
    n_history = np.bincount(history_list[keep], minlength=n_queries).astype(np.float64)
    rows = np.flatnonzero(topk.inclusion > 0)
    q = topk.query_code[rows]
    if isinstance(vectors, Cooccurrence):
        total = _history_similarity(vectors, item_code[rows], q, history_list[keep],
                                    history_code[keep])
    else:
        sums = set_sums(vectors, history_list[keep], history_code[keep],
                        np.ones(int(keep.sum())), n_queries)
        own = vectors.vectors[item_code[rows]]
        total = row_dots(own, sums[q]) / vectors.base
    mean_similarity = total / np.maximum(n_history[q], 1)
    value = topk.inclusion[rows] * (1 - mean_similarity) * rel[rows]
    per_user = np.bincount(q, value, minlength=n_queries) / topk.list_length
    per_user[n_history == 0] = np.nan
    return finish(topk, per_user, aggregate, what="serendipity_score")


def _history_similarity(table, item, user, history_user, history_item):
    """Per row: the sum of ``sim(item, h)`` over the rows ``h`` of its user's history."""
    order = np.argsort(history_user, kind="stable")
    history_item = history_item[order]
    size = np.bincount(history_user, minlength=int(user.max(initial=-1)) + 1)
    start = np.cumsum(size) - size
    count = size[user]
    row = np.repeat(np.arange(len(item)), count)
    offset = np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count)
    other = history_item[np.repeat(start[user], count) + offset]
    return np.bincount(row, table.similarity(item[row], other), minlength=len(item))


def _lab41(item_id, topk, rel, history_item_id, catalog, k, aggregate):
    if catalog is None:
        raise ValueError(
            "`catalog` is required with formula='lab41': the probabilities are "
            "positions out of the catalog's size."
        )
    item_code, (history_code, catalog_code), labels = code_items(
        item_id, history_item_id, catalog, names=("history_item_id", "catalog"))
    n_catalog = len(np.unique(catalog_code))
    if n_catalog == 0:
        raise ValueError("`catalog` is empty.")
    rank, seen = _popularity_rank(history_code, len(labels))
    rank[~seen] = n_catalog + 1  # a cold item: probability 0 for any user
    value = _lab41_per_row(topk, rank[item_code], n_catalog, k) * (rel > 0)
    per_user = np.bincount(topk.query_code, value, minlength=topk.n_queries)
    return finish(topk, per_user / topk.list_length, aggregate, what="serendipity_score")
