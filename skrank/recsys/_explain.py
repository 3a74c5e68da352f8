"""Several list metrics at once (evaluate_lists), and why two libraries differ
(explain_list_difference).

The recommendation-list metrics take item ids and a history rather than
relevance labels, so they are not names of :func:`skrank.evaluate` (whose
rows are ``(y_true, y_score)``); :func:`evaluate_lists` is their
multi-metric face. :func:`explain_list_difference` walks from one
library's conventions to another's one option at a time, as
:func:`skrank.explain_difference` does for ranking metrics, and returns
the same :class:`~skrank.DifferenceExplanationResult`.
"""

import inspect
import warnings

import numpy as np

from .._core._params import COUNT, Rule, validate_params
from .._core._validation import describe
from ..metrics import DifferenceExplanationResult
from ..metrics._conventions import largest_moves, same_or_both_nan
from ._coverage import N_ITEMS
from ._names import RECSYS_METRICS, parse_recsys_name
from ._presets import RECSYS_PRESETS

#: the data arguments, passed to each metric that takes them
DATA = ("history_item_id", "history_query_id", "catalog", "n_items", "item_features",
        "relevant")
#: the order in which the path changes options: the cutoff, then what is
#: counted (popularity basis, cold items), then how it is averaged and logged
PATH_ORDER = ("k", "formula", "similarity", "metric", "popularity", "unseen", "tail",
              "average", "divide_by", "normalize", "outside", "padding_item", "weight",
              "patience", "base", "per_item", "relevant_dtype", "single", "output")


def evaluate_lists(item_id, y_score, *, query_id, metrics=("novelty@10", "coverage@10"),
                   **options):
    """Compute several recommendation-list metrics of the same rows.

    Parameters
    ----------
    item_id, y_score, query_id : array-like of shape (n_rows,)
        The (user, item) rows, as for :func:`novelty_score`.
    metrics : str or list of str, default=("novelty@10", "coverage@10")
        Names: ``"novelty"``, ``"coverage"`` (``"catalog_coverage"``),
        ``"entropy"`` (``"distributional_coverage"``), ``"arp"``
        (``"popularity"``), ``"aplt"`` (``"tail_share"``), ``"gini"``, each
        with an optional ``@k`` (default 10).
    **options : dict
        The history (``history_item_id=``, ``history_query_id=``),
        ``catalog=``, ``n_items=``, ``compat=`` and the metrics' options;
        each goes to every metric whose function takes it. An option no
        metric takes is a ``ValueError``.

    Returns
    -------
    results : dict
        Name -> float, in the order of ``metrics``.

    Examples
    --------
    >>> from skrank.recsys import evaluate_lists
    >>> evaluate_lists(["a", "b", "a", "c"], [2, 1, 2, 1], query_id=[0, 0, 1, 1],
    ...                metrics=["coverage@1", "gini@1"], n_items=3)
    {'coverage@1': 0.333..., 'gini@1': 0.666...}
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(dict.fromkeys(metrics))
    if not metrics:
        raise ValueError("`metrics` is empty: name at least one metric.")
    parsed = [parse_recsys_name(name) for name in metrics]
    taken = set()
    results = {}
    for name, (stem, k) in zip(metrics, parsed):
        func = RECSYS_METRICS[stem]
        takes = inspect.signature(func).parameters
        mine = {key: value for key, value in options.items() if key in takes}
        taken |= set(mine)
        results[name] = func(item_id, y_score, query_id=query_id,
                             **{**mine, "k": 10 if k is None else k})
    unused = sorted(set(options) - taken)
    if unused:
        raise ValueError(f"No metric of {metrics} takes the option {unused[0]!r}.")
    return results


def _side(side, stem):
    """The options of one side: a library's preset or a dict of options."""
    if isinstance(side, dict):
        return dict(side)
    return RECSYS_PRESETS[side].options_for(stem)


def _full(func, options):
    """Every option of ``func`` the path can change, its defaults filled in."""
    parameters = inspect.signature(func).parameters
    names = set(func.parameter_rules) - {"compat", "aggregate", "k", *DATA}
    unknown = set(options) - names
    if unknown:
        raise ValueError(
            f"{func.__name__} takes no option {', '.join(sorted(map(repr, unknown)))}; "
            f"its options: {', '.join(sorted(names))}."
        )
    return {name: options.get(name, parameters[name].default) for name in names}


