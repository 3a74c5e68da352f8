"""Intent-aware diversity measures (ndeval's): the public functions.

The definitions are in each docstring; the layout of 2-D grades and the
kernels in ``_intents.py``, the greedy ideal in ``_intent_ideal.py``.
"""

from functools import partial

import numpy as np

from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._factorize import factorize
from .._core._params import AGGREGATE, CUTOFF, NO_RELEVANT, POSITIVE, Rule, choice
from .._core._presets import convert_scores
from .._core._validation import (
    check_fraction,
    check_nonnegative,
    check_option,
    check_relevance,
    check_score,
    first_position,
    to_array,
)
from ._intents import (
    map_ia_per_query,
    positional_per_query,
    precision_ia_per_query,
    rank_intents,
    subtopic_recall_per_query,
)
from ._presets_apply import validate_with_preset

#: ties: the exact expectation over tie orders, or the input order
INTENT_TIES = ("average", "input")
UNIT_INTERVAL = Rule(partial(check_fraction, closed_low=True, closed_high=True),
                     (-0.1, 1.5, float("nan"), "0.5"))
INTENT_OPTIONS = {
    "k": CUTOFF,
    "alpha": UNIT_INTERVAL,
    "beta": UNIT_INTERVAL,
    "relevance_level": POSITIVE,
    "ties": choice(*INTENT_TIES),
    "retrieved": choice("all", "positive"),
    "no_relevant": choice(*NO_RELEVANT),
    "aggregate": choice(*AGGREGATE),
}

_PARAMETERS = """\
y_true : array-like of shape (n_rows, n_intents)
    The grade of each row for each intent (subtopic); a row is relevant
    to an intent when its grade there is >= ``relevance_level``. A
    query's intents are the columns with a relevant row in that query
    (ndeval's "actual subtopics").
y_score : array-like of shape (n_rows,)
    Score of each row; within a query, higher scores rank first.
query_id : array-like of shape (n_rows,), default=None
    Query of each row (any hashable ids, rows in any order). None: all
    rows are one ranking.
k : int, default=K_DEFAULT
    Cutoff: only the top ``k`` rows of each query count; None, the whole
    list.
alpha : float in [0, 1], default=0.5
    The redundancy penalty: a row's gain for an intent is multiplied by
    ``1 - alpha`` for each row above it relevant to that intent.
beta : float in [0, 1], default=0.5
    NRBP's patience (the probability of reading on); only NRBP uses it.
relevance_level : float, default=1
    The smallest grade that counts as relevant (ndeval: any grade > 0).
intent_weight : array-like of shape (n_intents,), default=None
    P(intent | query) (Agrawal et al., 2009), renormalised over each
    query's intents; None weighs a query's intents equally (ndeval).
doc_id : array-like of shape (n_rows,), default=None
    Document ids, unique within a query: the greedy ideal gives equal
    marginal gains to the larger id first (ndeval's ``strcmp`` order for
    strings). None: the earlier row first.
ties : {"average", "input"}, default="average"
    ``"average"``: the exact expected value over all orders of rows with
    equal scores (closed forms per tie block). ``"input"``: rows with
    equal scores keep their input order.
retrieved : {"all", "positive"}, default="all"
    ``"positive"``: a row scored <= 0 is judged but not retrieved: it
    shapes the query's intents, the ideal ranking and MAP-IA's
    denominators, never takes a rank (a qrels-plus-run pair as arrays).
no_relevant : {"zero", "skip", "one", "error"}, default="zero"
    What a query without relevant rows scores (ndeval: 0).
aggregate : {"mean", None}, default="mean"
    ``"mean"``: the mean over queries, a float. None: a
    :class:`~skrank.QueryValues` with one value per query.
"""

_RETURNS = """\
score : float or QueryValues
    The mean over queries, or per-query values when ``aggregate=None``.
"""


def _document(k_default):
    def decorate(func):
        func.__doc__ = func.__doc__.replace(
            "    INTENT_PARAMETERS\n",
            _indent(_PARAMETERS.replace("K_DEFAULT", str(k_default))),
        ).replace("    INTENT_RETURNS\n", _indent(_RETURNS))
        return func

    return decorate


