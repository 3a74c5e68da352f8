"""compare(): paired statistical comparison of ranking systems on the same queries.

Per-query values come from :func:`evaluate` (one sort per system); the tests
work on the per-query differences: a sign-flip randomisation test, a paired
t-test (scipy), bootstrap confidence intervals, and Holm's correction when
several systems are compared.
"""

import math
import sys
import warnings
from collections.abc import Mapping
from itertools import combinations

import numpy as np
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_random_state

from .._core._optional import import_optional
from .._core._params import check_params
from .._core._validation import (
    check_option,
    _describe,
)
from .._core._aggregate import QueryValues
from ..metrics._evaluate import evaluate
from .._core._warnings import warn
from ._resample import stratified_resample_sums

# largest number of resamples held in memory at once (times n_queries)
_CHUNK_CELLS = 2_000_000


class ComparisonTable:
    """A small table: named columns, one tuple per row.

    Attributes
    ----------
    columns : tuple of str
        Column names.
    rows : list of tuple
        The rows, one value per column.
    """

    def __init__(self, columns, rows):
        self.columns = tuple(columns)
        self.rows = [tuple(row) for row in rows]

    def __len__(self):
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def column(self, name):
        """The values of one column, as a list."""
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def to_dict(self):
        """``{column: list of values}``."""
        return {name: self.column(name) for name in self.columns}

    def to_frame(self):
        """The table as a pandas DataFrame (pandas is an optional dependency)."""
        pd = import_optional("pandas", "to_frame()")
        return pd.DataFrame(self.rows, columns=list(self.columns))

    def __repr__(self):
        return _format_table(self.columns, self.rows)


def _format_cell(value):
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "nan"
        return f"{value:.4f}" if abs(value) >= 1e-4 or value == 0 else f"{value:.1e}"
    return str(value)


def format_p_value(p):
    """A p-value as every table of skrank prints it: 4 decimals, small ones as 1.2e-07.

    One format for every column, so that ``1.0000`` stands beside ``0.4226``
    (not ``1``), and a tiny p-value keeps its digits.

    Examples
    --------
    >>> from skrank.stats._compare import format_p_value
    >>> [format_p_value(p) for p in (1.0, 0.42257, 0.0005, 1.234e-7, float("nan"))]
    ['1.0000', '0.4226', '0.0005', '1.2e-07', 'nan']
    """
    return _format_cell(float(p))


def _format_table(columns, rows):
    """Aligned text: text columns to the left, numbers to the right."""
    text = [isinstance(rows[0][i], str) if rows else True for i in range(len(columns))]
    cells = [list(columns)] + [[_format_cell(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if left else cell.rjust(width)
            for cell, width, left in zip(row, widths, text)
        ).rstrip()
        for row in cells
    )


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
        ``p_t_test_corrected``).
    per_query : dict
        ``{metric: {system: QueryValues}}``, as :func:`evaluate` gives them.
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

    def __repr__(self):
        ci = f"{round(self._level * 100, 2):g}% CI"
        summary = _format_table(
            ("metric", "system", "mean", ci, "queries"),
            [(m, name, mean, _interval(low, high), n)
             for m, name, mean, low, high, n in self.summary],
        )
        suffix = "" if self._correction is None else f" ({self._correction})"
        corrected = self._correction is not None
        rows = []
        for row in self.tests.rows:
            values = dict(zip(self.tests.columns, row))
            rows.append((
                values["metric"], f"{values['system_a']} - {values['system_b']}",
                values["difference"], _interval(values["ci_low"], values["ci_high"]),
                values["p_randomization_corrected" if corrected else "p_randomization"],
                values["p_t_test_corrected" if corrected else "p_t_test"],
            ))
        tests = _format_table(
            ("metric", "pair", "difference", ci, "p randomization" + suffix,
             "p t-test" + suffix),
            rows,
        )
        return f"{self._description}\n\n{summary}\n\n{tests}"


def _interval(low, high):
    return f"[{_format_cell(low)}, {_format_cell(high)}]"


def _check_systems(systems):
    if not isinstance(systems, Mapping) or len(systems) < 2:
        raise ValueError(
            "`systems` must be a dict {name: y_score} of at least two systems, "
            f"got {_describe(systems)}."
        )
    for name in systems:
        if not isinstance(name, str):
            raise ValueError(f"`systems` names must be strings, got {name!r}.")
    return dict(systems)


def _per_query_values(y_true, systems, metrics, query_id, ties, no_relevant):
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