def _values(func, item_id, y_score, query_id, k, data, options):
    """(mean, per-user values or None) of ``func`` under ``options``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean = func(item_id, y_score, query_id=query_id, k=k, **data, **options)
        per_user = None
        if "aggregate" in func.parameter_rules and options.get("average") != "rows":
            per_user = func(item_id, y_score, query_id=query_id, k=k, aggregate=None,
                            **data, **options)
    return float(mean), per_user


def _check_metric(name, value):
    parse_recsys_name(value)  # the error names `metric`
    return value


def _check_side(name, value):
    if isinstance(value, dict) or (isinstance(value, str) and value in RECSYS_PRESETS):
        return value
    raise ValueError(
        f"`{name}` must be a library name ({', '.join(map(repr, RECSYS_PRESETS))}) or a "
        f"dict of options, got {describe(value)}."
    )


@validate_params({
    "metric": Rule(_check_metric, ("ndcg@10", 1.5, None)),
    "a": Rule(_check_side, ("lightgbm", 1.5, None)),
    "b": Rule(_check_side, ("lightgbm", 1.5, None)),
    "n_queries": COUNT,
    "n_items": N_ITEMS,
})
def explain_list_difference(item_id, y_score, *, query_id, metric="novelty@10",
                            a="recommenders", b="rectools", history_item_id=None,
                            history_query_id=None, catalog=None, n_items=None,
                            item_features=None, relevant=None, n_queries=5):
    """Why a recommendation-list metric differs between two libraries, one option at a time.

    The list counterpart of :func:`skrank.explain_difference`: starting from
    side ``a``'s options, each option on which ``b`` differs is changed in
    turn (the cutoff, then the popularity basis, cold items, the tail, the
    averaging, the normalisation, the weights and last the logarithm's
    base), reporting the value after each change.

    Parameters
    ----------
    item_id, y_score, query_id : array-like of shape (n_rows,)
        The (user, item) rows.
    metric : str, default="novelty@10"
        A name as for :func:`evaluate_lists`.
    a, b : str or dict, default="recommenders" and "rectools"
        A library (``"recommenders"``, ``"rectools"``, ``"recbole"``,
        ``"lenskit"``) or a dict of options (those left out take the
        function's defaults).
    history_item_id, history_query_id, catalog, n_items : default=None
        The data of the metric's function, passed when it takes them.
    item_features, relevant : default=None
        The same, for intra-list diversity and serendipity.
    n_queries : int, default=5
        How many of the users whose values move most to report.

    Returns
    -------
    explanation : DifferenceExplanationResult
        ``value_a``, ``value_b``, ``steps`` and ``queries`` (the users that
        move most; none for a metric of all lists at once: coverage,
        entropy, Gini, or novelty pooled over rows).

    Examples
    --------
    >>> from skrank.recsys import explain_list_difference
    >>> history = ["a", "a", "b", "c"]
    >>> result = explain_list_difference(["a", "b", "z"], [3, 2, 1], query_id=[0, 0, 0],
    ...                                  metric="novelty@3", history_item_id=history,
    ...                                  history_query_id=[1, 2, 1, 2])
    >>> [step["option"] for step in result.steps]
    ['popularity', 'unseen', 'average']
    >>> round(result.value_a, 4), round(result.value_b, 4)
    (1.0, 0.6667)
    """
    stem, k = parse_recsys_name(metric)
    k = 10 if k is None else k
    func = RECSYS_METRICS[stem]
    current = _full(func, _side(a, stem))
    target = _full(func, _side(b, stem))
    takes = inspect.signature(func).parameters
    given = dict(history_item_id=history_item_id, history_query_id=history_query_id,
                 catalog=catalog, n_items=n_items, item_features=item_features,
                 relevant=relevant)
    data = {key: value for key, value in given.items() if key in takes and value is not None}
    changed = [name for name in PATH_ORDER if current.get(name) != target.get(name)]
    start_options = dict(current)
    value_a, start = _values(func, item_id, y_score, query_id, k, data, current)
    steps, previous, before = [], value_a, start
    for name in changed:
        old = current[name]
        current = {**current, name: target[name]}
        value, per_user = _values(func, item_id, y_score, query_id, k, data, current)
        moved = 0
        if before is not None and per_user is not None:
            moved = int(np.sum(~same_or_both_nan(before.value, per_user.value)))
        steps.append({"option": name, "from": old, "to": target[name], "value": value,
                      "change": value - previous, "queries_changed": moved})
        previous, before = value, per_user
    queries = ([] if start is None or before is None
               else largest_moves(start, before, n_queries))
    label = (lambda side: side if isinstance(side, str) else "options")
    return DifferenceExplanationResult(f"{stem}@{k}", label(a), label(b), value_a,
                                       previous, steps, queries, start_options, target)