def _indent(text):
    return "".join("    " + line if line.strip() else line
                   for line in text.splitlines(keepends=True))


def check_intent_grades(y_true):
    """``y_true`` as a finite, non-negative (n_rows, n_intents) array: integer
    grades as they are (only their sign to check; a float64 copy of a wide
    matrix costs more than the rest of the layout), others as float64."""
    array = to_array("y_true", y_true)
    if array.ndim != 2:
        raise ValueError(
            "`y_true` must be 2-D, one column per intent (n_rows, n_intents), "
            f"got an array of shape {array.shape}; for a single intent pass "
            "`y_true[:, None]`."
        )
    if not np.ma.isMaskedArray(y_true) and array.dtype.kind in "bu":
        return array
    if (not np.ma.isMaskedArray(y_true) and array.dtype.kind == "i"
            and (array.size == 0 or array.min() >= 0)):
        return array
    return check_relevance(array)  # floats, objects, negatives: its checks and errors


def _check_intent_weight(intent_weight, n_intents):
    if intent_weight is None:
        return None
    weight = to_array("intent_weight", intent_weight)
    if weight.ndim != 1 or weight.shape[0] != n_intents:
        raise ValueError(
            f"`intent_weight` must have one weight per intent ({n_intents}, the "
            f"columns of `y_true`), got shape {weight.shape}."
        )
    return check_nonnegative("intent_weight", weight)


def _doc_keys(doc_id, n_rows, query_id):
    """Order-preserving int64 keys of ``doc_id`` (larger id, larger key); None
    without ``doc_id`` (the ideal's equal gains then go to the earlier row)."""
    if doc_id is None:
        return None  # the earlier row wins: the key is minus the row's input index
    keys, _ = factorize(doc_id, n_rows, name="doc_id")
    _, keys = np.unique(keys, return_inverse=True)
    keys = keys.reshape(-1).astype(np.int64)
    if query_id is None:
        pair = keys
    else:
        query_keys, _ = factorize(query_id, n_rows)
        _, query_codes = np.unique(query_keys, return_inverse=True)
        pair = query_codes.reshape(-1).astype(np.int64) * (keys.max() + 1) + keys
    seen, counts = np.unique(pair, return_counts=True)
    if (counts > 1).any():
        dup = np.isin(pair, seen[counts > 1])
        raise ValueError(
            f"`doc_id` must be unique within each query; the first repeated id is "
            f"at {first_position(dup)}."
        )
    return keys


def layout_intents(y_true, y_score, *, query_id, alpha, relevance_level,
                   intent_weight, doc_id, ties, retrieved):
    """Validate the inputs of an intent-aware measure and lay them out once."""
    grades = check_intent_grades(y_true)
    check_option("ties", ties, INTENT_TIES)
    score = check_score("y_score", convert_scores(y_score, None, retrieved), ndim=(1,))
    if score.shape[0] != grades.shape[0]:
        raise ValueError(
            f"`y_true` has {grades.shape[0]} rows but `y_score` has {score.shape[0]}."
        )
    weight = _check_intent_weight(intent_weight, grades.shape[1])
    keys = _doc_keys(doc_id, grades.shape[0], query_id)
    return rank_intents(
        grades >= relevance_level, score, query_id=query_id, intent_weight=weight,
        doc_key=keys, ties=ties, alpha=alpha,
    )


def _score(kernel, y_true, y_score, *, query_id, alpha, relevance_level, intent_weight,
           doc_id, ties, retrieved, no_relevant, aggregate, **options):
    check_aggregate_options(no_relevant, aggregate)
    layout = layout_intents(
        y_true, y_score, query_id=query_id, alpha=alpha,
        relevance_level=relevance_level, intent_weight=intent_weight, doc_id=doc_id,
        ties=ties, retrieved=retrieved,
    )
    values = kernel(layout, **options)
    return aggregate_queries(values, layout.ranked, no_relevant=no_relevant,
                             aggregate=aggregate, undefined=layout.total == 0)


