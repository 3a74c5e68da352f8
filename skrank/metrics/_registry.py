"""One MetricSpec per metric: scorer names, :func:`evaluate` and the common tests read it.

A metric name is a stem with an optional cutoff: ``"ndcg"``, ``"ndcg@10"``.
"""

import difflib
import inspect
import re
from dataclasses import dataclass, field
from typing import Callable

from .._core._validation import check_positive_int
from ._cascade import _err_per_query, err_score, _pfound_per_query, pfound_score
from ._auc import _auc_per_query, gauc_score, _gauc_weights, _one_class
from ._average_precision import _average_precision_per_query, average_precision_score
from ._curves import _pr_auc_per_query, pr_auc_score
from ._cutoff import (
    _fbeta_at_k_per_query,
    fbeta_at_k_score,
    _hits_per_query,
    hits_score,
    _precision_at_k_per_query,
    precision_at_k_score,
    _r_precision_per_query,
    r_precision_score,
    _recall_at_k_per_query,
    recall_at_k_score,
)
from ._fap import _fap_per_query, fap_score
from ._presets_apply import stem_of
from ._first_relevant import (
    _hit_rate_per_query,
    hit_rate_score,
    _reciprocal_rank_per_query,
    reciprocal_rank_score,
)
from ._gain import _dcg_per_query, dcg_score, _ndcg_per_query, ndcg_score
from ._graded import _graded_average_precision_per_query, graded_average_precision_score
from ._label_ranking import (
    _coverage_error_per_query,
    coverage_error,
    _label_ranking_average_precision_per_query,
    label_ranking_average_precision_score,
    _label_ranking_loss_per_query,
    label_ranking_loss,
    _query_weights as _label_ranking_weights,
)
from ._incomplete import _bpref_per_query, bpref_score, _rbp_per_query, rbp_score
from ._sets import _set_fbeta_per_query, set_fbeta_score


@dataclass(frozen=True)
class MetricSpec:
    """How a metric is named, called and computed.

    Attributes
    ----------
    stem : str
        The name before ``@``: ``"ndcg"`` gives ``"ndcg"`` and ``"ndcg@10"``.
    func : callable
        The public function; scorers call nothing else.
    takes_k : bool
        Whether ``"stem@k"`` is accepted.
    kernel : callable
        ``kernel(ranked, k, **kernel_options) -> values`` per query, on a
        shared layout (used by :func:`evaluate` and the multi-metric
        scorer, which sort once for many metrics).
    kernel_options : tuple of str
        Options of ``func`` the kernel takes as they are (``gain``, ``beta``,
        ``p``, ``normalize``); their defaults are read from ``func``'s
        signature (:attr:`defaults`), never written twice.
    options : dict
        Keyword arguments fixed by the name (``"f1"`` is F-beta with beta 1).
    binary : bool
        Whether ``y_true`` must be 0/1.
    group_only : bool
        Whether the metric is undefined without query ids (GAUC).
    response_method : str
        What a scorer of this metric scores: ``"auto"`` (the model's scores)
        or ``"predict"`` (its decisions, for set metrics).
    greater_is_better : bool
        False for a loss (``"coverage_error"``, ``"label_ranking_loss"``):
        its scorer returns the negated value, as scikit-learn's ``neg_*``
        scorers do, so that model selection maximises it.
    top_k_only : bool
        Whether its value with a cutoff k reads only the top k rows of a
        query, its relevant count R, its k largest grades (ideal DCG) and
        its weight: then :class:`RankingAccumulator` keeps only those rows
        of an open query.
    query_weights : callable or None
        ``query_weights(ranked)``: the metric's own query weights, whose
        undefined queries are those with a nan value; None for the usual
        mean row weight and the ``no_relevant`` policy.
    """

    stem: str
    func: Callable
    takes_k: bool
    kernel: Callable
    kernel_options: tuple = ()
    options: dict = field(default_factory=dict)
    binary: bool = False
    group_only: bool = False
    query_weights: Callable | None = None
    response_method: str = "auto"
    greater_is_better: bool = True
    top_k_only: bool = False

    def __post_init__(self):
        # the stem is the function's own (its preset step reads it there):
        # a spec that names another is a mistake, caught at import
        declared = stem_of(self.func)
        if declared is not None and declared != self.stem:
            raise ValueError(
                f"MetricSpec {self.stem!r}: {self.func.__name__} declares the stem "
                f"{declared!r} (@validate_with_preset(..., stem=...))."
            )

    @property
    def defaults(self):
        """The kernel options' defaults, from ``func``'s signature and the name."""
        parameters = inspect.signature(self.func).parameters
        values = {name: parameters[name].default for name in self.kernel_options}
        values.update(
            (key, value) for key, value in self.options.items()
            if key in self.kernel_options
        )
        return values

    def compute(self, ranked, k, options=None):
        """Per-query values of the metric on a shared layout.

        ``options`` are kernel options (already validated) that override
        the defaults.
        """
        return self.kernel(ranked, k, **{**self.defaults, **(options or {})})


def _gauc_kernel(ranked, k, one_class):
    return _one_class(_auc_per_query(ranked)[0], one_class)


