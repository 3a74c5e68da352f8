"""compare(): the randomisation test against a plain permutation loop, the
t-test against scipy, bootstrap intervals against a plain bootstrap loop,
Holm's correction by hand, reproducibility, the result tables, bad inputs."""

import itertools

import numpy as np
import pytest
from scipy import stats

from skrank import average_precision_score, compare, reciprocal_rank_score
from skrank.stats import correct_p_values

from .._needs import needs


def _systems(seed, n_queries=12, n_items=6, n_systems=2):
    rng = np.random.default_rng(seed)
    query = np.repeat(rng.permutation(n_queries) * 3 + 1, n_items)
    y = rng.integers(0, 2, size=query.size)
    systems = {
        name: y * (0.3 + 0.3 * s) + rng.normal(size=query.size)
        for s, name in enumerate("ABCDE"[:n_systems])
    }
    return y, systems, query


def _per_query(metric_func, y, scores, query):
    return metric_func(y, scores, query_id=query, aggregate=None).value


def test_difference_and_t_test_match_scipy_on_the_metric_functions():
    y, systems, query = _systems(0, n_queries=25)
    result = compare(y, systems, query_id=query, metrics=["map"], random_state=0)
    a = _per_query(average_precision_score, y, systems["A"], query)
    b = _per_query(average_precision_score, y, systems["B"], query)
    keep = ~np.isnan(a)
    (row,) = result.tests.rows
    values = dict(zip(result.tests.columns, row))
    assert values["difference"] == pytest.approx(np.mean(a[keep] - b[keep]))
    expected = stats.ttest_rel(a[keep], b[keep])
    assert values["t_statistic"] == pytest.approx(expected.statistic)
    assert values["p_t_test"] == pytest.approx(expected.pvalue)
    assert values["n_queries"] == keep.sum()
    means = result.summary.column("mean")
    assert means == pytest.approx([a[keep].mean(), b[keep].mean()])


def _loop_p_value_exact(d):
    """Every sign vector, one at a time."""
    observed = abs(sum(d)) / len(d)
    hits = 0
    total = 0
    for signs in itertools.product([1, -1], repeat=len(d)):
        total += 1
        flipped = abs(sum(s * x for s, x in zip(signs, d))) / len(d)
        if flipped >= observed - 1e-12:
            hits += 1
    return hits / total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_randomisation_p_value_equals_a_plain_loop(seed):
    y, systems, query = _systems(seed, n_queries=10)
    result = compare(y, systems, query_id=query, metrics=["mrr"], n_resamples=2000,
                     random_state=0)
    a = _per_query(reciprocal_rank_score, y, systems["A"], query)
    b = _per_query(reciprocal_rank_score, y, systems["B"], query)
    keep = ~np.isnan(a)
    assert keep.sum() <= 10  # 2**10 <= 2000: every sign vector is used
    expected = _loop_p_value_exact((a[keep] - b[keep]).tolist())
    assert result.tests.column("p_randomization") == [pytest.approx(expected)]


def test_monte_carlo_p_value_is_close_to_a_plain_loop():
    y, systems, query = _systems(3, n_queries=40)
    result = compare(y, systems, query_id=query, metrics=["map"], n_resamples=20000,
                     random_state=1)
    a = _per_query(average_precision_score, y, systems["A"], query)
    b = _per_query(average_precision_score, y, systems["B"], query)
    d = (a - b)[~np.isnan(a)]
    rng = np.random.default_rng(123)
    hits = 0
    n_loop = 20000
    for _ in range(n_loop):
        signs = rng.choice([-1, 1], size=d.size)
        hits += abs(np.mean(signs * d)) >= abs(np.mean(d)) - 1e-12
    expected = hits / n_loop
    (p,) = result.tests.column("p_randomization")
    # two Monte Carlo estimates: their standard error is below 0.005
    assert p == pytest.approx(expected, abs=0.02)


def test_bootstrap_interval_is_close_to_a_plain_bootstrap_loop():
    y, systems, query = _systems(4, n_queries=30)
    result = compare(y, systems, query_id=query, metrics=["map"], n_resamples=4000,
                     random_state=2)
    a = _per_query(average_precision_score, y, systems["A"], query)
    a = a[~np.isnan(a)]
    rng = np.random.default_rng(7)
    means = [a[rng.integers(0, a.size, a.size)].mean() for _ in range(4000)]
    low, high = np.quantile(means, [0.025, 0.975])
    row = dict(zip(result.summary.columns, result.summary.rows[0]))
    width = high - low
    assert row["ci_low"] == pytest.approx(low, abs=0.1 * width)
    assert row["ci_high"] == pytest.approx(high, abs=0.1 * width)
    assert row["ci_low"] < row["mean"] < row["ci_high"]


def test_reproducible_with_random_state():
    y, systems, query = _systems(5, n_queries=30)
    kwargs = dict(query_id=query, metrics=["map", "ndcg@3"], n_resamples=500)
    first = compare(y, systems, random_state=3, **kwargs)
    again = compare(y, systems, random_state=3, **kwargs)
    other = compare(y, systems, random_state=4, **kwargs)
    assert first.tests.rows == again.tests.rows
    assert first.summary.rows == again.summary.rows
    assert first.tests.rows != other.tests.rows


def _holm(p):
    return correct_p_values(p, "holm")


