"""Declared options: every public function refuses its rules' bad values.

In the spirit of scikit-learn's ``test_public_functions.py``: each public
function declares its options beside its definition
(``@validate_params({...})``), and the checked function keeps them as
``parameter_rules``; this module gathers them from the public names.
"""

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

import skrank
from skrank.metrics._registry import METRICS

Y = np.array([1, 0, 1, 0, 0, 1])
S = np.array([0.9, 0.8, 0.3, 0.5, 0.2, 0.1])
Q = np.array([1, 1, 1, 2, 2, 2])

# every public function that declares its options -> {option: Rule}
PARAMETERS = {
    name: getattr(skrank, name).parameter_rules for name in skrank.__all__
    if hasattr(getattr(skrank, name), "parameter_rules")
}

def _fitted_search():
    """A small fitted search over two candidates, folds keeping queries whole."""
    from sklearn.model_selection import GridSearchCV, GroupKFold

    import sklearn

    search = GridSearchCV(LinearRegression(), {"fit_intercept": [True, False]},
                          scoring=skrank.get_scorer("ndcg"), cv=GroupKFold(2),
                          refit=False)
    with sklearn.config_context(enable_metadata_routing=True):
        return search.fit(S[:, None], Y, query_id=Q, groups=Q)


# a valid call of each function, to which one bad option is added
CALLS = {name: ((Y, S), {"query_id": Q}) for name in PARAMETERS}
CALLS.update({
    "set_fbeta_score": ((Y, (S > 0.4).astype(int)), {"query_id": Q}),
    "weighted_average_precision_score": (
        (Y, S), {"query_id": Q, "rank_weights": np.ones(6)}),
    "rank_decay_weights": ((S,), {"query_id": Q}),
    "compare": ((Y, {"a": S, "b": S[::-1]}), {"query_id": Q, "n_resamples": 20}),
    "evaluate_by": ((Y, S), {"query_id": Q, "by": Q, "n_resamples": 20}),
    "load_digits_retrieval": ((), {"n_queries": 2, "n_candidates": 5}),
    "group_exposure": ((S, ["a", "b", "a", "b", "b", "a"]), {"query_id": Q}),
    "awrf_score": ((S, ["a", "b", "a", "b", "b", "a"]),
                   {"query_id": Q, "target": {"a": 0.5, "b": 0.5}}),
    "permutation_importance": (
        (LinearRegression().fit(S[:, None], Y), S[:, None], Y),
        {"query_id": Q, "scoring": "ndcg", "n_repeats": 2},
    ),
    "evaluate_run": (({"1": {"a": 1}}, {"1": {"a": 1.0}}), {"metrics": ["map"]}),
    "get_scorer": (("ndcg@10",), {}),
    "topic_set_size": ((0.1, 0.2), {}),
    "cross_val_per_query": (
        (LinearRegression(), S[:, None], Y), {"query_id": Q, "cv": 2}),
    "compare_candidates": (
        (_fitted_search(), S[:, None], Y), {"query_id": Q, "n_resamples": 20}),
    "minimum_detectable_effect": ((30, 0.2), {}),
    "aggregate_run": (({"1": {"p1": 1.0, "p2": 0.5}}, {"p1": "d", "p2": "d"}), {}),
    "judge_agreement": (({"1": {"a": 1, "b": 0}}, {"1": {"a": 1, "b": 1}}), {}),
    "system_agreement": (
        ({"x": {"1": ["a", "b"], "2": ["a"]}, "y": {"1": ["b", "a"], "2": ["b"]},
          "z": {"1": ["c", "a"], "2": ["a"]}},
         {"1": ["a"], "2": ["a"]}, {"1": ["b"], "2": ["b"]}), {"n_resamples": 20}),
})
# skrank.recsys: (item_id, y_score) rows of users, and the history
_RECSYS = {"query_id": Q, "history_item_id": [1, 2, 2, 3]}
CALLS.update({
    name: ((np.array([1, 2, 3, 4, 5, 6]), S), _RECSYS) for name in
    ["novelty_score", "popularity_score", "tail_share_score"]
})
CALLS.update({
    name: ((np.array([1, 2, 3, 4, 5, 6]), S), {"query_id": Q}) for name in
    ["catalog_coverage_score", "distributional_coverage_score", "gini_score"]
})
CALLS["explain_list_difference"] = ((np.array([1, 2, 3, 4, 5, 6]), S), {
    **_RECSYS, "history_query_id": [1, 1, 2, 2]})
_FEATURES = pd.DataFrame({"a": [1, 0, 1, 1, 0, 1], "b": [0, 1, 1, 0, 1, 1]},
                         index=[1, 2, 3, 4, 5, 6])
CALLS.update({
    "intra_list_diversity_score": (
        (np.array([1, 2, 3, 4, 5, 6]), S), {"query_id": Q, "item_features": _FEATURES}),
    "serendipity_score": (
        (np.array([1, 2, 3, 4, 5, 6]), S),
        {"query_id": Q, "item_features": _FEATURES, "history_item_id": [1, 2, 4],
         "history_query_id": [1, 1, 2]}),
})

# keyword options that are data or seeds, not options with a fixed domain
NOT_OPTIONS = {
    "query_id", "sample_weight", "unjudged", "grade_probabilities", "rank_weights",
    "recall_levels", "metrics", "baseline", "random_state", "n_jobs",
    "scoring",  # a scorer or metric names, like ``metrics``
    "by",  # segments: data, like ``query_id``
    "propensity",  # simulate_clicks: a callable or one number per position, data
    "differences",  # topic_set_size: per-query differences, data
    "groups", "params",  # model selection: fold groups and fit params, data
    "target",  # awrf_score: the groups' target shares, data
    "cv",  # a splitter, or a number of group folds: checked by scikit-learn's check_cv
    "history_item_id", "history_query_id", "catalog",  # recsys: the history, data
    "item_features", "relevant",  # recsys: item features and relevance per row, data
}

