"""coverage_error, label_ranking_loss, LRAP (skrank/metrics/_label_ranking.py).

Expected values come from scikit-learn's own functions (2-D input, random
cases with ties and weights, via hypothesis) and from hand-worked examples.
The brute-force references written from the definitions (1-D rows with
query ids) and the worked examples of the three stems are in
tests/_toolbox_reference.py and tests/_worked_examples.py; test_reference.py
runs them with every other registry stem.
"""

import warnings

import numpy as np
import pytest
import sklearn.metrics
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import skrank

from .._needs import needs

SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

NAMES = ["coverage_error", "label_ranking_loss", "label_ranking_average_precision_score"]
STEMS = {
    "coverage_error": "coverage_error",
    "label_ranking_loss": "label_ranking_loss",
    "label_ranking_average_precision_score": "label_ranking_average_precision",
}


# ---------------------------------------------------- 2-D: scikit-learn ----

@st.composite
def multilabel(draw, min_labels=2):
    """2-D 0/1 labels and scores with frequent ties, and optional weights."""
    n_samples = draw(st.integers(1, 8))
    n_labels = draw(st.integers(min_labels, 7))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n_samples, n_labels)) < draw(st.sampled_from([0.2, 0.5, 0.8])))
    y_true = y_true.astype(int)
    kind = draw(st.sampled_from(["few", "binary", "continuous"]))
    if kind == "few":  # many ties
        y_score = rng.integers(0, 3, size=(n_samples, n_labels)).astype(float)
    elif kind == "binary":
        y_score = rng.integers(0, 2, size=(n_samples, n_labels))
    else:
        y_score = rng.normal(size=(n_samples, n_labels))
    sample_weight = None
    if draw(st.booleans()):
        sample_weight = rng.uniform(0.1, 5.0, size=n_samples)
        if n_samples > 1 and draw(st.booleans()):
            sample_weight[0] = 0.0  # a zero weight among others
    return y_true, y_score, sample_weight


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(case=multilabel())
def test_two_dimensional_input_equals_sklearn(name, case):
    y_true, y_score, sample_weight = case
    expected = getattr(sklearn.metrics, name)(y_true, y_score, sample_weight=sample_weight)
    got = getattr(skrank, name)(y_true, y_score, sample_weight=sample_weight)
    assert type(got) is float
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # and through evaluate, under the metric's registry name
    result = skrank.evaluate(y_true, y_score, metrics=[STEMS[name]],
                             sample_weight=sample_weight)
    assert result[STEMS[name]] == pytest.approx(expected, rel=1e-12, abs=1e-15)


SPARSE_FORMATS = ["csr_matrix", "csc_matrix", "coo_matrix", "lil_matrix",
                  "csr_array", "csc_array", "coo_array", "dok_array"]


@pytest.mark.parametrize("name", ["label_ranking_loss",
                                  "label_ranking_average_precision_score"])
