"""What a log can identify: connected positions, one-query bootstraps, few views."""

import warnings

import numpy as np
import pytest

from skrank.clicks import estimate_position_bias
from skrank.clicks._identify import (
    FEW_IMPRESSIONS,
    FEW_QUERIES,
    check_identifiable,
    check_pair_observations,
    check_resampling_units,
    connected_positions,
)

PAIR_METHODS = ["em", "conditional"]
# the logs here are small: em's few-impressions warning is tested on its own
pytestmark = pytest.mark.filterwarnings("ignore:method='em' fits one relevance")


def _reference_connected(position, pair, n_positions, click):
    """Positions reachable from position 0, by repeated passes over the pairs."""
    clicked = {p for p, c in zip(pair, click) if c}
    positions_of = {}
    for k, p in zip(position, pair):
        if p in clicked:
            positions_of.setdefault(p, set()).add(k)
    reached = {0}
    grown = True
    while grown:
        grown = False
        for ks in positions_of.values():
            if ks & reached and not ks <= reached:
                reached |= ks
                grown = True
    return np.array([k in reached for k in range(n_positions)])


def test_connected_positions_match_a_brute_force_search():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_positions, n_rows = int(rng.integers(2, 7)), int(rng.integers(1, 15))
        position = rng.integers(0, n_positions, n_rows)
        pair = rng.integers(0, 6, n_rows)
        click = rng.random(n_rows) < 0.5
        got, _ = connected_positions(position, pair, n_positions, click)
        np.testing.assert_array_equal(
            got, _reference_connected(position, pair, n_positions, click))


def test_a_chain_of_pairs_connects_positions():
    # pair 0 at positions 1 and 2, pair 1 at 2 and 3: 3 is reached through 2
    connected, moving = connected_positions(np.array([0, 1, 1, 2]),
                                            np.array([0, 0, 1, 1]), 3,
                                            np.array([1, 0, 1, 0]))
    np.testing.assert_array_equal(connected, [True, True, True])
    assert moving == 2
    check_identifiable(np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1]), 3, "em",
                       click=np.array([1, 0, 1, 0]))


def test_pairs_never_clicked_connect_nothing():
    # pair 1 is the only one at positions 1 and 3, and it is never clicked
    position, pair = np.array([0, 1, 0, 2]), np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="Position 3 is not connected to position 1"):
        check_identifiable(position, pair, 3, "em", click=np.array([1, 1, 0, 0]))
    check_identifiable(position, pair, 3, "em")  # without clicks: connected


def _log(n_queries, n_sessions, order, seed=0):
    """PBM clicks of 4 documents per query; ``order(rng)`` gives a session's order."""
    rng = np.random.default_rng(seed)
    theta = np.array([1.0, 0.6, 0.4, 0.3])
    gamma = rng.uniform(0.2, 0.9, (n_queries, 4))
    rows = []
    for q in range(n_queries):
        for _ in range(n_sessions):
            docs = order(rng)
            for k, d in enumerate(docs):
                rows.append((rng.random() < theta[k] * gamma[q, d], k + 1, q, d))
    click, position, query, doc = map(np.array, zip(*rows))
    return click.astype(int), position, query, doc


