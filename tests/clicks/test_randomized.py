"""method="randomized": positions compared within the same lists; the designs it takes.

Expected values are worked by hand from the definition (clicks at ``k``
over clicks at position 1, summed over the lists that show both), or are
the known ``theta`` of a simulated log (tests/clicks/_designs.py), covered
by the bootstrap interval at about its nominal rate.
"""

import warnings

import numpy as np
import pytest

from skrank.clicks import estimate_position_bias
from skrank.clicks._randomized import exchangeability_z, randomized_statistics

from ._designs import adjacent_swaps, rand_pair, shuffled_lists, shuffled_top


def test_lists_of_different_lengths_by_hand():
    # list 10 shows one document (clicked); lists 11-13 show two:
    #   11: position 1 not clicked, 2 clicked; 12: 1 clicked; 13: both clicked
    # over lists 11-13 (those showing 1 and 2): clicks at 2 = 2, at 1 = 2
    click = [1, 0, 1, 1, 0, 1, 1]
    position = [1, 1, 2, 1, 2, 1, 2]
    lists = [10, 11, 11, 12, 12, 13, 13]
    bias = estimate_position_bias(click, position, list_id=lists,
                                  method="randomized", n_resamples=0)
    np.testing.assert_allclose(bias.propensity, [1.0, 2 / 2])
    # the pooled click rates, (2/3) / (4/4), would compare list 10 with the others
    np.testing.assert_array_equal(bias.n_clicks, [3, 2])
    np.testing.assert_array_equal(bias.n_impressions, [4, 3])


def test_statistics_per_query_by_hand():
    # query 0: list 0 (positions 1, 2, 3; clicks 1, 0, 1), list 1 (2, 3 only)
    # query 1: list 2 (positions 1, 2; clicks 0, 1)
    click = np.array([1.0, 0, 1, 1, 1, 0, 1])
    position = np.array([0, 1, 2, 1, 2, 0, 1])  # 0-based
    lists = np.array([0, 0, 0, 1, 1, 2, 2])
    query = np.array([0, 0, 0, 0, 0, 1, 1])
    stats = randomized_statistics(click, position, lists, query, 3, 2).toarray()
    # columns: clicks at k in lists showing 1 and k | clicks at 1 in those lists
    # list 1 shows no position 1: left out
    np.testing.assert_array_equal(stats[0], [1, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(stats[1], [0, 1, 0, 0, 0, 0])


def test_position_shown_only_without_position_1_has_no_evidence():
    # clicks at position 2 only in a list that lacks position 1
    with pytest.raises(ValueError, match="Position 2 has no evidence.*lists that "
                       "also show position 1.*max_position=1"):
        estimate_position_bias([1, 0, 1], [1, 2, 2], list_id=[0, 0, 1],
                               method="randomized", n_resamples=0)
    with pytest.raises(ValueError, match="Position 2 has no evidence.*no click at "
                       "position 1 in the lists that show it"):
        estimate_position_bias([1, 0, 1], [1, 1, 2], list_id=[0, 1, 1],
                               method="randomized", n_resamples=0)


def _mixed_lengths(seed, n_queries=2000, n_lists=5):
    """The issue's design: shuffled lists of one or two documents, theta(2) = 0.5."""
    rng = np.random.default_rng(seed)
    lengths = rng.choice([1, 2], size=n_queries)
    return shuffled_lists(np.array([1.0, 0.5]), n_queries=n_queries, n_lists=n_lists,
                          rng=rng, lengths=lengths)


def test_shuffled_lists_of_different_lengths_are_estimated_right():
    click, position, lists, query, _ = _mixed_lengths(0)
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  method="randomized", n_resamples=300,
                                  random_state=0)
    assert bias.interval[1, 0] <= 0.5 <= bias.interval[1, 1]
    assert abs(bias.propensity[1] - 0.5) < 0.05
    # the design is a trap: the pooled click rates are far from the truth
    pooled = click[position == 2].mean() / click[position == 1].mean()
    assert pooled < 0.3


def test_shuffled_top_n_of_longer_lists_with_max_position():
    theta = np.array([1.0, 0.6, 0.4, 0.3, 0.2])
    click, position, lists, query, _ = shuffled_top(theta, 3, n_queries=3000,
                                                    n_lists=6, rng=4)
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  method="randomized", max_position=3,
                                  n_resamples=200, random_state=1)
    low, high = bias.interval.T
    assert ((low <= theta[:3]) & (theta[:3] <= high)).all()
    np.testing.assert_allclose(bias.propensity, theta[:3], rtol=0.08)


@pytest.mark.parametrize("design", ["equal", "mixed"])
def test_interval_coverage_near_nominal(design):
    # 150 logs of 300 queries: the 90% interval of theta(2) (and theta(3))
    # covers the truth at about 90%
    theta = np.array([1.0, 0.5, 0.3])
    covered = []
    for rep in range(150):
        rng = np.random.default_rng(100 + rep)
        lengths = (np.full(300, 3) if design == "equal"
                   else rng.choice([1, 2, 3], size=300))
        click, position, lists, query, _ = shuffled_lists(
            theta, n_queries=300, n_lists=4, rng=rng, lengths=lengths)
        bias = estimate_position_bias(click, position, list_id=lists,
                                      query_id=query, method="randomized",
                                      confidence_level=0.9, n_resamples=200,
                                      random_state=rep)
        covered.extend((bias.interval[1:, 0] <= theta[1:])
                       & (theta[1:] <= bias.interval[1:, 1]))
    rate = np.mean(covered)
    # 300 intervals (two per log, correlated): 0.9 +- about 3.5 standard errors
    assert 0.84 <= rate <= 0.96


