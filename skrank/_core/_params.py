"""The machinery of option checking: rules, the checking decorator, shared docs.

Each public function declares its own options beside its definition,
``@validate_params({option: Rule})`` (as scikit-learn's ``validate_params``):
a :class:`Rule` is the check (from ``_validation``) and values the check
must refuse. Before the body runs, each declared option is checked and
replaced by its checked form (``k=2**70`` becomes ``2**62``, ``beta=2``
becomes ``2.0``). Option groups many functions share are named here
(:data:`CUTOFF_OPTIONS`, ...); no function is. ``tests/core/test_params.py``
feeds every public function the refused values of each of its options, and
checks that no option of a public signature is left undeclared.
"""

import functools
import inspect
import re
import textwrap
from functools import partial
from numbers import Real

import numpy as np
from typing import Callable, NamedTuple

from ._presets import check_compat
from ._validation import (
    check_bool,
    check_fraction,
    check_option,
    check_positive_int,
    check_positive_real,
)

# the choices of the option-valued parameters, one definition each
TIES = ("average", "input", "pessimistic", "optimistic")
NO_RELEVANT = ("skip", "zero", "one", "error")
AGGREGATE = ("mean", None)
GAINS = ("exponential", "linear")
RBP_GAINS = ("binary", "linear", "scaled")
NORMALIZE = ("relevant", "min", "retrieved")
WEIGHTING = ("samples", "uniform")
CORRELATION_METHODS = ("spearman", "kendall", "pearson")
CORRECTIONS = ("holm", "bonferroni", "bh", "by", None)
BOOTSTRAP_METHODS = ("percentile", "basic", "BCa")
DISCOUNTS = ("log2", "position")
TIE_BLOCKS = ("expected", "threshold")
PRECISION_NORMALIZE = ("k", "min")
ONE_CLASS = ("skip", "zero")
SCORE_DTYPES = (None, "float32")
RETRIEVED = ("all", "positive")


class Rule(NamedTuple):
    """How one option is checked, and values that check must refuse."""

    check: Callable
    bad: tuple


def choice(*allowed):
    """A rule for an option taking one of ``allowed``."""
    return Rule(partial(_check_choice, allowed=allowed), ("no-such-option", 1.5))


def _check_choice(name, value, *, allowed):
    return check_option(name, value, allowed)


CUTOFF = Rule(check_positive_int, (0, -3, 2.5, "10", True))
COUNT = Rule(partial(check_positive_int, allow_none=False), (0, None, 1.5, "10"))
POSITIVE = Rule(check_positive_real, (0, -1.0, float("nan"), float("inf"), "2", True))
FRACTION = Rule(check_fraction, (0, 1, 1.5, float("nan"), "0.5"))
FRACTION_TO_ONE = Rule(partial(check_fraction, closed_high=True), (0, 1.5, "0.5"))
FLAG = Rule(check_bool, (1, "yes", None))


def _check_real(name, value):
    """A finite real number, of either sign (a relevance level)."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, Real)
        or not np.isfinite(value)
    ):
        raise ValueError(f"`{name}` must be a finite number, got {value!r}.")
    return float(value)


REAL = Rule(_check_real, ("1", float("nan"), float("inf"), True, None))


def _check_fraction_or_none(name, value):
    """A number in (0, 1), or None (a confidence level that may be switched off)."""
    return None if value is None else check_fraction(name, value)


FRACTION_OR_NONE = Rule(_check_fraction_or_none, (0, 1, 1.5, float("nan"), "0.5"))
COMPAT = Rule(check_compat, ("no-such-peer", 1.5, "LightGBM"))


def _check_name(name, value):
    if not isinstance(value, str):
        raise ValueError(f"`{name}` must be a metric name (a string), got {value!r}.")
    return value


def _check_side(name, value):
    """A side of explain_difference: a preset name or a dict of options."""
    if isinstance(value, dict):
        return value
    if value is None:
        raise ValueError(f"`{name}` must be a preset name or a dict of options, got None.")
    return check_compat(name, value)


def _check_max_grade(name, value):
    return None if value is None else check_positive_real(name, value)


MAX_GRADE = Rule(_check_max_grade, (0, -1.0, float("nan"), "2", True))
METRIC_NAME = Rule(_check_name, (1.5, None))
SIDE = Rule(_check_side, ("no-such-peer", 1.5, None))

# option groups that many public functions share (each function declares
# its own options, beside its definition, with @validate_params)
#: the preset and the score conventions, taken by every ranking metric
CONVENTION_OPTIONS = {
    "compat": COMPAT,
    "score_dtype": choice(*SCORE_DTYPES),
    "retrieved": choice(*RETRIEVED),
}
#: the options of a ranking metric without a cutoff
RANKING_OPTIONS = {
    "ties": choice(*TIES),
    "no_relevant": choice(*NO_RELEVANT),
    "aggregate": choice(*AGGREGATE),
    **CONVENTION_OPTIONS,
}
#: the options of a ranking metric with a cutoff ``k``
CUTOFF_OPTIONS = {"k": CUTOFF, **RANKING_OPTIONS}


#: the documentation of the parameters that most metric functions share,
#: one entry each (numpydoc, unindented). :func:`validate_params` writes it
#: into a docstring where a line names the parameters in braces, such as
#: ``{y_true, y_score, query_id}``, at that line's indentation (which
#: Python 3.13 strips from docstrings: the line is found by its braces)
SHARED_DOCS = {
    "y_true": """\
