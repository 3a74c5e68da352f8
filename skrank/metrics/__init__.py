"""Ranking metrics: one module per family, the name registry and :func:`evaluate`.

Every function is ``metric(y_true, y_score, *, query_id=None, ...)``; each
family module holds the definitions (docstrings with the formula) and the
per-query kernels (``_<stem>_per_query``) of its metrics.
"""

# Each public name and the module that defines it, imported on first use
# (PEP 562): the ``skrank`` command imports the few kernels it measures
# with (``skrank.metrics._cutoff``, ...), and importing one module of this
# package runs this file first; a dozen families and the name registry
# would add about 25 ms to every start of the command.
_DEFINED_IN = {
    ".._core._aggregate": ("QueryValues",),
    "._accumulator": ("RankingAccumulator",),
    "._auc": ("gauc_score",),
    "._average_precision": ("average_precision_score",),
    "._correlation": ("rank_correlation_score",),
    "._curves": ("interpolated_precision_recall_curve", "pr_auc_score",
                 "precision_recall_at_k_curve"),
    "._cutoff": ("fbeta_at_k_score", "hits_score", "precision_at_k_score",
                 "r_precision_score", "recall_at_k_score"),
    "._cascade": ("err_score", "pfound_score"),
    "._conventions": ("DifferenceExplanationResult", "describe_convention",
                      "explain_difference"),
    "._evaluate": ("evaluate",),
    "._fap": ("fap_curve", "fap_score"),
    "._first_relevant": ("hit_rate_score", "reciprocal_rank_score"),
    "._gain": ("dcg_score", "ndcg_score"),
    "._graded": ("graded_average_precision_score",),
    "._label_ranking": ("coverage_error", "label_ranking_average_precision_score",
                        "label_ranking_loss"),
    "._incomplete": ("bpref_score", "rbp_score"),
    "._rank_weights": ("rank_decay_weights", "weighted_average_precision_score"),
    "._sets": ("set_fbeta_score",),
}
_MODULE_OF = {name: module for module, names in _DEFINED_IN.items() for name in names}
# earlier names that still import (not in __all__)
_ALIASES = {"DifferenceExplanation": "DifferenceExplanationResult"}


def __getattr__(name):
    import importlib

    if name in _ALIASES:
        return __getattr__(_ALIASES[name])
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__all__ = sorted(_MODULE_OF)
