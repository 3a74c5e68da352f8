"""The gradient-boosting libraries' side of QueryGroupRanker.

What differs between LightGBM, XGBoost and CatBoost: which argument of
``fit`` carries the queries (:func:`_detect_library`), how an evaluation set
and early stopping are given (:func:`_add_evaluation`), how the best
iteration is read back (:func:`_best_iteration`), and how skrank metrics
become each library's evaluation metric (LightGBM's callable, an XGBoost
training callback, a CatBoost user-defined metric), all computed with
:func:`skrank.evaluate` on the held-out queries' ids. The meta-estimator
itself is in ``_query_group``.
"""

import warnings
from dataclasses import dataclass, field, replace
from numbers import Integral

import numpy as np

from .._core._validation import describe
from .._core._warnings import warn
from ..metrics._evaluate import evaluate
from ._query_ids import QueryScorer
from ._scorer import parse_name

LIBRARIES = ("auto", "lightgbm", "xgboost", "catboost")
# the fit argument that carries the queries, per library
_GROUP_ARGUMENT = {"lightgbm": "group", "xgboost": "qid", "catboost": "group_id"}


# -- skrank metrics in the libraries' formats -----------------------------------
@dataclass(frozen=True)
class EvalMetric:
    """One metric of ``eval_metric``, as the libraries log and compute it.

    ``name`` is what the library logs: a skrank metric name (``"ndcg@10"``,
    read under the preset ``compat``; None: skrank's conventions), or
    ``"clicks:<metric>"`` for a click metric, with ``click`` its scorer,
    ``metric`` its name there and ``position`` the logged positions of the
    held-out rows (bound by ``QueryGroupRanker.fit``).
    """

    name: str
    compat: object = None
    click: object = field(default=None, compare=False)
    metric: object = None
    position: object = field(default=None, compare=False, repr=False)

    def __str__(self):
        return self.name


def _is_click_scorer(value):
    # a skrank scorer that reads the logged positions: skrank.clicks.ClickScorer
    # (clicks imports model_selection, not the reverse); it computes its values
    # of given scores with QueryScorer.evaluate_scores
    return isinstance(value, QueryScorer) and "position" in value.metadata


def _parse(name):
    """(spec, k, options) of a name, the peer's own under its preset."""
    return parse_name(name.name, name.compat)


def _check_eval_metric(eval_metric, compat=None):
    if eval_metric is None:
        return []
    entries = [eval_metric] if isinstance(eval_metric, str) or _is_click_scorer(
        eval_metric) else eval_metric
    if not isinstance(entries, (list, tuple)) or not entries or not all(
        isinstance(entry, str) or _is_click_scorer(entry) for entry in entries
    ):
        raise ValueError(
            "`eval_metric` must be a skrank metric name (such as \"ndcg@10\"), a "
            "click scorer (skrank.clicks.get_scorer), a list of them, or None, got "
            f"{describe(eval_metric)}."
        )
    names = []
    for entry in entries:
        if isinstance(entry, str):
            name = EvalMetric(entry, compat)
            # raises for an unknown name, with close matches, and for a
            # metric the preset's peer does not have
            _parse(name)
            names.append(name)
        else:
            metrics = entry.metrics
            for metric in [metrics] if isinstance(metrics, str) else metrics:
                names.append(EvalMetric(f"clicks:{metric}", click=entry, metric=metric))
    if len(set(names)) != len(names):
        raise ValueError(
            f"`eval_metric` names a metric twice: {[name.name for name in names]}."
        )
    return names


def _bind_positions(names, position):
    """The names, click metrics bound to the held-out rows' positions."""
    if not any(name.click is not None for name in names):
        return names
    if position is None:
        raise ValueError(
            "`eval_metric` has a click metric, which needs the position at which "
            "the logger showed each row: pass `position` to fit (with metadata "
            "routing on, the ranker requests it by default)."
        )
    return [name if name.click is None else replace(name, position=position)
            for name in names]


def _skrank_values(names, y_true, y_score, query_id, weight=None):
    """Mean of each metric over the queries (nan when no query is defined).

    Click metrics are their scorer's IPS estimates (``-arp`` for ``"arp"``):
    higher is better.
    """
    labels = [name for name in names if name.click is None]
    values = {}
    with warnings.catch_warnings():
        # an evaluation set without a relevant row in some query is normal
        warnings.simplefilter("ignore")
        if labels:
            compat = labels[0].compat
            results = evaluate(
                y_true, y_score, query_id=query_id, metrics=[n.name for n in labels],
                sample_weight=weight, **({} if compat is None else {"compat": compat}),
            )
            values.update({name: float(results[name.name]) for name in labels})
        clicks = {}
        for name in names:
            if name.click is not None:
                if id(name.click) not in clicks:
                    clicks[id(name.click)] = name.click.evaluate_scores(
                        y_true, y_score, query_id, sample_weight=weight,
                        position=name.position)
                values[name] = float(clicks[id(name.click)][name.metric])
    return {name: values[name] for name in names}


