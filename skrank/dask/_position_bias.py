"""estimate_position_bias on a Dask DataFrame: sufficient statistics per partition.

``"randomized"`` compares positions within the same displayed lists, so the
rows are shuffled by list first (no shuffle when the frame is already
partitioned by query or list); ``"harvest"`` needs each (query, document)
pair's cells, so the rows are shuffled by query (the shuffle of
:func:`skrank.dask.evaluate`). Each partition then sums the method's
statistics (:func:`skrank.clicks._randomized.randomized_statistics`, or
AllPairs' ``c[k, k']`` and ``n[k, k']``); Dask's groupby adds the
partitions' sums; the client runs the in-memory statistic -> estimate step
(:func:`skrank.clicks._statistics.statistic_estimates`) and finishing
step. With ``n_resamples > 0`` the per-query statistics come to the client,
where the in-memory query bootstrap draws them (a query's statistics may
come from several partitions: they are added up there).
"""

import numpy as np

from .._core._quiet import quiet_dask
from .._core._validation import check_option, first_position
from ..clicks._position_bias import (
    check_bias_options,
    check_click_evidence,
    check_doc_id,
    finish_position_bias,
    harvest_statistics,
)
from ..clicks._identify import check_resampling_units
from ..clicks._randomized import randomized_statistics
from ..clicks._statistics import statistic_estimates
from ..clicks._validation import (
    check_clicks,
    check_lists_in_queries,
    check_one_row_per_position,
    check_positions,
    list_codes,
)
from ..metrics._plan import PartitionPlan
from ._frame_input import check_column, check_converted_ids, check_dask_frame
from ._shuffle import whole_queries

# what an entry holds: the ids of the partition's queries (for the
# bootstrap), clicks or rows at position k, AllPairs' c[k, k2] or n[k, k2],
# or the randomized estimate's clicks at k, and at position 1, of the lists
# that show both
(_IDS, _CLICKS, _SHOWN, _PAIR_CLICKS, _PAIR_SHOWN, _SAME_LIST,
 _SAME_LIST_TOP) = range(-1, 6)
#: the deepest position a partition tabulates without ``max_position``: the
#: tables are dense in the position (AllPairs' in pairs of positions), so a
#: stray row at position 2**40 would ask for terabytes
_DEEPEST = 1 << 16


