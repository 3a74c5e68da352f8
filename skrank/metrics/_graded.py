"""Graded average precision (GAP): graded_average_precision_score.

GAP (Robertson, Kanoulas & Yilmaz, SIGIR 2010) is AP for graded relevance: a
user who sees grade g or above as relevant has threshold g, thresholds have
probabilities, and GAP is the expected sum of precisions over the expected
number of relevant rows. Both are linear in the per-threshold AP sums, so
the exact tie-aware AP kernel of :mod:`skrank._precision` does all the work,
once per grade.
"""

from dataclasses import replace

import numpy as np

from .._core._params import CUTOFF_OPTIONS
from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries
from .._core._validation import to_array
from ._presets_apply import validate_with_preset
from ._average_precision import _average_precision_sum


def check_integer_grades(relevance):
    """GAP needs grades 0, 1, 2, ...: the thresholds are whole grades."""
    fractional = relevance != np.round(relevance)
    if fractional.any():
        shown = ", ".join(f"{v:g}" for v in np.unique(relevance[fractional])[:5])
        raise ValueError(
            "`y_true` must hold integer relevance grades (0, 1, 2, ...) for "
            f"graded average precision, got values such as {shown}."
        )


def check_grade_probabilities(grade_probabilities, max_grade):
    """The threshold probabilities g_1..g_c, uniform over 1..max_grade by default."""
    if grade_probabilities is None:
        return np.full(max_grade, 1.0 / max_grade) if max_grade > 0 else np.zeros(0)
    g = to_array("grade_probabilities", grade_probabilities)
    try:
        g = g.astype(np.float64)
    except (TypeError, ValueError):
        raise ValueError("`grade_probabilities` must contain numbers.") from None
    if g.ndim != 1 or g.shape[0] == 0:
        raise ValueError(
            "`grade_probabilities` must be a non-empty 1-D array: entry j - 1 is "
            f"the probability that grade j is the threshold, got shape {g.shape}."
        )
    if not np.isfinite(g).all() or (g < 0).any():
        raise ValueError("`grade_probabilities` must be finite and non-negative.")
    if not np.isclose(g.sum(), 1.0, rtol=0, atol=1e-9):
        raise ValueError(
            f"`grade_probabilities` must sum to 1, got a sum of {g.sum():g}."
        )
    if g.shape[0] < max_grade:
        raise ValueError(
            f"`grade_probabilities` gives {g.shape[0]} threshold(s) but `y_true` "
            f"has grade {max_grade}: give one probability per grade 1..{max_grade}."
        )
    return g


def _graded_average_precision_parts(ranked, *, k, grade_probabilities):
    """Expected GAP numerator and (fixed) denominator per query.

    numerator = sum_j g_j E[sum_{n <= k, grade_n >= j} P_j@n], with P_j the
    precision when grades >= j are relevant; denominator = sum_j g_j R_j.
    """
    numerator = np.zeros(ranked.n_queries)
    denominator = np.zeros(ranked.n_queries)
    for grade, probability in enumerate(grade_probabilities, start=1):
        if probability == 0:
            continue
        binary = replace(
            ranked, relevance=(ranked.relevance >= grade).astype(np.float64)
        )
        numerator += probability * _average_precision_sum(binary, k)
        denominator += probability * binary.n_relevant
    return numerator, denominator


def _graded_average_precision_per_query(ranked, *, k, grade_probabilities=None):
    """Expected GAP@k per query (nan where no row can be relevant)."""
    check_integer_grades(ranked.relevance)
    g = check_grade_probabilities(
        grade_probabilities, int(ranked.relevance.max(initial=0))
    )
    numerator, denominator = _graded_average_precision_parts(
        ranked, k=k, grade_probabilities=g
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerator / denominator


@validate_with_preset(CUTOFF_OPTIONS, stem="gap")
def graded_average_precision_score(
    y_true,
    y_score,
    *,
    grade_probabilities=None,
    k=None,
    query_id=None,
    sample_weight=None,
    ties="average",
    no_relevant="skip",
    aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Graded average precision (GAP): AP for graded relevance.

    Parameters
    ----------
    {y_true, y_score}
    grade_probabilities : array-like of shape (n_grades,), default=None
        Entry j - 1 is g_j, the probability that a user's threshold is
        grade j (grades j and above are relevant to that user); the entries
        sum to 1 and there is one for each grade 1..max(``y_true``) at
        least. None means uniform over the grades 1..max(``y_true``) of the
        input. ``y_true`` must hold integer grades.
    {k, query_id, sample_weight, ties, no_relevant, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries (``nan`` with an
        ``UndefinedMetricWarning`` when no query is left), or per-query
        values when ``aggregate=None``.

    See Also
    --------
    average_precision_score : GAP on binary labels.
    ndcg_score : another measure for graded relevance.

    Notes
    -----
    With grades r_n in ranked order and G(i) = g_1 + ... + g_i (so
    G(min(r_m, r_n)) is the probability that rows m and n are both
    relevant to a random user), the paper's definition is

    .. math::

        \\mathrm{GAP@k} = \\frac{\\sum_{n \\le k,\\ r_n > 0} \\frac{1}{n}
            \\sum_{m \\le n} G(\\min(r_m, r_n))}
            {\\sum_{n:\\ r_n > 0} G(r_n)}
          = \\frac{\\sum_j g_j S_j}{\\sum_j g_j R_j}

    where S_j is the sum of precisions at the relevant ranks and R_j the
    number of relevant rows when grades j and above are relevant: GAP is
    the expected AP sum over the expected number of relevant rows (not the
    expected AP). On binary labels (g_1 = 1) it equals
    :func:`average_precision_score`. The default uniform g depends on the
    largest grade of the input, so pass ``grade_probabilities`` explicitly
    when comparing inputs (cross-validation folds) that might differ in
    it. A query where no row is relevant with positive probability is
    handled by ``no_relevant``. GAP is linear in the S_j, so the exact tie
    average of AP gives the exact tie average of GAP.

    References
    ----------
    .. [1] S. E. Robertson, E. Kanoulas and E. Yilmaz. Extending average
       precision to graded relevance judgments. SIGIR 2010.

    Examples
    --------
    >>> from skrank import graded_average_precision_score
    >>> grades = [1, 2, 0]                                 # in score order
    >>> # G(1) = 0.5, G(2) = 1: ((0.5)/1 + (0.5 + 1)/2) / (0.5 + 1)
    >>> graded_average_precision_score(grades, [3, 2, 1])
    0.8333...
    >>> graded_average_precision_score([0, 1, 1], [3, 2, 1])   # AP: (1/2 + 2/3) / 2
    0.5833...
    """
    check_aggregate_options(no_relevant, aggregate)
    ranked = rank_queries(
        y_true, y_score, query_id=query_id, sample_weight=sample_weight, ties=ties
    )
    values = _graded_average_precision_per_query(
        ranked, k=k, grade_probabilities=grade_probabilities
    )
    return aggregate_queries(
        values, ranked, no_relevant=no_relevant, aggregate=aggregate,
        undefined=np.isnan(values),
    )
