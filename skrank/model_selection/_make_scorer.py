"""The scorer factories: get_scorer, make_ranking_scorer, get_scorer_names.

They turn a metric name, function or list into a :class:`RankingScorer` or
:class:`MultiMetricScorer` (``_scorer``), which get their query ids as
``_query_ids`` describes.
"""

import re

from .._core._params import (
    COMPAT,
    validate_params,
)
from .._core._validation import describe
from ..metrics._intent_names import match_intent_name
from ..metrics._registry import metric_names, parse_metric_name
from ._intent_scorer import IntentScorer
from ._scorer import MultiMetricScorer, RankingScorer, parse_name


def make_ranking_scorer(metric, *, query_id_column="qid", response_method="auto",
                        **kwargs):
    """Make a scikit-learn scorer from a skrank metric.

    The scorer scores each query of a test fold separately and averages, as
    the metric does with ``query_id``. It gets the query ids through
    scikit-learn's metadata routing (it requests ``query_id``) or, when
    none are routed, from the ``query_id_column`` of a DataFrame ``X``.

    Parameters
    ----------
    metric : callable, str, list or dict
        A skrank metric function (:func:`skrank.ndcg_score`, ...) or any
        function ``metric(y_true, y_score, *, query_id, ...)`` returning a
        float; or a metric name such as ``"ndcg@10"`` (see
        :func:`get_scorer_names`). A list of them (names, functions or
        single scorers), or a dict mapping result keys to them, gives one
        :class:`MultiMetricScorer`.
    query_id_column : str, int or None, default="qid"
        Column of a DataFrame ``X`` holding the query ids, read when no
        ``query_id`` is routed to the scorer. None: never read a column.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The estimator's method giving the ranking scores. ``"auto"``: the
        first the estimator has of ``predict_proba`` (a binary classifier's
        positive column; for graded classes the expected grade
        ``proba @ classes_``), ``decision_function`` and ``predict``
        (regressors and rankers). A method with a ``query_id`` parameter
        (a per-query selector) is given the query ids.
    **kwargs : dict
        Options of the metric, fixed for every call (``k=10``,
        ``gain="linear"``, ``no_relevant="zero"``, ...). With several
        metrics, each option goes to every metric that takes it; give one
        metric its own options as a single scorer in the list:
        ``make_ranking_scorer(["map", make_ranking_scorer("ndcg@10",
        gain="linear")])``.
        ``compat="lightgbm"`` (any preset of :func:`describe_convention`)
        gives the peer's number: the preset's options become the defaults,
        options given explicitly win, and metric names may be the peer's
        own (``"ndcg@10-"`` with ``compat="xgboost"``).

    Returns
    -------
    scorer : RankingScorer or MultiMetricScorer
        A picklable callable ``scorer(estimator, X, y_true, *,
        sample_weight=None, query_id=None)`` returning a float (a dict of
        floats for several metrics).

    Raises
    ------
    ValueError
        If ``metric`` is neither a metric function nor a known name, or an
        option is invalid. When called without query ids, the scorer raises
        a ``ValueError`` explaining both ways to pass them.

    See Also
    --------
    get_scorer : The same, from a name.
    sklearn.metrics.make_scorer : Also works, with
        ``.set_score_request(query_id=True)`` and routing on.

    Notes
    -----
    Query ids must reach the scorer in one of two ways:

    * metadata routing: ``sklearn.set_config(enable_metadata_routing=True)``,
      then ``cross_validate(..., params={"query_id": qid, "groups": qid})``
      or ``GridSearchCV(...).fit(X, y, query_id=qid, groups=qid)``;
    * a DataFrame column named ``query_id_column`` that the estimator's
      pipeline drops (e.g. with a ``ColumnTransformer``).

    Use folds that keep each query whole (``GroupKFold``,
    ``StratifiedGroupKFold``, ``GroupShuffleSplit``, ``LeaveOneGroupOut``):
    ``KFold`` splits queries, and scores on partial queries are inflated.
    Tools that pick rows rather than queries (``learning_curve``,
    ``HalvingGridSearchCV(resource="n_samples")``, scikit-learn's
    ``permutation_importance`` with ``max_samples<1``) hand the scorer
    partial queries, which it cannot tell from short whole ones: the user
    guide's section "Tools that cut queries apart" says what to use instead.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> from skrank import make_ranking_scorer, ndcg_score
    >>> scorer = make_ranking_scorer(ndcg_score, k=2)
    >>> scorer
    make_ranking_scorer(ndcg_score, k=2)
    >>> X = np.array([[3.0], [2.0], [1.0], [1.0], [2.0], [3.0]])
    >>> y = np.array([1, 0, 0, 1, 0, 0])
    >>> qid = np.array([1, 1, 1, 2, 2, 2])
    >>> model = LinearRegression().fit(X[:3], y[:3])   # ranks larger x first
    >>> scorer(model, X, y, query_id=qid)   # query 1: nDCG 1, query 2: nDCG 0
    0.5
    """
    if isinstance(metric, (list, tuple, dict)):
        return MultiMetricScorer(
            metric, kwargs, query_id_column=query_id_column,
            response_method=response_method,
        )
    return RankingScorer(
        metric,
        kwargs,
        query_id_column=query_id_column,
        response_method=response_method,
    )


