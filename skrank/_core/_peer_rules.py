"""How a peer reads the labels and weights of one metric, and what it refuses.

Options cannot say everything a peer does with its input: CatBoost's MAP
counts a row as relevant when its label is above 0.5 and ignores the query
weights, ranx casts its qrels to integers, scikit-learn's ``ndcg_score``
raises on a one-row query, XGBoost's ``map`` on graded labels. The preset
table (``_presets.py``) records these per metric
(:class:`~skrank._core._presets.MetricConvention`'s ``relevant_above``,
``weighted`` and ``rules``, the convention's ``labels``); :func:`peer_rules`
gathers them into one :class:`PeerRules`, whose :meth:`PeerRules.apply`
turns ``y_true`` and ``sample_weight`` into what the peer reads, or raises
the peer's refusal as a ``ValueError`` naming the preset and the rule.
The preset step of the metric functions (``metrics/_presets_apply.py``)
and ``evaluate`` call it.
"""

from dataclasses import dataclass

import numpy as np

from ._factorize import factorize
from ._validation import check_relevance, first_position


@dataclass(frozen=True)
class PeerRules:
    """One metric's input conventions under a preset (see :func:`peer_rules`)."""

    preset: str
    peer: str
    metric: str  # the peer's name of the metric, for messages
    integer_labels: bool = False
    relevant_above: object = None
    weighted: bool = True
    rules: tuple = ()

    def layout_key(self):
        """What changes the rows (None: nothing); equal keys share a layout."""
        key = (self.integer_labels, self.relevant_above, self.weighted)
        return None if key == (False, None, True) else key

    def apply(self, y_true, sample_weight, query_id, options):
        """``(y_true, sample_weight)`` as the peer reads them; a ValueError where it refuses.

        ``options`` are the metric's options after the preset's (the rules
        on grades depend on ``gain``).
        """
        if sample_weight is not None and not self.weighted:
            sample_weight = None
        if not (self.rules or self.integer_labels or self.relevant_above is not None):
            return y_true, sample_weight
        labels = check_relevance(y_true)
        for rule in self.rules:
            RULES[rule](self, labels, query_id, options)
        if self.integer_labels:
            labels = np.trunc(labels)
        if self.relevant_above is not None:
            labels = (labels > self.relevant_above).astype(np.float64)
        return labels, sample_weight

    def refuse(self, what, advice):
        raise ValueError(
            f"compat={self.preset!r}: {self.peer}'s {self.metric} {what}. {advice}"
        )


def peer_rules(convention, stem):
    """The :class:`PeerRules` of metric ``stem`` under ``convention``, or None."""
    if convention is None or stem not in convention.metrics:
        return None
    metric = convention.metrics[stem]
    rules = PeerRules(
        convention.name, convention.peer, metric.names[0].replace("{k}", "k"),
        integer_labels=convention.labels == "integer",
        relevant_above=metric.relevant_above, weighted=metric.weighted,
        rules=tuple(metric.rules),
    )
    if rules == PeerRules(rules.preset, rules.peer, rules.metric):
        return None  # nothing to do
    return rules


# -- the rules: each checks the validated labels, and raises through refuse() --


def _first_bad(labels, bad):
    values = np.unique(labels[bad])[:3]
    return (f"got {', '.join(f'{v:g}' for v in values)} (the first at "
            f"{first_position(bad)})")


# what to do about labels a binary-only peer refuses
_BINARISE = ("Binarise y_true first (for example y_true > 0), or drop compat= "
             "to count y_true > 0 as relevant.")


def _refuse_bad(rules, labels, bad, reason, advice):
    """Refuse the labels where ``bad`` holds: ``reason``, then the first bad label."""
    if bad.any():
        rules.refuse(reason + _first_bad(labels, bad), advice)


def _binary(rules, labels, query_id, options):
    _refuse_bad(rules, labels, (labels != 0) & (labels != 1),
                f"takes binary labels only (0/1): {rules.peer} raises on graded ones; ",
                _BINARISE)


def _unit_interval(rules, labels, query_id, options):
    _refuse_bad(rules, labels, labels > 1,
                f"takes labels in [0, 1] only ({rules.peer} raises on larger ones); ",
                _BINARISE)


