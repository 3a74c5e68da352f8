"""Group exposure and attention-weighted rank fairness (TREC Fair Ranking 2021).

Each ranked row gets the attention of its position, ``1 / log2(max(r, 2))``
at rank r (TREC Fair 2021's discount); a group's exposure in a query is the
sum over its rows. A ranking with tied scores is the stochastic ranking
uniform over the orders of its tied rows: the discount is linear in the
positions, so a tied row's expected attention is the mean discount of its
block's positions, exact. A 2-D score is a stochastic ranking given by its
samples (one ranking per column), averaged as TREC's ``qrs_exposure`` does.
"""

from collections.abc import Mapping

import numpy as np
from sklearn.utils import Bunch

from .._core._aggregate import QueryValues, finish_mean, partial_mean
from .._core._factorize import factorize
from .._core._layout import rank_queries
from .._core._params import AGGREGATE, choice, validate_params
from .._core._validation import check_score

DISCOUNTS = ("log2_clipped", "log2")


def _discount(rank, how):
    """The attention of each 1-based rank."""
    rank = rank.astype(np.float64)
    if how == "log2_clipped":  # TREC Fair 2021: 1 / log2(max(r, 2))
        return 1.0 / np.log2(np.maximum(rank, 2.0))
    return 1.0 / np.log2(rank + 1.0)  # DCG's


def group_codes(group, n_rows):
    """Each row's group code and the group labels, as fairlearn reads groups.

    ``group`` is one label per row (a list, array or Series), or several
    columns (a DataFrame or 2-D array) whose combinations are the groups
    (intersectional groups, labelled by tuples), as fairlearn's
    ``sensitive_features``.
    """
    columns = _columns(group)
    if columns is None:
        keys, labels = factorize(group, n_rows, name="group")
        uniques, codes = np.unique(keys, return_inverse=True)
        return codes.reshape(-1), _plain(uniques if labels is None else labels[uniques])
    per_column = []
    for values in columns:
        keys, labels = factorize(values, n_rows, name="group")
        uniques, codes = np.unique(keys, return_inverse=True)
        per_column.append((codes.reshape(-1),
                           _plain(uniques if labels is None else labels[uniques])))
    if len(per_column) == 1:
        return per_column[0]
    stacked = np.column_stack([codes for codes, _ in per_column])
    combos, codes = np.unique(stacked, axis=0, return_inverse=True)
    labels = [tuple(per_column[j][1][c] for j, c in enumerate(row)) for row in combos]
    return codes.reshape(-1), labels


def _plain(labels):
    """Labels as Python objects (``'a'``, not ``np.str_('a')``)."""
    return np.asarray(labels, dtype=object).tolist() if not hasattr(labels, "tolist") \
        else list(labels.tolist())


def _columns(group):
    """The columns of a DataFrame or 2-D array of groups; None for 1-D labels."""
    if hasattr(group, "columns") and hasattr(group, "__getitem__"):  # a DataFrame
        return [np.asarray(group[name]) for name in group.columns]
    array = np.asarray(group, dtype=object) if not hasattr(group, "dtype") else group
    if getattr(array, "ndim", 1) == 2:
        array = np.asarray(array)
        return [array[:, j] for j in range(array.shape[1])]
    if getattr(array, "ndim", 1) > 2:
        raise ValueError(
            f"`group` must be 1-D (one label per row) or 2-D (columns of labels), "
            f"got shape {np.shape(array)}."
        )
    return None


def _exposure_matrix(y_score, group, query_id, discount, ties):
    """Per query and group, the expected attention; also query ids, labels, totals."""
    score = check_score("y_score", y_score)
    if score.ndim > 2:
        raise ValueError(f"`y_score` must be 1-D or 2-D, got shape {score.shape}.")
    n_rows = score.shape[0]
    codes, labels = group_codes(group, n_rows)
    if query_id is None:
        query, query_ids = np.zeros(n_rows, dtype=np.int64), np.zeros(1, dtype=np.int64)
    else:
        keys, id_labels = factorize(query_id, n_rows)
        uniques, query = np.unique(keys, return_inverse=True)
        query = query.reshape(-1)
        query_ids = uniques if id_labels is None else id_labels[uniques]
    n_samples = 1 if score.ndim == 1 else score.shape[1]
    keys = (query[:, None] * n_samples + np.arange(n_samples)).reshape(-1)
    ranked = rank_queries(np.zeros(keys.shape[0]), score.reshape(-1), query_id=keys,
                          ties=ties)
    attention = ranked.block_mean(_discount(ranked.rank, discount))
    if ranked.retrieved is not None:  # -inf: not in that ranking
        attention = np.where(ranked.retrieved, attention, 0.0)
    row = ranked.order // n_samples
    n_queries, n_groups = query_ids.shape[0], len(labels)
    cell = query[row] * n_groups + codes[row]
    exposure = np.bincount(cell, weights=attention, minlength=n_queries * n_groups)
    total = np.bincount(query[row], weights=_retrieved_discount(ranked, discount),
                        minlength=n_queries)
    return (exposure.reshape(n_queries, n_groups) / n_samples, total / n_samples,
            query_ids, labels)


