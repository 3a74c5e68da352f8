"""evaluate_by: values equal evaluate() on each segment's rows; intervals resample queries.

Expected values come from skrank.evaluate on the segment's own rows (the
in-memory metrics have their own brute-force tests), from an independent
brute-force percentile bootstrap written here, from scipy.stats.bootstrap,
and from a simulation whose true mean is known.
"""

import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.exceptions import UndefinedMetricWarning

import skrank
from skrank import evaluate, evaluate_by
from skrank._core import _resample
from skrank._core._resample import (
    _WORDS,
    _uniform_draws,
    _Workspace,
    draw_thresholds,
    stratified_resample_sums,
)
from skrank.stats._intervals import confidence_intervals

from .._needs import needs


def click_log(seed, n_queries=120, rows_per_query=8, n_segments=3):
    """Rows in random order, queries of a few rows, a segment per query."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), rows_per_query)
    rng.shuffle(query)
    n = query.shape[0]
    label = rng.integers(0, 3, n) * (rng.random(n) < 0.4)
    score = rng.integers(0, 6, n) / 5.0 + 0.3 * label
    device = np.array(["mobile", "desktop", "tablet"][:n_segments])[query % n_segments]
    head = np.where(query % 2 == 0, "head", "tail")
    qid = np.array([f"q{q:04d}" for q in query], dtype=object)
    return pd.DataFrame({"qid": qid, "label": label, "click": (label > 0).astype(int),
                         "score": score, "device": device, "freq": head,
                         "w": rng.uniform(0.2, 3.0, n)})


METRICS = ["ndcg@5", "map", "mrr", "precision@3", "gauc"]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("no_relevant", ["skip", "zero"])
def test_each_segment_equals_evaluate_on_its_rows(weighted, no_relevant):
    rows = click_log(0)
    weight = rows["w"] if weighted else None
    result = evaluate_by(
        rows["click"], rows["score"], by=rows["device"], query_id=rows["qid"],
        metrics=METRICS, sample_weight=weight, no_relevant=no_relevant,
        random_state=0,
    )
    overall = evaluate(rows["click"], rows["score"], query_id=rows["qid"],
                       metrics=METRICS, sample_weight=weight, no_relevant=no_relevant)
    assert result.overall.keys() == overall.keys()
    for m in METRICS:
        assert result.overall[m] == pytest.approx(overall[m], abs=1e-12)
    assert [key for key in result.segments] == [("desktop",), ("mobile",), ("tablet",)]
    for s, (device,) in enumerate(result.segments):
        part = rows[rows["device"] == device]
        expected = evaluate(
            part["click"], part["score"], query_id=part["qid"], metrics=METRICS,
            sample_weight=None if weight is None else part["w"],
            no_relevant=no_relevant,
        )
        for j, m in enumerate(METRICS):
            assert result.value[s, j] == pytest.approx(expected[m], abs=1e-12)
        assert result.n_rows[s] == part.shape[0]
        assert result.n_queries[s] == part["qid"].nunique()


def test_intersections_from_a_list_or_a_frame_and_options_as_in_evaluate():
    rows = click_log(1)
    by_list = evaluate_by(rows["label"], rows["score"], by=[rows["device"], rows["freq"]],
                          query_id=rows["qid"], metrics=["ndcg@3"], gain="linear",
                          ties="input", confidence_level=None)
    by_frame = evaluate_by(rows["label"], rows["score"], by=rows[["device", "freq"]],
                           query_id=rows["qid"], metrics=["ndcg@3"], gain="linear",
                           ties="input", confidence_level=None)
    assert by_list.by == by_frame.by == ("device", "freq")
    assert by_list.segments == by_frame.segments
    assert len(by_list.segments) == 6  # 3 devices x {head, tail}
    np.testing.assert_array_equal(by_list.value, by_frame.value)
    for s, (device, freq) in enumerate(by_list.segments):
        part = rows[(rows["device"] == device) & (rows["freq"] == freq)]
        expected = evaluate(part["label"], part["score"], query_id=part["qid"],
                            metrics=["ndcg@3"], gain="linear", ties="input")
        assert by_list.value[s, 0] == pytest.approx(expected["ndcg@3"], abs=1e-12)
    assert np.isnan(by_list.ci_low).all()  # confidence_level=None: no interval
    with pytest.raises(ValueError, match="option"):
        evaluate_by(rows["label"], rows["score"], by=rows["device"],
                    query_id=rows["qid"], metrics=["mrr"], gain="linear")


def test_by_that_varies_within_a_query_names_the_first_such_query():
    y_true = [1, 0, 1, 0, 1, 0]
    y_score = [3, 2, 1, 3, 2, 1]
    query_id = ["b", "b", "a", "a", "c", "c"]
    by = ["x", "x", "x", "y", "z", "w"]  # queries a and c vary; a sorts first
    with pytest.raises(ValueError, match=r"query_id 'a' \(and 1 more queries\).*'x', 'y'"):
        evaluate_by(y_true, y_score, by=by, query_id=query_id)


@pytest.mark.parametrize("by, match", [
    (["x", "y"], "has 2 values but there are 4 rows"),
    ([1.0, np.nan, 1.0, 1.0], "missing values"),
    ([None, None, "a", "a"], "missing values"),
])
def test_bad_by(by, match):
    with pytest.raises(ValueError, match=match):
        evaluate_by([1, 0, 1, 0], [1, 2, 3, 4], by=by, query_id=[1, 1, 2, 2])


@pytest.mark.parametrize("option, value, match", [
    ("method", "bca-ish", "`method` must be one of"),
    ("n_resamples", 0, "`n_resamples`"),
    ("confidence_level", 1.5, "`confidence_level`"),
    ("min_queries", 0, "`min_queries`"),
])
def test_bad_options(option, value, match):
    with pytest.raises(ValueError, match=match):
        evaluate_by([1, 0, 1, 0], [1, 2, 3, 4], by=[1, 1, 2, 2],
                    query_id=[1, 1, 2, 2], **{option: value})


def _brute_force_percentile(values, n_resamples, level, rng):
    """Percentile bootstrap of a mean, one resample at a time (obviously right)."""
    means = []
    for _ in range(n_resamples):
        means.append(np.mean(rng.choice(values, size=values.shape[0], replace=True)))
    alpha = (1 - level) / 2
    return np.quantile(means, [alpha, 1 - alpha])


def test_intervals_agree_with_a_brute_force_percentile_bootstrap_over_queries():
    rows = click_log(2, n_queries=240)
    result = evaluate_by(rows["label"], rows["score"], by=rows["device"],
                         query_id=rows["qid"], metrics=["ndcg@5", "precision@3"],
                         no_relevant="zero", n_resamples=4000, random_state=1)
    rng = np.random.default_rng(5)
    for s, (device,) in enumerate(result.segments):
        part = rows[rows["device"] == device]
        per_query = evaluate(part["label"], part["score"], query_id=part["qid"],
                             metrics=["ndcg@5", "precision@3"], no_relevant="zero",
                             aggregate=None)
        for j, m in enumerate(["ndcg@5", "precision@3"]):
            low, high = _brute_force_percentile(per_query[m].value, 4000, 0.95, rng)
            width = high - low
            assert result.ci_low[s, j] == pytest.approx(low, abs=0.08 * width)
            assert result.ci_high[s, j] == pytest.approx(high, abs=0.08 * width)


def _scipy_seed(func, seed):
    """``func``'s seed argument: ``rng`` from scipy 1.15, ``random_state`` before."""
    name = "rng" if "rng" in inspect.signature(func).parameters else "random_state"
    return {name: seed}


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_one_segment_agrees_with_scipy_bootstrap(method):
    rng = np.random.default_rng(3)
    n_queries = 80
    query = np.repeat(np.arange(n_queries), 6)
    y_true = (rng.random(query.shape[0]) < rng.beta(0.5, 2, n_queries)[query]).astype(int)
    y_score = rng.normal(size=query.shape[0]) + y_true
    result = evaluate_by(y_true, y_score, by=np.zeros_like(query), query_id=query,
                         metrics=["map"], method=method, n_resamples=20000,
                         random_state=0)
    per_query = evaluate(y_true, y_score, query_id=query, metrics=["map"],
                         aggregate=None)["map"].value
    per_query = per_query[~np.isnan(per_query)]
    expected = stats.bootstrap((per_query,), np.mean, method=method, n_resamples=20000,
                               **_scipy_seed(stats.bootstrap, 0)).confidence_interval
    width = expected.high - expected.low
    assert result.ci_low[0, 0] == pytest.approx(expected.low, abs=0.06 * width)
    assert result.ci_high[0, 0] == pytest.approx(expected.high, abs=0.06 * width)


