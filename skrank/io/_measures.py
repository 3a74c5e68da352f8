"""trec_eval's measures by their trec_eval names, on the shared layout.

Each measure is a kernel ``(parts) -> values per query`` where ``parts``
holds the layout with binary relevance (grades at or above the relevance
level), the layout with the grades (for nDCG's gains), and which rows the
qrels judged. The numbers follow trec_eval 10.0's definitions; a query
without a relevant document scores 0 and stays in the mean, as there.
"""

import re
import warnings
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ..metrics._cutoff import (
    _precision_at_k_per_query,
    _r_precision_per_query,
    _recall_at_k_per_query,
)
from ..metrics._first_relevant import _hit_rate_per_query, _reciprocal_rank_per_query
from ..metrics._gain import _ndcg_per_query
from ..metrics._incomplete import _bpref_per_query
from ._judged import parse_judged
from ._trec_kernels import bpref, iprec_at_recall, trec_average_precision, zero_nan
from ._trec_measures import expand_nicknames, parse_more

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)
RECALL_LEVELS = tuple(i / 10 for i in range(11))
#: measures whose "all" line is the sum over queries, not the mean
SUMMED = ("num_ret", "num_rel", "num_rel_ret")


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure: the name it prints and its per-query kernel."""

    name: str
    kernel: Callable
    summed: bool = False
    geometric: bool = False
    text: bool = False  # a string per query (relstring), no summary value


def _fixed(name):
    table = {
        "num_ret": lambda p: p.binary.n_retrieved.astype(np.float64),
        "num_rel": lambda p: p.binary.n_relevant.astype(np.float64),
        "num_rel_ret": lambda p: p.binary.n_relevant_retrieved.astype(np.float64),
        "map": trec_average_precision,
        "Rprec": lambda p: zero_nan(_r_precision_per_query(p.binary)),
        "bpref": bpref,
        "recip_rank": lambda p: zero_nan(_reciprocal_rank_per_query(p.binary, k=None)),
        "ndcg": lambda p: zero_nan(_ndcg_per_query(p.graded, k=None, gain="linear")),
    }
    return table.get(name)


def _with_cutoff(stem, k):
    table = {
        "P": lambda p: zero_nan(_precision_at_k_per_query(p.binary, k=k)),
        "recall": lambda p: zero_nan(_recall_at_k_per_query(p.binary, k=k)),
        "ndcg_cut": lambda p: zero_nan(_ndcg_per_query(p.graded, k=k, gain="linear")),
        "map_cut": lambda p: trec_average_precision(p, k=k),
        "success": lambda p: zero_nan(_hit_rate_per_query(p.binary, k=k)),
    }
    return table[stem]


_CUT_STEMS = ("P", "recall", "ndcg_cut", "map_cut", "success")
_CUT_NAME = re.compile(r"^(P|recall|ndcg_cut|map_cut|success)_(\d+)$")
_IPREC_NAME = re.compile(r"^iprec_at_recall_(\d*\.?\d+)$")


def _iprec_measure(level):
    name = f"iprec_at_recall_{level:.2f}"
    return TrecMeasure(name, lambda p: iprec_at_recall(p, level))


def parse_trec_measure(text):
    """The measures a trec_eval name stands for, or None if it is not one.

    Accepts the names trec_eval prints (``P_10``, ``ndcg_cut_20``,
    ``iprec_at_recall_0.10``), a family with its default parameters (``P``,
    ``iprec_at_recall``) and trec_eval's ``-m`` form with parameters
    (``P.5,10``, ``iprec_at_recall.0.5,1``).
    """
    kernel = _fixed(text)
    if kernel is not None:
        return [TrecMeasure(text, kernel, summed=text in SUMMED)]
    match = _CUT_NAME.match(text)
    if match:
        stem, k = match.group(1), int(match.group(2))
        if k < 1:
            raise ValueError(f"Measure {text!r}: the cutoff must be at least 1.")
        return [TrecMeasure(text, _with_cutoff(stem, k))]
    match = _IPREC_NAME.match(text)
    if match:
        return [_iprec_measure(_level(text, match.group(1)))]
    stem, _, params = text.partition(".")
    if stem in _CUT_STEMS:
        if params:
            try:
                ks = [int(v) for v in params.split(",")]
            except ValueError:
                raise ValueError(
                    f"Measure {text!r}: the parameters of {stem} are cutoffs, such "
                    f"as {stem}.5,10."
                ) from None
            if min(ks) < 1:
                raise ValueError(f"Measure {text!r}: cutoffs must be at least 1.")
        else:
            ks = SUCCESS_CUTOFFS if stem == "success" else CUTOFFS
        return [TrecMeasure(f"{stem}_{k}", _with_cutoff(stem, k)) for k in ks]
    if stem == "iprec_at_recall":
        levels = [_level(text, v) for v in params.split(",")] if params else RECALL_LEVELS
        return [_iprec_measure(level) for level in levels]
    more = parse_more(text)
    if more is None:
        return None
    return [TrecMeasure(name, kernel, summed=kind == "sum", geometric=kind == "gm",
                        text=kind == "text")
            for name, kernel, kind in more]


def _level(text, value):
    try:
        level = float(value)
    except ValueError:
        level = -1.0
    if not 0.0 <= level <= 1.0:
        raise ValueError(f"Measure {text!r}: recall levels are numbers in [0, 1].")
    return level


#: trec_eval's measure names, ``{k}`` standing for a cutoff: the family an
#: unknown name's suggestions come from when it looks like one of them
TREC_NAMES = (
    "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
    "ndcg", "P_{k}", "recall_{k}", "ndcg_cut_{k}", "map_cut_{k}", "success_{k}",
    "iprec_at_recall", "num_q", "num_nonrel_judged_ret", "set_P", "set_recall", "set_map",
    "set_relative_P", "set_F", "utility", "relative_P_{k}", "unj_{k}", "Rprec_mult",
    "11pt_avg", "rbp", "rbp_resid", "binG", "gm_map", "gm_bpref", "all_trec", "official",
    "relstring",
)


class RunMeasure(NamedTuple):
    """One measure of :func:`evaluate_run`: the name it is reported under and its kernel.

    ``summed``: the "all" value is the sum over queries (trec_eval's counts);
    ``trec``: trec_eval's kernel, whose mean adds the values one after the
    other as trec_eval does; ``fill``: a name of skrank's, which the
    ``no_relevant`` option of :func:`evaluate_run` applies to; ``geometric``:
    the "all" value is trec_eval's geometric mean (gm_map, gm_bpref);
    ``text``: the kernel gives a string per query (relstring), no "all" value.
    """

    name: str
    kernel: Callable
    summed: bool = False
    trec: bool = False
    fill: bool = False
    geometric: bool = False
    text: bool = False


def parse_measures(metrics, compat=None):
    """Measure names -> [RunMeasure]: trec_eval's names, or skrank's under ``compat``.

    trec_eval's names always mean trec_eval's measures. A name of skrank's
    is resolved by :func:`~skrank.metrics._names.resolve_metric_name`: under
    ``compat="trec_eval"`` a metric trec_eval has (``"ndcg@10"``, ``"map"``,
    ``"precision@5"``, ``"mrr"``) is trec_eval's measure under the name
    given (``ndcg_cut_10``, ``map``, ``P_5``, ``recip_rank``), and another
    takes the preset's options; without a preset, skrank's definition.
    """
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    if not metrics:
        raise ValueError("`metrics` is empty: name at least one measure.")
    for name in metrics:
        if not isinstance(name, str):
            raise ValueError(f"`metrics` must hold measure names, got {name!r}.")
    given = set(metrics)
    metrics, missing = expand_nicknames(metrics)
    # a nickname's runid is the result's name (RunEvaluationResult.name), not a measure
    metrics = [name for name in metrics if name != "runid" or name in given]
    if missing:
        warnings.warn(
            "not computed by skrank yet, so left out of the nickname's measures: "
            f"trec_eval's {', '.join(missing)}.", UserWarning, stacklevel=4)
    out = []
    for name in metrics:
        if name == "runid":
            raise ValueError(
                "Measure 'runid': the run's name is RunEvaluationResult.name, not a measure "
                "(the command prints it with -m runid --format trec).")
        judged = parse_judged(name)  # judged@k: ir_measures' Judged@k
        if judged is not None:
            out.append(RunMeasure(*judged))
            continue
        trec = parse_trec_measure(name)
        if trec is not None:
            out.extend(RunMeasure(m.name, m.kernel, m.summed, True, geometric=m.geometric,
                                  text=m.text) for m in trec)
            continue
        # the registry of skrank's names loads only for such a name (about
        # 15 ms of the command's start)
        from ..metrics._names import resolve_metric_name

        try:
            resolved = resolve_metric_name(name, compat, families=(TREC_NAMES,))
        except ValueError as exc:
            if str(exc).startswith("Unknown"):
                raise ValueError(
                    f"Unknown measure {name!r}: give a trec_eval name (map, P_10, "
                    f"ndcg_cut_10, recip_rank, P.5,10, ...) or a skrank metric name. {exc}"
                ) from None
            raise
        if resolved.peer_name is not None:  # trec_eval's own measure, as named
            (measure,) = parse_trec_measure(resolved.peer_name)
            out.append(RunMeasure(name, measure.kernel, measure.summed, True, True))
            continue
        spec, k = resolved.spec, resolved.k
        if spec.group_only:
            raise ValueError(f"Measure {name!r} is not available from a run.")
        options = {key: value for key, value in resolved.options.items()
                   if key in spec.kernel_options}
        out.append(RunMeasure(name, _registry_kernel(spec, k, options), fill=True))
    return out


def _registry_kernel(spec, k, options):
    """A skrank metric's kernel on the run's layout (``options``: the preset's)."""
    def kernel(parts):
        if spec.stem == "bpref":
            return _bpref_per_query(parts.binary, judged=parts.judged)[0]
        layout = parts.binary if spec.binary else parts.graded_as_relevance
        return spec.compute(layout, k, options)
    return kernel
