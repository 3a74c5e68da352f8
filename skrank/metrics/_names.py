"""A metric's name under a preset: one resolution for every entry point.

The rule: under a preset (``compat=``), skrank's name and the peer's own
name for the same metric give the same number, the peer's. ``"ndcg@10"``
and trec_eval's ``"ndcg_cut_10"`` both resolve to the stem ``ndcg``, the
cutoff 10 and the trec_eval preset's options for nDCG. :func:`evaluate`,
the scorers, :func:`evaluate_run`, :func:`explain_difference` and the
command all call :func:`resolve_metric_name`; none parses a peer's name
itself.

An unknown name is a ``ValueError`` whose suggestions come from the family
of names the typo resembles: a trec_eval-style typo gets trec_eval's names
where they are accepted, a CatBoost-style one CatBoost's.
"""

import difflib
import re
from typing import NamedTuple

from .._core._presets import (
    PRESETS,
    get_convention,
    parse_peer_name,
    preset_request,
)
from ._registry import (
    METRICS,
    _suggestions,
    list_metric_hint,
    match_metric_name,
    metric_names,
)


class ResolvedName(NamedTuple):
    """A metric name resolved: its spec, cutoff and the options it stands for.

    ``options`` are the preset's options for the metric and those the name
    itself fixes (XGBoost's ``"-"`` suffix: ``no_relevant="zero"``); empty
    without a preset. ``k`` is the cutoff the name gives (the peer's own
    bare names give the peer's: XGBoost's ``"ndcg"`` is ``@32``).
    ``peer_name`` is the peer's own name for the same stem and cutoff
    (``"ndcg_cut_10"`` for ``"ndcg@10"`` under trec_eval), or None when the
    peer has no name for it. ``extra``: the options the name alone fixes (a
    part of ``options``). ``preset``: the
    :class:`~skrank._core._presets.PresetRequest` of the metric called by
    this name without other options (its ``k`` is the cutoff a call takes:
    the name's, else the peer's, as skrank's ``"precision"`` under XGBoost
    is ``pre@32``); None without a preset.
    """

    spec: object
    k: object
    options: dict
    peer_name: object
    extra: dict = {}
    preset: object = None


def _convention(compat):
    """The Convention of ``compat``: a preset name, a Convention, a checked Preset, None."""
    return get_convention(getattr(compat, "convention", compat))


def resolve_metric_name(name, compat=None, *, foreign=False, elsewhere=(), families=()):
    """The :class:`ResolvedName` of ``name`` under the preset ``compat``.

    The peer's own names are tried first, then skrank's. ``foreign=True``
    also accepts the names of every other preset for their stem and
    cutoff (``"P_3"`` is ``precision@3`` whatever the preset), refusing a
    foreign name that carries options of its own peer (``"ndcg@3-"`` is
    XGBoost's alone) unless its peer is in ``elsewhere``: presets whose
    own options stay with them (the other side of
    :func:`explain_difference`). ``families`` are further lists of accepted names
    (``{k}`` standing for a cutoff) that an unknown name's suggestions may
    come from, such as trec_eval's measures in :func:`evaluate_run`.
    """
    convention = _convention(compat)
    if convention is not None:
        peer = parse_peer_name(convention, name)
        if peer is not None:
            stem, k, extra = peer
            return _resolved(METRICS[stem], k, convention, extra)
    found = match_metric_name(name)
    if found is not None:
        spec, k = found
        return _resolved(spec, k, convention, {})
    if foreign:
        others = [PRESETS[e] for e in elsewhere]
        others += [c for c in PRESETS.values() if c.name not in elsewhere]
        for other in others:
            peer = parse_peer_name(other, name)
            if peer is None:
                continue
            stem, k, extra = peer
            if extra and other.name not in elsewhere:
                options = ", ".join(f"{key}={value!r}" for key, value in extra.items())
                raise ValueError(
                    f"{name!r} is {other.peer}'s name for {stem!r} with {options}, a "
                    f"meaning it has under compat={other.name!r} only; use it with "
                    f"that preset, or name the metric as skrank does "
                    f"({_skrank_name(METRICS[stem], k)!r})."
                )
            return _resolved(METRICS[stem], k, convention, {})
    raise unknown_name_error(name, convention, families)