def test_holm_by_hand():
    # sorted: 0.01 * 3 = 0.03, 0.03 * 2 = 0.06, then max(0.06, 0.04 * 1)
    np.testing.assert_allclose(_holm([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])
    np.testing.assert_allclose(_holm([0.5, np.nan, 0.01]), [0.5, np.nan, 0.02])


def test_more_than_two_systems_are_corrected():
    y, systems, query = _systems(6, n_queries=20, n_systems=3)
    result = compare(y, systems, query_id=query, metrics=["map"], n_resamples=500,
                     random_state=0)
    pairs = [(a, b) for _, a, b, *_ in result.tests.rows]
    assert pairs == [("A", "B"), ("A", "C"), ("B", "C")]
    raw = result.tests.column("p_t_test")
    np.testing.assert_allclose(result.tests.column("p_t_test_corrected"), _holm(raw))
    bonferroni = compare(y, systems, query_id=query, metrics=["map"], n_resamples=500,
                         random_state=0, correction="bonferroni")
    np.testing.assert_allclose(bonferroni.tests.column("p_t_test_corrected"),
                               np.minimum(1, 3 * np.array(raw)))
    none = compare(y, systems, query_id=query, metrics=["map"], n_resamples=500,
                   random_state=0, correction=None)
    assert none.tests.column("p_t_test_corrected") == raw


def test_baseline_compares_every_system_with_it():
    y, systems, query = _systems(7, n_queries=15, n_systems=3)
    result = compare(y, systems, query_id=query, metrics="mrr", baseline="B",
                     n_resamples=200, random_state=0)
    pairs = [(a, b) for _, a, b, *_ in result.tests.rows]
    assert pairs == [("A", "B"), ("C", "B")]


def test_identical_systems():
    y, systems, query = _systems(8)
    result = compare(y, {"A": systems["A"], "copy": systems["A"].copy()},
                     query_id=query, metrics=["map"], random_state=0)
    values = dict(zip(result.tests.columns, result.tests.rows[0]))
    assert values["difference"] == 0
    assert values["p_randomization"] == 1.0
    assert values["p_t_test"] == 1.0


def test_tables_repr_and_frames():
    pd = needs("pandas")
    y, systems, query = _systems(9)
    result = compare(y, systems, query_id=query, metrics=["map", "ndcg@3"],
                     n_resamples=200, random_state=0)
    text = repr(result)
    assert "95% CI" in text and "A - B" in text and "ndcg@3" in text
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(result.tests.columns)
    assert len(frame) == 2
    assert len(result.to_frame("summary")) == 4
    assert set(result.per_query) == {"map", "ndcg@3"}
    with pytest.raises(ValueError, match="`table`"):
        result.to_frame("pairs")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"systems": {"A": [1, 2, 3]}}, "`systems`"),
        ({"systems": [[1, 2, 3], [3, 2, 1]]}, "`systems`"),
        ({"systems": {"A": [1, 2, 3], 2: [3, 2, 1]}}, "`systems`"),
        ({"systems": {"A": [1, 2, 3], "B": [1, np.nan, 2]}}, r"`systems`\['B'\]"),
        ({"systems": {"A": [1, 2, 3], "B": [1, 2]}}, r"`systems`\['B'\]"),
        ({"baseline": "Z"}, "`baseline`"),
        ({"n_resamples": 0}, "`n_resamples`"),
        ({"confidence_level": 95}, "`confidence_level`"),
        ({"correction": "fdr"}, "`correction`"),
        ({"correction": "fdr_bh"}, "`correction`"),
        ({"test": "tukey"}, "`test`"),
        ({"test": ["tukey_hsd", "wilcoxon"]}, "`test`"),
        ({"metrics": ["nope"]}, "Unknown metric name"),
        ({"query_id": [1, 1]}, "query_id"),
    ],
)
def test_bad_inputs(kwargs, message):
    args = {"systems": {"A": [1, 2, 3], "B": [3, 2, 1]}, "query_id": [1, 1, 1]}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        compare([1, 0, 1], args.pop("systems"), metrics=args.pop("metrics", ["map"]),
                **args)


@pytest.mark.parametrize("by", [None, "device"])
def test_plot_draws_each_pairs_difference_and_interval(by):
    matplotlib = needs("matplotlib")
    matplotlib.use("Agg")
    y_true = [1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0]
    query_id = [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    good = [3, 2, 1, 3, 2, 1, 1, 3, 2, 3, 2, 1]  # relevant row first: mrr 1
    bad = [1, 2, 3, 1, 2, 3, 3, 1, 2, 1, 2, 3]   # relevant row last: mrr 1/3
    device = {"device": ["app"] * 6 + ["web"] * 6} if by else None
    result = compare(y_true, {"good": good, "bad": bad}, query_id=query_id,
                     metrics=["mrr", "precision@1"], by=device, random_state=0)
    display = result.plot()
    assert list(display.errorbars_) == ["mrr", "precision@1"]
    n_rows = 2 if by else 1  # one row per (segment, pair)
    # every query gains 1 - 1/3 in mrr and 1 - 0 in precision@1
    for metric, expected in [("mrr", 2 / 3), ("precision@1", 1.0)]:
        points = display.errorbars_[metric].lines[0].get_xdata()
        np.testing.assert_allclose(points, [expected] * n_rows)
        assert display.reference_lines_[metric].get_xdata()[0] == 0.0
    labels = [t.get_text() for t in display.axes_[0].get_yticklabels()]
    assert labels == (["app & good - bad", "web & good - bad"] if by
                      else ["good - bad"])
    import matplotlib.pyplot as plt

    plt.close("all")
