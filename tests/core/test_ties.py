"""Tie expectations (skrank/_core/_ties.py) against scipy and by hand."""

import numpy as np
import pytest
from scipy.stats import hypergeom

from skrank._core._layout import rank_queries
from skrank._core._ties import (
    expected_hits_at_k,
    first_relevant_block,
    _hypergeometric_none,
)


@pytest.mark.parametrize("m, r, t", [(5, 2, 1), (5, 2, 3), (5, 2, 4), (10, 0, 7), (6, 6, 1)])
def test_no_relevant_row_in_t_positions_is_hypergeometric(m, r, t):
    # drawing t of m rows, r of them relevant: P(none drawn) = pmf(0)
    expected = hypergeom(m, r, t).pmf(0)
    assert _hypergeometric_none(m, r, t) == pytest.approx(expected, abs=1e-15)


def test_expected_hits_spread_a_tie_block_over_its_positions():
    # query 0: scores 3, 2, 2, 2, 1 with relevance 0, 1, 0, 0, 1; top 2 holds
    # row 1 (not relevant) and one of three tied rows, one of them relevant
    ranked = rank_queries([0, 1, 0, 0, 1], [3, 2, 2, 2, 1], query_id=[0] * 5)
    assert expected_hits_at_k(ranked, 2)[0] == pytest.approx(1 / 3)
    assert expected_hits_at_k(ranked, 4)[0] == pytest.approx(1)
    assert expected_hits_at_k(ranked, None)[0] == 2


def test_first_relevant_block_per_query():
    # query a: blocks {9}, {5, 5 (relevant)}; query b: no relevant row
    ranked = rank_queries([0, 0, 1, 0], [9, 5, 5, 1], query_id=["a", "a", "a", "b"])
    first = first_relevant_block(ranked)
    assert first[1] == -1
    assert ranked.block_start[first[0]] == 1  # the tied block starts at row 1


@pytest.mark.parametrize("m, r, t", [(5, 2, 1), (5, 2, 3), (5, 2, 4), (10, 0, 7), (6, 6, 1),
                                     (3_000_000, 2, 1), (3_000_000, 1, 5)])
def test_some_relevant_row_is_exact_near_zero(m, r, t):
    from fractions import Fraction
    from math import comb

    from skrank._core._ties import hypergeometric_some

    # 1 - C(m - r, t) / C(m, t), in exact rational arithmetic
    expected = 1 - Fraction(comb(m - r, t), comb(m, t)) if t <= m - r else Fraction(1)
    got = hypergeometric_some(np.array([m]), np.array([r]), np.array([t]))[0]
    assert got == pytest.approx(float(expected), rel=1e-14, abs=0 if expected else 1e-300)
