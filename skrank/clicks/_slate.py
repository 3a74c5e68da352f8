"""Off-policy estimates of a slate policy's value from a stochastic logger's slates.

One row per slot of a logged slate: the reward seen there, the logger's
(behaviour policy's) propensity and the new (evaluation) policy's propensity.
Three importance weights, as in Open Bandit Pipeline (obp) and McInerney et
al. (2020): of the whole slate (``"standard"``), of the item at the slot
(``"independent"``) and of the items at slots 1..k (``"reward_interaction"``).
The self-normalised forms divide each weight by its mean, over all rows or
over the rows of its slot, exactly as obp's ``SelfNormalized...`` estimators.

The confidence interval is a bootstrap over slates that, unlike obp's
(zr-obp#187), computes the self-normalising means again in every resample.
Every resampled estimate is a function of a few per-slate sums (of ``r * w``,
of ``w`` and of row counts, per slot where the denominators are per slot),
so a resample costs one weighted sum of those columns, done by the bootstrap
of :mod:`skrank.stats`.
"""

import math
from numbers import Integral
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_random_state

from .._core._factorize import factorize
from .._core._layout import segment_ids
from .._core._validation import (
    describe,
    to_array,
    check_bool,
    check_fraction,
    check_numeric,
    check_option,
    check_same_length,
    first_position,
)
from .._core._warnings import warn
from .._core._resample import stratified_resample_sums

ESTIMATORS = ("standard", "independent", "reward_interaction")

# per-slate sums kept in memory at once by the bootstrap (columns x slates)
_BOOTSTRAP_CELLS = 1 << 24


class ConfidenceInterval(NamedTuple):
    """A confidence interval: ``(low, high)``."""

    low: float
    high: float