@validate_with_preset(INTENT_OPTIONS, stem="alpha_dcg")
@_document(20)
def alpha_dcg_score(y_true, y_score, *, query_id=None, k=20, alpha=0.5, beta=0.5,
                    relevance_level=1, intent_weight=None, doc_id=None,
                    ties="average", retrieved="all", no_relevant="zero",
                    aggregate="mean"):
    """alpha-DCG@k, normalised by the "ideal ideal" (ndeval's alpha-DCG).

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    See Also
    --------
    alpha_ndcg_score : normalised by the greedy ideal ranking instead.

    Notes
    -----
    With ``v_j`` the weight of intent j (1 for each of the query's
    intents, 0 for the others), ``Z = sum_j v_j``, ``c_j(r)`` the rows
    relevant to j ranked above r and ``q = 1 - alpha``:

    .. math::

        \\alpha\\text{-DCG@}k = \\frac{\\sum_{r \\le k} d(r) \\sum_j v_j
        \\mathrm{rel}_j(r)\\, q^{c_j(r)}}{Z \\sum_{r \\le k} q^{r-1} d(r)},
        \\qquad d(r) = \\frac{1}{\\log_2(r + 1)}

    (Clarke et al., 2008). The denominator is ndeval's collection-independent
    "ideal ideal": every rank covering every intent. ndeval leaves @1
    unnormalised (its loop starts at rank 2, so alpha-DCG@1 is ``m`` times
    too large for a query of ``m`` intents); here @1 is normalised like
    every other cutoff.

    Examples
    --------
    >>> from skrank.diversity import alpha_dcg_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]     # rows x intents, in score order
    >>> round(alpha_dcg_score(y_true, [3, 2, 1], k=2), 4)  # (1 + 0.5/log2(3)) / (2 (1 + 0.5/log2(3)))
    0.5
    """
    return _score(positional_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, measure="dcg", k=k, beta=beta, normalize=False)


@validate_with_preset(INTENT_OPTIONS, stem="alpha_ndcg")
@_document(20)
def alpha_ndcg_score(y_true, y_score, *, query_id=None, k=20, alpha=0.5, beta=0.5,
                     relevance_level=1, intent_weight=None, doc_id=None,
                     ties="average", retrieved="all", no_relevant="zero",
                     aggregate="mean"):
    """alpha-nDCG@k: alpha-DCG over that of ndeval's greedy ideal ranking.

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    See Also
    --------
    alpha_dcg_score : the same gains over the "ideal ideal".

    Notes
    -----
    The ideal ranking is ndeval's greedy one over all the query's judged
    rows (retrieved or not): each rank takes the row of largest marginal
    gain ``sum_j v_j rel_j q^{c_j}``, equal gains going to the larger
    ``doc_id``. The true ideal is NP-hard to find, and a ranking can beat
    the greedy one, so alpha-nDCG can exceed 1: with rows X = {A, B},
    Y = {C, D}, Z = {A, C} and ``doc_id`` x, y, z, the greedy ideal takes
    z first (three gains of 2 tie; z is the largest id), then gains 1.5,
    1.5, while the ranking X, Y, Z gains 2, 2, 1 (alpha-nDCG@5 = 1.0177,
    as ndeval prints it).

    Examples
    --------
    >>> from skrank.diversity import alpha_ndcg_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]     # rows x intents
    >>> round(alpha_ndcg_score(y_true, [3, 1, 2], k=2), 4)   # the ideal order
    1.0
    >>> round(alpha_ndcg_score(y_true, [3, 2, 1], k=2), 4)   # (1 + 0.5/log2(3)) / (1 + 1/log2(3))
    0.8066
    """
    return _score(positional_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, measure="dcg", k=k, beta=beta, normalize=True)


@validate_with_preset(INTENT_OPTIONS, stem="err_ia")
@_document(20)
def err_ia_score(y_true, y_score, *, query_id=None, k=20, alpha=0.5, beta=0.5,
                 relevance_level=1, intent_weight=None, doc_id=None, ties="average",
                 retrieved="all", no_relevant="zero", aggregate="mean"):
    """ERR-IA@k, normalised by the "ideal ideal" (ndeval's ERR-IA).

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    See Also
    --------
    nerr_ia_score : normalised by the greedy ideal ranking instead.

    Notes
    -----
    .. math::

        \\text{ERR-IA@}k = \\frac{\\sum_{r \\le k} \\frac{1}{r} \\sum_j v_j
        \\mathrm{rel}_j(r)\\, q^{c_j(r)}}{Z \\sum_{r \\le k} q^{r-1} / r}

    ndeval's form of the intent-aware ERR (Chapelle et al., 2009) on binary
    grades: the probability that a user looking for intent j stops at a
    relevant row is ``alpha``. ndeval leaves @1 unnormalised; here it is
    normalised like every other cutoff.

    Examples
    --------
    >>> from skrank.diversity import err_ia_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> round(err_ia_score(y_true, [3, 2, 1], k=2), 4)   # (1 + 0.5/2) / (2 (1 + 0.5/2))
    0.5
    """
    return _score(positional_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, measure="err", k=k, beta=beta, normalize=False)


