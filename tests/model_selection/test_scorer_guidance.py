"""Scorers: polars inputs, error texts that name the next step, tools that cut queries."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    cross_validate,
    learning_curve,
)
from sklearn.pipeline import make_pipeline

import skrank
from skrank import average_precision_score, get_scorer, ndcg_score

from .._needs import needs

pl = needs("polars")

RNG = np.random.default_rng(5)
N_QUERIES, SIZE = 24, 10
QID = np.repeat(np.arange(N_QUERIES), SIZE)
X = RNG.normal(size=(QID.shape[0], 3))
Y = (X[:, 0] + RNG.normal(scale=0.7, size=QID.shape[0]) > 0.6).astype(int)
CV = GroupKFold(3)


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _frame(library):
    data = {"a": X[:, 0], "b": X[:, 1], "c": X[:, 2], "qid": QID}
    return pd.DataFrame(data) if library == "pandas" else pl.DataFrame(data)


def _drop_qid(model):
    return make_pipeline(
        ColumnTransformer([("qid", "drop", ["qid"])], remainder="passthrough"), model
    )


def _by_hand(metric, **options):
    """Per-fold metric on a clone fitted on the training rows (numpy ids)."""
    scores = []
    for train, test in CV.split(X, Y, groups=QID):
        model = LogisticRegression().fit(X[train], Y[train])
        score = model.predict_proba(X[test])[:, 1]
        scores.append(metric(Y[test], score, query_id=QID[test], **options))
    return np.array(scores)


# -- polars everywhere a scorer takes ids ------------------------------------------
@pytest.mark.parametrize("kind", ["int", "str", "category"])
def test_routed_polars_ids_score_like_numpy_ids(kind, routing):
    ids = pl.Series(QID, dtype=pl.Int64)
    if kind != "int":
        ids = pl.Series([f"q{i}" for i in QID])
        ids = ids if kind == "str" else ids.cast(pl.Categorical)
    result = cross_validate(LogisticRegression(), X, Y, cv=CV, scoring=get_scorer("map"),
                            params={"query_id": ids, "groups": QID}, error_score="raise")
    np.testing.assert_allclose(result["test_score"], _by_hand(average_precision_score))


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_the_qid_column_of_a_frame_routing_off(library):
    X_frame = _frame(library)
    result = cross_validate(_drop_qid(LogisticRegression()), X_frame, Y, cv=CV,
                            groups=QID, scoring=get_scorer("ndcg@5"), error_score="raise")
    np.testing.assert_allclose(result["test_score"], _by_hand(ndcg_score, k=5))


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_a_frame_without_the_column_is_named_in_the_message(library):
    model = LogisticRegression().fit(X, Y)
    X_frame = _frame(library).drop("qid") if library == "polars" else _frame(
        library).drop(columns="qid")
    with pytest.raises(ValueError, match="X has no column 'qid'"):
        get_scorer("map")(model, X_frame, Y)


# -- missing ids: the message gives the next step ----------------------------------
def _message(scorer, X_=X):
    model = LogisticRegression().fit(X, Y)
    with pytest.raises(ValueError) as info:
        scorer(model, X_, Y)
    return str(info.value)


def test_routing_on_the_message_does_not_say_to_turn_it_on(routing):
    message = _message(get_scorer("map"))
    assert "set_config" not in message
    assert "metadata routing (already on): pass the ids with the data" in message
    assert "params={'query_id': qid, 'groups': qid}" in message
    assert ".fit(X, y, query_id=qid, groups=qid)" in message


def test_routing_on_with_the_request_unset_says_to_request(routing):
    message = _message(get_scorer("map").set_score_request(query_id=False))
    assert "set_config" not in message
    assert "scorer.set_score_request(query_id=True)" in message


def test_routing_on_with_an_alias_names_the_alias(routing):
    message = _message(get_scorer("map").set_score_request(query_id="groups"))
    assert "params={'groups': qid}" in message
    assert ".fit(X, y, groups=qid)" in message


def test_routing_off_the_message_says_to_turn_it_on():
    message = _message(get_scorer("map"))
    assert "sklearn.set_config(enable_metadata_routing=True)" in message
    assert "ONE ranked list" in message


def test_under_permutation_importance_the_message_points_to_skrank():
    # scikit-learn's permutation_importance routes no metadata; the scorer
    # cannot tell it from any other call, and its message names the fix
    model = LogisticRegression().fit(X, Y)
    with pytest.raises(ValueError) as info:
        permutation_importance(model, X, Y, scoring=get_scorer("map"), n_repeats=1,
                               random_state=0)
    message = str(info.value)
    assert "permutation_importance cannot route metadata" in message
    assert "use skrank.permutation_importance(model, X, y, query_id=qid" in message


def test_elsewhere_the_message_still_mentions_permutation_importance():
    message = _message(get_scorer("map"))
    assert "use skrank.permutation_importance(" in message


# -- tools that cut queries apart: documented, and no warning from the stack ------
# The scorer sees only the rows and ids it is handed, so these tools are not
# detected (skrank reads no other library's frames); the user guide says what
# to use instead of each.
GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "user_guide"
         / "model_selection.rst").read_text()


def _section(title):
    start = GUIDE.index(title + "\n" + "-" * len(title))
    end = GUIDE.find("\n-----", start + 2 * len(title) + 2)
    return GUIDE[start:end if end != -1 else None]


@pytest.mark.parametrize("tool, fix", [
    ("``learning_curve``", "keep ``shuffle=False``"),
    ("``HalvingGridSearchCV``", 'resource="n_estimators"'),
    ("``sklearn.inspection.permutation_importance``", ":func:`skrank.permutation_importance`"),
    ("``permutation_test_score``", "groups=qid"),
    ("``KFold``", "``GroupKFold``"),
])
def test_the_user_guide_names_each_tool_that_cuts_queries_and_its_fix(tool, fix):
    section = _section("Tools that cut queries apart")
    assert tool in section and fix in section
    # the fix is on the tool's own row of the table
    row = section[section.index(tool):]
    row = row[:row.find("\n   * - ") if "\n   * - " in row else None]
    assert fix in row


def test_the_scorer_docstring_points_to_that_section():
    assert "Tools that cut queries apart" in skrank.make_ranking_scorer.__doc__


def _warnings_of(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        func(*args, **kwargs)
    return [str(w.message) for w in caught if "cuts queries apart" in str(w.message)]


def test_learning_curve_gets_no_warning_from_the_stack(routing):
    # the old scorer read learning_curve's train_sizes off the call stack
    messages = _warnings_of(
        learning_curve, LogisticRegression(), X, Y, cv=CV, scoring=get_scorer("map"),
        params={"query_id": QID, "groups": QID}, train_sizes=[0.5, 1.0],
    )
    assert messages == []


def test_whole_query_tools_do_not_warn(routing):
    search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]}, cv=CV,
                          scoring=get_scorer("map"))
    assert _warnings_of(search.fit, X, Y, query_id=QID, groups=QID) == []
    assert _warnings_of(cross_validate, LogisticRegression(), X, Y, cv=CV,
                        scoring=get_scorer("map"),
                        params={"query_id": QID, "groups": QID}) == []
