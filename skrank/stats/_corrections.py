"""correct_p_values(): multiple-comparison corrections of a family of p-values.

Holm's step-down and Bonferroni's corrections control the family-wise error
rate (the chance of any false rejection); Benjamini-Hochberg's and
Benjamini-Yekutieli's step-up corrections control the false discovery rate
(the expected share of false rejections among the rejections). Written
here because scipy's ``false_discovery_control`` arrived in scipy 1.11
(skrank's floor is 1.10); the values are those of statsmodels'
``multipletests``. NaN p-values stay NaN and do not count in the family.
"""

import numpy as np

from .._core._params import CORRECTIONS
from .._core._validation import check_option, describe


def correct_p_values(p_values, correction="holm"):
    """Correct a family of p-values for multiple comparisons.

    Parameters
    ----------
    p_values : array-like of shape (n_tests,)
        The p-values of the family, each in [0, 1]; NaN (a test that could
        not be made) stays NaN and is not counted among the tests.
    correction : {"holm", "bonferroni", "bh", "by", None}, default="holm"
        ``"holm"``: Holm's step-down method; ``"bonferroni"``: each p-value
        times the number of tests; both control the family-wise error rate.
        ``"bh"``: Benjamini-Hochberg; ``"by"``: Benjamini-Yekutieli; both
        control the false discovery rate. None: the p-values unchanged.

    Returns
    -------
    corrected : ndarray of shape (n_tests,)
        The corrected p-values, capped at 1, in the input's order.

    See Also
    --------
    compare : the paired tests whose p-values it corrects.

    Notes
    -----
    With the m non-NaN p-values sorted, :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    * Holm: :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1)\\, p_{(j)})`.
    * Bonferroni: :math:`\\tilde p_i = \\min(1, m\\, p_i)`.
    * Benjamini-Hochberg: :math:`\\tilde p_{(i)} = \\min_{j \\ge i} \\min(1, m\\, p_{(j)} / j)`.
    * Benjamini-Yekutieli: the same times :math:`c_m = \\sum_{j=1}^m 1/j`,
      valid under any dependence between the tests (Benjamini-Hochberg
      assumes independence or positive dependence).

    Tied p-values get the same corrected value. The values equal those of
    statsmodels' ``multipletests`` with ``method="holm"``,
    ``"bonferroni"``, ``"fdr_bh"`` and ``"fdr_by"`` (on the non-NaN values:
    statsmodels does not skip NaN).

    References
    ----------
    .. [1] S. Holm. A simple sequentially rejective multiple test procedure.
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] Y. Benjamini and Y. Hochberg. Controlling the false discovery rate:
       a practical and powerful approach to multiple testing. JRSS B 57(1),
       1995.
    .. [3] Y. Benjamini and D. Yekutieli. The control of the false discovery
       rate in multiple testing under dependency. Annals of Statistics 29(4),
       2001.

    Examples
    --------
    >>> from skrank.stats import correct_p_values
    >>> p = [0.01, 0.04, 0.03, float("nan")]          # m = 3 tests
    >>> correct_p_values(p, "holm")   # sorted: 3 * 0.01, 2 * 0.03, max(1 * 0.04, 0.06)
    array([0.03, 0.06, 0.06,  nan])
    >>> correct_p_values(p, "bh")     # sorted: 3 * 0.01 / 1, min(3 * 0.03 / 2, 0.04), 3 * 0.04 / 3
    array([0.03, 0.04, 0.04,  nan])
    """
    check_option("correction", correction, CORRECTIONS)
    p = check_p_values(p_values)
    if correction is None:
        return p.copy()
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    m = finite.shape[0]
    if m == 0:
        return out
    if correction == "bonferroni":
        out[finite] = np.minimum(1.0, m * p[finite])
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    ranked = p[order]
    i = np.arange(1, m + 1)
    if correction == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - i + 1) * ranked))
    else:
        scale = m / i
        if correction == "by":
            scale = scale * np.sum(1.0 / i)
        adjusted = np.minimum.accumulate(np.minimum(1.0, scale * ranked)[::-1])[::-1]
    out[order] = adjusted
    return out


def check_p_values(p_values):
    """``p_values`` as a 1-D float array of values in [0, 1] or NaN."""
    try:
        p = np.asarray(p_values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"`p_values` must be an array-like of numbers, got {describe(p_values)}."
        ) from None
    if p.ndim != 1:
        raise ValueError(
            f"`p_values` must be one-dimensional, got an array of shape {p.shape}."
        )
    bad = ~np.isnan(p) & ~((p >= 0) & (p <= 1))
    if bad.any():
        raise ValueError(
            "`p_values` must lie in [0, 1] (or be NaN), got "
            f"{p[np.flatnonzero(bad)[0]]!r}."
        )
    return p