@validate_with_preset(INTENT_OPTIONS, stem="nerr_ia")
@_document(20)
def nerr_ia_score(y_true, y_score, *, query_id=None, k=20, alpha=0.5, beta=0.5,
                  relevance_level=1, intent_weight=None, doc_id=None, ties="average",
                  retrieved="all", no_relevant="zero", aggregate="mean"):
    """nERR-IA@k: ERR-IA over that of ndeval's greedy ideal ranking.

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    See Also
    --------
    err_ia_score : the same sum over the "ideal ideal".
    alpha_ndcg_score : the greedy ideal, and why the ratio can exceed 1.

    Examples
    --------
    >>> from skrank.diversity import nerr_ia_score
    >>> y_true = [[1, 0], [1, 0], [0, 1]]
    >>> round(nerr_ia_score(y_true, [3, 2, 1], k=2), 4)   # (1 + 0.5/2) / (1 + 1/2)
    0.8333
    """
    return _score(positional_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, measure="err", k=k, beta=beta, normalize=True)


@validate_with_preset(INTENT_OPTIONS, stem="nrbp")
@_document(None)
def nrbp_score(y_true, y_score, *, query_id=None, k=None, alpha=0.5, beta=0.5,
               relevance_level=1, intent_weight=None, doc_id=None, ties="average",
               retrieved="all", no_relevant="zero", aggregate="mean"):
    """Novelty- and rank-biased precision (NRBP), as ndeval computes it.

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    See Also
    --------
    nnrbp_score : normalised by the greedy ideal ranking.

    Notes
    -----
    .. math::

        \\mathrm{NRBP} = \\frac{1 - (1 - \\alpha)\\beta}{Z} \\sum_{r}
        \\beta^{r-1} \\sum_j v_j \\mathrm{rel}_j(r)\\, q^{c_j(r)}

    over the whole list by default (``k=None``, as ndeval; Clarke et al.,
    ICTIR 2009). Under ties the expectation stops at the rank where
    ``beta**(r-1)`` falls below ``2**-60`` of the total (below rounding).

    Examples
    --------
    >>> from skrank.diversity import nrbp_score
    >>> y_true = [[1, 0], [0, 1]]
    >>> round(nrbp_score(y_true, [2, 1]), 4)    # (1 - 0.25) (1 + 0.5) / 2
    0.5625
    """
    return _score(positional_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, measure="nrbp", k=k, beta=beta, normalize=False)


@validate_with_preset(INTENT_OPTIONS, stem="nnrbp")
@_document(None)
def nnrbp_score(y_true, y_score, *, query_id=None, k=None, alpha=0.5, beta=0.5,
                relevance_level=1, intent_weight=None, doc_id=None, ties="average",
                retrieved="all", no_relevant="zero", aggregate="mean"):
    """nNRBP: NRBP over that of ndeval's greedy ideal ranking.

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    See Also
    --------
    nrbp_score : the unnormalised measure.

    Notes
    -----
    A query without relevant rows scores 0 (``no_relevant="zero"``),
    where ndeval divides 0 by 0 and prints ``-nan`` (and a ``nan`` mean).

    Examples
    --------
    >>> from skrank.diversity import nnrbp_score
    >>> y_true = [[1, 0], [0, 1], [0, 0]]
    >>> round(nnrbp_score(y_true, [1, 3, 2]), 4)    # (1 + 0.5**2) / (1 + 0.5)
    0.8333
    """
    return _score(positional_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, measure="nrbp", k=k, beta=beta, normalize=True)


