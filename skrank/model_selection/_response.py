"""One rule turning a fitted estimator's output into one ranking score per row.

The scorers, :class:`skrank.FAPCutoffClassifier` and
:class:`skrank.QueryGroupRanker` all call :func:`ranking_scores`; higher
scores always mean "more relevant".

The rule, by response method:

* ``predict_proba``: the column of ``pos_label`` when one is given; else a
  binary classifier's second column (``classes_[1]``, scikit-learn's
  positive class), and for more classes with numeric labels (relevance
  grades) the expected grade ``proba @ classes_``;
* ``decision_function``: one value per row, negated when ``pos_label`` is a
  binary classifier's first class;
* ``predict``: a regressor's or ranker's output as it is; a classifier's
  labels compared with ``pos_label`` (1.0 for a match) when one is given.

``"auto"`` takes the first method the estimator has of ``predict_proba``,
``decision_function`` and ``predict`` (the order of scikit-learn's
``TunedThresholdClassifierCV``).
"""

import inspect

import numpy as np
from sklearn import get_config
from sklearn.pipeline import Pipeline
from sklearn.utils.metadata_routing import get_routing_for_object

RESPONSE_METHODS = ("auto", "predict_proba", "decision_function", "predict")
_AUTO_RESPONSE = ("predict_proba", "decision_function", "predict")


def response_method_of(estimator, response_method="auto"):
    """The name of the method ``response_method`` resolves to on ``estimator``."""
    names = _AUTO_RESPONSE if response_method == "auto" else (response_method,)
    for name in names:
        # hasattr is False for methods hidden by available_if
        if hasattr(estimator, name):
            return name
    raise ValueError(
        f"{type(estimator).__name__} has no {' or '.join(names)} method to score "
        f"rows with (response_method={response_method!r})."
    )


def ranking_scores(estimator, X, *, response_method="auto", pos_label=None,
                   query_id=None):
    """One float score per row of ``X`` from a fitted ``estimator``.

    Parameters
    ----------
    estimator : object
        A fitted estimator.
    X : array-like or DataFrame
        The rows to score.
    response_method : {"auto", "predict_proba", "decision_function", \
"predict"}, default="auto"
        The method to call, or ``"auto"`` for the first available.
    pos_label : object, default=None
        The relevant class of a classifier; None for scikit-learn's default
        (``classes_[1]`` of a binary classifier).
    query_id : array-like, default=None
        Given to the method when it takes ``query_id`` (a per-query selector,
        or a Pipeline whose step consumes it).

    Returns
    -------
    scores : ndarray of shape (n_rows,)
    """
    name = response_method_of(estimator, response_method)
    params = {}
    if query_id is not None and _method_takes_query_id(estimator, name):
        params["query_id"] = query_id
    output = np.asarray(getattr(estimator, name)(X, **params))
    if output.ndim == 2 and output.shape[1] == 1:
        output = output[:, 0]
    classes = getattr(estimator, "classes_", None)
    if name == "predict_proba":
        return _probability_scores(output, estimator, classes, pos_label)
    if output.ndim != 1:
        raise ValueError(
            f"{type(estimator).__name__}.{name} returned an array of shape "
            f"{output.shape}; a ranking needs one score per row. For a multiclass "
            "classifier trained on relevance grades, use "
            "response_method=\"predict_proba\" (scored by the expected grade)."
        )
    if name == "decision_function":
        if (pos_label is not None and classes is not None and len(classes) == 2
                and classes[0] == pos_label):
            return -output.astype(np.float64)
        return output
    if pos_label is not None and classes is not None:  # a classifier's labels
        return (output == pos_label).astype(np.float64)
    return output


def _probability_scores(proba, estimator, classes, pos_label):
    if proba.ndim == 1:
        return proba
    if pos_label is not None:
        column = np.flatnonzero(np.asarray(classes) == pos_label)
        if column.shape[0] != 1:
            raise ValueError(
                f"`pos_label` {pos_label!r} is not one of the estimator's classes "
                f"{list(classes)}."
            )
        return proba[:, column[0]].astype(np.float64)
    if proba.ndim == 2 and proba.shape[1] == 2:
        return proba[:, 1]
    classes = np.asarray(classes if classes is not None else ())
    if proba.ndim == 2 and classes.shape == (proba.shape[1],) and (
        classes.dtype.kind in "biuf"
    ):
        return proba @ classes.astype(np.float64)
    raise ValueError(
        f"{type(estimator).__name__}.predict_proba returned an array of shape "
        f"{proba.shape}, and its `classes_` are not numeric relevance grades, so "
        "it cannot be reduced to one ranking score per row (the expected grade "
        "proba @ classes_). Train on numeric grades or pass "
        "response_method=\"predict\"."
    )


def _method_takes_query_id(estimator, method_name):
    """Whether ``estimator.<method_name>`` should be given the query ids.

    True when the method has a ``query_id`` parameter (a per-query top-k
    selector), or, for a Pipeline, when its final step's method has one
    (routing off: the Pipeline passes keywords to the final step) or some
    step consumes ``query_id`` for that method (routing on).
    """
    method = getattr(estimator, method_name)
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False
    if "query_id" in parameters:
        return True
    if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return False
    if get_config().get("enable_metadata_routing", False):
        try:
            routing = get_routing_for_object(estimator)
            return bool(routing.consumes(method_name, ["query_id"]))
        except Exception:  # an estimator without routing support
            return False
    if isinstance(estimator, Pipeline):
        final = estimator.steps[-1][1]
        if final is None or final == "passthrough" or not hasattr(final, method_name):
            return False
        return _method_takes_query_id(final, method_name)
    return False
