"""How far two sets of relevance judgments agree: Cohen's kappa on the pairs both judged.

The question of a user whose judgments come from an LLM and who holds a
few human ones (Thomas et al., SIGIR 2024; Faggioli et al., ICTIR 2023):
on the (query, document) pairs that both judged, how often do the two say
the same? The qrels are read as :func:`~skrank.evaluate_run` reads them
(files, DataFrames, ``{qid: {doc: grade}}``, ``{qid: [relevant ids]}``),
through :mod:`skrank.io`.
"""

from dataclasses import dataclass

import numpy as np

from .._core._aggregate import QueryValues
from .._core._params import REAL, validate_params


@dataclass(frozen=True)
class JudgeAgreementResult:
    """What :func:`judge_agreement` returns: how far two sets of judgments agree.

    Attributes
    ----------
    kappa : float
        Cohen's kappa of the binary judgments (relevant: grade at or above
        ``relevance_level``), over the pairs both judged; nan when both
        judges give every pair the same label (no agreement beyond chance
        to measure), as scikit-learn's ``cohen_kappa_score``.
    weighted_kappa : float
        Cohen's kappa of the grades with linear weights (a disagreement by
        one grade costs a third of one by three grades), scikit-learn's
        ``cohen_kappa_score(a, b, weights="linear")``: the weights are the
        distances between the grades' places among the grades seen.
    agreement : float
        The share of the pairs both judged on which the binary labels agree.
    n_pairs : int
        The (query, document) pairs both judged.
    confusion : ndarray of shape (2, 2)
        Counts of those pairs: rows ``qrels_a`` (not relevant, relevant),
        columns ``qrels_b``.
    per_query : QueryValues
        Per query with a pair both judged: the share of its pairs on which
        the binary labels agree (``value``) and its number of such pairs
        (``weight``), queries sorted by id.
    n_only_a, n_only_b : int
        Pairs that only ``qrels_a`` (only ``qrels_b``) judged.
    relevance_level : float
        The grade at and above which a judgment is relevant.

    Examples
    --------
    >>> from skrank.stats import judge_agreement
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1}}
    >>> llm = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d4": 0, "d6": 1}}
    >>> result = judge_agreement(human, llm)
    >>> result.n_pairs, round(result.kappa, 4), result.agreement
    (4, 0.5, 0.75)
    >>> result.confusion
    array([[1, 1],
           [0, 2]])
    """

    kappa: float
    weighted_kappa: float
    agreement: float
    n_pairs: int
    confusion: np.ndarray
    per_query: QueryValues
    n_only_a: int
    n_only_b: int
    relevance_level: float

    def __repr__(self):
        c = self.confusion
        width = max(len(str(int(v))) for v in c.ravel()) + 2
        rows = [f"  {'':<12}{'b: not':>{max(width, 8)}}{'b: rel':>{max(width, 8)}}"]
        for label, row in (("a: not", c[0]), ("a: rel", c[1])):
            rows.append(f"  {label:<12}" + "".join(f"{int(v):>{max(width, 8)}}" for v in row))
        return (
            f"JudgeAgreementResult({self.n_pairs} pairs judged by both in "
            f"{len(self.per_query.query_id)} queries; kappa={self.kappa:.4f}, "
            f"weighted_kappa={self.weighted_kappa:.4f}, agreement={self.agreement:.4f}; "
            f"judged by one only: a {self.n_only_a}, b {self.n_only_b})\n"
            f"confusion (relevant: grade >= {self.relevance_level:g}):\n" + "\n".join(rows)
        )


def _kappa(labels_a, labels_b, *, linear):
    """Cohen's kappa of two label arrays (integer codes), scikit-learn's formula."""
    n_labels = int(max(labels_a.max(), labels_b.max())) + 1
    confusion = np.bincount(labels_a * n_labels + labels_b,
                            minlength=n_labels * n_labels).reshape(n_labels, n_labels)
    confusion = confusion.astype(np.float64)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / confusion.sum()
    places = np.arange(n_labels)
    weights = np.abs(places[:, None] - places[None, :]).astype(np.float64)
    if not linear:
        weights = (weights > 0).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1.0 - (weights * confusion).sum() / (weights * expected).sum())


def common_pairs(a, b):
    """Rows of the pairs that both tables judge: ``(rows_a, rows_b)``, and each's size.

    ``a`` and ``b`` are :class:`~skrank.io._tables.TrecTable` s of qrels;
    a pair judged twice by one of them is an error naming it.
    """
    from ..io._tables import indexer

    doc_a, doc_b = a.doc_strings(), b.doc_strings()
    labels, codes_a = np.unique(doc_a.astype(str), return_inverse=True)
    in_a = indexer(labels, doc_b.astype(str))
    query_b = indexer(a.query_labels, b.query_labels)[b.query]
    n_docs = max(labels.shape[0], 1)
    key_a = a.query.astype(np.int64) * n_docs + codes_a.ravel()
    keep_b = np.flatnonzero((query_b >= 0) & (in_a >= 0))
    key_b = query_b[keep_b] * n_docs + in_a[keep_b]
    for key, name in ((key_a, "qrels_a"), (key_b, "qrels_b")):
        if np.unique(key).shape[0] != key.shape[0]:
            raise ValueError(f"`{name}` judges some (query, document) pair twice: keep "
                             "one judgment per pair.")
    _, rows_a, found = np.intersect1d(key_a, key_b, assume_unique=True, return_indices=True)
    return rows_a, keep_b[found]