def _is_dask_frame(value):
    """Whether ``value`` is a Dask DataFrame (without importing Dask)."""
    dd = sys.modules.get("dask.dataframe")
    return dd is not None and isinstance(value, dd.DataFrame)


def _frames_per_query_values(systems, metrics):
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


def _holm(p):
    """Holm's step-down adjusted p-values (nan stays nan, not counted)."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    m = finite.shape[0]
    if m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out[order] = adjusted
    return out


def _correct(p, correction):
    p = np.asarray(p, dtype=float)
    if correction is None:
        return p.copy()
    if correction == "bonferroni":
        m = np.count_nonzero(~np.isnan(p))
        return np.minimum(1.0, p * m)
    return _holm(p)


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


@check_params
def compare(
    y_true,
    systems,
    *,
    query_id=None,
    metrics=("ndcg@10", "map"),
    baseline=None,
    n_resamples=10_000,
    confidence_level=0.95,
    correction="holm",
    ties="average",
    no_relevant="skip",
    random_state=None,
    by=None,
):
    """Compare ranking systems on the same queries with paired tests.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items), or None
        Relevance of each row: binary (0/1) or graded (non-negative). A row
        is relevant when ``y_true > 0``. None when ``systems`` holds
        per-query Dask DataFrames.
    systems : dict of str to array-like or to Dask DataFrame
        ``{name: y_score}``: each system's scores for the same rows, at
        least two systems. Or ``{name: per_query}``: the per-query frames
        of :func:`skrank.dask.evaluate` with ``aggregate=None``, paired on
        their query-id index (every frame must hold the same queries; the
        metrics, ``ties`` and ``no_relevant`` are those the frames were
        computed with, and only their per-query values reach the client).
    {query_id}
    metrics : str or list of str, default=("ndcg@10", "map")
        Metric names, as for :func:`evaluate`.
    baseline : str, default=None
        Compare every other system with this one; None compares every pair.
    n_resamples : int, default=10000
        Resamples of the bootstrap and of the randomisation test.
    confidence_level : float, default=0.95
        Of the bootstrap intervals, in (0, 1).
    correction : {"holm", "bonferroni", None}, default="holm"
        Multiple-comparison correction of the p-values, over the pairs
        compared on each metric.
    ties : {"average", "input"}, default="average"
        ``"average"``: the exact expected value over all orders of rows with
        equal scores. ``"input"``: rows with equal scores keep their input
        order.
    {no_relevant}
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap and the randomisation test; an int makes the
        result reproducible.
    by : array-like, list of array-likes or DataFrame, default=None
        The segment of each row, as for :func:`evaluate_by`: the systems are
        compared within each segment, and the corrected p-values are
        corrected over every segment and pair of a metric. Returns a
        :class:`SegmentComparisonResult` (tables with the segment columns
        first).

    Returns
    -------
    result : ComparisonResult
        ``result.summary`` (mean and interval per metric and system),
        ``result.tests`` (one row per metric and pair), both tables with a
        readable repr and ``to_frame()``; ``result.per_query`` holds the
        per-query values.

    See Also
    --------
    evaluate : the per-query values the tests use.

    Notes
    -----
    Every query weighs the same. A query enters a metric's tests when every
    system has a value for it (queries left out by ``no_relevant="skip"``
    are left out for all systems alike). For a pair (a, b) the per-query
    differences d_q = a_q - b_q are tested:

    * **randomisation test** (Fisher's paired permutation test, as Smucker,
      Allan & Carterette 2007 recommend for IR): under the null hypothesis
      each d_q is as likely to have the other sign, so the p-value is the
      share of sign vectors s with ``|sum(s * d)| >= |sum(d)|``. With 2**n
      <= ``n_resamples`` all 2**n sign vectors are used (exact); otherwise
      ``n_resamples`` random ones, with p = (1 + hits) / (1 + n_resamples).
    * **paired t-test**: ``scipy.stats.ttest_rel`` on the same values
      (p = 1 when every difference is 0).
    * **bootstrap**: queries resampled with replacement, the same resample
      for every system (so differences get intervals too); percentile
      intervals.

    With more than two systems, the p-values of each metric are corrected
    over its pairs (Holm's step-down method by default, which controls the
    family-wise error rate and is never less powerful than Bonferroni).

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette. A comparison of
       statistical significance tests for information retrieval evaluation.
       CIKM 2007.
    .. [2] S. Holm. A simple sequentially rejective multiple test procedure.
       Scandinavian Journal of Statistics 6(2), 1979.

    Examples
    --------
    >>> from skrank import compare
    >>> y_true = [1, 0, 0, 1, 0, 0, 0, 1, 0]
    >>> query_id = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> good = [3, 2, 1, 3, 2, 1, 1, 3, 2]          # relevant row first everywhere
    >>> bad = [1, 2, 3, 1, 2, 3, 3, 1, 2]           # relevant row last everywhere
    >>> result = compare(y_true, {"good": good, "bad": bad}, query_id=query_id,
    ...                  metrics=["mrr"], random_state=0)
    >>> result.tests.column("difference")            # 1 - 1/3 on every query
    [0.6666...]
    >>> result.tests.column("p_randomization")       # exact: 2 of the 2**3 sign vectors
    [0.25]
    """
    level = confidence_level  # checked by @check_params
    systems = _check_systems(systems)
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    names = list(systems)
    if baseline is not None and baseline not in systems:
        raise ValueError(
            f"`baseline` must be one of the systems {names}, got {_describe(baseline)}."
        )
    # sklearn's seeding conventions, numpy's faster Generator for the resamples
    seed = check_random_state(random_state).randint(0, 2**31 - 1, size=4)
    rng = np.random.default_rng(seed)
    frames = [_is_dask_frame(scores) for scores in systems.values()]
    if by is not None:
        if any(frames):
            raise ValueError("`by` needs in-memory scores, not per-query Dask frames.")
        from ._segments import compare_by

        return compare_by(
            y_true, systems, by=by, query_id=query_id, metrics=metrics,
            baseline=baseline, n_resamples=n_resamples, level=level,
            correction=correction, ties=ties, no_relevant=no_relevant, rng=rng,
        )
    if any(frames):
        if not all(frames) or y_true is not None or query_id is not None:
            raise ValueError(
                "To compare per-query Dask DataFrames (skrank.dask.evaluate(..., "
                "aggregate=None)), pass y_true=None, no query_id, and a frame for "
                "every system."
            )
        per_query = _frames_per_query_values(systems, metrics)
    else:
        per_query = _per_query_values(
            y_true, systems, metrics, query_id, ties, no_relevant
        )
    return compare_per_query(
        per_query, names, metrics, baseline=baseline, n_resamples=n_resamples,
        level=level, correction=correction, rng=rng,
    )


def compare_per_query(per_query, names, metrics, *, baseline, n_resamples, level,
                      correction, rng):
    """The tests of :func:`compare` on per-query values already computed.

    ``per_query`` is ``{metric: {system: QueryValues}}`` with the queries in
    the same order for every system (:func:`skrank.evaluate_run`'s values
    of several runs come this way to the ``skrank`` command).
    """
    if baseline is None:
        pairs = list(combinations(range(len(names)), 2))
    else:
        b = names.index(baseline)
        pairs = [(a, b) for a in range(len(names)) if a != b]
    alpha = 1.0 - level
    quantiles = [alpha / 2, 1 - alpha / 2]

    summary_rows, test_rows = [], []
    for metric in metrics:
        values = np.vstack([per_query[metric][name].value for name in names])
        keep = ~np.isnan(values).any(axis=0)
        values = values[:, keep]
        n = values.shape[1]
        if n == 0:
            warn(
                f"No query has a value of {metric!r} for every system; its "
                "results are nan.",
                UndefinedMetricWarning,
            )
            boot = np.full((1, len(names)), np.nan)
        else:
            boot = _bootstrap_means(values, n_resamples, rng)
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
        p_random_corrected = _correct(p_random, correction)
        p_t_corrected = _correct(p_t, correction)
        for j, (a, b) in enumerate(pairs):
            test_rows.append((
                metric, names[a], names[b],
                float(means[a] - means[b]), float(diff_low[j]), float(diff_high[j]),
                float(p_random[j]), float(t_statistic[j]), float(p_t[j]),
                float(p_random_corrected[j]), float(p_t_corrected[j]), n,
            ))

    summary = ComparisonTable(
        ("metric", "system", "mean", "ci_low", "ci_high", "n_queries"), summary_rows
    )
    tests = ComparisonTable(
        ("metric", "system_a", "system_b", "difference", "ci_low", "ci_high",
         "p_randomization", "t_statistic", "p_t_test", "p_randomization_corrected",
         "p_t_test_corrected", "n_queries"),
        test_rows,
    )
    description = (
        f"ComparisonResult: {len(names)} systems, {len(metrics)} metric(s), "
        f"{n_resamples} resamples (bootstrap intervals, randomisation test)"
    )
    return ComparisonResult(summary, tests, per_query, description=description,
                            level=level, correction=correction)