@pytest.mark.parametrize("form", SPARSE_FORMATS)
@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(case=multilabel())
def test_sparse_y_true_equals_sklearn(name, form, case):
    """scikit-learn takes a sparse indicator y_true for these two (issue 34, B9)."""
    sparse = pytest.importorskip("scipy.sparse")
    y_true, y_score, sample_weight = case
    sparse_y_true = getattr(sparse, form)(y_true)
    expected = getattr(sklearn.metrics, name)(sparse_y_true, y_score,
                                              sample_weight=sample_weight)
    got = getattr(skrank, name)(sparse_y_true, y_score, sample_weight=sample_weight)
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_sparse_y_true_hand_worked():
    sparse = pytest.importorskip("scipy.sparse")
    y_true = sparse.csr_matrix([[1, 0, 0], [0, 1, 1]])
    y_score = [[0.2, 0.5, 0.1], [0.3, 0.2, 0.9]]
    # row 1: label 0 below label 1: 1 wrong pair of 2; row 2: label 1 below
    # label 0: 1 of 2 -> loss 1/2
    assert skrank.label_ranking_loss(y_true, y_score) == 0.5
    # row 1: 1/2; row 2: label 2 first (1/1), label 1 third (2/3) -> 5/6
    assert skrank.label_ranking_average_precision_score(y_true, y_score) == (
        pytest.approx((1 / 2 + 5 / 6) / 2))
    # coverage: row 1 needs 2 labels, row 2 all 3 (scikit-learn refuses sparse here)
    assert skrank.coverage_error(y_true, y_score) == 2.5
    # 1-D rows with query ids take a 1-D sparse array (scipy >= 1.13 makes one)
    try:
        flat = sparse.coo_array(np.array([1, 0, 0, 0, 1, 1]))
    except (TypeError, ValueError):
        return
    if flat.ndim != 1:  # older scipy makes it (1, 6)
        return
    per_query = skrank.label_ranking_loss(
        flat, [0.2, 0.5, 0.1, 0.3, 0.2, 0.9], query_id=[1, 1, 1, 2, 2, 2],
        aggregate=None)
    np.testing.assert_allclose(per_query.value, [0.5, 0.5])


def test_other_metrics_name_a_sparse_argument_and_the_fix():
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match=r"`y_true` is a scipy sparse.*toarray"):
        skrank.ndcg_score(sparse.csr_matrix([[1, 0, 1]]), [[0.5, 0.2, 0.1]])


@SETTINGS
@given(case=multilabel(min_labels=1))
def test_lrap_with_one_label_equals_sklearn(case):
    # scikit-learn's LRAP takes a single label column (each row: 1)
    y_true, y_score, sample_weight = case
    y_true, y_score = y_true[:, :1], y_score[:, :1]
    expected = sklearn.metrics.label_ranking_average_precision_score(
        y_true, y_score, sample_weight=sample_weight)
    got = skrank.label_ranking_average_precision_score(
        y_true, y_score, sample_weight=sample_weight)
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_sklearn_docstring_examples(name):
    y_true = [[1, 0, 0], [0, 0, 1]]
    y_score = [[0.75, 0.5, 1], [1, 0.2, 0.1]]
    expected = {  # by hand, from the definitions
        "coverage_error": (2 + 3) / 2,
        "label_ranking_loss": (1 / 2 + 2 / 2) / 2,
        "label_ranking_average_precision_score": (1 / 2 + 1 / 3) / 2,
    }[name]
    assert getattr(skrank, name)(y_true, y_score) == pytest.approx(expected)
    assert getattr(sklearn.metrics, name)(y_true, y_score) == pytest.approx(expected)


# ---------------------------------------- 1-D rows with query ids ----

