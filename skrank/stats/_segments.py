"""evaluate_by(): metrics by segment, with intervals from a bootstrap over queries.

The per-query values come from one :func:`evaluate` call (one sort). A
segment is a property of a query, so the queries are ordered by segment and
each segment's mean is the finishing step of :func:`evaluate` over its
queries. The intervals resample queries, not rows, within each segment
(a stratified cluster bootstrap), with a :class:`Resampler` (as
:func:`stratified_resample_sums`): whole-array arithmetic, no loop over
resamples or segments. The draws need only the segments' sizes, so with a
second core a thread finds those and counts the first draws while
:func:`evaluate` runs.
"""

import math
import threading
import warnings

import numpy as np
from scipy.special import ndtr, ndtri
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_random_state

from .._core._aggregate import finish_mean, partial_mean
from .._core._factorize import _factorize
from .._core._frames import column_names, column, pandas_categorical, to_numpy
from .._core._params import BOOTSTRAP_METHODS, PARAMETERS, check_params
from .._core._warnings import warn
from ..metrics._evaluate import evaluate, metric_names
from ._compare import ComparisonTable, _format_cell, _format_table
from ._resample import Resampler

METHODS = BOOTSTRAP_METHODS


# ------------------------------------------------------------ segments --

def _by_columns(by, n_rows):
    """``by`` as a list of (name, 1-D array): one array-like, a list of them, a frame."""
    names = column_names(by)
    if names is not None:
        if not names:
            raise ValueError("`by` is a DataFrame without columns: name a segment.")
        return [(str(name), _column_values(column(by, name), name, n_rows))
                for name in names]
    if isinstance(by, dict):
        if not by:
            raise ValueError("`by` is an empty dict: name a segment column.")
        return [(str(name), _column_values(values, name, n_rows))
                for name, values in by.items()]
    if isinstance(by, (list, tuple)) and by and all(
        not isinstance(part, (str, bytes)) and np.ndim(to_numpy(part)) == 1
        for part in by
    ):
        parts = list(by)
        return [(_name_of(part, f"segment_{i}"), _column_values(part, i, n_rows))
                for i, part in enumerate(parts)]
    if by is None:
        raise ValueError("`by` is required: the segment of each row (an array-like).")
    return [(_name_of(by, "segment"), _column_values(by, None, n_rows))]


def _name_of(values, default):
    name = getattr(values, "name", None)
    return str(name) if isinstance(name, (str, int)) and name != "" else default


def _column_values(values, which, n_rows):
    where = "`by`" if which is None else f"`by`[{which!r}]"
    categorical = pandas_categorical(values)
    if categorical is not None:
        codes, categories = categorical
        if (codes < 0).any():
            raise ValueError(f"{where} contains missing values.")
        array = categories[codes]
    else:
        array = np.asarray(to_numpy(values))
        if array.ndim != 1:
            raise ValueError(
                f"{where} must be 1-D (one segment per row), got shape {array.shape}."
            )
    if array.shape[0] != n_rows:
        raise ValueError(
            f"{where} has {array.shape[0]} values but there are {n_rows} rows "
            "(one segment per row, or per ranking for 2-D input)."
        )
    if array.dtype.kind == "f" and np.isnan(array).any():
        raise ValueError(f"{where} contains missing values.")
    return array


def _check_missing(name, values):
    """A ValueError when a segment value is missing (None or NaN)."""
    if values.dtype.kind == "f":
        missing = np.isnan(values).any()
    elif values.dtype.kind == "O":
        missing = any(
            value is None or (isinstance(value, float) and math.isnan(value))
            for value in values
        )
    else:
        missing = False
    if missing:
        raise ValueError(f"`by` ({name}) contains missing values.")


