"""The test harness: for every stem of the metric registry, its brute-force reference.

``REFERENCES[stem]`` says how to check ``METRICS[stem].func`` (the public
function) against a plain-Python reference written from the definition
(``_reference.py`` for the classic metrics, ``_toolbox_reference.py`` for
the rest): which reference, which of the function's own options to draw,
which labels and scores it takes, and how its queries are weighed. The
worked examples of every stem are in ``_worked_examples.py``.

``tests/metrics/test_reference.py`` runs one hypothesis test over the
registry's stems with these entries; a stem added to the registry without
an entry here (or without a worked example) fails that module.

The options every ranking function shares (``k``, ``ties``,
``no_relevant``) are drawn whenever the function's signature has them;
``options`` lists the metric's own.
"""

import inspect
from dataclasses import dataclass, field
from typing import Callable

from . import _reference as ref
from . import _toolbox_reference as toolbox

TIES = ref.TIES
NO_RELEVANT = ref.NO_RELEVANT


def _mean_row_weight(args, kwargs):
    """{qid: mean row weight}: the query weight of every metric but GAUC."""
    return ref.ref_query_weights(args[0], args[1], query_id=kwargs.get("query_id"),
                                 sample_weight=kwargs.get("sample_weight"))


def _gauc_weight(args, kwargs):
    return ref.ref_gauc_query_weights(
        args[0], args[1], query_id=kwargs.get("query_id"),
        sample_weight=kwargs.get("sample_weight"),
        weighting=kwargs.get("weighting", "samples"))


@dataclass(frozen=True)
class Reference:
    """How one registry stem is checked against its reference.

    Attributes
    ----------
    reference : callable
        ``reference(y_true, y_score, **kwargs, per_query=False)`` with the
        public function's keywords: the weighted mean, or {qid: value}.
    options : dict
        The metric's own options and the values to draw them from.
    labels : {"any", "binary"}
        Graded or binary labels, or binary only.
    grades : tuple of tuples
        Sets of graded labels: an input draws its labels from one of them.
    scores : {"ranked", "decisions"}
        Scores from a tiny set (frequent ties), or 0/1 decisions (set metrics).
    layouts : tuple of str
        The input layouts it takes: ``"ids"`` (1-D with query ids),
        ``"single"`` (1-D, one query) and ``"2d"`` (one query per row).
    unjudged : bool
        Whether to draw an ``unjudged`` mask.
    query_weights : callable
        ``query_weights(args, kwargs) -> {qid: weight}``, the per-query
        weights ``aggregate=None`` returns.
    """

    reference: Callable
    options: dict = field(default_factory=dict)
    labels: str = "any"
    grades: tuple = ((0, 1, 2, 3),)
    scores: str = "ranked"
    layouts: tuple = ("ids", "single", "2d")
    unjudged: bool = False
    query_weights: Callable = _mean_row_weight


BETAS = [0.5, 1.0, 2.0]
CASCADE_GRADES = ((0, 0.25, 0.5, 1), (0, 0.25, 1, 2, 3))

REFERENCES = {
    "ndcg": Reference(ref.ref_ndcg, {"gain": ref.GAINS, "discount": ref.DISCOUNTS}),
    "dcg": Reference(ref.ref_dcg, {"gain": ref.GAINS, "discount": ref.DISCOUNTS}),
    "map": Reference(ref.ref_average_precision,
                     {"normalize": ref.NORMALIZE, "tie_blocks": ref.TIE_BLOCKS}),
    "mrr": Reference(ref.ref_reciprocal_rank),
    "precision": Reference(ref.ref_precision_at_k,
                           {"normalize": ref.PRECISION_NORMALIZE}),
    "recall": Reference(ref.ref_recall_at_k),
    "f1": Reference(ref.ref_fbeta_at_k, {"beta": BETAS}),
    "fap": Reference(ref.ref_fap, {"beta": BETAS}),
    "r_precision": Reference(ref.ref_r_precision),
    "hit_rate": Reference(ref.ref_hit_rate),
    "hits": Reference(ref.ref_hits),
    "set_f1": Reference(toolbox.ref_set_fbeta, {"beta": BETAS}, scores="decisions"),
    "gauc": Reference(
        ref.ref_gauc,
        {"weighting": ref.WEIGHTING, "one_class": ref.ONE_CLASS},
        labels="binary", layouts=("ids", "2d"), query_weights=_gauc_weight),
    "bpref": Reference(toolbox.ref_bpref, unjudged=True),
    "rbp": Reference(toolbox.ref_rbp, {"p": [0.5, 0.8], "gain": ["binary", "linear"]},
                     unjudged=True),
    "gap": Reference(toolbox.ref_gap, {"grade_probabilities": [
        None, (1 / 3, 1 / 3, 1 / 3), (0.25, 0.75, 0.0), (0.0, 0.0, 1.0), (0.5, 0.0, 0.5),
    ]}),
    "pr_auc": Reference(toolbox.ref_pr_auc),
    # grades within [0, 1] are stop probabilities, larger ones are mapped
    "err": Reference(toolbox.ref_err, {"max_grade": [None, 3.0, 5.0]},
                     grades=CASCADE_GRADES),
    "pfound": Reference(toolbox.ref_pfound,
                        {"max_grade": [None, 3.0], "decay": [0.85, 0.5]},
                        grades=CASCADE_GRADES),
    "coverage_error": Reference(toolbox.ref_coverage_error),
    "label_ranking_loss": Reference(toolbox.ref_label_ranking_loss),
    "label_ranking_average_precision": Reference(
        toolbox.ref_label_ranking_average_precision),
}


def shared_options(func):
    """The shared options ``func`` takes, with the values to draw them from."""
    parameters = inspect.signature(func).parameters
    drawn = {"ties": TIES, "no_relevant": NO_RELEVANT}
    return {name: values for name, values in drawn.items() if name in parameters}
