"""FAPCurveDisplay: mean F@k, AP@k and FAP@k against the cutoff k.

matplotlib is an optional extra (``pip install matplotlib``): it is
imported inside :meth:`FAPCurveDisplay.plot` only, so computing a display
and the rest of skrank work without it.
"""

from numbers import Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._base import import_pyplot
from .._core._validation import (
    check_bool,
    check_positive_int,
    check_positive_real,
    describe,
)
from ..metrics._fap import fap_curve
from ..model_selection._cutoff_search import _first_max
from ..model_selection._fap_cutoff import FAPCutoffClassifier


def _check_cutoff(cutoff):
    if cutoff is None or (isinstance(cutoff, str) and cutoff == "best"):
        return cutoff
    if (
        isinstance(cutoff, (bool, np.bool_))
        or not isinstance(cutoff, Real)
        or not np.isfinite(cutoff)
        or cutoff <= 0
    ):
        raise ValueError(
            "`cutoff` must be 'best', None or a positive number, got "
            f"{describe(cutoff)}."
        )
    return cutoff


class FAPCurveDisplay:
    """Mean F-beta@k, AP@k and FAP@k against the cutoff k, with a cutoff marked.

    FAP@k peaks where a ranked result list is best cut; the F part rises
    and falls with the set size, the AP part only rises. Build it with
    :meth:`from_estimator` (a fitted :class:`FAPCutoffClassifier`) or
    :meth:`from_predictions`, or from arrays and call :meth:`plot`.

    Parameters
    ----------
    k : ndarray of shape (n_cutoffs,)
        The cutoffs 1, 2, ..., max_k.
    fap : ndarray of shape (n_cutoffs,)
        Mean FAP@k over queries.
    f : ndarray of shape (n_cutoffs,)
        Mean F-beta@k over queries.
    ap : ndarray of shape (n_cutoffs,)
        Mean AP@k over queries.
    cutoff : float, default=None
        Where to draw the chosen cutoff (a vertical line); None draws none.
    cutoff_label : str, default=None
        Legend text of the cutoff line; None means ``"cutoff k = <cutoff>"``.
    beta : float, default=1.0
        The beta of F-beta and FAP, shown in the legend.
    name : str, default=None
        Prefix of the legend entries, e.g. the model's name.

    Attributes
    ----------
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure of ``ax_``.
    line_ : matplotlib Line2D
        The FAP@k line.
    lines_ : dict of Line2D
        ``"fap"``, and ``"f"`` and ``"ap"`` when ``show_parts=True``.
    cutoff_line_ : matplotlib Line2D or None
        The vertical line at ``cutoff``.

    See Also
    --------
    fap_curve : computes the three curves.
    FAPCutoffClassifier : learns the cutoff that maximises FAP@k.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from skrank import FAPCurveDisplay
    >>> display = FAPCurveDisplay.from_predictions(
    ...     [1, 1, 0, 0, 1, 0, 0, 0],
    ...     [8, 7, 6, 5, 4, 3, 2, 1],
    ...     query_id=[1, 1, 1, 1, 2, 2, 2, 2],
    ... )
    >>> display.cutoff           # both queries rank their relevant rows first
    2
    >>> display.cutoff_line_.get_xdata()[0]
    2
    """

    def __init__(self, *, k, fap, f, ap, cutoff=None, cutoff_label=None, beta=1.0,
                 name=None):
        self.k = k
        self.fap = fap
        self.f = f
        self.ap = ap
        self.cutoff = cutoff
        self.cutoff_label = cutoff_label
        self.beta = beta
        self.name = name

    def plot(self, ax=None, *, name=None, show_parts=True, **kwargs):
        """Draw the curves (and the cutoff) on ``ax``.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str, default=None
            Prefix of the legend entries; None uses the display's ``name``.
        show_parts : bool, default=True
            Also draw the F-beta@k and AP@k curves FAP@k is made of.
        **kwargs : dict
            Passed to ``ax.plot`` for the FAP@k line.

        Returns
        -------
        display : FAPCurveDisplay
            ``self``, with ``ax_``, ``figure_``, ``line_``, ``lines_`` and
            ``cutoff_line_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from skrank import FAPCurveDisplay
        >>> display = FAPCurveDisplay(k=[1, 2, 3], fap=[0.5, 1.0, 0.8],
        ...                           f=[0.67, 1.0, 0.8], ap=[0.5, 1.0, 1.0], cutoff=2)
        >>> display.plot(show_parts=False).line_.get_ydata().tolist()
        [0.5, 1.0, 0.8]
        """
        check_bool("show_parts", show_parts)
        k = np.asarray(self.k)
        curves = {key: np.asarray(getattr(self, key), dtype=np.float64)
                  for key in ("fap", "f", "ap")}
        for key, values in curves.items():
            if values.shape != k.shape:
                raise ValueError(
                    f"`{key}` has shape {values.shape} but `k` has shape {k.shape}."
                )
        plt = import_pyplot(f"{type(self).__name__}.plot")
        if ax is None:
            _, ax = plt.subplots()
        name = self.name if name is None else name
        prefix = "" if name is None else f"{name} "
        beta = float(self.beta)
        f_name = f"F{beta:g}@k" if beta != 1 else "F1@k"
        marker = "o" if k.shape[0] <= 40 else None

        lines = {}
        fap_style = {"marker": marker, "markersize": 4, "linewidth": 2,
                     "label": f"{prefix}FAP@k", **kwargs}
        (lines["fap"],) = ax.plot(k, curves["fap"], **fap_style)
        if show_parts:
            (lines["f"],) = ax.plot(k, curves["f"], linestyle=":", marker=marker,
                                    markersize=3, label=f"{prefix}{f_name}")
            (lines["ap"],) = ax.plot(k, curves["ap"], linestyle="-.", marker=marker,
                                     markersize=3, label=f"{prefix}AP@k")
        self.cutoff_line_ = None
        if self.cutoff is not None:
            label = self.cutoff_label
            if label is None:
                label = f"cutoff k = {self.cutoff:g}"
            self.cutoff_line_ = ax.axvline(self.cutoff, color="0.3", linestyle="--",
                                           linewidth=1, label=label)
        ax.set_xlabel("cutoff k (rows returned per query)")
        ax.set_ylabel("mean over queries")
        ax.set_ylim(0.0, 1.05)
        ax.legend(loc="best")
        self.ax_, self.figure_ = ax, ax.figure
        self.lines_, self.line_ = lines, lines["fap"]
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        query_id=None,
        max_k=None,
        beta=1.0,
        sample_weight=None,
        ties="average",
        no_relevant="skip",
        cutoff="best",
        name=None,
        ax=None,
        show_parts=True,
        **kwargs,
    ):
        """Plot the FAP@k curve of scores, marking the cutoff where it peaks.

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
            Relevance of each row: binary (0/1) or graded (non-negative). A
            row is relevant when ``y_true > 0``.
        y_score : array-like of shape (n_rows,)
            Score of each row; within a query, higher scores rank first.
        query_id : array-like of shape (n_rows,), default=None
            Query of each row: ints, strings or any hashable ids, rows in any
            order. None means one ranking.
        max_k : int, default=None
            Largest cutoff drawn; None means the length of the longest query.
        beta : float, default=1.0
            Weight of the F part relative to the AP part, as in F-beta.
        sample_weight : array-like of shape (n_rows,), default=None
            One weight per row; a query weighs the mean of its rows' weights.
        ties : {"average", "input"}, default="average"
            How rows with equal scores are ordered, as in :func:`fap_curve`.
        no_relevant : {"skip", "zero", "one", "error"}, default="skip"
            What a query with no relevant row scores, as in :func:`fap_curve`.
        cutoff : "best", float or None, default="best"
            The cutoff to mark: ``"best"`` is the first k of maximal FAP@k
            (what :class:`FAPCutoffClassifier` would choose on these
            scores), a number marks that k, None marks nothing.
        name : str, default=None
            Prefix of the legend entries.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        show_parts : bool, default=True
            Also draw the F-beta@k and AP@k curves.
        **kwargs : dict
            Passed to ``ax.plot`` for the FAP@k line.

        Returns
        -------
        display : FAPCurveDisplay
            The drawn display.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from skrank import FAPCurveDisplay
        >>> display = FAPCurveDisplay.from_predictions([1, 1, 1, 0, 0], [5, 4, 3, 2, 1])
        >>> display.cutoff, display.fap.round(3).tolist()
        (3, [0.5, 0.8, 1.0, 0.923, 0.857])
        """
        check_positive_int("max_k", max_k)
        beta = check_positive_real("beta", beta)
        cutoff = _check_cutoff(cutoff)
        k, fap, f, ap = fap_curve(
            y_true, y_score, max_k=max_k, beta=beta, query_id=query_id,
            sample_weight=sample_weight, ties=ties, no_relevant=no_relevant,
            return_parts=True,
        )
        if isinstance(cutoff, str):
            cutoff = int(k[_first_max(fap)])
        display = cls(k=k, fap=fap, f=f, ap=ap, cutoff=cutoff, beta=beta, name=name)
        return display.plot(ax=ax, show_parts=show_parts, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X=None,
        y=None,
        *,
        query_id=None,
        max_k=None,
        name=None,
        ax=None,
        show_parts=True,
        **kwargs,
    ):
        """Plot the FAP@k curve of a fitted :class:`FAPCutoffClassifier`.

        Parameters
        ----------
        estimator : FAPCutoffClassifier
            A fitted selector.
        X : array-like of shape (n_rows, n_features), default=None
            None draws the out-of-fold curve of ``estimator.cv_results_``
            (the one the cutoff was chosen on). Otherwise, rows whose scores
            by ``estimator`` give the curve, e.g. held-out queries.
        y : array-like of shape (n_rows,), default=None
            Labels of ``X`` (required with ``X``).
        query_id : array-like of shape (n_rows,), default=None
            Query of each row of ``X``; None means one ranking.
        max_k : int, default=None
            With ``X``: the largest cutoff drawn (None: longest query).
        name : str, default=None
            Prefix of the legend entries; None uses the inner estimator's
            class name.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        show_parts : bool, default=True
            Also draw the F-beta@k and AP@k curves.
        **kwargs : dict
            Passed to ``ax.plot`` for the FAP@k line.

        Returns
        -------
        display : FAPCurveDisplay
            The drawn display. The marked cutoff is ``best_k_`` with
            ``cutoff="rank"``; with ``cutoff="score"`` it is the mean number
            of rows per query scoring at least ``best_threshold_`` (out of
            fold, or on ``X``), since set sizes then differ per query.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skrank import FAPCurveDisplay, FAPCutoffClassifier
        >>> X = [[0.9], [0.2], [0.1], [0.2], [0.95], [0.1], [0.85], [0.15]]
        >>> y = [1, 0, 0, 0, 1, 0, 1, 0]
        >>> selector = FAPCutoffClassifier(LogisticRegression(), cv=3)
        >>> selector = selector.fit(X, y, query_id=[1, 1, 1, 2, 2, 2, 3, 3])
        >>> display = FAPCurveDisplay.from_estimator(selector)
        >>> display.cutoff == selector.best_k_
        True
        """
        if not isinstance(estimator, FAPCutoffClassifier):
            raise ValueError(
                "`estimator` must be a fitted FAPCutoffClassifier, got "
                f"{type(estimator).__name__}; use from_predictions for other models."
            )
        check_is_fitted(estimator, "cv_results_")
        if name is None:
            name = type(estimator.estimator_).__name__
        by_score = estimator.cutoff == "score"
        if X is None:
            if y is not None or query_id is not None:
                raise ValueError("`y` and `query_id` need `X`; pass all three or none.")
            results = estimator.cv_results_
            k, fap, f, ap = (results[key] for key in ("k", "fap", "f", "ap"))
            if by_score:
                best = int(np.flatnonzero(
                    results["thresholds"] == estimator.best_threshold_)[0])
                cutoff = float(results["mean_set_size"][best])
        else:
            if y is None:
                raise ValueError("`y` is required with `X`.")
            score = estimator._score_rows(X)
            relevance = (np.asarray(y) == estimator.classes_[estimator._pos_index])
            k, fap, f, ap = fap_curve(
                relevance.astype(np.int64), score, max_k=max_k, beta=estimator.beta,
                query_id=query_id, return_parts=True,
            )
            if by_score:
                inside = (score >= estimator.best_threshold_).astype(np.float64)
                if query_id is None:
                    cutoff = float(inside.sum())
                else:
                    _, code = np.unique(np.asarray(query_id), return_inverse=True)
                    cutoff = float(np.bincount(code.reshape(-1), weights=inside).mean())
        if by_score:
            label = (f"score >= {estimator.best_threshold_:.3g} "
                     f"(mean set size {cutoff:.2f})")
        else:
            cutoff, label = estimator.best_k_, f"cutoff k = {estimator.best_k_}"
        display = cls(k=k, fap=fap, f=f, ap=ap, cutoff=cutoff, cutoff_label=label,
                      beta=estimator.beta, name=name)
        return display.plot(ax=ax, show_parts=show_parts, **kwargs)
