"""SegmentForestDisplay: a forest plot of metrics by segment, with intervals.

matplotlib is an optional extra (``pip install matplotlib``): it is imported
inside :meth:`SegmentForestDisplay.plot` only.
"""

import numpy as np

from ._base import import_pyplot


def _label(key):
    return " & ".join(map(str, key)) if isinstance(key, tuple) else str(key)


class SegmentForestDisplay:
    """Forest plot: one panel per metric, one row per segment, interval as a bar.

    Build it with :meth:`from_evaluation` (the result of
    :func:`skrank.evaluate_by`), or from arrays and call :meth:`plot`; the
    result's own ``plot()`` does both. matplotlib is needed only to plot.

    Parameters
    ----------
    segments : list of str
        The segments' labels, drawn top to bottom.
    metrics : list of str
        The metrics, one panel each.
    value : array-like of shape (n_segments, n_metrics)
        Each segment's value (nan draws nothing).
    ci_low, ci_high : array-like of shape (n_segments, n_metrics)
        The interval of each value (nan: the point without a bar).
    reference : float or array-like of shape (n_metrics,), default=None
        Where to draw a vertical reference line in each panel (the overall
        value, or 0 for differences); None draws none.
    reference_label : str, default="overall"
        Legend text of the reference line.

    Attributes
    ----------
    axes_ : ndarray of matplotlib Axes
        One per metric.
    figure_ : matplotlib Figure
    errorbars_ : dict
        Metric -> the ``errorbar`` container of its panel.
    reference_lines_ : dict
        Metric -> the reference line of its panel (when drawn).

    See Also
    --------
    skrank.evaluate_by

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skrank import SegmentForestDisplay
    >>> display = SegmentForestDisplay(
    ...     segments=["app", "web"], metrics=["mrr"], value=[[0.8], [0.6]],
    ...     ci_low=[[0.7], [0.5]], ci_high=[[0.9], [0.7]], reference=[0.7])
    >>> display.plot().axes_.shape
    (1,)
    >>> display.errorbars_["mrr"].lines[0].get_xdata().tolist()
    [0.8, 0.6]
    """

    def __init__(self, *, segments, metrics, value, ci_low, ci_high, reference=None,
                 reference_label="overall"):
        self.segments = list(segments)
        self.metrics = list(metrics)
        self.value = value
        self.ci_low = ci_low
        self.ci_high = ci_high
        self.reference = reference
        self.reference_label = reference_label

    @classmethod
    def from_evaluation(cls, evaluation):
        """The display of a :func:`skrank.evaluate_by` result (overall marked)."""
        return cls(
            segments=[_label(key) for key in evaluation.segments],
            metrics=evaluation.metrics, value=evaluation.value,
            ci_low=evaluation.ci_low, ci_high=evaluation.ci_high,
            reference=[evaluation.overall[m] for m in evaluation.metrics],
            reference_label="overall",
        )

    @classmethod
    def from_table(cls, table, by, *, reference=None, reference_label="overall"):
        """The display of a tidy table (segment columns, metric, value, ci_low, ci_high)."""
        columns = list(table.columns)
        metrics = list(dict.fromkeys(table.column("metric")))
        segments = list(dict.fromkeys(
            tuple(row[columns.index(name)] for name in by) for row in table.rows
        ))
        shape = (len(segments), len(metrics))
        arrays = {name: np.full(shape, np.nan) for name in ("value", "ci_low", "ci_high")}
        for row in table.rows:
            s = segments.index(tuple(row[columns.index(name)] for name in by))
            j = metrics.index(row[columns.index("metric")])
            for name, array in arrays.items():
                array[s, j] = row[columns.index(name)]
        return cls(segments=[_label(key) for key in segments], metrics=metrics,
                   reference=reference, reference_label=reference_label, **arrays)

    def plot(self, ax=None, *, color=None, **kwargs):
        """Draw the panels.

        Parameters
        ----------
        ax : matplotlib Axes or array of Axes, default=None
            One Axes per metric; None makes a new figure with one panel per
            metric side by side.
        color : str, default=None
            Colour of the points and bars; None uses matplotlib's first.
        **kwargs : dict
            Passed to ``ax.errorbar``.

        Returns
        -------
        display : SegmentForestDisplay
            ``self``, with ``axes_``, ``figure_``, ``errorbars_`` and
            ``reference_lines_`` set.
        """
        n_segments, n_metrics = len(self.segments), len(self.metrics)
        arrays = {}
        for name in ("value", "ci_low", "ci_high"):
            arrays[name] = np.asarray(getattr(self, name), dtype=np.float64)
            if arrays[name].shape != (n_segments, n_metrics):
                raise ValueError(
                    f"`{name}` has shape {arrays[name].shape}, expected "
                    f"({n_segments}, {n_metrics}) (segments x metrics)."
                )
        reference = None
        if self.reference is not None:
            reference = np.broadcast_to(
                np.asarray(self.reference, dtype=np.float64), (n_metrics,)
            )
        plt = import_pyplot(f"{type(self).__name__}.plot")
        if ax is None:
            _, ax = plt.subplots(
                1, n_metrics, sharey=True, squeeze=False,
                figsize=(3.2 * n_metrics + 1.5, 0.35 * n_segments + 1.5),
            )
        axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
        if axes.shape[0] != n_metrics:
            raise ValueError(
                f"`ax` must hold one Axes per metric ({n_metrics}), got {axes.shape[0]}."
            )
        y = np.arange(n_segments)[::-1]  # first segment on top
        self.errorbars_, self.reference_lines_ = {}, {}
        for j, (metric, panel) in enumerate(zip(self.metrics, axes)):
            value = arrays["value"][:, j]
            with np.errstate(invalid="ignore"):
                below = np.where(np.isnan(arrays["ci_low"][:, j]), 0.0,
                                 value - arrays["ci_low"][:, j])
                above = np.where(np.isnan(arrays["ci_high"][:, j]), 0.0,
                                 arrays["ci_high"][:, j] - value)
            style = {"fmt": "o", "capsize": 3, "markersize": 5, "color": color,
                     **kwargs}
            self.errorbars_[metric] = panel.errorbar(
                value, y, xerr=np.vstack([below, above]), **style
            )
            if reference is not None:
                self.reference_lines_[metric] = panel.axvline(
                    reference[j], color="0.4", linestyle="--", linewidth=1,
                    label=self.reference_label,
                )
            panel.set_title(metric)
            panel.set_yticks(y)
            panel.set_yticklabels(self.segments)
            panel.grid(axis="x", alpha=0.3)
        if reference is not None:
            axes[-1].legend(loc="best", fontsize="small")
        self.axes_ = axes
        self.figure_ = axes[0].figure
        return self