def test_interval_formulas_equal_scipy_on_given_resamples():
    # numpy's "linear" quantile (what scipy.stats.bootstrap reads its
    # percentile interval with), column by column, nan resamples left out
    rng = np.random.default_rng(0)
    boot = rng.normal(size=(501, 3))
    boot[:7, 2] = np.nan
    low, high = confidence_intervals(boot, np.zeros(3), 0.9, "percentile")
    for j in range(3):
        column = boot[:, j][~np.isnan(boot[:, j])]
        np.testing.assert_allclose([low[j], high[j]], np.quantile(column, [0.05, 0.95]),
                                   rtol=0, atol=1e-14)
    low_b, high_b = confidence_intervals(boot, np.ones(3), 0.9, "basic")
    np.testing.assert_allclose(low_b, 2 - high, atol=1e-14)
    # BCa with a = 0 and z0 = 0 (estimate at the median) is the percentile interval
    median = np.array([np.nanmedian(boot[:, j]) for j in range(3)])
    boot_odd = boot[:, :2]
    low_c, high_c = confidence_intervals(boot_odd, median[:2], 0.9, "BCa",
                                         np.zeros(2))
    np.testing.assert_allclose(low_c, low[:2], atol=1e-12)
    np.testing.assert_allclose(high_c, high[:2], atol=1e-12)


