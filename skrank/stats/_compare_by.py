"""compare(..., by=): the paired tests of :mod:`._paired` within each segment.

The p-values are corrected over every segment and pair of a metric.
"""

from .._core._aggregate import QueryValues
from ._corrections import correct_p_values
from ._paired import compare_per_query, per_query_values, plot_differences
from ._segments import by_columns, query_index, segments_of_queries
from ._tables import (
    ComparisonTable,
    format_table,
    interval_text,
    level_text,
    segment_label,
    table_frame,
)


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
        return table_frame(getattr(self, table), library)

    def plot(self, ax=None, **kwargs):
        """A forest plot of the differences in each segment, with zero marked.

        One panel per metric, one row per (segment, pair), the bootstrap
        interval as a bar. Needs matplotlib. Returns a
        :class:`skrank.SegmentForestDisplay` (``ax`` and ``kwargs`` go to its
        ``plot``).
        """
        return plot_differences(self.tests, self.by, ax=ax, **kwargs)

    def __repr__(self):
        ci = f"{level_text(self._level)} CI"
        n_by = len(self.by)
        summary = format_table(
            (" & ".join(self.by), "metric", "system", "mean", ci, "queries"),
            [(segment_label(row[:n_by]), m, name, mean, interval_text(low, high), n)
             for row in self.summary for m, name, mean, low, high, n in [row[n_by:]]],
        )
        corrected = self._correction is not None
        suffix = f" ({self._correction})" if corrected else ""
        rows = []
        for row in self.tests.rows:
            values = dict(zip(self.tests.columns, row))
            rows.append((
                segment_label(row[:n_by]), values["metric"],
                f"{values['system_a']} - {values['system_b']}", values["difference"],
                interval_text(values["ci_low"], values["ci_high"]),
                values["p_randomization_corrected" if corrected else "p_randomization"],
                values["p_t_test_corrected" if corrected else "p_t_test"],
            ))
        tests = format_table(
            (" & ".join(self.by), "metric", "pair", "difference", ci,
             "p randomization" + suffix, "p t-test" + suffix),
            rows,
        )
        return f"{self._description}\n\n{summary}\n\n{tests}"


def compare_by(y_true, systems, *, by, query_id, metrics, baseline, n_resamples,
               level, correction, ties, no_relevant, rng, tests=()):
    """:func:`compare`'s tests within each segment, corrected across segments."""
    names = list(systems)
    per_query = per_query_values(y_true, systems, metrics, query_id, ties, no_relevant)
    query_ids = per_query[metrics[0]][names[0]].query_id
    n_queries = query_ids.shape[0]
    row_query = query_index(y_true, query_id, query_ids)
    columns = by_columns(by, row_query.shape[0])
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
            level=level, correction=None, rng=rng, tests=tests,
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
            corrected = correct_p_values([test_rows[i][raw] for i in rows], correction)
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
