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

from ..metrics._average_precision import _average_precision_terms
from ..metrics._cutoff import (
    _precision_at_k_per_query,
    _r_precision_per_query,
    _recall_at_k_per_query,
)
from ..metrics._first_relevant import _hit_rate_per_query, _reciprocal_rank_per_query
from ..metrics._gain import _ndcg_per_query
from ..metrics._incomplete import _bpref_per_query
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


def _zero_nan(values):
    return np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0)


def _iprec_at_recall(parts, level):
    """trec_eval's interpolated precision at a recall level, per query.

    The level becomes a number of relevant documents, ``c = lround(level R)``
    (trec_eval 10.0; older copies use ``(long)(level R + 0.9)``); the value
    is the best precision at or after the rank of the ``max(c, 1)``-th
    relevant document retrieved, 0 when fewer than ``c`` were retrieved.
    Rows in trec_eval's order have no tie blocks: positions are ranks. With
    ``ties="average"``, a query whose tie block mixes relevant and other
    rows gets the exact expected value over the orders of its ties
    (:func:`_expected_iprec`); every other query is computed as without ties.
    """
    ranked = parts.binary
    cut = np.floor(level * ranked.n_relevant + 0.5).astype(np.int64)  # lround, >= 0
    found = np.rint(ranked.n_relevant_retrieved).astype(np.int64)
    wanted = np.maximum(cut, 1)
    # position in the query (tied rows in layout order): in a block of only
    # relevant rows, or of none, the relevant rows hold these positions in
    # every order of the ties
    position = np.arange(ranked.n_rows) - ranked.query_start[ranked.query] + 1
    # the best precision at or after a relevant row is reached at a relevant
    # row (it falls at every other one): only those rows are looked at
    relevant_rows = np.flatnonzero(ranked.is_relevant > 0)
    query = ranked.query[relevant_rows]
    hits = np.arange(1, relevant_rows.shape[0] + 1, dtype=np.int64)
    first = np.searchsorted(relevant_rows, ranked.query_start)
    hits -= first[query]  # relevant rows so far in the query, this one included
    precision = hits / position[relevant_rows]
    best_after = _suffix_max_by_query(precision, query, ranked.n_queries)
    ok = wanted <= found
    out = np.zeros(ranked.n_queries)
    out[ok] = best_after[first[ok] + wanted[ok] - 1]
    if ranked.has_ties:
        mixed = (ranked.block_relevant > 0) & (ranked.block_relevant < ranked.block_size)
        mixed &= np.isfinite(ranked.score[ranked.block_start]) if ranked.score is not None \
            else True
        for q in np.unique(ranked.block_query[mixed]):
            if ok[q]:
                out[q] = _expected_iprec(ranked, q, int(wanted[q]))
    return out


#: work (thresholds x block rows x relevant rows) above which a tie block is
#: refused rather than averaged exactly
_IPREC_WORK = 50_000_000


def _expected_iprec(ranked, q, wanted):
    """E[max_{j >= wanted} j / pos_j] over the orders of query ``q``'s tied rows.

    Blocks are independent, and the relevant rows counted before a block do
    not depend on the orders, so the maximum's distribution function is the
    product of the blocks' own, ``P(M_B <= t)``. For a block of ``b`` rows
    with ``r`` relevant, ``s`` rows and ``j0`` relevant rows above it,
    ``M_B <= t`` holds when the i-th relevant row's place ``p_i`` in the
    block satisfies ``(j0 + i) / (s + p_i) <= t``; the share of the
    ``C(b, r)`` equally likely places that do is counted by a recurrence
    over i. Thresholds are fractions of integers, compared exactly.
    """
    blocks = np.flatnonzero(ranked.block_query == q)
    if ranked.score is not None:
        blocks = blocks[np.isfinite(ranked.score[ranked.block_start[blocks]])]
    first_rank = ranked.query_start[q]
    constants, random = [], []
    for block in blocks:
        r, b = int(ranked.block_relevant[block]), int(ranked.block_size[block])
        j0 = int(ranked.relevant_before_block[block])
        s = int(ranked.block_start[block] - first_rank)
        low = max(1, wanted - j0)
        if r == 0 or low > r:
            continue
        if r == b:  # relevant rows fill the block: their places are fixed
            constants += [((j0 + i), (s + i)) for i in range(low, r + 1)]
        else:
            random.append((s, j0, r, b, low))
    floor = max((a / c for a, c in constants), default=0.0)
    points, cdfs = [], []
    for s, j0, r, b, low in random:
        pairs = {}
        for i in range(low, r + 1):
            for p in range(i, b - r + i + 1):
                a, c = j0 + i, s + p
                pairs.setdefault(a / c, (a, c))
        values = np.array(sorted(pairs))
        if values.shape[0] * b * r > _IPREC_WORK:
            raise ValueError(
                f"iprec_at_recall with ties='average': query {ranked.query_ids[q]!r} has a "
                f"block of {b} tied rows ({r} relevant), too large to average over its "
                "orders exactly; pass ties='input' or compat='trec_eval'."
            )
        fractions = np.array([pairs[v] for v in values], dtype=np.int64)
        points.append(values)
        cdfs.append(_share_below(fractions, s, j0, r, b, low))
    grid = np.unique(np.concatenate([[floor], *points]))
    grid = grid[grid >= floor]
    cdf = np.ones(grid.shape[0])
    for values, own in zip(points, cdfs):
        index = np.searchsorted(values, grid, side="right") - 1
        cdf *= np.where(index >= 0, own[np.maximum(index, 0)], 0.0)
    if not constants:
        cdf[grid < floor] = 0.0
    jumps = np.diff(np.r_[0.0, cdf])
    return float(np.dot(grid, jumps))