def _higher_is_better(name):
    """False for a loss (``"coverage_error"``, ``"label_ranking_loss"``)."""
    if name.click is not None:
        return True  # the click scorer negates arp
    return _parse(name)[0].greater_is_better


class _LightGBMMetric:
    """LightGBM's callable ``eval_metric(y_true, y_pred, weight, group)``.

    LightGBM gives the query sizes of the evaluated data set, in its row
    order (the sorted order the wrapper fitted with).
    """

    def __init__(self, names):
        self.names = names

    def __call__(self, y_true, y_pred, weight, group):
        query_id = np.repeat(np.arange(len(group)), np.asarray(group, dtype=np.int64))
        values = _skrank_values(self.names, y_true, y_pred, query_id, weight)
        return [(name.name, values[name], _higher_is_better(name))
                for name in self.names]


class _WatchFirst:
    """LightGBM's early stopping on one metric, whatever metrics come first.

    ``lightgbm.early_stopping(first_metric_only=True)`` watches the first
    metric of each round's results, and LightGBM lists the built-in metrics
    the estimator sets (``metric="ndcg"``) before those of a callable
    ``eval_metric``. This callback hands LightGBM's own callback the results
    with the watched metric moved first, so its rules (first best round,
    patience, best iteration at the last round) apply to that metric.
    """

    def __init__(self, callback, name):
        self.callback = callback
        self.name = name
        self.order = callback.order
        self.before_iteration = callback.before_iteration

    def __call__(self, env):
        import dataclasses

        results = env.evaluation_result_list
        if results:
            watched = [result for result in results if result[1] == self.name]
            results = watched + [r for r in results if r[1] != self.name]
            if hasattr(env, "_replace"):  # LightGBM < 4.7: a namedtuple
                env = env._replace(evaluation_result_list=results)
            else:
                env = dataclasses.replace(env, evaluation_result_list=results)
        self.callback(env)


def _check_held_out(names, eval_set, rounds):
    """Refuse (early stopping) or warn when no held-out query can be scored.

    A skrank metric leaves out a query it cannot score (no relevant row; for
    GAUC, no pair of a relevant and an irrelevant row). When that is every
    held-out query, the metric is nan every round: early stopping would stop
    at once and keep the first trees.
    """
    from sklearn.exceptions import UndefinedMetricWarning

    y_held = np.asarray(eval_set["y"])
    n_queries = int(eval_set["codes"][-1]) + 1 if y_held.shape[0] else 0
    where = (
        f"the {n_queries} held-out quer{'y' if n_queries == 1 else 'ies'} "
        "(the evaluation set drawn by validation_fraction and random_state)"
    )
    fix = (
        "Hold out more queries (a larger validation_fraction), draw others "
        "(another random_state), or check that `y` marks relevant rows (y > 0)."
    )
    if not names:
        if rounds is not None and not (y_held > 0).any():
            raise ValueError(
                f"Early stopping watches {where}, but none of them has a relevant "
                "row, so every ranking of them scores the same and training would "
                f"stop after the first rounds. {fix}"
            )
        return
    constant = np.zeros(y_held.shape[0])
    values = _skrank_values(names, y_held, constant, eval_set["codes"],
                            eval_set["row_weight"])
    no_click = not (y_held > 0).any()  # a click metric is then 0 every round
    undefined = [name for name in names if np.isnan(values[name]) or (
        no_click and name.click is not None)]
    if not undefined:
        return
    what = (
        f"The skrank eval metric{'s' if len(undefined) > 1 else ''} "
        f"{', '.join(repr(name.name) for name in undefined)} cannot score any of "
        f"{where}: none has "
        "a relevant row (GAUC: both a relevant and an irrelevant row), and a "
        "query that cannot be scored is left out, so the value is nan every round "
        "(a click metric without a held-out click: 0 every round)"
    )
    if rounds is not None and undefined[0] == names[0]:
        raise ValueError(
            f"{what}; early stopping on {names[0].name!r} would stop training at once. "
            f"{fix}"
        )
    warn(f"{what}. {fix}", UndefinedMetricWarning)