CASES = [
    (name, option, bad)
    for name, rules in PARAMETERS.items()
    for option, rule in rules.items()
    for bad in rule.bad
]


@pytest.mark.parametrize(
    "name, option, bad", CASES,
    ids=[f"{n}-{o}-{b!r}" for n, o, b in CASES],
)
def test_bad_value_is_refused_naming_the_option(name, option, bad):
    args, kwargs = CALLS[name]
    with pytest.raises(ValueError, match=f"`{option}`"):
        getattr(skrank, name)(*args, **{**kwargs, option: bad})


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_valid_call_and_defaults_pass(name):
    args, kwargs = CALLS[name]
    getattr(skrank, name)(*args, **kwargs)  # must not raise


def _public_functions():
    return {
        name: getattr(skrank, name) for name in skrank.__all__
        if inspect.isfunction(getattr(skrank, name))
    }


def test_every_option_of_a_public_function_is_declared():
    # a new option added to a signature without a table entry fails here
    undeclared = []
    for name, func in _public_functions().items():
        for parameter in inspect.signature(func).parameters.values():
            if parameter.kind is not parameter.KEYWORD_ONLY:
                continue
            if parameter.name in NOT_OPTIONS:
                continue
            # checked by RankingScorer and RecsysScorer themselves
            if name in ("make_ranking_scorer", "make_recsys_scorer"):
                continue
            if parameter.name not in PARAMETERS.get(name, {}):
                undeclared.append(f"{name}({parameter.name})")
    assert undeclared == []


def test_declared_functions_are_checked():
    assert len(PARAMETERS) == 56  # every public function with options
    for name in PARAMETERS:
        func = getattr(skrank, name)
        assert hasattr(func, "__wrapped__"), f"{name} is not decorated with validate_params"


@pytest.mark.parametrize("stem", sorted(METRICS))
def test_registry_defaults_are_the_functions_defaults(stem):
    spec = METRICS[stem]
    parameters = inspect.signature(spec.func).parameters
    for option, value in spec.defaults.items():
        expected = spec.options.get(option, parameters[option].default)
        assert value == expected


def test_checked_values_replace_the_given_ones():
    # k far beyond int64 means the whole list, as any large k
    assert skrank.ndcg_score(Y, S, query_id=Q, k=2**70) == skrank.ndcg_score(
        Y, S, query_id=Q)


# ------------------------------------------------ shared parameter docs --

@pytest.mark.parametrize("name, func", list(_public_functions().items()))
def test_no_docstring_keeps_a_shared_documentation_line(name, func):
    # every "{query_id, ...}" line became the parameters' documentation
    import re

    assert not re.search(r"^\s*\{\w+(, \w+)*\}$", func.__doc__, re.MULTILINE)


def test_every_shared_parameter_is_documented_where_a_function_takes_it():
    from skrank._core._params import SHARED_DOCS

    func = skrank.precision_at_k_score
    doc = inspect.cleandoc(func.__doc__)  # as Python 3.13 leaves it
    taken = [p for p in inspect.signature(func).parameters if p in SHARED_DOCS]
    assert len(taken) == 11  # all of them
    for parameter in taken:
        assert SHARED_DOCS[parameter] in doc


def _documented(doc):
    """A function taking query_id and sample_weight, with docstring ``doc``."""
    from skrank._core._params import write_shared_docs

    def func(y_true, y_score, *, query_id=None, sample_weight=None):
        pass

    func.__doc__ = doc
    write_shared_docs(func)
    return func.__doc__


def test_shared_docs_follow_the_line_indentation_python_313_strips_it_too():
    # Python 3.13 removes the docstring's common indentation at compile time
    import textwrap

    from skrank._core._params import SHARED_DOCS

    indented = "Title.\n\n    Parameters\n    ----------\n    {query_id}\n    x : int\n"
    expected = ("Title.\n\n    Parameters\n    ----------\n"
                + textwrap.indent(SHARED_DOCS["query_id"], "    ") + "    x : int\n")
    assert _documented(indented) == expected
    stripped = "Title.\n\nParameters\n----------\n{query_id, sample_weight}\nx : int\n"
    assert _documented(stripped) == (
        "Title.\n\nParameters\n----------\n" + SHARED_DOCS["query_id"]
        + SHARED_DOCS["sample_weight"] + "x : int\n")


@pytest.mark.parametrize("line, message", [
    ("{k}", "'k'"),  # shared, but not a parameter of this function
    ("{query_idd}", "'query_idd'"),  # no shared documentation
])
def test_a_shared_documentation_line_that_cannot_be_written_is_refused(line, message):
    with pytest.raises(TypeError, match=message):
        _documented(f"Title.\n\n    Parameters\n    ----------\n    {line}\n")


def test_other_braces_are_left_alone():
    doc = ('Title.\n\n    ties : {"average", "input"}\n    >>> {"map": 1.0}\n'
           "    {'a': 1}\n")
    assert _documented(doc) == doc


def test_the_former_bare_decorator_is_a_clear_error():
    # @check_params without rules read a table of functions that is gone
    from skrank._core._params import check_params, validate_params

    assert check_params is validate_params

    def metric(y_true, *, k=None):
        pass

    with pytest.raises(TypeError, match=r"metric: declare its options"):
        check_params(metric)
