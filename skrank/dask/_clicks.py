"""evaluate_clicks on a Dask DataFrame: skrank.clicks.evaluate, partition by partition.

It follows :func:`skrank.dask.evaluate`'s plan: it shuffles the rows by
list id with the same Dask shuffle, runs the in-memory
:func:`skrank.clicks._evaluate.list_values` on each partition of whole
lists, and reduces one :class:`~skrank._core._aggregate.PartialMean` per
metric (plus the mergeable :class:`~skrank.clicks._evaluate.ClickSums` of
the diagnostics) in a tree, finished on the client by the very steps that
finish the in-memory estimate.
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
    finish_diagnostics,
    list_values,
    merge_click_sums,
    parse_click_metrics,
)
from ..clicks._validation import check_clip
from ..metrics._plan import EMPTY_PARTIAL, PartitionPlan
from ._frame_input import check_dask_frame, frame_input
from ._shuffle import PARTIAL_COLUMNS, merge_partials, partials_frame, whole_queries

_SUMS = list(ClickSums._fields)
_NO_SUMS = ClickSums(0, 0.0, 0.0, float("nan"), 0, 0, 0)


class _ClickPlan(PartitionPlan):
    """What each partition of whole lists computes for :func:`evaluate_clicks`.

    A :class:`~skrank.metrics._plan.PartitionPlan` for its row naming (an
    error names a row by the frame's index and list id); the values come
    from the in-memory :func:`~skrank.clicks._evaluate.list_values`.
    """

    def __init__(self, parsed, click, y_score, position, query_id, propensity, clip,
                 sample_weight, query_on_index, row_label):
        self.parsed = parsed
        self.metrics = [name for name, _, _ in parsed]
        self.click = click
        self.y_score = y_score
        self.position = position
        self.query_id = query_id
        self.propensity = propensity
        self.clip = clip
        self.sample_weight = sample_weight
        self.query_on_index = query_on_index
        self.row_label = row_label

    def values(self, frame):
        """``(ranked, per_list, sums)`` of the partition, or None when empty."""
        if frame.shape[0] == 0:
            return None
        ids = frame.index if self.query_on_index else frame[self.query_id]
        propensity = self.propensity
        if isinstance(propensity, str):
            propensity = frame[propensity]
        weight = None if self.sample_weight is None else frame[self.sample_weight]
        with self.naming_rows(frame):
            return list_values(self.parsed, frame[self.click], frame[self.y_score],
                               frame[self.position], ids, propensity, self.clip,
                               weight)

    def click_partials(self, frame):
        """One PartialMean per metric and the partition's ClickSums."""
        result = self.values(frame)
        if result is None:
            return [EMPTY_PARTIAL for _ in self.metrics], _NO_SUMS
        ranked, per_list, sums = result
        partials = [
            partial_mean(values, ranked.query_weight, undefined=undefined,
                         query_ids=ranked.query_ids, no_relevant="skip")
            for values, undefined in per_list.values()
        ]
        return partials, sums


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
    ranked, per_list, _ = result
    columns = {name: np.where(undefined, np.nan, np.asarray(values, dtype=np.float64))
               for name, (values, undefined) in per_list.items()}
    columns["weight"] = np.asarray(ranked.query_weight, dtype=np.float64)
    ids = frame.index if plan.query_on_index else frame[plan.query_id]
    index = pd.Index(ranked.query_ids, dtype=ids.dtype, name=meta.index.name)
    return pd.DataFrame(columns, index=index)[list(meta.columns)]


def evaluate_clicks(
    df,
    metrics=None,
    *,
    click="click",
    y_score="score",
    position="position",
    query_id="qid",
    propensity,
    clip=None,
    aggregate="mean",
    sample_weight=None,
    partitioned_by_query="auto",
):
    """Estimate a new ranker's metrics from a click log in a Dask DataFrame (IPS).

    The same numbers as :func:`skrank.clicks.evaluate` on the same rows
    (to rounding): the rows are shuffled by list id with Dask's shuffle
    (skipped when already partitioned by it), each partition of whole
    lists runs the in-memory estimator, and the partial sums are reduced in
    a tree. No row is collected on the client.

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
    query_id : str, default="qid"
        Column (or the name of the index) of the displayed list
        (impression) of each row. Ids are grouped as in
        :func:`skrank.dask.evaluate`.
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
    partitioned_by_query : {"auto", True, False}, default="auto"
        Whether every list's rows already sit in one partition, as for
        :func:`skrank.dask.evaluate`.

    Returns
    -------
    result : ClickEvaluationResult or dask.dataframe.DataFrame
        With ``aggregate="mean"``: a :class:`~skrank.clicks.ClickEvaluationResult`
        (metric name -> float) with the same diagnostics as the in-memory
        one. With ``aggregate=None``: a Dask DataFrame indexed by list id
        (not sorted across partitions) with one float column per metric
        (nan where ``"ndcg@k"`` is undefined: a list without a click) and a
        ``"weight"`` column; the diagnostics need ``aggregate="mean"``.

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
    ...     "qid": [7, 7, 7, 8, 8],
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
    column = propensity if isinstance(propensity, str) else None
    frame, on_index, partitioned, row_label = frame_input(
        df, [("click", click), ("y_score", y_score), ("position", position),
             ("sample_weight", sample_weight), ("propensity", column)],
        query_id=query_id, partitioned_by_query=partitioned_by_query,
    )
    frame, on_index, _ = whole_queries(frame, query_id, on_index, partitioned,
                                       "average")
    plan = _ClickPlan(parsed, click, y_score, position, query_id, propensity, clip,
                      sample_weight, on_index, row_label)
    import pandas as pd

    if aggregate is None:
        index_dtype = (frame._meta.index.dtype if on_index
                       else frame._meta[query_id].dtype)
        meta = pd.DataFrame(
            {name: pd.Series([], dtype=np.float64)
             for name in plan.metrics + ["weight"]},
            index=pd.Index([], dtype=index_dtype, name=query_id),
        )
        return frame.map_partitions(
            _list_frame, plan, meta, meta=meta,
            clear_divisions=not (on_index and frame.known_divisions),
        )

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
    results = {name: finish_mean(PartialMean(*row))
               for name, row in zip(plan.metrics, rows)}
    sums = ClickSums(*merged[_SUMS].iloc[0])
    return ClickEvaluationResult(results, **finish_diagnostics(sums))
