"""A scorer for model selection on click logs: skrank.clicks.get_scorer.

:class:`ClickScorer` scores a fitted model on a test fold of click rows with
:func:`skrank.clicks.evaluate` (IPS metrics), from one predict. It is a
:class:`~skrank.model_selection._query_ids.QueryScorer` that requests
``position`` besides ``query_id``: both arrive by metadata routing, or from
columns of a DataFrame ``X`` (``"qid"`` and ``"position"``) that the model's
pipeline drops.
"""

from numbers import Real

import numpy as np
from sklearn.utils.metadata_routing import UNCHANGED

from .._core._frames import column as frame_column
from .._core._validation import describe, check_option
from ..model_selection._query_ids import (
    QueryScorer,
    routing_on,
    check_query_id_column,
    no_column_clause,
)
from ..model_selection._response import RESPONSE_METHODS, ranking_scores
from ._evaluate import evaluate, parse_click_metrics
from ._position_bias import PositionBias
from ._validation import check_clip


def _check_propensity(propensity):
    """A PositionBias, a callable of positions or one number; never per-row values.

    Per-row propensities cannot follow the rows of a fold; the scorer looks
    each row's propensity up from its position.
    """
    if isinstance(propensity, PositionBias) or callable(propensity):
        return propensity
    if isinstance(propensity, Real) and not isinstance(propensity, (bool, np.bool_)):
        if not 0 < propensity <= 1:  # NaN fails too
            raise ValueError(
                "`propensity` must be in (0, 1] (the probability that a position "
                f"is examined, relative to position 1), got {propensity!r}."
            )
        return propensity
    raise ValueError(
        "`propensity` must be a PositionBias (from estimate_position_bias), a "
        "callable of positions (such as lambda k: 1 / k) or one number in (0, 1], "
        f"got {describe(propensity)}; a scorer cannot take one value per row, "
        "because the rows of each test fold differ."
    )


def _check_metrics(metrics):
    """``(names, single)``: the metric names, and whether one name was given."""
    if isinstance(metrics, str):
        parse_click_metrics(metrics)
        return [metrics], True
    if isinstance(metrics, (list, tuple)) and all(isinstance(m, str) for m in metrics):
        names = list(metrics)
        if len(set(names)) != len(names):
            raise ValueError(f"`metrics` names a metric twice: {names}.")
        parse_click_metrics(names)
        return names, False
    raise ValueError(
        "`metrics` must be a click metric name ('dcg@10', 'ndcg@10', "
        f"'precision@10', 'arp') or a list of them, got {describe(metrics)}."
    )


def _check_column(name, column):
    try:
        return check_query_id_column(column)
    except ValueError:
        raise ValueError(
            f"`{name}` must be a column name (a string or an integer) or None, "
            f"got {describe(column)}."
        ) from None