@validate_params({"compat": COMPAT})
def get_scorer(name, *, compat=None):
    """Get a ranking scorer from its name, such as ``"ndcg@10"``.

    Parameters
    ----------
    name : str or list of str
        A metric name from :func:`get_scorer_names`: a stem (``"ndcg"``,
        ``"map"``, ``"gauc"``, ...), with ``@k`` for a cutoff where the
        metric takes one (``"ndcg@10"``, ``"precision@5"``); any positive
        integer ``k`` works. A list of names gives one multi-metric scorer.
        The intent-aware names of :mod:`skrank.diversity` (``"alpha_ndcg@10"``,
        ``"nerr_ia@20"``, ``"s_recall@10"``, ...) give a scorer that also
        requests the 2-D grades ``intents`` by metadata routing.
        With ``compat``, the peer's own names work too (``"ndcg@10-"``).
    compat : str, default=None
        A peer's conventions (see :func:`describe_convention`), as
        ``make_ranking_scorer(name, compat=...)``: the scorer gives the
        peer's number.

    Returns
    -------
    scorer : RankingScorer or MultiMetricScorer
        A new scorer (changing its requests leaves other scorers alone),
        with the metric's defaults otherwise; for other options use
        :func:`make_ranking_scorer`. For a list, a
        :class:`MultiMetricScorer` returning ``{name: score}``, which
        predicts and sorts once per test fold for all the metrics.

    Raises
    ------
    ValueError
        For an unknown name, listing the close matches.

    See Also
    --------
    make_ranking_scorer : Make a scorer with any metric options.

    Notes
    -----
    scikit-learn validates string ``scoring`` values against its own names,
    so pass the scorer object. For several metrics pass one multi-metric
    scorer, ``scoring=get_scorer(["ndcg@10", "map", "gauc"])`` with
    ``refit="ndcg@10"`` in a search: each test fold is predicted and sorted
    once for all of them. A dict of single scorers,
    ``{name: get_scorer(name) for name in names}``, gives the same numbers
    with one predict and one sort per metric.

    The scorers of the losses ``"coverage_error"`` and
    ``"label_ranking_loss"`` return the negated loss, as scikit-learn's
    ``neg_*`` scorers do (their ``greater_is_better`` is False), so that a
    search maximising the score minimises the loss.

    Examples
    --------
    >>> from skrank import get_scorer
    >>> get_scorer("ndcg@10")
    make_ranking_scorer(ndcg_score, k=10)
    >>> get_scorer("f1@5")
    make_ranking_scorer(fbeta_at_k_score, k=5, beta=1.0)
    >>> get_scorer(["ndcg@10", "map", "gauc"])
    get_scorer(['ndcg@10', 'map', 'gauc'])
    """
    intents = [name] if isinstance(name, str) else list(name) if isinstance(
        name, (list, tuple)) else []
    if intents and all(match_intent_name(one) is not None for one in intents):
        if compat is not None:
            raise ValueError("The intent-aware metrics have no `compat` presets.")
        return IntentScorer(name if isinstance(name, str) else intents)
    if compat is not None:
        if isinstance(name, (list, tuple)):
            return make_ranking_scorer(list(name), compat=compat)
        if not isinstance(name, str):
            raise ValueError(
                f"`name` must be a metric name (a string) or a list of them, got "
                f"{describe(name)}."
            )
        spec = parse_name(name, compat)[0]
        return make_ranking_scorer(name, response_method=spec.response_method,
                                   compat=compat)
    if isinstance(name, (list, tuple)) and all(isinstance(n, str) for n in name):
        for one in name:
            _check_scorer_name(one)
        return MultiMetricScorer(list(name))
    if not isinstance(name, str):
        raise ValueError(
            "`name` must be a metric name (a string) or a list of them, got "
            f"{describe(name)}."
        )
    _check_scorer_name(name)
    spec, _ = parse_metric_name(name)
    return make_ranking_scorer(name, response_method=spec.response_method)


def _check_scorer_name(name):
    if re.fullmatch(r"\s*[A-Za-z_0-9]+@k\s*", name):
        stem = name.strip().rsplit("@", 1)[0]
        raise ValueError(
            f"In {name!r}, replace k by a positive integer cutoff, such as "
            f"{stem + '@10'!r}."
        )
    parse_metric_name(name)


def get_scorer_names():
    """Names accepted by :func:`get_scorer`.

    Returns
    -------
    names : list of str
        Sorted metric names. ``"stem@k"`` entries stand for any positive
        integer cutoff ``k``, e.g. ``"ndcg@k"`` for ``"ndcg@10"``.

    See Also
    --------
    get_scorer : Make a scorer from one of these names.

    Examples
    --------
    >>> from skrank import get_scorer_names
    >>> [name for name in get_scorer_names() if name.startswith("ndcg")]
    ['ndcg', 'ndcg@k']
    >>> "gauc" in get_scorer_names()
    True
    """
    return metric_names()
