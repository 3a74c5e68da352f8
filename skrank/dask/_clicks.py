"""evaluate_clicks on a Dask DataFrame: skrank.clicks.evaluate, partition by partition.

It follows :func:`skrank.dask.evaluate`'s plan: it shuffles the rows by
query id (by list id when no query id is given) with the same Dask shuffle,
runs the in-memory :func:`skrank.clicks._evaluate.list_values` on each
partition of whole queries, and reduces one
:class:`~skrank._core._aggregate.PartialMean` per sum of each metric (two
for the ratio ``ndcg@k``; plus the mergeable
:class:`~skrank.clicks._evaluate.ClickSums` of the diagnostics) in a tree,
finished on the client by the very steps that finish the in-memory
estimate.
"""

import numpy as np

from .._core._aggregate import (
    PartialMean,
    check_aggregate_options,
    finish_mean,
    partial_mean,
)
from .._core._malloc import reused_memory
from .._core._quiet import quiet_dask
from ..clicks._evaluate import (
    ClickEvaluationResult,
    ClickSums,
    divide,
    finish_diagnostics,
    list_values,
    merge_click_sums,
    parse_click_metrics,
)
from ..clicks._validation import check_clip
from ..metrics._plan import EMPTY_PARTIAL, PartitionPlan
from .._core._validation import check_option
from ._frame_input import check_column, check_converted_ids, check_dask_frame
from ._shuffle import PARTIAL_COLUMNS, merge_partials, partials_frame, whole_queries

_SUMS = list(ClickSums._fields)
_NO_SUMS = ClickSums(0, 0.0, 0.0, float("nan"), 0, 0, 0)


class _ClickPlan(PartitionPlan):
    """What each partition of whole queries computes for :func:`evaluate_clicks`.

    A :class:`~skrank.metrics._plan.PartitionPlan` for its row naming (an
    error names a row by the frame's index and shuffle key); the values come
    from the in-memory :func:`~skrank.clicks._evaluate.list_values`.
    ``columns`` maps ``click``, ``y_score``, ``position``, ``list_id``,
    ``query_id``, ``doc_id`` and ``sample_weight`` to column names (None:
    not given); ``list_on_index`` says the list ids are the index;
    ``query_id`` and ``query_on_index`` name the shuffle key, by which
    errors name rows.
    """

    def __init__(self, parsed, columns, propensity, clip, list_on_index, key,
                 key_on_index, row_label):
        self.parsed = parsed
        self.metrics = [name for name, _, _ in parsed]
        # the partial means reduced: (metric, "numerator" or "denominator")
        self.sums = [(name, part) for name, stem, _ in parsed
                     for part in (("numerator", "denominator") if stem == "ndcg"
                                  else ("numerator",))]
        self.columns = columns
        self.propensity = propensity
        self.clip = clip
        self.list_on_index = list_on_index
        self.query_id = key
        self.query_on_index = key_on_index
        self.row_label = row_label

    def list_ids(self, frame):
        return frame.index if self.list_on_index else frame[self.columns["list_id"]]

    def values(self, frame):
        """The partition's :class:`ListEstimates`, or None when empty."""
        if frame.shape[0] == 0:
            return None
        columns = self.columns
        propensity = self.propensity
        if isinstance(propensity, str):
            propensity = frame[propensity]

        def optional(name):
            return None if columns[name] is None else frame[columns[name]]

        with self.naming_rows(frame):
            return list_values(self.parsed, frame[columns["click"]],
                               frame[columns["y_score"]], frame[columns["position"]],
                               self.list_ids(frame), propensity, self.clip,
                               optional("sample_weight"),
                               query_id=optional("query_id"),
                               doc_id=optional("doc_id"))

    def click_partials(self, frame):
        """One PartialMean per sum of each metric and the partition's ClickSums."""
        result = self.values(frame)
        if result is None:
            return [EMPTY_PARTIAL for _ in self.sums], _NO_SUMS
        weight = result.ranked.query_weight
        partials = [
            partial_mean(getattr(result.per_list[name], part), weight)
            for name, part in self.sums
        ]
        return partials, result.sums


@reused_memory()
def _click_partials(frame, plan):
    import pandas as pd

    partials, sums = plan.click_partials(frame)
    return _with_sums(partials_frame(partials, frame.shape[0], pd), sums)


def _with_sums(frame, sums):
    for field, value in zip(_SUMS, sums):
        frame[field] = value
    return frame


def _click_merge(frame):
    """The reduction's combine/aggregate: PartialMeans as skrank.dask.evaluate, sums."""
    merged = merge_partials(frame)
    first = frame[frame.index.to_numpy() == 0][_SUMS]
    sums = merge_click_sums(ClickSums(*row) for row in first.itertuples(index=False))
    return _with_sums(merged, sums)