def _codes(array):
    """(codes, sorted labels) of one segment column; every label is some value's."""
    if array.dtype.kind in "iu" and array.shape[0]:
        low, high = int(array.min()), int(array.max())
        if high - low <= 4 * array.shape[0] + 1024:  # few distinct values: no sort
            present = np.bincount(array - low, minlength=high - low + 1) > 0
            labels = (np.flatnonzero(present) + low).astype(array.dtype)
            return (np.cumsum(present) - 1)[array - low], labels
    try:
        labels, codes = np.unique(array, return_inverse=True)
    except TypeError:  # values of unorderable types: order by type, then text
        seen = {}
        for value in array:
            seen.setdefault(value, None)
        labels = sorted(seen, key=lambda v: (type(v).__name__, str(v)))
        index = {value: i for i, value in enumerate(labels)}
        codes = np.fromiter((index[v] for v in array), np.int64, array.shape[0])
        labels = np.array(labels + [None], dtype=object)[:-1]
    return codes.reshape(-1).astype(np.int64), labels


def segments_of_queries(columns, row_query, n_queries, query_ids):
    """Each query's segment code and the segment keys (sorted).

    ``columns`` are the ``by`` columns, one value per row; a query's rows
    must share their values (else a ValueError naming the first such
    query). Only one row per query is factorised.
    """
    first_row = _first_rows(row_query, n_queries)
    representative = first_row[row_query]
    varies = np.zeros(row_query.shape[0], dtype=bool)
    for _, values in columns:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # elementwise comparison of objects
            varies |= np.asarray(values[representative] != values, dtype=bool)
    if varies.any():
        _raise_varies(row_query, varies, query_ids, columns)
    return _segments_of(columns, first_row)


def _first_rows(row_query, n_queries):
    """Each query's first row."""
    first_row = np.empty(n_queries, dtype=np.int64)
    first_row[row_query[::-1]] = np.arange(row_query.shape[0])[::-1]
    return first_row


def _segments_of(columns, first_row):
    """Each query's segment code and the segment keys, from each query's first row."""
    codes, labels = [], []
    for name, values in columns:
        per_query = values[first_row]
        _check_missing(name, per_query)
        code, label = _codes(per_query)
        codes.append(code)
        labels.append(label)
    if len(codes) == 1:  # one column: its codes are the segments already
        segment = codes[0]
        parts = (np.arange(len(labels[0])),)
    else:  # the intersections that occur
        dims = [max(len(lab), 1) for lab in labels]
        present, segment = np.unique(np.ravel_multi_index(codes, dims),
                                     return_inverse=True)
        parts = np.unravel_index(present, dims)
    keys = [
        tuple(_plain(labels[j][parts[j][s]]) for j in range(len(codes)))
        for s in range(parts[0].shape[0])
    ]
    return segment.reshape(-1).astype(np.int64), keys


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _raise_varies(row_query, varies, query_ids, columns):
    bad = np.unique(row_query[varies])
    q = bad[0]
    rows = row_query == q
    shown = []
    for name, values in columns:
        found = list(dict.fromkeys(_plain(v) for v in values[rows]))
        if len(found) > 1:
            shown.append(f"{name}: {', '.join(map(repr, found[:3]))}")
    more = f" (and {bad.shape[0] - 1} more queries)" if bad.shape[0] > 1 else ""
    raise ValueError(
        "`by` must be constant within each query (a segment is a property of "
        f"a query), but query_id {_plain(query_ids[q])!r}{more} has rows in "
        f"several segments ({'; '.join(shown)})."
    )


def _query_index(y_true, query_id, evaluated_ids):
    """The query of each row, as positions in ``evaluated_ids`` (evaluate's order).

    No second sort: numeric ids are looked up in the sorted ids evaluate
    returned, other ids' codes (ascending) are compacted.
    """
    n_rows = np.shape(y_true)[0] if np.ndim(y_true) else 0
    if query_id is None:
        if np.ndim(y_true) == 2:  # one ranking per row
            return np.arange(n_rows)
        return np.zeros(n_rows, dtype=np.int64)
    keys, labels = _factorize(query_id, n_rows)
    if labels is None:
        try:  # hashing: several times faster than a binary search per row
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a test dependency
            return np.searchsorted(evaluated_ids, keys)
        return pd.Index(evaluated_ids).get_indexer(keys)
    return _present_codes(keys, len(labels))


