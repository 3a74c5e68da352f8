"""Click logs on a Dask DataFrame: evaluate_clicks and estimate_position_bias.

Both follow :func:`skrank.dask.evaluate`'s plan. :func:`evaluate_clicks`
shuffles the rows by list id with the same Dask shuffle, runs the in-memory
:func:`skrank.clicks._evaluate.list_values` on each partition of whole
lists, and reduces one :class:`~skrank._core._aggregate.PartialMean` per
metric (plus the mergeable :class:`~skrank.clicks._evaluate.ClickSums` of
the diagnostics) in a tree, finished on the client by the very steps that
finish the in-memory estimate.

:func:`estimate_position_bias` reduces sufficient statistics:
``"randomized"`` needs clicks and impressions per position, which any
partition can sum (no shuffle); ``"harvest"`` needs each (query, document)
pair's cells, so the rows are shuffled by query first, and each partition
sums AllPairs' ``c[k, k']`` and ``n[k, k']``. Dask's groupby adds the
partitions' sums; the client runs the in-memory statistic -> estimate step
(:func:`skrank.clicks._position_bias.statistic_estimates`). With
``n_resamples > 0`` the per-query statistics come to the client, where the
in-memory query bootstrap draws them.
"""

import numpy as np

from .._core._aggregate import PartialMean, merge_partial_means, partial_mean
from .._core._aggregate import check_aggregate_options, finish_mean
from .._core._quiet import quiet_dask
from .._core._validation import _describe, check_option
from ..clicks._evaluate import (
    ClickSums,
    finish_diagnostics,
    list_values,
    merge_click_sums,
    parse_click_metrics,
    ClickEvaluation,
)
from ..clicks._position_bias import (
    check_bias_options,
    check_click_evidence,
    check_doc_id,
    finish_position_bias,
    harvest_statistics,
    randomized_statistics,
    statistic_estimates,
)
from ..clicks._validation import check_clicks, check_clip, check_positions, list_codes
from ..metrics._plan import PartitionPlan, EMPTY_PARTIAL
from ._evaluate import (
    _PARTIAL_COLUMNS,
    _check_column,
    _check_converted_ids,
    _import_dask_dataframe,
    _merge,
    _partials_frame,
    _shuffle_by_query,
    _whole_queries,
)

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


def _click_partials(frame, plan):
    import pandas as pd

    partials, sums = plan.click_partials(frame)
    return _with_sums(_partials_frame(partials, frame.shape[0], pd), sums)


def _with_sums(frame, sums):
    for field, value in zip(_SUMS, sums):
        frame[field] = value
    return frame


def _click_merge(frame):
    """The reduction's combine/aggregate: PartialMeans as skrank.dask.evaluate, sums."""
    merged = _merge(frame)
    first = frame[frame.index.to_numpy() == 0][_SUMS]
    sums = merge_click_sums(ClickSums(*row) for row in first.itertuples(index=False))
    return _with_sums(merged, sums)


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


