"""The per-row checks shared by the click estimators (one wording, the first bad row)."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

import skrank.clicks
import skrank.dask
from skrank.clicks import PositionBias, estimate_position_bias
from skrank.clicks._validation import (
    check_clicks,
    check_clip,
    check_one_row_per_position,
    check_positions,
    check_propensity_values,
    click_values,
    list_codes,
    tabulated_positions,
)
from skrank.clicks._position_bias import propensity_per_row


def test_clicks_and_positions_pass_through():
    np.testing.assert_array_equal(check_clicks([True, False, 1]), [1.0, 0.0, 1.0])
    assert check_positions([1.0, 3.0]).dtype == np.int64
    with pytest.raises(ValueError, match=r"`position` must hold whole numbers.*row 1"):
        check_positions([1, np.inf])
    with pytest.raises(ValueError, match="`position` must contain numbers"):
        check_positions(["a", "b"])


def test_duplicate_positions_name_rows_of_a_subset():
    with pytest.raises(ValueError, match="row 30 repeats row 10"):
        check_one_row_per_position(np.array([4, 4]), np.array([2, 2]), rows=[10, 30])
    check_one_row_per_position(np.array([4, 5]), np.array([2, 2]))  # two lists: fine


def test_list_codes_and_clip():
    codes, ids = list_codes(["b", "a", "b"], 3)
    np.testing.assert_array_equal(codes, [1, 0, 1])
    np.testing.assert_array_equal(ids, ["a", "b"])
    assert check_clip(None) is None and check_clip(1) == 1.0
    for bad in (0, -0.1, 1.01, True, "0.5"):
        with pytest.raises(ValueError, match="`clip` must be a number in"):
            check_clip(bad)


def test_propensity_per_row_forms():
    position = np.array([2, 1, 2])
    np.testing.assert_allclose(propensity_per_row(0.5, position), [0.5] * 3)
    np.testing.assert_allclose(propensity_per_row(lambda k: 1 / k, position),
                               [0.5, 1, 0.5])
    np.testing.assert_allclose(propensity_per_row(PositionBias([1, 0.3]), position),
                               [0.3, 1, 0.3])
    with pytest.raises(ValueError, match="one value per position"):
        propensity_per_row(lambda k: np.ones(5), position)
    with pytest.raises(ValueError, match="has 2 values but there are 3 rows"):
        propensity_per_row([1, 1], position)
    with pytest.raises(ValueError, match="must be a PositionBias, a callable"):
        propensity_per_row("high", position)


# Positions are checked before the cast to int64, and nothing allocates by
# the largest position.

def test_positions_beyond_2_53_are_refused_before_the_cast():
    # 1e20 as int64 wraps to -2**63, which passed the checks before
    with pytest.raises(ValueError, match=r"`position` must be at most 2\*\*53.*row 2"):
        check_positions([1.0, 2.0, 1e20])
    with pytest.raises(ValueError, match=r"at most 2\*\*53.*row 0"):
        check_positions(np.array([2**63 + 5, 1], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"at most 2\*\*53 .*got 9007199254740993"):
        check_positions(np.array([1, 2**53 + 1], dtype=np.int64))
    assert check_positions(np.array([2**53], dtype=np.int64))[0] == 2**53
    with pytest.raises(ValueError, match=r"whole numbers.*got nan at row 0"):
        check_positions([np.nan, 1.0])


CRASH = """
import skrank.clicks as sc
for call in (
    lambda: sc.evaluate([1, 0, 1, 0], [1, .5, 1, .5], position=[1, 2, 1e20, 2],
                        list_id=[1, 1, 2, 2], propensity=lambda k: 1 / k),
    lambda: sc.estimate_position_bias([1, 0, 1, 0], [1, 2, 1e20, 2],
                                      list_id=[1, 1, 2, 2], method="randomized",
                                      n_resamples=0),
):
    try:
        call()
    except ValueError as error:
        print("ValueError:", error)
