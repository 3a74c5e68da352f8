"""How many queries a paired comparison needs: Sakai's topic set size design.

The power of a two-sided paired t-test on ``n`` per-query differences whose
mean is ``delta`` and whose standard deviation is ``sd``: the statistic
follows a noncentral t with ``n - 1`` degrees of freedom and noncentrality
``delta / sd * sqrt(n)``, and the test rejects beyond either critical value.
:func:`topic_set_size` finds the smallest ``n`` whose power reaches
``1 - beta``; :func:`minimum_detectable_effect` the smallest ``delta``
that ``n`` queries detect with that power.

scipy's noncentral t returns nan far in its tails (``nct.cdf(-2.35, 3,
30)`` in scipy 1.17); a tail that comes back nan or outside [0, 1] is
computed again by quadrature over the chi-square variable instead
(:func:`_nct_tail_by_quadrature`).
"""

import math
import warnings
from numbers import Integral

import numpy as np
from scipy import integrate, optimize, special, stats

from .._core._params import FRACTION, Rule, validate_params
from .._core._validation import check_positive_real, describe
from ._paired import ComparisonResult


def _check_metric_name(name, value):
    if value is not None and not isinstance(value, str):
        raise ValueError(
            f"`{name}` must be a metric name (a string) or None, got {describe(value)}."
        )
    return value


METRIC_OR_NONE = Rule(_check_metric_name, (1.5, 3))


# ------------------------------------------------------------ the power --

def _nct_tail_by_quadrature(x, df, nc, *, upper):
    """P(T > x) (``upper``) or P(T <= x) of a noncentral t, by quadrature.

    T = (Z + nc) / S with S = sqrt(V / df), V chi-square with ``df``
    degrees of freedom, so P(T <= x) = E[Phi(x S - nc)] and
    P(T > x) = E[Phi(nc - x S)]: a smooth, bounded integrand over V, which
    never loses the tail the way a series for the cdf can.
    """
    sign = -1.0 if upper else 1.0

    def integrand(v):
        return special.ndtr(sign * (x * math.sqrt(v / df) - nc)) * stats.chi2.pdf(v, df)

    low, high = stats.chi2.ppf(1e-16, df), stats.chi2.isf(1e-16, df)
    mode = max(df - 2.0, low)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        value, _ = integrate.quad(integrand, low, high, points=[mode], limit=200,
                                  epsabs=1e-14, epsrel=1e-12)
    return min(max(value, 0.0), 1.0)


