"""Expected exposure (Diaz et al., CIKM 2020): how a stochastic ranking shares
attention among the rows, compared with the exposure an ideal one would give.

A user model says how much attention each position receives: RBP reads
position i (0-based) with probability ``patience**i``; GERR also stops after
each relevant row with probability ``utility``, so position i gets
``patience**i * (1 - utility)**(relevant rows above i)``. A ranking with tied
scores is the stochastic ranking uniform over the orders of its tied rows,
and its expected exposure is computed exactly, in closed form per tie block
(:func:`row_exposure`). The target exposure is that of the ideal stochastic
ranking: rows sorted by grade, uniform within a grade; its tie blocks are
the (query, grade) cells, and the same block kernel (:func:`block_factors`)
gives it (:func:`ideal_exposure`).
"""

import re
import warnings
from functools import partial

import numpy as np
from scipy.special import gammaln, xlog1py, xlogy

from .._core._aggregate import QueryValues, finish_mean, partial_mean
from .._core._factorize import factorize
from .._core._layout import rank_queries
from .._core._params import AGGREGATE, FLAG, FRACTION, Rule, choice, validate_params
from .._core._validation import (
    check_fraction,
    check_relevance,
    check_same_length,
    LABEL_SCORES_WARNING,
    check_score,
)


USER_MODELS = ("gerr", "rbp")
#: ``utility`` may be 0 (GERR is then RBP) or 1 (the user stops at the first relevant row)
UTILITY = Rule(
    partial(check_fraction, closed_low=True, closed_high=True), (-0.1, 1.5, "0.5", None)
)


def _tie_integral(n_relevant, n_other, patience, keep):
    """E[patience**J * keep**X] for one row of a shuffled tie block.

    The row shares its block with ``n_relevant`` relevant and ``n_other``
    non-relevant rows; J of them land above it, X of those relevant. With
    uniform arrival times, the others precede a row that arrives at t
    independently with probability t, so the expectation is

        integral_0^1 (1 - a t)**n_relevant (1 - c t)**n_other dt,
        a = 1 - patience * keep,  c = 1 - patience.

    Substituting s = 1 - a t and expanding the second factor in powers of s
    (its two coefficients, 1 - c/a and c/a, are non-negative since c <= a)
    gives a binomial expectation over m ~ Binomial(n_other, c/a) of
    (1 - (patience * keep)**(n_relevant + m + 1)) / (a (n_relevant + m + 1)):
    a sum of positive terms, O(n_other) per block.
    """
    n_relevant = np.asarray(n_relevant, dtype=np.float64)
    n_other = np.asarray(n_other, dtype=np.int64)
    a = 1.0 - patience * keep
    c = 1.0 - patience
    beta = c / a
    sizes = n_other + 1
    starts = np.cumsum(sizes) - sizes
    owner = np.repeat(np.arange(n_other.shape[0]), sizes)
    m = (np.arange(owner.shape[0]) - starts[owner]).astype(np.float64)
    total = n_other[owner].astype(np.float64)
    log_pmf = (gammaln(total + 1) - gammaln(m + 1) - gammaln(total - m + 1)
               + xlogy(m, beta) + xlog1py(total - m, -beta))
    j = n_relevant[owner] + m + 1.0
    terms = np.exp(log_pmf) * -np.expm1(j * np.log(patience * keep)) / j if keep > 0 \
        else np.exp(log_pmf) / j
    return np.bincount(owner, weights=terms, minlength=n_other.shape[0]) / a


def block_factors(size, relevant, patience, keep):
    """Per tie block: E[patience**J * keep**X] for a relevant and a non-relevant row.

    ``size`` rows, ``relevant`` of them relevant. A relevant row shares its
    block with ``relevant - 1`` relevant rows and every other one; a
    non-relevant row with all relevant and ``other - 1`` others (see
    :func:`_tie_integral`). A block of one row: 1.
    """
    relevant = np.asarray(relevant).astype(np.int64)
    other = np.asarray(size).astype(np.int64) - relevant
    tied = np.flatnonzero(relevant + other > 1)
    as_relevant = np.ones(relevant.shape[0])
    as_other = np.ones(relevant.shape[0])
    has_rel = tied[relevant[tied] > 0]
    as_relevant[has_rel] = _tie_integral(
        relevant[has_rel] - 1, other[has_rel], patience, keep)
    has_other = tied[other[tied] > 0]
    as_other[has_other] = _tie_integral(
        relevant[has_other], other[has_other] - 1, patience, keep)
    return as_relevant, as_other


