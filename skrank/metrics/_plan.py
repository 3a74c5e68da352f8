"""What one partition of a distributed frame computes: shared by skrank.dask and skrank.spark.

An engine (Dask, Spark) brings every query's rows into one partition and
hands each partition to a :class:`PartitionPlan` as a pandas DataFrame. The
plan runs skrank's in-memory layout and kernels on it (the very
:func:`skrank.metrics._evaluate.metric_query_values` the in-memory
:func:`skrank.evaluate` runs) and returns either one mergeable
:class:`skrank._core._aggregate.PartialMean` per metric, which the engine
reduces and finishes with :func:`skrank._core._aggregate.finish_mean`, or one
value and weight per query. Nothing here imports an engine.
"""

import numpy as np

from .._core._aggregate import PartialMean, apply_no_relevant, partial_mean
from .._core._layout import rank_queries
from .._core._presets import SCORE_OPTIONS
from .._core._validation import rows_named_by
from ._evaluate import _options_by_metric, metric_query_values, split_options
from ._registry import parse_metric_name

#: column of each row's input position, kept through a shuffle for ties="input"
ROW = "__skrank_row__"

#: the partial mean of a partition without rows
EMPTY_PARTIAL = PartialMean(0.0, 0.0, 0.0, 0)


def _plain(value):
    """A numpy scalar as the Python value it holds (for its repr in a message)."""
    return value.item() if isinstance(value, np.generic) else value


def _object_at(values, position):
    """Row ``position`` of a Series or Index, as numpy's object conversion gives it."""
    row = slice(position, position + 1)
    row = values.iloc[row] if hasattr(values, "iloc") else values[row]
    return np.asarray(row, dtype=object)[0]


def _missing(pd, value):
    """Whether an id is missing (None, nan, NA); a tuple id never is."""
    if isinstance(value, tuple):
        return False
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def kernel_options(caller, metrics, options):
    """Metric name -> the kernel options it takes, for a plan; other options refused.

    ``options`` are the metric options a distributed ``evaluate`` was given
    (``gain=``, ``normalize=``, ``beta=``, ...), ``ties`` and
    ``no_relevant`` already taken out. A peer's preset (``compat``) and the
    score conversions are :func:`skrank.evaluate`'s only, and an option that
    a metric takes only outside the shared layout is refused too: each
    refusal names ``caller`` and says what to do instead.
    """
    in_memory_only = sorted(options.keys() & {"compat", *SCORE_OPTIONS})
    if in_memory_only:
        raise ValueError(
            f"{caller} does not take {', '.join(in_memory_only)}: a peer's "
            "preset and its score conversions run in skrank.evaluate only. Pass "
            "the preset's options themselves (ties=, no_relevant=, gain=, ...), "
            "as skrank.describe_convention(name) lists them."
        )
    parsed = [parse_metric_name(name) for name in metrics]
    taken = _options_by_metric(metrics, parsed, options)
    kernel = {}
    for name, (spec, _) in zip(metrics, parsed):
        kernel[name], function_options = split_options(spec, taken[name])
        if function_options:
            raise ValueError(
                f"{caller} computes {name!r} on the shared layout, which does not "
                f"take {', '.join(sorted(function_options))}; the options it takes "
                f"are {', '.join(spec.kernel_options) or 'none'}."
            )
    return kernel


