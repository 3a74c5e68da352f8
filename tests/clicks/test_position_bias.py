"""estimate_position_bias and PositionBias: hand-worked cases, recovery, intervals, bad input."""

import numpy as np
import pytest

from skrank.clicks import PositionBias, estimate_position_bias
from skrank.datasets import simulate_clicks

THETA = 1.0 / np.arange(1, 11) ** 0.8  # positions 1..10, theta(1) = 1


def test_randomized_is_the_click_rate_ratio():
    # position 1: 3 clicks in 4 rows, position 2: 1 in 4
    bias = estimate_position_bias([1, 1, 0, 0, 1, 0, 1, 0], [1, 2, 1, 2, 1, 2, 1, 2],
                                  list_id=[1, 1, 2, 2, 3, 3, 4, 4],
                                  method="randomized", n_resamples=0)
    np.testing.assert_allclose(bias.propensity, [1.0, (1 / 4) / (3 / 4)])
    assert bias.interval is None
    np.testing.assert_array_equal(bias.n_impressions, [4, 4])
    np.testing.assert_array_equal(bias.n_clicks, [3, 1])


@pytest.mark.parametrize("method", ["harvest", "em", "conditional"])
@pytest.mark.filterwarnings("ignore:method='em' fits one relevance")
def test_one_pair_at_two_positions(method):
    # one (query, doc) at position 1 (clicks 2 of 4) and position 2 (1 of 4):
    # theta2 gamma / (theta1 gamma) = (1/4) / (2/4) for both estimators
    click = [1, 1, 0, 0, 1, 0, 0, 0]
    position = [1, 1, 1, 1, 2, 2, 2, 2]
    bias = estimate_position_bias(click, position, list_id=np.arange(8),
                                  query_id=np.zeros(8), doc_id=np.zeros(8),
                                  method=method, n_resamples=0)
    np.testing.assert_allclose(bias.propensity, [1.0, 0.5], rtol=1e-5)


