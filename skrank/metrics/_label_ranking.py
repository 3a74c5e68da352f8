"""scikit-learn's multilabel ranking metrics, with query ids: coverage error,
label ranking loss and label ranking average precision (LRAP).

scikit-learn defines them on a 2-D ``(n_samples, n_labels)`` array, each row
ranking its labels. Here each row of the 2-D form is one query, and 1-D rows
with ``query_id`` give queries of any length; on 2-D input the values equal
scikit-learn's, ties and ``sample_weight`` included.

These metrics are defined on the scores, not on one order of the rows: a
label scored *at least as high* as a relevant label counts as ranked above
it, so a tie always counts against the ranking (every row of a block of
equal scores takes the block's last rank, ``scipy.stats.rankdata(...,
method="max")`` on the negated scores). The kernels therefore find the
blocks of equal scores from the layout's scores themselves, whatever tie
policy the layout was built with, and the functions take no ``ties``
option.

``y_true`` (and ``y_score``) may be scipy sparse matrices or arrays (CSR,
CSC, COO, ...), as scikit-learn's indicator matrices often are: they are
made dense, as large as ``y_score`` already is; a stored zero is a zero.

Queries where the ranking has no meaning (no relevant row, or every row
relevant) get scikit-learn's fixed values (coverage 0 when no row is
relevant, loss 0, LRAP 1) and count in the mean like any other query: the
metrics take no ``no_relevant`` option.
"""

import re
import sys
import warnings

import numpy as np

from .._core._aggregate import aggregate_queries, check_aggregate_options
from .._core._layout import rank_queries, segment_cumsum, segment_sum
from .._core._params import (
    AGGREGATE,
    choice,
    CONVENTION_OPTIONS,
)
from .._core._validation import LABEL_SCORES_WARNING
from ._presets_apply import validate_with_preset


def _score_block_last_row(ranked):
    """Index of the last row of each row's block of equal scores in its query."""
    n_rows = ranked.n_rows
    new_block = np.empty(n_rows, dtype=bool)
    new_block[0] = True
    np.not_equal(ranked.score[1:], ranked.score[:-1], out=new_block[1:])
    new_block[ranked.query_start] = True
    starts = np.flatnonzero(new_block)
    last = np.append(starts[1:], n_rows) - 1
    return np.repeat(last, np.diff(starts, append=n_rows))


class _AtLeastAsHigh:
    """Per-row counts over the rows of its query scored at least as high.

    ``relevant``: whether each row is relevant (``y_true > 0``, every row,
    ``-inf`` ones included: to these metrics ``-inf`` is only the lowest
    score); ``rows``: how many rows of the query score at least as high as
    the row (its rank with ties counted against it); ``relevant_rows``: how
    many of those are relevant.
    """

    def __init__(self, ranked):
        last = _score_block_last_row(ranked)
        self.relevant = (ranked.relevance > 0).astype(np.float64)
        self.n_relevant = segment_sum(self.relevant, ranked.query_start)
        self.size = ranked.query_size.astype(np.float64)
        self.rows = ranked.rank[last].astype(np.float64)
        running = segment_cumsum(self.relevant, ranked.query_start)
        self.relevant_rows = running[last]


def _coverage_error_per_query(ranked):
    """How far down the ranking one must go to cover every relevant row (0: none)."""
    counts = _AtLeastAsHigh(ranked)
    depth = counts.rows * counts.relevant
    return np.maximum.reduceat(depth, ranked.query_start)


def _label_ranking_loss_per_query(ranked):
    """Fraction of (relevant, non-relevant) pairs not ranked in the right order.

    A pair is wrong when the non-relevant row scores at least as high as the
    relevant one; 0 for a query with no relevant or no non-relevant row.
    """
    counts = _AtLeastAsHigh(ranked)
    wrong = counts.relevant * (counts.rows - counts.relevant_rows)
    n_pairs = counts.n_relevant * (counts.size - counts.n_relevant)
    with np.errstate(invalid="ignore", divide="ignore"):
        loss = segment_sum(wrong, ranked.query_start) / n_pairs
    return np.where(n_pairs > 0, loss, 0.0)