def _integer_grades(rules, labels, query_id, options):
    _refuse_bad(rules, labels, labels != np.trunc(labels),
                "takes integer grades only (0, 1, 2, ...): "
                f"{rules.peer} raises on fractional labels; ",
                "Round y_true to grades, or drop compat=.")


def _exponential(options):
    return options.get("gain", "exponential") == "exponential"


def _exp_integer_grades(rules, labels, query_id, options):
    """Integer grades under the exponential gain (XGBoost's ndcg)."""
    if _exponential(options):
        _integer_grades(rules, labels, query_id, options)


def _exp_grades_up_to(limit):
    """Grades up to ``limit`` under the exponential gain (XGBoost, LightGBM)."""
    def check(rules, labels, query_id, options):
        if not _exponential(options):
            return
        bad = labels > limit
        if bad.any():
            rules.refuse(
                f"takes grades up to {limit} with the exponential gain "
                f"({rules.peer} raises on larger ones); " + _first_bad(labels, bad),
                "Use smaller grades, or gain='linear' (the peer's custom gains).",
            )
    return check


def _query_codes(labels, query_id):
    """(query code of each row, flattened; the query ids, None for positions)."""
    if labels.ndim == 2:
        return np.repeat(np.arange(labels.shape[0]), labels.shape[1]), None
    if query_id is None:
        return np.zeros(labels.shape[0], dtype=np.intp), None
    keys, names = factorize(query_id, labels.shape[0])
    keys, codes = np.unique(keys, return_inverse=True)
    return codes.reshape(-1), keys if names is None else np.asarray(names)[keys]


def _query_name(ids, code):
    if ids is None:
        return f"query {code}"
    name = ids[code]
    return f"query {(name.item() if hasattr(name, 'item') else name)!r}"


def _two_rows(rules, labels, query_id, options):
    codes, ids = _query_codes(labels, query_id)
    short = np.flatnonzero(np.bincount(codes) < 2)
    if short.size:
        where = ("the input has one item per row" if labels.ndim == 2
                 else f"{_query_name(ids, short[0])} has one row"
                 + (f" ({short.size} queries do)" if short.size > 1 else ""))
        rules.refuse(
            f"raises on a query of one row (scikit-learn needs more than one "
            f"item per ranking); {where}",
            "Leave one-row queries out, or drop compat= (skrank scores them).",
        )


def _judged_non_relevant(rules, labels, query_id, options):
    codes, ids = _query_codes(labels, query_id)
    relevant = labels.reshape(-1) >= 1
    bad = np.flatnonzero(
        (np.bincount(codes, weights=relevant) > 0)
        & (np.bincount(codes, weights=~relevant) == 0)
    )
    if bad.size:
        rules.refuse(
            "is nan for a query with relevant rows and no judged non-relevant "
            f"one (it divides by min(R, N) = 0), and so is the mean; "
            f"{_query_name(ids, bad[0])} is one",
            "Leave such queries out, or drop compat= (skrank scores their "
            "relevant rows 1, as trec_eval does).",
        )


#: rule name -> check(rules, labels, query_id, options)
RULES = {
    "binary": _binary,
    "unit_interval": _unit_interval,
    "integer_grades": _integer_grades,
    "exp_integer_grades": _exp_integer_grades,
    "exp_grades_up_to_30": _exp_grades_up_to(30),
    "exp_grades_up_to_31": _exp_grades_up_to(31),
    "two_rows": _two_rows,
    "judged_non_relevant": _judged_non_relevant,
}

#: rule name -> what the peer (and the preset) raises on, for describe_convention
RULE_TEXT = {
    "binary": "labels other than 0 and 1",
    "unit_interval": "labels above 1",
    "integer_grades": "fractional labels",
    "exp_integer_grades": "fractional labels with the exponential gain",
    "exp_grades_up_to_30": "grades above 30 with the exponential gain",
    "exp_grades_up_to_31": "grades above 31 with the exponential gain",
    "two_rows": "a query of one row",
    "judged_non_relevant": "a query with relevant rows and no judged "
                           "non-relevant one (the peer gives nan)",
}