def _retrieved_discount(ranked, discount):
    """The attention of each retrieved position (its sum: the ranking's total)."""
    values = _discount(ranked.rank, discount)
    if ranked.retrieved is not None:
        values = np.where(ranked.retrieved, values, 0.0)
    return values


@validate_params({"discount": choice(*DISCOUNTS), "ties": choice("average", "input")})
def group_exposure(y_score, group, *, query_id=None, discount="log2_clipped",
                   ties="average"):
    """The exposure of each group of rows in each query's ranking.

    A row at rank r receives the attention ``1 / log2(max(r, 2))``; a
    group's exposure is the sum over its rows (TREC Fair Ranking 2021's
    ``qr_exposure``; over several sampled rankings, their mean: its
    ``qrs_exposure``).

    Parameters
    ----------
    y_score : array-like of shape (n_rows,) or (n_rows, n_samples)
        Score of each row; within a query, higher scores rank first. 2-D:
        one sampled ranking per column, each weighing the same. A row
        scored ``-inf`` is not in that ranking.
    group : array-like of shape (n_rows,) or (n_rows, n_columns), or DataFrame
        The group of each row, as fairlearn's ``sensitive_features``: one
        label per row, or several columns whose combinations are the
        groups (intersectional groups, labelled by tuples).
    query_id : array-like of shape (n_rows,), default=None
        Query of each row: ints, strings or any hashable ids, rows in any
        order. None: all rows are one query.
    discount : {"log2_clipped", "log2"}, default="log2_clipped"
        The attention at rank r: ``1 / log2(max(r, 2))`` (TREC Fair 2021;
        ranks 1 and 2 get 1) or ``1 / log2(r + 1)`` (DCG's).
    ties : {"average", "input"}, default="average"
        ``"average"``: rows with equal scores are in a uniformly random
        order, and each gets the exact expected attention, the mean over
        its tie block's positions. ``"input"``: they keep their input order.

    Returns
    -------
    result : Bunch
        ``query_id`` (n_queries,), in ascending order; ``groups``, the
        group labels in ascending order (tuples for several columns);
        ``exposure`` of shape (n_queries, n_groups).

    See Also
    --------
    awrf_score : how far the groups' share of attention is from a target.
    expected_exposure : exposure of rows against a relevance-based target.

    Examples
    --------
    >>> from skrank.fairness import group_exposure
    >>> result = group_exposure([4, 3, 2, 1], ["a", "b", "a", "a"])
    >>> result.groups
    ['a', 'b']
    >>> result.exposure.round(4)      # a: 1 + 1/log2(3) + 1/2; b: 1
    array([[2.1309, 1.    ]])

    Tied scores share their positions' attention:

    >>> group_exposure([1, 1], ["a", "b"], discount="log2").exposure.round(4)
    array([[0.8155, 0.8155]])
    """
    exposure, _, query_ids, labels = _exposure_matrix(y_score, group, query_id,
                                                      discount, ties)
    return Bunch(query_id=query_ids, groups=labels, exposure=exposure)


def _target_matrix(target, query_ids, labels):
    """The target distribution per query over ``labels`` (rows sum to 1)."""
    if hasattr(target, "columns") and hasattr(target, "index"):  # per query
        frame = target
        missing = [q for q in query_ids.tolist() if q not in frame.index]
        if missing:
            raise ValueError(
                f"`target` has no row for query_id {missing[0]!r} ({len(missing)} "
                f"quer{'y' if len(missing) == 1 else 'ies'} missing)."
            )
        columns = list(frame.columns)
        matrix = np.asarray(frame.loc[list(query_ids)], dtype=np.float64)
    elif isinstance(target, Mapping) or hasattr(target, "keys"):  # one for all (a Series)
        columns = list(target.keys())
        matrix = np.asarray([[float(target[c]) for c in columns]])
        matrix = np.repeat(matrix, len(query_ids), axis=0)
    else:
        raise ValueError(
            "`target` must be a mapping {group: share} (a dict or Series), or a "
            f"DataFrame with one row per query id and one column per group; got "
            f"{type(target).__name__}."
        )
    if not np.isfinite(matrix).all() or (matrix < 0).any():
        raise ValueError("`target` must hold finite, non-negative shares.")
    sums = matrix.sum(axis=1)
    if (sums <= 0).any():
        raise ValueError("`target` must give some group a positive share in every query.")
    extra = [c for c in columns if c not in labels]
    all_labels = list(labels) + extra
    out = np.zeros((len(query_ids), len(all_labels)))
    where = {label: j for j, label in enumerate(all_labels)}
    for j, c in enumerate(columns):
        out[:, where[c]] = matrix[:, j]
    return out / sums[:, None], len(extra)