class _CatBoostMetric:
    """A CatBoost user-defined metric computing the first skrank metric.

    CatBoost's Python metric API passes the labels and predictions of a data
    set but not its query ids; the metric knows the layouts it will see (the
    training rows and the held-out rows, both sorted by query) and finds
    which one it is given by its labels.
    """

    def __init__(self, name, datasets):
        self.name = name
        self.datasets = datasets  # [(y_sorted, codes, group weights or None)]

    def is_max_optimal(self):
        return _higher_is_better(self.name)

    def evaluate(self, approxes, target, weight):
        y_true = np.asarray(target, dtype=np.float64)
        for labels, codes, _ in self.datasets:
            if labels.shape == y_true.shape and np.array_equal(labels, y_true):
                break
        else:
            raise ValueError(
                "The skrank evaluation metric was given rows it does not know "
                "(CatBoost passes no query ids to Python metrics); evaluate on "
                "the held-out queries of QueryGroupRanker(validation_fraction=...)."
            )
        score = np.asarray(approxes[0], dtype=np.float64)
        row_weight = None if weight is None else np.asarray(weight, dtype=np.float64)
        value = _skrank_values([self.name], y_true, score, codes, row_weight)[self.name]
        return value, 1.0

    def get_final_error(self, error, weight):
        return error


def _xgboost_callback(names, X_eval, y_eval, codes, weight, early_stopping_rounds):
    """An XGBoost training callback computing skrank metrics on the held-out rows.

    XGBRanker calls a Python ``eval_metric`` once per query with that
    query's rows only, averaging in Python (single-row queries count as 1).
    This callback instead predicts the held-out rows after each round with
    the trees so far and scores them with :func:`skrank.evaluate`, query ids
    known from the split. The values are logged in ``evals_result()`` under
    ``"skrank"``; with ``early_stopping_rounds`` the first metric stops the
    training, and ``best_iteration`` is set as XGBoost's own early stopping
    sets it (``predict`` then uses the trees up to it).
    """
    import xgboost

    sign = 1.0 if _higher_is_better(names[0]) else -1.0  # a loss is minimised

    class SkrankMetrics(xgboost.callback.TrainingCallback):
        def __init__(self):
            super().__init__()
            self.best_score = -sign * np.inf
            self.best_iteration = 0

        def after_iteration(self, model, epoch, evals_log):
            scores = model.inplace_predict(X_eval, iteration_range=(0, epoch + 1))
            values = _skrank_values(names, y_eval, scores, codes, weight)
            log = evals_log.setdefault("skrank", {})
            for name in names:
                log.setdefault(name.name, []).append(values[name])
            first = values[names[0]]
            if sign * first > sign * self.best_score:
                self.best_score, self.best_iteration = first, epoch
            return (
                early_stopping_rounds is not None
                and epoch - self.best_iteration >= early_stopping_rounds
            )

        def after_training(self, model):
            if early_stopping_rounds is not None:
                model.set_attr(
                    best_iteration=str(self.best_iteration),
                    best_score=str(self.best_score),
                )
            return model

    return SkrankMetrics()


def _detect_library(estimator, library):
    """Which library's group argument ``estimator.fit`` takes."""
    if library != "auto":
        return library
    module = type(estimator).__module__.split(".")[0]
    if module in ("lightgbm", "xgboost", "catboost"):
        return module
    fit = getattr(estimator, "fit", None)
    for library_name in ("catboost", "xgboost", "lightgbm"):
        if fit is not None and _takes(fit, _GROUP_ARGUMENT[library_name]):
            return library_name
    raise ValueError(
        f"QueryGroupRanker cannot tell how {type(estimator).__name__}.fit takes the "
        "queries: its fit has no `group`, `qid` or `group_id` parameter. Wrap a "
        "ranker that takes group information (lightgbm.LGBMRanker, "
        "xgboost.XGBRanker, catboost.CatBoostRanker), or set library= to the "
        "library whose convention it follows. A model that ranks rows one at a "
        "time (a regressor or classifier) needs no wrapper: use it directly."
    )


