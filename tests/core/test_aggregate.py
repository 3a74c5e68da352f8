"""no_relevant policies, per-query output and the empty-mean warning."""

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from skrank import QueryValues, average_precision_score, gauc_score, ndcg_score

# query 1: AP 1 (relevant row first); query 2: no relevant row; query 3: AP 1/2
Y = [1, 0, 0, 0, 0, 1]
S = [2, 1, 2, 1, 2, 1]
Q = [1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize(
    "policy, expected",
    [("skip", (1 + 1 / 2) / 2), ("zero", (1 + 0 + 1 / 2) / 3), ("one", (1 + 1 + 1 / 2) / 3)],
)
def test_no_relevant_policies(policy, expected):
    assert average_precision_score(Y, S, query_id=Q, no_relevant=policy) == pytest.approx(
        expected
    )


def test_per_query_output():
    result = average_precision_score(Y, S, query_id=Q, aggregate=None)
    assert isinstance(result, QueryValues)
    np.testing.assert_array_equal(result.query_id, [1, 2, 3])
    np.testing.assert_allclose(result.value, [1, np.nan, 1 / 2])
    np.testing.assert_allclose(result.weight, [1, 1, 1])


def test_weighted_mean_uses_mean_row_weight_per_query():
    weight = [1, 3, 5, 5, 1, 1]  # query weights 2, 5, 1
    expected = (2 * 1 + 1 * 1 / 2) / (2 + 1)
    assert average_precision_score(
        Y, S, query_id=Q, sample_weight=weight
    ) == pytest.approx(expected)


def test_nothing_left_warns_and_returns_nan():
    with pytest.warns(UndefinedMetricWarning, match="No query is left"):
        value = ndcg_score([0, 0, 0], [1, 2, 3], query_id=[1, 1, 2])
    assert np.isnan(value)
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(gauc_score([1, 1, 0], [1, 2, 3], query_id=[1, 1, 2]))


def test_zero_weights_everywhere_warn():
    with pytest.warns(UndefinedMetricWarning):
        value = ndcg_score([1, 0], [1, 2], sample_weight=[0, 0])
    assert np.isnan(value)


@pytest.mark.parametrize(
    "weights",
    [[1e308, 1e308, 1e300, 1e300], [5e-324, 5e-324, 1e-323, 1e-323],
     [1e308, 1e308, 5e-324, 5e-324], [1.7e308, 1.7e308, 1.7e308, 1.7e308]],
)
def test_extreme_sample_weights_give_the_exact_weighted_mean(weights):
    from fractions import Fraction

    # query 1 (rows 1-2) scores 1, query 2 (rows 3-4) scores 0 at k=1
    y, s, q = [1, 0, 0, 1], [2, 1, 2, 1], [1, 1, 2, 2]
    w1, w2 = (Fraction(weights[0]) + Fraction(weights[1])) / 2, (
        Fraction(weights[2]) + Fraction(weights[3])) / 2
    expected = float(w1 / (w1 + w2))
    from skrank import precision_at_k_score

    got = precision_at_k_score(y, s, k=1, query_id=q, sample_weight=weights)
    assert got == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("weight", [1e308, 5e-324, 1e-200])
def test_gauc_with_extreme_weights_equals_unit_weights(weight):
    y, s, q = [1, 0, 1, 0, 1, 0, 0], [2, 1, 1, 2, 3, 3, 1], [1, 1, 2, 2, 3, 3, 3]
    expected = gauc_score(y, s, query_id=q)
    assert gauc_score(y, s, query_id=q, sample_weight=[weight] * 7) == pytest.approx(
        expected, rel=1e-15)


# -- mergeable partial means (what skrank.dask reduces over partitions) ------

from skrank._core._aggregate import (  # noqa: E402
    PartialMean,
    finish_mean,
    merge_partial_means,
    partial_mean,
)


@pytest.mark.parametrize("seed", range(5))
def test_partial_means_of_any_split_finish_to_the_weighted_mean(seed):
    rng = np.random.default_rng(seed)
    values = rng.random(50)
    values[rng.random(50) < 0.2] = np.nan
    weights = rng.uniform(0.1, 5, 50)
    keep = ~np.isnan(values)
    expected = np.sum(values[keep] * weights[keep]) / np.sum(weights[keep])
    cuts = np.sort(rng.choice(np.arange(1, 50), size=4, replace=False))
    parts = [partial_mean(v, w) for v, w in zip(np.split(values, cuts),
                                                np.split(weights, cuts))]
    parts.append(partial_mean(np.array([]), np.array([])))  # an empty partition
    assert finish_mean(merge_partial_means(parts)) == pytest.approx(expected, abs=1e-15)
    nested = merge_partial_means([merge_partial_means(parts[:2]),
                                  merge_partial_means(parts[2:])])
    assert finish_mean(nested) == pytest.approx(expected, abs=1e-15)


def test_merging_extreme_weights_neither_overflows_nor_underflows():
    # (1 * 1e308 + 0 * 1e308) / 2e308 and (1 * 5e-324 + 3 * 5e-324) / 1e-323
    big = [partial_mean(np.array([1.0]), np.array([1e308])),
           partial_mean(np.array([0.0]), np.array([1e308]))]
    assert finish_mean(merge_partial_means(big)) == 0.5
    tiny = [partial_mean(np.array([1.0]), np.array([5e-324])),
            partial_mean(np.array([3.0]), np.array([5e-324]))]
    assert finish_mean(merge_partial_means(tiny)) == 2.0


def test_policies_error_and_nothing_left_in_the_finishing_step():
    undefined = np.array([False, True, True])
    values = np.array([0.5, 0.0, 0.0])
    ones = np.ones(3)
    parts = [partial_mean(values, ones, undefined=undefined, query_ids=["c", "b", "a"],
                          no_relevant="error"),
             partial_mean(values, ones, undefined=undefined, query_ids=["f", "e", "d"],
                          no_relevant="error")]
    message = "4 queries have no relevant row.*'a', 'b', 'd', 'e'"
    with pytest.raises(ValueError, match=message):
        finish_mean(merge_partial_means(parts))
    one = partial_mean(values, ones, undefined=undefined, no_relevant="one")
    assert finish_mean(one) == pytest.approx(2.5 / 3)
    with pytest.warns(UndefinedMetricWarning, match="No query is left"):
        assert np.isnan(finish_mean(merge_partial_means([
            partial_mean(values, ones, undefined=np.ones(3, bool)),
            PartialMean(0.0, 0.0, 0.0, 0)])))


def test_per_query_output_is_not_read_as_a_stacked_array():
    """np.asarray never stacks ids, values and weights into a (3, n) array (issue 34, C5)."""
    result = ndcg_score([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], query_id=[1, 1, 2, 2],
                        aggregate=None)
    for read in (np.asarray, np.array, lambda r: np.mean(r)):
        with pytest.raises(TypeError, match=r"\.value.*column_stack"):
            read(result)
    # what the message offers works: the values, or the fields as columns
    ids, values, weights = result
    np.testing.assert_array_equal(np.asarray(result.value), values)
    np.testing.assert_array_equal(np.column_stack(result)[:, 0], ids)
    assert np.column_stack(result).shape == (2, 3)
    pd = pytest.importorskip("pandas")
    with pytest.raises((TypeError, ValueError)):  # pandas 2.0: "must be 1-dimensional"
        pd.Series(result)  # never a Series of length 3 holding 2 values
    assert pd.DataFrame(result._asdict()).columns.tolist() == ["query_id", "value", "weight"]


@pytest.mark.parametrize("shape", [(0,), (7,), (100_000,), (100_000, 3)])
def test_vector_dot_is_the_sum_of_products(shape):
    # a @ b without BLAS (whose threads spin after a long product): the
    # exact sum of products (math.fsum) to float64 rounding
    import math

    from skrank._core._aggregate import vector_dot

    rng = np.random.default_rng(len(shape))
    a = rng.normal(size=shape[0])
    b = rng.normal(size=shape)
    got = np.asarray(vector_dot(a, b))
    assert got.shape == shape[1:]
    columns = b.T if b.ndim == 2 else [b]
    expected = np.array([math.fsum(a * column) for column in columns]).reshape(shape[1:])
    scale = np.abs(a) @ np.abs(b) if shape[0] else 0.0
    assert np.all(np.abs(got - expected) <= 1e-12 * np.maximum(scale, 1.0))