class PartitionPlan:
    """What every partition computes: the parsed metrics and the column roles.

    Parameters
    ----------
    metrics : list of str
        Metric names, already checked.
    y_true, y_score, query_id, sample_weight : str or None
        Column names (``query_id`` may name the index, with
        ``query_on_index``).
    ties, no_relevant : str
        As for :func:`skrank.evaluate`.
    query_on_index : bool
        Whether the query ids are the frame's index.
    restore_order : bool
        Whether rows are first put back in input order by the :data:`ROW`
        column (``ties="input"`` after a shuffle).
    options : dict, default=None
        Metric name -> the kernel options it takes (``gain``, ...), as
        :func:`kernel_options` returns them.
    metric_options : dict, default=None
        The options as the caller gave them (``{"gain": "linear"}``), for a
        :class:`skrank.RankingAccumulator` made from the plan.
    row_label : {"query", "index"}, default="query"
        How an error names a row of a partition, whose position is no row
        of the caller's frame: by its query id (``"query"``), or by the
        frame's index value and query id (``"index"``: the partition still
        carries the caller's index, as a Dask shuffle keeps it).
    """

    def __init__(self, metrics, y_true, y_score, query_id, sample_weight, ties,
                 no_relevant, query_on_index, restore_order, options=None,
                 metric_options=None, row_label="query"):
        self.metrics = metrics
        self.parsed = [parse_metric_name(name) for name in metrics]
        self.binary = ", ".join(  # names the metrics in a worker's refusal
            name for name, (spec, _) in zip(metrics, self.parsed) if spec.binary
        )
        self.y_true = y_true
        self.y_score = y_score
        self.query_id = query_id
        self.sample_weight = sample_weight
        self.ties = ties
        self.no_relevant = no_relevant
        self.query_on_index = query_on_index
        self.restore_order = restore_order
        self.options = {} if options is None else options
        self.metric_options = {} if metric_options is None else metric_options
        self.row_label = row_label

    def naming_rows(self, frame):
        """A context in which errors name ``frame``'s rows as the caller knows them."""
        import pandas as pd  # partitions are pandas frames

        ids = frame.index if self.query_on_index else frame[self.query_id]
        index = frame.index

        def name_row(i):
            # only the named row becomes a Python object: converting whole
            # columns up front cost a quarter of a partition's work
            query_id = _object_at(ids, i)
            query = None if _missing(pd, query_id) else f"query {_plain(query_id)!r}"
            if self.row_label == "index":
                where = f"index {_plain(_object_at(index, i))!r} of `df`"
                return where if query is None else f"{where}, {query}"
            return "a row with no query id" if query is None else f"a row of {query}"

        return rows_named_by(name_row, frame.shape[0])

    def rank(self, frame):
        """The partition's RankedQueries, or None for an empty partition."""
        if frame.shape[0] == 0:
            return None
        if self.restore_order:  # the input order, which ties="input" follows
            frame = frame.sort_values(ROW, kind="stable")
        query_id = frame.index if self.query_on_index else frame[self.query_id]
        weight = None if self.sample_weight is None else frame[self.sample_weight]
        with self.naming_rows(frame):
            return rank_queries(
                frame[self.y_true], frame[self.y_score], query_id=query_id,
                sample_weight=weight, ties=self.ties, binary=self.binary,
            )

    def weight_columns(self):
        """Column name of each metric's query weight."""
        return {
            name: "weight" if spec.query_weights is None else f"{name}_weight"
            for name, (spec, _) in zip(self.metrics, self.parsed)
        }

    def _query_values(self, ranked):
        for name, (spec, k) in zip(self.metrics, self.parsed):
            yield name, metric_query_values(
                ranked, spec, k, self.no_relevant, self.options.get(name)
            )

    def partials(self, frame):
        """One :class:`PartialMean` per metric over the partition's queries."""
        ranked = self.rank(frame)
        if ranked is None:
            return [EMPTY_PARTIAL for _ in self.metrics]
        return [
            partial_mean(values, weights, undefined=undefined,
                         query_ids=ranked.query_ids, no_relevant=policy)
            for _, (values, undefined, weights, policy) in self._query_values(ranked)
        ]

    def query_columns(self, ranked):
        """Per-query float64 columns: each metric's values and weights.

        A query left out of the mean (``no_relevant="skip"``, a
        single-class query of GAUC) has a nan value.
        """
        columns = {}
        weight_columns = self.weight_columns()
        for name, (values, undefined, weights, policy) in self._query_values(ranked):
            columns[name] = np.asarray(
                apply_no_relevant(values, undefined, ranked, policy), dtype=np.float64
            )
            columns[weight_columns[name]] = np.asarray(weights, dtype=np.float64)
        return columns