"""


def test_a_float_position_of_1e20_is_a_clear_error_not_an_abort():
    # the abort killed the interpreter: the calls run in a process of their own
    done = subprocess.run([sys.executable, "-c", CRASH], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:  # evaluate, then estimate_position_bias
        assert line.startswith("ValueError: `position` must be at most 2**53")
        assert line.endswith("got 1e+20 at row 2.")


FAR = 2**40  # a table by position would take 8 TiB


def test_a_callable_is_evaluated_on_the_distinct_positions_only():
    seen = []

    def propensity(k):
        seen.append(k.copy())
        return 1 / np.sqrt(k)

    position = np.array([3, FAR, 1, 3])
    got = propensity_per_row(propensity, position)
    np.testing.assert_allclose(got, [3 ** -0.5, 2.0 ** -20, 1.0, 3 ** -0.5])
    assert len(seen) == 1
    np.testing.assert_array_equal(seen[0], [1, 3, FAR])
    with pytest.raises(ValueError, match=r"positive and finite.*got 0.0 at row 1"):
        propensity_per_row(lambda k: np.where(k > 5, 0.0, 1.0), position)


def test_evaluate_with_a_far_position():
    # list 0: clicks at positions 1 and 2**40; list 1: a click at position 2
    click = [1, 0, 1, 1]
    position = [1, 2, FAR, 2]
    result = skrank.clicks.evaluate(
        click, [4, 3, 2, 1], position=position, list_id=[0, 0, 0, 1],
        propensity=lambda k: 1 / np.sqrt(k), metrics=["dcg", "arp"])
    # list 0 ranks its rows 1, 2, 3 (the far click ranked 3rd, weight 2**20);
    # list 1 has one row, its click (weight sqrt(2)) at rank 1
    dcg_0 = 1 / np.log2(2) + 2.0**20 / np.log2(4)
    dcg_1 = np.sqrt(2) / np.log2(2)
    assert result["dcg"] == pytest.approx((dcg_0 + dcg_1) / 2, rel=1e-12)
    assert result["arp"] == pytest.approx((1 + 3 * 2.0**20 + np.sqrt(2)) / 2,
                                          rel=1e-12)


@pytest.mark.parametrize("method", ["randomized", "harvest", "em"])
def test_position_bias_with_a_far_position(method):
    click = [1, 0, 0, 1, 1, 0, 1, 0]
    position = [1, 2, 1, 2, 1, 2, 1, FAR]
    lists = [0, 0, 1, 1, 2, 2, 3, 3]
    query = [0, 0, 0, 0, 1, 1, 1, 1]
    doc = [0, 1, 1, 0, 0, 1, 0, 1]
    ids = dict(list_id=lists, query_id=query, doc_id=doc)
    # no click at position 3: named as when the table could be made
    with warnings.catch_warnings():
        # em's few-impressions warning: these tiny logs are about positions
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(ValueError, match="Position 3 has no evidence"):
            estimate_position_bias(click, position, **ids, method=method,
                                   n_resamples=0)
        near = estimate_position_bias(click, position, **ids, method=method,
                                      n_resamples=0, max_position=2)
        kept = np.array(position) <= 2
        expected = estimate_position_bias(
            np.array(click)[kept], np.array(position)[kept],
            **{name: np.array(value)[kept] for name, value in ids.items()},
            method=method, n_resamples=0)
    np.testing.assert_allclose(near.propensity, expected.propensity, rtol=1e-12)
    np.testing.assert_array_equal(near.n_impressions, [4, 3])


def test_tabulated_positions_stop_where_a_position_must_lack_a_click():
    position, click = np.array([1, 2, 5, FAR]), np.array([1.0, 1.0, 0.0, 0.0])
    shown, clicked, size = tabulated_positions(position, click, FAR)
    # 2 clicks cannot cover positions 1..3: position 3 at the latest lacks one
    assert size == 3
    np.testing.assert_array_equal(shown, [1, 2])
    np.testing.assert_array_equal(clicked, [1.0, 1.0])
    assert tabulated_positions(position, click, 3)[2] == 3


def test_duplicate_positions_found_among_large_positions():
    # codes * (max + 1) + position overflowed int64 here and merged keys
    codes = np.array([0, 1, 2, 1])
    position = np.array([2**53, 2**53 - 1, 2**53, 2**53 - 1])
    with pytest.raises(ValueError, match=r"row 3 repeats row 1.*`position` "
                                         r"9007199254740991"):
        check_one_row_per_position(codes, position)
    check_one_row_per_position(np.array([0, 1, 2]), np.array([2**53, 2**53, 2**53]))
    # 2048 * (2**53 + 1) wraps to 2048 (mod 2**64): the old key made list 2048
    # at position 5 and list 0 at position 2053 one key, a false duplicate
    check_one_row_per_position(np.array([0, 2048, 1]), np.array([2053, 5, 2**53]))


# One rule for propensities: positive and finite, relative to position 1
# (above 1 allowed), whatever form they come in.

ABOVE_ONE = np.array([1.0, 1.25])  # position 2 examined more often than 1


def test_propensities_above_one_are_taken_in_every_form():
    click, score = [0, 1, 1, 0], [1, 2, 2, 1]
    position, query = [1, 2, 1, 2], [0, 0, 1, 1]
    # list 0: the click at position 2 weighs 1 / 1.25 and is ranked 1st;
    # list 1: the click at position 1 weighs 1 and is ranked 1st
    expected = (1 / 1.25 + 1) / 2
    forms = [PositionBias(ABOVE_ONE), lambda k: ABOVE_ONE[k - 1],
             ABOVE_ONE[np.array(position) - 1]]
    for propensity in forms:
        got = skrank.clicks.evaluate(click, score, position=position, list_id=query,
                                     propensity=propensity, metrics=["dcg@1"])
        assert got["dcg@1"] == pytest.approx(expected, rel=1e-12)
    got = skrank.clicks.evaluate(click, score, position=position, list_id=query,
                                 propensity=2.0, metrics=["dcg@1"])
    assert got["dcg@1"] == pytest.approx(0.5, rel=1e-12)
    # the scorer's one number: the click of the model's first row weighs 1 / 2
    from sklearn.linear_model import LinearRegression

    X = np.array([[1.0], [2.0], [3.0]])
    model = LinearRegression().fit(X, [0.0, 1.0, 2.0])  # ranks the third row first
    scorer = skrank.clicks.get_scorer("dcg@1", propensity=2.0)
    assert scorer(model, X, [0, 0, 1], list_id=[5, 5, 5], position=[1, 2, 3]) == 0.5
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match=r"`propensity` must be positive and "
                                             r"finite .*, got .*at row 1"):
            propensity_per_row(np.array([1.0, bad]), np.array([1, 2]))
        with pytest.raises(ValueError, match=r"must be positive and finite"):
            skrank.clicks.get_scorer("dcg@1", propensity=bad)
        with pytest.raises(ValueError, match=r"must be positive and finite"):
            PositionBias([1.0, bad])


def test_dask_names_a_bad_propensity_by_the_frames_index():
    dd = pytest.importorskip("dask.dataframe")
    import dask
    import pandas as pd

    rng = np.random.default_rng(0)
    n_lists = 40
    size = 3
    rows = pd.DataFrame({
        "qid": np.repeat(np.arange(n_lists), size),
        "position": np.tile(np.arange(1, size + 1), n_lists),
        "click": rng.integers(0, 2, n_lists * size),
        "score": rng.random(n_lists * size),
    })
    rows["propensity"] = 1.5 / rows["position"]  # 1.5 at position 1 is fine
    rows = rows.sample(frac=1.0, random_state=1)  # lists spread over partitions
    rows.index = 1000 + 7 * np.arange(rows.shape[0])  # labels unlike any row number
    bad_label = rows.index[rows["qid"] == 17][1]
    rows.loc[bad_label, "propensity"] = -0.5
    df = dd.from_pandas(rows, npartitions=4, sort=False)
    with dask.config.set(scheduler="sync"):
        with pytest.raises(ValueError, match="must be positive and finite") as error:
            skrank.dask.evaluate_clicks(df, list_id="qid", propensity="propensity")
    assert f"got -0.5 at index {bad_label} of `df`, query 17." in str(error.value)
    with pytest.raises(ValueError, match="must be positive and finite") as error:
        skrank.clicks.evaluate(rows["click"], rows["score"], position=rows["position"],
                               list_id=rows["qid"], propensity=rows["propensity"])
    position = int(np.flatnonzero(rows.index == bad_label)[0])
    assert f"at row {position}." in str(error.value)


def test_query_group_ranker_positions_are_checked_before_the_cast():
    # the ranker adapters' own check of positions had the same hole as clicks'
    from skrank.model_selection._ranker_libraries import _check_position

    with pytest.raises(ValueError, match=r"at most 2\*\*53.*at row 1"):
        _check_position(np.array([1.0, 1e20]), 2, "lightgbm")
    with pytest.raises(ValueError, match=r"at most 2\*\*53.*at row 0"):
        _check_position(np.array([2**63 + 1, 2], dtype=np.uint64), 2, "xgboost")
    np.testing.assert_array_equal(_check_position([3, 1], 2, "lightgbm"), [3, 1])


@pytest.mark.parametrize("doc_id, message", [
    ([0, 1, None, 1], r"`doc_id` contains missing values .* the first at row 2: every "
                      r"row needs the id of its document"),
    ([0, 1, 1], r"`doc_id` has 3 entries but there are 4 rows"),
])
def test_a_bad_doc_id_is_named_doc_id(doc_id, message):
    # it was reported as a bad `query_id`
    with pytest.raises(ValueError, match=message):
        estimate_position_bias([1, 0, 1, 1], [1, 2, 1, 2], list_id=[0, 0, 1, 1],
                               doc_id=doc_id, method="harvest", n_resamples=0)
    with pytest.raises(ValueError, match=message):
        list_codes(doc_id, 4, name="doc_id")


def test_a_missing_slate_id_is_named_slate_id():
    from skrank.clicks import slate_estimate

    with pytest.raises(ValueError, match=r"`slate_id` contains missing values .* "
                                         r"row 1: every row needs the id of its slate"):
        slate_estimate([1, 0], slate_id=["a", None], slot=[1, 1],
                       behavior_propensity=[0.5, 0.5],
                       evaluation_propensity=[0.5, 0.5])


def test_list_codes_are_the_ranks_of_the_distinct_ids():
    # the dense table (short integer ranges, factorised strings) and the sort
    # (wide integer ranges) both give np.unique's inverse and values
    rng = np.random.default_rng(0)
    for trial in range(200):
        n = int(rng.integers(1, 40))
        ids = [rng.integers(-5, 5, n), rng.integers(0, 10**12, n),
               np.array([f"q{x}" for x in rng.integers(0, 7, n)], dtype=object),
               rng.integers(0, 3, n).astype(np.uint8)][trial % 4]
        codes, labels = list_codes(ids, n)
        distinct, inverse = np.unique(ids, return_inverse=True)
        np.testing.assert_array_equal(codes, inverse.reshape(-1))
        assert list(labels) == list(distinct)
        assert codes.dtype == np.intp


@pytest.mark.parametrize("dtype", [bool, np.int8, np.uint8, np.int64, np.uint64,
                                   np.float16, np.float32, np.float64])
def test_click_values_keep_their_dtype_and_refuse_the_first_bad_row(dtype):
    # integers are checked by their extremes, floats by counting ones: each
    # way accepts 0/1 as given (no copy) and names the first bad row
    good = np.array([0, 1, 1, 0], dtype=dtype)
    assert click_values(good) is good
    np.testing.assert_array_equal(check_clicks(good), [0.0, 1.0, 1.0, 0.0])
    if dtype is bool:
        return
    bad_values = [2] + ([-1] if np.dtype(dtype).kind in "if" else [])
    if np.dtype(dtype).kind == "f":
        bad_values += [0.5, np.nan, np.inf, -0.25]
    for bad in bad_values:
        values = np.array([0, 1, 0, 1], dtype=dtype)
        values[2] = bad
        with pytest.raises(ValueError, match=r"`click` must be 0 or 1.*at row 2"):
            click_values(values)
        with pytest.raises(ValueError, match=r"`click` must be 0 or 1.*at row 2"):
            check_clicks(values)
    negative_zero = np.array([-0.0, 1.0])
    assert click_values(negative_zero) is negative_zero


@pytest.mark.parametrize("dtype", [np.int64, np.uint16, np.float64])
def test_positions_are_checked_by_their_extremes_and_name_the_first_bad_row(dtype):
    np.testing.assert_array_equal(check_positions(np.array([3, 1, 2], dtype=dtype)),
                                  [3, 1, 2])
    with pytest.raises(ValueError, match=r"must be 1 or more.*got 0(\.0)? at row 1"):
        check_positions(np.array([2, 0, 3, 0], dtype=dtype))
    if np.dtype(dtype).itemsize == 8:
        with pytest.raises(ValueError, match=r"at most 2\*\*53.*at row 2"):
            check_positions(np.array([2, 1, 2.0**60, 2.0**61]).astype(dtype))


def test_propensity_values_refuse_nan_inf_and_non_positive_at_their_row():
    np.testing.assert_array_equal(check_propensity_values([0.5, 2.0]), [0.5, 2.0])
    for bad in (np.nan, np.inf, -np.inf, 0.0, -1.0):
        values = np.array([1.0, 0.5, 0.25])
        values[1] = bad
        with pytest.raises(ValueError, match=r"positive and finite.*at row 1"):
            check_propensity_values(values)


def test_position_bias_looks_up_each_position_and_refuses_the_first_beyond():
    theta = np.array([1.0, 0.4, 0.3, 0.05])
    position = np.array([4, 1, 2, 3, 3, 1])
    got = PositionBias(theta)(position)
    assert got.tolist() == [theta[p - 1] for p in position]
    with pytest.raises(ValueError, match="covers positions 1..4.*has 5 at row 2"):
        PositionBias(theta)([1, 2, 5, 6])


@pytest.mark.parametrize("far", [False, True])
def test_propensities_of_some_rows_are_those_rows_of_every_row(far):
    # only the clicked rows' propensities are looked up; each form gives
    # those rows' values, and still checks (and names) every row
    position = np.array([3, 1, 2, 3, 1, 2, 2])
    if far:  # positions too sparse for a table: the sort path of a callable
        position = position * 10**9
    theta = {int(p): 1.0 / (i + 2) for i, p in enumerate(np.unique(position))}
    forms = [0.25, lambda k: np.array([theta[int(p)] for p in k]),
             np.array([theta[int(p)] for p in position])]
    if not far:
        forms.append(PositionBias([theta[1], theta[2], theta[3]]))
    rows = np.array([0, 2, 5])
    for form in forms:
        every = propensity_per_row(form, position)
        got = propensity_per_row(form, position, rows)
        assert got.dtype == np.float64 and got.tolist() == every[rows].tolist()
        assert propensity_per_row(form, position, rows[:0]).shape == (0,)
    bad = {int(p): (-1.0 if p == position[4] else 1.0) for p in position}
    # rows 1 and 4 (not among rows) have a bad value: the first is named
    for form, first in [(lambda k: np.array([bad[int(p)] for p in k]), 1), (0.0, 0),
                        (np.nan, 0), (np.where(position == position[4], -1.0, 1.0), 1)]:
        with pytest.raises(ValueError, match=fr"must be positive and finite.*row {first}\."):
            propensity_per_row(form, position, rows)
    if not far:
        with pytest.raises(ValueError, match="covers positions 1..2.*has 3 at row 0"):
            propensity_per_row(PositionBias([1.0, 0.5]), position, rows[1:])