y_true : array-like of shape (n_rows,) or (n_queries, n_items)
    Relevance of each row: binary (0/1) or graded (non-negative). A row
    is relevant when ``y_true > 0``.
""",
    "y_score": """\
y_score : array-like of the same shape as ``y_true``
    Score of each row; within a query, higher scores rank first.
""",
    "k": """\
k : int, default=None
    Cutoff: only the top ``k`` rows of each query count. None means the
    whole list of each query.
""",
    "query_id": """\
query_id : array-like of shape (n_rows,), default=None
    Query of each row: ints, strings or any hashable ids, rows in any
    order; a list, numpy array, or pandas or polars Series. None scores
    all rows as ONE ranked list (1-D input, however many rows), or each
    row as one ranking (2-D input, as in scikit-learn's ``ndcg_score``).
""",
    "sample_weight": """\
sample_weight : array-like, default=None
    One weight per row (1-D input) or per ranking (2-D input). A query
    weighs the mean of its rows' weights in the mean over queries.
""",
    "aggregate": """\
aggregate : {"mean", None}, default="mean"
    ``"mean"``: the weighted mean over queries, a float. None: a
    :class:`QueryValues` with one value per query.
""",
    "ties": """\
ties : {"average", "input", "pessimistic", "optimistic"}, default="average"
    ``"average"``: the exact expected value over all orders of rows with
    equal scores. ``"input"``: rows with equal scores keep their input
    order. ``"pessimistic"`` (``"optimistic"``): among equal scores the
    lower (higher) ``y_true`` ranks first, CatBoost's rule.
""",
    "no_relevant": """\
no_relevant : {"skip", "zero", "one", "error"}, default="skip"
    What a query with no relevant row scores: left out of the mean, 0,
    1, or a ``ValueError``.
""",
    "compat": """\
compat : str, default=None
    A peer's conventions: ``"lightgbm"``, ``"xgboost"``, ``"catboost"``,
    ``"sklearn"``, ``"ranx"``, ``"torchmetrics"``, ``"trec_eval"`` or
    ``"spark"`` (see :func:`describe_convention`). The preset's options
    become this call's defaults; options given explicitly win. A
    ``ValueError`` lists the peer's metrics when it lacks this one. The
    preset also reads ``y_true`` and ``sample_weight`` as the peer does,
    and input the peer raises on is a ``ValueError`` naming the rule.
""",
    "score_dtype": """\
score_dtype : {None, "float32"}, default=None
    ``"float32"`` rounds the scores to float32 first, so scores equal in
    float32 tie (as in XGBoost and torchmetrics).
""",
    "retrieved": """\
retrieved : {"all", "positive"}, default="all"
    ``"positive"``: a row scored <= 0 is not retrieved, so it is never a
    hit but still counts among the relevant rows (torchmetrics' AP, MRR,
    precision and recall).
""",
}

_SHARED_MARK = re.compile(r"^(?P<indent>[ ]*)\{(?P<names>\w+(?:, \w+)*)\}\n", re.MULTILINE)


def write_shared_docs(func):
    """Expand the ``{name, ...}`` lines of ``func``'s docstring from :data:`SHARED_DOCS`.

    A name without shared documentation, or one that is not a parameter of
    ``func``, is a TypeError when the module is imported.
    """
    if not func.__doc__ or "{" not in func.__doc__:
        return
    parameters = inspect.signature(func).parameters

    def expand(match):
        names = match["names"].split(", ")
        unknown = [n for n in names if n not in SHARED_DOCS or n not in parameters]
        if unknown:
            raise TypeError(
                f"{func.__name__}: its docstring asks for the shared documentation of "
                f"{unknown}, which {'it does not take or ' if parameters else ''}has none"
            )
        return "".join(textwrap.indent(SHARED_DOCS[n], match["indent"]) for n in names)

    func.__doc__ = _SHARED_MARK.sub(expand, func.__doc__)


def validate_params(rules):
    """Declare a public function's options: ``{option: Rule}``, checked on every call.

    Used as ``@validate_params({"k": CUTOFF, ...})`` right above the
    function (as scikit-learn's ``validate_params``). The checked values
    replace the given ones; options left at their defaults are not checked
    (the defaults are valid). The wrapper keeps ``func``'s name, docstring
    and signature (``__wrapped__``), and its rules as ``parameter_rules``.
    The docstring's ``{name, ...}`` lines become the shared documentation of
    those parameters (:func:`write_shared_docs`). An option that is not a
    keyword-only parameter of the function is a TypeError at import.
    """
    if callable(rules):  # the bare @check_params of the former table
        raise TypeError(
            f"{rules.__name__}: declare its options where it is defined, "
            "@validate_params({option: Rule, ...}); there is no table of functions"
        )
    return partial(_validated, rules=dict(rules))


def _validated(func, *, rules):
    write_shared_docs(func)
    parameters = inspect.signature(func).parameters
    loose = [
        name for name in rules
        if name not in parameters
        or parameters[name].kind is not inspect.Parameter.KEYWORD_ONLY
    ]
    if loose:
        raise TypeError(
            f"{func.__name__}: declared options {loose} are not keyword-only "
            "parameters of the function"
        )

    @functools.wraps(func)
    def checked(*args, **kwargs):
        for name in rules.keys() & kwargs.keys():
            kwargs[name] = rules[name].check(name, kwargs[name])
        return func(*args, **kwargs)

    checked.parameter_rules = rules
    return checked


#: the former name of :func:`validate_params` (``@check_params(rules)``)
check_params = validate_params
