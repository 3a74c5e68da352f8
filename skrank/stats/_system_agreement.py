"""Would two sets of judgments rank the systems alike? Kendall's tau and tau_ap of the means.

The meta-evaluation of LLM judges (Thomas et al., SIGIR 2024; Faggioli et
al., ICTIR 2023; Upadhyay et al., 2024): every system is scored under both
sets of judgments with :func:`~skrank.evaluate_run`, and the two orders of
the systems' means are compared: Kendall's tau-b (scipy's), Yilmaz, Aslam
and Robertson's tau_ap (SIGIR 2008), which weighs swaps near the top more,
whether the best system is the same, and a bootstrap interval of tau over
the queries (:mod:`skrank._core._resample`, as :func:`~skrank.compare`).
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._core._params import COUNT, FRACTION, METRIC_NAME, validate_params
from .._core._resample import check_resampled_queries, stratified_resample_sums
from ._intervals import confidence_intervals, make_rng


@dataclass(frozen=True)
class SystemAgreementResult:
    """What :func:`system_agreement` returns: how alike two sets of judgments rank systems.

    Attributes
    ----------
    metric : str
        The measure the systems were scored with.
    systems : list of str
        The systems' names, in the order given.
    means_a, means_b : ndarray of shape (n_systems,)
        Each system's mean over :attr:`n_queries` queries under ``qrels_a``
        (``qrels_b``).
    kendall_tau : float
        Kendall's tau-b of the two lists of means (scipy's ``kendalltau``);
        nan when one list is constant.
    tau_ap : float
        Yilmaz, Aslam and Robertson's AP correlation of the order under
        ``qrels_b`` with the order under ``qrels_a`` as the truth; tied
        means are averaged over their orders (see :func:`system_agreement`).
    same_best : bool
        Whether the best system (the systems tied for the best mean) is the
        same under both.
    tau_interval : tuple of float
        The bootstrap percentile interval of Kendall's tau over queries.
    confidence_level : float
    n_queries : int
        The queries every system is scored on under both sets of judgments.
    n_resamples : int

    Examples
    --------
    >>> from skrank.stats import system_agreement
    >>> human = {"q1": ["d1", "d2"], "q2": ["d3"], "q3": ["d5"]}
    >>> llm = {"q1": ["d1"], "q2": ["d3", "d4"], "q3": ["d5"]}
    >>> runs = {"a": {"q1": ["d1", "d2"], "q2": ["d3"], "q3": ["d5"]},
    ...         "b": {"q1": ["d9", "d1"], "q2": ["d4", "d3"], "q3": ["d5"]},
    ...         "c": {"q1": ["d9", "d2"], "q2": ["d9", "d4"], "q3": ["d9"]}}
    >>> result = system_agreement(runs, human, llm, metric="recip_rank",
    ...                           n_resamples=200, random_state=0)
    >>> result.means
    {'a': (1.0, 1.0), 'b': (0.6667, 0.8333), 'c': (0.1667, 0.1667)}
    >>> result.kendall_tau, result.tau_ap, result.same_best
    (1.0, 1.0, True)
    """

    metric: str
    systems: list
    means_a: np.ndarray
    means_b: np.ndarray
    kendall_tau: float
    tau_ap: float
    same_best: bool
    tau_interval: tuple
    confidence_level: float
    n_queries: int
    n_resamples: int

    @property
    def means(self):
        """``{system: (mean under qrels_a, mean under qrels_b)}``, rounded to 4 places."""
        return {name: (round(float(a), 4), round(float(b), 4))
                for name, a, b in zip(self.systems, self.means_a, self.means_b)}

    def to_frame(self):
        """One row per system: ``mean_a``, ``mean_b``, ``rank_a``, ``rank_b`` (needs pandas).

        Ranks are 1 for the best mean; tied means share the lowest rank.
        """
        from .._core._optional import import_optional

        pd = import_optional("pandas", "SystemAgreementResult.to_frame()")
        frame = pd.DataFrame({"mean_a": self.means_a, "mean_b": self.means_b},
                             index=pd.Index(self.systems, name="system"))
        frame["rank_a"] = frame["mean_a"].rank(ascending=False, method="min").astype(int)
        frame["rank_b"] = frame["mean_b"].rank(ascending=False, method="min").astype(int)
        return frame

    def __repr__(self):
        low, high = self.tau_interval
        width = max([len("system")] + [len(str(s)) for s in self.systems])
        rank_a = _ranks(self.means_a)
        rank_b = _ranks(self.means_b)
        lines = [f"  {'system':<{width}}  mean_a  mean_b  rank_a  rank_b"]
        for i, name in enumerate(self.systems):
            lines.append(f"  {str(name):<{width}}  {self.means_a[i]:.4f}  {self.means_b[i]:.4f}"
                         f"  {rank_a[i]:>6}  {rank_b[i]:>6}")
        return (
            f"SystemAgreementResult({self.metric} of {len(self.systems)} systems on "
            f"{self.n_queries} queries: kendall_tau={self.kendall_tau:.4f} "
            f"[{low:.4f}, {high:.4f}] ({self.confidence_level:.0%} bootstrap), "
            f"tau_ap={self.tau_ap:.4f}, same_best={self.same_best})\n" + "\n".join(lines)
        )


def _ranks(means):
    """1 for the best mean; ties share the lowest rank."""
    return np.array([int((means > m).sum()) + 1 for m in means])


def kendall_tau_b(x, y):
    """Kendall's tau-b of each row of ``x`` with the same row of ``y`` (nan if one is constant).

    ``(concordant - discordant) / sqrt(pairs untied in x * pairs untied in y)``,
    scipy's ``kendalltau`` (variant ``"b"``), for many rows at once.
    """
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    i, j = np.triu_indices(x.shape[1], 1)
    dx, dy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    untied = (dx != 0).sum(axis=1) * (dy != 0).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(untied > 0, (dx * dy).sum(axis=1) / np.sqrt(untied), np.nan)


def tau_ap(truth, estimate):
    """Yilmaz, Aslam and Robertson's tau_ap of ``estimate``'s order, ``truth``'s as the truth.

    Systems ranked by ``estimate`` (highest first); for the system at place
    i > 1, C(i) counts the systems above it that ``truth`` also puts above
    it, and tau_ap = 2 / (n - 1) * sum_i C(i) / (i - 1) - 1. Ties are
    averaged over their orders: a pair tied in ``truth`` counts one half
    (either order equally likely), and a block of systems tied in
    ``estimate`` takes the expected value over its orders (each system of
    the block equally likely at each of its places, its block-mates above
    it a uniform subset).
    """
    truth, estimate = np.asarray(truth, float), np.asarray(estimate, float)
    n = truth.shape[0]
    # correct[j, s]: j above s is right by the truth (1/2 for a tie)
    correct = (truth[:, None] > truth[None, :]) + 0.5 * (truth[:, None] == truth[None, :])
    np.fill_diagonal(correct, 0.0)
    order = np.argsort(-estimate, kind="stable")
    values = estimate[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    ends = np.r_[starts[1:], n]
    total = 0.0
    for lo, hi in zip(starts, ends):
        block, size = order[lo:hi], hi - lo
        places = np.arange(lo, hi) + 1  # 1-based
        for s in block:
            fixed = correct[order[:lo], s].sum()
            mates = (correct[block, s].sum() / (size - 1)) if size > 1 else 0.0
            t = places - lo - 1  # block-mates above s at each place
            keep = places > 1
            total += ((fixed + t[keep] * mates) / (places[keep] - 1)).sum() / size
    return float(2.0 / (n - 1) * total - 1.0)


def _named_runs(runs):
    if isinstance(runs, Mapping):
        names, values = [str(k) for k in runs], list(runs.values())
    elif isinstance(runs, (list, tuple)):
        values = list(runs)
        names = [str(v) if isinstance(v, str) else f"run {i}" for i, v in enumerate(values)]
    else:
        raise ValueError(f"`runs` must be a dict {{name: run}} or a list of runs, got "
                         f"{type(runs).__name__}.")
    if len(values) < 3:
        raise ValueError(f"`runs` holds {len(values)} system(s): system agreement needs at "
                         "least 3 (an order of two systems is one pair, which tau reduces "
                         "to +1 or -1).")
    if len(set(names)) != len(names):
        raise ValueError("`runs` names some system twice.")
    return names, values


def per_query_matrix(results, metric):
    """``(values (n_results, n_queries), n_queries)`` on the queries every result scores.

    Queries with a nan value (left out of some mean) are dropped too.
    """
    from ..io._tables import indexer

    common = results[0].query_ids
    for result in results[1:]:
        common = np.intersect1d(common, result.query_ids)
    values = np.empty((len(results), common.shape[0]))
    for row, result in enumerate(results):
        values[row] = result.per_query[metric].value[indexer(result.query_ids, common)]
    keep = ~np.isnan(values).any(axis=0)
    return values[:, keep], int(keep.sum())


@validate_params({"metric": METRIC_NAME, "n_resamples": COUNT, "confidence_level": FRACTION})
def system_agreement(runs, qrels_a, qrels_b, *, metric="ndcg@10", n_resamples=1000,
                     confidence_level=0.95, random_state=None, **options):
    """Whether two sets of judgments rank systems alike: Kendall's tau, tau_ap, the best.

    Each run is scored under both sets of judgments with
    :func:`~skrank.evaluate_run`, and the order of the systems' means
    under ``qrels_b`` (an LLM's judgments, say) is compared with their
    order under ``qrels_a`` (a person's): can the cheaper judgments choose
    the system?

    Parameters
    ----------
    runs : dict of str to run, or list of runs
        At least three systems' runs, each in a form
        :func:`~skrank.evaluate_run` reads (a TREC run file, a DataFrame,
        ``{qid: {doc: score}}``, ``{qid: [doc ids, best first]}``). In a
        list, a path names its run; other runs are ``"run 0"``, ``"run 1"``...
    qrels_a, qrels_b : str, path-like, pandas.DataFrame or dict
        The two sets of judgments, in any form :func:`~skrank.evaluate_run`
        reads. ``qrels_a`` is the reference: its order is the truth of
        ``tau_ap``.
    metric : str, default="ndcg@10"
        The measure, a name :func:`~skrank.evaluate_run` knows (``"map"``,
        ``"P_10"``, ``"ndcg@10"``, ``"bpref"``, ...).
    n_resamples : int, default=1000
        Bootstrap resamples of the queries for the interval of tau.
    confidence_level : float, default=0.95
        The interval's level (percentile bootstrap).
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap.
    **options
        Passed to :func:`~skrank.evaluate_run` (``compat``,
        ``relevance_level``, ``judged_docs_only``, ``no_relevant``, ...).

    Returns
    -------
    result : SystemAgreementResult
        ``means`` (``{system: (mean_a, mean_b)}``), ``kendall_tau``,
        ``tau_ap``, ``same_best``, ``tau_interval``; ``to_frame()``.

    Raises
    ------
    ValueError
        For fewer than three systems in ``runs``, no query that every run
        is scored on under both sets of judgments, or a single such query
        (the interval of tau would have zero width).

    Warns
    -----
    UserWarning
        With fewer than 20 queries: the bootstrap interval of tau is then
        too narrow to trust (the examples below, on three queries, warn).

    See Also
    --------
    judge_agreement : How far the judgments agree pair by pair.
    skrank.rank_correlation_score : Rank correlation of two scorings per query.

    Notes
    -----
    The means are over the queries that every system is scored on under
    both sets of judgments (and whose values are not nan): the comparison
    is paired. When every run covers the same queries and both sets judge
    them, these are :func:`~skrank.evaluate_run`'s means.

    ``kendall_tau`` is tau-b, scipy's ``kendalltau`` of the two lists of
    means. ``tau_ap`` (Yilmaz, Aslam and Robertson, "A new rank
    correlation coefficient for information retrieval", SIGIR 2008) ranks
    the systems by their means under ``qrels_b``; for the system at place
    :math:`i > 1`, :math:`C(i)` counts the systems above it that are also
    above it under ``qrels_a``, and
    :math:`\\tau_{ap} = \\frac{2}{n-1}\\sum_{i=2}^{n}\\frac{C(i)}{i-1} - 1`.
    It is defined for orders without ties; skrank takes the expected value
    over the orders of tied means (a pair tied under ``qrels_a`` counts one
    half; systems tied under ``qrels_b`` take each of their places equally
    often). ``tau_interval`` resamples the queries (the same draw for every
    system and both sets of judgments) and recomputes tau from the resampled
    means. Tau of a few systems' means takes few values, so the percentile
    interval is conservative: in a simulation (five systems, a second judge
    who swaps two of them, population tau 0.8) the 95% interval covered the
    population tau in 150 of 150 replications at 20, 60 and 150 queries.

    Examples
    --------
    >>> from skrank.stats import system_agreement
    >>> human = {"q1": ["d1", "d2"], "q2": ["d3"], "q3": ["d5"]}
    >>> llm = {"q1": ["d1"], "q2": ["d3", "d4"], "q3": ["d5"]}
    >>> runs = {"a": {"q1": ["d1", "d2"], "q2": ["d3"], "q3": ["d5"]},
    ...         "b": {"q1": ["d9", "d1"], "q2": ["d4", "d3"], "q3": ["d5"]},
    ...         "c": {"q1": ["d9", "d2"], "q2": ["d9", "d4"], "q3": ["d9"]}}
    >>> result = system_agreement(runs, human, llm, metric="P_1",
    ...                           n_resamples=200, random_state=0)
    >>> result.means                  # b's P@1 on q2: d4, relevant for the LLM only
    {'a': (1.0, 1.0), 'b': (0.3333, 0.6667), 'c': (0.0, 0.0)}
    >>> print(result.kendall_tau, result.tau_ap, result.same_best)
    1.0 1.0 True
    """
    from ..io._evaluate import evaluate_run
    from ..io._read import as_table

    names, values = _named_runs(runs)
    if "metrics" in options:
        raise ValueError("`metrics`: system_agreement scores one measure, `metric`.")
    compat = options.get("compat")
    qrels = [as_table(qrels_a, "qrels", "qrels_a", compat),
             as_table(qrels_b, "qrels", "qrels_b", compat)]
    results = []
    for name, run in zip(names, values):
        table = as_table(run, "run", f"runs[{name!r}]", compat)  # read once, scored twice
        results += [evaluate_run(q, table, [metric], **options) for q in qrels]
    per_query, n_queries = per_query_matrix(results, metric)
    if n_queries == 0:
        raise ValueError("No query is scored for every run under both `qrels_a` and "
                         "`qrels_b`: nothing to compare.")
    scores_a, scores_b = per_query[0::2], per_query[1::2]
    means_a, means_b = scores_a.mean(axis=1), scores_b.mean(axis=1)
    tau = float(kendall_tau_b(means_a, means_b)[0])
    check_resampled_queries(n_queries, n_resamples, source="the comparison",
                            advice="Score the systems on more queries.")
    rng = make_rng(random_state)
    sums = stratified_resample_sums(np.concatenate([scores_a, scores_b]).T, [n_queries],
                                    n_resamples, rng)[:, 0] / n_queries
    boot = kendall_tau_b(sums[:, : len(names)], sums[:, len(names):])
    low, high = confidence_intervals(boot[:, None], np.array([tau]), confidence_level,
                                     "percentile")
    best_a = {n for n, m in zip(names, means_a) if m == means_a.max()}
    best_b = {n for n, m in zip(names, means_b) if m == means_b.max()}
    return SystemAgreementResult(
        metric=metric, systems=names, means_a=means_a, means_b=means_b,
        kendall_tau=tau, tau_ap=tau_ap(means_a, means_b), same_best=best_a == best_b,
        tau_interval=(float(low[0]), float(high[0])), confidence_level=confidence_level,
        n_queries=n_queries, n_resamples=n_resamples,
    )