def row_exposure(ranked, *, patience, keep):
    """Expected exposure of each ranked row (ranked order), ties exact.

    ``keep`` is ``1 - utility`` for GERR and 1 for RBP. A row of a tie block
    that starts at 0-based position ``s`` below ``A`` relevant rows gets
    ``patience**s * keep**A * E[patience**J * keep**X]`` (see
    :func:`block_factors`); rows that were not retrieved get none.
    """
    start = (ranked.block_first_rank - 1).astype(np.float64)
    above = ranked.relevant_before_block.astype(np.float64)
    head = np.power(patience, start)
    if keep != 1.0:
        head = head * np.power(keep, above)
    if not ranked.has_ties:
        exposure = head
    else:
        as_relevant, as_other = block_factors(
            ranked.block_size, ranked.block_relevant, patience, keep)
        block = ranked.block
        exposure = head[block] * np.where(
            ranked.is_relevant > 0, as_relevant[block], as_other[block])
    if ranked.retrieved is not None:
        exposure = np.where(ranked.retrieved, exposure, 0.0)
    return exposure


def _grade_levels(relevance):
    """``(levels, code)``: the grades a row can have, and each row's index in them.

    Whole-number grades are their own codes (no sort); other grades are
    factorised by ``np.unique``.
    """
    top = float(relevance.max())
    if top < 2.0**20 and np.array_equal(relevance, np.floor(relevance)):
        return np.arange(int(top) + 1, dtype=np.float64), relevance.astype(np.int64)
    levels, code = np.unique(relevance, return_inverse=True)
    return levels, code.reshape(-1)


def ideal_exposure(relevance, codes, n_queries, *, patience, keep):
    """Each row's exposure in its query's ideal stochastic ranking (input order).

    The ideal ranking sorts a query's rows by grade, uniformly at random
    within a grade: each (query, grade) cell is one tie block, which starts
    below the rows of the higher grades (all relevant). The cells come from
    counts, without a sort; with more cells than a few per row (many
    distinct grades), the rows are sorted by grade instead.
    """
    levels, grade = _grade_levels(relevance)
    n_levels = levels.shape[0]
    if n_queries * n_levels > 4 * relevance.shape[0] + 1024:
        with warnings.catch_warnings():  # 0/1 grades as scores are meant here
            warnings.filterwarnings("ignore", re.escape(LABEL_SCORES_WARNING),
                                    UserWarning)
            ideal = rank_queries(relevance, relevance, query_id=codes)
        return _input_order(row_exposure(ideal, patience=patience, keep=keep), ideal)
    cell = codes * n_levels + grade
    count = np.bincount(cell, minlength=n_queries * n_levels)
    table = count.reshape(n_queries, n_levels)
    higher = (np.cumsum(table[:, ::-1], axis=1)[:, ::-1] - table).reshape(-1)
    relevant_level = np.tile(levels > 0, n_queries)
    occupied = np.flatnonzero(count)
    as_relevant, as_other = block_factors(
        count[occupied], np.where(relevant_level[occupied], count[occupied], 0),
        patience, keep)
    factor = np.zeros(count.shape[0])
    factor[occupied] = np.where(relevant_level[occupied], as_relevant, as_other)
    start = higher[cell].astype(np.float64)
    head = np.power(patience, start)
    if keep != 1.0:  # every row of a higher grade is relevant
        head = head * np.power(keep, start)
    return head * factor[cell]


def _input_order(values, ranked):
    """A ranked-order row array back in input order."""
    out = np.empty_like(values)
    out[ranked.order] = values
    return out


def _run_exposure(relevance, score, query_keys, *, patience, keep, ties):
    """Each input row's exposure, averaged over the columns of a 2-D score."""
    if score.ndim == 1:
        ranked = rank_queries(relevance, score, query_id=query_keys, ties=ties)
        return _input_order(row_exposure(ranked, patience=patience, keep=keep), ranked)
    n_rows, n_samples = score.shape
    # one ranking per (query, column): the column is the low part of the key
    keys = query_keys.astype(np.int64)[:, None] * n_samples + np.arange(n_samples)
    ranked = rank_queries(
        np.repeat(relevance, n_samples), score.reshape(-1),
        query_id=keys.reshape(-1), ties=ties,
    )
    flat = _input_order(row_exposure(ranked, patience=patience, keep=keep), ranked)
    return flat.reshape(n_rows, n_samples).mean(axis=1)