def _present_codes(keys, n_labels):
    """Codes into sorted labels, renumbered over the labels that occur (in order).

    A pandas categorical's unused categories are no query: evaluate's
    queries are the labels present, in the same order.
    """
    present = np.bincount(keys, minlength=n_labels) > 0
    return (np.cumsum(present) - 1)[keys]


# ----------------------------------------------------------- intervals --

def _quantiles(sorted_boot, n_finite, q):
    """numpy's "linear" quantile of each column (nan sorted last), q per column."""
    n_finite = np.asarray(n_finite)
    q = np.broadcast_to(np.asarray(q, dtype=float), n_finite.shape)
    with np.errstate(invalid="ignore"):
        virtual = (n_finite - 1) * q
        ok = (n_finite > 0) & np.isfinite(virtual)
        below = np.where(ok, np.floor(virtual), 0).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(n_finite - 1, 0))
        t = np.where(ok, virtual - below, 0.0)
        cols = np.arange(n_finite.shape[0])
        a = sorted_boot[below, cols]
        b = sorted_boot[above, cols]
        diff = b - a
        out = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    return np.where(ok, out, np.nan)


def confidence_intervals(boot, estimate, level, method, acceleration=None):
    """(low, high) of each column of ``boot`` (resamples x cells; nan left out).

    The percentile, basic and BCa intervals of ``scipy.stats.bootstrap``
    (two-sided), computed from resamples drawn elsewhere. ``acceleration``
    (BCa's a-hat, one per cell) comes from the jackknife.
    """
    alpha = (1.0 - level) / 2.0
    finite = ~np.isnan(boot)
    n_finite = finite.sum(axis=0)
    if method == "BCa":
        with np.errstate(invalid="ignore", divide="ignore"):
            share = ((boot < estimate) & finite).sum(axis=0) + (
                (boot <= estimate) & finite
            ).sum(axis=0)
            z0 = ndtri(share / (2.0 * n_finite))
            z_alpha = float(ndtri(alpha))
            low_z = z0 + z_alpha
            high_z = z0 - z_alpha
            q_low = ndtr(z0 + low_z / (1 - acceleration * low_z))
            q_high = ndtr(z0 + high_z / (1 - acceleration * high_z))
    else:
        q_low, q_high = alpha, 1.0 - alpha
    ordered = np.sort(boot, axis=0)
    low = _quantiles(ordered, n_finite, q_low)
    high = _quantiles(ordered, n_finite, q_high)
    if method == "basic":
        low, high = 2 * estimate - high, 2 * estimate - low
    return low, high


def _acceleration(theta_i, cell, group, n_cells):
    """BCa's a-hat per cell from jackknife values ``theta_i`` (one per query).

    Queries belong to groups (strata) nested in cells; scipy's formula for
    several samples: U = (n_g - 1)(mean_g - theta_i),
    a = sum(U**3 / n_g**3) / (6 * sum(U**2 / n_g**2) ** 1.5) over the cell.
    """
    n_groups = int(group.max()) + 1 if group.shape[0] else 0
    n_g = np.bincount(group, minlength=n_groups).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_g = np.bincount(group, weights=theta_i, minlength=n_groups) / n_g
        u = (n_g[group] - 1) * (mean_g[group] - theta_i)
        num = np.bincount(cell, weights=u**3 / n_g[group] ** 3, minlength=n_cells)
        den = np.bincount(cell, weights=u**2 / n_g[group] ** 2, minlength=n_cells)
        return num / (6.0 * den**1.5)


