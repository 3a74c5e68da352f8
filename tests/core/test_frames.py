"""Series and DataFrames of pandas and polars read through one helper."""

import numpy as np
import pandas as pd
import pytest

from skrank._core import _frames
from skrank._core._frames import column, column_names, pandas_categorical, to_numpy

from .._needs import needs

LIBRARIES = ["pandas", "polars"]


def _series(library, values, dtype=None):
    if library == "pandas":
        return pd.Series(values, dtype=dtype)
    series = needs("polars").Series(values)
    return series if dtype is None else series.cast(dtype)


def _frame(library, data):
    return pd.DataFrame(data) if library == "pandas" else needs("polars").DataFrame(data)


@pytest.fixture(params=[True, False], ids=["narwhals", "no-narwhals"])
def narwhals(request, monkeypatch):
    """Run with narwhals, and as if it were not installed."""
    if not request.param:
        monkeypatch.setattr(_frames, "_narwhals", lambda: None)
    elif _frames._narwhals() is None:
        pytest.skip("narwhals is not installed")
    return request.param


@pytest.mark.parametrize("library", LIBRARIES)
def test_series_become_numpy_arrays(library, narwhals):
    values = np.asarray(to_numpy(_series(library, [3, 1, 2])))
    np.testing.assert_array_equal(values, [3, 1, 2])
    strings = np.asarray(to_numpy(_series(library, ["b", "a"])))
    assert strings.tolist() == ["b", "a"]


@pytest.mark.parametrize("library", LIBRARIES)
def test_frames_become_2d_arrays(library, narwhals):
    frame = _frame(library, {"a": [1.0, 2.0], "b": [3.0, 4.0]})
    np.testing.assert_array_equal(np.asarray(to_numpy(frame)), [[1, 3], [2, 4]])


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_series_comes_back_as_a_numpy_array(library, narwhals):
    # without narwhals (scikit-learn < 1.9 does not install it) as well:
    # the Series itself came back
    values = to_numpy(_series(library, [3, 1, 2]))
    assert isinstance(values, np.ndarray)
    np.testing.assert_array_equal(values, [3, 1, 2])


def test_other_inputs_pass_through():
    values = [1, 2]
    assert to_numpy(values) is values
    array = np.arange(3)
    assert to_numpy(array) is array


@pytest.mark.parametrize("library", LIBRARIES)
def test_column_of_a_frame(library, narwhals):
    frame = _frame(library, {"qid": [7, 7, 8], "x": [0.1, 0.2, 0.3]})
    assert column_names(frame) == ["qid", "x"]
    assert list(column(frame, "qid")) == [7, 7, 8]
    assert column(frame, "user") is None


def test_column_of_something_else_is_none(narwhals):
    assert column_names(np.zeros((2, 2))) is None
    assert column(np.zeros((2, 2)), "qid") is None
    assert column([[1, 2]], 0) is None


def test_a_pandas_categorical_column_stays_categorical():
    frame = pd.DataFrame({"qid": pd.Categorical(["b", "a", "b"], categories=["b", "a"])})
    codes, categories = pandas_categorical(column(frame, "qid"))
    np.testing.assert_array_equal(codes, [0, 1, 0])
    assert categories.tolist() == ["b", "a"]


def test_only_pandas_categoricals_take_the_codes_path():
    pl = needs("polars")
    assert pandas_categorical(pl.Series(["a", "b"]).cast(pl.Categorical)) is None
    assert pandas_categorical(pd.Series(["a", "b"])) is None
    assert pandas_categorical(np.array(["a", "b"])) is None
    assert pandas_categorical(pd.CategoricalIndex(["a", "b"])) is not None


def test_frames_narwhals_refuses_take_the_plain_path():
    # duplicate column names: pandas accepts them, narwhals does not
    frame = pd.DataFrame([[1, 2, 3], [4, 5, 6]], columns=["qid", "a", "a"])
    assert column_names(frame) == ["qid", "a", "a"]
    assert column(frame, "qid").tolist() == [1, 4]
    np.testing.assert_array_equal(np.asarray(to_numpy(frame)), [[1, 2, 3], [4, 5, 6]])


def test_integer_column_names_of_pandas():
    frame = pd.DataFrame(np.arange(6).reshape(3, 2))
    assert column(frame, 0).tolist() == [0, 2, 4]