def _add_evaluation(estimator, library, fit_args, fit_set, eval_set, rounds, names):
    """Put the held-out queries, stopping rule and metrics in the library's form.

    Changes ``estimator`` (a clone) and ``fit_args`` in place; returns the
    estimator parameters to put back after ``fit``.
    """
    restore = {}
    if library == "lightgbm":
        import lightgbm

        if _takes(estimator.fit, "eval_X"):  # LightGBM >= 4.7
            fit_args["eval_X"], fit_args["eval_y"] = (eval_set["X"],), (eval_set["y"],)
        else:
            fit_args["eval_set"] = [(eval_set["X"], eval_set["y"])]
        fit_args["eval_group"] = [eval_set["group"]]
        if eval_set["weight"] is not None:
            fit_args["eval_sample_weight"] = [eval_set["weight"]]
        if names:
            fit_args["eval_metric"] = _LightGBMMetric(names)
            params = estimator.get_params()
            if params.get("metric") is None:
                restore["metric"] = params.get("metric")
                estimator.set_params(metric="None")  # LightGBM's "no built-in metric"
        if rounds is not None:
            stopping = lightgbm.early_stopping(rounds, first_metric_only=True,
                                               verbose=False)
            if names:  # LightGBM lists its built-in metrics before callables
                stopping = _WatchFirst(stopping, names[0].name)
            fit_args["callbacks"] = list(fit_args.get("callbacks") or []) + [stopping]
    elif library == "xgboost":
        fit_args["eval_set"] = [(eval_set["X"], eval_set["y"])]
        fit_args["eval_qid"] = [eval_set["group"]]
        fit_args.setdefault("verbose", False)
        if eval_set["weight"] is not None:
            fit_args["sample_weight_eval_set"] = [eval_set["weight"]]
        params = estimator.get_params()
        if names:
            if params.get("early_stopping_rounds") is not None:
                raise ValueError(
                    "Set early_stopping_rounds on QueryGroupRanker, not on the "
                    "XGBRanker, when eval_metric names skrank metrics: XGBoost's own "
                    "early stopping would watch its built-in metric."
                )
            callback = _xgboost_callback(
                names, eval_set["X"], eval_set["y"], eval_set["codes"],
                eval_set["row_weight"], rounds,
            )
            restore["callbacks"] = params.get("callbacks")
            callbacks = list(params.get("callbacks") or []) + [callback]
            estimator.set_params(callbacks=callbacks)
        elif rounds is not None:
            restore["early_stopping_rounds"] = params.get("early_stopping_rounds")
            estimator.set_params(early_stopping_rounds=rounds)
    else:
        import catboost

        pool = {"group_id": eval_set["group"]}
        if eval_set["weight"] is not None:
            pool["group_weight"] = eval_set["weight"]
        fit_args["eval_set"] = catboost.Pool(eval_set["X"], eval_set["y"], **pool)
        if rounds is not None:
            fit_args["early_stopping_rounds"] = rounds
        if names:
            params = estimator.get_params()
            datasets = [
                (np.asarray(part["y"], dtype=np.float64), part["codes"], None)
                for part in (fit_set, eval_set)
            ]
            # CatBoost refuses set_params once fitted: the metric stays, emptied
            # of the data sets after fit (see QueryGroupRanker.fit)
            estimator.set_params(eval_metric=_CatBoostMetric(names[0], datasets))
    return restore


def _takes(method, name):
    import inspect

    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def _best_iteration(estimator, library, rounds):
    if rounds is None:
        return None
    if library == "lightgbm":  # an LGBMRanker, or a Booster (trained with position)
        value = getattr(estimator, "best_iteration_",
                        getattr(estimator, "best_iteration", None))
    elif library == "xgboost":
        value = getattr(estimator, "best_iteration", None)
    else:
        value = estimator.get_best_iteration()
    return None if value is None else int(value)


# -- position-debiased training (click logs) --------------------------------------
def _check_position(position, n_rows, library):
    """``position`` as int64 positions >= 1, or None; a ValueError naming a bad row."""
    if position is None:
        return None
    if library == "catboost":
        raise ValueError(
            "`position` was passed, but CatBoost has no position-debiased "
            "training: use LightGBM or XGBoost, or do not pass it (with metadata "
            "routing on, ranker.set_fit_request(position=False) keeps the "
            "positions for the scorer only)."
        )
    values = np.asarray(position)
    if values.shape != (n_rows,):
        raise ValueError(
            f"`position` must have one value per row ({n_rows}), got shape "
            f"{values.shape}."
        )
    if values.dtype.kind not in "iuf":
        raise ValueError(
            f"`position` must hold integers (1-based positions), got dtype "
            f"{values.dtype}."
        )
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(values) & (values >= 1) & (values == np.round(values))
                & (values <= 2**53))  # checked before the cast: 1e20 would wrap
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            "`position` must be an integer >= 1 and at most 2**53 (where the logger "
            "showed the row), "
            f"got {values[row]!r} at row {row}."
        )
    return values.astype(np.int64)