@validate_params({"relevance_level": REAL})
def judge_agreement(qrels_a, qrels_b, *, relevance_level=1):
    """How far two sets of judgments agree, on the (query, document) pairs both judged.

    Cohen's kappa of the binary judgments and the linearly weighted kappa
    of the grades, as scikit-learn's ``cohen_kappa_score`` gives them on the
    same pairs, with the confusion matrix and the agreement per query: do an
    LLM's judgments agree with a person's?

    Parameters
    ----------
    qrels_a, qrels_b : str, path-like, pandas.DataFrame or dict
        Two sets of judgments of the same queries, in any form
        :func:`~skrank.evaluate_run` reads: TREC qrels files, DataFrames
        (``query_id``, ``doc_id``, ``relevance``), ``{query_id: {doc_id:
        grade}}`` or ``{query_id: [relevant doc ids]}`` (grade 1). Ids
        compare as text. ``qrels_a`` is the reference (the rows of
        :attr:`~JudgeAgreementResult.confusion`), such as a person's.
    relevance_level : float, default=1
        A judgment at or above it is relevant, for :attr:`kappa`, the
        confusion matrix and the agreement.

    Returns
    -------
    result : JudgeAgreementResult
        ``kappa``, ``weighted_kappa``, ``agreement``, ``n_pairs``,
        ``confusion`` (rows ``qrels_a``, columns ``qrels_b``), ``per_query``,
        ``n_only_a`` and ``n_only_b``.

    Raises
    ------
    ValueError
        When no pair is judged by both, or when one set judges a pair twice.

    See Also
    --------
    system_agreement : Whether the two sets rank systems alike.

    Notes
    -----
    With :math:`p_o` the observed share of agreeing pairs and :math:`p_e`
    the share expected by chance from each judge's label frequencies,
    :math:`\\kappa = (p_o - p_e) / (1 - p_e)`. The weighted kappa replaces
    agreement by the distance between grades: the grades seen (in either
    set) are put in order, and two grades cost the distance between their
    places, as in scikit-learn (a set of grades {0, 1, 3} makes 0 and 3 two
    places apart). Pairs judged by one set only are left out, and counted
    in ``n_only_a`` and ``n_only_b``: an LLM that judges more documents than
    a person is compared on the person's.

    Examples
    --------
    >>> from skrank.stats import judge_agreement
    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 0, "d5": 1}}
    >>> llm = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d4": 0, "d6": 1}}
    >>> result = judge_agreement(human, llm)
    >>> print(round(result.kappa, 4), round(result.weighted_kappa, 4))
    0.5 0.7143
    >>> result.per_query.value       # q1: 2 of 3 pairs agree; q2: 1 of 1
    array([0.6667, 1.    ])
    """
    from ..io._read import as_table

    a = as_table(qrels_a, "qrels", "qrels_a")
    b = as_table(qrels_b, "qrels", "qrels_b")
    rows_a, rows_b = common_pairs(a, b)
    n_pairs = rows_a.shape[0]
    if n_pairs == 0:
        raise ValueError("`qrels_a` and `qrels_b` share no judged (query, document) pair: "
                         "nothing to compare (ids compare as text: '1' is not '1.0').")
    grade_a, grade_b = a.value[rows_a], b.value[rows_b]
    relevant_a = (grade_a >= relevance_level).astype(np.int64)
    relevant_b = (grade_b >= relevance_level).astype(np.int64)
    confusion = np.bincount(relevant_a * 2 + relevant_b, minlength=4).reshape(2, 2)
    grades, codes = np.unique(np.concatenate([grade_a, grade_b]), return_inverse=True)
    codes = codes.ravel()
    agree = (relevant_a == relevant_b).astype(np.float64)
    query = a.query[rows_a]
    present, query = np.unique(query, return_inverse=True)
    labels = a.query_labels[present]
    order = np.argsort(labels.astype(str), kind="stable")
    counts = np.bincount(query, minlength=present.shape[0]).astype(np.float64)
    shares = np.bincount(query, weights=agree, minlength=present.shape[0]) / counts
    per_query = QueryValues(labels[order], shares[order], counts[order])
    return JudgeAgreementResult(
        kappa=_kappa(relevant_a, relevant_b, linear=False),
        weighted_kappa=_kappa(codes[:n_pairs], codes[n_pairs:], linear=True),
        agreement=float(agree.mean()),
        n_pairs=int(n_pairs), confusion=confusion, per_query=per_query,
        n_only_a=int(len(a) - n_pairs), n_only_b=int(len(b) - n_pairs),
        relevance_level=float(relevance_level),
    )
