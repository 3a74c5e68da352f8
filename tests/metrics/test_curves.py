"""Precision-recall curves, interpolated precision, PR AUC and their display:
against P@k / R@k, brute force over tied orders, trec_eval's iprec_at_recall,
scikit-learn's precision_recall_curve + auc, and a PNG rendered with Agg."""

import io
import itertools
import math
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import auc, precision_recall_curve

from skrank import (
    PrecisionRecallAtKDisplay,
    average_precision_score,
    evaluate,
    interpolated_precision_recall_curve,
    pr_auc_score,
    precision_at_k_score,
    precision_recall_at_k_curve,
    recall_at_k_score,
)

from .. import _toolbox_reference as ref
from .._needs import needs

SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _data(seed, n=120, n_queries=15, ties=True):
    rng = np.random.default_rng(seed)
    query = rng.choice(np.arange(500, 600), n_queries, replace=False)[
        rng.integers(0, n_queries, size=n)]
    y = rng.integers(0, 3, size=n) * (rng.random(n) < 0.4)
    score = rng.integers(0, 5, size=n).astype(float) if ties else rng.normal(size=n)
    return y, score, query


# ------------------------------------------------------- P@k and R@k ----


@pytest.mark.parametrize("no_relevant", ["skip", "zero", "one"])
@pytest.mark.parametrize("ties", ["average", "input"])
def test_mean_curves_are_precision_and_recall_at_each_k(no_relevant, ties):
    y, score, query = _data(0)
    weight = np.random.default_rng(1).random(y.size) + 0.1
    options = dict(query_id=query, sample_weight=weight, ties=ties,
                   no_relevant=no_relevant)
    k, precision, recall = precision_recall_at_k_curve(y, score, max_k=20, **options)
    np.testing.assert_array_equal(k, np.arange(1, 21))
    for i, cutoff in enumerate(k):
        assert precision[i] == pytest.approx(
            precision_at_k_score(y, score, k=int(cutoff), **options), rel=1e-12)
        assert recall[i] == pytest.approx(
            recall_at_k_score(y, score, k=int(cutoff), **options), rel=1e-12)


def test_per_query_curves():
    y, score, query = _data(2)
    k, precision, recall = precision_recall_at_k_curve(y, score, query_id=query,
                                                       aggregate=None)
    assert k[-1] == np.bincount(np.unique(query, return_inverse=True)[1]).max()
    assert precision.value.shape == (np.unique(query).size, k.size)
    for i, cutoff in enumerate(k):
        expected = precision_at_k_score(y, score, k=int(cutoff), query_id=query,
                                        aggregate=None)
        np.testing.assert_array_equal(precision.query_id, expected.query_id)
        np.testing.assert_allclose(precision.value[:, i], expected.value,
                                   equal_nan=True)
        expected = recall_at_k_score(y, score, k=int(cutoff), query_id=query,
                                     aggregate=None)
        np.testing.assert_allclose(recall.value[:, i], expected.value, equal_nan=True)


def test_hand_example_and_no_query_left():
    k, precision, recall = precision_recall_at_k_curve([1, 0, 1], [3, 2, 1], max_k=4)
    np.testing.assert_allclose(precision, [1, 1 / 2, 2 / 3, 2 / 4])
    np.testing.assert_allclose(recall, [1 / 2, 1 / 2, 1, 1])
    with pytest.warns(UndefinedMetricWarning):
        _, precision, recall = precision_recall_at_k_curve([0, 0], [1, 2])
    assert np.isnan(precision).all() and np.isnan(recall).all()
    with pytest.raises(ValueError, match="no relevant row"):
        precision_recall_at_k_curve([0, 0], [1, 2], no_relevant="error")


# -------------------------------------------------- interpolated curve ----


def _interpolated_reference(y, score, query, levels, ties):
    out = {}
    for qid, rows in ref.split_queries(query, len(y)).items():
        yy = [float(y[r]) for r in rows]
        ss = [float(score[r]) for r in rows]
        if not any(v > 0 for v in yy):
            out[qid] = [math.nan] * len(levels)
            continue
        if ties == "input":  # distinct pseudo-scores in stable order
            order = sorted(range(len(ss)), key=lambda i: -ss[i])
            ss = [0.0] * len(ss)
            for position, i in enumerate(order):
                ss[i] = -position
        points = ref.threshold_points(yy, ss)
        out[qid] = [ref.interpolated_precision(points, level) for level in levels]
    return out


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3),
                          st.sampled_from([1, 2])), min_size=1, max_size=10),
       st.sampled_from(["average", "input"]))