# --------------------------------------------------------------- core --

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
                       level, n_resamples, method, rng, min_queries, resampler=None):
    """The :class:`SegmentEvaluation` of per-query values (both engines end here).

    ``per_query`` is ``{metric: (values, weights)}`` with the queries in
    ascending order of id; ``query_segment`` and ``query_rows`` give each
    query's segment and row count. The resamples depend only on these
    arrays, their order and ``rng``. ``resampler``: a :class:`Resampler` made
    from ``rng`` for these segments' sizes, which may have counted draws
    ahead (the same resamples).
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
        shown = ", ".join(f"{_label(keys[s])} / {metrics[j]}" for s, j in empty[:5])
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
        if resampler is None:
            resampler = Resampler(sizes, n_resamples, rng)
        elif not np.array_equal(resampler.sizes, sizes):  # pragma: no cover - a bug
            raise RuntimeError("the resampler was made for other segments")
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
    return SegmentEvaluation(
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
            a_segment[:, j] = _acceleration(theta_i, seg, seg, n_segments)
            theta_all = (a_sum.sum() - a[keep]) / (b_sum.sum() - b[keep])
            a_overall[j] = _acceleration(
                theta_all, np.zeros_like(seg), seg, 1
            )[0]
    return boot, boot_overall, a_segment, a_overall


# -------------------------------------------------------------- result --

def _label(key):
    return " & ".join(map(str, key)) if isinstance(key, tuple) else str(key)


class SegmentEvaluation:
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
        return _frame(self.to_table(), library)

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
        table : SegmentDifference
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
                shown = ", ".join(_label(k) for k in self.segments[:10])
                raise ValueError(
                    f"`baseline` must be 'overall' or one of the segments ({shown}), "
                    f"got {baseline!r}."
                )
            skip = self.segments.index(key)
            base = self.value[skip][None, :]
            base_boot = self._boot[:, skip][:, None, :] if self._boot is not None else None
            name = _label(key)
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
        return SegmentDifference(table, self, baseline=name)

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
            f"SegmentEvaluation: {n} segment{'s' * (n != 1)} by {by}, "
            f"{len(self.metrics)} metric(s)"
        )
        if self.confidence_level is None:
            return head + ", no intervals"
        return head + (
            f", {_level_text(self.confidence_level)} {self.method} intervals from "
            f"{self.n_resamples} resamples of queries"
        )

    def __repr__(self):
        overall = "  ".join(
            f"{m} {_format_cell(v)} {_interval_text(*self.overall_ci[m])}"
            if self.confidence_level is not None else f"{m} {_format_cell(v)}"
            for m, v in self.overall.items()
        )
        return f"{self._header()}\noverall: {overall}\n\n{_table_text(self.to_table(), self.confidence_level)}"


class SegmentDifference:
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
        return _frame(self.table, library)

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
            f"SegmentDifference: each segment minus {self.baseline}\n\n"
            f"{_table_text(self.table, level)}"
        )


def _level_text(level):
    return f"{round(level * 100, 2):g}%"


def _interval_text(low, high):
    return f"[{_format_cell(low)}, {_format_cell(high)}]"


def _table_text(table, level):
    by = table.columns[: table.columns.index("metric")]
    ci = "CI" if level is None else f"{_level_text(level)} CI"
    rows = []
    for row in table.rows:
        values = dict(zip(table.columns, row))
        rows.append((
            " & ".join(str(values[name]) for name in by), values["metric"],
            values["value"], _interval_text(values["ci_low"], values["ci_high"]),
            values["n_queries"], values["n_rows"], values["note"],
        ))
    return _format_table(
        (" & ".join(by), "metric", "value", ci, "queries", "rows", "note"), rows
    )


def _frame(table, library):
    if library == "pandas":
        return table.to_frame()
    if library == "polars":
        try:
            import polars as pl
        except ImportError as exc:
            raise ImportError(
                "to_frame('polars') needs polars: install it with `pip install polars`."
            ) from exc
        return pl.DataFrame(table.to_dict())
    raise ValueError(f"`library` must be 'pandas' or 'polars', got {library!r}.")


# ---------------------------------------------------------- validation --

def check_segment_options(confidence_level, n_resamples, method, min_queries):
    """The bootstrap options, checked (as the table of options checks them)."""
    rules = PARAMETERS["evaluate_by"]
    return tuple(
        rules[name].check(name, value) for name, value in (
            ("confidence_level", confidence_level), ("n_resamples", n_resamples),
            ("method", method), ("min_queries", min_queries),
        )
    )


def make_rng(random_state):
    """A numpy Generator from scikit-learn's ``random_state`` conventions."""
    seed = check_random_state(random_state).randint(0, 2**31 - 1, size=4)
    return np.random.default_rng(seed)


