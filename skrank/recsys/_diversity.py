"""Intra-list diversity: the mean distance between the items of each user's list.

With feature similarities the kernel never enumerates pairs: the items are
vectors whose inner products are their similarities (``_item_vectors.py``),
so the sum over the pairs of a list is ``(||sum v||^2 - sum ||v||^2) / 2``.
Co-occurrence enumerates each list's pairs and looks them up
(``_cooccurrence.py``). Ties at the
cutoff are exact: a list is its sure rows (inclusion 1) and at most one
tie block straddling the cutoff, ``m`` of whose ``B`` rows are in; a pair
of a sure row and a tied row is in with probability ``m/B``, a pair of
tied rows with ``m(m-1)/(B(B-1))`` (``_lists.pair_inclusion``), and the
number of pairs, ``L(L-1)/2`` for a list of ``L`` rows, does not depend on
the order of the ties, so the expected mean is the expected sum over it.
"""

import numpy as np

from .._core._factorize import factorize
from .._core._params import AGGREGATE, COUNT, choice
from ._history import finish
from ._cooccurrence import Cooccurrence, cooccurrence_table, pairs_within
from ._item_vectors import check_item_features, feature_vectors, row_dots, set_sums
from ._lists import code_items, pair_inclusion, top_k_inclusion
from ._presets import validate_with_recsys_preset

METRICS = ("cosine", "hamming", "hamming_count")
SIMILARITIES = ("features", "cooccurrence")
SINGLE = ("skip", "zero", "one")
OUTPUTS = ("diversity", "similarity")


def item_vectors(item_id, topk, *, item_features, metric, similarity,
                 history_item_id=None, history_query_id=None, extra_items=()):
    """Code the items; return ``(similarity, item_code, extra_codes)``.

    ``similarity`` is :class:`~._item_vectors.ItemVectors` (features) or
    :class:`~._cooccurrence.Cooccurrence`. ``extra_items`` are further item
    arrays coded on the same codes (the history, for serendipity). Raises a
    ValueError naming the argument for a recommended item without features,
    or a missing history.
    """
    if similarity == "cooccurrence":
        if history_item_id is None or history_query_id is None:
            raise ValueError(
                "`history_item_id` and `history_query_id` are required with "
                "similarity='cooccurrence': items are similar when the same users "
                "interacted with both in the history."
            )
        if len(history_item_id) != len(history_query_id):
            raise ValueError(
                "`history_item_id` and `history_query_id` must have the same length, "
                f"got {len(history_item_id)} and {len(history_query_id)}."
            )
        item_code, others, labels = code_items(
            item_id, history_item_id, *extra_items,
            names=("history_item_id",) + ("history_item_id",) * len(extra_items))
        _, users = np.unique(_id_keys(history_query_id, "history_query_id"),
                             return_inverse=True)
        table = cooccurrence_table(others[0], users.reshape(-1), len(labels))
        return table, item_code, others[1:]
    if item_features is None:
        raise ValueError(
            "`item_features` is required with similarity='features': a DataFrame "
            "indexed by item id, one column per feature."
        )
    feature_labels, values = check_item_features(item_features)
    item_code, others, labels = code_items(
        item_id, feature_labels, *extra_items,
        names=("item_features",) + ("history_item_id",) * len(extra_items))
    vectors, zero = feature_vectors(values, others[0], len(labels), metric)
    listed = np.zeros(len(labels), dtype=bool)
    listed[item_code[topk.inclusion > 0]] = True
    missing = listed & ~vectors.known
    if missing.any():
        raise ValueError(
            f"`item_features` has no row for {int(missing.sum())} recommended item(s), "
            f"e.g. {labels[missing][:3].tolist()}: give every item of the lists its "
            "features."
        )
    if (listed & zero).any():
        raise ValueError(
            f"`item_features` is all zeros for item(s) {labels[listed & zero][:3].tolist()}: "
            "their cosine similarity is undefined; use metric='hamming' or give them "
            "a non-zero feature."
        )
    return vectors, item_code, [
        _require_features(code, vectors, labels) for code in others[1:]]


def _require_features(code, vectors, labels):
    missing = ~vectors.known[code]
    if missing.any():
        raise ValueError(
            f"`item_features` has no row for {int(missing.sum())} history item(s), "
            f"e.g. {np.unique(labels[code[missing]])[:3].tolist()}."
        )
    return code


def _id_keys(ids, name):
    keys, _ = factorize(ids, len(ids), name=name)
    return np.asarray(keys)


def expected_pair_similarity(topk, item_code, vectors):
    """Per user: the expected sum of ``<v_i, v_j>`` over the pairs of its list."""
    if isinstance(vectors, Cooccurrence):
        listed = np.flatnonzero(topk.inclusion > 0)
        first, second = pairs_within(topk.query_code[listed], listed)
        weight = pair_inclusion(topk, first, second)
        similarity = vectors.similarity(item_code[first], item_code[second])
        return np.bincount(topk.query_code[first], weight * similarity,
                           minlength=topk.n_queries)
    n_queries = topk.n_queries
    q = topk.query_code
    inclusion = topk.inclusion
    squared = vectors.squared_norms()
    sure = topk.slots == topk.block_size
    sure &= inclusion > 0
    tied = (inclusion > 0) & ~sure
    ones = np.ones(int(sure.sum()))
    a = set_sums(vectors, q[sure], item_code[sure], ones, n_queries)
    self_a = np.bincount(q[sure], squared[item_code[sure]], minlength=n_queries)
    total = (row_dots(a, a) - self_a) / 2
    if tied.any():
        b = set_sums(vectors, q[tied], item_code[tied], np.ones(int(tied.sum())), n_queries)
        self_b = np.bincount(q[tied], squared[item_code[tied]], minlength=n_queries)
        one = np.zeros(n_queries)
        both = np.zeros(n_queries)
        m = topk.slots[tied].astype(np.float64)
        size = topk.block_size[tied].astype(np.float64)
        one[q[tied]] = m / size
        both[q[tied]] = m * (m - 1) / (size * (size - 1))
        total += one * row_dots(a, b) + both * (row_dots(b, b) - self_b) / 2
    return total