def _nct_tail(x, df, nc, *, upper):
    """scipy's noncentral t tail, or the quadrature where scipy fails."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(stats.nct.sf(x, df, nc) if upper else stats.nct.cdf(x, df, nc))
    if not (0.0 <= value <= 1.0):  # nan, or a value a probability cannot take
        value = _nct_tail_by_quadrature(x, df, nc, upper=upper)
    return value


def paired_t_power(effect, n_queries, alpha):
    """Power of the two-sided paired t-test: ``effect`` is delta / sd.

    Both tails count, as in statsmodels' ``TTestPower``; the result is
    clamped to [0, 1].
    """
    df = n_queries - 1.0
    critical = float(stats.t.isf(alpha / 2.0, df))
    nc = effect * math.sqrt(n_queries)
    power = (_nct_tail(critical, df, nc, upper=True)
             + _nct_tail(-critical, df, nc, upper=False))
    return min(max(power, 0.0), 1.0)


def _normal_size(effect, alpha, beta):
    """The normal approximation of the size: ((z_{alpha/2} + z_beta) / effect)^2."""
    z = stats.norm.isf(alpha / 2.0) + stats.norm.isf(beta)
    return (z / effect) ** 2


# largest number of queries searched: far beyond any test collection, and
# small enough that every integer up to it is a float64
_LARGEST_N = 2**52


def _smallest_size(effect, alpha, beta):
    """The smallest integer n >= 2 with paired_t_power(effect, n) >= 1 - beta."""
    target = 1.0 - beta
    high = max(2, math.ceil(_normal_size(effect, alpha, beta)))
    if high > _LARGEST_N:
        raise ValueError(
            f"`delta` is too small for `sd`: delta / sd = {effect:g} needs more than "
            f"{_LARGEST_N} queries."
        )
    low = 1  # n = 1 has no degrees of freedom: never enough
    while paired_t_power(effect, high, alpha) < target:  # the t needs a few more
        low, high = high, 2 * high
    while high - low > 1:  # power grows with n: bisect on the integers
        middle = (low + high) // 2
        if paired_t_power(effect, middle, alpha) >= target:
            high = middle
        else:
            low = middle
    return high


def _smallest_effect(n_queries, alpha, beta):
    """The effect (delta / sd) at which paired_t_power reaches 1 - beta."""
    target = 1.0 - beta

    def shortfall(effect):
        return paired_t_power(effect, n_queries, alpha) - target

    high = 2.0 * math.sqrt(_normal_size(1.0, alpha, beta) / n_queries)
    for _ in range(200):  # power grows with the effect, to 1
        if shortfall(high) >= 0:
            break
        high *= 2.0
    return optimize.brentq(shortfall, 0.0, high, xtol=1e-15, rtol=1e-13, maxiter=500)


# --------------------------------------------------------- the inputs --

def _check_beta(alpha, beta):
    if 1.0 - beta <= alpha:
        raise ValueError(
            f"`beta` must be below 1 - alpha = {1.0 - alpha:g} (a power 1 - beta "
            f"above the test's size alpha), got {beta!r}."
        )


def _largest_pair_sd(result, metric):
    """The largest sd (ddof=1) of the per-query differences of ``result``'s pairs."""
    per_query = result.per_query
    names = list(per_query)
    if metric is None:
        if len(names) != 1:
            raise ValueError(
                f"`metric` is required: the ComparisonResult holds the metrics {names}."
            )
        metric = names[0]
    elif metric not in per_query:
        raise ValueError(
            f"`metric` must be one of the ComparisonResult's metrics {names}, "
            f"got {metric!r}."
        )
    systems = list(per_query[metric])
    values = np.vstack([np.asarray(per_query[metric][s].value, dtype=float)
                        for s in systems])
    values = values[:, ~np.isnan(values).any(axis=0)]  # the queries compare() pairs
    if values.shape[1] < 2:
        raise ValueError(
            f"`differences`: fewer than 2 queries have a value of {metric!r} for "
            "every system, so no standard deviation can be estimated."
        )
    columns = result.tests.columns
    at = {name: columns.index(name) for name in ("metric", "system_a", "system_b")}
    pairs = [
        (systems.index(row[at["system_a"]]), systems.index(row[at["system_b"]]))
        for row in result.tests.rows if row[at["metric"]] == metric
    ]
    sds = [float(np.std(values[a] - values[b], ddof=1)) for a, b in pairs]
    if not sds or not max(sds) > 0:
        raise ValueError(
            f"`differences`: every pair of systems has the same {metric!r} on every "
            "query (standard deviation 0); pass `sd` instead."
        )
    return max(sds)


def _sample_sd(differences):
    try:
        values = np.asarray(differences, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            "`differences` must be per-query differences (a 1-D array of numbers) "
            f"or a ComparisonResult, got {describe(differences)}."
        ) from None
    if values.ndim != 1 or values.shape[0] < 2:
        raise ValueError(
            "`differences` must be a 1-D array of at least 2 per-query differences, "
            f"got shape {values.shape}."
        )
    if not np.isfinite(values).all():
        raise ValueError(
            "`differences` holds nan or inf: drop the queries without a value "
            "(e.g. values[~np.isnan(values)]) first."
        )
    if values.min() == values.max():
        raise ValueError(
            "`differences` are all equal (standard deviation 0): no test size "
            "follows from them; pass `sd` instead."
        )
    return float(np.std(values, ddof=1))