class SlateEstimateResult:
    """The estimate of :func:`slate_estimate`, its per-slate values and its interval.

    Attributes
    ----------
    estimate : float
        The estimated value of the evaluation policy: the expected sum of
        rewards over the slots of a slate. ``float(result)`` gives it too.
    slate_id : ndarray of shape (n_slates,)
        The id of each slate, in ascending order of id (for a pandas
        Categorical, in category order).
    value : ndarray of shape (n_slates,)
        Each slate's term: the sum over its rows of ``reward * w``, ``w`` the
        (self-normalised) weight. Their mean is ``estimate``.
    estimator : str
        ``"standard"``, ``"independent"`` or ``"reward_interaction"``.
    self_normalized : bool
    n_slates, n_rows : int
        Slates and rows (slots shown) in the log.

    See Also
    --------
    slate_estimate : makes this result.
    """

    def __init__(self, *, estimate, slate_id, value, estimator, self_normalized,
                 n_rows, parts):
        self.estimate = estimate
        self.slate_id = slate_id
        self.value = value
        self.estimator = estimator
        self.self_normalized = self_normalized
        self.n_slates = int(slate_id.shape[0])
        self.n_rows = int(n_rows)
        # what the bootstrap needs: (slate code, group code, reward * w, w) per
        # row, w unnormalised; a group is a slot (per-slot denominators) or all
        self._parts = parts

    def __float__(self):
        return float(self.estimate)

    def __repr__(self):
        return (
            f"SlateEstimateResult(estimator={self.estimator!r}, "
            f"self_normalized={self.self_normalized}, estimate={self.estimate:.6g}, "
            f"n_slates={self.n_slates}, n_rows={self.n_rows})"
        )

    def interval(self, confidence_level=0.95, *, n_resamples=1000, random_state=None):
        """A percentile bootstrap interval over slates.

        Each resample draws ``n_slates`` slates with replacement, keeping all
        rows of a drawn slate, and computes the estimate again from the
        drawn rows only: for a self-normalised estimator, the mean weight
        (over all rows, or over the rows of each slot) is that of the
        resample, not of the full log. A resample in which a slot's rows
        all have weight 0 has no self-normalised estimate; such resamples
        are left out, with a warning saying how many.

        Parameters
        ----------
        confidence_level : float, default=0.95
            In (0, 1).
        n_resamples : int, default=1000
            Bootstrap resamples.
        random_state : int, RandomState instance or None, default=None
            Seeds the resamples; an int makes the interval reproducible.

        Returns
        -------
        interval : ConfidenceInterval
            ``(low, high)``, the ``(1 - confidence_level) / 2`` and
            ``(1 + confidence_level) / 2`` quantiles of the resampled
            estimates (numpy's default linear interpolation). ``(nan, nan)``
            when no resample has an estimate.

        Examples
        --------
        >>> from skrank.clicks import slate_estimate
        >>> result = slate_estimate(
        ...     [1, 0, 0, 1, 1, 0], slate_id=[1, 1, 2, 2, 3, 3], slot=[1, 2] * 3,
        ...     behavior_propensity=[0.5] * 6, evaluation_propensity=[0.5] * 6,
        ...     estimator="independent")
        >>> low, high = result.interval(random_state=0)
        >>> bool(low <= result.estimate <= high)
        True
        """
        level = check_fraction("confidence_level", confidence_level)
        if (isinstance(n_resamples, (bool, np.bool_))
                or not isinstance(n_resamples, Integral) or n_resamples < 1):
            raise ValueError(
                "`n_resamples` must be a positive integer, got "
                f"{describe(n_resamples)}."
            )
        seed = check_random_state(random_state).randint(0, 2**31 - 1, size=4)
        estimates = _bootstrap_estimates(
            self._parts, self.n_slates, self.self_normalized, int(n_resamples), seed
        )
        defined = ~np.isnan(estimates)
        n_undefined = int(estimates.shape[0] - defined.sum())
        if n_undefined:
            warn(
                f"{n_undefined} of {estimates.shape[0]} resamples have a slot whose "
                "rows all have evaluation propensity 0, so no self-normalised "
                "estimate; the interval is taken over the others.",
                UndefinedMetricWarning,
            )
        if not defined.any():
            return ConfidenceInterval(math.nan, math.nan)
        low, high = np.percentile(
            estimates[defined], [50 * (1 - level), 50 * (1 + level)]
        )
        return ConfidenceInterval(float(low), float(high))


