"""correct_p_values(): stored vectors of statsmodels' multipletests, hand-worked
cases, NaN kept and not counted, and the corrections through compare()."""

import numpy as np
import pytest

from skrank import compare
from skrank.stats import correct_p_values

NAN = float("nan")

# Made with statsmodels 0.15.0 (scipy 1.17.1, numpy 2.4.6) in a side venv:
#   from statsmodels.stats.multitest import multipletests
#   ok = ~np.isnan(p); out = np.full(p.shape, np.nan)
#   out[ok] = multipletests(p[ok], method=m)[1]
# for m in "holm", "bonferroni", "fdr_bh", "fdr_by" (statsmodels does not skip
# NaN, so NaN entries were left out and put back). "spread" is the fifteen
# p-values of Benjamini & Hochberg's (1995) worked example.
CORRECTION_CASES = {
    "plain": ([0.01, 0.04, 0.03, 0.2, 0.5, 0.001, 0.9, 0.049], {
        "holm": [0.07, 0.2, 0.18, 0.6000000000000001, 1.0, 0.008, 1.0, 0.2],
        "bonferroni": [0.08, 0.32, 0.24, 1.0, 1.0, 0.008, 1.0, 0.392],
        "bh": [0.04, 0.0784, 0.0784, 0.26666666666666666, 0.5714285714285714, 0.008,
               0.9, 0.0784],
        "by": [0.10871428571428571, 0.21308, 0.21308, 0.7247619047619048, 1.0,
               0.02174285714285714, 1.0, 0.21308],
    }),
    "ties": ([0.02, 0.02, 0.02, 0.04, 0.01, 0.04, 0.3, 0.3], {
        "holm": [0.14, 0.14, 0.14, 0.16, 0.08, 0.16, 0.6, 0.6],
        "bonferroni": [0.16, 0.16, 0.16, 0.32, 0.08, 0.32, 1.0, 1.0],
        "bh": [0.04, 0.04, 0.04, 0.05333333333333334, 0.04, 0.05333333333333334, 0.3,
               0.3],
        "by": [0.10871428571428571, 0.10871428571428571, 0.10871428571428571,
               0.14495238095238094, 0.10871428571428571, 0.14495238095238094,
               0.8153571428571428, 0.8153571428571428],
    }),
    "zero_one": ([0.0, 1.0, 0.5, 0.0, 0.03, 1.0], {
        "holm": [0.0, 1.0, 1.0, 0.0, 0.12, 1.0],
        "bonferroni": [0.0, 1.0, 1.0, 0.0, 0.18, 1.0],
        "bh": [0.0, 1.0, 0.75, 0.0, 0.06, 1.0],
        "by": [0.0, 1.0, 1.0, 0.0, 0.14699999999999996, 1.0],
    }),
    "nan": ([NAN, 0.01, 0.2, NAN, 0.04, 0.04], {
        "holm": [NAN, 0.04, 0.2, NAN, 0.12, 0.12],
        "bonferroni": [NAN, 0.04, 0.8, NAN, 0.16, 0.16],
        "bh": [NAN, 0.04, 0.2, NAN, 0.05333333333333334, 0.05333333333333334],
        "by": [NAN, 0.08333333333333331, 0.41666666666666663, NAN, 0.1111111111111111,
               0.1111111111111111],
    }),
    "single": ([0.03], {
        "holm": [0.03], "bonferroni": [0.03], "bh": [0.03], "by": [0.03],
    }),
    "spread": ([0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
                0.324, 0.4262, 0.5719, 0.6528, 0.759, 1.0], {
        "holm": [0.0015, 0.0056, 0.0247, 0.11399999999999999, 0.2211,
                 0.27799999999999997, 0.27799999999999997, 0.27799999999999997,
                 0.32130000000000003, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        "bonferroni": [0.0015, 0.006, 0.0285, 0.1425, 0.3015, 0.417, 0.447, 0.516,
                       0.6885, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        "bh": [0.0015, 0.003, 0.0095, 0.035625, 0.0603, 0.06385714285714286,
               0.06385714285714286, 0.0645, 0.07650000000000001, 0.48600000000000004,
               0.5811818181818182, 0.7148749999999999, 0.7532307692307693,
               0.8132142857142857, 1.0],
        "by": [0.004977343489843491, 0.009954686979686982, 0.03152317543567544,
               0.11821190788378289, 0.20008920829170831, 0.21189262285333715,
               0.21189262285333715, 0.2140257700632701, 0.253844517982018, 1.0, 1.0,
               1.0, 1.0, 1.0, 1.0],
    }),
}
CASES = [(case, method) for case in CORRECTION_CASES for method in
         ("holm", "bonferroni", "bh", "by")]


@pytest.mark.parametrize("case, method", CASES, ids=[f"{c}-{m}" for c, m in CASES])
def test_equals_statsmodels_multipletests(case, method):
    p, expected = CORRECTION_CASES[case]
    got = correct_p_values(p, method)
    assert isinstance(got, np.ndarray) and got.shape == (len(p),)
    np.testing.assert_allclose(got, expected[method], rtol=0, atol=1e-12)


def test_benjamini_hochberg_by_hand():
    # sorted 0.01, 0.02, 0.03, 0.5 with m = 4: p * m / rank = 0.04, 0.04, 0.04,
    # 0.5; then the running minimum from the largest down changes nothing
    np.testing.assert_allclose(correct_p_values([0.03, 0.5, 0.01, 0.02], "bh"),
                               [0.04, 0.5, 0.04, 0.04], rtol=0, atol=1e-15)
    # a step-up: 0.04 * 2 / 1 = 0.08 is lowered to the next one's 0.045 * 2 / 2
    np.testing.assert_allclose(correct_p_values([0.045, 0.04], "bh"), [0.045, 0.045],
                               rtol=0, atol=1e-15)


def test_benjamini_yekutieli_is_bh_times_the_harmonic_sum():
    p = [0.001, 0.01, 0.02, 0.3, 0.04]
    c = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5
    np.testing.assert_allclose(correct_p_values(p, "by"),
                               np.minimum(1, c * correct_p_values(p, "bh")),
                               rtol=0, atol=1e-15)


def test_nan_is_kept_and_not_counted():
    p = [NAN, 0.02, NAN, 0.01]  # m = 2, not 4
    np.testing.assert_allclose(correct_p_values(p, "bonferroni"), [NAN, 0.04, NAN, 0.02])
    np.testing.assert_allclose(correct_p_values(p, "holm"), [NAN, 0.02, NAN, 0.02])
    np.testing.assert_allclose(correct_p_values(p, "bh"), [NAN, 0.02, NAN, 0.02])
    for method in ("holm", "bonferroni", "bh", "by", None):
        assert np.isnan(correct_p_values([NAN, NAN], method)).all()
        assert correct_p_values([], method).shape == (0,)


def test_none_returns_a_copy_and_the_input_is_not_modified():
    p = np.array([0.2, 0.01, NAN])
    out = correct_p_values(p, None)
    np.testing.assert_array_equal(out, p)
    out[0] = 1.0
    assert p[0] == 0.2
    correct_p_values(p, "bh")
    np.testing.assert_array_equal(p, [0.2, 0.01, NAN])


def test_default_is_holm():
    np.testing.assert_allclose(correct_p_values([0.01, 0.04, 0.03]), [0.03, 0.06, 0.06])


@pytest.mark.parametrize("p_values, correction, message", [
    ([0.1, 0.2], "fdr_bh", "`correction`"),
    ([0.1, 0.2], "BH", "`correction`"),
    ([0.1, 1.2], "holm", r"`p_values` must lie in \[0, 1\]"),
    ([-0.1, 0.2], "bh", "`p_values`"),
    ([np.inf, 0.2], "by", "`p_values`"),
    ([[0.1, 0.2]], "holm", "`p_values` must be one-dimensional"),
    (0.1, "holm", "`p_values` must be one-dimensional"),
    (["a", 0.2], "holm", "`p_values` must be an array-like of numbers"),
])
def test_bad_input_names_the_parameter(p_values, correction, message):
    with pytest.raises(ValueError, match=message):
        correct_p_values(p_values, correction)


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_compare_corrects_over_the_pairs_of_each_metric(correction):
    rng = np.random.default_rng(3)
    query = np.repeat(np.arange(15), 5)
    y = rng.integers(0, 2, size=query.size)
    systems = {name: y * shift + rng.normal(size=query.size)
               for name, shift in zip("ABCD", [0.0, 0.2, 0.5, 1.0])}
    result = compare(y, systems, query_id=query, metrics=["map", "mrr"],
                     n_resamples=300, random_state=0, correction=correction)
    columns = result.tests.columns
    for metric in ["map", "mrr"]:
        rows = [dict(zip(columns, row)) for row in result.tests.rows
                if row[0] == metric]
        assert len(rows) == 6
        for raw in ("p_randomization", "p_t_test"):
            np.testing.assert_allclose(
                [row[f"{raw}_corrected"] for row in rows],
                CORRECT_BY_HAND[correction]([row[raw] for row in rows]),
                rtol=0, atol=1e-15)
    assert f"({correction})" in repr(result)


def _step_up_by_hand(p, factor=1.0):
    """For each p: min over p_j >= p of min(1, factor * m * p_j / rank_j)."""
    m = len(p)
    ordered = sorted(p)
    out = []
    for value in p:
        candidates = [min(1.0, factor * m * q / (rank + 1))
                      for rank, q in enumerate(ordered) if q >= value]
        out.append(min(candidates))
    return out


CORRECT_BY_HAND = {
    "bh": _step_up_by_hand,
    "by": lambda p: _step_up_by_hand(p, sum(1 / j for j in range(1, len(p) + 1))),
}


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_click_compare_and_compare_by_take_the_new_corrections(correction):
    from skrank import clicks

    rng = np.random.default_rng(8)
    n = 60  # 20 lists of three rows, two lists per query
    click = rng.integers(0, 2, size=n)
    position = np.tile([1, 2, 3], 20)
    systems = {name: rng.normal(size=n) for name in "abc"}
    result = clicks.compare(click, systems, position=position,
                            list_id=np.repeat(np.arange(20), 3),
                            query_id=np.repeat(np.arange(10), 6), propensity=1.0,
                            metrics=["precision@1"], n_resamples=200, random_state=0,
                            correction=correction)
    np.testing.assert_allclose(result.tests.column("p_t_test_corrected"),
                               CORRECT_BY_HAND[correction](
                                   result.tests.column("p_t_test")),
                               rtol=0, atol=1e-15)
    query = np.repeat(np.arange(12), 5)
    y = rng.integers(0, 2, size=query.size)
    segment = np.where(query < 6, "x", "y")
    by = compare(y, systems=dict(zip("abc", rng.normal(size=(3, query.size)))),
                 query_id=query, metrics=["mrr"], by=segment, n_resamples=100,
                 random_state=0, correction=correction)
    raw = by.tests.column("p_t_test")  # six rows: two segments x three pairs
    assert len(raw) == 6
    np.testing.assert_allclose(by.tests.column("p_t_test_corrected"),
                               CORRECT_BY_HAND[correction](raw), rtol=0, atol=1e-15)