def _check_dask_frame(df, dd, caller, in_memory):
    if not isinstance(df, dd.DataFrame):
        raise ValueError(
            f"`df` must be a dask.dataframe.DataFrame, got {_describe(df)}; for "
            f"in-memory data use {in_memory}."
        )


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
    result : ClickEvaluation or dask.dataframe.DataFrame
        With ``aggregate="mean"``: a :class:`~skrank.clicks.ClickEvaluation`
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
    of a list at one position, a propensity outside (0, 1]) are the
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
    dd = _import_dask_dataframe()
    _check_dask_frame(df, dd, "evaluate_clicks", "skrank.clicks.evaluate")
    parsed = parse_click_metrics(metrics)
    clip = check_clip(clip)
    check_aggregate_options("skip", aggregate)
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    for argument, name in (("click", click), ("y_score", y_score),
                           ("position", position)):
        _check_column(df, argument, name)
    if sample_weight is not None:
        _check_column(df, "sample_weight", sample_weight)
    columns = [click, y_score, position]
    columns += [] if sample_weight is None else [sample_weight]
    if isinstance(propensity, str):
        _check_column(df, "propensity", propensity)
        columns.append(propensity)
    on_index = _check_column(df, "query_id", query_id, allow_index=True)
    _check_converted_ids(df, query_id, on_index)

    frame = df[list(dict.fromkeys(columns + ([] if on_index else [query_id])))]
    if partitioned_by_query == "auto":
        partitioned = on_index and df.known_divisions
    else:
        partitioned = partitioned_by_query
    row_label = "query" if on_index else "index"
    frame, on_index, _ = _whole_queries(frame, query_id, on_index, partitioned,
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

    empty = _with_sums(_partials_frame([PartialMean(0.0, 0.0, 0.0, 0)], 0, pd),
                       _NO_SUMS)
    with quiet_dask():
        merged = frame.reduction(
            _click_partials, aggregate=_click_merge, combine=_click_merge,
            meta=empty, chunk_kwargs={"plan": plan},
        ).compute()
    if int(merged["n_rows"].iloc[0]) == 0:
        raise ValueError("`df` has no rows: there is nothing to evaluate.")
    rows = merged[_PARTIAL_COLUMNS].itertuples(index=False)
    results = {name: finish_mean(PartialMean(*row))
               for name, row in zip(plan.metrics, rows)}
    sums = ClickSums(*merged[_SUMS].iloc[0])
    return ClickEvaluation(results, **finish_diagnostics(sums))


# -- estimate_position_bias ---------------------------------------------------

_IDS, _CLICKS, _SHOWN, _PAIR_CLICKS, _PAIR_SHOWN = -1, 0, 1, 2, 3


class _BiasPlan(PartitionPlan):
    """What each partition sums for :func:`estimate_position_bias`."""

    def __init__(self, method, click, position, query_id, doc_id, max_position,
                 per_query, query_on_index, row_label):
        self.method = method
        self.click = click
        self.position = position
        self.query_id = query_id
        self.doc_id = doc_id
        self.max_position = max_position
        self.per_query = per_query
        self.query_on_index = query_on_index
        self.row_label = row_label

    def entries(self, frame, meta):
        """The partition's statistics as rows ``(query, what, k, k2, value)``.

        ``what`` is clicks or impressions at position ``k`` (0-based), or
        AllPairs' ``c[k, k2]`` or ``n[k, k2]``; ``query`` (with
        ``per_query``) is the id whose statistics they are, and rows with
        ``what=-1`` list the ids of the partition's queries with rows
        above ``max_position``: those the bootstrap draws (with no pair of
        positions, a query still counts).
        Without ``per_query``, the partition's sums over its queries.
        """
        import pandas as pd

        if frame.shape[0] == 0:
            return meta
        n_rows = frame.shape[0]
        ids = frame.index if self.query_on_index else frame[self.query_id]
        with self.naming_rows(frame):
            click = check_clicks(frame[self.click])
            position = check_positions(frame[self.position])
            query, query_ids = list_codes(ids, n_rows)
            doc = None
            if self.method == "harvest":
                doc, _ = list_codes(frame[self.doc_id], n_rows, name="doc_id")
        parts = []
        if self.max_position is not None:
            keep = position <= self.max_position
            click, position, query = click[keep], position[keep], query[keep]
            doc = None if doc is None else doc[keep]
        if position.shape[0]:
            if self.per_query:  # the queries with rows left: the bootstrap's
                parts.append((query_ids[np.unique(query)], _IDS, 0, 0, 0.0))
            n_positions = int(position.max())
            n_queries = len(query_ids)
            if self.method == "randomized" and self.per_query:
                stats = randomized_statistics(click, position - 1, query, n_positions,
                                              n_queries).tocoo()
                what, k = np.divmod(stats.col, n_positions)
                parts.append((query_ids[stats.row], what, k, 0, stats.data))
            else:
                k = np.arange(n_positions)
                parts.append((None, _CLICKS, k, 0,
                              np.bincount(position - 1, click, n_positions)))
                parts.append((None, _SHOWN, k, 0,
                              np.bincount(position - 1, minlength=n_positions)))
            if self.method == "harvest":
                stats = harvest_statistics(click, position - 1, query, doc,
                                           n_positions, n_queries)
                square = n_positions * n_positions
                if self.per_query:
                    stats = stats.tocoo()
                    rows, columns, data = stats.row, stats.col, stats.data
                else:
                    data = np.asarray(stats.sum(axis=0)).ravel()
                    columns = np.flatnonzero(data)
                    rows, data = None, data[columns]
                what, cell = np.divmod(columns, square)
                k, k2 = np.divmod(cell, n_positions)
                parts.append((None if rows is None else query_ids[rows],
                              _PAIR_CLICKS + what, k, k2, data))
        columns = {name: [] for name in meta.columns}
        for ids_part, what, k, k2, value in parts:
            size = max(np.size(value), np.size(k), 0 if ids_part is None
                       else len(ids_part))
            if self.per_query:
                # sums over queries carry the id of a query with rows left
                columns["query"].append(
                    np.asarray(ids_part if ids_part is not None
                               else np.repeat(query_ids[query[:1]], size),
                               dtype=object))
            for name, value_ in (("what", what), ("k", k), ("k2", k2)):
                columns[name].append(np.broadcast_to(np.asarray(value_, np.int64),
                                                     (size,)))
            columns["value"].append(np.broadcast_to(np.asarray(value, np.float64),
                                                    (size,)))
        out = {name: np.concatenate(parts_) for name, parts_ in columns.items()}
        result = pd.DataFrame(out)
        if self.per_query:
            result["query"] = pd.Series(out["query"]).astype(meta["query"].dtype)
        return result


def _entries_meta(ids_dtype, per_query):
    import pandas as pd

    columns = {}
    if per_query:
        columns["query"] = pd.Series([], dtype=ids_dtype)
    for name in ("what", "k", "k2"):
        columns[name] = pd.Series([], dtype=np.int64)
    columns["value"] = pd.Series([], dtype=np.float64)
    return pd.DataFrame(columns)


def estimate_position_bias(
    df,
    *,
    click="click",
    position="position",
    query_id="qid",
    doc_id=None,
    method,
    max_position=None,
    confidence_level=0.95,
    n_resamples=0,
    random_state=None,
    partitioned_by_query="auto",
):
    """Estimate position bias from a click log in a Dask DataFrame.

    The same estimate as :func:`skrank.clicks.estimate_position_bias` on
    the same rows (to rounding), for ``method="randomized"`` and
    ``"harvest"``: each partition sums the method's sufficient statistics,
    Dask adds them up, and the client turns the totals into propensities
    with the in-memory code. ``"em"`` (an iterative fit over every
    (query, document) pair) runs in memory only.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
        One row per displayed document, with the columns named below.
    click : str, default="click"
        Column of clicks, 0 or 1.
    position : str, default="position"
        Column of the 1-based position where the logger showed the row.
    query_id : str, default="qid"
        Column (or the name of the index) of the query (or user) whose
        relevance the document has; the bootstrap resamples queries.
    doc_id : str, default=None
        Column of the document; needed by ``"harvest"``.
    method : {"randomized", "harvest"}
        No default (the in-memory default, ``"em"``, is not offered here):
        ``"randomized"`` sums clicks and impressions per position, with no
        shuffle; ``"harvest"`` shuffles by query so that each (query,
        document) pair is in one partition, and sums AllPairs' counts per
        pair of positions.
    max_position : int, default=None
        The last position to estimate; rows below it are left out.
    confidence_level : float, default=0.95
        Of the bootstrap interval.
    n_resamples : int, default=0
        Bootstrap resamples of the queries. 0 (the default here, unlike in
        memory) computes no interval and collects nothing but the sums.
        Above 0, the per-query statistics are collected on the client
        (clicks and impressions of each (query, position) with rows, or the
        pair counts of each query seen at two positions): memory there
        grows with the number of queries, not of rows. The interval then
        equals the in-memory one for the same ``random_state``.
    random_state : int, numpy Generator or None, default=None
        Seed of the bootstrap.
    partitioned_by_query : {"auto", True, False}, default="auto"
        For ``"harvest"``: whether every query's rows already sit in one
        partition, as for :func:`skrank.dask.evaluate`.

    Returns
    -------
    bias : PositionBias
        As :func:`skrank.clicks.estimate_position_bias` returns.

    See Also
    --------
    skrank.clicks.estimate_position_bias : the same on in-memory arrays.

    Examples
    --------
    >>> import pandas as pd
    >>> import dask.dataframe as dd
    >>> import skrank.dask
    >>> rows = pd.DataFrame({
    ...     "qid": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "click": [1, 1, 0, 0, 1, 0, 1, 0],
    ...     "position": [1, 2, 1, 2, 1, 2, 1, 2],
    ... })
    >>> df = dd.from_pandas(rows, npartitions=3)
    >>> bias = skrank.dask.estimate_position_bias(df, method="randomized")
    >>> bias.propensity                       # (1/4) / (3/4)
    array([1.    , 0.3333])
    """
    dd = _import_dask_dataframe()
    _check_dask_frame(df, dd, "estimate_position_bias",
                      "skrank.clicks.estimate_position_bias")
    if method == "em":
        raise ValueError(
            "method='em' runs in memory only (skrank.clicks.estimate_position_bias): "
            "it refits every (query, document) pair's relevance at each step. "
            "skrank.dask.estimate_position_bias takes method='randomized' or "
            "'harvest'."
        )
    max_position = check_bias_options(method, max_position, confidence_level,
                                      n_resamples, methods=("harvest", "randomized"))
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    _check_column(df, "click", click)
    _check_column(df, "position", position)
    columns = [click, position]
    if method == "harvest":
        check_doc_id(method, doc_id)
        _check_column(df, "doc_id", doc_id)
        columns.append(doc_id)
    on_index = _check_column(df, "query_id", query_id, allow_index=True)
    _check_converted_ids(df, query_id, on_index)
    frame = df[list(dict.fromkeys(columns + ([] if on_index else [query_id])))]
    row_label = "query" if on_index else "index"
    if method == "harvest":
        if partitioned_by_query == "auto":
            partitioned = on_index and df.known_divisions
        else:
            partitioned = partitioned_by_query
        frame, on_index, _ = _whole_queries(frame, query_id, on_index, partitioned,
                                            "average")
    per_query = n_resamples > 0
    ids_dtype = frame._meta.index.dtype if on_index else frame._meta[query_id].dtype
    meta = _entries_meta(ids_dtype, per_query)
    plan = _BiasPlan(method, click, position, query_id, doc_id, max_position,
                     per_query, on_index, row_label)
    entries = frame.map_partitions(plan.entries, meta, meta=meta)
    with quiet_dask():
        if per_query:
            entries = entries.compute()
        else:
            entries = (entries.groupby(["what", "k", "k2"])["value"].sum()
                       .compute().reset_index())
    return _estimate(method, entries, max_position, confidence_level, n_resamples,
                     random_state, per_query)


def _estimate(method, entries, max_position, confidence_level, n_resamples,
              random_state, per_query):
    """The client's step: the in-memory estimate from the collected statistics."""
    import scipy.sparse as sp

    what = entries["what"].to_numpy()
    k = entries["k"].to_numpy()
    k2 = entries["k2"].to_numpy()
    value = entries["value"].to_numpy()
    counted = (what == _CLICKS) | (what == _SHOWN)
    if not counted.any() and max_position is None:
        raise ValueError("`df` has no rows: there is nothing to estimate.")
    n_positions = (int(k[counted].max()) + 1 if max_position is None
                   else max_position)
    n_clicks = np.bincount(k[what == _CLICKS], value[what == _CLICKS],
                           n_positions).astype(np.int64)
    n_impressions = np.bincount(k[what == _SHOWN], value[what == _SHOWN],
                                n_positions).astype(np.int64)
    check_click_evidence(n_clicks, max_position)
    square = n_positions * n_positions
    if method == "randomized":
        column = np.where(counted, what * n_positions + k, 0)
        size = 2 * n_positions
        statistic = counted
    else:
        pair = (what == _PAIR_CLICKS) | (what == _PAIR_SHOWN)
        column = np.where(pair, (what - _PAIR_CLICKS) * square + k * n_positions + k2,
                          0)
        size = 2 * square
        statistic = pair
    totals = np.bincount(column[statistic], value[statistic], size)
    stats = None
    if per_query:
        codes, _ = list_codes(entries["query"], entries.shape[0])
        n_queries = int(codes.max()) + 1
        stats = sp.csr_matrix(
            (value[statistic], (codes[statistic], column[statistic])),
            shape=(n_queries, size),
        )
        stats.sum_duplicates()
    rng = np.random.default_rng(random_state)
    theta, draws = statistic_estimates(method, totals, stats, n_positions,
                                       n_resamples, rng)
    return finish_position_bias(method, theta, draws, n_impressions, n_clicks,
                                max_position, confidence_level, n_resamples)