def test_interpolated_matches_brute_force(rows, ties):
    y = np.array([r[0] for r in rows])
    score = np.array([r[1] for r in rows], dtype=float)
    query = np.array([r[2] for r in rows])
    levels = [0.0, 0.2, 1 / 3, 0.5, 0.9, 1.0]
    expected = _interpolated_reference(y, score, query, levels, ties)
    _, got = interpolated_precision_recall_curve(y, score, query_id=query,
                                                 recall_levels=levels, ties=ties,
                                                 aggregate=None)
    np.testing.assert_allclose(got.value, list(expected.values()), equal_nan=True)


def test_interpolated_is_order_free_under_ties_and_bounds_ap():
    y, score, query = _data(3)
    order = np.random.default_rng(4).permutation(y.size)
    _, a = interpolated_precision_recall_curve(y, score, query_id=query)
    _, b = interpolated_precision_recall_curve(y[order], score[order],
                                               query_id=query[order])
    np.testing.assert_allclose(a, b)
    # the area under the interpolated step curve is at least AP (no ties here)
    y, score, query = _data(5, ties=False)
    levels = np.linspace(0, 1, 2001)
    _, curve = interpolated_precision_recall_curve(y, score, query_id=query,
                                                   recall_levels=levels, aggregate=None)
    ap = average_precision_score(y, score, query_id=query, aggregate=None).value
    keep = ~np.isnan(ap)
    # right Riemann sum of a non-increasing curve
    area = curve.value[keep, 1:].mean(axis=1)
    assert (area >= ap[keep] - 1e-12).all()


@pytest.mark.peers
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_interpolated_equals_trec_eval(seed):
    pytrec_eval = needs("pytrec_eval")
    y, score, query = _data(seed, ties=False)
    qrels, run = {}, {}
    for i, (rel, s, q) in enumerate(zip(y, score, query)):
        qrels.setdefault(str(q), {})[f"d{i}"] = int(rel)
        run.setdefault(str(q), {})[f"d{i}"] = float(s)
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    levels, got = interpolated_precision_recall_curve(
        y, score, query_id=query, no_relevant="zero", aggregate=None)
    n_relevant = dict(zip(*np.unique(query[y > 0], return_counts=True)))
    compared = 0
    for qid, row in zip(got.query_id, got.value):
        expected = [trec[str(qid)][f"iprec_at_recall_{level:.2f}"] for level in levels]
        R = n_relevant.get(qid, 0)
        for level, value, trec_value in zip(levels, row, expected):
            # trec_eval asks for round(level * R) relevant rows, skrank (and the
            # textbook definition) for recall >= level: ceil(level * R)
            if R == 0 or round(level * R + 1e-9) == math.ceil(level * R - 1e-9):
                assert value == pytest.approx(trec_value, rel=1e-9)
                compared += 1
            else:  # more relevant rows asked: a max over fewer cutoffs
                assert value <= trec_value + 1e-12
    assert compared > 0.5 * got.value.size


# -------------------------------------------------------------- PR AUC ----


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.sampled_from("ab")),
                min_size=1, max_size=9),
       st.sampled_from(["average", "input"]))
def test_pr_auc_stays_under_ap(rows, ties):
    # PR AUC against its brute-force reference: test_reference.py
    y = np.array([r[0] for r in rows])
    score = np.array([r[1] for r in rows], dtype=float)
    query = np.array([r[2] for r in rows])
    got = pr_auc_score(y, score, query_id=query, ties=ties, aggregate=None)
    ap = average_precision_score(y, score, query_id=query, ties=ties, aggregate=None)
    keep = ~np.isnan(ap.value)
    assert (got.value[keep] <= ap.value[keep] + 1e-12).all()


@pytest.mark.peers
@pytest.mark.parametrize("seed", [0, 1])
def test_pr_auc_equals_sklearn_without_ties(seed):
    y, score, query = _data(seed, ties=False)
    got = pr_auc_score(y, score, query_id=query, aggregate=None)
    for qid, value in zip(got.query_id, got.value):
        mask = query == qid
        if not (y[mask] > 0).any():
            assert np.isnan(value)
            continue
        precision, recall, _ = precision_recall_curve(y[mask] > 0, score[mask])
        assert value == pytest.approx(auc(recall, precision), rel=1e-12)


