"""evaluate(): many metrics from one validation, one factorisation and one sort."""

import inspect
import re
import warnings
from typing import NamedTuple

import numpy as np

from .._core._params import RANKING_OPTIONS
from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries
from .._core._presets import convert_scores, preset_request
from .._core._validation import LABEL_SCORES_WARNING, check_positive_int
from ._presets_apply import validate_with_preset_per_metric
from ._calls import call_metric, dry_run
from ._intent_names import evaluate_intents, match_intent_name
from ._names import resolve_metric_name
from ._topk import applies as top_k_applies, top_k_scores

DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")


def metric_names(metrics):
    """``metrics`` as a list of distinct names (None: :data:`DEFAULT_METRICS`).

    The one reading of the ``metrics`` argument that the accumulator, the
    segments and the Dask and Spark entry points share; an empty list is an
    error.
    """
    if metrics is None:
        metrics = DEFAULT_METRICS
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(dict.fromkeys(metrics))
    if not metrics:
        raise ValueError("`metrics` is empty: name at least one metric.")
    return metrics


@validate_with_preset_per_metric(RANKING_OPTIONS)
def evaluate(
    y_true,
    y_score,
    *,
    query_id=None,
    metrics=DEFAULT_METRICS,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
    **options,
):
    """Compute several ranking metrics at once, sorting the data only once.

    Parameters
    ----------
    {y_true, y_score, query_id}
    metrics : str or list of str, default=("ndcg@10", "map", "mrr", \
"precision@10", "recall@10")
        Metric names, as for :func:`get_scorer`: ``"ndcg@10"``, ``"map"``,
        ``"mrr"``, ``"precision@5"``, ``"recall@20"``, ``"f1@5"``,
        ``"fap"``, ``"r_precision"``, ``"hit_rate@10"``, ``"gauc"``, ...
        ``"set_f1"`` counts the rows of positive ``y_score`` as returned.
    {sample_weight, ties}
    no_relevant : {"skip", "zero", "one", "error"}, default="skip"
        What a query with no relevant row scores: left out of the mean, 0,
        1, or a ``ValueError``. :func:`evaluate_run` and the ``skrank``
        command default to ``"zero"`` (trec_eval's rule), so on rows where
        some query has no relevant row their means differ from this
        function's by default; pass the same value to both to compare.
    {aggregate}
    compat : str, default=None
        A peer's conventions: ``"lightgbm"``, ``"xgboost"``, ``"catboost"``,
        ``"sklearn"``, ``"ranx"``, ``"torchmetrics"``, ``"trec_eval"`` or
        ``"spark"`` (see :func:`describe_convention`). Each metric takes the
        preset's options for it, and a name without a cutoff the peer's
        (``"precision"`` under XGBoost is its ``"pre"``, ``@32``), as the
        metric's own function does; options given explicitly win. ``metrics``
        may then also use the peer's own names (``"ndcg@10-"`` for
        XGBoost, ``"NDCG:top=5"`` for CatBoost), and a metric the peer
        lacks is a ``ValueError`` listing what it has. Each metric also
        reads ``y_true`` and ``sample_weight`` as the peer does (CatBoost's
        0.5 border, ranx's integer labels, ...), and input the peer raises
        on is a ``ValueError`` naming the rule.
    {score_dtype, retrieved}
    **options : dict
        Options of the metric functions, such as ``gain="linear"``
        (:func:`ndcg_score`, :func:`dcg_score`), ``normalize="min"``
        (:func:`average_precision_score`), ``beta=2.0`` (:func:`fap_score`)
        or ``p=0.9`` (:func:`rbp_score`). Each option goes to every requested
        metric whose function has a parameter of that name, except where the
        name fixes it (``"f1"`` is F-beta with beta 1); an option that no
        requested metric takes raises a ``ValueError``. ``gain``,
        ``normalize``, ``beta`` and ``p`` stay on the one shared sort; a
        metric given another option (such as ``weighting``) is computed by
        its own function (one more sort for it).

    Returns
    -------
    results : dict
        Metric name -> float (or :class:`QueryValues` with
        ``aggregate=None``), in the order of ``metrics``. Each value equals
        what the metric's own function returns with the same options (the
        gains of ``"ndcg"``/``"dcg"`` are exponential, their default, unless
        ``gain=`` is given).

    Notes
    -----
    Without ``query_id``, 1-D input is scored as ONE ranked list, however
    many rows it has; pass ``query_id`` to score each query and average.

    The intent-aware measures of :mod:`skrank.diversity` (``"alpha_ndcg@20"``,
    ``"alpha_dcg@20"``, ``"err_ia@20"``, ``"nerr_ia@20"``, ``"nrbp"``,
    ``"nnrbp"``, ``"map_ia"``, ``"p_ia@10"``, ``"s_recall@10"``) take a 2-D
    ``y_true`` of shape (n_rows, n_intents) and the options ``alpha``,
    ``beta``, ``relevance_level``, ``intent_weight`` and ``doc_id``; they are
    computed from one sort, and asked for alone (not with 1-D metrics).
    ``no_relevant`` applies to them as given (``"skip"`` by default here;
    ndeval and their functions score such a query 0: ``no_relevant="zero"``).

    ``"coverage_error"``, ``"label_ranking_loss"`` and
    ``"label_ranking_average_precision"`` (scikit-learn's multilabel
    ranking metrics) have their own rules for ties and for queries with no
    relevant row, so ``ties`` and ``no_relevant`` leave them unchanged.

    Examples
    --------
    >>> from skrank import evaluate
    >>> relevance = [1, 0, 1, 1, 0, 1, 0, 0]          # in score order
    >>> scores = [8, 7, 6, 5, 4, 3, 2, 1]
    >>> evaluate(relevance, scores, metrics=["precision@4", "map", "mrr"])
    {'precision@4': 0.75, 'map': 0.7708..., 'mrr': 1.0}
    >>> # linear gain: (3 + 2/log2(3) + 1/log2(5)) / (3 + 2/log2(3) + 1/log2(4))
    >>> evaluate([3, 2, 0, 1], [4, 3, 2, 1], metrics=["ndcg", "dcg@1"], gain="linear")
    {'ndcg': 0.9854..., 'dcg@1': 3.0}
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("`metrics` is empty: name at least one metric.")
    if any(match_intent_name(name) for name in metrics):
        if sample_weight is not None or compat is not None or score_dtype is not None:
            raise ValueError(
                "The intent-aware metrics take no `sample_weight`, `compat` or "
                "`score_dtype`."
            )
        return evaluate_intents(
            y_true, y_score, metrics, query_id=query_id, ties=ties, retrieved=retrieved,
            no_relevant=no_relevant, aggregate=aggregate, **options,
        )
    resolved = [resolve_metric_name(name, compat) for name in metrics]
    parsed = [(r.spec, r.k) for r in resolved]
    check_aggregate_options(no_relevant, aggregate)
    taken = _options_by_metric(metrics, parsed, options)
    if query_id is None and np.ndim(y_true) == 1:
        group_only = [name for name, (spec, _) in zip(metrics, parsed) if spec.group_only]
        if group_only:
            raise ValueError(
                f"`query_id` is required for {', '.join(group_only)} with 1-D input: "
                "without it all rows form ONE ranked list, and a group metric "
                "needs the queries. Pass query_id=... (one id per row)."
            )
    shared = {"ties": ties, "no_relevant": no_relevant, "score_dtype": score_dtype,
              "retrieved": retrieved}
    if compat is not None:  # under a preset, the shared options given explicitly
        shared = {name: value for name, value in shared.items()
                  if name in compat.explicit}
    convention = None if compat is None else compat.convention
    requests = [
        metric_request(name, r.spec, {**({} if r.k is None else {"k": r.k}), **shared,
                                      **taken[name]}, convention, extra=r.extra)
        for name, r in zip(metrics, resolved)
    ]
    return score_requests(
        y_true, y_score, requests, query_id=query_id, sample_weight=sample_weight,
        aggregate=aggregate,
    )


class MetricRequest(NamedTuple):
    """One metric to compute: its result key, spec, cutoff and options.

    ``kernel_options`` are validated options the kernel takes on the shared
    layout; with ``function_options`` the metric's own function computes it
    (one more sort, for options such as ``unjudged`` that change the input).
    """

    key: object
    spec: object
    k: object
    kernel_options: dict
    function_options: dict
    no_relevant: str = "skip"
    ties: str = "average"
    score_dtype: object = None
    retrieved: str = "all"
    peer: object = None  # a preset's PeerRules: the labels and weights it reads


# the options every request carries itself (the layout's, and the policy)
_REQUEST_OPTIONS = ("ties", "no_relevant", "score_dtype", "retrieved")


def metric_request(key, spec, given, compat=None, *, extra=None):
    """The :class:`MetricRequest` of one metric call, a preset applied.

    ``given``: what the caller gave explicitly, the cutoff ``k`` included
    when given (None too); the shared options (``ties``, ``no_relevant``,
    ...) and the metric's own. Under ``compat`` (a preset name or
    Convention), :func:`~skrank._core._presets.preset_request` fills the
    options not given, the peer's cutoff of a bare name and the peer's
    rules; ``extra`` are options the peer's name of the metric fixes.
    :func:`evaluate` and the multi-metric scorer build their requests here.
    """
    given = dict(given)
    peer = None
    if compat is not None:
        accepted = _metric_options(spec) | set(_REQUEST_OPTIONS)
        preset = preset_request(compat, spec.stem, given, extra=extra, takes=accepted)
        given, peer = {"k": preset.k, **preset.options}, preset.peer
    k = given.pop("k", None)
    return make_request(key, spec, None if k is None else check_positive_int("k", k),
                        given, peer)


def make_request(key, spec, k, options, peer=None):
    """One :class:`MetricRequest` from a call's options (a preset already applied).

    ``options`` hold the shared options (``ties``, ``no_relevant``,
    ``score_dtype``, ``retrieved``; skrank's defaults where absent) and the
    metric's own, validated here. ``peer``: the preset's :class:`PeerRules`
    of this metric, or None.
    """
    merged = dict(options)
    follows = _follows_ties(spec)
    shared = {name: merged.pop(name) for name in _REQUEST_OPTIONS if name in merged}
    kernel_options, function_options = split_options(spec, merged)
    return MetricRequest(
        key, spec, k, kernel_options, function_options,
        shared.get("no_relevant", "skip"),
        shared.get("ties", "average") if follows else "average",
        shared.get("score_dtype"), shared.get("retrieved", "all"), peer,
    )


def split_options(spec, options):
    """(kernel options, function options) of a metric; both validated.

    Options the kernel takes go through the metric function's own checks
    (a dry run on two rows) and come back in the kernel's form; any other
    option leaves the metric to its function.
    """
    if not options:
        return {}, {}
    if not set(options) <= set(spec.kernel_options):
        return {}, dict(options)
    dry_run(spec.func, options)
    return dict(options), {}


def score_requests(y_true, y_score, requests, *, query_id, sample_weight,
                   aggregate="mean"):
    """Key -> result of every request: one validation and one sort per ``ties``.

    The engine of :func:`evaluate` and of multi-metric scorers. Requests
    that are all DCG/nDCG at a cutoff take the top-k path
    (:mod:`skrank.metrics._topk`: each query's first k positions, the same
    bits) where the input allows it.
    """
    # the names of the metrics that need 0/1 labels: a refusal names them
    binary = ", ".join(dict.fromkeys(r.spec.stem for r in requests if r.spec.binary))
    if top_k_applies(requests, query_id, sample_weight, y_true):
        found = _top_k_results(y_true, y_score, requests, query_id, binary, aggregate)
        if found is not None:
            return found
    layouts, results = {}, {}
    inputs = [_peer_input(r, y_true, sample_weight, query_id) for r in requests]
    for request, (labels, weights) in zip(requests, inputs):
        if request.function_options:
            continue
        layout_key = (request.ties, request.score_dtype, request.retrieved,
                      None if request.peer is None else request.peer.layout_key())
        ranked = layouts.get(layout_key)
        if ranked is None:
            with warnings.catch_warnings():
                if not any(_follows_ties(r.spec) for r in requests):
                    # 0/1 scores are valid input to metrics defined on scores
                    warnings.filterwarnings("ignore", re.escape(LABEL_SCORES_WARNING))
                scores = convert_scores(y_score, request.score_dtype, request.retrieved)
                ranked = layouts[layout_key] = rank_queries(
                    labels, scores, query_id=query_id, sample_weight=weights,
                    ties=request.ties, binary=binary,
                )
        values, undefined, weights, policy = metric_query_values(
            ranked, request.spec, request.k, request.no_relevant,
            request.kernel_options,
        )
        results[request.key] = aggregate_queries(
            values, ranked, no_relevant=policy, aggregate=aggregate,
            undefined=undefined, weights=weights,
        )
    for request, (labels, weights) in zip(requests, inputs):
        if not request.function_options:
            continue
        # the metric's own function applies its options (one more sort)
        spec = request.spec
        shared = {
            "query_id": query_id, "sample_weight": weights,
            "ties": request.ties, "no_relevant": request.no_relevant,
            "aggregate": aggregate, "k": request.k,
            "score_dtype": request.score_dtype, "retrieved": request.retrieved,
        }
        with warnings.catch_warnings():
            if layouts:  # the shared layout has already warned about 0/1 scores
                warnings.filterwarnings("ignore", re.escape(LABEL_SCORES_WARNING))
            results[request.key] = call_metric(
                spec.func, labels, y_score, shared,
                **spec.options, **request.function_options,
            )
    return {request.key: results[request.key] for request in requests}


def _top_k_results(y_true, y_score, requests, query_id, binary, aggregate):
    """The results of DCG/nDCG@k requests from each query's top k rows, or None.

    None: input the full layout handles (:func:`skrank.metrics._topk.top_layout`).
    """
    found = top_k_scores(y_true, y_score, requests, query_id, binary=binary)
    if found is None:
        return None
    values, layout = found
    undefined = layout.n_relevant == 0
    return {
        request.key: aggregate_queries(
            values[request.key], layout, no_relevant=request.no_relevant,
            aggregate=aggregate, undefined=undefined, weights=layout.query_weight,
        )
        for request in requests
    }


def _peer_input(request, y_true, sample_weight, query_id):
    """``(y_true, sample_weight)`` of a request: as its preset's peer reads them."""
    if request.peer is None:
        return y_true, sample_weight
    options = {**request.kernel_options, **request.function_options}
    return request.peer.apply(y_true, sample_weight, query_id, options)


def _follows_ties(spec):
    """Whether the metric takes the ``ties`` option.

    scikit-learn's label ranking metrics (``coverage_error``, ...) do not:
    ties are part of their definition, so they ignore evaluate's ``ties``.
    """
    return "ties" in inspect.signature(spec.func).parameters


# parameters evaluate() sets itself; the others of a metric function are options
_SHARED = frozenset(
    {"y_true", "y_score", "y_pred", "query_id", "sample_weight", "ties",
     "no_relevant", "aggregate", "k", "compat", "score_dtype", "retrieved"}
)


def _metric_options(spec):
    """Options a metric's function takes by keyword and its name leaves free."""
    parameters = inspect.signature(spec.func).parameters
    return {
        name for name, parameter in parameters.items()
        if parameter.kind is parameter.KEYWORD_ONLY
        and name not in _SHARED and name not in spec.options
        and not name.startswith("return_")  # they change what is returned
    }


def _options_by_metric(metrics, parsed, options):
    """Metric name -> the ``options`` its function takes; error for unused ones."""
    taken = {}
    for name, (spec, _) in zip(metrics, parsed):
        accepted = _metric_options(spec)
        taken[name] = {key: value for key, value in options.items() if key in accepted}
    unused = sorted(set(options) - {key for used in taken.values() for key in used})
    if unused:
        offered = "; ".join(
            f"{name}: {', '.join(sorted(_metric_options(spec))) or 'none'}"
            for name, (spec, _) in zip(metrics, parsed)
        )
        fixed = "".join(
            f" {name!r} fixes {key}={spec.options[key]!r} by its name."
            for name, (spec, _) in zip(metrics, parsed)
            for key in unused if key in spec.options
        )
        raise ValueError(
            f"No requested metric takes the option{'s' if len(unused) > 1 else ''} "
            f"{', '.join(map(repr, unused))}.{fixed} Options each metric takes: "
            f"{offered}. Check the spelling, or add a metric that takes it to "
            "`metrics`."
        )
    return taken


def metric_query_values(ranked, spec, k, no_relevant, options=None):
    """One registry metric on a shared layout, before the ``no_relevant`` policy.

    Returns ``(values, undefined, weights, no_relevant)`` per query: the
    kernel's values, the queries the policy applies to, the query weights,
    and the policy itself (``"skip"`` for metrics with their own query
    weights, such as GAUC, whose undefined queries are always left out).
    :func:`evaluate` and :func:`skrank.dask.evaluate` (per partition) share it.
    """
    values = spec.compute(ranked, k, options)
    if spec.query_weights is None:
        return values, ranked.n_relevant == 0, ranked.query_weight, no_relevant
    return values, np.isnan(values), spec.query_weights(ranked), "skip"