def _lists(click):
    """The displayed list of each row of :func:`_log`: four rows a session."""
    return np.arange(len(click)) // 4


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_a_deterministic_logger_is_refused(method):
    click, position, query, doc = _log(50, 10, lambda rng: [0, 1, 2, 3])
    with pytest.raises(ValueError, match=(
            "Positions 2, 3, 4 are not connected to position 1.*never moves "
            "documents.*method='randomized'.*swap")):
        estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                               method=method, n_resamples=0)


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_a_fixed_top_result_is_refused(method):
    # positions 2..4 shuffled, position 1 never: nothing ties 1 to the rest
    click, position, query, doc = _log(
        50, 10, lambda rng: [0, *(1 + rng.permutation(3))])
    with pytest.raises(ValueError, match="Positions 2, 3, 4 are not connected"):
        estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                               method=method, n_resamples=0)


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_connected_top_positions_suggest_max_position(method):
    # 1 and 2 swap at random, 3 and 4 fixed
    click, position, query, doc = _log(
        50, 10, lambda rng: [*rng.permutation(2), 2, 3])
    with pytest.raises(ValueError, match="Positions 3, 4 are not.*max_position=2"):
        estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                               method=method, n_resamples=0)
    bias = estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                                  method=method, max_position=2, n_resamples=0)
    assert bias.max_position == 2


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_sessions_given_as_query_id_are_named(method):
    # shuffled lists, but each session passed as its own query: every pair
    # is seen once and nothing can be compared
    click, position, query, doc = _log(50, 10, lambda rng: rng.permutation(4))
    session = np.repeat(np.arange(click.shape[0] // 4), 4)
    with pytest.raises(ValueError, match=(
            "Every \\(query, document\\) pair appears in one row only: `query_id` "
            "must be the query.*not the session")):
        estimate_position_bias(click, position, list_id=session, doc_id=doc,
                               method=method, n_resamples=0)
    # the same rows with the query: estimated
    estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                           method=method, n_resamples=0)


def test_one_query_is_refused_for_an_interval():
    with pytest.raises(ValueError, match="has 1 query.*zero width.*n_resamples=0"):
        check_resampling_units(1, 100)
    check_resampling_units(1, 0)  # no interval: nothing to check
    with pytest.warns(UserWarning, match=f"only 5: with fewer than {FEW_QUERIES}"):
        check_resampling_units(5, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_resampling_units(FEW_QUERIES, 100)


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_one_query_id_gives_no_zero_width_interval(method):
    click, position, _, doc = _log(50, 10, lambda rng: rng.permutation(4))
    pair_as_doc = doc + 4 * np.repeat(np.arange(50), 40)
    with pytest.raises(ValueError, match="has 1 query"):
        estimate_position_bias(click, position, list_id=_lists(click),
                               query_id=np.zeros(click.shape[0]),
                               doc_id=pair_as_doc, method=method, n_resamples=50)


def test_em_warns_when_pairs_are_seen_a_few_times():
    # two pairs, both clicked and seen at two positions: 3 + 3 and 30 + 30 times
    item = np.array([0, 0, 1, 1])
    position = np.array([0, 1, 0, 1])
    clicks = np.array([1.0, 1.0, 5.0, 3.0])
    small = np.array([3.0, 3.0, 30.0, 30.0])
    with pytest.warns(UserWarning, match="median 33 times each"):
        assert check_pair_observations(item, position, clicks, small) == (6 + 60) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        many = np.full(4, float(FEW_IMPRESSIONS))
        median = check_pair_observations(item, position, clicks, many)
        assert median == 2 * FEW_IMPRESSIONS


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_the_few_impressions_warning_is_for_em_only(method):
    click, position, query, doc = _log(50, 10, lambda rng: rng.permutation(4))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                               method=method, n_resamples=0)
    warned = [w for w in caught if "fits one relevance" in str(w.message)]
    assert len(warned) == (method == "em")
    if warned:  # pointing at the caller's line
        assert warned[0].filename == __file__


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_few_queries_warn_at_the_callers_line(method):
    click, position, query, doc = _log(5, 40, lambda rng: rng.permutation(4))
    with pytest.warns(UserWarning, match="only 5: with fewer than 20") as caught:
        estimate_position_bias(click, position, list_id=_lists(click), query_id=query,
                               doc_id=doc,
                               method=method, n_resamples=20, random_state=0)
    few = [w for w in caught if "only 5" in str(w.message)]
    assert few[0].filename == __file__


@pytest.mark.parametrize("method", PAIR_METHODS)
def test_a_position_clicked_only_by_pairs_that_never_move(method):
    # pair a at positions 1 and 3 (clicked at 1 only), pair b at 1 and 2,
    # pair c only at 3 (clicked): position 3 is connected, but no click
    # there says how it compares; its propensity would be 0
    click = [1, 0, 1, 1, 1]
    position = [1, 3, 1, 2, 3]
    doc = ["a", "a", "b", "b", "c"]
    with pytest.raises(ValueError, match="Position 3 has no evidence.*max_position=2"):
        estimate_position_bias(click, position, list_id=[0, 0, 1, 1, 2],
                               query_id=np.zeros(5), doc_id=doc,
                               method=method, n_resamples=0)