def _js_divergence(p, q):
    """Jensen-Shannon divergence (natural log) between the rows of p and q."""
    p = p / p.sum(axis=1, keepdims=True)
    q = q / q.sum(axis=1, keepdims=True)
    m = (p + q) / 2.0

    def kl(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(a > 0, a * np.log(a / m), 0.0)
        return terms.sum(axis=1)

    return (kl(p) + kl(q)) / 2.0


@validate_params({"ties": choice("average", "input"), "aggregate": choice(*AGGREGATE)})
def awrf_score(y_score, group, *, query_id=None, target, ties="average",
               aggregate="mean"):
    r"""Attention-weighted rank fairness: 1 - JS divergence from a target share.

    The groups' shares of the ranking's attention (rank r gets
    ``1 / log2(max(r, 2))``) are compared with a target distribution by
    the Jensen-Shannon divergence with natural logarithms; AWRF is one
    minus it (Sapiezynski et al., 2019, as TREC Fair Ranking 2021's
    ``qr_awrf``): 1 when the shares are the target's, lower otherwise
    (down to 1 - log 2).

    Parameters
    ----------
    y_score : array-like of shape (n_rows,) or (n_rows, n_samples)
        Score of each row; within a query, higher scores rank first. 2-D:
        one sampled ranking per column; the shares are those of their
        mean attention. A row scored ``-inf`` is not in that ranking.
    group : array-like of shape (n_rows,) or (n_rows, n_columns), or DataFrame
        The group of each row, as fairlearn's ``sensitive_features``: one
        label per row, or several columns whose combinations are the
        groups (intersectional groups, labelled by tuples).
    query_id : array-like of shape (n_rows,), default=None
        Query of each row: ints, strings or any hashable ids, rows in any
        order. None: all rows are one query.
    target : mapping or DataFrame
        The target share of each group: a mapping ``{group: share}`` (a
        dict or Series) for every query, or a DataFrame with one row per
        query id (its index) and one column per group. Shares are
        normalised to sum to 1; a group absent from the target has share
        0, one absent from the rows has attention 0.
    ties : {"average", "input"}, default="average"
        ``"average"``: rows with equal scores are in a uniformly random
        order and the shares are those of its exact expected attention.
        ``"input"``: they keep their input order.
    aggregate : {"mean", None}, default="mean"
        ``"mean"``: the mean over queries. None: a :class:`QueryValues`.

    Returns
    -------
    score : float or QueryValues

    See Also
    --------
    group_exposure : the groups' attention itself.

    Notes
    -----
    With :math:`a_g` a group's share of the attention and :math:`t_g` its
    target share, :math:`m = (a + t) / 2`,

    .. math::

        \mathrm{AWRF} = 1 - \tfrac12 \sum_g a_g \ln\frac{a_g}{m_g}
                          - \tfrac12 \sum_g t_g \ln\frac{t_g}{m_g}.

    Under ties (and for 2-D scores) the shares are those of the expected
    attention of the stochastic ranking, not the mean of AWRF over the
    orders of the tied rows: fairness is a property of the distribution of
    rankings (Diaz et al., 2020), and JS is not linear, so the mean over
    orders would need every order. Without ties both are the same.

    References
    ----------
    .. [1] P. Sapiezynski, W. Zeng, R. E. Robertson, A. Mislove and C. Wilson,
       "Quantifying the Impact of User Attention on Fair Group
       Representation in Ranked Lists", WWW 2019 Companion.
    .. [2] M. D. Ekstrand, G. McDonald, A. Raj and I. Johnson, "Overview of
       the TREC 2021 Fair Ranking Track", TREC 2021.

    Examples
    --------
    Group "a" holds ranks 1, 3 and 4, "b" rank 2: "a" has
    (1 + 1/log2(3) + 1/2) / (2 + 1/log2(3) + 1/2) of the attention.

    >>> from skrank.fairness import awrf_score
    >>> round(awrf_score([4, 3, 2, 1], ["a", "b", "a", "a"],
    ...                  target={"a": 0.5, "b": 0.5}), 4)
    0.983
    >>> round(awrf_score([4, 3, 2, 1], ["a", "b", "a", "a"],
    ...                  target={"a": 0.75, "b": 0.25}), 4)
    0.997
    """
    exposure, total, query_ids, labels = _exposure_matrix(y_score, group, query_id,
                                                          "log2_clipped", ties)
    targets, n_extra = _target_matrix(target, query_ids, labels)
    shares = np.hstack([exposure, np.zeros((exposure.shape[0], n_extra))])
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = shares / total[:, None]
    empty = ~(shares.sum(axis=1) > 0)  # nothing aligned: TREC takes equal shares
    shares[empty] = 1.0
    values = 1.0 - _js_divergence(shares, targets)
    weights = np.ones(values.shape[0])
    if aggregate is None:
        return QueryValues(query_ids, values, weights)
    return finish_mean(partial_mean(values, weights, query_ids=query_ids))
