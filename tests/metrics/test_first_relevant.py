"""Reciprocal rank (MRR) and hit rate (skrank/metrics/_first_relevant.py): hand-worked values.

The hand-worked values (``EXAMPLES`` of "mrr" and "hit_rate" in
tests/_worked_examples.py) and the hypothesis comparisons with the
brute-force reference run in test_reference.py. In tie blocks of
thousands to millions of rows the expected values are the hypergeometric
probabilities in exact rational arithmetic (math.comb and fractions).
"""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from skrank import hit_rate_score, reciprocal_rank_score

from .. import _reference as ref

def _exact_hit_rate(m, r, k):
    """1 - P(no relevant row among the first k of m tied rows, r relevant)."""
    return 1 - Fraction(comb(m - r, k), comb(m, k))


def _exact_reciprocal_rank(m, r, k=None):
    """E[1/position of the first relevant row] in one block of m tied rows."""
    total = Fraction(0)
    for j in range(m - r + 1):
        if k is not None and j + 1 > k:
            break
        total += Fraction(comb(m - 1 - j, r - 1), comb(m, r)) / (j + 1)
    return total


def _relative_error(got, exact):
    return abs(float((Fraction(got) - exact) / exact))


@pytest.mark.parametrize("m, r, k", [(2_000_000, 1, 1), (2_000_000, 3, 10),
                                     (1_000_000, 1000, 1), (1_000_000, 50, 40_000)])
def test_hit_rate_in_a_huge_tie_block(m, r, k):
    y = np.zeros(m)
    y[:r] = 1
    got = hit_rate_score(y, np.zeros(m), k=k)
    assert _relative_error(got, _exact_hit_rate(m, r, k)) < 1e-13


@pytest.mark.parametrize("m, r, k", [(20_000, 3, None), (20_000, 2, 700), (3000, 700, None),
                                     (50_000, 1, None)])
def test_reciprocal_rank_in_a_big_tie_block(m, r, k):
    y = np.zeros(m)
    y[-r:] = 1
    got = reciprocal_rank_score(y, np.zeros(m), k=k)
    assert _relative_error(got, _exact_reciprocal_rank(m, r, k)) < 1e-12


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [None, 1, 3])
def test_many_tie_blocks_match_the_brute_force_reference(seed, k):
    rng = np.random.default_rng(seed)
    n = 40
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.integers(0, 3, size=n)
    q = rng.integers(0, 8, size=n)
    rng_blocks = dict(query_id=q, k=k)
    assert reciprocal_rank_score(y, s, **rng_blocks) == pytest.approx(
        ref.ref_reciprocal_rank(y, s, **rng_blocks), rel=1e-12)
    assert hit_rate_score(y, s, **rng_blocks) == pytest.approx(
        ref.ref_hit_rate(y, s, **rng_blocks), rel=1e-12)
