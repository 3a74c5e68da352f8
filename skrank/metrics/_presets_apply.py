"""The preset step: a metric function's call under ``compat=`` and score conventions.

Checking options is ``_core``'s (:func:`~skrank._core._params.validate_params`);
what a preset does to a call is the metrics' policy, and lives here. A
metric function declares both at once, beside its definition::

    @validate_with_preset({"gain": choice(*GAINS), **CUTOFF_OPTIONS})
    def ndcg_score(y_true, y_score, *, k=None, ..., compat=None): ...

Under ``compat=``, :func:`validate_with_preset` fills the options the caller
did not give from the preset table (``_core/_presets.py``), reads ``y_true``
and ``sample_weight`` as the peer does (``_core/_peer_rules.py``), and turns
``score_dtype`` and ``retrieved`` into converted scores; the body sees
neither ``compat`` nor the score options. :func:`evaluate` takes many
metrics, so :func:`validate_with_preset_per_metric` only records which
options the caller gave (a :class:`Preset`); ``evaluate`` applies the preset
to each metric itself.
"""

import functools
from typing import NamedTuple

from .._core._params import validate_params, write_shared_docs
from .._core._peer_rules import peer_rules
from .._core._presets import (
    SCORE_OPTIONS,
    convert_scores,
    get_convention,
)


#: public metric function name -> its registry stem, which the preset table
#: is keyed by. The registry fills it (:func:`register_stems`) when it is
#: built: ``_registry.py`` imports the metric modules, so they cannot import it.
_STEMS = {}


def register_stems(metrics):
    """Record the stem of each registry spec's function (the registry calls it)."""
    _STEMS.update((spec.func.__name__, spec.stem) for spec in metrics.values())


def stem_of(function_name):
    """The registry stem of a public metric function; its own name without one."""
    return _STEMS.get(function_name, function_name)


class Preset(NamedTuple):
    """A checked ``compat=`` of a multi-metric function: the convention, and
    the options the caller gave explicitly (which win over the preset's)."""

    convention: object
    explicit: frozenset


def validate_with_preset(rules):
    """Declare a metric function's options: check them, then apply the preset.

    ``validate_params(rules)`` checks the options given; then, under
    ``compat=``, the preset's options fill those not given (checked by the
    same rules), the peer's rules turn ``y_true`` and ``sample_weight`` into
    what the peer reads, and the score options (``score_dtype``,
    ``retrieved``) become converted scores. The metric is the registry stem
    of the function (:func:`stem_of`); a function without one (a curve) is
    a metric no peer has, which the preset's error says.
    """
    def decorate(func):
        write_shared_docs(func)
        return validate_params(rules)(_applying_preset(func, rules))

    return decorate


def _applying_preset(func, rules):
    takes_scores = "score_dtype" in rules

    @functools.wraps(func)
    def with_preset(*args, **kwargs):
        if kwargs.get("compat") is not None:
            # the preset's options fill those not given
            convention = get_convention(kwargs.pop("compat"))
            stem = stem_of(func.__name__)
            defaults = convention.options_for(stem)
            if convention.metrics[stem].k is not None:
                defaults["k"] = convention.metrics[stem].k  # the bare name's
            for name, value in defaults.items():
                if name in rules and name not in kwargs:
                    kwargs[name] = rules[name].check(name, value)
            args = _as_the_peer_reads(peer_rules(convention, stem), args, kwargs)
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
