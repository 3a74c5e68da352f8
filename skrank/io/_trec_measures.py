"""trec_eval 10.0's other measures, its nicknames and its print order.

:mod:`skrank.io._measures` holds the measures most runs are scored with
(map, P, ndcg_cut, ...); this module adds the rest of what ``trec_eval -m
all_trec`` prints: set measures, relative precision, precision at
multiples of R, unjudged shares, utility, 11-point average, rank-biased
precision and its residual, binary G, the geometric means, and relstring
(a string per query, not a number). Each kernel
takes the run's layout (``parts``) and returns one value per query, in
numpy over all queries at once. The definitions are trec_eval 10.0's, read
from its ``m_*.c`` files; so are the names it prints with parameters
(``utility_1,-1,0,0``, ``rbp_p=0.95``, ``Rprec_mult_0.50``).

Measures of ``all_trec`` not yet here are refused by name
(:data:`NOT_YET`), never computed otherwise.
"""

import re

import numpy as np

from .._core._layout import segment_cumsum, segment_sum
from ._trec_kernels import bpref, iprec_at_recall, sequential_sum, trec_average_precision

#: trec_eval's measure table, in the order it computes and prints them
PRINT_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
    "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg",
    "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
    "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
    "num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
    "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
    "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
)

#: trec_eval's nicknames for sets of measures (``-m official`` is its default)
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
}

#: measures of trec_eval that skrank does not compute yet: refused by name
NOT_YET = ("dcg", "ideal_dcg", "yaap")
#: measures on preference or judgment-group qrels, which skrank does not read
OTHER_QRELS = tuple(m for m in PRINT_ORDER if m.startswith("prefs_") or m.endswith("_avgjg"))

#: measures trec_eval prints on the "all" line only, not per query
SUMMARY_ONLY = ("num_q", "gm_map", "gm_bpref")
#: measures whose "all" value is the sum over queries, printed as integers
COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")

#: trec_eval's default parameters of each family
RELATIVE_P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
UNJ_CUTOFFS = (5, 10, 20)
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
ELEVEN_POINTS = tuple(i / 10 for i in range(11))
UTILITY = (1.0, -1.0, 0.0, 0.0)
MIN_GEO_MEAN = 1e-5


def family_of(name):
    """The family of a printed measure name (``P`` for ``P_10``), or None."""
    if name in PRINT_ORDER:
        return name
    best = None
    for family in PRINT_ORDER:  # the longest family the name extends
        if name.startswith(family + "_") and (best is None or len(family) > len(best)):
            best = family
    return best


def print_rank(name):
    """Where trec_eval prints a measure: its family's place in the measure table."""
    family = family_of(name)
    return PRINT_ORDER.index(family) if family is not None else len(PRINT_ORDER)


# ---------------------------------------------------------------- helpers --

def _retrieved(ranked):
    return np.ones(ranked.n_rows, dtype=bool) if ranked.retrieved is None else ranked.retrieved


def _refuse_mixed_ties(ranked, values, name):
    """A rank-dependent measure has no tie rule here: refuse mixed tie blocks.

    Under ``compat="trec_eval"`` ties are broken by document id and there are
    none; with ``ties="average"`` a block whose rows differ in ``values``
    would need the expected value over its orders, which these kernels do
    not compute.
    """
    if not ranked.has_ties:
        return
    starts = ranked.block_start
    mixed = np.maximum.reduceat(values, starts) != np.minimum.reduceat(values, starts)
    if ranked.score is not None:
        mixed &= np.isfinite(ranked.score[starts])
    if mixed.any():
        raise ValueError(
            f"Measure {name!r}: the run has tied scores, and skrank computes trec_eval's "
            f"{name} in one order only. Pass compat='trec_eval' (--compat trec_eval: "
            "ties broken by document id, as trec_eval does) or ties='input'."
        )


def _hits_at(ranked, flags, k):
    """Per query, how many of the first ``k`` rows have ``flags`` (k per query or scalar)."""
    k = np.broadcast_to(np.asarray(k), (ranked.n_queries,))
    within = ranked.rank <= k[ranked.query]
    return segment_sum((flags & within).astype(np.int64), ranked.query_start)


def _powers(p, n):
    """p**0 .. p**n, each the previous one times p, as trec_eval's loop makes them."""
    out = np.empty(n + 1)
    out[0] = 1.0
    out[1:] = p
    return np.cumprod(out)