def slate_estimate(
    reward,
    *,
    slate_id,
    slot,
    behavior_propensity,
    evaluation_propensity,
    estimator="standard",
    self_normalized=False,
):
    """Estimate a slate policy's value from slates logged by a stochastic policy.

    The inverse propensity scoring (IPS) estimators of slate (ranking)
    policies of Open Bandit Pipeline: standard, independent and
    reward-interaction IPS, and their self-normalised forms. The result
    holds the estimate, each slate's term, and a bootstrap interval over
    slates that computes the self-normalising denominators again in each
    resample.

    Parameters
    ----------
    reward : array-like of shape (n_rows,)
        The reward observed at each row, one row per slot of a logged slate
        (a click: 0 or 1; any finite number is accepted).
    slate_id : array-like of shape (n_rows,)
        The slate (one logged impression) each row belongs to; any hashable
        ids. Rows need not be sorted or contiguous.
    slot : array-like of int of shape (n_rows,)
        The row's slot in its slate, 1 for the top. Each slate has at most
        one row per slot; slates may have different lengths.
    behavior_propensity : array-like of shape (n_rows,)
        The logging policy's probability, in (0, 1], of what the row's
        weight is about (see ``estimator``).
    evaluation_propensity : array-like of shape (n_rows,)
        The evaluation policy's probability of the same, in [0, 1]. 0 is
        allowed: the new policy would never show it (a deterministic policy
        has propensities 0 and 1).
    estimator : {"standard", "independent", "reward_interaction"}, default="standard"
        What the propensities are the probability of:

        - ``"standard"``: the whole slate (the same value on every row of a
          slate); no assumption on how users interact with the slate;
        - ``"independent"``: the item at that slot; unbiased when the reward
          at a slot depends only on the item there;
        - ``"reward_interaction"``: the items at slots 1..k for the row at
          slot k (non-increasing down a slate); unbiased under a cascade,
          where the reward at slot k depends on the items above it.
    self_normalized : bool, default=False
        Divide each weight by its mean: over all rows for ``"standard"``,
        over the rows of its slot for the other two (as obp's
        ``SelfNormalized...`` estimators). Biased, but consistent and of
        smaller variance.

    Returns
    -------
    result : SlateEstimateResult
        ``result.estimate`` (float), ``result.slate_id`` and
        ``result.value`` (each slate's term, in ascending order of id), and
        ``result.interval(confidence_level=0.95, n_resamples=1000,
        random_state=None)``.

    Raises
    ------
    ValueError
        Naming the argument and the first bad row: inputs of different
        lengths or empty; a propensity that is NaN, above 1, or not above 0
        (below 0 for ``evaluation_propensity``); a slot that is not a
        positive integer; two rows of one slate at one slot; with
        ``"standard"``, propensities that differ within a slate; with
        ``"reward_interaction"``, propensities that rise from one slot to a
        lower one.

    See Also
    --------
    SlateEstimateResult : the result.

    Notes
    -----
    With ``n`` slates, slate ``i`` showing rows (slots) ``k`` with reward
    :math:`r_{ik}`, and :math:`w_{ik} = \\pi_e / \\pi_b` the ratio of the two
    propensities of the row,

    .. math::

        \\hat V = \\frac{1}{n} \\sum_{i=1}^{n} \\sum_{k} r_{ik}\\, w_{ik}.

    Self-normalised, :math:`w_{ik}` becomes :math:`w_{ik} / \\bar w`, with
    :math:`\\bar w` the mean weight over all rows (``"standard"``) or over
    the rows at slot ``k`` (the other two). Per slot this is
    :math:`\\hat V = \\sum_k (n_k / n) \\sum_i r_{ik} w_{ik} / \\sum_i w_{ik}`,
    :math:`n_k` the slates with a row at slot ``k``.

    The estimate equals that of obp 0.5.7's ``SlateStandardIPS``,
    ``SlateIndependentIPS``, ``SlateRewardInteractionIPS`` and their
    ``SelfNormalized...`` versions given the same rows (obp's ``position``
    is ``slot - 1``). The interval does not: obp resamples the per-slate
    terms with the full log's denominators fixed, which ignores the
    denominators' own variation (zr-obp#187); here they are computed again
    from each resample. A self-normalised estimate whose slot (or log) has
    only weights 0 is undefined: ``nan`` with an ``UndefinedMetricWarning``.

    References
    ----------
    .. [1] J. McInerney, B. Brost, P. Chandar, R. Mehrotra and B. Carterette.
       Counterfactual evaluation of slate recommendations with sequential
       reward interactions. KDD 2020.
    .. [2] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and
       Z. Wen. Offline evaluation of ranking policies with click models.
       KDD 2018.
    .. [3] A. Swaminathan and T. Joachims. The self-normalized estimator for
       counterfactual learning. NeurIPS 2015.
    .. [4] Y. Saito et al. Open Bandit Dataset and Pipeline. NeurIPS 2021
       Datasets and Benchmarks (``obp.ope.SlateStandardIPS`` and friends).

    Examples
    --------
    Two slates of two slots; the propensities are of the item at each slot:

    >>> from skrank.clicks import slate_estimate
    >>> result = slate_estimate(
    ...     [1, 0, 1, 1], slate_id=["a", "a", "b", "b"], slot=[1, 2, 1, 2],
    ...     behavior_propensity=[0.5, 0.5, 0.25, 0.5],
    ...     evaluation_propensity=[0.5, 1.0, 0.5, 0.25],
    ...     estimator="independent")
    >>> result.value                    # a: 1 * 1 + 0 * 2; b: 1 * 2 + 1 * 0.5
    array([1. , 2.5])
    >>> result.estimate                 # (1 + 2.5) / 2
    1.75

    Self-normalised, each weight is divided by its slot's mean weight
    (slot 1: (1 + 2) / 2 = 1.5; slot 2: (2 + 0.5) / 2 = 1.25):

    >>> slate_estimate(
    ...     [1, 0, 1, 1], slate_id=["a", "a", "b", "b"], slot=[1, 2, 1, 2],
    ...     behavior_propensity=[0.5, 0.5, 0.25, 0.5],
    ...     evaluation_propensity=[0.5, 1.0, 0.5, 0.25],
    ...     estimator="independent", self_normalized=True).estimate
    1.2
    """
    estimator = check_option("estimator", estimator, ESTIMATORS)
    self_normalized = check_bool("self_normalized", self_normalized)
    reward = check_numeric("reward", reward, ndim=(1,))
    n_rows = reward.shape[0]
    behavior = _check_propensity("behavior_propensity", behavior_propensity,
                                 zero_allowed=False)
    evaluation = _check_propensity("evaluation_propensity", evaluation_propensity,
                                   zero_allowed=True)
    slots = _check_slot(slot)
    check_same_length(reward=reward, slot=slots, behavior_propensity=behavior,
                      evaluation_propensity=evaluation)
    keys, labels = factorize(slate_id, n_rows, name="slate_id")
    log = _SortedLog(keys, labels, slots)
    log.check_one_row_per_slot()
    if estimator == "standard":
        log.check_constant_in_slate("behavior_propensity", behavior)
        log.check_constant_in_slate("evaluation_propensity", evaluation)
    elif estimator == "reward_interaction":
        log.check_non_increasing("behavior_propensity", behavior)
        log.check_non_increasing("evaluation_propensity", evaluation)
    codes, labels = log.codes, log.labels

    weight = evaluation / behavior
    weighted_reward = reward * weight
    n_slates = labels.shape[0]
    if self_normalized and estimator != "standard":
        group = _slot_groups(slots)
    else:
        group = np.zeros(n_rows, dtype=np.int64)
    if self_normalized:
        n_groups = int(group.max()) + 1
        rows = np.bincount(group, minlength=n_groups)
        total = np.bincount(group, weights=weight, minlength=n_groups)
        if not (total > 0).all():
            warn(_undefined_message(estimator), UndefinedMetricWarning)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_weight = total / rows
            terms = weighted_reward / mean_weight[group]
    else:
        terms = weighted_reward
    value = np.bincount(codes, weights=terms, minlength=n_slates)
    return SlateEstimateResult(
        estimate=float(value.mean()), slate_id=labels, value=value,
        estimator=estimator, self_normalized=self_normalized, n_rows=n_rows,
        parts=(codes, group, weighted_reward, weight),
    )