def resolve_sd(sd, differences, metric):
    """The standard deviation of the per-query differences, from one of the two."""
    if (sd is None) == (differences is None):
        raise ValueError(
            "Pass exactly one of `sd` (the standard deviation of the per-query "
            "differences) and `differences`"
            + (", not both." if sd is not None else "; got neither.")
        )
    if isinstance(differences, ComparisonResult):
        return _largest_pair_sd(differences, metric)
    if metric is not None:
        raise ValueError(
            "`metric` picks a metric of a ComparisonResult passed as `differences`; "
            f"leave it None here, got {metric!r}."
        )
    if sd is not None:
        return check_positive_real("sd", sd)
    return _sample_sd(differences)


# ------------------------------------------------------- public faces --

@validate_params({"alpha": FRACTION, "beta": FRACTION, "metric": METRIC_OR_NONE})
def topic_set_size(delta, sd=None, *, differences=None, alpha=0.05, beta=0.2,
                   metric=None):
    """The number of queries a paired t-test needs to detect a difference.

    Sakai's topic set size design [1]_: the smallest number of queries ``n``
    at which a two-sided paired t-test at level ``alpha`` detects a true
    mean difference ``delta`` between two systems with probability (power)
    at least ``1 - beta``, when the per-query differences have standard
    deviation ``sd``.

    Parameters
    ----------
    delta : float
        The smallest mean difference worth detecting, in the metric's units
        (0.02 for two points of nDCG@10). Must be positive.
    sd : float, default=None
        The standard deviation of the per-query differences, e.g. from a
        pilot comparison. Give ``sd`` or ``differences``, not both.
    differences : array-like of shape (n_queries,) or ComparisonResult, default=None
        Per-query differences of a pilot comparison (their standard
        deviation, ``ddof=1``, is used), or the result of
        :func:`skrank.compare`: then the largest standard deviation over
        its pairs of systems for ``metric``, on the queries where every
        system has a value.
    alpha : float, default=0.05
        The significance level of the two-sided test, in (0, 1).
    beta : float, default=0.2
        The accepted probability of missing a true difference ``delta``
        (type II error), in (0, 1); the power is ``1 - beta``.
    metric : str, default=None
        Which metric of a ComparisonResult passed as ``differences``;
        needed when it holds several.

    Returns
    -------
    n_queries : int
        The smallest number of queries (at least 2) with enough power.

    Raises
    ------
    ValueError
        When ``delta``, ``sd``, ``alpha`` or ``beta`` is out of range, when
        not exactly one of ``sd`` and ``differences`` is given, or when
        ``1 - beta`` is not above ``alpha``.

    See Also
    --------
    minimum_detectable_effect : the converse, for a given number of queries.
    compare : paired tests of systems on the same queries.

    Notes
    -----
    The paired t statistic of ``n`` differences with mean ``delta`` and
    standard deviation ``sd`` follows a noncentral t with ``n - 1``
    degrees of freedom and noncentrality ``delta / sd * sqrt(n)``; the power
    is the probability that it falls beyond either critical value
    ``t_{1 - alpha/2, n - 1}``:

    .. math::

        1 - \\beta \\le P(T_{n-1, \\lambda} > t_{1-\\alpha/2})
                    + P(T_{n-1, \\lambda} < -t_{1-\\alpha/2}),
        \\quad \\lambda = \\frac{\\delta}{\\sigma}\\sqrt{n}.

    The result equals ``ceil`` of statsmodels'
    ``TTestPower().solve_power(effect_size=delta / sd, alpha=alpha,
    power=1 - beta, alternative="two-sided")``. The normal approximation
    ``((z_{alpha/2} + z_beta) / (delta / sd))**2`` is a few queries short
    for small samples. Where scipy's noncentral t fails far in its tails
    (nan for a large noncentrality), the tail is integrated numerically.

    References
    ----------
    .. [1] T. Sakai. Topic set size design. Information Retrieval Journal
       19(3), 256-283, 2016.

    Examples
    --------
    Per-query differences of sd 0.2: detecting a mean difference of 0.1
    (effect 0.5) with 80% power at the 5% level takes 34 queries; the
    normal approximation says ``(1.96 + 0.8416)**2 / 0.5**2 = 31.4``.

    >>> from skrank.stats import topic_set_size
    >>> topic_set_size(0.1, 0.2)
    34
    >>> topic_set_size(0.1, differences=[0.3, 0.1, -0.1])  # their sd is 0.2
    34
    """
    delta = check_positive_real("delta", delta)
    sd = resolve_sd(sd, differences, metric)
    _check_beta(alpha, beta)
    return _smallest_size(delta / sd, alpha, beta)


