"""PrecisionRecallAtKDisplay: P@k and R@k against k, or against each other."""

import numpy as np

from .._core._validation import check_option
from ..metrics._curves import (
    KINDS,
    interpolated_precision_recall_curve,
    precision_recall_at_k_curve,
)
from ._base import import_pyplot


class PrecisionRecallAtKDisplay:
    """Query-averaged precision-recall curve of a ranking, or P@k and R@k against k.

    Build it with :meth:`from_predictions`, or from arrays and call
    :meth:`plot`. matplotlib is needed only to plot
    (``pip install matplotlib``).

    Parameters
    ----------
    k : ndarray of shape (n_cutoffs,)
        The cutoffs 1, 2, ..., max_k.
    precision : ndarray of shape (n_cutoffs,)
        Mean P@k over queries.
    recall : ndarray of shape (n_cutoffs,)
        Mean R@k over queries.
    recall_levels : ndarray of shape (n_levels,), default=None
        Recall levels of the interpolated curve; None draws none.
    interpolated_precision : ndarray of shape (n_levels,), default=None
        Mean interpolated precision at ``recall_levels``.
    name : str, default=None
        Prefix of the legend entries, e.g. the model's name.

    Attributes
    ----------
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure of ``ax_``.
    line_ : matplotlib Line2D
        The main line: precision against recall (``kind="curve"``) or P@k
        against k (``kind="k"``).
    lines_ : dict of Line2D
        ``"precision_recall"`` and ``"interpolated"`` (``kind="curve"``), or
        ``"precision"`` and ``"recall"`` (``kind="k"``).

    See Also
    --------
    precision_recall_at_k_curve, interpolated_precision_recall_curve

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skrank import PrecisionRecallAtKDisplay
    >>> display = PrecisionRecallAtKDisplay.from_predictions(
    ...     [1, 0, 1, 0, 0, 1], [6, 5, 4, 3, 2, 1], query_id=[1, 1, 1, 2, 2, 2])
    >>> display.precision        # (1 + 0) / 2, (1/2 + 0) / 2, (2/3 + 1/3) / 2
    array([0.5 , 0.25, 0.5 ])
    >>> display.line_.get_xdata().tolist()  # (1/2 + 0) / 2, (1/2 + 0) / 2, (1 + 1) / 2
    [0.25, 0.25, 1.0]
    """

    def __init__(self, *, k, precision, recall, recall_levels=None,
                 interpolated_precision=None, name=None):
        self.k = k
        self.precision = precision
        self.recall = recall
        self.recall_levels = recall_levels
        self.interpolated_precision = interpolated_precision
        self.name = name

    def plot(self, ax=None, *, kind="curve", name=None, **kwargs):
        """Draw the curves on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        kind : {"curve", "k"}, default="curve"
            ``"curve"``: mean precision against mean recall, one point per
            k, with the interpolated curve when the display has one.
            ``"k"``: mean P@k and R@k against k.
        name : str, default=None
            Prefix of the legend entries; None uses the display's ``name``.
        **kwargs : dict
            Passed to ``ax.plot`` for the main line.

        Returns
        -------
        display : PrecisionRecallAtKDisplay
            ``self``, with ``ax_``, ``figure_``, ``line_`` and ``lines_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from skrank import PrecisionRecallAtKDisplay
        >>> display = PrecisionRecallAtKDisplay(k=[1, 2], precision=[1.0, 0.5],
        ...                                     recall=[0.5, 0.5])
        >>> display.plot(kind="k").line_.get_ydata().tolist()
        [1.0, 0.5]
        """
        check_option("kind", kind, KINDS)
        k = np.asarray(self.k)
        curves = {key: np.asarray(getattr(self, key), dtype=np.float64)
                  for key in ("precision", "recall")}
        for key, values in curves.items():
            if values.shape != k.shape:
                raise ValueError(
                    f"`{key}` has shape {values.shape} but `k` has shape {k.shape}."
                )
        levels = self.recall_levels
        interpolated = self.interpolated_precision
        if (levels is None) != (interpolated is None) or (
            levels is not None and np.shape(levels) != np.shape(interpolated)
        ):
            raise ValueError(
                "`recall_levels` and `interpolated_precision` must be given "
                "together, with the same shape."
            )
        plt = import_pyplot(f"{type(self).__name__}.plot")
        if ax is None:
            _, ax = plt.subplots()
        name = self.name if name is None else name
        prefix = "" if name is None else f"{name} "
        marker = "o" if k.shape[0] <= 40 else None
        lines = {}
        if kind == "curve":
            style = {"marker": marker, "markersize": 4, "linewidth": 2,
                     "label": f"{prefix}P@k vs R@k", **kwargs}
            (lines["precision_recall"],) = ax.plot(
                curves["recall"], curves["precision"], **style)
            main = lines["precision_recall"]
            if levels is not None:
                (lines["interpolated"],) = ax.plot(
                    np.asarray(levels, dtype=float),
                    np.asarray(interpolated, dtype=float),
                    linestyle="--", drawstyle="steps-post", linewidth=1,
                    label=f"{prefix}interpolated",
                )
            ax.set_xlabel("recall (mean over queries)")
            ax.set_ylabel("precision (mean over queries)")
            ax.set_xlim(0.0, 1.02)
        else:
            style = {"marker": marker, "markersize": 4, "linewidth": 2,
                     "label": f"{prefix}P@k", **kwargs}
            (lines["precision"],) = ax.plot(k, curves["precision"], **style)
            (lines["recall"],) = ax.plot(k, curves["recall"], linestyle=":",
                                         marker=marker, markersize=3,
                                         label=f"{prefix}R@k")
            main = lines["precision"]
            ax.set_xlabel("cutoff k (rows returned per query)")
            ax.set_ylabel("mean over queries")
        ax.set_ylim(0.0, 1.05)
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, ax.figure
        self.lines_, self.line_ = lines, main
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        query_id=None,
        max_k=None,
        recall_levels=None,
        sample_weight=None,
        ties="average",
        no_relevant="skip",
        kind="curve",
        name=None,
        ax=None,
        **kwargs,
    ):
        """Plot the query-averaged precision-recall curves of scores.

        Parameters
        ----------
        y_true : array-like of shape (n_rows,) or (n_queries, n_items)
            Relevance of each row: binary (0/1) or graded (non-negative). A
            row is relevant when ``y_true > 0``.
        y_score : array-like of the same shape as ``y_true``
            Score of each row; within a query, higher scores rank first.
        query_id : array-like of shape (n_rows,), default=None
            Query of each row: ints, strings or any hashable ids, rows in any
            order. None means one ranking.
        max_k : int, default=None
            Largest cutoff drawn; None means the length of the longest query.
        recall_levels : array-like, default=None
            Levels of the interpolated curve, as in
            :func:`interpolated_precision_recall_curve`.
        sample_weight : array-like, default=None
            One weight per row; a query weighs the mean of its rows' weights.
        ties : {"average", "input"}, default="average"
            How rows with equal scores are ordered, as in
            :func:`precision_recall_at_k_curve`.
        no_relevant : {"skip", "zero", "one", "error"}, default="skip"
            What a query with no relevant row scores.
        kind : {"curve", "k"}, default="curve"
            What to draw, as in :meth:`plot`.
        name : str, default=None
            Prefix of the legend entries.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        **kwargs : dict
            Passed to ``ax.plot`` for the main line.

        Returns
        -------
        display : PrecisionRecallAtKDisplay
            The drawn display.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from skrank import PrecisionRecallAtKDisplay
        >>> display = PrecisionRecallAtKDisplay.from_predictions(
        ...     [1, 1, 0], [3, 2, 1], kind="k")
        >>> display.recall.tolist()
        [0.5, 1.0, 1.0]
        """
        check_option("kind", kind, KINDS)
        options = dict(query_id=query_id, sample_weight=sample_weight, ties=ties,
                       no_relevant=no_relevant)
        k, precision, recall = precision_recall_at_k_curve(
            y_true, y_score, max_k=max_k, **options)
        levels, interpolated = interpolated_precision_recall_curve(
            y_true, y_score, recall_levels=recall_levels, **options)
        display = cls(k=k, precision=precision, recall=recall, recall_levels=levels,
                      interpolated_precision=interpolated, name=name)
        return display.plot(ax=ax, kind=kind, **kwargs)