def test_too_few_queries_get_no_interval_and_a_note():
    rows = click_log(4, n_queries=60)
    device = rows["device"].to_numpy().copy()
    device[rows["qid"] == "q0000"] = "watch"  # a segment of one query
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = evaluate_by(rows["label"], rows["score"], by=device,
                             query_id=rows["qid"], metrics=["precision@3"],
                             no_relevant="zero", random_state=0, min_queries=2)
    s = result.segments.index(("watch",))
    assert result.n_queries[s] == 1
    assert not np.isnan(result.value[s, 0])
    assert np.isnan(result.ci_low[s, 0]) and np.isnan(result.ci_high[s, 0])
    assert "too few queries" in result.notes[s, 0]
    assert "too few queries" in repr(result)
    others = [i for i in range(len(result.segments)) if i != s]
    assert not np.isnan(result.ci_low[others, 0]).any()


def test_segment_without_values_is_nan_with_a_warning():
    y_true = [0, 0, 1, 0, 0, 1]
    query_id = [1, 1, 2, 2, 3, 3]
    with pytest.warns(UndefinedMetricWarning, match="no query with a value"):
        result = evaluate_by(y_true, [1, 2, 1, 2, 2, 1], by=["a", "a", "b", "b", "b", "b"],
                             query_id=query_id, metrics=["mrr"], random_state=0)
    assert np.isnan(result.value[0, 0]) and result.notes[0, 0] == "no query with a value"
    assert result.value[1, 0] == pytest.approx((1 / 2 + 1 / 2) / 2)  # rank 2 twice


