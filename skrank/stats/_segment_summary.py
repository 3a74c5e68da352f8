"""Per-query values to metrics by segment: means, resampled means and intervals.

:func:`summarise_segments` is where both engines of :func:`skrank.evaluate_by`
end (in memory and on Dask): each segment's mean is the finishing step of
:func:`skrank.evaluate` over its queries, and the intervals come from a
stratified bootstrap over queries (:class:`._resample.Resampler`), read by
:func:`._intervals.confidence_intervals`. The results,
:class:`SegmentEvaluationResult` and its :class:`SegmentDifferenceResult`, live here too.
"""

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._core._aggregate import finish_mean, partial_mean
from .._core._warnings import warn
from ._intervals import confidence_intervals, jackknife_acceleration
from .._core._resample import Resampler
from ._tables import (
    ComparisonTable,
    format_cell,
    interval_text,
    level_text,
    segment_label,
    table_frame,
    table_text,
)


def _segment_means(values, weights, starts):
    """Per segment: evaluate's weighted mean over its queries, and their count.

    The queries are sorted by segment; ``starts`` is where each segment's
    queries begin (each segment has at least one).
    """
    keep = ~np.isnan(values)
    w = np.where(keep, weights, 0.0)
    scale = np.maximum.reduceat(w, starts)
    sizes = np.diff(starts, append=values.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        relative = np.where(keep, w / np.repeat(scale, sizes), 0.0)
        weighted = np.add.reduceat(np.where(keep, values, 0.0) * relative, starts)
        total = np.add.reduceat(relative, starts)
        n_values = np.add.reduceat(keep.astype(np.int64), starts)
        means = np.where((n_values > 0) & (total > 0), weighted / total, np.nan)
    return means, n_values


def summarise_segments(per_query, query_segment, query_rows, keys, names, *,
                       level, n_resamples, method, rng, min_queries):
    """The :class:`SegmentEvaluationResult` of per-query values (both engines end here).

    ``per_query`` is ``{metric: (values, weights)}`` with the queries in
    ascending order of id; ``query_segment`` and ``query_rows`` give each
    query's segment and row count. The resamples depend only on these
    arrays, their order and ``rng``.
    """
    metrics = list(per_query)
    n_segments = len(keys)
    n_metrics = len(metrics)
    overall = {m: finish_mean(partial_mean(*per_query[m])) for m in metrics}
    # stable: queries keep their order within a segment (a radix sort when
    # the segment codes fit 16 bits)
    codes = query_segment.astype(np.uint16) if n_segments <= 1 << 16 else query_segment
    order = np.argsort(codes, kind="stable")
    segment = query_segment[order]
    sizes = np.bincount(segment, minlength=n_segments)
    starts = np.cumsum(sizes) - sizes
    n_rows = np.bincount(query_segment, weights=query_rows, minlength=n_segments)

    value = np.full((n_segments, n_metrics), np.nan)
    n_values = np.zeros((n_segments, n_metrics), dtype=np.int64)
    sorted_values = {}
    for j, m in enumerate(metrics):
        v, w = (np.asarray(a, dtype=np.float64)[order] for a in per_query[m])
        sorted_values[m] = (v, w)
        value[:, j], n_values[:, j] = _segment_means(v, w, starts)
    empty = list(zip(*np.nonzero(n_values == 0)))
    if empty:
        shown = ", ".join(f"{segment_label(keys[s])} / {metrics[j]}" for s, j in empty[:5])
        warn(
            f"{len(empty)} (segment, metric) pair(s) have no query with a value "
            f"(no relevant row, or a single class): {shown}; their values are nan.",
            UndefinedMetricWarning,
        )

    notes = np.full((n_segments, n_metrics), "", dtype=object)
    notes[n_values == 0] = "no query with a value"
    low = np.full((n_segments, n_metrics), np.nan)
    high = low.copy()
    overall_low = np.full(n_metrics, np.nan)
    overall_high = overall_low.copy()
    boot = boot_overall = None
    if level is not None and sizes.shape[0]:
        resampler = Resampler(sizes, n_resamples, rng)
        boot, boot_overall, a_seg, a_all = _bootstrap(
            sorted_values, metrics, segment, sizes, resampler,
            with_acceleration=method == "BCa",
        )
        low, high = (
            x.reshape(n_segments, n_metrics) for x in confidence_intervals(
                boot.reshape(n_resamples, -1), value.reshape(-1), level, method,
                None if a_seg is None else a_seg.reshape(-1),
            )
        )
        estimate = np.array([overall[m] for m in metrics])
        overall_low, overall_high = confidence_intervals(
            boot_overall, estimate, level, method, a_all
        )
        few = (n_values < min_queries) & (n_values > 0)
        low[few | (n_values == 0)] = np.nan
        high[few | (n_values == 0)] = np.nan
        for s, j in zip(*np.nonzero(few)):
            notes[s, j] = (
                f"too few queries for an interval ({n_values[s, j]} with a value; "
                f"min_queries={min_queries})"
            )
        missing = np.isnan(boot).sum(axis=0)
        for s, j in zip(*np.nonzero((missing > 0) & ~few & (n_values > 0))):
            notes[s, j] = (
                f"{missing[s, j]} of {n_resamples} resamples drew no query with a "
                "value; interval from the others"
            )
        undefined = np.isnan(low) & (n_values >= min_queries)
        for s, j in zip(*np.nonzero(undefined)):
            notes[s, j] = f"{method} interval undefined (degenerate resamples)"
    return SegmentEvaluationResult(
        overall=overall, by=tuple(names), segments=list(keys), metrics=metrics,
        value=value, ci_low=low, ci_high=high, n_queries=sizes.astype(np.int64),
        n_rows=n_rows.astype(np.int64), n_values=n_values, notes=notes,
        overall_ci=(overall_low, overall_high), confidence_level=level,
        method=method, n_resamples=n_resamples, boot=boot, boot_overall=boot_overall,
    )


def _bootstrap(sorted_values, metrics, segment, sizes, resampler, with_acceleration):
    """Resampled means per segment and overall (and BCa's a-hat) for each metric."""
    n_segments = sizes.shape[0]
    columns, index = [], {}
    numerators, denominators = [], []
    weight_max = max(
        (float(np.max(np.where(np.isnan(v), 0.0, w), initial=0.0))
         for v, w in sorted_values.values()),
        default=0.0,
    ) or 1.0
    for m in metrics:
        v, w = sorted_values[m]
        keep = ~np.isnan(v)
        b = np.where(keep, w / weight_max, 0.0)
        a = np.where(keep, v, 0.0) * b
        numerators.append(len(columns))
        columns.append(a)
        key = b.tobytes()  # metrics sharing query weights share one column
        if key not in index:
            index[key] = len(columns)
            columns.append(b)
        denominators.append(index[key])
    sums = resampler.sums(np.column_stack(columns))
    num = sums[:, :, numerators]
    den = sums[:, :, denominators]
    with np.errstate(invalid="ignore", divide="ignore"):
        boot = np.where(den > 0, num / den, np.nan)  # (resample, segment, metric)
        total = den.sum(axis=1)
        boot_overall = np.where(total > 0, num.sum(axis=1) / total, np.nan)
    if not with_acceleration:
        return boot, boot_overall, None, None
    a_segment = np.full((n_segments, len(metrics)), np.nan)
    a_overall = np.full(len(metrics), np.nan)
    for j, m in enumerate(metrics):
        v, w = sorted_values[m]
        keep = ~np.isnan(v)
        a = np.where(keep, v * w, 0.0)
        b = np.where(keep, w, 0.0)
        seg = segment[keep]
        with np.errstate(invalid="ignore", divide="ignore"):
            a_sum = np.bincount(segment, weights=a, minlength=n_segments)
            b_sum = np.bincount(segment, weights=b, minlength=n_segments)
            # leave one query out of its segment, or out of all queries
            theta_i = (a_sum[seg] - a[keep]) / (b_sum[seg] - b[keep])
            a_segment[:, j] = jackknife_acceleration(theta_i, seg, seg, n_segments)
            theta_all = (a_sum.sum() - a[keep]) / (b_sum.sum() - b[keep])
            a_overall[j] = jackknife_acceleration(
                theta_all, np.zeros_like(seg), seg, 1
            )[0]
    return boot, boot_overall, a_segment, a_overall


# -------------------------------------------------------------- result --


class SegmentEvaluationResult:
    """What :func:`evaluate_by` returns: metrics by segment, with intervals.

    Attributes
    ----------
    overall : dict
        Metric name -> mean over all queries, as :func:`evaluate` returns it.
    overall_ci : dict
        Metric name -> ``(low, high)``: the interval of the overall mean
        from the same (stratified) resamples.
    by : tuple of str
        The name of each segment column.
    segments : list of tuple
        Each segment's key: one value per column of ``by``, in sorted order.
    metrics : list of str
    value, ci_low, ci_high : ndarray of shape (n_segments, n_metrics)
        Each segment's mean and interval (nan where there is none; see
        ``notes``).
    n_queries, n_rows : ndarray of shape (n_segments,)
        Queries and rows of each segment.
    n_values : ndarray of shape (n_segments, n_metrics)
        Queries with a value of the metric (those left out by
        ``no_relevant="skip"`` are not counted).
    notes : ndarray of str of shape (n_segments, n_metrics)
        Why a value or an interval is missing ("" when nothing is).
    confidence_level, method, n_resamples
        As passed.

    Examples
    --------
    >>> from skrank import evaluate_by
    >>> result = evaluate_by([1, 0, 0, 1, 1, 0], [2, 1, 2, 1, 2, 1],
    ...                      query_id=[1, 1, 2, 2, 3, 3], by=["a", "a", "b", "b", "a", "a"],
    ...                      metrics=["mrr"], confidence_level=None)
    >>> result.segments, result.value[:, 0].tolist()     # a: (1 + 1) / 2, b: 1/2
    ([('a',), ('b',)], [1.0, 0.5])
    >>> result.n_queries.tolist(), result.n_rows.tolist()
    ([2, 1], [4, 2])
    """

    def __init__(self, *, overall, by, segments, metrics, value, ci_low, ci_high,
                 n_queries, n_rows, n_values, notes, overall_ci, confidence_level,
                 method, n_resamples, boot=None, boot_overall=None):
        self.overall = overall
        self.by = by
        self.segments = segments
        self.metrics = metrics
        self.value = value
        self.ci_low = ci_low
        self.ci_high = ci_high
        self.n_queries = n_queries
        self.n_rows = n_rows
        self.n_values = n_values
        self.notes = notes
        self.overall_ci = {
            m: (float(overall_ci[0][j]), float(overall_ci[1][j]))
            for j, m in enumerate(metrics)
        }
        self.confidence_level = confidence_level
        self.method = method
        self.n_resamples = n_resamples
        self._boot = boot
        self._boot_overall = boot_overall

    def _rows(self, value, low, high, notes, skip=None):
        for s, key in enumerate(self.segments):
            if s == skip:
                continue
            for j, m in enumerate(self.metrics):
                yield (*key, m, float(value[s, j]), float(low[s, j]),
                       float(high[s, j]), int(self.n_queries[s]),
                       int(self.n_rows[s]), notes[s, j])

    def _columns(self):
        return (*self.by, "metric", "value", "ci_low", "ci_high", "n_queries",
                "n_rows", "note")

    def to_table(self):
        """The tidy table as a :class:`ComparisonTable` (no pandas needed)."""
        return ComparisonTable(
            self._columns(),
            self._rows(self.value, self.ci_low, self.ci_high, self.notes),
        )

    def to_frame(self, library="pandas"):
        """One row per (segment, metric), as a pandas or polars DataFrame.

        Columns: the segment column(s) of ``by``, ``metric``, ``value``,
        ``ci_low``, ``ci_high``, ``n_queries``, ``n_rows`` and ``note``.
        """
        return table_frame(self.to_table(), library)

    def difference(self, baseline="overall"):
        """Each segment's value minus a baseline's, with intervals from the same resamples.

        Parameters
        ----------
        baseline : "overall" or segment key, default="overall"
            ``"overall"``: the mean over all queries (paired: a segment's
            queries are part of it in every resample). Or one segment (its
            key, a tuple with one value per ``by`` column, or the value
            itself for one column); the segments are resampled
            independently, so the difference's interval is wider.

        Returns
        -------
        table : SegmentDifferenceResult
            With ``to_frame()``, a readable repr and ``plot()``. With
            ``method="BCa"`` the differences' intervals are percentile
            intervals.
        """
        if baseline == "overall":
            base = np.array([self.overall[m] for m in self.metrics])[None, :]
            base_boot = self._boot_overall[:, None, :] if self._boot is not None else None
            skip, name = None, "overall"
        else:
            key = baseline if isinstance(baseline, tuple) else (baseline,)
            if key not in self.segments:
                shown = ", ".join(segment_label(k) for k in self.segments[:10])
                raise ValueError(
                    f"`baseline` must be 'overall' or one of the segments ({shown}), "
                    f"got {baseline!r}."
                )
            skip = self.segments.index(key)
            base = self.value[skip][None, :]
            base_boot = self._boot[:, skip][:, None, :] if self._boot is not None else None
            name = segment_label(key)
        value = self.value - base
        low = np.full_like(value, np.nan)
        high = low.copy()
        notes = self.notes.copy()
        if self._boot is not None:
            diff_boot = self._boot - base_boot
            method = "percentile" if self.method == "BCa" else self.method
            lo, hi = confidence_intervals(
                diff_boot.reshape(self.n_resamples, -1), value.reshape(-1),
                self.confidence_level, method,
            )
            missing = np.isnan(self.ci_low)
            if skip is not None:
                missing = missing | np.isnan(self.ci_low[skip])[None, :]
                for j in np.nonzero(np.isnan(self.ci_low[skip]))[0]:
                    for s in range(len(self.segments)):
                        if not notes[s, j]:
                            notes[s, j] = "the baseline has no interval"
            low = np.where(missing, np.nan, lo.reshape(value.shape))
            high = np.where(missing, np.nan, hi.reshape(value.shape))
        table = ComparisonTable(
            self._columns(), self._rows(value, low, high, notes, skip=skip)
        )
        return SegmentDifferenceResult(table, self, baseline=name)

    def plot(self, ax=None, **kwargs):
        """A forest plot of segments x metrics, the overall value marked.

        Needs matplotlib. Returns a :class:`skrank.SegmentForestDisplay`
        (``ax`` and ``kwargs`` go to its ``plot``).
        """
        from ..plot._segments import SegmentForestDisplay

        return SegmentForestDisplay.from_evaluation(self).plot(ax=ax, **kwargs)

    def _header(self):
        n = len(self.segments)
        by = ", ".join(self.by)
        head = (
            f"SegmentEvaluationResult: {n} segment{'s' * (n != 1)} by {by}, "
            f"{len(self.metrics)} metric(s)"
        )
        if self.confidence_level is None:
            return head + ", no intervals"
        return head + (
            f", {level_text(self.confidence_level)} {self.method} intervals from "
            f"{self.n_resamples} resamples of queries"
        )

    def __repr__(self):
        overall = "  ".join(
            f"{m} {format_cell(v)} {interval_text(*self.overall_ci[m])}"
            if self.confidence_level is not None else f"{m} {format_cell(v)}"
            for m, v in self.overall.items()
        )
        return f"{self._header()}\noverall: {overall}\n\n{table_text(self.to_table(), self.confidence_level)}"


class SegmentDifferenceResult:
    """Differences between segments and a baseline: what ``difference()`` returns.

    Attributes
    ----------
    table : ComparisonTable
        One row per (segment, metric): ``value`` is the segment's minus the
        baseline's, with its interval.
    baseline : str
        ``"overall"`` or the baseline segment's label.

    Examples
    --------
    >>> from skrank import evaluate_by
    >>> result = evaluate_by([1, 0, 0, 1, 1, 0], [2, 1, 2, 1, 2, 1],
    ...                      query_id=[1, 1, 2, 2, 3, 3], by=["a", "a", "b", "b", "a", "a"],
    ...                      metrics=["mrr"], confidence_level=None)
    >>> result.difference().to_frame()["value"].tolist()   # overall (1 + 1/2 + 1) / 3
    [0.1666..., -0.3333...]
    >>> result.difference(baseline="a").to_frame()["value"].tolist()   # 1/2 - 1
    [-0.5]
    """

    def __init__(self, table, evaluation, *, baseline):
        self.table = table
        self.baseline = baseline
        self._evaluation = evaluation

    def to_frame(self, library="pandas"):
        """The table as a pandas or polars DataFrame."""
        return table_frame(self.table, library)

    def plot(self, ax=None, **kwargs):
        """A forest plot of the differences, with zero marked. Needs matplotlib."""
        from ..plot._segments import SegmentForestDisplay

        return SegmentForestDisplay.from_table(
            self.table, self._evaluation.by, reference=0.0,
            reference_label=f"= {self.baseline}",
        ).plot(ax=ax, **kwargs)

    def __repr__(self):
        level = self._evaluation.confidence_level
        return (
            f"SegmentDifferenceResult: each segment minus {self.baseline}\n\n"
            f"{table_text(self.table, level)}"
        )


# the names of skrank 0.1.0.dev's first faces: result classes now end in Result
SegmentEvaluation = SegmentEvaluationResult
SegmentDifference = SegmentDifferenceResult