@validate_with_recsys_preset({
    "k": COUNT,
    "metric": choice(*METRICS),
    "similarity": choice(*SIMILARITIES),
    "single": choice(*SINGLE),
    "output": choice(*OUTPUTS),
    "aggregate": choice(*AGGREGATE),
}, stem="intra_list_diversity")
def intra_list_diversity_score(
    item_id, y_score, *, query_id, k=10, item_features=None, metric="cosine",
    similarity="features", history_item_id=None, history_query_id=None,
    single="skip", output="diversity", compat=None, aggregate="mean",
):
    r"""Intra-list diversity (ILD): the mean distance between the items of a list.

    Rows are (user, item) pairs; each user's top ``k`` rows by ``y_score``
    are their list. For a list of ``L >= 2`` items

    .. math::

        \mathrm{ILD} = \frac{2}{L(L-1)} \sum_{i<j} d(i, j)

    with ``d`` a distance between items: ``1 - cosine`` of their features,
    the Hamming distance of their features, or ``1 - `` their co-occurrence
    similarity in the history. ``output="similarity"`` reports the mean
    similarity instead (intra-list *similarity*, ILS). No item x item table
    of the catalog is built: feature similarities cost O(k d) per list
    (``d`` features, through sums of item vectors); co-occurrence looks each
    of a list's pairs up in a sparse table of the pairs that co-occur in
    the history (built in the sum over history users of their items
    squared).

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
    item_features : pandas.DataFrame, default=None
        One row per item (the index is the item id), one numeric column per
        feature (or a single column holding each item's feature vector, as
        Microsoft recommenders' ``features`` column); required with
        ``similarity="features"``. A recommended item without a row is a
        ValueError.
    metric : {"cosine", "hamming", "hamming_count"}, default="cosine"
        The distance between feature rows: ``1 - cosine``; the share of
        features that differ (scipy's ``hamming``); or their count
        (RecTools).
    similarity : {"features", "cooccurrence"}, default="features"
        ``"cooccurrence"``: items are similar when the same history users
        interacted with both, ``n_ij / sqrt(n_i n_j)`` (``n_ij`` users in
        common, ``n_i`` interactions); needs ``history_item_id`` and
        ``history_query_id``. An item the history never saw has similarity
        0 to every other item.
    history_item_id, history_query_id : array-like, default=None
        The training interactions (item and user of each), for
        ``similarity="cooccurrence"``.
    single : {"skip", "zero", "one"}, default="skip"
        A one-item list has no pair: leave it out of the mean (Microsoft
        recommenders), or score it 0 (RecTools) or 1 (LensKit's ILS).
    output : {"diversity", "similarity"}, default="diversity"
        The mean distance, or the mean similarity (``base - distance``).
    compat : {"recommenders", "rectools", "lenskit"}, default=None
        Compute as that library does (options given explicitly win):
        ``"recommenders"`` cosine, one-item lists skipped; ``"rectools"``
        Hamming count, one-item lists 0; ``"lenskit"`` the mean cosine
        similarity (ILS), one-item lists 1.
    aggregate : {"mean", None}, default="mean"
        The mean over users, or per-user values (:class:`skrank.QueryValues`,
        users in ascending id order, ``nan`` for a skipped user).

    Returns
    -------
    score : float or QueryValues

    Notes
    -----
    Ties at the cutoff: the value is the expectation over every order of
    the tied rows (each pair of rows weighted by the probability that both
    are in the top k). With co-occurrence every pair of rows that may be in
    the list is looked up, O((k + B)²) for a tie block of ``B`` rows at the
    cutoff. Each (user, item) pair must appear once.

    Examples
    --------
    >>> import pandas as pd
    >>> from skrank.recsys import intra_list_diversity_score
    >>> features = pd.DataFrame({"drama": [1, 1, 0], "comedy": [0, 1, 1]},
    ...                         index=["a", "b", "c"])
    >>> round(intra_list_diversity_score(["a", "b", "c"], [3, 2, 1], query_id=[1, 1, 1],
    ...                                  k=2, item_features=features), 4)
    0.2929
    """
    topk = top_k_inclusion(item_id, y_score, query_id, k)
    vectors, item_code, _ = item_vectors(
        item_id, topk, item_features=item_features, metric=metric,
        similarity=similarity, history_item_id=history_item_id,
        history_query_id=history_query_id)
    _refuse_duplicates(topk, item_code)
    length = topk.list_length.astype(np.float64)
    pairs = length * (length - 1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_similarity = expected_pair_similarity(topk, item_code, vectors) / pairs
    base = getattr(vectors, "base", 1.0)
    values = base - mean_similarity if output == "diversity" else mean_similarity
    values[length < 2] = {"skip": np.nan, "zero": 0.0, "one": 1.0}[single]
    return finish(topk, values, aggregate, what="intra_list_diversity_score")


def _refuse_duplicates(topk, item_code):
    listed = topk.inclusion > 0
    key = np.sort(topk.query_code[listed] * (int(item_code.max()) + 1) + item_code[listed])
    if (key[1:] == key[:-1]).any():
        raise ValueError(
            "`item_id` repeats an item for one user: each (user, item) pair must "
            "appear once in the lists."
        )