@pytest.mark.parametrize("bits", [16, 32])
def test_resampling_draws_each_stratum_uniformly_and_apart(bits):
    rng = np.random.default_rng(0)
    # 40000 with 16-bit words: 39% of first draws are rejected and redrawn
    n = np.array([3, 7, 1, 40000], dtype=_WORDS[bits][1])
    threshold = draw_thresholds(n, bits)
    np.testing.assert_array_equal(threshold, [(1 << bits) % int(v) for v in n])
    draws = _uniform_draws(rng, n, threshold, bits, 60000, _Workspace())
    for j, size in enumerate(n.tolist()):
        counts = np.bincount(draws[:, j].astype(np.int64), minlength=size)
        assert counts.shape[0] == size
        if 1 < size < 100:
            assert stats.chisquare(counts).pvalue > 1e-4
    # the large stratum: uniform over 100 bins of 400 values each
    coarse = np.bincount(draws[:, 3].astype(np.int64) // 400, minlength=100)
    assert stats.chisquare(coarse).pvalue > 1e-4
    # sums: a stratum's column of ones sums to its size; strata do not mix
    columns = np.zeros((6, 3))
    columns[:2, 0] = 1.0  # stratum 0: queries 0-1
    columns[2:, 1] = 1.0  # stratum 1: queries 2-5
    columns[:, 2] = np.arange(6)
    sums = stratified_resample_sums(columns, [2, 4], 3000, rng)
    np.testing.assert_array_equal(sums[:, 0, 0], 2.0)
    np.testing.assert_array_equal(sums[:, 1, 1], 4.0)
    np.testing.assert_array_equal(sums[:, 0, 1], 0.0)
    np.testing.assert_array_equal(sums[:, 1, 0], 0.0)
    # the mean of a stratum's resampled sums: n_s times its mean
    assert sums[:, 1, 2].mean() == pytest.approx(4 * 3.5, abs=0.1)
    # and its variance n_s * population variance (with replacement)
    assert sums[:, 1, 2].var() == pytest.approx(4 * np.var([2, 3, 4, 5]), rel=0.1)


def test_workspace_reuses_its_views_and_drops_them_when_a_buffer_grows():
    workspace = _Workspace()
    small = workspace.get("a", (2, 3), np.float64)
    assert small.shape == (2, 3) and small.dtype == np.float64
    assert workspace.get("a", (2, 3), np.float64) is small
    # another shape over the same buffer, and another buffer apart from it
    assert np.shares_memory(workspace.get("a", (6,), np.uint8), small)
    other = workspace.get("b", (2, 3), np.float64)
    assert not np.shares_memory(other, small)
    # a larger request replaces buffer "a": no view over the old one remains
    large = workspace.get("a", (10, 10), np.float64)
    again = workspace.get("a", (2, 3), np.float64)
    assert again is not small and np.shares_memory(again, large)
    assert not np.shares_memory(again, small)
    assert workspace.get("b", (2, 3), np.float64) is other


def test_resampling_does_not_depend_on_threads_and_large_strata_draw_32_bits(monkeypatch):
    # strata of 70000 (> 2**16: 32-bit draws) and of 5 and 3 queries
    rng = np.random.default_rng(3)
    sizes = [5, 70000, 3]
    columns = rng.random((sum(sizes), 2))
    threaded = stratified_resample_sums(columns, sizes, 40, np.random.default_rng(9))
    monkeypatch.setattr(_resample, "available_cores", lambda: 1)
    serial = stratified_resample_sums(columns, sizes, 40, np.random.default_rng(9))
    np.testing.assert_array_equal(threaded, serial)
    # each resample draws exactly as many queries as each stratum has
    ones = np.zeros((sum(sizes), 3))
    ones[:5, 0] = ones[5:70005, 1] = ones[70005:, 2] = 1.0
    sums = stratified_resample_sums(ones, sizes, 7, np.random.default_rng(9))
    np.testing.assert_array_equal(sums, np.broadcast_to(np.diag(sizes), (7, 3, 3)))
    # the big stratum's resampled mean: centred on its mean, with variance
    # var / n (drawn with replacement)
    means = threaded[:, 1, 0] / 70000
    values = columns[5:70005, 0]
    assert abs(means.mean() - values.mean()) < 6 * values.std() / np.sqrt(70000 * 40)


def test_same_random_state_same_intervals_and_compare_unchanged_by_it():
    rows = click_log(5)
    kwargs = dict(by=rows["device"], query_id=rows["qid"], metrics=["map"],
                  random_state=7)
    a = evaluate_by(rows["label"], rows["score"], **kwargs)
    b = evaluate_by(rows["label"], rows["score"], **kwargs)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)
    c = evaluate_by(rows["label"], rows["score"], **{**kwargs, "random_state": 8})
    assert not np.array_equal(a.ci_low, c.ci_low)


def test_difference_from_overall_is_paired_and_from_a_segment_is_not():
    rows = click_log(6, n_queries=300)
    one = evaluate_by(rows["label"], rows["score"], by=np.zeros(rows.shape[0]),
                      query_id=rows["qid"], metrics=["map"], random_state=0)
    diff = one.difference()
    frame = diff.to_frame()
    # one segment is the whole: paired resamples give exactly 0 everywhere
    assert frame["value"].tolist() == [pytest.approx(0.0, abs=1e-12)]
    assert frame["ci_low"].tolist() == [0.0] and frame["ci_high"].tolist() == [0.0]

    result = evaluate_by(rows["label"], rows["score"], by=rows["device"],
                         query_id=rows["qid"], metrics=["map"], n_resamples=4000,
                         random_state=0)
    versus = result.difference(baseline="desktop").to_frame()
    assert versus["device"].tolist() == ["mobile", "tablet"]
    widths = result.ci_high[:, 0] - result.ci_low[:, 0]
    for s, device in ((1, "mobile"), (2, "tablet")):
        row = versus[versus["device"] == device].iloc[0]
        assert row["value"] == pytest.approx(result.value[s, 0] - result.value[0, 0])
        # independent strata: the widths add in quadrature
        expected = np.hypot(widths[s], widths[0])
        assert row["ci_high"] - row["ci_low"] == pytest.approx(expected, rel=0.1)
    with pytest.raises(ValueError, match="`baseline` must be 'overall' or one of"):
        result.difference(baseline="phone")


