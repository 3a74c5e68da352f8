"""A scorer for model selection on click logs: skrank.clicks.get_scorer.

:class:`ClickScorer` scores a fitted model on a test fold of click rows with
:func:`skrank.clicks.evaluate` (IPS metrics), from one predict. It is a
:class:`~skrank.model_selection._query_ids.QueryScorer` that requests
``list_id`` (the displayed list) and ``position`` besides ``query_id`` (the
query a list answers, by which folds are grouped): they arrive by metadata
routing, or from columns of a DataFrame ``X`` (``"list_id"``, ``"qid"`` and
``"position"``) that the model's pipeline drops.
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
from ._validation import check_clip, check_propensity_values


def _check_propensity(propensity):
    """A PositionBias, a callable of positions or one number; never per-row values.

    Per-row propensities cannot follow the rows of a fold; the scorer looks
    each row's propensity up from its position.
    """
    if isinstance(propensity, PositionBias) or callable(propensity):
        return propensity
    if isinstance(propensity, Real) and not isinstance(propensity, (bool, np.bool_)):
        check_propensity_values(propensity)  # positive and finite; NaN fails
        return propensity
    raise ValueError(
        "`propensity` must be a PositionBias (from estimate_position_bias), a "
        "callable of positions (such as lambda k: 1 / k) or one positive number, "
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
    per displayed document); ``list_id`` (the displayed list), ``position``
    (where the logger showed the row) and, optionally, ``query_id`` (the
    query the list answers) come by metadata routing, or from columns of a
    DataFrame ``X``.

    Parameters
    ----------
    metrics : str or list of str
        Click metric names, as :func:`skrank.clicks.evaluate` takes them.
    propensity : PositionBias, callable or float
        The examination propensity of a position (see :func:`get_scorer`).
    clip : float in (0, 1], default=None
        Propensities below it are raised to it.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` read for the query ids when none are
        routed (without either, every list is its own query). None: never
        read a column.
    list_id_column : str, int or None, default="list_id"
        Column of a DataFrame ``X`` read for the list (impression) ids when
        none are routed. None: never read a column.
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

    _metadata = ("query_id", "list_id", "position")

    def __init__(self, metrics, *, propensity, clip=None, query_id_column="qid",
                 list_id_column="list_id", position_column="position",
                 response_method="auto"):
        self._names, self._single = _check_metrics(metrics)
        self.propensity = _check_propensity(propensity)
        self.clip = check_clip(clip)
        self.query_id_column = _check_column("query_id_column", query_id_column)
        self.list_id_column = _check_column("list_id_column", list_id_column)
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
                 list_id=None, position=None, **kwargs):
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
            The query each row's list answers. None: read the
            ``query_id_column`` of a DataFrame ``X``, else every list is its
            own query.
        list_id : array-like of shape (n_rows,), default=None
            The displayed list (impression) of each row. None: read the
            ``list_id_column`` of a DataFrame ``X``, else a ``ValueError``.
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
        if kwargs:
            accepted = [f"`{name}`" for name in self._score_request]
            raise TypeError(
                f"{self!r} got unexpected metadata {sorted(kwargs)}; it accepts "
                f"{', '.join(accepted[:-1])} and {accepted[-1]}."
            )
        given = {}
        for name, value in (("query_id", query_id), ("list_id", list_id),
                            ("position", position)):
            column = getattr(self, f"{name}_column")
            if value is None and column is not None:
                value = frame_column(X, column)
            given[name] = value
        missing = [name for name in ("list_id", "position") if given[name] is None]
        if missing:
            raise ValueError(_missing_message(self, X, missing))
        y_score = ranking_scores(
            estimator, X, response_method=self.response_method,
            query_id=given["list_id"],
        )
        scores = self.evaluate_scores(y_true, y_score, given["query_id"], sample_weight,
                                      position=given["position"],
                                      list_id=given["list_id"])
        return scores[self._names[0]] if self._single else scores

    def evaluate_scores(self, y_true, y_score, query_id, sample_weight=None, *,
                        position, list_id=None):
        """Name -> IPS estimate of given scores, ``-arp`` for ``"arp"``.

        The scorer's values without a model (see
        :meth:`skrank.RankingScorer.evaluate_scores`); also what
        :class:`skrank.QueryGroupRanker` computes on its held-out lists when
        this scorer is its ``eval_metric``. ``query_id`` is the query of each
        row (it may be None when ``list_id`` is given), ``list_id`` the
        displayed list (None: each query is one list), ``position`` the
        logged 1-based position.

        Examples
        --------
        >>> from skrank.clicks import get_scorer
        >>> scorer = get_scorer("dcg@2", propensity=lambda k: 1 / k)
        >>> scorer.evaluate_scores([0, 1, 0], [3.0, 2.0, 1.0], [7, 7, 7],
        ...                        position=[1, 2, 3])
        {'dcg@2': 1.26...}
        """
        result = evaluate(
            y_true, y_score, position=np.asarray(position),
            list_id=query_id if list_id is None else list_id,
            query_id=None if list_id is None else query_id,
            propensity=self.propensity, metrics=self._names, clip=self.clip,
            sample_weight=sample_weight,
        )
        return {
            name: (-1.0 if name == "arp" else 1.0) * float(result[name])
            for name in self._names
        }

    def set_score_request(self, *, query_id=UNCHANGED, list_id=UNCHANGED,
                          position=UNCHANGED, sample_weight=UNCHANGED):
        """Set which metadata the scorer requests, for metadata routing.

        Works whether routing is on or off; the requests take effect when
        routing is on.

        Parameters
        ----------
        query_id : bool, None or str, default=UNCHANGED
            True (the default request): receive ``query_id``; a string:
            receive the metadata of that name as ``query_id`` (``"groups"``
            reuses the splitter's groups); False: do not request it; None:
            error if it is passed.
        list_id : bool, None or str, default=UNCHANGED
            The same for ``list_id`` (requested by default).
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
        >>> scorer.set_score_request(query_id="groups").get_metadata_routing(
        ...     ).score.requests
        {'query_id': 'groups', 'list_id': True, 'position': True, 'sample_weight': None}
        """
        return self._set_requests(query_id=query_id, list_id=list_id,
                                  position=position, sample_weight=sample_weight)

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
                              ("list_id_column", "list_id"),
                              ("position_column", "position"),
                              ("response_method", "auto")):
            if getattr(self, name) != default:
                parts.append(f"{name}={getattr(self, name)!r}")
        return f"skrank.clicks.get_scorer({', '.join(parts)})"


_WHAT = {"list_id": "the displayed list (impression) of every row",
         "position": "the position at which the logger showed every row"}


def _missing_message(scorer, X, missing):
    """Why the scorer got no ``missing`` (list ids, positions), and how to pass them."""
    reasons = []
    for name in missing:
        alias = scorer._score_request.get(name)
        if routing_on():
            if alias is False or alias is None:
                why = (f"metadata routing is on, but this scorer's request for "
                       f"`{name}` is set to {alias}")
            else:
                why = ("metadata routing is on, but no "
                       f"`{alias if isinstance(alias, str) else name}` was passed")
        else:
            why = f"metadata routing is off (so no `{name}` can reach a scorer)"
        why += no_column_clause(X, getattr(scorer, f"{name}_column"),
                                f"{name}_column", name)
        reasons.append(f"`{name}` ({_WHAT[name]}): {why}")
    columns = {name: getattr(scorer, f"{name}_column") or name
               for name in ("list_id", "query_id", "position")}
    suggested = ", ".join(f"{name}_column={columns[name]!r}" for name in missing)
    return (
        f"{scorer!r} got no {' and no '.join(f'`{m}`' for m in missing)}. "
        + "; ".join(reasons) + ". Pass them in one of two ways:\n"
        "  1. metadata routing: sklearn.set_config(enable_metadata_routing=True), "
        "then cross_validate(model, X, clicks, cv=GroupKFold(), scoring=scorer, "
        "params={'list_id': lists, 'query_id': queries, 'position': position, "
        "'groups': queries}) or GridSearchCV(model, grid, cv=GroupKFold(), "
        "scoring=scorer).fit(X, clicks, list_id=lists, query_id=queries, "
        "position=position, groups=queries);\n"
        "  2. DataFrame columns: give X as a DataFrame with columns "
        f"{', '.join(repr(columns[m]) for m in missing)} (and "
        f"{columns['query_id']!r} for the queries), name others with "
        f"skrank.clicks.get_scorer(..., {suggested}), and drop them in the "
        "model's pipeline.\n"
    )


def get_scorer(metrics, *, propensity, clip=None, query_id_column="qid",
               list_id_column="list_id", position_column="position"):
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
        positions, or one positive number for every position. Not one
        value per row: the scorer looks each row's up from its position.
    clip : float in (0, 1], default=None
        Propensities below ``clip`` are raised to it (less variance, some
        bias).
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` holding the query each list answers,
        read when no ``query_id`` is routed (without either, every list is
        its own query). None: never read a column.
    list_id_column : str, int or None, default="list_id"
        Column of a DataFrame ``X`` holding the list (impression) ids, read
        when no ``list_id`` is routed. None: never read a column.
    position_column : str, int or None, default="position"
        Column of a DataFrame ``X`` holding the logged positions, read when
        no ``position`` is routed. None: never read a column.

    Returns
    -------
    scorer : ClickScorer
        A picklable callable ``scorer(estimator, X, clicks, *,
        list_id=None, query_id=None, position=None, sample_weight=None)`` returning a
        float (a dict for a list of metrics). ``"arp"`` (lower is better)
        is returned negated, as scikit-learn's ``neg_*`` scorers, so that a
        search maximising the score minimises it.

    Raises
    ------
    ValueError
        For an unknown metric name, a propensity that is not a
        ``PositionBias``, callable or positive finite number, or ``clip`` outside
        (0, 1]. When called without list ids or positions, the scorer
        raises a ``ValueError`` naming every missing one and saying how to
        pass them.

    See Also
    --------
    skrank.clicks.evaluate : The estimates, on given scores.
    skrank.get_scorer : Scorers of relevance labels.

    Notes
    -----
    ``list_id`` is the displayed list (impression) of each row, the unit
    that is re-ranked; ``query_id`` is the query it answers (default: the
    list), the unit to keep whole in one fold. They and ``position`` reach
    the scorer in one of two ways:

    * metadata routing: ``sklearn.set_config(enable_metadata_routing=True)``
      (the scorer requests all three), then ``cross_validate(...,
      params={"list_id": lists, "query_id": queries, "position": position,
      "groups": queries})`` or ``GridSearchCV(...).fit(X, clicks,
      list_id=lists, query_id=queries, position=position, groups=queries)``
      (``set_score_request(query_id="groups")`` reuses the groups);
    * columns of a DataFrame ``X``, ``"list_id"``, ``"qid"`` and
      ``"position"`` by default, which the model's pipeline drops (a
      ``ColumnTransformer`` with ``("drop", "drop", ["list_id", "qid",
      "position"])``): a model trained on the position learns the logger.

    Split by query (``GroupKFold`` with the query ids as groups): the lists
    of one query share documents, and splitting them lets a model be scored
    on what it was trained on. Every value equals
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
    >>> scorer(model, X, [0, 0, 1], list_id=[7, 7, 7], position=[1, 2, 3])
    {'dcg@10': 3.0, 'arp': -3.0}
    """
    return ClickScorer(metrics, propensity=propensity, clip=clip,
                       query_id_column=query_id_column,
                       list_id_column=list_id_column,
                       position_column=position_column)