def test_pr_auc_constant_scorer_is_the_mean_over_orders():
    y = [1, 0, 0, 1]
    orders = list(itertools.permutations(range(4)))
    expected = np.mean([ref.pr_auc_of(list(o), y) for o in orders])
    assert pr_auc_score(y, [0, 0, 0, 0]) == pytest.approx(expected)


def test_pr_auc_scorer_name():
    y, score, query = _data(6)
    assert evaluate(y, score, query_id=query, metrics=["pr_auc"])["pr_auc"] == (
        pytest.approx(pr_auc_score(y, score, query_id=query)))


# -------------------------------------------------------------- inputs ----


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: precision_recall_at_k_curve([1, 0], [1, 2], max_k=0), "max_k"),
        (lambda: precision_recall_at_k_curve([1, 0], [1, 2], aggregate="sum"),
         "aggregate"),
        (lambda: precision_recall_at_k_curve([1, 0], [1, np.nan]), "y_score"),
        (lambda: interpolated_precision_recall_curve([1, 0], [1, 2],
                                                     recall_levels=[0.5, 1.5]),
         "recall_levels"),
        (lambda: interpolated_precision_recall_curve([1, 0], [1, 2], recall_levels=[]),
         "recall_levels"),
        (lambda: interpolated_precision_recall_curve([1, 0], [1, 2],
                                                     recall_levels=["a"]),
         "recall_levels"),
        (lambda: interpolated_precision_recall_curve([1, 0], [1, 2], ties="random"),
         "ties"),
        (lambda: pr_auc_score([1, -1], [1, 2]), "y_true"),
        (lambda: pr_auc_score([1, 0], [1, 2], query_id=[1]), "query_id"),
        (lambda: pr_auc_score([1, 0], [1, 2], no_relevant="drop"), "no_relevant"),
    ],
)
def test_bad_inputs_name_the_argument(call, argument):
    with pytest.raises(ValueError, match=f"`{argument}`"):
        call()


# ------------------------------------------------------------- display ----


@pytest.fixture
def pyplot():
    matplotlib = needs("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_display_draws_the_curves_and_renders_png(pyplot):
    y, score, query = _data(7)
    display = PrecisionRecallAtKDisplay.from_predictions(y, score, query_id=query,
                                                         max_k=8, name="model")
    k, precision, recall = precision_recall_at_k_curve(y, score, query_id=query,
                                                       max_k=8)
    levels, interpolated = interpolated_precision_recall_curve(y, score, query_id=query)
    np.testing.assert_allclose(display.line_.get_xdata(), recall)
    np.testing.assert_allclose(display.line_.get_ydata(), precision)
    np.testing.assert_allclose(display.lines_["interpolated"].get_ydata(), interpolated)
    legend = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert legend == ["model P@k vs R@k", "model interpolated"]
    buffer = io.BytesIO()
    display.figure_.savefig(buffer, format="png")
    assert buffer.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"

    display.plot(kind="k")
    np.testing.assert_allclose(display.lines_["precision"].get_ydata(), precision)
    np.testing.assert_allclose(display.lines_["recall"].get_ydata(), recall)
    np.testing.assert_array_equal(display.line_.get_xdata(), k)


def test_display_on_given_axes_and_bad_arguments(pyplot):
    _, ax = pyplot.subplots()
    display = PrecisionRecallAtKDisplay(k=[1, 2], precision=[1.0, 0.5],
                                        recall=[0.5, 0.5])
    assert display.plot(ax=ax, color="red").ax_ is ax
    assert "interpolated" not in display.lines_
    with pytest.raises(ValueError, match="`kind`"):
        display.plot(kind="roc")
    with pytest.raises(ValueError, match="`precision`"):
        PrecisionRecallAtKDisplay(k=[1, 2], precision=[1.0], recall=[0.5, 0.5]).plot()
    with pytest.raises(ValueError, match="`recall_levels`"):
        PrecisionRecallAtKDisplay(k=[1], precision=[1.0], recall=[0.5],
                                  recall_levels=[0, 1]).plot()


def test_display_without_matplotlib_names_the_extra(monkeypatch):
    display = PrecisionRecallAtKDisplay(k=[1], precision=[1.0], recall=[1.0])
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"pip install matplotlib"):
        display.plot()
    with warnings.catch_warnings():  # computing curves needs no matplotlib
        warnings.simplefilter("error")
        precision_recall_at_k_curve([1, 0], [2, 1])