def _in_row_order_sum(values, ranked):

    return sequential_sum(values, ranked.query, ranked.n_queries)


def _divide(top, bottom):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(bottom > 0, top / np.where(bottom > 0, bottom, 1), 0.0)


# ---------------------------------------------------------------- kernels --

def _counts(parts):
    ranked = parts.binary
    return (ranked.n_retrieved.astype(np.float64), ranked.n_relevant.astype(np.float64),
            ranked.n_relevant_retrieved.astype(np.float64))


def num_q(parts):
    return np.ones(parts.binary.n_queries)


def num_nonrel_judged_ret(parts):
    ranked = parts.binary
    judged_ret = (parts.judged > 0) & _retrieved(ranked)
    n_judged = segment_sum(judged_ret.astype(np.int64), ranked.query_start)
    return n_judged - ranked.n_relevant_retrieved


def set_P(parts):
    ret, _, rel_ret = _counts(parts)
    return _divide(rel_ret, ret)


def set_recall(parts):
    _, rel, rel_ret = _counts(parts)
    return _divide(rel_ret, rel)


def set_map(parts):
    ret, rel, rel_ret = _counts(parts)
    return _divide(rel_ret * rel_ret, ret * rel)


def set_relative_P(parts):
    ret, rel, rel_ret = _counts(parts)
    return np.where((ret > 0) & (rel > 0), _divide(rel_ret, np.minimum(ret, rel)), 0.0)


def set_F(parts, x):
    ret, rel, rel_ret = _counts(parts)
    precision, recall = _divide(rel_ret, ret), _divide(rel_ret, rel)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (x + 1.0) * precision * recall / (x * precision + recall)
    return np.where(rel_ret > 0, value, 0.0)


def utility(parts, weights, n_docs=0):
    ret, rel, rel_ret = _counts(parts)
    a, b, c, d = weights
    return (a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret)
            + d * (n_docs + rel_ret - ret - rel))


def relative_P(parts, k):
    """Relevant rows in the first k over min(k, R); 0 without a relevant row."""
    ranked = parts.binary
    _refuse_mixed_ties(ranked, ranked.is_relevant, f"relative_P_{k}")
    hits = _hits_at(ranked, ranked.is_relevant > 0, k)
    return _divide(hits, np.minimum(k, ranked.n_relevant))


def unj(parts, k):
    """Share of the first k places held by retrieved rows the qrels did not judge."""
    ranked = parts.binary
    unjudged = (parts.judged == 0) & _retrieved(ranked)
    _refuse_mixed_ties(ranked, unjudged.astype(np.float64), f"unj_{k}")
    return _hits_at(ranked, unjudged, k) / k


def Rprec_mult(parts, multiple):
    """Precision at trunc(multiple R + 0.9) rows (the missing rows not relevant)."""
    ranked = parts.binary
    _refuse_mixed_ties(ranked, ranked.is_relevant, f"Rprec_mult_{multiple:.2f}")
    cut = np.trunc(multiple * ranked.n_relevant + 0.9).astype(np.int64)
    hits = _hits_at(ranked, ranked.is_relevant > 0, cut)
    return _divide(hits, cut)


def eleven_pt_avg(parts, levels):
    """Interpolated precision averaged over recall levels, added highest first."""

    total = np.zeros(parts.binary.n_queries)
    for level in levels[::-1]:
        total += iprec_at_recall(parts, level)
    return total / len(levels)


def _rbp_gains(parts):
    """trec_eval's rbp gains: the grade, over the query's top grade when that passes 1."""
    graded = parts.graded
    grade = np.where(parts.judged > 0, graded.relevance, 0.0)
    top = np.maximum.reduceat(grade, graded.query_start)
    scale = np.where(top > 1, top, 1.0)
    return grade / scale[graded.query]


def rbp(parts, p):
    """(1 - p) times the sum of gain p**(rank - 1) over the retrieved rows."""
    ranked = parts.binary
    gains = np.where(_retrieved(ranked), _rbp_gains(parts), 0.0)
    _refuse_mixed_ties(ranked, gains, "rbp")
    weight = _powers(p, int(ranked.rank.max(initial=0)))[ranked.rank - 1]
    return (1.0 - p) * _in_row_order_sum(gains * weight, ranked)


