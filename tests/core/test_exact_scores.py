"""Scores float64 can't hold exactly keep their exact order (and bad scores are refused).

The expected rankings come from a plain ``np.lexsort`` on the original
values, or from the brute-force reference (which keeps Python ints, integer
ticks and longdouble scalars, never rounding them to float64).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skrank import (
    average_precision_score,
    hit_rate_score,
    ndcg_score,
    precision_at_k_score,
    rank_decay_weights,
    reciprocal_rank_score,
)
from skrank._core._layout import rank_queries

from .. import _reference as ref

BIG = 2**53


@pytest.mark.parametrize(
    "score",
    [
        [BIG + 1, BIG],  # a list of Python ints, read as int64
        np.array([BIG + 1, BIG], dtype=np.int64),
        np.array([-BIG, -BIG - 1], dtype=np.int64),
        np.array([2**64 - 1, 2**64 - 2], dtype=np.uint64),
        np.array([2**70 + 1, 2**70], dtype=object),  # Python ints past uint64
        [2**70 + 1, 2**70],  # the same as a list (numpy makes it an object array)
        [BIG + 1, 0.5, BIG],  # floats and big ints: numpy would round to float64
        np.array(["2024-05-01T12:00:00.000000100", "2024-05-01T12:00:00"],
                 dtype="datetime64[ns]"),  # 100 ns apart, as when ranking by recency
        np.array([1_000_000_100, 1_000_000_000], dtype="timedelta64[ns]"),
        pd.Series(pd.to_datetime(["2024-05-01 12:00:00.000000100",
                                  "2024-05-01 12:00:00.000000000"])),
    ],
    ids=["list", "int64", "int64-negative", "uint64", "object-int", "list-of-huge-ints",
         "list-mixed", "datetime64", "timedelta64", "pandas-datetime"],
)
def test_scores_beyond_float64_keep_their_order(score):
    y_true = [1, 0] if len(score) == 2 else [1, 0, 0]
    # the first row has the highest score, the last the lowest
    assert precision_at_k_score(y_true, score, k=1) == 1.0
    assert precision_at_k_score(y_true[::-1], score, k=1) == 0.0


def test_the_issue_example():
    assert precision_at_k_score([1, 0], [2**53 + 1, 2**53], k=1) == 1.0


@pytest.mark.skipif(np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps,
                    reason="longdouble is float64 on this platform")
def test_longdouble_scores_keep_their_order():
    one = np.longdouble(1)
    score = np.array([one + np.finfo(np.longdouble).eps, one], dtype=np.longdouble)
    assert precision_at_k_score([1, 0], score, k=1) == 1.0
    assert precision_at_k_score([0, 1], score, k=1) == 0.0


@pytest.mark.parametrize("ties", ["average", "input"])
@pytest.mark.parametrize(
    "dtype, base",
    [(np.int64, 2**62), (np.uint64, 2**63 + 2**62), ("datetime64[ns]", 1_700_000_000 * 10**9)],
)
def test_metrics_match_the_reference_on_exact_scores(ties, dtype, base):
    rng = np.random.default_rng(3)
    n = 14
    y = rng.integers(0, 3, size=n)
    query = rng.integers(0, 3, size=n)
    offsets = rng.integers(0, 5, size=n)  # ties and neighbours 1 tick apart
    if dtype == "datetime64[ns]":
        score = (np.int64(base) + offsets).astype("datetime64[ns]")
    else:
        score = (np.array(base, dtype=dtype) + offsets.astype(dtype)).astype(dtype)
    # float64 would make every score equal: the rounding is what's tested
    assert np.unique(score.astype(np.float64) if dtype != "datetime64[ns]"
                     else score.view(np.int64).astype(np.float64)).shape[0] == 1
    options = dict(query_id=query, ties=ties)
    pairs = [
        (ndcg_score(y, score, k=3, **options), ref.ref_ndcg(y, score, k=3, **options)),
        (average_precision_score(y, score, **options),
         ref.ref_average_precision(y, score, **options)),
        (reciprocal_rank_score(y, score, **options),
         ref.ref_reciprocal_rank(y, score, **options)),
        (hit_rate_score(y, score, k=2, **options), ref.ref_hit_rate(y, score, k=2, **options)),
    ]
    for got, expected in pairs:
        assert got == pytest.approx(expected, rel=1e-12)


def test_rank_weights_follow_the_exact_order():
    score = np.array([BIG, BIG + 2, BIG + 1], dtype=np.int64)
    np.testing.assert_allclose(rank_decay_weights(score, decay=0.5), [0.25, 1.0, 0.5])


def test_float64_scores_take_the_fast_path_unchanged():
    score = np.array([0.5, -0.0, 0.0, 2.0])
    ranked = rank_queries([1, 0, 1, 0], score)
    # -0.0 ties 0.0: rows 1 and 2 form one block, put in descending relevance
    np.testing.assert_array_equal(ranked.order, [3, 0, 2, 1])
    np.testing.assert_array_equal(ranked.block_start, [0, 1, 2])


def test_the_layout_reports_float_values_of_exact_scores():
    score = np.array([BIG + 1, BIG, 7], dtype=np.int64)
    ranked = rank_queries([1, 0, 1], score)
    np.testing.assert_array_equal(ranked.order, [0, 1, 2])
    np.testing.assert_array_equal(ranked.block_start, [0, 1, 2])  # not one block
    np.testing.assert_array_equal(ranked.score, score[[0, 1, 2]].astype(np.float64))


def _descending_key(values):
    """A key whose ascending order is the descending order of ``values``, exactly."""
    if values.dtype.kind in "mM":
        values = values.view(np.int64)
    if values.dtype.kind in "iu":
        return ~values  # bitwise not reverses the order, no overflow
    return -values


DTYPES = ["int64", "uint64", "float32", "float64", "datetime64[ns]"]


@st.composite
def _scores(draw):
    dtype = draw(st.sampled_from(DTYPES))
    n = draw(st.integers(1, 40))
    if dtype == "int64":
        pool = st.integers(-(2**63), 2**63 - 1)
        near = st.integers(-5, 5).map(lambda d: 2**62 + d)
    elif dtype == "uint64":
        pool = st.integers(0, 2**64 - 1)
        near = st.integers(0, 9).map(lambda d: 2**64 - 1 - d)
    elif dtype == "datetime64[ns]":
        pool = st.integers(-(2**62), 2**62)
        near = st.integers(0, 9).map(lambda d: 1_700_000_000 * 10**9 + 100 * d)
    else:
        width = 32 if dtype == "float32" else 64
        pool = st.floats(allow_nan=False, allow_infinity=False, width=width)
        near = st.sampled_from([0.0, -0.0, 1.0, 1.0 + 2**-23, 1.0 + 2**-52])
    values = draw(st.lists(st.one_of(pool, near), min_size=n, max_size=n))
    if dtype == "datetime64[ns]":
        return np.array(values, dtype=np.int64).view("datetime64[ns]")
    return np.array(values, dtype=dtype)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(_scores(), st.data())
def test_the_ranking_equals_a_lexsort_of_the_original_values(score, data):
    n = score.shape[0]
    query = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    expected = np.lexsort((_descending_key(score), query))  # stable: input order on ties
    by_input = rank_queries(np.zeros(n), score, query_id=query, ties="input")
    np.testing.assert_array_equal(by_input.order, expected)
    averaged = rank_queries(np.zeros(n), score, query_id=query)
    ranked_values = score[averaged.order]
    np.testing.assert_array_equal(ranked_values, score[expected])
    np.testing.assert_array_equal(query[averaged.order], query[expected])
    # a tie block starts wherever the query or the exact value changes
    key = _descending_key(score)[expected]
    new = np.r_[True, (key[1:] != key[:-1]) | (query[expected][1:] != query[expected][:-1])]
    np.testing.assert_array_equal(averaged.block_start, np.flatnonzero(new))


# -- scores that can't be ranked -----------------------------------------------------


@pytest.mark.parametrize(
    "score",
    [
        np.array(["2024-01-01", "NaT", "2024-01-02"], dtype="datetime64[ns]"),
        np.array([1, "NaT", 3], dtype="timedelta64[s]"),
        pd.Series(pd.to_datetime(["2024-01-01", None, "2024-01-02"])),
    ],
    ids=["datetime64", "timedelta64", "pandas"],
)
def test_nat_scores_are_refused_like_nan(score):
    with pytest.raises(ValueError, match="`y_score` contains NaT"):
        ndcg_score([1, 0, 1], score)


@pytest.mark.parametrize("argument", ["y_true", "y_score", "sample_weight"])
def test_complex_input_is_a_value_error_not_a_warning(argument):
    inputs = dict(y_true=np.array([1.0, 0.0, 1.0]), y_score=np.array([0.3, 0.2, 0.1]),
                  sample_weight=np.ones(3))
    inputs[argument] = inputs[argument] + 0j
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(ValueError, match=f"`{argument}` must contain real numbers"):
            ndcg_score(inputs["y_true"], inputs["y_score"],
                       sample_weight=inputs["sample_weight"])


@pytest.mark.parametrize("argument", ["y_true", "y_score", "sample_weight"])
def test_masked_entries_are_refused(argument):
    inputs = dict(y_true=np.array([1.0, 0.0, 1.0]), y_score=np.array([0.3, 0.2, 0.1]),
                  sample_weight=np.ones(3))
    inputs[argument] = np.ma.array(inputs[argument], mask=[False, True, False])
    with pytest.raises(ValueError, match=f"`{argument}` is a masked array with masked"):
        ndcg_score(inputs["y_true"], inputs["y_score"], sample_weight=inputs["sample_weight"])


def test_a_masked_array_without_masked_entries_is_its_data():
    y = np.ma.array([1, 0, 1], mask=False)
    s = np.ma.array([0.1, 0.2, 0.3], mask=[False, False, False])
    assert ndcg_score(y, s) == ndcg_score([1, 0, 1], [0.1, 0.2, 0.3])


def test_scores_beyond_the_float64_range_are_refused():
    with pytest.raises(ValueError, match="`y_score` has values beyond the float64 range"):
        ndcg_score([1, 0], np.array([10**400, 1], dtype=object))


def test_python_datetimes_rank_by_their_exact_values():
    import datetime

    later = datetime.datetime(2024, 1, 1, 0, 0, 0, 1)  # one microsecond later
    earlier = datetime.datetime(2024, 1, 1)
    assert precision_at_k_score([1, 0], [later, earlier], k=1) == 1.0
    assert precision_at_k_score([0, 1], [later, earlier], k=1) == 0.0
    with pytest.raises(ValueError, match="`y_score` contains NaT"):
        precision_at_k_score([1, 0], [later, None], k=1)
    aware = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    with pytest.raises(ValueError, match="`y_score` holds datetimes numpy can't convert"):
        precision_at_k_score([1, 0], [aware, aware], k=1)
