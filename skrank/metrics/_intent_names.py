"""The intent-aware measures' names ("alpha_ndcg@20", "p_ia@10", ...) and their
evaluation from one layout: what :func:`evaluate` and the scorers use.

A static table, beside the functions it names: the names are known whatever
was imported before.
"""

import re
from typing import NamedTuple

from .._core._aggregate import aggregate_queries, check_aggregate_options
from ._diversity import (
    alpha_dcg_score,
    alpha_ndcg_score,
    err_ia_score,
    layout_intents,
    map_ia_score,
    nerr_ia_score,
    nnrbp_score,
    nrbp_score,
    precision_ia_score,
    subtopic_recall_score,
)
from ._intents import (
    rank_limit,
    map_ia_per_query,
    positional_per_query,
    precision_ia_per_query,
    subtopic_recall_per_query,
)


class IntentMetric(NamedTuple):
    """One intent-aware measure: its function, kernel and fixed kernel options."""

    func: object
    kernel: object
    options: dict
    default_k: object


def _positional(measure, normalize):
    return {"measure": measure, "normalize": normalize}


#: stem -> IntentMetric; the stems are the functions' own (``metric_stem``)
INTENT_METRICS = {
    "alpha_dcg": IntentMetric(alpha_dcg_score, positional_per_query,
                              _positional("dcg", False), 20),
    "alpha_ndcg": IntentMetric(alpha_ndcg_score, positional_per_query,
                               _positional("dcg", True), 20),
    "err_ia": IntentMetric(err_ia_score, positional_per_query, _positional("err", False), 20),
    "nerr_ia": IntentMetric(nerr_ia_score, positional_per_query,
                            _positional("err", True), 20),
    "nrbp": IntentMetric(nrbp_score, positional_per_query, _positional("nrbp", False), None),
    "nnrbp": IntentMetric(nnrbp_score, positional_per_query, _positional("nrbp", True), None),
    "p_ia": IntentMetric(precision_ia_score, precision_ia_per_query, {}, 20),
    "map_ia": IntentMetric(map_ia_score, map_ia_per_query, {}, None),
    "s_recall": IntentMetric(subtopic_recall_score, subtopic_recall_per_query, {}, 20),
}
#: the options an intent-aware measure takes besides the shared ones
INTENT_DATA_OPTIONS = ("alpha", "beta", "relevance_level", "intent_weight", "doc_id")
_NAME = re.compile(r"^(?P<stem>[a-z_]+?)(?:@(?P<k>[0-9]+))?$")


def intent_metric_names():
    """Every intent-aware name, ``@k`` standing for any positive integer."""
    return sorted(n for stem in INTENT_METRICS for n in (stem, f"{stem}@k"))


def match_intent_name(name):
    """``(stem, k)`` of an intent-aware name (k: the function's default when
    the name has none), or None for another name."""
    if not isinstance(name, str):
        return None
    match = _NAME.match(name.strip().lower())
    if match is None or match["stem"] not in INTENT_METRICS:
        return None
    k = match["k"]
    if k is not None and int(k) < 1:
        raise ValueError(f"The cutoff in {name!r} must be a positive integer.")
    return match["stem"], INTENT_METRICS[match["stem"]].default_k if k is None else int(k)


def evaluate_intents(y_true, y_score, names, *, query_id=None, ties="average",
                     retrieved="all", no_relevant="zero", aggregate="mean", **options):
    """name -> value of several intent-aware measures, from one layout (one sort).

    ``options``: ``alpha``, ``beta``, ``relevance_level``, ``intent_weight``,
    ``doc_id`` (checked by the functions' own rules).
    """
    unknown = sorted(set(options) - set(INTENT_DATA_OPTIONS))
    if unknown:
        raise ValueError(
            f"The intent-aware metrics take no option {', '.join(map(repr, unknown))}; "
            f"they take {', '.join(INTENT_DATA_OPTIONS)}."
        )
    parsed = {}
    for name in names:
        found = match_intent_name(name)
        if found is None:
            raise ValueError(
                f"{name!r} is not an intent-aware metric; with 2-D intent grades "
                f"ask only for {', '.join(intent_metric_names())}."
            )
        parsed[name] = found
    check_aggregate_options(no_relevant, aggregate)
    rules = alpha_ndcg_score.parameter_rules
    checked = {key: rules[key].check(key, value) for key, value in options.items()
               if key in rules}
    alpha = checked.get("alpha", 0.5)
    beta = checked.get("beta", 0.5)
    ties = rules["ties"].check("ties", ties)
    retrieved = rules["retrieved"].check("retrieved", retrieved)
    layout = layout_intents(
        y_true, y_score, query_id=query_id, alpha=alpha,
        relevance_level=checked.get("relevance_level", 1),
        intent_weight=options.get("intent_weight"), doc_id=options.get("doc_id"),
        ties=ties, retrieved=retrieved,
    )
    for stem, k in parsed.values():  # one computation of the gains for every cutoff
        metric = INTENT_METRICS[stem]
        if metric.kernel is positional_per_query:
            layout.reserve_ranks(rank_limit(metric.options["measure"], k, beta))
    results = {}
    for name, (stem, k) in parsed.items():
        metric = INTENT_METRICS[stem]
        extra = dict(metric.options)
        if metric.kernel is positional_per_query:
            extra["beta"] = beta
        values = metric.kernel(layout, k=k, **extra)
        results[name] = aggregate_queries(values, layout.ranked, no_relevant=no_relevant,
                                          aggregate=aggregate, undefined=layout.total == 0)
    return results