def _query_keys(query_id, n_rows):
    """Integer codes 0..n_queries-1 of the rows' queries, and the sorted ids."""
    if query_id is None:
        return np.zeros(n_rows, dtype=np.int64), np.zeros(1, dtype=np.int64)
    keys, labels = factorize(query_id, n_rows)
    ids, codes = np.unique(keys, return_inverse=True)
    return codes.reshape(-1), ids if labels is None else labels[ids]


def exposure_per_query(relevance, score, codes, *, user_model, patience, utility,
                       complete, ties):
    """Per query: EE-D, EE-R, the target's squared norm, and whether it has a target."""
    keep = 1.0 - utility if user_model == "gerr" else 1.0
    run = _run_exposure(relevance, score, codes, patience=patience, keep=keep,
                        ties=ties)
    n_queries = int(codes.max()) + 1 if codes.shape[0] else 0
    target = ideal_exposure(relevance, codes, n_queries, patience=patience, keep=keep)
    if not complete:  # unjudged (grade 0) rows are no part of the target
        target = np.where(relevance > 0, target, 0.0)
    has_target = np.bincount(codes, weights=relevance > 0, minlength=n_queries) > 0
    if complete:
        has_target[:] = True
    return (_per_query(run * run, codes, n_queries),
            _per_query(run * target, codes, n_queries),
            _per_query(target * target, codes, n_queries), has_target)


def _per_query(values, codes, n_queries):
    return np.bincount(codes, weights=values, minlength=n_queries)