def test_to_frame_repr_and_polars():
    rows = click_log(7)
    result = evaluate_by(rows["label"], rows["score"], by=rows[["device"]],
                         query_id=rows["qid"], metrics=["mrr", "map"], random_state=0)
    frame = result.to_frame()
    assert list(frame.columns) == ["device", "metric", "value", "ci_low", "ci_high",
                                   "n_queries", "n_rows", "note"]
    assert frame.shape[0] == 3 * 2
    assert (frame["ci_low"] <= frame["value"]).all()
    assert (frame["value"] <= frame["ci_high"]).all()
    text = repr(result)
    assert "SegmentEvaluationResult: 3 segments by device" in text
    assert "95% CI" in text and "mobile" in text
    pl = needs("polars")
    polars_frame = result.to_frame("polars")
    assert isinstance(polars_frame, pl.DataFrame)
    assert polars_frame["value"].to_list() == frame["value"].tolist()
    with pytest.raises(ValueError, match="`library`"):
        result.to_frame("arrow")


def test_two_dimensional_input_one_segment_per_ranking():
    y_true = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    y_score = np.array([[3, 2, 1], [3, 2, 1], [3, 2, 1], [3, 2, 1]])
    result = evaluate_by(y_true, y_score, by=["a", "a", "b", "b"], metrics=["mrr"],
                         confidence_level=None)
    assert result.value[:, 0].tolist() == [(1 + 1 / 2) / 2, (1 / 3 + 1) / 2]
    assert result.n_rows.tolist() == [6, 6]


# --- coverage: the reason to resample queries --------------------------------

def _simulate(seed, n_queries=50, rows_per_query=20):
    """Queries with their own relevance rate p_q ~ Beta(0.5, 1.5) (mean 0.25).

    P@k with k = rows per query is the query's share of relevant rows, so
    the true mean over queries is E[p_q] = 0.25; rows of a query are
    correlated through p_q.
    """
    rng = np.random.default_rng(seed)
    rate = rng.beta(0.5, 1.5, n_queries)
    query = np.repeat(np.arange(n_queries), rows_per_query)
    y_true = (rng.random(query.shape[0]) < rate[query]).astype(int)
    return y_true, rng.normal(size=query.shape[0]), query


def _coverage(n_simulations, n_resamples, seed=0):
    hits_query = hits_row = 0
    truth = 0.25
    for i in range(n_simulations):
        y_true, y_score, query = _simulate(seed + i)
        result = evaluate_by(y_true, y_score, by=np.zeros_like(query), query_id=query,
                             metrics=["precision@20"], no_relevant="zero",
                             n_resamples=n_resamples, random_state=i)
        hits_query += result.ci_low[0, 0] <= truth <= result.ci_high[0, 0]
        # a row bootstrap: rows resampled as if independent
        rng = np.random.default_rng(10_000 + i)
        picks = rng.integers(0, y_true.shape[0], (n_resamples, y_true.shape[0]))
        low, high = np.quantile(y_true[picks].mean(axis=1), [0.025, 0.975])
        hits_row += low <= truth <= high
    return hits_query / n_simulations, hits_row / n_simulations


def test_query_bootstrap_covers_and_row_bootstrap_falls_short():
    query, row = _coverage(80, 400)
    # nominal 0.95; with 80 simulations the Monte Carlo sd is about 0.025
    assert query >= 0.85
    # the rows' correlation makes the row intervals about half as wide
    # (expected coverage near 0.55)
    assert row <= 0.75
    assert query - row >= 0.2


@pytest.mark.slow
def test_query_bootstrap_coverage_near_nominal_many_simulations():
    query, row = _coverage(600, 1000, seed=1000)
    sd = np.sqrt(0.95 * 0.05 / 600)  # about 0.009
    assert query >= 0.95 - 0.02 - 3 * sd  # percentile intervals run a bit short
    assert row <= 0.7


# --- compare(..., by=...) ------------------------------------------------------

