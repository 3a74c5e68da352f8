"""compare(): paired statistical comparison of ranking systems on the same queries.

The face of :mod:`._paired` (the tests) and :mod:`._compare_by` (the same
tests within segments): it checks the systems, gets their per-query values
and hands them on.
"""

from .._core._params import (
    choice,
    CORRECTIONS,
    COUNT,
    FRACTION,
    NO_RELEVANT,
    TIES,
    validate_params,
)
from .._core._validation import describe
from ._compare_by import compare_by
from ._intervals import make_rng
from ._paired import (
    check_systems,
    compare_per_query,
    frames_per_query_values,
    is_dask_frame,
    per_query_values,
)
from ._tukey import TEST


@validate_params({
    "n_resamples": COUNT, "confidence_level": FRACTION,
    "correction": choice(*CORRECTIONS), "ties": choice(*TIES),
    "no_relevant": choice(*NO_RELEVANT), "test": TEST,
})
def compare(
    y_true,
    systems,
    *,
    query_id=None,
    metrics=("ndcg@10", "map"),
    baseline=None,
    test=None,
    n_resamples=10_000,
    confidence_level=0.95,
    correction="holm",
    ties="average",
    no_relevant="skip",
    random_state=None,
    by=None,
):
    """Compare ranking systems on the same queries with paired tests.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_queries, n_items), or None
        Relevance of each row: binary (0/1) or graded (non-negative). A row
        is relevant when ``y_true > 0``. None when ``systems`` holds
        per-query Dask DataFrames.
    systems : dict of str to array-like or to Dask DataFrame
        ``{name: y_score}``: each system's scores for the same rows, at
        least two systems. Or ``{name: per_query}``: the per-query frames
        of :func:`skrank.dask.evaluate` with ``aggregate=None``, paired on
        their query-id index (every frame must hold the same queries; the
        metrics, ``ties`` and ``no_relevant`` are those the frames were
        computed with, and only their per-query values reach the client).
    {query_id}
    metrics : str or list of str, default=("ndcg@10", "map")
        Metric names, as for :func:`evaluate`.
    baseline : str, default=None
        Compare every other system with this one; None compares every pair.
    test : {None, "tukey_hsd", "tukey_hsd_parametric"} or list of them, default=None
        Tests of all systems at once, each adding a column of p-values to
        ``result.tests``: ``"tukey_hsd"`` the randomised Tukey HSD test
        (``p_tukey_hsd``), ``"tukey_hsd_parametric"`` the blocked Tukey HSD
        of the two-way analysis of variance (``p_tukey_hsd_parametric``).
        See Notes. None adds nothing.
    n_resamples : int, default=10000
        Resamples of the bootstrap, of the randomisation test and of the
        randomised Tukey HSD test.
    confidence_level : float, default=0.95
        Of the bootstrap intervals, in (0, 1).
    correction : {"holm", "bonferroni", "bh", "by", None}, default="holm"
        Multiple-comparison correction of the p-values, over the pairs
        compared on each metric (:func:`skrank.stats.correct_p_values`):
        Holm's and Bonferroni's control the family-wise error rate,
        Benjamini-Hochberg's (``"bh"``) and Benjamini-Yekutieli's
        (``"by"``) the false discovery rate.
    ties : {"average", "input"}, default="average"
        ``"average"``: the exact expected value over all orders of rows with
        equal scores. ``"input"``: rows with equal scores keep their input
        order.
    {no_relevant}
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap and the randomisation test; an int makes the
        result reproducible.
    by : array-like, list of array-likes or DataFrame, default=None
        The segment of each row, as for :func:`evaluate_by`: the systems are
        compared within each segment, and the corrected p-values are
        corrected over every segment and pair of a metric. Returns a
        :class:`SegmentComparisonResult` (tables with the segment columns
        first).

    Returns
    -------
    result : ComparisonResult
        ``result.summary`` (mean and interval per metric and system),
        ``result.tests`` (one row per metric and pair), both tables with a
        readable repr and ``to_frame()``; ``result.per_query`` holds the
        per-query values.

    See Also
    --------
    evaluate : the per-query values the tests use.

    Notes
    -----
    Every query weighs the same. A query enters a metric's tests when every
    system has a value for it (queries left out by ``no_relevant="skip"``
    are left out for all systems alike). For a pair (a, b) the per-query
    differences d_q = a_q - b_q are tested:

    * **randomisation test** (Fisher's paired permutation test, as Smucker,
      Allan & Carterette 2007 recommend for IR): under the null hypothesis
      each d_q is as likely to have the other sign, so the p-value is the
      share of sign vectors s with ``|sum(s * d)| >= |sum(d)|``. With 2**n
      <= ``n_resamples`` all 2**n sign vectors are used (exact); otherwise
      ``n_resamples`` random ones, with p = (1 + hits) / (1 + n_resamples).
    * **paired t-test**: ``scipy.stats.ttest_rel`` on the same values
      (p = 1 when every difference is 0).
    * **bootstrap**: queries resampled with replacement, the same resample
      for every system (so differences get intervals too); percentile
      intervals.

    With more than two systems, the p-values of each metric are corrected
    over its pairs (Holm's step-down method by default, which controls the
    family-wise error rate and is never less powerful than Bonferroni).

    ``test=`` adds Tukey's HSD, which tests every pair of the k systems at
    once and controls the family-wise error rate over all k(k-1)/2 pairs by
    itself (its p-values are not corrected further; with ``baseline`` the
    rows still hold only the pairs with the baseline, but the family is
    every pair). Both forms keep the queries paired:

    * ``"tukey_hsd"``, the randomised test (Carterette 2012): each query's
      k values are permuted across the systems, and a pair's p-value is
      the share of permutations whose **range** of system means (largest
      minus smallest) reaches the pair's observed ``|difference|``: exact
      over all ``(k!)**n`` permutations when there are at most
      ``n_resamples``, otherwise ``(1 + hits) / (1 + n_resamples)``. It is
      conservative when one system is far from the others: that system
      makes the range large in every permutation, which inflates the
      p-values of the pairs among the close systems.
    * ``"tukey_hsd_parametric"``, the blocked Tukey HSD: the two-way
      analysis of variance (systems x queries, no interaction) gives the
      mean squared error of its residuals, MSE, on (k-1)(n-1) degrees of
      freedom; ``q = |difference| / sqrt(MSE / n)`` and p is the studentized
      range distribution's tail (``scipy.stats.studentized_range``). This
      is not the one-way ``scipy.stats.tukey_hsd`` (ranx's
      ``stat_test="tukey"``), which treats the systems' values as
      independent samples: the differences in difficulty between queries
      land in its error term, so its p-values are usually larger and it
      misses differences a paired test finds. With two systems the blocked form equals the paired t-test.
      With ``by=`` each segment is its own family.

    References
    ----------
    .. [1] M. D. Smucker, J. Allan and B. Carterette. A comparison of
       statistical significance tests for information retrieval evaluation.
       CIKM 2007.
    .. [2] S. Holm. A simple sequentially rejective multiple test procedure.
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [3] B. Carterette. Multiple testing in statistical analysis of
       systems-based information retrieval experiments. ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> from skrank import compare
    >>> y_true = [1, 0, 0, 1, 0, 0, 0, 1, 0]
    >>> query_id = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> good = [3, 2, 1, 3, 2, 1, 1, 3, 2]          # relevant row first everywhere
    >>> bad = [1, 2, 3, 1, 2, 3, 3, 1, 2]           # relevant row last everywhere
    >>> result = compare(y_true, {"good": good, "bad": bad}, query_id=query_id,
    ...                  metrics=["mrr"], random_state=0)
    >>> result.tests.column("difference")            # 1 - 1/3 on every query
    [0.6666...]
    >>> result.tests.column("p_randomization")       # exact: 2 of the 2**3 sign vectors
    [0.25]
    """
    level = confidence_level  # checked by @validate_params
    systems = check_systems(systems)
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    names = list(systems)
    if baseline is not None and baseline not in systems:
        raise ValueError(
            f"`baseline` must be one of the systems {names}, got {describe(baseline)}."
        )
    rng = make_rng(random_state)
    tests = TEST.check("test", test)  # None, the unchecked default, becomes ()
    frames = [is_dask_frame(scores) for scores in systems.values()]
    if by is not None:
        if any(frames):
            raise ValueError("`by` needs in-memory scores, not per-query Dask frames.")
        return compare_by(
            y_true, systems, by=by, query_id=query_id, metrics=metrics,
            baseline=baseline, n_resamples=n_resamples, level=level,
            correction=correction, ties=ties, no_relevant=no_relevant, rng=rng,
            tests=tests,
        )
    if any(frames):
        if not all(frames) or y_true is not None or query_id is not None:
            raise ValueError(
                "To compare per-query Dask DataFrames (skrank.dask.evaluate(..., "
                "aggregate=None)), pass y_true=None, no query_id, and a frame for "
                "every system."
            )
        per_query = frames_per_query_values(systems, metrics)
    else:
        per_query = per_query_values(
            y_true, systems, metrics, query_id, ties, no_relevant
        )
    return compare_per_query(
        per_query, names, metrics, baseline=baseline, n_resamples=n_resamples,
        level=level, correction=correction, rng=rng, tests=tests,
    )
