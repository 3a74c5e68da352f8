"""Convention presets in public: describe_convention and explain_difference.

Both read the one preset table (``skrank._core._presets.PRESETS``).
"""

import inspect
import warnings

import numpy as np

from .._core._optional import import_optional
from .._core._params import (
    COUNT,
    METRIC_NAME,
    SIDE,
    validate_params,
)
from .._core._peer_rules import peer_rules
from .._core._presets import PRESETS, get_convention
from ._evaluate import _REQUEST_OPTIONS, _metric_options, evaluate
from ._names import resolve_metric_name


def describe_convention(name):
    """The conventions of a peer, as skrank options (the ``compat=`` presets).

    Parameters
    ----------
    name : str
        ``"lightgbm"``, ``"xgboost"``, ``"catboost"``, ``"sklearn"``,
        ``"ranx"``, ``"torchmetrics"``, ``"trec_eval"`` or ``"spark"``.

    Returns
    -------
    convention : Convention
        Its ``repr`` reads as a table: the options every metric takes under
        the preset, each metric the peer has with its names in the peer and
        its own options, and notes (rules skrank follows, and where the
        peer's own behaviour is undefined). Attributes ``options``,
        ``metrics`` (stem -> ``MetricConvention``) and ``notes``.

    See Also
    --------
    explain_difference : why two conventions give different numbers.

    Examples
    --------
    >>> from skrank import describe_convention
    >>> print(describe_convention("lightgbm"))      # doctest: +ELLIPSIS
    compat='lightgbm': LightGBM 4.7
      options: ties='input', gain='exponential', no_relevant='one'
      metrics:
        ndcg             ndcg@{k}  (ValueError on fractional labels, grades above 30 ...)
        map              map@{k}  [normalize='min']  (denominator min(R, k, n); relevant: label > 0.5)
      notes:
    ...
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise ValueError(
            f"`name` must be one of {', '.join(map(repr, PRESETS))}, got {name!r}."
        )
    return PRESETS[name]


# the order in which the path changes options: scores, order, cutoff, values
_PATH_ORDER = ("score_dtype", "retrieved", "ties", "k", "gain", "discount",
               "normalize", "tie_blocks", "one_class", "weighting", "no_relevant")


def _side(metric, side, what, other):
    """``(spec, label, options)`` of one side: a preset name or an option dict.

    ``metric`` may be skrank's name or any preset's own (the other side's
    included: its stem and cutoff, its own options staying on its side).
    """
    elsewhere = (other,) if isinstance(other, str) and other in PRESETS else ()
    if isinstance(side, dict):
        resolved = resolve_metric_name(metric, foreign=True, elsewhere=elsewhere)
        return resolved.spec, "options", {"k": resolved.k, **side}
    if isinstance(side, str) and side in PRESETS:
        resolved = resolve_metric_name(metric, side, foreign=True, elsewhere=elsewhere)
        # the cutoff the preset's call takes (the peer's for a bare name)
        return resolved.spec, side, {"k": resolved.preset.k, **resolved.options}
    raise ValueError(
        f"`{what}` must be a preset name ({', '.join(map(repr, PRESETS))}) or a "
        f"dict of options, got {side!r}."
    )


def _full_options(spec, options, strict=True):
    """Every option of the metric the path can change, defaults filled in.

    ``strict``: an option the metric does not take is an error (a user's
    dict); a preset's options for other metrics are left out.
    """
    parameters = inspect.signature(spec.func).parameters
    names = (_metric_options(spec) | set(_REQUEST_OPTIONS) | {"k"}) & set(parameters)
    unknown = set(options) - names - {"k"}
    if unknown and strict:
        raise ValueError(
            f"{spec.stem!r} takes no option {', '.join(sorted(map(repr, unknown)))}; "
            f"its options: {', '.join(sorted(names))}."
        )
    full = {name: parameters[name].default for name in names}
    full.update((key, value) for key, value in options.items() if key in names)
    full.pop("compat", None)
    return full


def _values(y_true, y_score, query_id, sample_weight, spec, options):
    """(mean, QueryValues) of the metric under ``options``."""
    options = dict(options)
    k = options.pop("k", None)
    name = f"{spec.stem}@{k}" if k is not None and spec.takes_k else spec.stem
    kwargs = dict(query_id=query_id, sample_weight=sample_weight, metrics=[name],
                  **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nan means no query left: shown as nan
        mean = evaluate(y_true, y_score, **kwargs)[name]
        per_query = evaluate(y_true, y_score, aggregate=None, **kwargs)[name]
    return mean, per_query


@validate_params({
    "metric": METRIC_NAME, "a": SIDE, "b": SIDE, "n_queries": COUNT,
})
def explain_difference(
    y_true, y_score, *, query_id=None, metric="ndcg@10", a="sklearn", b="lightgbm",
    sample_weight=None, n_queries=5,
):
    """Why a metric differs between two conventions, one option at a time.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items)
        Relevance of each row.
    y_score : array-like of the same shape as ``y_true``
        Score of each row.
    query_id : array-like of shape (n_rows,), default=None
        Query of each row (see :func:`evaluate`).
    metric : str, default="ndcg@10"
        A metric name: skrank's (``"ndcg@10"``) or any preset's own
        (``"ndcg@10-"`` and ``"pre@3"`` for XGBoost, ``"NDCG:top=3"`` for
        CatBoost, ``"P_3"`` and ``"ndcg_cut_10"`` for trec_eval). Each side
        reads it as that side's metric and cutoff; options the name fixes
        in its own peer (XGBoost's ``"-"``: ``no_relevant="zero"``) apply
        on that peer's side, and a name that fixes options of a peer on
        neither side is refused.
    a, b : str or dict, default="sklearn" and "lightgbm"
        Each side: a preset name (see :func:`describe_convention`) or a
        dict of skrank options (``{"gain": "linear", "ties": "input"}``);
        options a dict leaves out take the metric's defaults.
    sample_weight : array-like, default=None
        Row weights, as in :func:`evaluate`.
    n_queries : int, default=5
        How many of the queries that move most to report (at most).

    Returns
    -------
    explanation : DifferenceExplanationResult
        ``value_a`` and ``value_b``; ``steps``, the path from ``a`` to
        ``b`` changing one option at a time, with the mean after each step
        and the change it makes; ``queries``, those whose values move most.
        Its ``repr`` reads as a report and ``to_frame()`` returns the steps
        as a pandas DataFrame.

    See Also
    --------
    describe_convention : the options each preset stands for.

    Notes
    -----
    The steps change the options in a fixed order: the score conventions
    (``score_dtype``, ``retrieved``), then ``ties``, the cutoff ``k``, the
    metric's own options (``gain``, ``discount``, ``normalize``, ...) and
    last ``no_relevant``. The changes add up to ``value_b - value_a``; how
    much one option accounts for can depend on the order, as options
    interact.

    Examples
    --------
    >>> from skrank import explain_difference
    >>> y = [2, 0, 1, 0, 0, 0]
    >>> s = [0.5, 0.5, 0.2, 0.9, 0.1, 0.1]
    >>> q = [1, 1, 1, 2, 2, 2]
    >>> result = explain_difference(y, s, query_id=q, metric="ndcg@3",
    ...                             a="sklearn", b="lightgbm")
    >>> [step["option"] for step in result.steps]
    ['ties', 'gain', 'no_relevant']
    >>> round(result.value_b - result.value_a, 4) == round(
    ...     sum(step["change"] for step in result.steps), 4)
    True
    """
    return walk_conventions(y_true, y_score, query_id, sample_weight, metric, a,
                            b).explanation(n_queries)


class ConventionPath:
    """The path from side ``a`` to side ``b``: values, per-query values, steps.

    What :func:`explain_difference` reports (:meth:`explanation`); the
    command's ``explain`` on files adds trec_eval's own reading of them as
    a step (:mod:`skrank.io._explain`).
    """

    def __init__(self, metric, label_a, label_b, start, end, value_a, value_b, steps,
                 options_a, options_b, specs):
        self.metric, self.label_a, self.label_b = metric, label_a, label_b
        self.start, self.end = start, end  # QueryValues of each side
        self.value_a, self.value_b, self.steps = value_a, value_b, steps
        self.options_a, self.options_b = options_a, options_b
        self.specs = specs  # (spec, k) of each side

    def explanation(self, n_queries):
        """The :class:`DifferenceExplanationResult` of the path."""
        return DifferenceExplanationResult(
            self.metric, self.label_a, self.label_b, self.value_a, self.value_b,
            self.steps, largest_moves(self.start, self.end, n_queries),
            self.options_a, self.options_b,
        )


def changed_queries(before, after):
    """How many queries' values differ between two aligned per-query arrays."""
    return int(np.sum(~same_or_both_nan(before, after)))


def walk_conventions(y_true, y_score, query_id, sample_weight, metric, a, b):
    """The :class:`ConventionPath` from ``a`` to ``b`` on these rows."""
    spec_a, label_a, options_a = _side(metric, a, "a", b)
    spec_b, label_b, options_b = _side(metric, b, "b", a)
    if spec_a.stem != spec_b.stem:
        raise ValueError(
            f"{metric!r} names {spec_a.stem!r} under `a` but {spec_b.stem!r} under "
            "`b`; name one metric."
        )
    spec = spec_a
    current = _full_options(spec, options_a, isinstance(a, dict))
    target = _full_options(spec, options_b, isinstance(b, dict))
    for side, options in ((a, current), (b, target)):
        _check_same_rows(side, spec.stem, y_true, sample_weight, query_id, options)
    changed = [name for name in _PATH_ORDER if current.get(name) != target.get(name)]
    changed += sorted(n for n in target if current.get(n) != target[n] and n not in changed)

    value_a, start = _values(y_true, y_score, query_id, sample_weight, spec, current)
    steps, previous, before = [], value_a, start
    for name in changed:
        old = current.get(name)
        current = {**current, name: target[name]}
        value, per_query = _values(y_true, y_score, query_id, sample_weight, spec, current)
        steps.append({
            "option": name, "from": old, "to": target[name], "value": value,
            "change": value - previous,
            "queries_changed": changed_queries(before.value, per_query.value),
        })
        previous, before = value, per_query
    return ConventionPath(
        metric, label_a, label_b, start, before, value_a, previous, steps,
        dict(_full_options(spec, options_a, isinstance(a, dict))), dict(target),
        ((spec, options_a["k"]), (spec, options_b["k"])),
    )


def _check_same_rows(side, stem, y_true, sample_weight, query_id, options):
    """A ValueError when a preset side reads these rows differently (see
    ``_peer_rules``): the path changes options, on the same rows."""
    if not isinstance(side, str):
        return
    rules = peer_rules(get_convention(side), stem)
    if rules is None:
        return
    labels, weight = rules.apply(y_true, sample_weight, query_id, options)
    if weight is None and sample_weight is not None:
        raise ValueError(
            f"compat={side!r}: {rules.peer}'s {rules.metric} ignores the weights, "
            "and explain_difference compares options on the same rows: pass "
            "sample_weight=None to compare."
        )
    given = np.asarray(y_true, dtype=np.float64)
    # a border changes what is relevant; a cast changes the grades themselves
    same = (labels is y_true) or (
        np.array_equal(labels > 0, given > 0) if rules.relevant_above is not None
        else np.array_equal(labels, given)
    )
    if not same:
        raise ValueError(
            f"compat={side!r}: {rules.peer}'s {rules.metric} reads these labels "
            "differently ("
            + ("a label above " + f"{rules.relevant_above:g} is relevant"
               if rules.relevant_above is not None else "it casts them to integers")
            + "), and explain_difference compares options on the same rows: "
            "pass the labels as the peer reads them to compare."
        )


def same_or_both_nan(a, b):
    """Where two arrays of values agree, NaN agreeing with NaN."""
    return (a == b) | (np.isnan(a) & np.isnan(b))


def largest_moves(start, end, n):
    """The ``n`` queries whose values move most from ``start`` to ``end``."""
    delta = end.value - start.value
    size = np.where(np.isnan(delta),
                    np.where(same_or_both_nan(start.value, end.value), 0, np.inf),
                    np.abs(delta))
    order = np.argsort(-size, kind="stable")[:n]
    order = order[size[order] > 0]
    return [
        {"query_id": start.query_id[i].item() if hasattr(start.query_id[i], "item")
         else start.query_id[i],
         "value_a": float(start.value[i]), "value_b": float(end.value[i]),
         "change": float(delta[i])}
        for i in order
    ]


class DifferenceExplanationResult:
    """What :func:`explain_difference` returns: the two values and the path between them.

    Attributes
    ----------
    metric : str
    a, b : str
        The preset names (or ``"options"`` for a dict).
    value_a, value_b : float
    steps : list of dict
        ``option``, ``from``, ``to``, ``value`` (the mean after the step),
        ``change`` and ``queries_changed``, in path order.
    queries : list of dict
        ``query_id``, ``value_a``, ``value_b`` and ``change`` of the queries
        that move most (nan: left out of the mean on that side).
    options_a, options_b : dict
        The full options of each side.

    Examples
    --------
    >>> from skrank import explain_difference
    >>> result = explain_difference([1, 0, 0, 1], [1, 1, 2, 0], query_id=[1, 1, 2, 2],
    ...                             metric="ndcg", a={}, b={"ties": "input"})
    >>> result.steps[0]["option"], result.steps[0]["from"], result.steps[0]["to"]
    ('ties', 'average', 'input')
    >>> print(result)      # doctest: +ELLIPSIS
    ndcg: 0.73... under options, 0.81... under options (difference +0.0...)
      ties: 'average' -> 'input'  +0.0...  (mean 0.81...; 1 query changed)
      queries that move most:
        1: 0.8155 -> 1
    """

    def __init__(self, metric, a, b, value_a, value_b, steps, queries,
                 options_a, options_b):
        self.metric, self.a, self.b = metric, a, b
        self.value_a, self.value_b = value_a, value_b
        self.steps, self.queries = steps, queries
        self.options_a, self.options_b = options_a, options_b

    def __repr__(self):
        lines = [
            f"{self.metric}: {self.value_a:.6g} under {self.a}, "
            f"{self.value_b:.6g} under {self.b} "
            f"(difference {self.value_b - self.value_a:+.6g})",
        ]
        if not self.steps:
            lines.append("  the two sides use the same options")
        for step in self.steps:
            lines.append(
                f"  {step['option']}: {step['from']!r} -> {step['to']!r}  "
                f"{step['change']:+.6g}  (mean {step['value']:.6g}; "
                f"{step['queries_changed']} quer"
                f"{'y' if step['queries_changed'] == 1 else 'ies'} changed)"
            )
        if self.queries:
            lines.append("  queries that move most:")
            for row in self.queries:
                lines.append(
                    f"    {row['query_id']!r}: {row['value_a']:.4g} -> "
                    f"{row['value_b']:.4g}"
                )
        return "\n".join(lines)

    def to_frame(self):
        """The steps as a pandas DataFrame: one row per option changed.

        The first row is side ``a`` itself (option ``None``, change 0).
        """
        pandas = import_optional("pandas", "DifferenceExplanationResult.to_frame")
        rows = [{"option": None, "from": None, "to": None, "value": self.value_a,
                 "change": 0.0, "queries_changed": 0}]
        rows += self.steps
        return pandas.DataFrame(rows, columns=[
            "option", "from", "to", "value", "change", "queries_changed"])


# the names of skrank 0.1.0.dev's first faces: result classes now end in Result
DifferenceExplanation = DifferenceExplanationResult