METRICS = {
    spec.stem: spec
    for spec in (
        MetricSpec("ndcg", ndcg_score, True,
                   lambda ranked, k, gain, discount: _ndcg_per_query(
                       ranked, k=k, gain=gain, discount=discount),
                   ("gain", "discount"), top_k_only=True),
        MetricSpec("dcg", dcg_score, True,
                   lambda ranked, k, gain, discount: _dcg_per_query(
                       ranked, k=k, gain=gain, discount=discount),
                   ("gain", "discount"), top_k_only=True),
        MetricSpec("map", average_precision_score, True,
                   lambda ranked, k, normalize, tie_blocks: _average_precision_per_query(
                       ranked, k=k, normalize=normalize, tie_blocks=tie_blocks),
                   ("normalize", "tie_blocks"), top_k_only=True),
        MetricSpec("mrr", reciprocal_rank_score, True,
                   lambda ranked, k: _reciprocal_rank_per_query(ranked, k=k),
                   top_k_only=True),
        MetricSpec("precision", precision_at_k_score, True,
                   lambda ranked, k, normalize: _precision_at_k_per_query(
                       ranked, k=k, normalize=normalize),
                   ("normalize",), top_k_only=True),
        MetricSpec("recall", recall_at_k_score, True,
                   lambda ranked, k: _recall_at_k_per_query(ranked, k=k),
                   top_k_only=True),
        MetricSpec("f1", fbeta_at_k_score, True,
                   lambda ranked, k, beta: _fbeta_at_k_per_query(ranked, k=k, beta=beta),
                   ("beta",), options={"beta": 1.0}, top_k_only=True),
        MetricSpec("fap", fap_score, True,
                   lambda ranked, k, beta: _fap_per_query(ranked, k=k, beta=beta),
                   ("beta",), top_k_only=True),
        MetricSpec("r_precision", r_precision_score, False,
                   lambda ranked, k: _r_precision_per_query(ranked)),
        MetricSpec("hit_rate", hit_rate_score, True,
                   lambda ranked, k: _hit_rate_per_query(ranked, k=k), top_k_only=True),
        MetricSpec("set_f1", set_fbeta_score, False,
                   lambda ranked, k, beta: _set_fbeta_per_query(ranked, beta=beta),
                   ("beta",), options={"beta": 1.0}, response_method="predict"),
        MetricSpec("gauc", gauc_score, False, _gauc_kernel, ("one_class",), binary=True,
                   group_only=True, query_weights=_gauc_weights),
        MetricSpec("bpref", bpref_score, False,
                   lambda ranked, k: _bpref_per_query(ranked)[0]),
        MetricSpec("rbp", rbp_score, True,
                   lambda ranked, k, p, gain: _rbp_per_query(ranked, k=k, p=p, gain=gain),
                   ("p", "gain")),
        MetricSpec("gap", graded_average_precision_score, True,
                   lambda ranked, k: _graded_average_precision_per_query(ranked, k=k)),
        MetricSpec("pr_auc", pr_auc_score, False,
                   lambda ranked, k: _pr_auc_per_query(ranked)),
        MetricSpec("err", err_score, True,
                   lambda ranked, k, max_grade: _err_per_query(
                       ranked, k=k, max_grade=max_grade),
                   ("max_grade",)),
        MetricSpec("pfound", pfound_score, True,
                   lambda ranked, k, max_grade, decay: _pfound_per_query(
                       ranked, k=k, max_grade=max_grade, decay=decay),
                   ("max_grade", "decay")),
        MetricSpec("hits", hits_score, True,
                   lambda ranked, k: _hits_per_query(ranked, k=k)),
        # scikit-learn's multilabel ranking metrics: every query counts
        # (fixed values where the ranking has no meaning), ties count against
        MetricSpec("coverage_error", coverage_error, False,
                   lambda ranked, k: _coverage_error_per_query(ranked),
                   query_weights=_label_ranking_weights, greater_is_better=False),
        MetricSpec("label_ranking_loss", label_ranking_loss, False,
                   lambda ranked, k: _label_ranking_loss_per_query(ranked),
                   query_weights=_label_ranking_weights, greater_is_better=False),
        MetricSpec("label_ranking_average_precision",
                   label_ranking_average_precision_score, False,
                   lambda ranked, k: _label_ranking_average_precision_per_query(ranked),
                   query_weights=_label_ranking_weights),
    )
}
_NAME = re.compile(r"^(?P<stem>[a-z_0-9]+?)(?:@(?P<k>[0-9]+))?$")


def metric_names():
    """Every accepted name, with ``@k`` standing for any positive integer."""
    return sorted(
        name
        for spec in METRICS.values()
        for name in ((spec.stem, f"{spec.stem}@k") if spec.takes_k else (spec.stem,))
    )