def _holm(p):
    """Holm's step-down adjustment written out: sort, scale, running max."""
    order = np.argsort(p)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_compare_by_segment_equals_compare_on_each_segment_with_holm_across():
    rows = click_log(8, n_queries=150)
    systems = {"model": rows["score"], "noisy": rows["score"] + np.random.default_rng(0)
               .normal(0, 0.5, rows.shape[0])}
    result = skrank.compare(rows["label"], systems, query_id=rows["qid"],
                            metrics=["map", "mrr"], by=rows["device"],
                            random_state=0, n_resamples=2000)
    tests = result.to_frame()
    assert list(tests.columns[:3]) == ["device", "metric", "system_a"]
    for device in ["desktop", "mobile", "tablet"]:
        part = rows[rows["device"] == device]
        alone = skrank.compare(part["label"], {k: v[part.index] for k, v in systems.items()},
                               query_id=part["qid"], metrics=["map", "mrr"],
                               random_state=0, n_resamples=2000).to_frame()
        mine = tests[tests["device"] == device].reset_index(drop=True)
        np.testing.assert_allclose(mine["difference"], alone["difference"], atol=1e-12)
        np.testing.assert_allclose(mine["p_t_test"], alone["p_t_test"], atol=1e-12)
        assert mine["n_queries"].tolist() == alone["n_queries"].tolist()
    for metric in ["map", "mrr"]:
        block = tests[tests["metric"] == metric]
        np.testing.assert_allclose(block["p_t_test_corrected"],
                                   _holm(block["p_t_test"].to_numpy()), atol=1e-15)
        np.testing.assert_allclose(block["p_randomization_corrected"],
                                   _holm(block["p_randomization"].to_numpy()),
                                   atol=1e-15)
    text = repr(result)
    assert "3 segments by device" in text and "mobile" in text
    assert result.to_frame("summary").shape[0] == 3 * 2 * 2


def test_by_as_a_dict_or_a_polars_series_names_the_columns():
    rows = click_log(9)
    result = evaluate_by(rows["label"], rows["score"], query_id=rows["qid"],
                         by={"device": rows["device"].to_numpy(), "band": rows["freq"]},
                         metrics=["mrr"], confidence_level=None)
    assert result.by == ("device", "band")
    assert list(result.to_frame().columns[:2]) == ["device", "band"]
    pl = pytest.importorskip("polars")
    series = pl.Series("device", rows["device"].to_numpy())
    from_polars = evaluate_by(rows["label"], rows["score"], query_id=rows["qid"],
                              by=series, metrics=["mrr"], confidence_level=None)
    assert from_polars.by == ("device",)
    assert from_polars.segments == [("desktop",), ("mobile",), ("tablet",)]


@pytest.mark.parametrize("values", [
    np.array([7, -3, 7, 2, 2, -3, 11]),  # few distinct integers: counted
    np.array([5, 5, 5], dtype=np.uint8),
    np.array([2**62, -(2**62), 0, 2**62]),  # a wide range: sorted
    np.array([3, 2**64 - 1, 3], dtype=np.uint64),
    np.array([0.5, -1.0, 0.5]),
    np.array(["b", "a", "b", "c"]),
])
def test_segment_codes_are_the_sorted_distinct_values(values):
    from skrank.stats._segments import _codes

    codes, labels = _codes(values)
    expected_labels, expected_codes = np.unique(values, return_inverse=True)
    assert labels.dtype == expected_labels.dtype
    np.testing.assert_array_equal(labels, expected_labels)
    np.testing.assert_array_equal(codes, expected_codes.reshape(-1))
    np.testing.assert_array_equal(labels[codes], values)


def test_integer_and_text_segments_give_the_same_result():
    # the counting path for small integers against the sorting path for text
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(60), 4)
    y = rng.integers(0, 2, q.shape[0])
    s = rng.random(q.shape[0])
    segment = (q * 7) % 5 - 2
    as_int = evaluate_by(y, s, by=segment, query_id=q, random_state=0)
    as_text = evaluate_by(y, s, by=segment.astype(str), query_id=q, random_state=0)
    assert [k[0] for k in as_int.segments] == [-2, -1, 0, 1, 2]
    np.testing.assert_array_equal(as_int.value, as_text.value[[1, 0, 2, 3, 4]])
    np.testing.assert_array_equal(as_int.n_queries, as_text.n_queries[[1, 0, 2, 3, 4]])