# -------------------------------------------------------------- public --

@check_params
def evaluate_by(
    y_true,
    y_score,
    *,
    by,
    query_id=None,
    metrics=None,
    confidence_level=0.95,
    n_resamples=1000,
    method="percentile",
    random_state=None,
    sample_weight=None,
    min_queries=2,
    **options,
):
    """Metrics by segment, with confidence intervals from a bootstrap over queries.

    Parameters
    ----------
    {y_true, y_score}
    by : array-like of shape (n_rows,), list or dict of array-likes, or DataFrame
        The segment of each row (of each ranking for 2-D input): one
        array-like, or several (a list of them, a dict ``{name: values}``,
        or the columns of a DataFrame), whose combinations are the segments.
        The names label the columns of ``to_frame()`` (a Series' name, else
        ``"segment"``, or ``"segment_0"``, ... for a list). A segment is a
        property of a query: every row of a query must be in the same one.
    {query_id}
    metrics : str or list of str, default=None
        Metric names, as for :func:`evaluate`; None takes :func:`evaluate`'s
        default metrics.
    confidence_level : float or None, default=0.95
        Of the intervals, in (0, 1); None computes no interval.
    n_resamples : int, default=1000
        Bootstrap resamples.
    method : {"percentile", "basic", "BCa"}, default="percentile"
        How an interval is read from the resamples, as in
        ``scipy.stats.bootstrap``.
    random_state : int, RandomState instance or None, default=None
        Seeds the resamples; an int makes the result reproducible.
    {sample_weight}
    min_queries : int, default=2
        A segment needs this many queries with a value of a metric for an
        interval; below it the interval is nan and the note says why.
    **options : dict
        ``ties``, ``no_relevant`` and the metrics' options (``gain=``,
        ``beta=``, ...), exactly as for :func:`evaluate`.

    Returns
    -------
    result : SegmentEvaluation
        ``overall`` (:func:`evaluate`'s result on all rows), per segment
        each metric's ``value``, ``ci_low``, ``ci_high``, ``n_queries`` and
        ``n_rows``; ``to_frame()``, ``difference()`` and ``plot()``.

    See Also
    --------
    evaluate : the metrics on all rows.
    compare : two systems, with paired tests (also ``by=`` segment).

    Notes
    -----
    Each segment's value is :func:`evaluate`'s on that segment's rows: the
    weighted mean of its queries' values.

    The rows of one query are not independent draws (they share the query,
    and a ranking metric scores them together), so the intervals resample
    **queries**, with replacement, within each segment (a stratified
    cluster bootstrap). In every resample a segment draws as many queries as
    it has; its mean over the queries drawn that have a value of the metric
    (weights included) is the resampled statistic. The overall interval and
    the differences of :meth:`SegmentEvaluation.difference` come from the
    same resamples. The percentile, basic and BCa intervals follow
    ``scipy.stats.bootstrap``'s definitions (BCa's acceleration from the
    jackknife over the segment's queries with a value). A resample in which
    a segment drew no query with a value is left out of that segment's
    interval, and the note says so.

    Examples
    --------
    >>> from skrank import evaluate_by
    >>> y_true = [1, 0, 0, 1, 1, 0, 0, 1]
    >>> y_score = [2, 1, 2, 1, 2, 1, 2, 1]
    >>> query_id = [1, 1, 2, 2, 3, 3, 4, 4]
    >>> device = ["app", "app", "web", "web", "app", "app", "web", "web"]
    >>> result = evaluate_by(y_true, y_score, by=device, query_id=query_id,
    ...                      metrics=["mrr"], random_state=0)
    >>> result.overall                    # (1 + 1/2 + 1 + 1/2) / 4
    {'mrr': 0.75}
    >>> result.value[:, 0].tolist()       # app: (1 + 1) / 2, web: (1/2 + 1/2) / 2
    [1.0, 0.5]
    >>> result.to_frame()[["segment", "metric", "value", "n_queries", "n_rows"]]
      segment metric  value  n_queries  n_rows
    0     app    mrr    1.0          2       4
    1     web    mrr    0.5          2       4
    """
    level, n_resamples, method, min_queries = check_segment_options(
        confidence_level, n_resamples, method, min_queries
    )
    metrics = metric_names(metrics)
    rng = make_rng(random_state)
    # the draws need only the segments' sizes: with a second core, another
    # thread finds them and counts the first draws while evaluate runs
    ahead = _CountingAhead(y_true, query_id, by, n_resamples, rng) \
        if level is not None and _resample_threaded(n_resamples, y_true) else None
    try:
        results = evaluate(
            y_true, y_score, query_id=query_id, metrics=metrics,
            sample_weight=sample_weight, aggregate=None, **options,
        )
        query_ids = results[metrics[0]].query_id
        n_queries = query_ids.shape[0]
        row_query = _query_index(y_true, query_id, query_ids)
        columns = _by_columns(by, row_query.shape[0])
        query_segment, keys = segments_of_queries(columns, row_query, n_queries,
                                                  query_ids)
    except BaseException:
        if ahead is not None:
            ahead.cancel()
        raise
    resampler = None if ahead is None else ahead.resampler(
        np.bincount(query_segment, minlength=len(keys)))
    query_rows = np.bincount(row_query, minlength=n_queries)
    if np.ndim(y_true) == 2 and query_id is None:
        query_rows = query_rows * np.shape(y_true)[1]
    per_query = {m: (results[m].value, results[m].weight) for m in metrics}
    try:
        return summarise_segments(
            per_query, query_segment, query_rows, keys, [name for name, _ in columns],
            level=level, n_resamples=n_resamples, method=method, rng=rng,
            min_queries=min_queries, resampler=resampler,
        )
    finally:  # the resampling stops the counting; an error before it must too
        if resampler is not None:
            resampler.stop_counting()


