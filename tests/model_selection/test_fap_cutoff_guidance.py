"""FAPCutoffClassifier: polars inputs, and the next step when a search predicts."""

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, GroupKFold

from skrank import FAPCutoffClassifier, get_scorer

from .._needs import needs

pl = needs("polars")

RNG = np.random.default_rng(2)
QID = np.repeat(np.arange(30), 8)
X = RNG.normal(size=(QID.shape[0], 2))
Y = (X[:, 0] + RNG.normal(scale=0.5, size=QID.shape[0]) > 0.8).astype(int)


@pytest.mark.parametrize("kind", ["int", "str", "category"])
def test_polars_inputs_give_the_numpy_result(kind):
    ids = pl.Series(QID, dtype=pl.Int64)
    if kind != "int":
        ids = pl.Series([f"q{i:02d}" for i in QID])
        ids = ids if kind == "str" else ids.cast(pl.Categorical)
    X_frame = pl.DataFrame({"a": X[:, 0], "b": X[:, 1]})
    expected = FAPCutoffClassifier(LogisticRegression(), cv=3).fit(X, Y, query_id=QID)
    fitted = FAPCutoffClassifier(LogisticRegression(), cv=3).fit(
        X_frame, pl.Series(Y), query_id=ids)
    assert fitted.best_k_ == expected.best_k_
    np.testing.assert_allclose(fitted.cv_results_["fap"], expected.cv_results_["fap"])
    np.testing.assert_array_equal(fitted.predict(X_frame, query_id=ids),
                                  expected.predict(X, query_id=QID))


def test_search_predict_points_to_best_estimator_predict():
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(FAPCutoffClassifier(LogisticRegression(), cv=3),
                              {"beta": [1.0, 2.0]}, cv=GroupKFold(3),
                              scoring=get_scorer("map"))
        search.fit(X, Y, query_id=QID, groups=QID)
    with pytest.raises(ValueError) as info:
        search.predict(X)
    message = str(info.value)
    # the selector cannot see the search (it reads no other frames): its
    # message names the search case with the call that works
    assert "A search (GridSearchCV, ...) that tuned this selector" in message
    assert "search.best_estimator_.predict(X, query_id=...)" in message
    # the suggested call works
    predicted = search.best_estimator_.predict(X, query_id=QID)
    assert predicted.shape == Y.shape


def test_predict_without_ids_outside_a_search_keeps_its_message():
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3).fit(X, Y, query_id=QID)
    with pytest.raises(ValueError, match=r"call predict\(X, query_id=\.\.\.\)"):
        selector.predict(X)


def test_group_sizes_as_query_id_get_the_repeat_hint():
    sizes = np.full(30, 8)
    with pytest.raises(ValueError, match=r"np\.repeat\(np\.arange\(len\(sizes\)\), sizes\)"):
        FAPCutoffClassifier(LogisticRegression(), cv=3).fit(X, Y, query_id=sizes)