@validate_params({"alpha": FRACTION, "beta": FRACTION, "metric": METRIC_OR_NONE})
def minimum_detectable_effect(n_queries, sd=None, *, differences=None, alpha=0.05,
                              beta=0.2, metric=None):
    """The smallest mean difference a paired t-test on ``n_queries`` detects.

    The converse of :func:`topic_set_size`: the mean difference ``delta``
    that a two-sided paired t-test at level ``alpha`` on ``n_queries``
    queries detects with power ``1 - beta``, when the per-query
    differences have standard deviation ``sd`` (Sakai [1]_). Smaller true
    differences are more likely to be missed.

    Parameters
    ----------
    n_queries : int
        The number of queries, at least 2.
    sd : float, default=None
        The standard deviation of the per-query differences. Give ``sd`` or
        ``differences``, not both.
    differences : array-like of shape (n_queries,) or ComparisonResult, default=None
        Per-query differences of a pilot comparison (their standard
        deviation, ``ddof=1``, is used), or the result of
        :func:`skrank.compare`: then the largest standard deviation over
        its pairs of systems for ``metric``, on the queries where every
        system has a value.
    alpha : float, default=0.05
        The significance level of the two-sided test, in (0, 1).
    beta : float, default=0.2
        The accepted probability of missing a true difference (type II
        error), in (0, 1); the power is ``1 - beta``.
    metric : str, default=None
        Which metric of a ComparisonResult passed as ``differences``;
        needed when it holds several.

    Returns
    -------
    delta : float
        The mean difference, in the metric's units, detected with power
        ``1 - beta``.

    Raises
    ------
    ValueError
        When ``n_queries`` is not an integer >= 2, when ``sd``, ``alpha`` or
        ``beta`` is out of range, when not exactly one of ``sd`` and
        ``differences`` is given, or when ``1 - beta`` is not above
        ``alpha``.

    See Also
    --------
    topic_set_size : the number of queries for a given difference.

    Notes
    -----
    Solves ``power(delta) = 1 - beta`` (the power of :func:`topic_set_size`,
    with ``n = n_queries``) for ``delta`` with ``scipy.optimize.brentq``;
    equal to statsmodels' ``TTestPower().solve_power(nobs=n_queries,
    alpha=alpha, power=1 - beta, alternative="two-sided") * sd``. The
    normal approximation is ``(z_{alpha/2} + z_beta) * sd / sqrt(n)``.

    References
    ----------
    .. [1] T. Sakai. Topic set size design. Information Retrieval Journal
       19(3), 256-283, 2016.

    Examples
    --------
    With 100 queries and per-query differences of sd 0.2, a difference of
    about 0.057 is found 80% of the time at the 5% level; the normal
    approximation says ``(1.96 + 0.8416) * 0.2 / 10 = 0.056``.

    >>> from skrank.stats import minimum_detectable_effect
    >>> round(minimum_detectable_effect(100, 0.2), 4)
    0.0566
    """
    if (isinstance(n_queries, (bool, np.bool_)) or not isinstance(n_queries, Integral)
            or n_queries < 2):
        raise ValueError(
            f"`n_queries` must be an integer of at least 2, got {describe(n_queries)}."
        )
    if n_queries > _LARGEST_N:
        raise ValueError(f"`n_queries` must be at most {_LARGEST_N}, got {n_queries}.")
    sd = resolve_sd(sd, differences, metric)
    _check_beta(alpha, beta)
    return float(_smallest_effect(int(n_queries), alpha, beta) * sd)


__all__ = ["minimum_detectable_effect", "topic_set_size"]