class ClickScorer(QueryScorer):
    """A scikit-learn scorer estimating click metrics by IPS, per test fold.

    Make one with :func:`get_scorer`. ``y`` holds the clicks (0/1, one row
    per displayed document); ``query_id`` (the displayed list) and
    ``position`` (where the logger showed the row) come by metadata routing,
    or from columns of a DataFrame ``X``.

    Parameters
    ----------
    metrics : str or list of str
        Click metric names, as :func:`skrank.clicks.evaluate` takes them.
    propensity : PositionBias, callable or float
        The examination propensity of a position (see :func:`get_scorer`).
    clip : float in (0, 1], default=None
        Propensities below it are raised to it.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` read for the list ids when none are
        routed. None: never read a column.
    position_column : str, int or None, default="position"
        Column of a DataFrame ``X`` read for the logged positions when none
        are routed. None: never read a column.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores, as for
        :class:`skrank.RankingScorer`.

    Examples
    --------
    >>> from skrank.clicks import ClickScorer
    >>> ClickScorer("dcg@10", propensity=0.5)
    skrank.clicks.get_scorer('dcg@10', propensity=0.5)
    """

    _metadata = ("query_id", "position")

    def __init__(self, metrics, *, propensity, clip=None, query_id_column="qid",
                 position_column="position", response_method="auto"):
        self._names, self._single = _check_metrics(metrics)
        self.propensity = _check_propensity(propensity)
        self.clip = check_clip(clip)
        self.query_id_column = _check_column("query_id_column", query_id_column)
        self.position_column = _check_column("position_column", position_column)
        self.response_method = check_option(
            "response_method", response_method, RESPONSE_METHODS
        )
        self._init_requests()

    @property
    def metrics(self):
        """The metric names (a str for a single-metric scorer)."""
        return self._names[0] if self._single else list(self._names)

    @property
    def greater_is_better(self):
        """False for the single metric ``"arp"`` (its scorer returns ``-arp``)."""
        return not (self._single and self._names[0] == "arp")

    def __call__(self, estimator, X, y_true, sample_weight=None, query_id=None,
                 position=None, **kwargs):
        """Score a fitted estimator on the click rows ``X``.

        Parameters
        ----------
        estimator : object
            A fitted estimator.
        X : array-like or DataFrame of shape (n_rows, n_features)
            The test rows, as given to the estimator's ``predict``.
        y_true : array-like of shape (n_rows,)
            The clicks: 1 if the displayed row was clicked, else 0.
        sample_weight : array-like of shape (n_rows,), default=None
            Row weights, as :func:`skrank.clicks.evaluate` takes them.
        query_id : array-like of shape (n_rows,), default=None
            The displayed list of each row. None: read the
            ``query_id_column`` of a DataFrame ``X``, else a ``ValueError``.
        position : array-like of shape (n_rows,), default=None
            The 1-based position at which the logger showed each row. None:
            read the ``position_column`` of a DataFrame ``X``, else a
            ``ValueError``.
        **kwargs : dict
            Not accepted: any other metadata raises a ``TypeError``.

        Returns
        -------
        score : float or dict
            The IPS estimate over the lists of ``X`` (``-arp`` for
            ``"arp"``, lower being better); a dict ``{name: score}`` for a
            list of metrics.
        """
        query_id = self._fold_query_id(X, query_id, kwargs)
        if position is None:
            position = self._position_from_column(X)
        y_score = ranking_scores(
            estimator, X, response_method=self.response_method, query_id=query_id
        )
        scores = self.evaluate_scores(y_true, y_score, query_id, position,
                                      sample_weight)
        return scores[self._names[0]] if self._single else scores

    def evaluate_scores(self, y_true, y_score, query_id, position,
                        sample_weight=None):
        """Name -> IPS estimate of given scores, ``-arp`` for ``"arp"``.

        The scorer's values without a model (see
        :meth:`skrank.RankingScorer.evaluate_scores`); also what
        :class:`skrank.QueryGroupRanker` computes on its held-out lists when
        this scorer is its ``eval_metric``.
        """
        result = evaluate(
            y_true, y_score, position=np.asarray(position), query_id=query_id,
            propensity=self.propensity, metrics=self._names, clip=self.clip,
            sample_weight=sample_weight,
        )
        return {
            name: (-1.0 if name == "arp" else 1.0) * float(result[name])
            for name in self._names
        }

    def _position_from_column(self, X):
        column = self.position_column
        values = None if column is None else frame_column(X, column)
        if values is not None:
            return values
        raise ValueError(_missing_position_message(self, X))

    def set_score_request(self, *, query_id=UNCHANGED, position=UNCHANGED,
                          sample_weight=UNCHANGED):
        """Set which metadata the scorer requests, for metadata routing.

        Works whether routing is on or off; the requests take effect when
        routing is on.

        Parameters
        ----------
        query_id : bool, None or str, default=UNCHANGED
            True (the default request): receive ``query_id``; a string:
            receive the metadata of that name as ``query_id``; False: do not
            request it; None: error if it is passed.
        position : bool, None or str, default=UNCHANGED
            The same for ``position`` (requested by default).
        sample_weight : bool, None or str, default=UNCHANGED
            The same for ``sample_weight`` (None, unset, by default).

        Returns
        -------
        self : ClickScorer
            The scorer, changed in place.

        Examples
        --------
        >>> from skrank.clicks import get_scorer
        >>> scorer = get_scorer("dcg@10", propensity=lambda k: 1 / k)
        >>> scorer.set_score_request(query_id="session").get_metadata_routing(
        ...     ).score.requests
        {'query_id': 'session', 'position': True, 'sample_weight': None}
        """
        return self._set_requests(query_id=query_id, position=position,
                                  sample_weight=sample_weight)

    def _accept_sample_weight(self):
        # scikit-learn duck-types this on custom scorers (multi-metric, routing off)
        return True

    def __repr__(self):
        metrics = repr(self.metrics)
        propensity = self.propensity
        if callable(propensity) and not isinstance(propensity, PositionBias):
            shown = getattr(propensity, "__name__", None) or repr(propensity)
        else:
            shown = repr(propensity)
        parts = [metrics, f"propensity={shown}"]
        if self.clip is not None:
            parts.append(f"clip={self.clip!r}")
        for name, default in (("query_id_column", "qid"),
                              ("position_column", "position"),
                              ("response_method", "auto")):
            if getattr(self, name) != default:
                parts.append(f"{name}={getattr(self, name)!r}")
        return f"skrank.clicks.get_scorer({', '.join(parts)})"