def test_the_bootstrap_resamples_queries_not_lists():
    # every list logged twice (a copy in the same query): resampling queries
    # draws the same per-query sums, doubled, so the interval is the
    # original's; resampling lists would count the copies as independent
    # evidence and narrow it by about sqrt(2)
    click, position, lists, query, _ = _mixed_lengths(3, n_queries=600, n_lists=4)
    copy = lists.max() + 1 + lists
    twice = (np.r_[click, click], np.r_[position, position])
    options = dict(method="randomized", n_resamples=400, random_state=0)
    once = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  **options)
    doubled = estimate_position_bias(*twice, list_id=np.r_[lists, copy],
                                     query_id=np.r_[query, query], **options)
    np.testing.assert_allclose(doubled.interval, once.interval, rtol=1e-12)
    lists_once = estimate_position_bias(click, position, list_id=lists, **options)
    lists_twice = estimate_position_bias(*twice, list_id=np.r_[lists, copy],
                                         **options)
    ratio = np.diff(lists_once.interval[1])[0] / np.diff(lists_twice.interval[1])[0]
    assert 1.2 < ratio < 1.7


def test_one_query_refuses_a_bootstrap_that_says_nothing():
    click, position, lists, _, _ = _mixed_lengths(5, n_queries=50)
    one = np.zeros(lists.shape[0])
    with pytest.raises(ValueError, match="resamples queries.*1 query.*zero width"):
        estimate_position_bias(click, position, list_id=lists, query_id=one,
                               method="randomized", n_resamples=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bias = estimate_position_bias(click, position, list_id=lists, query_id=one,
                                      method="randomized", n_resamples=0)
        assert bias.interval is None
        # without query_id the lists are resampled: no refusal, no warning
        estimate_position_bias(click, position, list_id=lists, method="randomized",
                               n_resamples=20)


def test_exchangeability_by_hand():
    # two lists of one query, both x at 1 and y at 2: at position 2, pair x
    # has a = 2, b = 0 and pair y a = 0, b = 2: each (a - b)^2 / n - 1 = 1;
    # variance 2 (1 - 1/2) each: z = 2 / sqrt(2)
    position = np.array([0, 1, 0, 1])
    lists = np.array([0, 0, 1, 1])
    pair = np.array([7, 8, 7, 8])
    z = exchangeability_z(position, lists, pair, 2)
    np.testing.assert_allclose(z, [0.0, 2 / np.sqrt(2)])
    # swapped in the second list: a = b = 1 for both, (a - b)^2 / n - 1 = -1
    z = exchangeability_z(position, lists, np.array([7, 8, 8, 7]), 2)
    np.testing.assert_allclose(z, [0.0, -2 / np.sqrt(2)])


def test_exchangeability_is_standard_normal_on_shuffles():
    # 200 logs of shuffled lists (mixed lengths, 2-11 lists per query)
    theta = np.array([1.0, 0.6, 0.4, 0.3])
    values = []
    for rep in range(200):
        rng = np.random.default_rng(500 + rep)
        click, position, lists, query, doc = shuffled_lists(
            theta, n_queries=200, n_lists=int(rng.integers(2, 12)), rng=rng,
            lengths=rng.choice([2, 3, 4], size=200))
        values.append(exchangeability_z(position - 1, lists, query * 10 + doc, 4)[1:])
    values = np.concatenate(values)
    assert abs(values.mean()) < 0.15 and 0.85 < values.std() < 1.3
    assert values.max() < 4.5  # far from the refusal at 6


@pytest.mark.parametrize("design", [rand_pair, adjacent_swaps])
def test_swap_designs_are_refused_with_doc_id(design):
    theta = np.array([1.0, 0.6, 0.3])
    click, position, lists, query, doc = design(theta, n_queries=300, n_lists=6, rng=7)
    with pytest.raises(ValueError, match="Position 2 was not randomised.*"
                       "method='harvest'"):
        estimate_position_bias(click, position, list_id=lists, query_id=query,
                               doc_id=doc, method="randomized")


def test_below_a_shuffled_top_n_is_refused_with_doc_id():
    theta = np.array([1.0, 0.6, 0.4, 0.3])
    click, position, lists, query, doc = shuffled_top(theta, 2, n_queries=300,
                                                      n_lists=6, rng=8)
    with pytest.raises(ValueError, match="Position 3 was not randomised.*"
                       "shuffled top-2, pass max_position=2"):
        estimate_position_bias(click, position, list_id=lists, query_id=query,
                               doc_id=doc, method="randomized", n_resamples=0)
    bias = estimate_position_bias(click, position, list_id=lists, query_id=query,
                                  doc_id=doc, method="randomized", max_position=2,
                                  n_resamples=0)
    assert bias.max_position == 2