def _label_ranking_average_precision_per_query(ranked):
    """Mean over relevant rows of (relevant rows at least as high) / (rows at least as high).

    1 for a query with no relevant or no non-relevant row.
    """
    counts = _AtLeastAsHigh(ranked)
    precision = counts.relevant * counts.relevant_rows / counts.rows
    meaningful = (counts.n_relevant > 0) & (counts.n_relevant < counts.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        lrap = segment_sum(precision, ranked.query_start) / counts.n_relevant
    return np.where(meaningful, lrap, 1.0)


def _query_weights(ranked):
    """Every query counts, with the usual weight: no query is undefined."""
    return ranked.query_weight


def _dense(values):
    """A scipy sparse matrix or array as a dense numpy array; anything else as is.

    scikit-learn's label ranking metrics take a sparse ``y_true`` (a
    multilabel indicator matrix is often sparse); the layout needs one entry
    per row anyway, as many as the dense ``y_score`` has.
    """
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(values):
        return values.toarray()
    return values


def _score_label_ranking(kernel, y_true, y_score, *, query_id, sample_weight, aggregate):
    """Validate, lay out, run ``kernel``, average over every query."""
    check_aggregate_options("skip", aggregate)
    y_true, y_score = _dense(y_true), _dense(y_score)
    with warnings.catch_warnings():
        # 0/1 predictions are valid input here: ties are part of the definition
        warnings.filterwarnings("ignore", re.escape(LABEL_SCORES_WARNING))
        ranked = rank_queries(
            y_true, y_score, query_id=query_id, sample_weight=sample_weight
        )
    values = kernel(ranked)
    return aggregate_queries(
        values, ranked, aggregate=aggregate,
        undefined=np.zeros(ranked.n_queries, dtype=bool),
    )


@validate_with_preset({"aggregate": choice(*AGGREGATE), **CONVENTION_OPTIONS},
                      stem="coverage_error")
def coverage_error(y_true, y_score, *, query_id=None, sample_weight=None,
                   aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Coverage error: how far down the ranking to go to find every relevant row.

    scikit-learn's ``coverage_error`` for rankings with query ids: each
    query is one row of scikit-learn's 2-D ``(n_samples, n_labels)`` input.
    Lower is better; the best value is the query's number of relevant rows.

    Parameters
    ----------
    {y_true, y_score, query_id, sample_weight, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries, or per-query values when
        ``aggregate=None``.

    See Also
    --------
    label_ranking_loss, label_ranking_average_precision_score
    sklearn.metrics.coverage_error : The same on 2-D input.

    Notes
    -----
    For a query with scores :math:`s` and relevant rows :math:`Y`,

    .. math::

        \\mathrm{coverage} = \\max_{j \\in Y} |\\{i : s_i \\ge s_j\\}|

    the number of rows scored at least as high as the lowest-scored
    relevant row. Ties count against the ranking (a row tied with that
    relevant row counts), as in scikit-learn, so there is no ``ties``
    option. A query with no relevant row scores 0 and counts in the mean
    (scikit-learn's convention), so there is no ``no_relevant`` option.
    On 2-D input the result equals ``sklearn.metrics.coverage_error``,
    ``sample_weight`` included. ``y_true`` may be a scipy sparse matrix or
    array (CSR, CSC, COO, ...), as scikit-learn's indicator matrices often
    are.

    Examples
    --------
    >>> from skrank import coverage_error
    >>> coverage_error([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    2.5
    >>> # the same two rankings as 1-D rows with query ids: (2 + 3) / 2
    >>> coverage_error([1, 0, 0, 0, 0, 1], [0.75, 0.5, 1, 1, 0.2, 0.1],
    ...                query_id=[1, 1, 1, 2, 2, 2])
    2.5
    """
    return _score_label_ranking(
        _coverage_error_per_query, y_true, y_score, query_id=query_id,
        sample_weight=sample_weight, aggregate=aggregate,
    )


@validate_with_preset({"aggregate": choice(*AGGREGATE), **CONVENTION_OPTIONS},
                      stem="label_ranking_loss")
def label_ranking_loss(y_true, y_score, *, query_id=None, sample_weight=None,
                       aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Label ranking loss: the fraction of relevant/non-relevant pairs in the wrong order.

    scikit-learn's ``label_ranking_loss`` for rankings with query ids: each
    query is one row of scikit-learn's 2-D ``(n_samples, n_labels)`` input.
    Lower is better; 0 is a perfect ranking.

    Parameters
    ----------
    {y_true, y_score, query_id, sample_weight, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries, or per-query values when
        ``aggregate=None``.

    See Also
    --------
    coverage_error, label_ranking_average_precision_score
    gauc_score : One minus a tie-averaged version of this loss, per query.
    sklearn.metrics.label_ranking_loss : The same on 2-D input.

    Notes
    -----
    For a query of :math:`n` rows, :math:`Y` relevant (:math:`|Y| = R`) and
    :math:`\\bar{Y}` not,

    .. math::

        \\mathrm{loss} = \\frac{|\\{(j, i) \\in Y \\times \\bar{Y} :
        s_i \\ge s_j\\}|}{R\\,(n - R)}

    A tied pair counts as wrong (scikit-learn's rule; GAUC counts it as
    half), so there is no ``ties`` option. A query with no relevant row,
    or no non-relevant row, scores 0 and counts in the mean
    (scikit-learn's convention), so there is no ``no_relevant`` option.
    On 2-D input the result equals ``sklearn.metrics.label_ranking_loss``,
    ``sample_weight`` included. ``y_true`` may be a scipy sparse matrix or
    array (CSR, CSC, COO, ...), as scikit-learn's indicator matrices often
    are.

    Examples
    --------
    >>> from skrank import label_ranking_loss
    >>> # row 1: 1 wrong pair of 2; row 2: 2 of 2
    >>> label_ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    >>> label_ranking_loss([1, 0, 0, 1], [2, 2, 1, 0], query_id=[1, 1, 2, 2])
    1.0
    """
    return _score_label_ranking(
        _label_ranking_loss_per_query, y_true, y_score, query_id=query_id,
        sample_weight=sample_weight, aggregate=aggregate,
    )


@validate_with_preset({"aggregate": choice(*AGGREGATE), **CONVENTION_OPTIONS},
                      stem="label_ranking_average_precision")
def label_ranking_average_precision_score(y_true, y_score, *, query_id=None,
                                          sample_weight=None, aggregate="mean",
    compat=None,
    score_dtype=None,
    retrieved="all",
):
    """Label ranking average precision (LRAP), with ties counted against the ranking.

    scikit-learn's ``label_ranking_average_precision_score`` for rankings
    with query ids: each query is one row of scikit-learn's 2-D
    ``(n_samples, n_labels)`` input. Higher is better; 1 is a perfect
    ranking.

    Parameters
    ----------
    {y_true, y_score, query_id, sample_weight, aggregate, compat, score_dtype}
    {retrieved}

    Returns
    -------
    score : float or QueryValues
        The weighted mean over queries, or per-query values when
        ``aggregate=None``.

    See Also
    --------
    average_precision_score : AP, with the exact tie average.
    coverage_error, label_ranking_loss
    sklearn.metrics.label_ranking_average_precision_score : The same on 2-D input.

    Notes
    -----
    For a query with relevant rows :math:`Y` (:math:`|Y| = R`),

    .. math::

        \\mathrm{LRAP} = \\frac{1}{R} \\sum_{j \\in Y}
        \\frac{|\\{i \\in Y : s_i \\ge s_j\\}|}{|\\{i : s_i \\ge s_j\\}|}

    Without ties this is the query's average precision
    (:func:`average_precision_score`). With ties every tied row takes the
    last rank of its block (scikit-learn's rule), which is at most the
    expected AP over the orders of tied rows that
    :func:`average_precision_score` gives; so there is no ``ties`` option.
    A query with no relevant row, or with every row relevant, scores 1 and
    counts in the mean (scikit-learn's convention), so there is no
    ``no_relevant`` option. On 2-D input the result equals
    ``sklearn.metrics.label_ranking_average_precision_score``,
    ``sample_weight`` included. ``y_true`` may be a scipy sparse matrix or
    array (CSR, CSC, COO, ...), as scikit-learn's indicator matrices often
    are.

    Examples
    --------
    >>> from skrank import label_ranking_average_precision_score
    >>> # row 1: the relevant label is 2nd, 1/2; row 2: 3rd, 1/3
    >>> label_ranking_average_precision_score(
    ...     [[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.4166...
    >>> label_ranking_average_precision_score([1, 0, 1], [1, 1, 0])   # (1/2 + 2/3) / 2
    0.5833...
    """
    return _score_label_ranking(
        _label_ranking_average_precision_per_query, y_true, y_score,
        query_id=query_id, sample_weight=sample_weight, aggregate=aggregate,
    )
