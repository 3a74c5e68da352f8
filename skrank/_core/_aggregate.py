"""From per-query values to what the user asked for: a weighted mean or per-query values."""

from typing import NamedTuple

import numpy as np

from ._params import NO_RELEVANT, AGGREGATE
from ._layout import rank_queries
from ._validation import check_option
from ._warnings import warn


class QueryValues(NamedTuple):
    """Per-query values, returned by every metric called with ``aggregate=None``.

    Attributes
    ----------
    query_id : ndarray of shape (n_queries,)
        The id of each query, in ascending order of id (for a pandas
        Categorical, in category order; for 2-D input, the row index).
    value : ndarray of shape (n_queries,)
        The metric of each query; ``nan`` for a query left out of the mean
        (no relevant row under ``no_relevant="skip"``, or a single-class
        query for :func:`gauc_score`).
    weight : ndarray of shape (n_queries,)
        The weight each query has in the mean.

    Notes
    -----
    A named tuple: unpack it (``ids, values, weights = result``) or read its
    fields. It is not an array: ``numpy.asarray(result)`` raises a
    TypeError rather than stack the three fields into a ``(3, n_queries)``
    array of mixed meaning (a tuple's length, 3, is not the number of
    queries, so no array view of it can be consistent). Take
    ``result.value`` for the values (what scikit-learn's per-output scores,
    ``multioutput="raw_values"``, are), ``np.column_stack(result)`` for the
    three as columns, or ``pandas.DataFrame(result._asdict())``. The plain
    mean of the values is not the metric when weights differ or a value is
    ``nan``: the metric is their weighted mean over the non-nan values.

    Examples
    --------
    >>> from skrank import precision_at_k_score
    >>> result = precision_at_k_score([1, 0, 0, 1], [0.9, 0.1, 0.8, 0.2], k=1,
    ...                               query_id=["a", "a", "b", "b"], aggregate=None)
    >>> ids, values, weights = result
    >>> ids.tolist(), values.tolist()
    (['a', 'b'], [1.0, 0.0])
    >>> result.value
    array([1., 0.])
    """

    query_id: np.ndarray
    value: np.ndarray
    weight: np.ndarray

    def __array__(self, dtype=None, copy=None):
        raise TypeError(
            "QueryValues is a named tuple (query_id, value, weight), not an "
            "array: use `.value` for the per-query values (np.asarray(result.value)), "
            "np.column_stack(result) for the three fields as columns, or "
            "pandas.DataFrame(result._asdict())."
        )


def check_aggregate_options(no_relevant="skip", aggregate="mean"):
    """Validate the options every metric shares, before any work is done."""
    check_option("no_relevant", no_relevant, NO_RELEVANT)
    check_option("aggregate", aggregate, AGGREGATE)


def vector_dot(a, b):
    """``a @ b`` for a vector ``a`` and a vector or matrix ``b``, on the calling thread.

    OpenBLAS runs a long product on all its threads, which then wait for
    more work spinning, about 0.1 s of a core after each call: beside a
    Dask worker, or a second thread, that is a core taken away (a Dask
    partition's CPU time was half spinning). numpy's einsum sums without
    BLAS, as fast for the reductions here.
    """
    return np.einsum("i,i...->...", a, b)


def weighted_mean(values, weights):
    """Weighted mean of the non-nan ``values``; nan and a warning if none is left."""
    return finish_mean(partial_mean(values, weights))


class PartialMean(NamedTuple):
    """A mergeable part of a weighted mean over queries.

    :func:`partial_mean` makes one from some queries' values,
    :func:`merge_partial_means` adds up the parts of disjoint sets of queries
    (partitions of a Dask DataFrame), :func:`finish_mean` turns the total
    into the mean, as the in-memory metrics do with their single part.

    Attributes
    ----------
    scale : float
        The largest weight of a query with a value (0 if there is none); the
        sums hold weights divided by it, so they neither overflow nor
        underflow.
    weighted_sum : float
        Sum of ``value * weight / scale`` over the queries with a value.
    weight_sum : float
        Sum of ``weight / scale`` over the same queries.
    n_values : int
        Queries with a value (not nan).
    n_undefined : int
        Queries with no relevant row under ``no_relevant="error"``.
    undefined_ids : tuple
        Up to five ids of those queries, for the error message.
    """

    scale: float
    weighted_sum: float
    weight_sum: float
    n_values: int
    n_undefined: int = 0
    undefined_ids: tuple = ()


