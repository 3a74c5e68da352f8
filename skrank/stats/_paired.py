"""Paired tests of ranking systems on the same queries.

The per-query values of every system come from :func:`skrank.evaluate` (one
sort per system), or from per-query Dask frames; the tests work on the
per-query differences: a sign-flip randomisation test, a paired t-test
(scipy), bootstrap intervals over queries, and Holm's or Bonferroni's
correction when several pairs are compared. :func:`compare_per_query` is
what :func:`skrank.compare`, its ``by=`` form and the ``skrank`` command
share.
"""

import sys
import warnings
from collections.abc import Mapping
from itertools import combinations

import numpy as np
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning

from .._core._aggregate import QueryValues
from .._core._validation import check_option, describe
from .._core._warnings import warn
from ..metrics._evaluate import evaluate
from .._core._resample import stratified_resample_sums
from ._corrections import correct_p_values
from ._tables import ComparisonTable, format_table, interval_text
from ._tukey import TEST_NAMES, TUKEY_TESTS, tukey_p_values

# largest number of resamples held in memory at once (times n_queries)
_CHUNK_CELLS = 2_000_000


class ComparisonResult:
    """What :func:`compare` returns: a summary per system and a test per pair.

    Attributes
    ----------
    summary : ComparisonTable
        One row per (metric, system): ``mean``, the bootstrap confidence
        interval ``ci_low``, ``ci_high`` and ``n_queries``.
    tests : ComparisonTable
        One row per (metric, pair of systems): ``difference`` (mean of
        ``system_a - system_b`` over queries), its bootstrap interval,
        the randomisation test's ``p_randomization``, the paired t-test's
        ``t_statistic`` and ``p_t_test``, and both p-values corrected for
        the number of pairs (``p_randomization_corrected``,
        ``p_t_test_corrected``); with ``test=`` the p-values of the tests
        of all systems at once, ``p_tukey_hsd`` and
        ``p_tukey_hsd_parametric`` (not corrected further: each controls
        the family-wise error rate over all pairs by itself).
    per_query : dict
        ``{metric: {system: QueryValues}}``, as :func:`evaluate` gives them.

    Examples
    --------
    >>> from skrank import compare
    >>> result = compare([1, 0, 1, 0], {"a": [2, 1, 2, 1], "b": [1, 2, 1, 2]},
    ...                  query_id=[1, 1, 2, 2], metrics=["mrr"], random_state=0)
    >>> result.summary.column("mean")       # a: relevant row first; b: second
    [1.0, 0.5]
    >>> result.tests.column("difference")
    [0.5]
    """

    def __init__(self, summary, tests, per_query, *, description, level, correction):
        self.summary = summary
        self.tests = tests
        self.per_query = per_query
        self._description = description
        self._level = level
        self._correction = correction

    def to_frame(self, table="tests"):
        """``"tests"`` or ``"summary"`` as a pandas DataFrame."""
        check_option("table", table, ("tests", "summary"))
        return getattr(self, table).to_frame()

    def plot(self, ax=None, **kwargs):
        """A forest plot of the differences of each pair, with zero marked.

        One panel per metric, one row per pair, the bootstrap interval as a
        bar. Needs matplotlib. Returns a :class:`skrank.SegmentForestDisplay`
        (``ax`` and ``kwargs`` go to its ``plot``).
        """
        return plot_differences(self.tests, (), ax=ax, **kwargs)

    def __repr__(self):
        ci = f"{round(self._level * 100, 2):g}% CI"
        summary = format_table(
            ("metric", "system", "mean", ci, "queries"),
            [(m, name, mean, interval_text(low, high), n)
             for m, name, mean, low, high, n in self.summary],
        )
        suffix = "" if self._correction is None else f" ({self._correction})"
        corrected = self._correction is not None
        all_pairs = [test for test in TUKEY_TESTS if f"p_{test}" in self.tests.columns]
        rows = []
        for row in self.tests.rows:
            values = dict(zip(self.tests.columns, row))
            rows.append((
                values["metric"], f"{values['system_a']} - {values['system_b']}",
                values["difference"], interval_text(values["ci_low"], values["ci_high"]),
                values["p_randomization_corrected" if corrected else "p_randomization"],
                values["p_t_test_corrected" if corrected else "p_t_test"],
                *(values[f"p_{test}"] for test in all_pairs),
            ))
        tests = format_table(
            ("metric", "pair", "difference", ci, "p randomization" + suffix,
             "p t-test" + suffix, *(f"p {TEST_NAMES[test]}" for test in all_pairs)),
            rows,
        )
        return f"{self._description}\n\n{summary}\n\n{tests}"


def check_systems(systems):
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError(
            "`systems` must be a dict {name: y_score} of at least two systems, "
            f"got {describe(systems)}."
        )
    for name in systems:
        if not isinstance(name, str):
            raise ValueError(f"`systems` names must be strings, got {name!r}.")
    return dict(systems)