@st.composite
def queries(draw):
    """Rows of queries of different lengths (1 to 7), shuffled, ids of any kind."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 8, size=draw(st.integers(1, 6)))
    codes = np.repeat(np.arange(len(lengths)), lengths)
    n = codes.size
    y_true = rng.integers(0, draw(st.sampled_from([2, 4])), size=n)  # binary or graded
    y_score = rng.integers(0, 3, size=n).astype(float)
    if draw(st.booleans()):
        y_score = rng.normal(size=n)
    labels = draw(st.sampled_from(["int", "str"]))
    ids = rng.permutation(50)[: len(lengths)] * 3
    query_id = ids[codes] if labels == "int" else np.array([f"q{i}" for i in ids[codes]])
    order = rng.permutation(n)
    weight = rng.uniform(0.1, 3.0, size=n) if draw(st.booleans()) else None
    return (y_true[order], y_score[order], query_id[order],
            None if weight is None else weight[order])


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(case=queries())
def test_each_query_is_one_row_of_sklearn(name, case):
    # each query of two or more rows, alone, is scikit-learn's 2-D input of one row
    y_true, y_score, query_id, _ = case
    per_query = getattr(skrank, name)(y_true, y_score, query_id=query_id, aggregate=None)
    for q, value in zip(per_query.query_id, per_query.value):
        rows = query_id == q
        if rows.sum() < 2:
            continue  # scikit-learn refuses a single label (except LRAP)
        relevant = (y_true[rows] > 0).astype(int)[None, :]
        expected = getattr(sklearn.metrics, name)(relevant, y_score[rows][None, :])
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


# ------------------------------------------------- hand-worked values ----

def test_queries_without_relevant_row_count_in_the_mean():
    # q1: relevant row 2nd of 2; q2: no relevant row
    y, s, q = [0, 1, 0, 0], [2, 1, 2, 1], ["a", "a", "b", "b"]
    assert skrank.coverage_error(y, s, query_id=q) == (2 + 0) / 2
    assert skrank.label_ranking_loss(y, s, query_id=q) == (1 + 0) / 2
    assert skrank.label_ranking_average_precision_score(y, s, query_id=q) == (
        (1 / 2 + 1) / 2)


def test_unretrieved_rows_have_the_lowest_score():
    # -inf is only the lowest score here: the relevant row at -inf is last
    y, s = [0, 1, 0, 1], [3.0, 2.0, 1.0, -np.inf]
    assert skrank.coverage_error(y, s) == 4
    assert skrank.label_ranking_loss(y, s) == (1 + 2) / (2 * 2)


def test_graded_relevance_counts_rows_above_zero():
    assert skrank.label_ranking_loss([3, 0, 1], [1, 2, 3]) == pytest.approx(
        skrank.label_ranking_loss([1, 0, 1], [1, 2, 3]))


def test_zero_weights_leave_nothing_to_average():
    with pytest.warns(UndefinedMetricWarning):
        value = skrank.coverage_error([[1, 0]], [[1, 2]], sample_weight=[0.0])
    assert np.isnan(value)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="`query_id`"):
        skrank.coverage_error([[1, 0]], [[1, 2]], query_id=[1])
    with pytest.raises(ValueError, match="different shapes"):
        skrank.label_ranking_loss([[1, 0]], [[1, 2, 3]])
    with pytest.raises(ValueError, match="`aggregate`"):
        skrank.label_ranking_average_precision_score([1, 0], [1, 2], aggregate="sum")
    with pytest.raises(TypeError):  # ties are part of the definition
        skrank.coverage_error([1, 0], [1, 2], ties="input")


def test_binary_scores_do_not_warn():
    # 0/1 predictions are valid input: ties are part of these definitions
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skrank.coverage_error([[1, 0, 0], [0, 1, 1]], [[1, 0, 0], [0, 1, 1]])


# -------------------------------------------- evaluate and the scorers ----

def test_evaluate_ignores_ties_and_no_relevant_for_them():
    y = np.array([1, 0, 0, 0, 0, 0, 1, 1])
    s = np.array([1.0, 1.0, 0.0, 2.0, 2.0, 1.0, 1.0, 0.0])
    q = np.array([1, 1, 1, 2, 2, 3, 3, 3])  # query 2 has no relevant row
    names = list(STEMS.values())
    expected = {STEMS[n]: getattr(skrank, n)(y, s, query_id=q) for n in NAMES}
    for options in ({}, {"ties": "input"}, {"no_relevant": "error"}):
        assert skrank.evaluate(y, s, query_id=q, metrics=names, **options) == expected


class _Scores:
    """An 'estimator' whose ranking scores are the first column of X."""

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


@pytest.mark.parametrize("name", NAMES)
def test_scorer_direction(name):
    y = np.array([1, 0, 0, 0, 1, 0])
    s = np.array([0.2, 0.9, 0.1, 0.5, 0.4, 0.3])
    q = np.array([1, 1, 1, 2, 2, 2])
    value = getattr(skrank, name)(y, s, query_id=q)
    scorer = skrank.get_scorer(STEMS[name])
    loss = name != "label_ranking_average_precision_score"
    assert scorer.greater_is_better is not loss
    assert scorer(_Scores(), s[:, None], y, query_id=q) == (-value if loss else value)
    multi = skrank.get_scorer([STEMS[name], "map"])
    got = multi(_Scores(), s[:, None], y, query_id=q)
    assert got[STEMS[name]] == (-value if loss else value)
    assert skrank.make_ranking_scorer(getattr(skrank, name)).greater_is_better is not loss


def test_search_minimises_the_losses():
    # two "models": one ranks the relevant rows first, the other last
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.model_selection import GridSearchCV, GroupKFold

    class Sign(RegressorMixin, BaseEstimator):
        def __init__(self, sign=1.0):
            self.sign = sign

        def fit(self, X, y):
            return self

        def predict(self, X):
            return self.sign * np.asarray(X, dtype=float)[:, 0]

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=60)
    X = (y + rng.random(60))[:, None]  # larger x: relevant
    qid = np.repeat(np.arange(12), 5)
    import pandas as pd

    frame = pd.DataFrame({"x": X[:, 0], "qid": qid})
    for stem in ("coverage_error", "label_ranking_loss", "label_ranking_average_precision"):
        search = GridSearchCV(
            Sign(), {"sign": [-1.0, 1.0]}, scoring=skrank.get_scorer(stem),
            cv=GroupKFold(3),
        ).fit(frame, y, groups=qid)
        assert search.best_params_ == {"sign": 1.0}, stem


def test_names_are_registered_and_suggested():
    names = skrank.get_scorer_names()
    for stem in STEMS.values():
        assert stem in names and f"{stem}@k" not in names
    with pytest.raises(ValueError, match="Did you mean 'label_ranking_average_precision'"):
        skrank.get_scorer("lrap")
    with pytest.raises(ValueError, match="Did you mean 'coverage_error'"):
        skrank.get_scorer("neg_coverage_error")
    with pytest.raises(ValueError, match="takes no cutoff"):
        skrank.evaluate([1, 0], [1, 2], metrics=["coverage_error@3"])


def test_ranker_eval_metrics_minimise_the_losses():
    # LightGBM and CatBoost are told the direction of each skrank eval metric
    from skrank.model_selection._ranker_libraries import (
        EvalMetric,
        _CatBoostMetric,
        _LightGBMMetric,
    )

    y = np.array([1, 0, 0, 1])
    pred = np.array([0.1, 0.9, 0.5, 0.2])
    names = ["coverage_error", "map", "label_ranking_loss"]
    got = _LightGBMMetric([EvalMetric(name) for name in names])(y, pred, None, [2, 2])
    assert [name for name, _, _ in got] == names
    assert [higher for _, _, higher in got] == [False, True, False]
    assert got[0][1] == skrank.coverage_error(y, pred, query_id=[0, 0, 1, 1])
    loss = _CatBoostMetric(EvalMetric("label_ranking_loss"), [])
    assert loss.is_max_optimal() is False
    assert _CatBoostMetric(EvalMetric("ndcg@3"), []).is_max_optimal() is True


def test_xgboost_early_stopping_minimises_the_losses():
    needs("xgboost")
    from skrank.model_selection._ranker_libraries import EvalMetric, _xgboost_callback

    y = np.array([1, 0, 0, 1])
    codes = np.array([0, 0, 1, 1])
    good, bad = np.array([2.0, 1.0, 1.0, 2.0]), np.array([1.0, 2.0, 2.0, 1.0])

    class Model:  # round 0 ranks well (coverage 1), later rounds badly (2)
        def inplace_predict(self, X, iteration_range):
            return good if iteration_range[1] == 1 else bad

    callback = _xgboost_callback([EvalMetric("coverage_error")], None, y, codes, None,
                                 2)
    stops = [callback.after_iteration(Model(), epoch, {}) for epoch in range(3)]
    assert callback.best_iteration == 0 and callback.best_score == 1.0
    assert stops == [False, False, True]
