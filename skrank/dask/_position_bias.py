"""estimate_position_bias on a Dask DataFrame: sufficient statistics per partition.

``"randomized"`` needs clicks and impressions per position, which any
partition can sum (no shuffle); ``"harvest"`` needs each (query, document)
pair's cells, so the rows are shuffled by query first (the shuffle of
:func:`skrank.dask.evaluate`), and each partition sums AllPairs' ``c[k,
k']`` and ``n[k, k']``. Dask's groupby adds the partitions' sums; the client
runs the in-memory statistic -> estimate step
(:func:`skrank.clicks._position_bias.statistic_estimates`) and finishing
step. With ``n_resamples > 0`` the per-query statistics come to the client,
where the in-memory query bootstrap draws them.
"""

import numpy as np

from .._core._quiet import quiet_dask
from ..clicks._position_bias import (
    check_bias_options,
    check_click_evidence,
    check_doc_id,
    finish_position_bias,
    harvest_statistics,
    randomized_statistics,
    statistic_estimates,
)
from ..clicks._validation import check_clicks, check_positions, list_codes
from ..metrics._plan import PartitionPlan
from ._frame_input import check_dask_frame, frame_input
from ._shuffle import whole_queries

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
        No default (``"conditional"`` and ``"em"`` run in memory only):
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
    check_dask_frame(df, "skrank.clicks.estimate_position_bias")
    if method in ("em", "conditional"):
        raise ValueError(
            f"method={method!r} runs in memory only "
            "(skrank.clicks.estimate_position_bias): "
            "it refits every (query, document) pair's relevance at each step. "
            "skrank.dask.estimate_position_bias takes method='randomized' or "
            "'harvest'."
        )
    max_position = check_bias_options(method, max_position, confidence_level,
                                      n_resamples, methods=("harvest", "randomized"))
    if method == "harvest":
        check_doc_id(method, doc_id)
    frame, on_index, partitioned, row_label = frame_input(
        df, [("click", click), ("position", position),
             ("doc_id", doc_id if method == "harvest" else None)],
        query_id=query_id, partitioned_by_query=partitioned_by_query,
    )
    if method == "harvest":
        frame, on_index, _ = whole_queries(frame, query_id, on_index, partitioned,
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
