"""The per-row checks shared by the click estimators (one wording, the first bad row)."""

import numpy as np
import pytest

from skrank.clicks import PositionBias
from skrank.clicks._validation import (
    check_clicks,
    check_clip,
    check_one_row_per_position,
    check_positions,
    list_codes,
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