#: at most this many bytes of draws are counted ahead, while evaluate runs
_AHEAD_BYTES = 64 << 20
#: and only for inputs of at most this many rows: finding the sizes on the
#: side takes about 10 bytes a row besides what evaluate takes (160 MiB here)
_AHEAD_ROWS = 1 << 24
#: and of at least this many rows x resamples: below it the thread saves no
#: time (measured with 1,000 resamples: 1e5 rows gain 5%, 5e4 break even)
_AHEAD_DRAWS = 1 << 26


def _resample_threaded(n_resamples, y_true):
    """Whether the resampling would run on threads and gains from starting early.

    The rows stand in for the queries, which are not known yet.
    """
    n_rows = np.shape(y_true)[0] if np.ndim(y_true) else 0
    return (_AHEAD_DRAWS <= n_resamples * n_rows and n_rows <= _AHEAD_ROWS
            and Resampler.threaded_for(n_resamples, n_rows))


def _segment_sizes(y_true, query_id, by):
    """Queries per segment (segments in sorted order), found without evaluate.

    None where the input is one :func:`evaluate` or :func:`segments_of_queries`
    refuses: they report it, as they always have.
    """
    try:
        n_rows = np.shape(y_true)[0]
        if query_id is None:  # one query, or one per row of a 2-D input
            row_query = (np.arange(n_rows) if np.ndim(y_true) == 2
                         else np.zeros(n_rows, dtype=np.int64))
        else:
            keys, labels = _factorize(query_id, n_rows)
            if labels is not None:  # codes of sorted labels, some maybe unused
                row_query = _present_codes(keys, len(labels))
            else:
                try:
                    import pandas as pd
                except ImportError:  # pragma: no cover - pandas is a test dependency
                    row_query = np.unique(keys, return_inverse=True)[1].reshape(-1)
                else:  # a table sized for queries of about 8 rows: few rehashes
                    row_query = pd.factorize(keys, size_hint=n_rows // 8)[0]
        n_queries = int(row_query.max()) + 1 if n_rows else 0
        # no check that `by` is constant within each query: the caller's
        # segments_of_queries does it (and warnings are not touched here,
        # beside another thread)
        columns = _by_columns(by, n_rows)
        segment, keys = _segments_of(columns, _first_rows(row_query, n_queries))
    except (ValueError, TypeError, IndexError):
        return None
    return np.bincount(segment, minlength=len(keys))


class _CountingAhead:
    """A thread that finds the segments' sizes and counts draws while evaluate runs.

    The draws depend only on the sizes, ``n_resamples`` and ``rng``: once
    the caller has its own sizes, :meth:`resampler` hands over the
    :class:`Resampler` (counting stops when its resampling starts) if the
    sizes agree, else puts ``rng`` back as it was and returns None.
    """

    def __init__(self, y_true, query_id, by, n_resamples, rng):
        self._rng, self._state = rng, rng.bit_generator.state
        self._stop, self._made = threading.Event(), None
        self._thread = threading.Thread(target=self._work, daemon=True, args=(
            y_true, query_id, by, n_resamples))
        self._ready = threading.Event()
        self._thread.start()

    def _work(self, y_true, query_id, by, n_resamples):
        try:
            sizes = _segment_sizes(y_true, query_id, by)
            if sizes is None or self._stop.is_set():
                return
            self._made = made = Resampler(sizes, n_resamples, self._rng)
        except Exception:  # nothing counted ahead; the caller finds what is wrong
            return
        finally:
            self._ready.set()
        if made.threaded():  # else its streams run one after the other anyway
            made.count_ahead(self._stop, _AHEAD_BYTES)

    def cancel(self):
        """Stop counting, and put ``rng`` back as it was."""
        self._stop.set()
        self._thread.join()
        self._rng.bit_generator.state = self._state

    def resampler(self, sizes):
        """The resampler made for ``sizes``, its counting stopped by its ``sums``; else None."""
        self._ready.wait()
        made = self._made
        if made is None or not np.array_equal(made.sizes, sizes):
            self.cancel()
            return None
        made.counted_by(self._stop, self._thread)
        return made


# ------------------------------------------------------- compare by= --

class SegmentComparisonResult:
    """What :func:`compare` returns with ``by=``: the comparison in each segment.

    Attributes
    ----------
    summary : ComparisonTable
        One row per (segment, metric, system): the segment column(s),
        ``metric``, ``system``, ``mean``, ``ci_low``, ``ci_high``,
        ``n_queries``.
    tests : ComparisonTable
        One row per (segment, metric, pair): the columns of
        :func:`compare`'s tests after the segment column(s); the corrected
        p-values are corrected over every segment and pair of the metric.

    Examples
    --------
    >>> from skrank import compare
    >>> y_true = [1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0]
    >>> query_id = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    >>> good = [3, 2, 1, 3, 2, 1, 1, 3, 2, 3, 2, 1]     # relevant row first everywhere
    >>> bad = [1, 2, 3, 1, 2, 3, 3, 1, 2, 1, 2, 3]      # relevant row last everywhere
    >>> device = ["app"] * 6 + ["web"] * 6
    >>> result = compare(y_true, {"good": good, "bad": bad}, query_id=query_id,
    ...                  metrics=["mrr"], by={"device": device}, random_state=0)
    >>> result.tests.column("device"), result.tests.column("difference")
    (['app', 'web'], [0.6666..., 0.6666...])
    >>> result.tests.column("p_randomization")     # exact: 2 of the 2**2 sign vectors
    [0.5, 0.5]
    """

    def __init__(self, summary, tests, *, by, description, level, correction):
        self.summary = summary
        self.tests = tests
        self.by = by
        self._description = description
        self._level = level
        self._correction = correction

    def to_frame(self, table="tests", library="pandas"):
        """``"tests"`` or ``"summary"`` as a pandas or polars DataFrame."""
        if table not in ("tests", "summary"):
            raise ValueError(f"`table` must be 'tests' or 'summary', got {table!r}.")
        return _frame(getattr(self, table), library)

    def __repr__(self):
        ci = f"{_level_text(self._level)} CI"
        n_by = len(self.by)
        summary = _format_table(
            (" & ".join(self.by), "metric", "system", "mean", ci, "queries"),
            [(_label(row[:n_by]), m, name, mean, _interval_text(low, high), n)
             for row in self.summary for m, name, mean, low, high, n in [row[n_by:]]],
        )
        corrected = self._correction is not None
        suffix = f" ({self._correction})" if corrected else ""
        rows = []
        for row in self.tests.rows:
            values = dict(zip(self.tests.columns, row))
            rows.append((
                _label(row[:n_by]), values["metric"],
                f"{values['system_a']} - {values['system_b']}", values["difference"],
                _interval_text(values["ci_low"], values["ci_high"]),
                values["p_randomization_corrected" if corrected else "p_randomization"],
                values["p_t_test_corrected" if corrected else "p_t_test"],
            ))
        tests = _format_table(
            (" & ".join(self.by), "metric", "pair", "difference", ci,
             "p randomization" + suffix, "p t-test" + suffix),
            rows,
        )
        return f"{self._description}\n\n{summary}\n\n{tests}"


def compare_by(y_true, systems, *, by, query_id, metrics, baseline, n_resamples,
               level, correction, ties, no_relevant, rng):
    """:func:`compare`'s tests within each segment, corrected across segments."""
    from ._compare import QueryValues, _correct, _per_query_values, compare_per_query

    names = list(systems)
    per_query = _per_query_values(y_true, systems, metrics, query_id, ties, no_relevant)
    query_ids = per_query[metrics[0]][names[0]].query_id
    n_queries = query_ids.shape[0]
    row_query = _query_index(y_true, query_id, query_ids)
    columns = _by_columns(by, row_query.shape[0])
    query_segment, keys = segments_of_queries(columns, row_query, n_queries, query_ids)
    summary_rows, test_rows = [], []
    for s, key in enumerate(keys):
        mask = query_segment == s
        part = {
            m: {name: QueryValues(*(field[mask] for field in per_query[m][name]))
                for name in names}
            for m in metrics
        }
        result = compare_per_query(
            part, names, metrics, baseline=baseline, n_resamples=n_resamples,
            level=level, correction=None, rng=rng,
        )
        summary_rows += [(*key, *row) for row in result.summary.rows]
        test_rows += [(*key, *row) for row in result.tests.rows]
        columns_summary, columns_tests = result.summary.columns, result.tests.columns
    by_names = tuple(name for name, _ in columns)
    n_by = len(by_names)
    test_columns = by_names + columns_tests
    metric_at = test_columns.index("metric")
    for p_name in ("p_randomization", "p_t_test"):
        raw = test_columns.index(p_name)
        fixed = test_columns.index(f"{p_name}_corrected")
        for m in metrics:
            rows = [i for i, row in enumerate(test_rows) if row[metric_at] == m]
            corrected = _correct([test_rows[i][raw] for i in rows], correction)
            for i, value in zip(rows, corrected):
                row = list(test_rows[i])
                row[fixed] = float(value)
                test_rows[i] = tuple(row)
    description = (
        f"SegmentComparisonResult: {len(names)} systems in {len(keys)} segments "
        f"by {', '.join(by_names)}, {len(metrics)} metric(s), {n_resamples} "
        "resamples; p-values corrected over segments and pairs"
        + ("" if correction is None else f" ({correction})")
    )
    return SegmentComparisonResult(
        ComparisonTable(by_names + columns_summary, summary_rows),
        ComparisonTable(test_columns, test_rows),
        by=by_names[:n_by], description=description, level=level,
        correction=correction,
    )