@reused_memory()
def _list_frame(frame, plan, meta):
    """Per partition: one row per list, one column per metric, and the weight."""
    import pandas as pd

    result = plan.values(frame)
    if result is None:
        return meta
    ranked = result.ranked
    columns = {}
    for name, part in plan.sums:
        values = getattr(result.per_list[name], part)
        columns[name if part == "numerator" else _ideal(name)] = np.asarray(
            values, dtype=np.float64)
    columns["weight"] = np.asarray(ranked.query_weight, dtype=np.float64)
    ids = plan.list_ids(frame)
    index = pd.Index(ranked.query_ids, dtype=ids.dtype, name=meta.index.name)
    return pd.DataFrame(columns, index=index)[list(meta.columns)]


def _ideal(name):
    """The column of ``name``'s per-list denominator (dropped before returning)."""
    return f"__skrank_ideal_{name}__"


def evaluate_clicks(
    df,
    metrics=None,
    *,
    click="click",
    y_score="score",
    position="position",
    list_id="list_id",
    query_id=None,
    propensity,
    clip=None,
    aggregate="mean",
    sample_weight=None,
    doc_id=None,
    partitioned_by_query="auto",
):
    """Estimate a new ranker's metrics from a click log in a Dask DataFrame (IPS).

    The same numbers as :func:`skrank.clicks.evaluate` on the same rows
    (to rounding): the rows are shuffled by query id (by list id without
    ``query_id``) with Dask's shuffle (skipped when already partitioned by
    it), each partition of whole queries runs the in-memory estimator, and
    the partial sums are reduced in a tree. No row is collected on the
    client.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        One row per displayed document, with the columns named below.
    metrics : str or list of str, default=("dcg@10", "precision@10", "arp")
        As for :func:`skrank.clicks.evaluate`: ``"dcg@k"``, ``"ndcg@k"``,
        ``"precision@k"``, ``"arp"``.
    click : str, default="click"
        Column of clicks, 0 or 1.
    y_score : str, default="score"
        Column of the new ranker's scores.
    position : str, default="position"
        Column of the 1-based position where the logger showed the row.
    list_id : str, default="list_id"
        Column (or the name of the index) of the displayed list
        (impression) of each row. Ids are grouped as in
        :func:`skrank.dask.evaluate`.
    query_id : str, default=None
        Column (or the name of the index) of the query each list answers;
        None: every list is its own query.
    propensity : PositionBias, callable, str or float
        A :class:`~skrank.clicks.PositionBias`, a callable of an array of
        positions (called on each partition's positions), the name of a
        column holding each row's propensity, or one number for every row.
    clip : float in (0, 1], default=None
        Propensities below ``clip`` are raised to it.
    aggregate : {"mean", None}, default="mean"
        ``"mean"``: the estimates, computed now. None: a lazy Dask
        DataFrame with one row per list (see Returns).
    sample_weight : str, default=None
        Column of row weights; a list weighs the mean of its rows' weights.
    doc_id : str, default=None
        Column of document ids, for ``"ndcg@k"``'s ideal order (as for
        :func:`skrank.clicks.evaluate`).
    partitioned_by_query : {"auto", True, False}, default="auto"
        Whether every query's rows (every list's, without ``query_id``)
        already sit in one partition, as for :func:`skrank.dask.evaluate`.

    Returns
    -------
    result : ClickEvaluationResult or dask.dataframe.DataFrame
        With ``aggregate="mean"``: a :class:`~skrank.clicks.ClickEvaluationResult`
        (metric name -> float) with the same diagnostics as the in-memory
        one. With ``aggregate=None``: a Dask DataFrame indexed by list id
        (not sorted across partitions) with one float column per metric
        (the in-memory per-list values: for ``"ndcg@k"`` each list's IPS
        DCG over the mean IPS ideal DCG of all lists) and a ``"weight"``
        column; the diagnostics need ``aggregate="mean"``.

    See Also
    --------
    skrank.clicks.evaluate : the same on in-memory arrays.
    skrank.dask.estimate_position_bias : the propensities, on Dask.

    Notes
    -----
    Errors about bad rows (a click not 0 or 1, a position below 1, two rows
    of a list at one position, a propensity not positive and finite) are the
    in-memory ones, raised when the partition holding the row is computed.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> import skrank.dask
    >>> rows = pd.DataFrame({
    ...     "list_id": [7, 7, 7, 8, 8],
    ...     "click": [0, 0, 1, 1, 0],
    ...     "score": [0.1, 0.2, 0.9, 0.3, 0.8],
    ...     "position": [1, 2, 3, 1, 2],
    ... })
    >>> df = dd.from_pandas(rows, npartitions=2)
    >>> result = skrank.dask.evaluate_clicks(df, ["precision@1", "arp"],
    ...                                      propensity=lambda k: 1 / k)
    >>> dict(result)      # list 7: 3 * 1, list 8: 0; arp (3 * 1 + 1 * 2) / 2
    {'precision@1': 1.5, 'arp': 2.5}
    >>> result.n_clicks, result.max_weight
    (2, 3.0)
    """
    check_dask_frame(df, "skrank.clicks.evaluate")
    parsed = parse_click_metrics(metrics)
    clip = check_clip(clip)
    check_aggregate_options("skip", aggregate)
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    for argument, value, what in (
            ("position", position, "the column of the 1-based position at which "
             "the logger showed each row"),
            ("list_id", list_id, "the column (or index name) of the displayed "
             "list of each row"),
            ("propensity", propensity, "a PositionBias, a callable of positions, "
             "a column name or one positive number")):
        if value is None:
            raise ValueError(f"`{argument}` is required: {what}.")
    for argument, name in (("click", click), ("y_score", y_score),
                           ("position", position)):
        check_column(df, argument, name)
    names = {"click": click, "y_score": y_score, "position": position,
             "list_id": list_id, "query_id": query_id, "doc_id": doc_id,
             "sample_weight": sample_weight}
    for argument in ("sample_weight", "doc_id"):
        if names[argument] is not None:
            check_column(df, argument, names[argument])
    columns = [click, y_score, position]
    columns += [names[a] for a in ("sample_weight", "doc_id") if names[a] is not None]
    if isinstance(propensity, str):
        check_column(df, "propensity", propensity)
        columns.append(propensity)
    list_on_index = check_column(df, "list_id", list_id, allow_index=True)
    check_converted_ids(df, list_id, list_on_index)
    key, on_index = list_id, list_on_index
    if query_id is not None:
        on_index = check_column(df, "query_id", query_id, allow_index=True)
        check_converted_ids(df, query_id, on_index)
        key = query_id
        if list_on_index or on_index:  # both ids as columns, the shuffle key too
            df = df.reset_index()
            list_on_index = on_index = False
        columns.append(list_id)
    frame = df[list(dict.fromkeys(columns + ([] if on_index else [key])))]
    if partitioned_by_query == "auto":
        partitioned = on_index and df.known_divisions
    else:
        partitioned = partitioned_by_query
    row_label = "query" if on_index else "index"
    frame, on_index, _ = whole_queries(frame, key, on_index, partitioned, "average")
    list_on_index = list_on_index and on_index
    plan = _ClickPlan(parsed, names, propensity, clip, list_on_index, key, on_index,
                      row_label)
    import pandas as pd

    if aggregate is None:
        return _per_list_frame(frame, plan, pd)

    empty = _with_sums(partials_frame([PartialMean(0.0, 0.0, 0.0, 0)], 0, pd),
                       _NO_SUMS)
    with quiet_dask():
        merged = frame.reduction(
            _click_partials, aggregate=_click_merge, combine=_click_merge,
            meta=empty, chunk_kwargs={"plan": plan},
        ).compute()
    if int(merged["n_rows"].iloc[0]) == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    rows = merged[PARTIAL_COLUMNS].itertuples(index=False)
    means = {slot: finish_mean(PartialMean(*row)) for slot, row in zip(plan.sums, rows)}
    results = {
        name: (means[(name, "numerator")] if (name, "denominator") not in means
               else divide(means[(name, "numerator")], means[(name, "denominator")]))
        for name in plan.metrics
    }
    sums = ClickSums(*merged[_SUMS].iloc[0])
    return ClickEvaluationResult(results, **finish_diagnostics(sums))


def _per_list_frame(frame, plan, pd):
    """The lazy frame of per-list values (``aggregate=None``)."""
    list_id = plan.columns["list_id"]
    index_dtype = (frame._meta.index.dtype if plan.list_on_index
                   else frame._meta[list_id].dtype)
    names = [name if part == "numerator" else _ideal(name) for name, part in plan.sums]
    meta = pd.DataFrame(
        {name: pd.Series([], dtype=np.float64) for name in names + ["weight"]},
        index=pd.Index([], dtype=index_dtype, name=list_id),
    )
    lists = frame.map_partitions(
        _list_frame, plan, meta, meta=meta,
        clear_divisions=not (plan.list_on_index and frame.known_divisions),
    )
    for name, part in plan.sums:
        if part == "denominator":  # the mean ideal DCG over all lists, lazily
            ideal = lists[_ideal(name)]
            mean = (ideal * lists["weight"]).sum() / lists["weight"].sum()
            lists = lists.assign(**{name: lists[name] / mean})
            lists = lists.drop(columns=[_ideal(name)])
    return lists