def rbp_resid(parts, p):
    """p**n_ret + (1 - p) sum p**(rank - 1) over the unjudged retrieved rows; 0 if none."""
    ranked = parts.binary
    unjudged = ((parts.judged == 0) & _retrieved(ranked)).astype(np.float64)
    _refuse_mixed_ties(ranked, unjudged, "rbp_resid")
    powers = _powers(p, int(ranked.rank.max(initial=0)))
    weight = powers[ranked.rank - 1]
    total = _in_row_order_sum(unjudged * weight, ranked)
    n_unjudged = segment_sum(unjudged, ranked.query_start)
    return np.where(n_unjudged > 0, powers[ranked.n_retrieved] + (1.0 - p) * total, 0.0)


def binG(parts):
    """Over R, the sum of 1 / log2(2 + rows above not relevant) at each relevant row."""
    ranked = parts.binary
    found = ranked.is_relevant
    _refuse_mixed_ties(ranked, found, "binG")
    hits_so_far = np.cumsum(found)
    hits_so_far -= np.repeat(hits_so_far[ranked.query_start] - found[ranked.query_start],
                             ranked.query_size)
    with np.errstate(divide="ignore"):
        terms = np.where(found > 0, 1.0 / np.log2(2.0 + ranked.rank - hits_so_far), 0.0)
    return _divide(_in_row_order_sum(terms, ranked), ranked.n_relevant)


def _dcg_parts(parts, name):
    """Per row (ranked order): the running DCG of the retrieved rows and of the ideal.

    The ideal lists the query's judged grades, highest first (trec_eval's
    default gains: the grade itself). Each running sum adds the terms
    ``gain / log2(rank + 1)`` one after the other, as trec_eval's loops do.
    Also returns the gains and the number of positive ideal grades.
    """

    ranked = parts.graded
    grade = np.where(parts.judged > 0, ranked.relevance, 0.0)
    gain = np.where(_retrieved(ranked), grade, 0.0)
    _refuse_mixed_ties(ranked, gain, name)
    ideal = grade[np.lexsort((-grade, ranked.query))]
    log = np.log2(ranked.rank + 1.0)
    dcg = segment_cumsum(gain / log, ranked.query_start)
    ideal_dcg = segment_cumsum(ideal / log, ranked.query_start)
    n_positive = segment_sum((grade > 0).astype(np.int64), ranked.query_start)
    return ranked, gain, ideal, dcg, ideal_dcg, n_positive


def _last_of_query(ranked, values):
    return values[ranked.query_start + ranked.query_size - 1]


def ndcg_rel(parts):
    """nDCG averaged over the relevant (positive-gain) documents.

    A retrieved one contributes DCG / ideal DCG at its rank; one not
    retrieved, the final DCG over the final ideal DCG; divided by how many
    have a positive grade (0 when the sum is not positive).
    """
    ranked, gain, _, dcg, ideal_dcg, n_positive = _dcg_parts(parts, "ndcg_rel")
    with np.errstate(divide="ignore", invalid="ignore"):
        at_rows = np.where(gain > 0, dcg / ideal_dcg, 0.0)
        found = segment_sum((gain > 0).astype(np.int64), ranked.query_start)
        rest = (n_positive - found) * (_last_of_query(ranked, dcg)
                                       / _last_of_query(ranked, ideal_dcg))
        total = _in_row_order_sum(at_rows, ranked) + rest
        return np.where(total > 0, total / n_positive, 0.0)