def _resolved(spec, k, convention, extra):
    if convention is None:
        return ResolvedName(spec, k, dict(extra), None, dict(extra))
    request = preset_request(convention, spec.stem, {} if k is None else {"k": k},
                             extra=extra)
    return ResolvedName(spec, k, request.options, request.peer_name, dict(extra),
                        request)


def _skrank_name(spec, k):
    return f"{spec.stem}@{k}" if k is not None and spec.takes_k else spec.stem


def preset_names(convention):
    """Every name of a preset, ``{k}`` standing for a cutoff (for suggestions)."""
    names = [name for metric in convention.metrics.values() for name in metric.names]
    for alias in convention.aliases:
        names += [alias, alias + "@{k}"]
    return names


def foreign_name(name):
    """``(convention, skrank name)`` of a peer's own name, or None."""
    for convention in PRESETS.values():
        peer = parse_peer_name(convention, name)
        if peer is not None:
            stem, k, _ = peer
            return convention, _skrank_name(METRICS[stem], k)
    return None


_CUTOFF = re.compile(r"(\d+)(?!.*\d)")


def suggest_names(name, families=()):
    """Up to three accepted names close to ``name``, from the family it resembles.

    ``families`` are lists of accepted names besides skrank's (``{k}``
    standing for a cutoff). Each family is scored by its closest name
    (a name with ``@`` is compared with names with ``@`` only, one without
    with those without); skrank's also counts a known alias (``"p@10"``
    is ``precision@10``). The suggestions come from the best family alone,
    skrank's on a tie.
    """
    if not families:
        return _suggestions(name)
    text = name.strip()
    lowered = text.lower()
    at = "@" in text
    cutoff = _CUTOFF.search(text)
    k = cutoff.group(1) if cutoff else None

    def concrete(templates):
        out = []
        for template in templates:
            if ("@" in template) != at:
                continue
            if "{k}" in template:
                if k is None or int(k) < 1:
                    continue
                template = template.replace("{k}", k)
            out.append(template)
        return list(dict.fromkeys(out))

    def score(names):
        return max((difflib.SequenceMatcher(None, lowered, n.lower()).ratio()
                    for n in names), default=0.0)

    own = _suggestions(name)
    skrank_score = max(score(own), score(concrete(
        [f"{stem}@{{k}}" for stem, spec in METRICS.items() if spec.takes_k]
        + list(METRICS))))
    best, best_names = skrank_score, None
    for templates in families:
        names = concrete(templates)
        value = score(names)
        if value > best:
            best, best_names = value, names
    if best_names is None:
        return own
    by_lower = {n.lower(): n for n in best_names}
    close = difflib.get_close_matches(lowered, list(by_lower), n=3, cutoff=0.5)
    return [by_lower[n] for n in close]


def unknown_name_error(name, convention=None, families=()):
    """The ValueError for an unknown metric name: suggestions and the names accepted."""
    if not isinstance(name, str):
        return ValueError(f"A metric name must be a string, got {name!r}.")
    families = list(families)
    if convention is not None:
        families.append(preset_names(convention))
    peer = foreign_name(name) if convention is None and not families else None
    if peer is not None:  # a peer's own name, outside its preset
        close = [peer[1]]
    else:
        close = [s for s in suggest_names(name, families)
                 if s.lower() != name.strip().lower()]
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    hint += list_metric_hint(name)
    if peer is not None:
        hint += f" {name!r} is {peer[0].peer}'s name, accepted under compat={peer[0].name!r}."
    known = f"Known names: {', '.join(metric_names())} (k is any positive integer)"
    if convention is not None:
        known += f"; under compat={convention.name!r} also {convention.peer}'s: " + \
            ", ".join(n.replace("{k}", "k") for n in preset_names(convention))
    return ValueError(f"Unknown metric name {name!r}.{hint} {known}.")
