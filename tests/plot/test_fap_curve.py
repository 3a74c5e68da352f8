"""FAPCurveDisplay: the curves drawn, the cutoff marked, a PNG rendered with Agg."""

import sys

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from skrank import (
    FAPCurveDisplay,
    FAPCutoffClassifier,
    fap_curve,
    load_digits_retrieval,
)

from .._needs import needs

matplotlib = needs("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def fitted():
    data = load_digits_retrieval(n_queries=40, n_candidates=10, random_state=2)
    X, y, query_id = data.data, data.target, data.query_id
    selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
    return selector.fit(X, y, query_id=query_id), X, y, query_id


def test_from_predictions_marks_the_peak_of_the_curve():
    # query 1 ranks 1, 1, 0, 0 and query 2 ranks 1, 0, 0, 0
    y = [1, 1, 0, 0, 1, 0, 0, 0]
    score = [8, 7, 6, 5, 8, 7, 6, 5]
    query_id = [1, 1, 1, 1, 2, 2, 2, 2]
    display = FAPCurveDisplay.from_predictions(y, score, query_id=query_id)
    # FAP@k = 2 F AP / (F + AP), F1@k = 2 hits / (R + k)
    fap1 = (2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2) + 1.0) / 2
    fap2 = (1.0 + 2 * (2 / 3) * 1 / (2 / 3 + 1)) / 2
    fap3 = (2 * 0.8 * 1 / 1.8 + 2 * 0.5 * 1 / 1.5) / 2
    np.testing.assert_allclose(display.fap[:3], [fap1, fap2, fap3])
    assert display.cutoff == 2  # fap2 is the peak
    assert display.cutoff_line_.get_xdata()[0] == 2
    np.testing.assert_allclose(display.line_.get_ydata(), display.fap)
    assert set(display.lines_) == {"fap", "f", "ap"}
    legend = [text.get_text() for text in display.ax_.get_legend().get_texts()]
    assert legend == ["FAP@k", "F1@k", "AP@k", "cutoff k = 2"]


def test_from_predictions_options():
    y, score = [1, 1, 1, 0, 0], [5, 4, 3, 2, 1]
    display = FAPCurveDisplay.from_predictions(
        y, score, cutoff=4, beta=2.0, show_parts=False, name="model", color="red"
    )
    assert display.cutoff_line_.get_xdata()[0] == 4
    assert set(display.lines_) == {"fap"}
    assert display.line_.get_label() == "model FAP@k"
    assert display.line_.get_color() == "red"
    no_mark = FAPCurveDisplay.from_predictions(y, score, cutoff=None)
    assert no_mark.cutoff_line_ is None
    with pytest.raises(ValueError, match="`cutoff` must be"):
        FAPCurveDisplay.from_predictions(y, score, cutoff=0)
    with pytest.raises(ValueError, match="`max_k` must be a positive integer"):
        FAPCurveDisplay.from_predictions(y, score, max_k=0)


def test_from_estimator_draws_the_curve_it_maximised_and_saves_a_png(fitted, tmp_path):
    selector = fitted[0]
    display = FAPCurveDisplay.from_estimator(selector)
    results = selector.cv_results_
    np.testing.assert_allclose(display.lines_["fap"].get_xdata(), results["k"])
    np.testing.assert_allclose(display.lines_["fap"].get_ydata(), results["fap"])
    np.testing.assert_allclose(display.lines_["f"].get_ydata(), results["f"])
    np.testing.assert_allclose(display.lines_["ap"].get_ydata(), results["ap"])
    assert display.cutoff_line_.get_xdata()[0] == selector.best_k_
    # the marked cutoff sits on the highest point of the FAP line
    y_data = display.line_.get_ydata()
    assert y_data[selector.best_k_ - 1] == y_data.max()
    path = tmp_path / "fap_curve.png"
    display.figure_.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 5000


def test_from_estimator_on_held_out_rows(fitted):
    selector, X, y, query_id = fitted
    _, ax = plt.subplots()
    display = FAPCurveDisplay.from_estimator(selector, X, y, query_id=query_id, ax=ax)
    assert display.ax_ is ax
    _, expected = fap_curve(y, selector.predict_proba(X)[:, 1], query_id=query_id)
    np.testing.assert_allclose(display.fap, expected)
    assert display.cutoff_line_.get_xdata()[0] == selector.best_k_
    with pytest.raises(ValueError, match="`y` is required"):
        FAPCurveDisplay.from_estimator(selector, X)


def test_from_estimator_in_score_mode_marks_the_mean_set_size(fitted):
    _, X, y, query_id = fitted
    selector = FAPCutoffClassifier(LogisticRegression(), cutoff="score", cv=3)
    selector.fit(X, y, query_id=query_id)
    held_out = FAPCurveDisplay.from_estimator(selector, X, y, query_id=query_id)
    inside = selector.predict(X) == 1
    sizes = [inside[query_id == q].sum() for q in np.unique(query_id)]
    assert held_out.cutoff_line_.get_xdata()[0] == pytest.approx(np.mean(sizes))
    out_of_fold = FAPCurveDisplay.from_estimator(selector)
    thresholds = selector.cv_results_["thresholds"]
    best = np.flatnonzero(thresholds == selector.best_threshold_)
    assert out_of_fold.cutoff == selector.cv_results_["mean_set_size"][best[0]]


def test_from_estimator_needs_a_fitted_selector(fitted):
    with pytest.raises(NotFittedError):
        FAPCurveDisplay.from_estimator(FAPCutoffClassifier(LogisticRegression()))
    with pytest.raises(ValueError, match="must be a fitted FAPCutoffClassifier"):
        FAPCurveDisplay.from_estimator(LogisticRegression())


def test_plot_checks_its_arrays():
    display = FAPCurveDisplay(k=[1, 2, 3], fap=[0.1, 0.2], f=[0, 0, 0], ap=[0, 0, 0])
    with pytest.raises(ValueError, match="`fap` has shape"):
        display.plot()


def test_a_clear_error_names_the_plot_extra_without_matplotlib(monkeypatch):
    display = FAPCurveDisplay(k=[1, 2], fap=[0.5, 1.0], f=[0.5, 1.0], ap=[1.0, 1.0])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        display.plot()