def partial_mean(
    values, weights, *, undefined=None, query_ids=None, no_relevant="skip"
):
    """The :class:`PartialMean` of some queries' values and weights.

    ``undefined`` marks the queries with no relevant row; they follow
    ``no_relevant`` (with ``"error"`` they are counted, and
    :func:`finish_mean` raises). Other nan values are left out.
    """
    n_undefined, undefined_ids = 0, ()
    if undefined is not None and undefined.any():
        if no_relevant == "error":
            n_undefined = int(undefined.sum())
            undefined_ids = tuple(np.asarray(query_ids)[undefined][:5].tolist())
            values = np.where(undefined, np.nan, values)
        else:
            values = _fill_undefined(values, undefined, no_relevant)
    keep = ~np.isnan(values)
    values, weights = values[keep], weights[keep]
    # relative weights (largest 1): the sums neither overflow nor underflow
    # for weights anywhere in float64's range, 1e308 and 5e-324 included
    scale = float(weights.max()) if weights.shape[0] else 0.0
    if scale > 0:
        weights = weights / scale
    return PartialMean(
        scale, float(vector_dot(values, weights)), float(weights.sum()),
        int(keep.sum()), n_undefined, undefined_ids,
    )


def merge_partial_means(partials):
    """One :class:`PartialMean` from the parts of disjoint sets of queries."""
    partials = list(partials)
    scale = max((part.scale for part in partials), default=0.0)
    weighted_sum = weight_sum = 0.0
    for part in partials:
        if part.scale > 0:  # parts without a weight add nothing
            ratio = part.scale / scale
            weighted_sum += part.weighted_sum * ratio
            weight_sum += part.weight_sum * ratio
    ids = [i for part in partials for i in part.undefined_ids]
    try:
        ids = sorted(ids)
    except TypeError:  # ids of unorderable types: any five will do
        pass
    return PartialMean(
        scale, weighted_sum, weight_sum,
        sum(part.n_values for part in partials),
        sum(part.n_undefined for part in partials), tuple(ids[:5]),
    )


def finish_mean(partial):
    """The weighted mean of a :class:`PartialMean`: the one finishing step.

    Raises the ``no_relevant="error"`` ValueError when a query had no
    relevant row; warns (``UndefinedMetricWarning``) and returns nan when no
    query (or no weight) is left.
    """
    if partial.n_undefined:
        raise _no_relevant_error(partial.n_undefined, partial.undefined_ids)
    if not partial.n_values or partial.weight_sum <= 0:
        # imported here: importing scikit-learn costs seconds the CLI needn't pay
        from sklearn.exceptions import UndefinedMetricWarning

        warn(
            "No query is left to average (every query has no relevant row, "
            "a single class, or zero weight); returning nan.",
            UndefinedMetricWarning,
        )
        return float("nan")
    return float(partial.weighted_sum / partial.weight_sum)


def _no_relevant_error(count, ids):
    shown = ", ".join(repr(v) for v in ids)
    return ValueError(
        f"{count} quer{'y has' if count == 1 else 'ies have'}"
        f" no relevant row (y_true > 0), e.g. query_id {shown}; pass "
        "`no_relevant='skip'`, 'zero' or 'one' to score them."
    )


def _fill_undefined(values, undefined, no_relevant):
    values = np.array(values, dtype=np.float64, copy=True)
    values[undefined] = {"skip": np.nan, "zero": 0.0, "one": 1.0}[no_relevant]
    return values


def apply_no_relevant(values, undefined, ranked, no_relevant):
    """Fill the queries where the metric is undefined, following ``no_relevant``."""
    if not undefined.any():
        return values
    if no_relevant == "error":
        ids = ranked.query_ids[undefined][:5].tolist()
        raise _no_relevant_error(int(undefined.sum()), ids)
    return _fill_undefined(values, undefined, no_relevant)


def aggregate_queries(
    values, ranked, *, no_relevant="skip", aggregate="mean", undefined=None,
    weights=None,
):
    """Apply the ``no_relevant`` policy, then average or return per-query values.

    Parameters
    ----------
    values : ndarray of shape (n_queries,)
    ranked : RankedQueries
    undefined : ndarray of bool, default=None
        Queries where the metric is undefined; by default those with no
        relevant row.
    weights : ndarray, default=None
        Query weights; by default the mean row weight of each query.
    """
    if undefined is None:
        undefined = ranked.n_relevant == 0
    if weights is None:
        weights = ranked.query_weight
    if aggregate is None:
        values = apply_no_relevant(values, undefined, ranked, no_relevant)
        return QueryValues(ranked.query_ids, np.asarray(values, dtype=float), weights)
    partial = partial_mean(  # the ids name undefined queries in an error only
        values, weights, undefined=undefined,
        query_ids=ranked.query_ids if no_relevant == "error" else None,
        no_relevant=no_relevant,
    )
    return finish_mean(partial)


def score_queries(
    kernel, y_true, y_score, *, query_id, sample_weight, ties, no_relevant,
    aggregate, **options,
):
    """Validate, lay out, run one per-query kernel, aggregate: a metric's body.

    ``kernel(ranked, **options)`` returns one value per query; queries with
    no relevant row follow ``no_relevant``.
    """
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    values = kernel(ranked, **options)
    return aggregate_queries(values, ranked, no_relevant=no_relevant, aggregate=aggregate)