def _undefined_message(estimator):
    where = "every row" if estimator == "standard" else "every row of some slot"
    return (
        f"The evaluation policy's propensity is 0 on {where}: the self-normalised "
        "estimate divides by the mean weight there, 0, and is undefined (nan)."
    )


# --- the bootstrap -------------------------------------------------------------

def _bootstrap_estimates(parts, n_slates, self_normalized, n_resamples, seed):
    """The estimate of each of ``n_resamples`` resamples of the slates (nan: undefined).

    Plain IPS: the mean of the drawn slates' sums of ``reward * w``. Self-
    normalised, per group ``g`` (one group, or one per slot): with the sums
    over the drawn slates (a slate drawn twice counting twice) of
    ``reward * w`` (A), ``w`` (B) and rows (N), the estimate is
    ``sum_g (N_g / n_slates) * A_g / B_g``, a group with no drawn row
    adding 0. The columns go through the bootstrap a few groups at a time,
    each time with a generator from the same ``seed``: the same draws for
    every group, a bounded amount of memory.
    """
    codes, group, weighted_reward, weight = parts
    if not self_normalized:
        per_slate = np.bincount(codes, weights=weighted_reward, minlength=n_slates)
        rng = np.random.default_rng(seed)
        sums = stratified_resample_sums(per_slate[:, None], [n_slates], n_resamples,
                                        rng)
        return sums[:, 0, 0] / n_slates
    n_groups = int(group.max()) + 1
    step = max(1, _BOOTSTRAP_CELLS // (3 * n_slates))
    estimates = np.zeros(n_resamples)
    for first in range(0, n_groups, step):
        last = min(n_groups, first + step)
        columns = _group_columns(codes, group, weighted_reward, weight, n_slates,
                                 first, last)
        rng = np.random.default_rng(seed)
        sums = stratified_resample_sums(columns, [n_slates], n_resamples, rng)[:, 0, :]
        estimates += _resampled_self_normalized(sums.reshape(n_resamples, 3, -1),
                                               n_slates)
    return estimates


def _group_columns(codes, group, weighted_reward, weight, n_slates, first, last):
    """Per-slate sums of ``reward * w``, ``w`` and rows of groups ``first:last``.

    Shape ``(n_slates, 3 * (last - first))``: the A columns of the groups,
    then their B columns, then their N columns.
    """
    width = last - first
    keep = (group >= first) & (group < last)
    cell = codes[keep] * width + (group[keep] - first)
    size = n_slates * width
    columns = [
        np.bincount(cell, weights=values, minlength=size).reshape(n_slates, width)
        for values in (weighted_reward[keep], weight[keep], None)
    ]
    return np.concatenate(columns, axis=1)


def _resampled_self_normalized(sums, n_slates):
    """The self-normalised estimate from summed columns ``sums`` (..., 3, n_groups).

    ``sums[..., 0, g]``, ``[..., 1, g]``, ``[..., 2, g]``: the sums of
    ``reward * w``, ``w`` and rows of group ``g`` over a resample's slates.
    Each group adds ``(N / n_slates) * A / B``; 0 when it has no row in the
    resample, nan when its rows all have weight 0.
    """
    a, b, n = sums[..., 0, :], sums[..., 1, :], sums[..., 2, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(n > 0, (n / n_slates) * a / b, 0.0)
    return term.sum(axis=-1)


# --- input checks ----------------------------------------------------------------

def _check_propensity(name, values, *, zero_allowed):
    array = check_numeric(name, values, ndim=(1,))
    low_bad = array < 0 if zero_allowed else array <= 0
    bad = low_bad | (array > 1)
    if bad.any():
        where = first_position(bad)
        shown = array[bad][0]
        interval = "[0, 1]" if zero_allowed else "(0, 1]"
        why = (
            " A logging policy's propensity of 0 would mean the row could not "
            "have been logged; its weight would be infinite."
            if not zero_allowed and shown <= 0 else ""
        )
        raise ValueError(
            f"`{name}` must be a probability in {interval}, got {shown:g} at "
            f"{where}.{why}"
        )
    return array


def _check_slot(slot):
    if to_array("slot", slot).dtype.kind == "b":
        raise ValueError("`slot` must hold positive integers (1 for the top of a "
                         "slate), got booleans.")
    array = check_numeric("slot", slot, ndim=(1,))
    bad = (array < 1) | (array != np.floor(array)) | (array > 2**53)
    if bad.any():
        hint = ""
        if array.min() == 0 and not (array != np.floor(array)).any():
            hint = (" Slots count from 1, as ranks do; for slots counted from 0 "
                    "(obp's `position`), pass `slot=position + 1`.")
        raise ValueError(
            "`slot` must hold positive integers (1 for the top of a slate), got "
            f"{array[bad][0]:g} at {first_position(bad)}.{hint}"
        )
    return array.astype(np.int64)


def _slot_groups(slots):
    """Codes 0..n_distinct_slots-1 of the slots, in slot order."""
    largest = int(slots.max())
    if largest > 4 * slots.shape[0]:  # sparse, large slot numbers
        _, group = np.unique(slots, return_inverse=True)
        return group.reshape(-1)
    present = np.bincount(slots, minlength=largest + 1) > 0
    return (np.cumsum(present) - 1)[slots]


class _SortedLog:
    """The rows sorted by slate, then slot (one stable lexsort); checks on that order.

    ``codes`` numbers the slates 0..n_slates-1 in ascending order of key;
    ``labels[code]`` is the slate's id. A check names the first bad row in
    input order (rows count from 0).
    """

    def __init__(self, keys, labels, slots):
        self.order = order = np.lexsort((slots, keys))
        self.slots = slots
        sorted_keys = keys[order]
        starts = np.empty(order.shape[0], dtype=bool)
        starts[:1] = True
        starts[1:] = sorted_keys[1:] != sorted_keys[:-1]
        #: slate codes of the sorted rows, and whether a row follows one of its slate
        self.sorted_codes = segment_ids(np.flatnonzero(starts), order.shape[0])
        self.same_slate = ~starts[1:]
        self.codes = np.empty(order.shape[0], dtype=np.int64)
        self.codes[order] = self.sorted_codes
        first_keys = sorted_keys[starts]
        self.labels = first_keys if labels is None else labels[first_keys]

    def _first_flagged(self, flag):
        """The input row of the first flagged sorted row (by row number), or None.

        ``flag[j]`` marks sorted row ``j + 1``, compared with sorted row ``j``.
        """
        rows = self.order[1:][flag]
        return None if rows.shape[0] == 0 else int(rows.min())

    def _slate(self, row):
        value = self.labels[self.codes[row]]
        return describe(value.item() if isinstance(value, np.generic) else value)

    def _first_row_of_slate(self, row):
        return int(self.order[np.flatnonzero(self.sorted_codes == self.codes[row])[0]])

    def check_one_row_per_slot(self):
        s = self.slots[self.order]
        row = self._first_flagged(self.same_slate & (s[1:] == s[:-1]))
        if row is None:
            return
        slate_rows = self.order[self.sorted_codes == self.codes[row]]
        first = int(slate_rows[self.slots[slate_rows] == self.slots[row]].min())
        raise ValueError(
            f"Two rows of slate {self._slate(row)} are at `slot` {self.slots[row]}: "
            f"rows {first} and {row}. Each slate has one row per slot."
        )

    def check_constant_in_slate(self, name, values):
        v = values[self.order]
        row = self._first_flagged(self.same_slate & (v[1:] != v[:-1]))
        if row is None:
            return
        first = self._first_row_of_slate(row)
        raise ValueError(
            f"estimator='standard' takes the propensity of the whole slate, the "
            f"same on each of its rows, but `{name}` of slate {self._slate(row)} is "
            f"{values[first]:g} at row {first} and {values[row]:g} at row {row}. "
            "For the propensity of the item at each slot, use "
            "estimator='independent'."
        )

    def check_non_increasing(self, name, values):
        v = values[self.order]
        row = self._first_flagged(self.same_slate & (v[1:] > v[:-1]))
        if row is None:
            return
        above = int(self.order[np.flatnonzero(self.order == row)[0] - 1])
        slots = self.slots
        raise ValueError(
            f"estimator='reward_interaction' takes the propensity of the items at "
            f"slots 1..k, which cannot rise down a slate, but `{name}` of slate "
            f"{self._slate(row)} is {values[above]:g} at slot {slots[above]} (row "
            f"{above}) and {values[row]:g} at slot {slots[row]} (row {row})."
        )
