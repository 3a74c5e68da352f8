"""SegmentForestDisplay: one panel per metric, a bar per segment, the overall marked."""

import numpy as np
import pytest


from .._needs import needs
needs("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import skrank  # noqa: E402
from skrank import SegmentForestDisplay  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _result():
    rng = np.random.default_rng(0)
    query = np.repeat(np.arange(90), 5)
    y_true = (rng.random(query.shape[0]) < 0.3).astype(int)
    y_score = rng.normal(size=query.shape[0]) + y_true
    device = np.array(["app", "web", "tv"])[query % 3]
    return skrank.evaluate_by(y_true, y_score, by=device, query_id=query,
                              metrics=["mrr", "map"], no_relevant="zero",
                              random_state=0)


def test_from_an_evaluation_draws_values_intervals_and_the_overall():
    result = _result()
    display = result.plot()
    assert isinstance(display, SegmentForestDisplay)
    assert display.axes_.shape == (2,)
    assert [ax.get_title() for ax in display.axes_] == ["mrr", "map"]
    for j, (metric, ax) in enumerate(zip(result.metrics, display.axes_)):
        points = display.errorbars_[metric].lines[0]
        np.testing.assert_allclose(points.get_xdata(), result.value[:, j])
        # first segment on top
        assert list(points.get_ydata()) == [2, 1, 0]
        if j == 0:  # the panels share the y axis: labels on the first
            ax.figure.canvas.draw()
            labels = {tick: text.get_text()
                      for tick, text in zip(ax.get_yticks(), ax.get_yticklabels())}
            assert labels == {2: "app", 1: "tv", 0: "web"}
        line = display.reference_lines_[metric]
        assert line.get_xdata()[0] == pytest.approx(result.overall[metric])
        bars = display.errorbars_[metric].lines[2][0].get_segments()
        lows = [segment[0][0] for segment in bars]
        highs = [segment[1][0] for segment in bars]
        np.testing.assert_allclose(lows, result.ci_low[:, j])
        np.testing.assert_allclose(highs, result.ci_high[:, j])


def test_differences_are_drawn_against_zero():
    display = _result().difference().plot()
    assert display.reference_lines_["mrr"].get_xdata()[0] == 0.0


def test_given_axes_and_shape_errors():
    result = _result()
    _, axes = plt.subplots(1, 2)
    display = SegmentForestDisplay.from_evaluation(result).plot(ax=axes)
    assert display.figure_ is axes[0].figure
    with pytest.raises(ValueError, match="one Axes per metric"):
        SegmentForestDisplay.from_evaluation(result).plot(ax=axes[0])
    bad = SegmentForestDisplay(segments=["a"], metrics=["mrr"], value=[[1.0, 2.0]],
                               ci_low=[[0.0]], ci_high=[[1.0]])
    with pytest.raises(ValueError, match="`value` has shape"):
        bad.plot()


def test_missing_intervals_draw_the_point_without_a_bar():
    display = SegmentForestDisplay(
        segments=["a", "b"], metrics=["mrr"], value=[[0.5], [0.7]],
        ci_low=[[0.4], [np.nan]], ci_high=[[0.6], [np.nan]]).plot()
    bars = display.errorbars_["mrr"].lines[2][0].get_segments()
    assert [s[1][0] - s[0][0] for s in bars] == pytest.approx([0.2, 0.0])