def _varied_logs(n_queries, n_rankers, n_sessions, seed):
    """PBM clicks of several noisy rankers of the same queries (pairs move)."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), 10)
    doc = np.arange(query.shape[0])
    label = rng.integers(0, 5, query.shape[0])
    logs = [simulate_clicks(label, label + rng.normal(0, 2, label.shape[0]),
                            query_id=query, propensity=THETA, n_sessions=n_sessions,
                            random_state=seed + r)
            for r in range(n_rankers)]
    return (np.concatenate([log.click for log in logs]),
            np.concatenate([log.position for log in logs]),
            np.concatenate([log.session_id + r * n_queries * n_sessions
                            for r, log in enumerate(logs)]),
            np.concatenate([log.query_id for log in logs]),
            np.concatenate([doc[log.row] for log in logs]))


@pytest.mark.parametrize("method", ["harvest", "em", "conditional"])
def test_recovers_theta_from_varied_rankers(method):
    click, position, lists, query, doc = _varied_logs(1000, 5, 40, seed=0)  # 2e6 rows
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  doc_id=doc, method=method, n_resamples=0)
    np.testing.assert_allclose(bias.propensity, THETA / THETA[0], rtol=0.05)


def test_randomized_recovers_theta():
    rng = np.random.default_rng(1)
    query = np.repeat(np.arange(4000), 10)
    label = rng.integers(0, 2, query.shape[0])
    # a randomised experiment: each session shows the list in a random order
    click, position, lists, queries = [], [], [], []
    for seed in range(2, 30):  # 28 fresh shuffles
        log = simulate_clicks(label, rng.random(query.shape[0]), query_id=query,
                              propensity=THETA, random_state=seed)
        click.append(log.click)
        position.append(log.position)
        lists.append(log.session_id + seed * 4000)
        queries.append(log.query_id)
    bias = estimate_position_bias(np.concatenate(click), np.concatenate(position),
                                  list_id=np.concatenate(lists),
                                  query_id=np.concatenate(queries),
                                  method="randomized", n_resamples=0)
    np.testing.assert_allclose(bias.propensity, THETA / THETA[0], rtol=0.05)


def test_interval_brackets_the_estimate():
    click, position, lists, query, doc = _varied_logs(100, 3, 20, seed=4)
    for method in ("randomized", "harvest", "em", "conditional"):
        # (randomized would refuse these rankers' rows, not randomised, with doc_id)
        bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                      doc_id=None if method == "randomized" else doc,
                                      method=method, n_resamples=30, random_state=0)
        assert bias.interval.shape == (10, 2)
        np.testing.assert_allclose(bias.interval[0], [1.0, 1.0])
        assert (bias.interval[:, 0] <= bias.propensity + 1e-9).all()
        assert (bias.propensity <= bias.interval[:, 1] + 1e-9).all()


@pytest.mark.slow
def test_interval_coverage_near_nominal():
    # 200 randomised experiments of 200 queries: the 90% interval of theta(2)
    # and theta(3) should cover the truth about 90% of the time
    rng = np.random.default_rng(7)
    theta = np.array([1.0, 0.6, 0.4])
    covered = []
    for rep in range(200):
        n_queries, n_sessions = 200, 5
        gamma = rng.beta(2, 3, size=(n_queries, 3))
        shown = np.argsort(rng.random((n_queries * n_sessions, 3)), axis=1)
        position = np.empty_like(shown)
        np.put_along_axis(position, shown, np.arange(3)[None, :], axis=1)
        query = np.repeat(np.arange(n_queries), n_sessions)
        p_click = theta[position] * gamma[query][:, :]
        click = (rng.random(p_click.shape) < p_click).astype(int)
        bias = estimate_position_bias(click.ravel(), position.ravel() + 1,
                                      list_id=np.repeat(np.arange(query.shape[0]), 3),
                                      query_id=np.repeat(query, 3),
                                      method="randomized", confidence_level=0.9,
                                      n_resamples=300, random_state=rep)
        covered.append((bias.interval[1:, 0] <= theta[1:]) &
                       (theta[1:] <= bias.interval[1:, 1]))
    rate = np.mean(covered)
    assert 0.84 <= rate <= 0.96  # 400 intervals: 0.9 +- 3 standard errors


def test_position_without_evidence_is_named_or_left_out():
    click = [1, 0, 1, 0, 1, 1]
    position = [1, 2, 1, 2, 3, 3]  # position 2 has no click
    with pytest.raises(ValueError, match="Position 2 has no evidence.*max_position=1"):
        estimate_position_bias(click, position, list_id=[0, 0, 1, 1, 0, 1],
                               method="randomized", n_resamples=0)
    bias = estimate_position_bias(click, position, list_id=[0, 0, 1, 1, 0, 1],
                                  method="randomized", max_position=1, n_resamples=0)
    np.testing.assert_array_equal(bias.propensity, [1.0])
    assert (bias.propensity > 0).all()


def test_harvest_needs_a_pair_at_two_positions():
    # doc 0 only ever at position 1, doc 1 only at position 2: no intervention
    with pytest.raises(ValueError, match="the logger never moves documents"):
        estimate_position_bias([1, 1, 0, 1], [1, 2, 1, 2], list_id=[0, 0, 1, 1],
                               query_id=[0, 0, 0, 0],
                               doc_id=[0, 1, 0, 1], method="harvest", n_resamples=0)


def test_position_bias_call_repr_and_plot():
    bias = PositionBias([1.0, 0.5, 0.25], method="randomized")
    np.testing.assert_array_equal(bias([3, 1]), [0.25, 1.0])
    assert "positions=1..3" in repr(bias) and "0.25" in repr(bias)
    with pytest.raises(ValueError, match="covers positions 1..3.*row 1"):
        bias([1, 4])
    with pytest.raises(ValueError, match="positive and finite.*position 2"):
        PositionBias([1.0, 0.0])
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = bias.plot()
    assert ax.get_xlabel() == "position"


@pytest.mark.parametrize("change, message", [
    (dict(method="cascade"), "`method` must be one of"),
    (dict(method=None), "`method` is required: .*'randomized' for a randomisation"),
    (dict(doc_id=None), "`doc_id` is required for method='em'"),
    (dict(max_position=0), "`max_position` must be a positive integer"),
    (dict(confidence_level=1.0), "`confidence_level` must be a number in"),
    (dict(n_resamples=-1), "`n_resamples` must be a non-negative integer"),
    (dict(click=[1, 0.5]), r"`click` must be 0 or 1.*row 1"),
    (dict(position=[0, 1]), r"`position` must be 1 or more.*row 0"),
    (dict(list_id=None), "`list_id` is required"),
    (dict(list_id=[0, 0], position=[1, 1]), "Two rows of one list.*same `list_id`"),
    (dict(query_id=[0, 1]),
     "row 0 and row 1 share a `list_id` and have `query_id` 0 and 1"),
])
def test_bad_input(change, message):
    arguments = dict(click=[1, 0], position=[1, 2], list_id=[0, 0], doc_id=[0, 1],
                     method="em")
    arguments.update(change)
    click, position = arguments.pop("click"), arguments.pop("position")
    with pytest.raises(ValueError, match=message):
        estimate_position_bias(click, position, **arguments)


@pytest.mark.parametrize("method", ["randomized", "harvest", "em", "conditional"])
@pytest.mark.filterwarnings("ignore:method='em' fits one relevance")
def test_rows_below_max_position_are_as_if_not_logged(method):
    # "rows below it are left out": the same estimate and interval as on the
    # log without them, also when a query has no row left (the bootstrap
    # draws the queries that remain, whichever their ids)
    rng = np.random.default_rng(7)
    n = 600
    query = rng.integers(1, 40, n)
    doc = rng.integers(0, 4, n)
    position = rng.integers(1, 5, n)
    click = (rng.random(n) < 0.7 / position).astype(int)
    # query 0 (the first id) only below position 3: no row of it remains
    query = np.r_[0, 0, query]
    doc, position, click = np.r_[0, 1, doc], np.r_[4, 4, position], np.r_[1, 0, click]
    # lists: the rows of a query at one position go to its lists 0, 1, 2, ...
    order = np.lexsort((position, query))
    key = (query * 10 + position)[order]
    start = np.r_[0, np.flatnonzero(key[1:] != key[:-1]) + 1]
    rank = np.empty(key.shape[0], dtype=int)
    sizes = np.diff(np.r_[start, key.shape[0]])
    rank[order] = np.arange(key.shape[0]) - np.repeat(start, sizes)
    lists = query * 1000 + rank
    options = dict(method=method, n_resamples=20, random_state=3)
    got = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                 doc_id=doc, max_position=3, **options)
    kept = position <= 3
    expected = estimate_position_bias(click[kept], position[kept], list_id=lists[kept],
                                      query_id=query[kept], doc_id=doc[kept], **options)
    np.testing.assert_array_equal(got.propensity, expected.propensity)
    np.testing.assert_array_equal(got.interval, expected.interval)