@validate_with_preset(INTENT_OPTIONS, stem="p_ia")
@_document(20)
def precision_ia_score(y_true, y_score, *, query_id=None, k=20, alpha=0.5, beta=0.5,
                       relevance_level=1, intent_weight=None, doc_id=None,
                       ties="average", retrieved="all", no_relevant="zero",
                       aggregate="mean"):
    """Intent-aware precision P-IA@k (Agrawal et al., 2009; ndeval's P-IA).

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    Notes
    -----
    ``P-IA@k = sum_j v_j hits_j@k / (k Z)``, divided by k even when the
    query has fewer rows (as ndeval). ``alpha``, ``beta`` and ``doc_id``
    do not change it.

    Examples
    --------
    >>> from skrank.diversity import precision_ia_score
    >>> y_true = [[1, 0], [1, 1], [0, 0]]
    >>> round(precision_ia_score(y_true, [3, 2, 1], k=2), 4)   # (2 + 1) / (2 * 2)
    0.75
    """
    return _score(precision_ia_per_query, y_true, y_score, query_id=query_id,
                  alpha=alpha, relevance_level=relevance_level,
                  intent_weight=intent_weight, doc_id=doc_id, ties=ties,
                  retrieved=retrieved, no_relevant=no_relevant, aggregate=aggregate, k=k)


@validate_with_preset(INTENT_OPTIONS, stem="map_ia")
@_document(None)
def map_ia_score(y_true, y_score, *, query_id=None, k=None, alpha=0.5, beta=0.5,
                 relevance_level=1, intent_weight=None, doc_id=None, ties="average",
                 retrieved="all", no_relevant="zero", aggregate="mean"):
    """Intent-aware average precision (ndeval's MAP-IA), averaged over queries.

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    Notes
    -----
    ``MAP-IA = sum_j v_j AP_j / Z`` with ``AP_j`` the average precision of
    intent j's relevance, divided by all the rows relevant to j (retrieved
    or not); over the whole list by default (``k=None``, as ndeval).
    ``alpha``, ``beta`` and ``doc_id`` do not change it.

    Examples
    --------
    >>> from skrank.diversity import map_ia_score
    >>> y_true = [[1, 0], [0, 1], [1, 0]]
    >>> round(map_ia_score(y_true, [3, 2, 1]), 4)   # ((1 + 2/3) / 2 + 1/2) / 2
    0.6667
    """
    return _score(map_ia_per_query, y_true, y_score, query_id=query_id, alpha=alpha,
                  relevance_level=relevance_level, intent_weight=intent_weight,
                  doc_id=doc_id, ties=ties, retrieved=retrieved, no_relevant=no_relevant,
                  aggregate=aggregate, k=k)


@validate_with_preset(INTENT_OPTIONS, stem="s_recall")
@_document(20)
def subtopic_recall_score(y_true, y_score, *, query_id=None, k=20, alpha=0.5,
                          beta=0.5, relevance_level=1, intent_weight=None, doc_id=None,
                          ties="average", retrieved="all", no_relevant="zero",
                          aggregate="mean"):
    """Subtopic recall S-recall@k: the share of the query's intents in the top k.

    Parameters
    ----------
    INTENT_PARAMETERS

    Returns
    -------
    INTENT_RETURNS

    Notes
    -----
    ``S-recall@k = sum_j v_j [intent j has a relevant row in the top k] / Z``
    (Zhai et al., 2003; ndeval's ``strec``). Under ties, the probability
    that intent j is covered is hypergeometric in the tie block that
    straddles k. ``alpha``, ``beta`` and ``doc_id`` do not change it.

    Examples
    --------
    >>> from skrank.diversity import subtopic_recall_score
    >>> y_true = [[1, 0, 0], [1, 0, 0], [0, 1, 1]]
    >>> round(subtopic_recall_score(y_true, [3, 2, 1], k=2), 4)    # 1 of 3 intents
    0.3333
    """
    return _score(subtopic_recall_per_query, y_true, y_score, query_id=query_id,
                  alpha=alpha, relevance_level=relevance_level,
                  intent_weight=intent_weight, doc_id=doc_id, ties=ties,
                  retrieved=retrieved, no_relevant=no_relevant, aggregate=aggregate, k=k)