def Rndcg(parts):
    """nDCG averaged at the R levels: where the ideal grade changes, and at the end.

    At each position i (1 <= i <= the number of positive grades) where the
    ideal's grade differs from the one before, nDCG over the first i places
    (with a positive ideal DCG); plus, when the run goes on more than one
    place past the last positive ideal grade, nDCG over the whole run
    (trec_eval's loop). 0 for a query without a relevant document; nan
    (trec_eval's 0 / 0) for one with relevant documents but no positive
    grade (``-l 0``).
    """
    ranked, _, ideal, dcg, ideal_dcg, n_positive = _dcg_parts(parts, "Rndcg")
    position = ranked.rank - 1  # 0-based place of each row
    before = np.r_[np.inf, ideal[:-1]]
    change = (position >= 1) & (position <= n_positive[ranked.query]) & (ideal != before)
    # the change at the place just past a query's rows: its ideal there is 0
    past = n_positive == ranked.query_size
    rows = np.flatnonzero(change) - 1  # the sums over the first i places end a row before
    queries = np.r_[ranked.query[rows + 1], np.flatnonzero(past & (n_positive > 0))]
    ends = np.r_[rows, ranked.query_start[past & (n_positive > 0)]
                 + ranked.query_size[past & (n_positive > 0)] - 1]
    places = np.r_[position[rows + 1], n_positive[past & (n_positive > 0)]]
    extra = np.flatnonzero(ranked.n_retrieved > n_positive + 1)
    queries = np.r_[queries, extra]
    ends = np.r_[ends, ranked.query_start[extra] + ranked.query_size[extra] - 1]
    places = np.r_[places, np.full(extra.shape[0], np.iinfo(np.int64).max)]
    top, bottom = dcg[ends], ideal_dcg[ends]
    keep = bottom > 0
    order = np.lexsort((places[keep], queries[keep]))
    owner = queries[keep][order]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (top[keep] / bottom[keep])[order]

    total = sequential_sum(terms, owner, ranked.n_queries)
    count = np.bincount(owner, minlength=ranked.n_queries)
    n_relevant = parts.binary.n_relevant
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n_relevant > 0, total / count, 0.0)


def G(parts):
    """trec_eval's normalised gain G, with its default gains (the grades).

    The row at place i adds gain / log2(2 + cost_i - gained_i): ``gained``
    the gain retrieved up to i, ``cost`` the ideal's gain up to i with each
    place worth at least 1. The sum is over the ideal's total gain.
    """

    ranked, gain, ideal, _, _, _ = _dcg_parts(parts, "G")
    gained = segment_cumsum(gain, ranked.query_start)
    cost = segment_cumsum(np.maximum(ideal, 1.0), ranked.query_start)
    terms = np.where(gain != 0, gain / np.log2(2.0 + cost - gained), 0.0)
    best = segment_sum(np.where(ideal > 0, ideal, 0.0), ranked.query_start)
    return _divide(_in_row_order_sum(terms, ranked), best)


def infAP(parts):
    """trec_eval's inferred AP (Yilmaz and Aslam), over the judged sample of the pool.

    A document outside the qrels is skipped; one in them with a negative
    judgment is in the pool, not judged. A relevant row at place j + 1
    (j > 0) adds 1/(j+1) + j/(j+1) * (pooled above)/j * (relevant above +
    eps)/(judged above + 2 eps); at the first place, 1. Over R.
    """
    ranked = parts.binary
    pooled = parts.pooled & _retrieved(ranked)
    judged = (parts.judged > 0) & pooled
    relevant = (ranked.is_relevant > 0) & judged
    _refuse_mixed_ties(ranked, pooled * 1.0 + judged * 1.0 + relevant * 1.0, "infAP")

    def above(flags):  # rows with ``flags`` before each row of its query
        flags = flags.astype(np.int64)
        return segment_cumsum(flags, ranked.query_start) - flags

    rel_above = above(relevant).astype(np.float64)
    judged_above = above(judged).astype(np.float64)
    pool_above = above(pooled).astype(np.float64)
    j = (ranked.rank - 1).astype(np.float64)
    eps = 1e-5
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (pool_above / j) * (
            (rel_above + eps) / (judged_above + 2 * eps))
    term = np.where(relevant, np.where(j == 0, 1.0, term), 0.0)
    return _divide(_in_row_order_sum(term, ranked), ranked.n_relevant)


def relstring(parts, length):
    """Per query, trec_eval's string of the first ``length`` retrieved documents.

    One character a document, in rank order: its grade when judged (0 to
    9; ``>`` above 9; a grade that is not an integer shows its integer
    part), ``-`` outside the qrels, ``.`` in them with a negative judgment
    (in the pool, not judged). An object array of str, one a query.
    """
    ranked = parts.binary
    grade = np.floor(parts.graded.relevance)
    codes = np.where(grade > 9, ord(">"), ord("0") + np.minimum(grade, 9)).astype(np.uint8)
    codes = np.where(parts.judged > 0, codes, ord("."))
    codes = np.where(parts.pooled, codes, ord("-")).astype(np.uint8)
    shown = _retrieved(ranked) & (ranked.rank <= length)
    if ranked.has_ties:  # a tie block that reaches into the string must be one character
        reached = _retrieved(ranked) & (ranked.block_first_rank[ranked.block] <= length)
        _refuse_mixed_ties(ranked, np.where(reached, codes, 0.0), "relstring")
    text = codes[shown].tobytes().decode("ascii")
    ends = np.cumsum(segment_sum(shown.astype(np.int64), ranked.query_start))
    out = np.empty(ranked.n_queries, dtype=object)
    out[:] = [text[a:b] for a, b in zip(np.r_[0, ends[:-1]].tolist(), ends.tolist())]
    return out


