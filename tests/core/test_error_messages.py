"""Errors for bad rows say which row (the first one, counting from 0) and what to do.

Each bad value sits at a known position of a small input, so the expected
row number is read off the input itself.
"""

import re
import sys

import numpy as np
import pytest

import skrank
from skrank._core._validation import first_position

from .._needs import needs

Y = [1, 0, 1, 0, 1, 0]
S = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]
Q = ["a", "a", "a", "b", "b", "b"]


def with_bad(values, row, bad):
    values = list(values)
    values[row] = bad
    return values


def test_first_position():
    assert first_position(np.array([False, True, True])) == "row 1"
    assert first_position(np.array([[0, 0, 0], [0, 0, 1]])) == "row 1, column 2"


# ----------------------------------------------- query ids with missing values --

MISSING_QUERY_IDS = {
    "None in a list": with_bad(Q, 4, None),
    "NaN among floats": with_bad([1.0, 1.0, 1.0, 2.0, 2.0, 2.0], 4, np.nan),
    "None in an object array": np.array(with_bad(Q, 4, None), dtype=object),
    "NaT among dates": np.array(
        with_bad(["2024-01-01"] * 3 + ["2024-01-02"] * 3, 4, "NaT"), dtype="datetime64[D]"
    ),
}


@pytest.mark.parametrize("query_id", MISSING_QUERY_IDS.values(), ids=MISSING_QUERY_IDS)
def test_missing_query_id_names_the_first_row_and_what_to_do(query_id):
    with pytest.raises(ValueError) as info:
        skrank.ndcg_score(Y, S, query_id=query_id)
    message = str(info.value)
    assert "`query_id` contains missing values" in message
    assert "the first at row 4:" in message
    assert "Drop those rows from every input, or give them ids of their own." in message


def test_missing_query_id_in_pandas_inputs():
    pd = needs("pandas")
    for ids in [pd.Series(with_bad(Q, 5, None)),
                pd.Series(with_bad(Q, 5, None), dtype="category")]:
        with pytest.raises(ValueError, match="the first at row 5: every row needs"):
            skrank.average_precision_score(Y, S, query_id=ids)


def test_missing_query_id_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ValueError, match="missing values .*, the first at row 2:"):
        skrank.average_precision_score(Y, S, query_id=with_bad(Q, 2, None))


# ------------------------------------------------------- values that are not numbers --

def test_y_true_of_strings_names_the_value_the_row_and_how_to_encode():
    labels = ["no", "no", "yes", "no", "yes", "no"]
    with pytest.raises(ValueError) as info:
        skrank.ndcg_score(labels, S, query_id=Q)
    message = str(info.value)
    assert message.startswith("`y_true` must contain numbers, got 'no' at row 0")
    assert '(y == "relevant").astype(int)' in message


def test_y_true_with_one_string_names_its_row():
    labels = np.array(with_bad(Y, 3, "x"), dtype=object)
    with pytest.raises(ValueError, match=r"got 'x' at row 3 \(dtype object\)"):
        skrank.ndcg_score(labels, S, query_id=Q)


def test_y_score_of_strings_names_the_row():
    with pytest.raises(ValueError, match=r"`y_score` must contain numbers, got 'high' at row 1"):
        skrank.ndcg_score(Y, with_bad(S, 1, "high"), query_id=Q)


# ------------------------------------------------------------- NaN and infinity --

def test_nan_score_names_the_row_and_what_to_do():
    with pytest.raises(ValueError) as info:
        skrank.ndcg_score(Y, with_bad(S, 4, np.nan), query_id=Q)
    message = str(info.value)
    assert message.startswith("`y_score` contains NaN or +infinity (nan at row 4): ")
    assert "drop those rows from every input or fill them" in message


def test_inf_score_in_2d_input_names_row_and_column():
    scores = np.array([S[:3], S[3:]])
    scores[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"\(inf at row 1, column 2\)"):
        skrank.ndcg_score(np.array([Y[:3], Y[3:]]), scores)


def test_nan_relevance_and_weight_name_the_row():
    with pytest.raises(ValueError, match=r"`y_true` contains NaN .*\(nan at row 2\): drop"):
        skrank.ndcg_score(with_bad(Y, 2, np.nan), S, query_id=Q)
    with pytest.raises(ValueError, match=r"`sample_weight` contains NaN .*\(nan at row 5\)"):
        skrank.ndcg_score(Y, S, query_id=Q, sample_weight=with_bad([1.0] * 6, 5, np.nan))


def test_negative_relevance_names_the_row():
    with pytest.raises(ValueError, match=r"non-negative .*got -1 at row 3\."):
        skrank.ndcg_score(with_bad(Y, 3, -1), S, query_id=Q)


# ---------------------------------------------------- metrics that need 0/1 labels --

GRADED = with_bad(Y, 4, 2)


def test_binary_only_metric_is_named_with_the_row_and_a_fix():
    with pytest.raises(ValueError) as info:
        skrank.gauc_score(GRADED, S, query_id=Q)
    message = str(info.value)
    assert "`y_true` must be binary (0/1) for gauc_score, got values such as 2" in message
    assert "(the first at row 4)" in message
    assert "binarise it (e.g. `y_true > 0`)" in message


def test_evaluate_names_the_binary_only_metric():
    with pytest.raises(ValueError, match=re.escape("must be binary (0/1) for gauc, got")):
        skrank.evaluate(GRADED, S, metrics=["ndcg@2", "gauc"], query_id=Q)
    # the graded metrics alone accept the grades
    assert set(skrank.evaluate(GRADED, S, metrics=["ndcg@2", "map"], query_id=Q)) == {"ndcg@2", "map"}