def _check_one_row_per_position(position, layout, rows):
    """XGBoost reads a query's positions from its row order: one row per position."""
    same = (position[1:] == position[:-1]) & (layout.codes[1:] == layout.codes[:-1])
    if same.any():
        i = int(np.flatnonzero(same)[0]) + 1
        raise ValueError(
            f"`position`: rows {int(rows[i - 1])} and {int(rows[i])} of one query are "
            f"both at position {int(position[i])}. XGBoost reads each query's "
            "positions from the order of its rows, so a query must be one "
            "displayed list: pass the list (impression or session) ids as "
            "`query_id`."
        )


def _fit_with_position(estimator, library, fit_set, fit_args):
    """Fit ``estimator`` position-debiased; the fitted model (it or a Booster)."""
    if library == "xgboost":
        # the rows of each query are in ascending position (see _sorted_part)
        if estimator.get_params().get("lambdarank_unbiased") is None:
            estimator.set_params(lambdarank_unbiased=True)
        return estimator.fit(fit_set["X"], fit_set["y"], **fit_args)
    if _takes(estimator.fit, "position"):
        return estimator.fit(fit_set["X"], fit_set["y"], position=fit_set["position"],
                             **fit_args)
    return _train_lightgbm(estimator, fit_set, fit_args)


class _BoosterMetric:
    """A ``_LightGBMMetric`` as ``lightgbm.train``'s ``feval(preds, data)``."""

    def __init__(self, metric):
        self.metric = metric

    def __call__(self, preds, data):
        return self.metric(data.get_label(), preds, data.get_weight(), data.get_group())


def _train_lightgbm(estimator, fit_set, fit_args):
    """``lightgbm.train`` with ``Dataset(position=...)``, the estimator's parameters.

    ``LGBMRanker.fit`` (LightGBM <= 4.7) builds its ``Dataset`` without
    positions, so the wrapper builds it and trains the Booster itself. The
    estimator's parameters are LightGBM parameter names or their aliases
    (``n_estimators`` the number of rounds, ``random_state`` the seed).
    """
    import lightgbm

    params = estimator.get_params()
    n_rounds = params.pop("n_estimators", 100)
    for name in ("importance_type", "class_weight"):
        params.pop(name, None)
    if params.get("objective") is None:
        params["objective"] = "lambdarank"
    seed = params.pop("random_state", None)
    if isinstance(seed, Integral):
        params["seed"] = int(seed)
    elif seed is not None:
        raise ValueError(
            "With `position`, LightGBM is trained by lightgbm.train, whose seed is "
            f"an integer: set the LGBMRanker's random_state to an int or None, got "
            f"{describe(seed)}."
        )
    if params.get("n_jobs") is None:
        params.pop("n_jobs", None)
    args = dict(fit_args)
    if "eval_at" in args:
        params["eval_at"] = list(args.pop("eval_at"))
    dataset = {key: args.pop(key) for key in
               ("init_score", "categorical_feature", "feature_name") if key in args}
    train_set = lightgbm.Dataset(
        fit_set["X"], label=fit_set["y"], group=args.pop("group"),
        weight=args.pop("sample_weight", None), position=fit_set["position"],
        params=params, **dataset,
    )
    eval_X, eval_y = args.pop("eval_X", None), args.pop("eval_y", None)
    eval_set = list(zip(eval_X, eval_y)) if eval_X is not None else args.pop(
        "eval_set", None) or []
    eval_group = args.pop("eval_group", None)
    eval_weight = args.pop("eval_sample_weight", None)
    valid_sets = [
        lightgbm.Dataset(X_valid, label=y_valid, group=eval_group[i],
                         weight=None if eval_weight is None else eval_weight[i],
                         reference=train_set, params=params)
        for i, (X_valid, y_valid) in enumerate(eval_set)
    ]
    metric = args.pop("eval_metric", None)
    callbacks = args.pop("callbacks", None)
    if args:
        raise ValueError(
            "With `position`, LightGBM is trained by lightgbm.train (LGBMRanker.fit "
            f"takes no position), which does not take {sorted(args)}: leave them out "
            "or train without `position`."
        )
    return lightgbm.train(
        params, train_set, num_boost_round=n_rounds, valid_sets=valid_sets,
        feval=None if metric is None else _BoosterMetric(metric), callbacks=callbacks,
    )