class _BiasPlan(PartitionPlan):
    """What each partition sums for :func:`estimate_position_bias`."""

    def __init__(self, method, click, position, list_id, query_id, doc_id,
                 max_position, per_query, list_on_index, query_on_index, row_label):
        self.method = method
        self.click = click
        self.position = position
        self.list_id = list_id
        self.list_on_index = list_on_index
        # rows are named by their query (PartitionPlan.naming_rows)
        self.query_id = list_id if query_id is None else query_id
        self.query_on_index = list_on_index if query_id is None else query_on_index
        self.has_query = query_id is not None
        self.doc_id = doc_id
        self.max_position = max_position
        self.per_query = per_query
        self.row_label = row_label

    def _ids(self, frame, name, on_index):
        return frame.index if on_index else frame[name]

    def entries(self, frame, meta):
        """The partition's statistics as rows ``(query, what, k, k2, value)``.

        ``what`` is clicks or impressions at position ``k`` (0-based),
        AllPairs' ``c[k, k2]`` or ``n[k, k2]``, or the randomized
        estimate's two sums at ``k``; ``query`` (with ``per_query``) is the
        id whose statistics they are, and rows with ``what=-1`` list the ids
        of the partition's queries with rows above ``max_position``: those
        the bootstrap draws (with no pair of positions, a query still
        counts). Without ``per_query``, the partition's sums over its
        queries. An empty partition, or one whose rows all lie below
        ``max_position``, adds nothing.
        """
        import pandas as pd

        if frame.shape[0] == 0:
            return meta
        n_rows = frame.shape[0]
        with self.naming_rows(frame):
            click = check_clicks(frame[self.click])
            position = check_positions(frame[self.position])
            lists, _ = list_codes(self._ids(frame, self.list_id, self.list_on_index),
                                  n_rows, name="list_id")
            check_one_row_per_position(lists, position, name="list_id")
            query, query_ids = list_codes(
                self._ids(frame, self.query_id, self.query_on_index), n_rows,
                name="query_id")
            if self.has_query:
                check_lists_in_queries(lists, query, query_ids)
            doc = None
            if self.method == "harvest":
                doc, _ = list_codes(frame[self.doc_id], n_rows, name="doc_id")
        if self.max_position is not None:
            keep = position <= self.max_position
            click, position, query = click[keep], position[keep], query[keep]
            lists = lists[keep]
            doc = None if doc is None else doc[keep]
        if position.shape[0] == 0:
            return meta
        if self.max_position is None and int(position.max()) > _DEEPEST:
            with self.naming_rows(frame):
                where = first_position(position == position.max())
            raise ValueError(
                f"`position` {int(position.max())} at {where} is deeper than any "
                f"position a propensity can be estimated at here (tables of "
                f"{_DEEPEST:,} positions at most, and every position above it "
                "would need a click): pass `max_position` to leave the deep rows out."
            )
        parts = []
        if self.per_query:  # the queries with rows left: the bootstrap's
            parts.append((query_ids[np.unique(query)], _IDS, 0, 0, 0.0))
        n_positions = int(position.max())
        n_queries = len(query_ids)
        k = np.arange(n_positions)
        parts.append((None, _CLICKS, k, 0,
                      np.bincount(position - 1, click, n_positions)))
        parts.append((None, _SHOWN, k, 0,
                      np.bincount(position - 1, minlength=n_positions)))
        if self.method == "randomized":
            stats = randomized_statistics(click, position - 1, lists, query,
                                          n_positions, n_queries)
            size = n_positions
            first_what = _SAME_LIST
        else:
            stats = harvest_statistics(click, position - 1, query, doc,
                                       n_positions, n_queries)
            size = n_positions * n_positions
            first_what = _PAIR_CLICKS
        if self.per_query:
            stats = stats.tocoo()
            rows, columns, data = stats.row, stats.col, stats.data
        else:
            data = np.asarray(stats.sum(axis=0)).ravel()
            columns = np.flatnonzero(data)
            rows, data = None, data[columns]
        what, cell = np.divmod(columns, size)
        k, k2 = (cell, 0) if self.method == "randomized" else np.divmod(cell,
                                                                       n_positions)
        parts.append((None if rows is None else query_ids[rows],
                      first_what + what, k, k2, data))
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
    list_id,
    query_id=None,
    click="click",
    position="position",
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
    list_id : str
        Column (or the name of the index) of the displayed list (an
        impression) the row belongs to; a list shows one document per
        position.
    query_id : str, default=None
        Column (or the name of the index) of the query each list answers:
        the document's relevance is the (query, document) pair's, and the
        bootstrap resamples queries. By default each list is its own query.
    click : str, default="click"
        Column of clicks, 0 or 1.
    position : str, default="position"
        Column of the 1-based position where the logger showed the row.
    doc_id : str, default=None
        Column of the document; needed by ``"harvest"``.
    method : {"randomized", "harvest"}
        No default (``"conditional"`` and ``"em"`` run in memory only):
        ``"randomized"`` shuffles by list so that each list is in one
        partition, and sums the clicks at each position and at position 1
        of the lists that show both; ``"harvest"`` shuffles by query so
        that each (query, document) pair is in one partition, and sums
        AllPairs' counts per pair of positions.
    max_position : int, default=None
        The last position to estimate; rows below it are left out.
    confidence_level : float, default=0.95
        Of the bootstrap interval.
    n_resamples : int, default=0
        Bootstrap resamples of the queries. 0 (the default here, unlike in
        memory) computes no interval and collects nothing but the sums.
        Above 0, the per-query statistics are collected on the client
        (the sums of each query with rows, or the pair counts of each query
        seen at two positions): memory there grows with the number of
        queries, not of rows. The interval then equals the in-memory one
        for the same ``random_state``.
    random_state : int, numpy Generator or None, default=None
        Seed of the bootstrap.
    partitioned_by_query : {"auto", True, False}, default="auto"
        Whether every query's rows already sit in one partition, as for
        :func:`skrank.dask.evaluate` (so every list's rows too): then
        nothing is shuffled. ``"auto"``: when the index holds the query
        ids (for ``"randomized"``, the query or list ids) with known
        divisions.

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
    ...     "impression": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "click": [1, 1, 0, 0, 1, 0, 1, 0],
    ...     "position": [1, 2, 1, 2, 1, 2, 1, 2],
    ... })
    >>> df = dd.from_pandas(rows, npartitions=3)
    >>> bias = skrank.dask.estimate_position_bias(df, list_id="impression",
    ...                                           method="randomized")
    >>> bias.propensity                       # (1 click) / (3 clicks)
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
    check_option("partitioned_by_query", partitioned_by_query, ("auto", True, False))
    check_column(df, "click", click)
    check_column(df, "position", position)
    columns = [click, position]
    if method == "harvest":
        check_column(df, "doc_id", doc_id)
        columns.append(doc_id)
    list_on_index = check_column(df, "list_id", list_id, allow_index=True)
    check_converted_ids(df, list_id, list_on_index)
    query_on_index = False
    if query_id is not None:
        query_on_index = check_column(df, "query_id", query_id, allow_index=True)
        check_converted_ids(df, query_id, query_on_index)
    ids = [name for name, on_index in ((list_id, list_on_index),
                                       (query_id, query_on_index))
           if name is not None and not on_index]
    frame = df[list(dict.fromkeys(columns + ids))]
    row_label = "query" if (query_on_index if query_id is not None
                            else list_on_index) else "index"
    # the shuffle: whole queries for harvest's pairs, whole lists for randomized
    if method == "harvest" and query_id is not None:
        key, key_on_index = query_id, query_on_index
    else:
        key, key_on_index = list_id, list_on_index
    if partitioned_by_query == "auto":
        partitioned = df.known_divisions and (
            query_on_index or (method == "randomized" and list_on_index)
            or (query_id is None and list_on_index))
    else:
        partitioned = partitioned_by_query
    frame, shuffled_on_index, _ = whole_queries(frame, key, key_on_index,
                                                partitioned, "average")
    if key_on_index and not shuffled_on_index:  # the key's index became a column
        if key == list_id and list_on_index:
            list_on_index = False
        if key == query_id and query_on_index:
            query_on_index = False
    per_query = n_resamples > 0
    units, units_on_index = ((list_id, list_on_index) if query_id is None
                             else (query_id, query_on_index))
    ids_dtype = frame._meta.index.dtype if units_on_index else frame._meta[units].dtype
    meta = _entries_meta(ids_dtype, per_query)
    plan = _BiasPlan(method, click, position, list_id, query_id, doc_id,
                     max_position, per_query, list_on_index, query_on_index,
                     row_label)
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
    if not counted.any():
        raise ValueError(
            "`df` has no rows" + ("" if max_position is None else
                                  f" at positions 1..{max_position}")
            + ": there is nothing to estimate.")
    n_positions = (int(k[counted].max()) + 1 if max_position is None
                   else max_position)
    n_clicks = np.bincount(k[what == _CLICKS], value[what == _CLICKS],
                           n_positions).astype(np.int64)
    n_impressions = np.bincount(k[what == _SHOWN], value[what == _SHOWN],
                                n_positions).astype(np.int64)
    check_click_evidence(n_clicks, max_position)
    if method == "randomized":
        statistic = (what == _SAME_LIST) | (what == _SAME_LIST_TOP)
        column = np.where(statistic, (what - _SAME_LIST) * n_positions + k, 0)
        size = 2 * n_positions
    else:
        square = n_positions * n_positions
        statistic = (what == _PAIR_CLICKS) | (what == _PAIR_SHOWN)
        column = np.where(statistic,
                          (what - _PAIR_CLICKS) * square + k * n_positions + k2, 0)
        size = 2 * square
    totals = np.bincount(column[statistic], value[statistic], size)
    stats = None
    if per_query:
        codes, _ = list_codes(entries["query"], entries.shape[0])
        n_queries = int(codes.max()) + 1
        check_resampling_units(n_queries, n_resamples)
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
