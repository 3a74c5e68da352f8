"""The one table of options: every public function refuses its table's bad values.

In the spirit of scikit-learn's ``test_public_functions.py``, built on
skrank's own table (``skrank._core._params.PARAMETERS``).
"""

import inspect

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression

import skrank
from skrank._core._params import PARAMETERS
from skrank.metrics._registry import METRICS

Y = np.array([1, 0, 1, 0, 0, 1])
S = np.array([0.9, 0.8, 0.3, 0.5, 0.2, 0.1])
Q = np.array([1, 1, 1, 2, 2, 2])

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
    "permutation_importance": (
        (LinearRegression().fit(S[:, None], Y), S[:, None], Y),
        {"query_id": Q, "scoring": "ndcg", "n_repeats": 2},
    ),
    "evaluate_run": (({"1": {"a": 1}}, {"1": {"a": 1.0}}), {"metrics": ["map"]}),
    "get_scorer": (("ndcg@10",), {}),
})

# keyword options that are data or seeds, not options with a fixed domain
NOT_OPTIONS = {
    "query_id", "sample_weight", "unjudged", "grade_probabilities", "rank_weights",
    "recall_levels", "metrics", "baseline", "random_state", "n_jobs",
    "scoring",  # a scorer or metric names, like ``metrics``
    "by",  # segments: data, like ``query_id``
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
            if name in ("make_ranking_scorer",):  # checked by RankingScorer itself
                continue
            if parameter.name not in PARAMETERS.get(name, {}):
                undeclared.append(f"{name}({parameter.name})")
    assert undeclared == []


def test_declared_functions_are_checked_by_the_table():
    for name in PARAMETERS:
        func = getattr(skrank, name)
        assert hasattr(func, "__wrapped__"), f"{name} is not decorated with check_params"


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