def per_query_values(y_true, systems, metrics, query_id, ties, no_relevant):
    """{metric: {system: QueryValues}} from one evaluate() call per system."""
    results = {}
    for name, scores in systems.items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                results[name] = evaluate(
                    y_true, scores, query_id=query_id, metrics=metrics, ties=ties,
                    no_relevant=no_relevant, aggregate=None,
                )
        except ValueError as exc:
            raise ValueError(f"`systems`[{name!r}]: {exc}") from None
    return {m: {name: results[name][m] for name in systems} for m in metrics}


def is_dask_frame(value):
    """Whether ``value`` is a Dask DataFrame (without importing Dask)."""
    dd = sys.modules.get("dask.dataframe")
    return dd is not None and isinstance(value, dd.DataFrame)


def frames_per_query_values(systems, metrics):
    """{metric: {system: QueryValues}} from per-query Dask DataFrames, paired on query.

    The frames are those of ``skrank.dask.evaluate(..., aggregate=None)``:
    indexed by query id, one column per metric and the query weights. Only
    their per-query values are computed to the client, in one pass.
    """
    import dask

    for name, frame in systems.items():
        missing = [m for m in metrics if m not in frame.columns]
        if missing:
            raise ValueError(
                f"`systems`[{name!r}] has no column {', '.join(map(repr, missing))}; "
                f"its columns are {list(frame.columns)}. Pass `metrics` naming "
                "metrics computed by skrank.dask.evaluate(..., aggregate=None)."
            )
    weights = {
        name: [f"{m}_weight" if f"{m}_weight" in frame.columns else "weight"
               for m in metrics]
        for name, frame in systems.items()
    }
    from .._core._quiet import quiet_dask

    with quiet_dask():  # the frames' shuffles run now
        computed = dask.compute(*[
            frame[list(dict.fromkeys(metrics + weights[name]))]
            for name, frame in systems.items()
        ])
    names = list(systems)
    first = computed[0].index
    for name, table in zip(names, computed):
        if not table.index.is_unique:
            raise ValueError(
                f"`systems`[{name!r}] has repeated query ids: pass the frames "
                "of skrank.dask.evaluate(..., aggregate=None), one row per query."
            )
        if len(table.index) != len(first) or not table.index.isin(first).all():
            raise ValueError(
                f"`systems`[{name!r}] and `systems`[{names[0]!r}] hold different "
                f"queries ({len(table.index)} and {len(first)} rows): the frames "
                "must come from the same queries to be paired."
            )
    try:
        order = first.sort_values()
    except TypeError:  # ids of unorderable types: the first frame's order
        order = first
    ids = order.to_numpy()
    per_query = {m: {} for m in metrics}
    for name, table in zip(names, computed):
        table = table.reindex(order)
        for m, w in zip(metrics, weights[name]):
            per_query[m][name] = QueryValues(
                ids, table[m].to_numpy(dtype=float), table[w].to_numpy(dtype=float)
            )
    return per_query


def _chunks(total, n_columns):
    size = max(1, _CHUNK_CELLS // max(n_columns, 1))
    for start in range(0, total, size):
        yield min(size, total - start)


def _bootstrap_means(values, n_resamples, rng):
    """(n_resamples, n_systems) means over queries resampled with replacement."""
    n = values.shape[1]
    sums = stratified_resample_sums(values.T, [n], n_resamples, rng)
    return sums[:, 0, :] / n


def _randomization_p_values(differences, n_resamples, rng):
    """Two-sided sign-flip p-value of the mean of each column of ``differences``.

    Exact (every one of the 2**n sign vectors) when 2**n <= n_resamples;
    otherwise ``(1 + hits) / (1 + n_resamples)`` over random sign vectors.
    A resample counts when ``|sum(s * d)| >= |sum(d)|`` up to rounding.
    """
    n, n_pairs = differences.shape
    observed = np.abs(differences.sum(axis=0))
    tolerance = 1e-9 * np.abs(differences).sum(axis=0)
    hits = np.zeros(n_pairs)
    exact = n < 63 and 2**n <= n_resamples
    if exact:
        total = 2**n
        done = 0
        for size in _chunks(total, n):
            codes = np.arange(done, done + size, dtype=np.int64)
            bits = (codes[:, None] >> np.arange(n)) & 1
            sums = np.abs((1 - 2 * bits) @ differences)
            hits += (sums >= observed - tolerance).sum(axis=0)
            done += size
        return hits / total
    for size in _chunks(n_resamples, n):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n), dtype=np.int8)
        sums = np.abs(signs @ differences)
        hits += (sums >= observed - tolerance).sum(axis=0)
    return (1.0 + hits) / (1.0 + n_resamples)


def _t_test(differences):
    """Paired t-test of each column: (statistic, p-value); p = 1 when all d = 0."""
    n = differences.shape[0]
    if n < 2:
        nan = np.full(differences.shape[1], np.nan)
        return nan, nan.copy()
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.ttest_1samp(differences, 0.0, axis=0)
    statistic = np.asarray(result.statistic, dtype=float)
    p = np.asarray(result.pvalue, dtype=float)
    same = np.all(differences == 0, axis=0)
    return np.where(same, 0.0, statistic), np.where(same, 1.0, p)