def gm_map(parts):

    return trec_average_precision(parts)


def gm_bpref(parts):

    return bpref(parts)


def geometric_mean(values):
    """trec_eval's geometric mean: exp of the mean of log(max(v, 1e-5)), added in order."""
    if values.shape[0] == 0:
        return float("nan")
    logs = np.log(np.maximum(values, MIN_GEO_MEAN))
    return float(np.exp(np.cumsum(logs)[-1] / values.shape[0]))


# ------------------------------------------------------------------ names --

def _numbers(text, params, kind):
    try:
        return [kind(v) for v in params.split(",")]
    except ValueError:
        raise ValueError(f"Measure {text!r}: malformed parameters {params!r}.") from None


def _cutoffs(text, params, default):
    if not params:
        return default
    ks = _numbers(text, params, int)
    if min(ks) < 1:
        raise ValueError(f"Measure {text!r}: cutoffs must be at least 1.")
    return ks


def _persistence(text, params):
    """rbp's parameters: ``p=0.95`` as trec_eval takes them (pairs name=value)."""
    p = 0.9
    for pair in params.split(",") if params else ():
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(
                f"Measure {text!r}: trec_eval's rbp takes named parameters, such as "
                f"rbp.p=0.95 (printed rbp_p=0.95)."
            )
        if key != "p":
            raise ValueError(
                f"Measure {text!r}: skrank takes only rbp's persistence p (rbp.p=0.95), "
                "not gains by relevance level."
            )
        try:
            p = float(value)
        except ValueError:
            p = -1.0
        if not 0.0 < p < 1.0:
            raise ValueError(f"Measure {text!r}: the persistence p is a number in (0, 1).")
    return p


_PERSISTENCE = re.compile(r"^(rbp|rbp_resid)_p=(.*)$")
_RELSTRING = re.compile(r"^relstring(?:[._](.*))?$", re.S)


def _relstring_length(text, params):
    """relstring's parameter: how many documents (trec_eval's default 10).

    trec_eval reads the first comma-separated value with ``atof`` and
    truncates it; skrank takes one number of 0 or more, and refuses
    anything else rather than guess.
    """
    if params is None:
        return 10
    try:
        length = float(params)
    except ValueError:
        length = -1.0
    if not 0 <= length < 2 ** 62:
        raise ValueError(
            f"Measure {text!r}: relstring takes one parameter, how many documents "
            "to show (a number of 0 or more), such as relstring.5 (printed relstring_5)."
        )
    return int(length)
_PRINTED = re.compile(r"^(relative_P|unj)_(\d+)$|^Rprec_mult_(\d*\.?\d+)$")