# names users try that are not skrank's: suggested, never accepted
_ALIASES = {
    "p": "precision", "prec": "precision", "r": "recall", "rec": "recall",
    "ap": "map", "mean_average_precision": "map", "average_precision": "map",
    "rr": "mrr", "recip_rank": "mrr", "reciprocal_rank": "mrr",
    "ndcg_cut": "ndcg", "hr": "hit_rate", "num_rel_ret": "hits",
    "success": "hit_rate", "f": "f1", "f1_score": "f1", "fmeasure": "f1",
    "auc": "gauc", "group_auc": "gauc", "rprec": "r_precision",
    "r-precision": "r_precision", "set_f": "set_f1",
    "lrap": "label_ranking_average_precision",
    "label_ranking_average_precision_score": "label_ranking_average_precision",
    "neg_coverage_error": "coverage_error", "coverage": "coverage_error",
    "neg_label_ranking_loss": "label_ranking_loss", "ranking_loss": "label_ranking_loss",
}
# "P_10", "ndcg_cut_10", "ndcg10": a cutoff written without "@"
_LOOSE = re.compile(r"^(?P<stem>.*?[a-z])(?:_cut)?[_\-]?(?P<k>[0-9]+)$")


def _suggestions(name):
    """Known names close to an unknown ``name``, keeping its cutoff."""
    text = name.strip().lower()
    stem, _, k = text.partition("@")
    if not k:
        loose = _LOOSE.match(text)
        if loose:
            stem, k = loose.group("stem"), loose.group("k")
    if not k.isdigit() or int(k) < 1:
        k = ""
    stems = list(METRICS)
    if stem in METRICS:
        found = [stem]
    elif stem in _ALIASES:
        found = [_ALIASES[stem]]
    else:
        found = difflib.get_close_matches(stem, stems + list(_ALIASES), n=3, cutoff=0.5)
        found += [s for s in stems if len(stem) >= 2 and s.startswith(stem)]
        found = [_ALIASES.get(s, s) for s in found]
    names = []
    for target in dict.fromkeys(found):  # unique, in order
        names.append(f"{target}@{k}" if k and METRICS[target].takes_k else target)
    return names[:3]


# what a cutoff that is not a positive integer looks like ("-1", "1.5", "")
_NUMBER = re.compile(r"^[+-]?[0-9]*\.?[0-9]*(e[+-]?[0-9]+)?$")


def match_metric_name(name):
    """``(spec, k)`` of one of skrank's metric names, or None for a name it does not know.

    A known stem with a cutoff that is not a positive integer (``"ndcg@-1"``,
    ``"ndcg@0"``, ``"ndcg@1.5"``) is a ValueError saying so.
    """
    if not isinstance(name, str):
        raise ValueError(f"A metric name must be a string, got {name!r}.")
    text = name.strip().lower()
    match = _NAME.match(text)
    spec = METRICS.get(match.group("stem")) if match else None
    if spec is None:
        stem, at, cutoff = text.partition("@")
        if at and stem in METRICS and _NUMBER.match(cutoff):
            if not METRICS[stem].takes_k:
                raise ValueError(f"Metric {stem!r} takes no cutoff; use {stem!r}.")
            raise ValueError(
                f"The cutoff in {name!r} must be a positive integer, got {cutoff!r} "
                f"(such as {stem + '@10'!r})."
            )
        return None
    k = match.group("k")
    if k is not None and not spec.takes_k:
        raise ValueError(f"Metric {spec.stem!r} takes no cutoff; use {spec.stem!r}.")
    if k is not None and int(k) < 1:
        raise ValueError(
            f"The cutoff in {name!r} must be a positive integer, got {k!r} "
            f"(such as {spec.stem + '@10'!r})."
        )
    # a cutoff past int64 (or past 2**62) is clamped like any k argument
    return spec, None if k is None else check_positive_int("k", int(k))


#: the metrics of recommendation lists (skrank.recsys), which take item ids and
#: a history rather than grades: named here only to point to their own faces
LIST_METRIC_STEMS = ("novelty", "catalog_coverage", "coverage", "distributional_coverage",
                     "entropy", "popularity", "arp", "tail_share", "aplt", "gini",
                     "intra_list_diversity", "ild", "serendipity")


def list_metric_hint(name):
    """A pointer to skrank.recsys when ``name`` is a recommendation-list metric."""
    stem = name.split("@")[0].strip().lower() if isinstance(name, str) else None
    if stem not in LIST_METRIC_STEMS:
        return ""
    return (f" {name!r} is a metric of recommendation lists (item ids and a history, "
            "not grades): compute it with skrank.recsys.evaluate_lists, its "
            "function (skrank.recsys) or make_recsys_scorer, and compare two "
            "libraries' conventions with skrank.recsys.explain_list_difference.")


def parse_metric_name(name):
    """``"ndcg@10"`` -> (MetricSpec of ndcg, 10); ``"map"`` -> (spec, None).

    Raises a ValueError for an unknown name, suggesting the known names it
    resembles with its cutoff kept (``"p@10"`` -> ``"precision@10"``).
    """
    found = match_metric_name(name)
    if found is None:
        known = metric_names()
        close = [s for s in _suggestions(name) if s.lower() != name.strip().lower()]
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        hint += list_metric_hint(name)
        raise ValueError(
            f"Unknown metric name {name!r}.{hint} Known names: {', '.join(known)} "
            "(k is any positive integer)."
        )
    return found