def _share_below(fractions, s, j0, r, b, low):
    """For each threshold a/c, P(every (j0+i)/(s+p_i) <= a/c, i >= low)."""
    a, c = fractions[:, 0:1], fractions[:, 1:2]
    i = np.arange(1, r + 1)[None, :]
    # p_i >= ceil(((j0 + i) c - s a) / a), exact in integers; no bound below low
    bound = -((s * a - (j0 + i) * c) // a)
    bound = np.where(i >= low, bound, 1)
    place = np.arange(1, b + 1)[None, :]
    ways = (place >= bound[:, 0:1]).astype(np.float64)
    total = np.ones((1, b))
    for k in range(1, r):
        ways = np.concatenate([np.zeros((ways.shape[0], 1)), np.cumsum(ways, axis=1)[:, :-1]],
                              axis=1) * (place >= bound[:, k:k + 1])
        total = np.concatenate([np.zeros((1, 1)), np.cumsum(total, axis=1)[:, :-1]], axis=1)
    return ways.sum(axis=1) / total.sum()


def _suffix_max_by_query(values, query, n_queries):
    """Largest of ``values`` from each position to the end of its query, exactly.

    ``query`` is non-decreasing. Each value becomes its rank among the
    distinct values, and the ranks of later queries (in reverse) are lifted
    above every earlier one, so one running max over int64 keys restarts at
    each query with no float arithmetic on the values.
    """
    distinct, rank = np.unique(values, return_inverse=True)
    n = max(distinct.shape[0], 1)
    key = (n_queries - 1 - query).astype(np.int64) * n + rank.reshape(-1)
    best = np.maximum.accumulate(key[::-1])[::-1]
    return distinct[best % n] if distinct.shape[0] else values.copy()


def _sequential_sum(values, query, n_queries):
    """Per-query sums of ``values``, added one after the other in row order.

    trec_eval adds a query's terms in a C loop; numpy's sums are pairwise,
    which can differ in the last bit and move a printed 4th decimal. Only
    the nonzero terms are added (adding 0.0 changes no sum), one position
    of every query at a time.
    """
    rows = np.flatnonzero(values)
    owner = query[rows]
    counts = np.bincount(owner, minlength=n_queries)
    position = np.arange(rows.shape[0]) - (np.cumsum(counts) - counts)[owner]
    by_position = np.argsort(position, kind="stable")
    bounds = np.searchsorted(position[by_position], np.arange(int(counts.max(initial=0)) + 1))
    out = np.zeros(n_queries)
    taken = values[rows][by_position]
    owner = owner[by_position]
    for j in range(bounds.shape[0] - 1):  # queries are distinct at one position
        part = slice(bounds[j], bounds[j + 1])
        out[owner[part]] += taken[part]
    return out


def _trec_average_precision(parts, k=None):
    """trec_eval's map / map_cut_k: precision summed at each relevant rank, over R."""
    ranked = parts.binary
    terms = _average_precision_terms(ranked)
    if k is not None:
        terms = np.where(ranked.rank <= k, terms, 0.0)
    total = _sequential_sum(terms, ranked.query, ranked.n_queries)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _zero_nan(total / ranked.n_relevant)


def _bpref(parts):
    return _zero_nan(_bpref_per_query(parts.binary, judged=parts.judged)[0])


def _fixed(name):
    table = {
        "num_ret": lambda p: p.binary.n_retrieved.astype(np.float64),
        "num_rel": lambda p: p.binary.n_relevant.astype(np.float64),
        "num_rel_ret": lambda p: p.binary.n_relevant_retrieved.astype(np.float64),
        "map": _trec_average_precision,
        "Rprec": lambda p: _zero_nan(_r_precision_per_query(p.binary)),
        "bpref": _bpref,
        "recip_rank": lambda p: _zero_nan(_reciprocal_rank_per_query(p.binary, k=None)),
        "ndcg": lambda p: _zero_nan(_ndcg_per_query(p.graded, k=None, gain="linear")),
    }
    return table.get(name)


def _with_cutoff(stem, k):
    table = {
        "P": lambda p: _zero_nan(_precision_at_k_per_query(p.binary, k=k)),
        "recall": lambda p: _zero_nan(_recall_at_k_per_query(p.binary, k=k)),
        "ndcg_cut": lambda p: _zero_nan(_ndcg_per_query(p.graded, k=k, gain="linear")),
        "map_cut": lambda p: _trec_average_precision(p, k=k),
        "success": lambda p: _zero_nan(_hit_rate_per_query(p.binary, k=k)),
    }
    return table[stem]


_CUT_STEMS = ("P", "recall", "ndcg_cut", "map_cut", "success")
_CUT_NAME = re.compile(r"^(P|recall|ndcg_cut|map_cut|success)_(\d+)$")
_IPREC_NAME = re.compile(r"^iprec_at_recall_(\d*\.?\d+)$")


def _iprec_measure(level):
    name = f"iprec_at_recall_{level:.2f}"
    return TrecMeasure(name, lambda p: _iprec_at_recall(p, level))


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
    return [TrecMeasure(name, kernel, summed=kind == "sum", geometric=kind == "gm")
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
)


class RunMeasure(NamedTuple):
    """One measure of :func:`evaluate_run`: the name it is reported under and its kernel.

    ``summed``: the "all" value is the sum over queries (trec_eval's counts);
    ``trec``: trec_eval's kernel, whose mean adds the values one after the
    other as trec_eval does; ``fill``: a name of skrank's, which the
    ``no_relevant`` option of :func:`evaluate_run` applies to; ``geometric``:
    the "all" value is trec_eval's geometric mean (gm_map, gm_bpref).
    """

    name: str
    kernel: Callable
    summed: bool = False
    trec: bool = False
    fill: bool = False
    geometric: bool = False


def parse_measures(metrics, compat=None):
    """Measure names -> [RunMeasure]: trec_eval's names, or skrank's under ``compat``.

    trec_eval's names always mean trec_eval's measures. A name of skrank's
    is resolved by :func:`~skrank.metrics._names.resolve_metric_name`: under
    ``compat="trec_eval"`` a metric trec_eval has (``"ndcg@10"``, ``"map"``,
    ``"precision@5"``, ``"mrr"``) is trec_eval's measure under the name
    given (``ndcg_cut_10``, ``map``, ``P_5``, ``recip_rank``), and another
    takes the preset's options; without a preset, skrank's definition.
    """
    from ..metrics._names import resolve_metric_name

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
    # a nickname's runid is the result's name (RunEvaluation.name), not a measure
    metrics = [name for name in metrics if name != "runid" or name in given]
    if missing:
        warnings.warn(
            "not computed by skrank yet, so left out of the nickname's measures: "
            f"trec_eval's {', '.join(missing)}.", UserWarning, stacklevel=4)
    out = []
    for name in metrics:
        if name == "runid":
            raise ValueError(
                "Measure 'runid': the run's name is RunEvaluation.name, not a measure "
                "(the command prints it with -m runid --format trec).")
        trec = parse_trec_measure(name)
        if trec is not None:
            out.extend(RunMeasure(m.name, m.kernel, m.summed, True, geometric=m.geometric)
                       for m in trec)
            continue
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