def parse_more(text):
    """``[(name, kernel, kind)]`` for a measure of this module, or None.

    ``kind``: ``"mean"``, ``"sum"`` (a count), ``"gm"`` (geometric mean) or
    ``"text"`` (a string per query and no summary: relstring).
    Raises for a measure of trec_eval that skrank does not compute.
    """
    found = _RELSTRING.match(text)
    if found:  # printed relstring_5 for -m relstring.5, the parameter as given
        length = _relstring_length(text, found.group(1))
        printed = "relstring" if found.group(1) is None else f"relstring_{found.group(1)}"
        return [(printed, lambda p: relstring(p, length), "text")]
    found = _PERSISTENCE.match(text)
    if found:  # rbp_p=0.95 as trec_eval prints rbp.p=0.95
        stem, value = found.group(1), found.group(2)
        persistence = _persistence(text, f"p={value}")
        kernel = rbp if stem == "rbp" else rbp_resid
        return [(text, lambda p: kernel(p, persistence), "mean")]
    found = _PRINTED.match(text)
    if found:
        if found.group(1):
            stem, k = found.group(1), int(found.group(2))
            if k < 1:
                raise ValueError(f"Measure {text!r}: the cutoff must be at least 1.")
            kernel = relative_P if stem == "relative_P" else unj
            return [(text, lambda p, k=k, f=kernel: f(p, k), "mean")]
        multiple = float(found.group(3))
        return [(f"Rprec_mult_{multiple:.2f}", lambda p, m=multiple: Rprec_mult(p, m), "mean")]
    stem, _, params = text.partition(".")
    simple = {"num_q": (num_q, "sum"), "num_nonrel_judged_ret": (num_nonrel_judged_ret, "sum"),
              "set_P": (set_P, "mean"), "set_recall": (set_recall, "mean"),
              "set_map": (set_map, "mean"), "set_relative_P": (set_relative_P, "mean"),
              "binG": (binG, "mean"), "gm_map": (gm_map, "gm"), "gm_bpref": (gm_bpref, "gm"),
              "ndcg_rel": (ndcg_rel, "mean"), "Rndcg": (Rndcg, "mean"), "G": (G, "mean"),
              "infAP": (infAP, "mean")}
    if stem in simple:
        if params and stem in ("G", "ndcg_rel", "Rndcg"):
            raise ValueError(f"Measure {text!r}: skrank computes {stem} with trec_eval's "
                             "default gains (the grades) only.")
        if params:
            raise ValueError(f"Measure {text!r}: {stem} takes no parameters.")
        kernel, kind = simple[stem]
        return [(stem, kernel, kind)]
    printed = f"{stem}_{params}" if params else stem
    if stem in ("relative_P", "unj"):
        default = RELATIVE_P_CUTOFFS if stem == "relative_P" else UNJ_CUTOFFS
        kernel = relative_P if stem == "relative_P" else unj
        return [(f"{stem}_{k}", lambda p, k=k, f=kernel: f(p, k), "mean")
                for k in _cutoffs(text, params, default)]
    if stem == "Rprec_mult":
        multiples = _numbers(text, params, float) if params else RPREC_MULTIPLES
        return [(f"Rprec_mult_{m:.2f}", lambda p, m=m: Rprec_mult(p, m), "mean")
                for m in multiples]
    if stem == "set_F":
        (x,) = _numbers(text, params, float)[:1] if params else (1.0,)
        return [(printed, lambda p: set_F(p, x), "mean")]
    if stem == "utility":
        weights = _numbers(text, params, float) if params else UTILITY
        if len(weights) != 4:
            raise ValueError(f"Measure {text!r}: utility takes four weights, such as "
                             "utility.1,-1,0,0.")
        return [(printed, lambda p: utility(p, weights), "mean")]
    if stem == "11pt_avg":
        levels = _numbers(text, params, float) if params else ELEVEN_POINTS
        if any(not 0.0 <= v <= 1.0 for v in levels):
            raise ValueError(f"Measure {text!r}: recall levels are numbers in [0, 1].")
        return [(printed, lambda p: eleven_pt_avg(p, levels), "mean")]
    if stem in ("rbp", "rbp_resid"):
        persistence = _persistence(text, params)
        kernel = rbp if stem == "rbp" else rbp_resid
        return [(printed, lambda p: kernel(p, persistence), "mean")]
    if stem in NOT_YET:
        raise ValueError(
            f"Measure {stem!r}: trec_eval's {stem} is not computed by skrank yet "
            f"(not yet: {', '.join(NOT_YET)})."
        )
    if stem in OTHER_QRELS:
        raise ValueError(
            f"Measure {stem!r} needs trec_eval's preference or judgment-group qrels "
            "(-R qrels_prefs / qrels_jg), which skrank does not read."
        )
    return None


def expand_nicknames(names):
    """Measure names with trec_eval's nicknames (official, set, all_trec) expanded.

    Returns the names and the measures of a nickname that skrank leaves out
    (:data:`NOT_YET`), in trec_eval's order.
    A family given with parameters (``rbp.p=0.5``) stands for the family: a
    nickname's default member of it (``rbp``) is dropped, as trec_eval
    computes each measure of its table once.
    """
    out, missing = [], []
    for name in names:
        if name in NICKNAMES:
            for member in NICKNAMES[name]:
                (missing if member in NOT_YET else out).append(member)
        else:
            out.append(name)
    with_params = {name.partition(".")[0] for name in out if "." in name}
    out = [name for name in out if name not in with_params]
    return out, list(dict.fromkeys(missing))