def _missing_position_message(scorer, X):
    alias = scorer._score_request.get("position")
    if routing_on():
        if alias is False or alias is None:
            why = (
                "metadata routing is on, but this scorer's request for `position` "
                f"is set to {alias}"
            )
        else:
            name = alias if isinstance(alias, str) else "position"
            why = f"metadata routing is on, but no `{name}` was passed"
    else:
        why = "metadata routing is off (so no `position` can reach a scorer)"
    why += no_column_clause(X, scorer.position_column, "position_column", "positions")
    col = repr("position" if scorer.position_column is None else scorer.position_column)
    return (
        f"{scorer!r} needs the position at which the logger showed every row, "
        f"and got none: {why}. Pass them in one of two ways:\n"
        "  1. metadata routing: sklearn.set_config(enable_metadata_routing=True), "
        "then cross_validate(model, X, clicks, cv=GroupKFold(), scoring=scorer, "
        "params={'query_id': lists, 'position': position, 'groups': lists}) or "
        "GridSearchCV(model, grid, cv=GroupKFold(), scoring=scorer).fit(X, clicks, "
        "query_id=lists, position=position, groups=lists);\n"
        f"  2. a DataFrame column: give X as a DataFrame with a column {col} (and "
        "one of list ids) and drop both in the model's pipeline.\n"
    )


def get_scorer(metrics, *, propensity, clip=None, query_id_column="qid",
               position_column="position"):
    """A scorer estimating click metrics by IPS, for GridSearchCV and cross_validate.

    The scorer predicts each test fold once and returns
    :func:`skrank.clicks.evaluate` of the model's scores, with ``y`` as the
    clicks: the estimate, from the clicks a logging ranker collected, of the
    metric the model's ranking of the displayed documents would have.

    Parameters
    ----------
    metrics : str or list of str
        ``"dcg@k"``, ``"ndcg@k"``, ``"precision@k"`` or ``"arp"`` (see
        :func:`skrank.clicks.evaluate`); a list gives one multi-metric
        scorer returning ``{name: score}`` (use ``refit=name`` in a search).
    propensity : PositionBias, callable or float
        The examination propensity of a position: a :class:`PositionBias`
        (from :func:`estimate_position_bias`), a callable of an array of
        positions, or one number in (0, 1] for every position. Not one
        value per row: the scorer looks each row's up from its position.
    clip : float in (0, 1], default=None
        Propensities below ``clip`` are raised to it (less variance, some
        bias).
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` holding the list (impression) ids, read
        when no ``query_id`` is routed. None: never read a column.
    position_column : str, int or None, default="position"
        Column of a DataFrame ``X`` holding the logged positions, read when
        no ``position`` is routed. None: never read a column.

    Returns
    -------
    scorer : ClickScorer
        A picklable callable ``scorer(estimator, X, clicks, *,
        query_id=None, position=None, sample_weight=None)`` returning a
        float (a dict for a list of metrics). ``"arp"`` (lower is better)
        is returned negated, as scikit-learn's ``neg_*`` scorers, so that a
        search maximising the score minimises it.

    Raises
    ------
    ValueError
        For an unknown metric name, a propensity that is not a
        ``PositionBias``, callable or number in (0, 1], or ``clip`` outside
        (0, 1]. When called without list ids or positions, the scorer
        raises a ``ValueError`` saying how to pass them.

    See Also
    --------
    skrank.clicks.evaluate : The estimates, on given scores.
    skrank.get_scorer : Scorers of relevance labels.

    Notes
    -----
    ``query_id`` and ``position`` reach the scorer in one of two ways:

    * metadata routing: ``sklearn.set_config(enable_metadata_routing=True)``
      (the scorer requests both), then ``cross_validate(...,
      params={"query_id": lists, "position": position, "groups": lists})``
      or ``GridSearchCV(...).fit(X, clicks, query_id=lists,
      position=position, groups=lists)``;
    * columns of a DataFrame ``X``, ``"qid"`` and ``"position"`` by
      default, which the model's pipeline drops (a ``ColumnTransformer``
      with ``("drop", "drop", ["qid", "position"])``): a model trained on
      the position learns the logger.

    Split by list (or by query, keeping each list whole): ``GroupKFold``
    with the list ids as groups. Every value equals
    :func:`skrank.clicks.evaluate` on the fold's rows. A
    :class:`skrank.QueryGroupRanker` in the search gets ``query_id`` and
    ``position`` too, and trains position-debiased (LightGBM, XGBoost).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank.clicks import get_scorer
    >>> scorer = get_scorer(["dcg@10", "arp"], propensity=lambda k: 1 / k)
    >>> X = np.array([[1.0], [2.0], [3.0]])
    >>> model = LinearRegression().fit(X, [0.0, 0.5, 1.0])  # ranks larger x first
    >>> # the user clicked the row the logger showed third (weight 3):
    >>> # the model puts it first, 3 / log2(2) = 3 and arp = 3 * 1
    >>> scorer(model, X, [0, 0, 1], query_id=[7, 7, 7], position=[1, 2, 3])
    {'dcg@10': 3.0, 'arp': -3.0}
    """
    return ClickScorer(metrics, propensity=propensity, clip=clip,
                       query_id_column=query_id_column,
                       position_column=position_column)