@validate_params({
    "user_model": choice(*USER_MODELS),
    "patience": FRACTION,
    "utility": UTILITY,
    "complete": FLAG,
    "ties": choice("average", "input"),
    "aggregate": choice(*AGGREGATE),
})
def expected_exposure(
    y_true,
    y_score,
    *,
    query_id=None,
    user_model="gerr",
    patience=0.5,
    utility=0.5,
    complete=False,
    ties="average",
    sample_weight=None,
    aggregate="mean",
):
    r"""Expected exposure: EE-L, EE-D and EE-R of a (stochastic) ranking.

    Expected exposure (Diaz et al., 2020) asks whether rows that are
    equally relevant get equal attention, in expectation over a stochastic
    ranking. Each row's expected exposure :math:`\epsilon_d` under a user
    model is compared with the target :math:`\epsilon^*_d` of the ideal
    stochastic ranking (rows by grade, uniform within a grade).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Relevance grade of each row (non-negative); a row is relevant when
        ``y_true > 0``.
    y_score : array-like of shape (n_rows,) or (n_rows, n_samples)
        Score of each row; within a query, higher scores rank first. 2-D:
        one sampled ranking per column (the draws of a stochastic ranker),
        each weighing the same.
    query_id : array-like of shape (n_rows,), default=None
        Query of each row: ints, strings or any hashable ids, rows in any
        order. None: all rows are one query.
    user_model : {"gerr", "rbp"}, default="gerr"
        ``"rbp"``: position i (0-based) is read with probability
        ``patience**i``. ``"gerr"``: also, after each relevant row, the user
        stops with probability ``utility``.
    patience : float, default=0.5
        In (0, 1): the probability of reading on to the next position.
    utility : float, default=0.5
        In [0, 1]: GERR's probability of stopping after a relevant row.
    complete : bool, default=False
        Whether the judgments are complete (expeval's ``-C``, for
        reranking): rows with ``y_true == 0`` are then judged non-relevant
        and share the ideal positions after the relevant ones. False: they
        are unjudged and their target exposure is 0, and a query with no
        relevant row has no target and is left out of the mean (expeval
        reads only the relevant judgments then).
    ties : {"average", "input"}, default="average"
        ``"average"``: rows with equal scores are in a uniformly random
        order, and the exposure is its exact expectation. ``"input"``:
        rows with equal scores keep their input order.
    sample_weight : array-like of shape (n_rows,), default=None
        A query weighs the mean of its rows' weights in the mean over
        queries.
    aggregate : {"mean", None}, default="mean"
        ``"mean"``: the weighted mean over queries of each measure.
        None: a :class:`QueryValues` per measure, one value per query.

    Returns
    -------
    measures : dict
        ``{"ee_l": ..., "ee_d": ..., "ee_r": ...}``: floats, or
        :class:`QueryValues` for ``aggregate=None``.

    See Also
    --------
    group_exposure : the exposure of each group of rows.
    awrf_score : attention-weighted rank fairness between groups.

    Notes
    -----
    With :math:`\epsilon` the expected exposure of the query's rows and
    :math:`\epsilon^*` the target,

    .. math::

        \mathrm{EE\text{-}D} = \lVert\epsilon\rVert^2, \quad
        \mathrm{EE\text{-}R} = \epsilon\cdot\epsilon^*, \quad
        \mathrm{EE\text{-}L} = \lVert\epsilon-\epsilon^*\rVert^2
        = \mathrm{EE\text{-}D} - 2\,\mathrm{EE\text{-}R} + \lVert\epsilon^*\rVert^2.

    Lower EE-L and EE-D and higher EE-R are better. These are expeval's
    unnormalised values (``expeval -U``); its min-max normalisation is
    not reproduced, since its bounds are not bounds: EE-R normalises to
    the constant 1.0 whenever the judgments have one grade (any binary
    qrels), and the group disparity can come out negative. Rows scored
    ``-inf`` are judged but not retrieved: no exposure, but a target.

    Ties are exact: a row in a tie block of B rows starting at 0-based
    position s, below A relevant rows, with :math:`K` relevant and
    :math:`M` non-relevant other rows in the block, has exposure
    :math:`p^s k^A \int_0^1 (1-(1-pk)t)^K (1-(1-p)t)^M\,dt`, with
    :math:`p` the patience and :math:`k` = 1 - utility (GERR) or 1 (RBP).

    References
    ----------
    .. [1] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette,
       "Evaluating Stochastic Rankings with Expected Exposure", CIKM 2020.

    Examples
    --------
    Two relevant rows and one non-relevant row, ranked deterministically:
    the relevant rows' target is the mean GERR exposure of the first two
    positions, (1 + 0.25) / 2.

    >>> from skrank.fairness import expected_exposure
    >>> ee = expected_exposure([1, 1, 0], [3, 2, 1])
    >>> {name: round(value, 4) for name, value in ee.items()}
    {'ee_l': 0.2852, 'ee_d': 1.0664, 'ee_r': 0.7812}

    A constant score is the uniformly random ranking, which shares the
    exposure equally between the two relevant rows:

    >>> ee = expected_exposure([1, 1, 0], [0, 0, 0])
    >>> round(ee["ee_l"], 4)
    0.2227
    """
    relevance = check_relevance(y_true)
    if relevance.ndim != 1:
        raise ValueError(
            f"`y_true` must be 1-D (one grade per row), got shape {relevance.shape}."
        )
    score = check_score("y_score", y_score)
    if score.shape[0] != relevance.shape[0] or score.ndim > 2:
        raise ValueError(
            f"`y_score` must have shape (n_rows,) or (n_rows, n_samples) with "
            f"n_rows = {relevance.shape[0]} (the length of `y_true`), got "
            f"{score.shape}."
        )
    if score.ndim == 2 and score.shape[1] == 0:
        raise ValueError("`y_score` has no column (no sampled ranking).")
    codes, query_ids = _query_keys(query_id, relevance.shape[0])
    check_same_length(y_true=relevance, query_id=codes)
    disparity, relevance_term, norm, has_target = exposure_per_query(
        relevance, score, codes, user_model=user_model, patience=patience,
        utility=utility, complete=complete, ties=ties,
    )
    weights = _query_weights(sample_weight, codes, query_ids.shape[0])
    values = {
        "ee_l": disparity - 2.0 * relevance_term + norm,
        "ee_d": disparity,
        "ee_r": relevance_term,
    }
    undefined = ~has_target
    if aggregate is None:
        return {
            name: QueryValues(query_ids, np.where(undefined, np.nan, v), weights)
            for name, v in values.items()
        }
    return {
        name: finish_mean(partial_mean(v, weights, undefined=undefined,
                                       query_ids=query_ids))
        for name, v in values.items()
    }


def _query_weights(sample_weight, codes, n_queries):
    """Each query's weight: the mean of its rows' weights (1 without weights)."""
    if sample_weight is None:
        return np.ones(n_queries)
    from .._core._validation import check_sample_weight

    weight = check_sample_weight(sample_weight, codes.shape[0])
    sums = np.bincount(codes, weights=weight, minlength=n_queries)
    return sums / np.bincount(codes, minlength=n_queries)