def compare_per_query(per_query, names, metrics, *, baseline, n_resamples, level,
                      correction, rng, bootstrap=None, tests=()):
    """The tests of :func:`compare` on per-query values already computed.

    ``per_query`` is ``{metric: {system: QueryValues}}`` with the queries in
    the same order for every system (:func:`skrank.evaluate_run`'s values
    of several runs come this way to the ``skrank`` command).
    ``bootstrap(metric, values, n_resamples, rng)``, if given, returns the
    ``(n_resamples, n_systems)`` resampled estimates in place of the means
    of resampled queries (:func:`skrank.clicks.compare`'s ratios of sums).
    ``tests`` names the tests of all systems at once (:data:`TUKEY_TESTS`),
    each adding a ``p_<test>`` column; they draw from ``rng`` after every
    other test, so the other columns do not depend on them.
    """
    if baseline is None:
        pairs = list(combinations(range(len(names)), 2))
    else:
        b = names.index(baseline)
        pairs = [(a, b) for a in range(len(names)) if a != b]
    alpha = 1.0 - level
    quantiles = [alpha / 2, 1 - alpha / 2]

    summary_rows, test_rows, kept = [], [], []
    for metric in metrics:
        values = np.vstack([per_query[metric][name].value for name in names])
        keep = ~np.isnan(values).any(axis=0)
        values = values[:, keep]
        kept.append(values)
        n = values.shape[1]
        if n == 0:
            warn(
                f"No query has a value of {metric!r} for every system; its "
                "results are nan.",
                UndefinedMetricWarning,
            )
            boot = np.full((1, len(names)), np.nan)
        else:
            boot = (_bootstrap_means(values, n_resamples, rng) if bootstrap is None
                    else bootstrap(metric, values, n_resamples, rng))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            means = values.mean(axis=1) if n else np.full(len(names), np.nan)
            low, high = np.quantile(boot, quantiles, axis=0)
        for i, name in enumerate(names):
            summary_rows.append(
                (metric, name, float(means[i]), float(low[i]), float(high[i]), n)
            )

        a_index = np.array([a for a, _ in pairs])
        b_index = np.array([b for _, b in pairs])
        differences = (values[a_index] - values[b_index]).T  # (n, n_pairs)
        boot_diff = boot[:, a_index] - boot[:, b_index]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            diff_low, diff_high = np.quantile(boot_diff, quantiles, axis=0)
        if n:
            p_random = _randomization_p_values(differences, n_resamples, rng)
        else:
            p_random = np.full(len(pairs), np.nan)
        t_statistic, p_t = _t_test(differences)
        p_random_corrected = correct_p_values(p_random, correction)
        p_t_corrected = correct_p_values(p_t, correction)
        for j, (a, b) in enumerate(pairs):
            test_rows.append((
                metric, names[a], names[b],
                float(means[a] - means[b]), float(diff_low[j]), float(diff_high[j]),
                float(p_random[j]), float(t_statistic[j]), float(p_t[j]),
                float(p_random_corrected[j]), float(p_t_corrected[j]), n,
            ))

    extra = {}
    if tests:
        a_index = np.array([a for a, _ in pairs])
        b_index = np.array([b for _, b in pairs])
        for values in kept:
            for column, p in tukey_p_values(
                values, a_index, b_index, tests, n_resamples, rng
            ).items():
                extra.setdefault(column, []).extend(float(value) for value in p)
    summary = ComparisonTable(
        ("metric", "system", "mean", "ci_low", "ci_high", "n_queries"), summary_rows
    )
    test_table = ComparisonTable(
        ("metric", "system_a", "system_b", "difference", "ci_low", "ci_high",
         "p_randomization", "t_statistic", "p_t_test", "p_randomization_corrected",
         "p_t_test_corrected", "n_queries", *extra),
        [(*row, *(column[i] for column in extra.values()))
         for i, row in enumerate(test_rows)],
    )
    description = (
        f"ComparisonResult: {len(names)} systems, {len(metrics)} metric(s), "
        f"{n_resamples} resamples (bootstrap intervals, randomisation test"
        + ("".join(f", {TEST_NAMES[test]}" for test in tests)) + ")"
    )
    return ComparisonResult(summary, test_table, per_query, description=description,
                            level=level, correction=correction)


def plot_differences(tests, by, ax=None, **kwargs):
    """Forest plot of a tests table's differences: a row per (segment, pair)."""
    from ..plot._segments import SegmentForestDisplay

    at = {name: tests.columns.index(name) for name in tests.columns}
    rows = [
        (*row[:len(by)], f"{row[at['system_a']]} - {row[at['system_b']]}",
         row[at["metric"]], row[at["difference"]], row[at["ci_low"]], row[at["ci_high"]])
        for row in tests.rows
    ]
    table = ComparisonTable(
        (*by, "pair", "metric", "value", "ci_low", "ci_high"), rows
    )
    display = SegmentForestDisplay.from_table(
        table, (*by, "pair"), reference=0.0, reference_label="no difference"
    )
    return display.plot(ax=ax, **kwargs)
