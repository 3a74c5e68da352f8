"""The preset step: a metric function's call under ``compat=`` and score conventions.

Checking options is ``_core``'s (:func:`~skrank._core._params.validate_params`);
what a preset does to a call is the metrics' policy, and lives here. A
metric function declares both at once, beside its definition, with its
registry stem (the key of the preset table)::

    @validate_with_preset({"gain": choice(*GAINS), **CUTOFF_OPTIONS}, stem="ndcg")
    def ndcg_score(y_true, y_score, *, k=None, ..., compat=None): ...

Under ``compat=``, :func:`validate_with_preset` asks
:func:`~skrank._core._presets.preset_request` (the one rule of a preset
applied to one metric call, which :func:`evaluate` and the scorers use too)
for the call's options, fills those the caller did not give, reads
``y_true`` and ``sample_weight`` as the peer does (``_core/_peer_rules.py``),
and turns ``score_dtype`` and ``retrieved`` into converted scores; the body
sees neither ``compat`` nor the score options. :func:`evaluate` takes many
metrics, so :func:`validate_with_preset_per_metric` only records which
options the caller gave (a :class:`Preset`); ``evaluate`` applies the preset
to each metric itself.

The stem is the function's own (``metric_stem``), never looked up in a
table that another module fills: a call gives the same result whatever was
imported before it.
"""

import functools
from typing import NamedTuple

from .._core._params import validate_params, write_shared_docs
from .._core._presets import (
    SCORE_OPTIONS,
    convert_scores,
    get_convention,
    preset_request,
)


def stem_of(func):
    """The registry stem a metric function declares (``metric_stem``), or None."""
    return getattr(func, "metric_stem", None)


class Preset(NamedTuple):
    """A checked ``compat=`` of a multi-metric function: the convention, and
    the options the caller gave explicitly (which win over the preset's)."""

    convention: object
    explicit: frozenset


def validate_with_preset(rules, *, stem):
    """Declare a metric function's options and stem: check them, then apply the preset.

    ``validate_params(rules)`` checks the options given; then, under
    ``compat=``, the preset's options for the metric ``stem`` fill those not
    given (checked by the same rules), the peer's rules turn ``y_true`` and
    ``sample_weight`` into what the peer reads, and the score options
    (``score_dtype``, ``retrieved``) become converted scores. ``stem`` is
    the metric's registry stem, kept on the function as ``metric_stem``
    (the registry checks that its spec says the same); None for a function
    no peer has (a curve), which ``compat=`` then refuses, saying so.
    """
    def decorate(func):
        write_shared_docs(func)
        decorated = validate_params(rules)(_applying_preset(func, rules, stem))
        decorated.metric_stem = stem
        return decorated

    return decorate


def _applying_preset(func, rules, stem):
    takes_scores = "score_dtype" in rules
    # a function without a stem is a metric no peer has: the preset's error names it
    metric = func.__name__ if stem is None else stem

    @functools.wraps(func)
    def with_preset(*args, **kwargs):
        if kwargs.get("compat") is not None:
            compat = kwargs.pop("compat")
            request = preset_request(compat, metric, kwargs, takes=rules)
            # the preset's options fill those not given
            for name, value in request.options.items():
                if name not in kwargs:
                    kwargs[name] = rules[name].check(name, value)
            if "k" in rules and "k" not in kwargs and request.k is not None:
                kwargs["k"] = rules["k"].check("k", request.k)
            args = _as_the_peer_reads(request.peer, args, kwargs)
        if takes_scores and kwargs.keys() & set(SCORE_OPTIONS):
            dtype = kwargs.pop("score_dtype", None)
            retrieved = kwargs.pop("retrieved", "all")
            if len(args) > 1:
                args = (args[0], convert_scores(args[1], dtype, retrieved), *args[2:])
            elif "y_score" in kwargs:
                kwargs["y_score"] = convert_scores(kwargs["y_score"], dtype, retrieved)
        return func(*args, **kwargs)

    return with_preset


def _as_the_peer_reads(rules, args, kwargs):
    """``args`` with ``y_true`` (and ``kwargs`` with ``sample_weight``) as the
    peer reads them under a preset (see ``_peer_rules``); ``kwargs`` in place."""
    if rules is None:
        return args
    y_true = args[0] if args else kwargs.get("y_true")
    y_true, weight = rules.apply(
        y_true, kwargs.get("sample_weight"), kwargs.get("query_id"), kwargs
    )
    if kwargs.get("sample_weight") is not None:
        kwargs["sample_weight"] = weight
    if args:
        return (y_true, *args[1:])
    kwargs["y_true"] = y_true
    return args


def validate_with_preset_per_metric(rules):
    """Declare a multi-metric function's options (:func:`evaluate`'s): check
    them, then record a given ``compat=`` as a :class:`Preset` with the
    options the caller gave, which win over the preset's for every metric."""
    def decorate(func):
        write_shared_docs(func)

        @functools.wraps(func)
        def recording(*args, **kwargs):
            compat = kwargs.get("compat")
            if compat is not None and not isinstance(compat, Preset):
                kwargs["compat"] = Preset(
                    get_convention(compat), frozenset(kwargs) - {"compat"}
                )
            return func(*args, **kwargs)

        return validate_params(rules)(recording)

    return decorate
