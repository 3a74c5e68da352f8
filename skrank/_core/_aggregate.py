"""From per-query values to what the user asked for: a weighted mean or per-query values."""

import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from ._layout import rank_queries
from ._validation import check_option

NO_RELEVANT = ("skip", "zero", "one", "error")
AGGREGATE = ("mean", None)


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
    """

    query_id: np.ndarray
    value: np.ndarray
    weight: np.ndarray


def check_aggregate_options(no_relevant="skip", aggregate="mean"):
    """Validate the options every metric shares, before any work is done."""
    check_option("no_relevant", no_relevant, NO_RELEVANT)
    check_option("aggregate", aggregate, AGGREGATE)


def weighted_mean(values, weights):
    """Weighted mean of the non-nan ``values``; nan and a warning if none is left."""
    keep = ~np.isnan(values)
    values, weights = values[keep], weights[keep]
    # relative weights (largest 1): the sums neither overflow nor underflow
    # for weights anywhere in float64's range, 1e308 and 5e-324 included
    largest = weights.max() if weights.shape[0] else 0.0
    if largest > 0:
        weights = weights / largest
    total = weights.sum()
    if not keep.any() or total <= 0:
        warnings.warn(
            "No query is left to average (every query has no relevant row, "
            "a single class, or zero weight); returning nan.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return float("nan")
    return float(np.dot(values, weights) / total)


def apply_no_relevant(values, undefined, ranked, no_relevant):
    """Fill the queries where the metric is undefined, following ``no_relevant``."""
    if not undefined.any():
        return values
    if no_relevant == "error":
        ids = ranked.query_ids[undefined][:5]
        shown = ", ".join(repr(v) for v in ids.tolist())
        raise ValueError(
            f"{int(undefined.sum())} quer{'y has' if undefined.sum() == 1 else 'ies have'}"
            f" no relevant row (y_true > 0), e.g. query_id {shown}; pass "
            "`no_relevant='skip'`, 'zero' or 'one' to score them."
        )
    values = np.array(values, dtype=np.float64, copy=True)
    values[undefined] = {"skip": np.nan, "zero": 0.0, "one": 1.0}[no_relevant]
    return values


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
    values = apply_no_relevant(values, undefined, ranked, no_relevant)
    if weights is None:
        weights = ranked.query_weight
    if aggregate is None:
        return QueryValues(ranked.query_ids, np.asarray(values, dtype=float), weights)
    return weighted_mean(values, weights)


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
