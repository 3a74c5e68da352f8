"""Presets read labels and weights as their peer does, and refuse what it refuses.

Beyond the options (``test_presets.py``): CatBoost's relevance border and the
metrics that ignore its query weights, LightGBM's map border, ranx's integer
qrels and the metrics the ranx preset gained (bpref, dcg, dcg_burges, rbp),
and the inputs scikit-learn, XGBoost, LightGBM and torchmetrics raise on.
Each expected value comes from the peer itself, or from arithmetic written
out; each refusal is checked against the peer raising on the same input.
"""

import os
import shutil
import subprocess
import warnings

import numpy as np
import pytest

import skrank
from skrank import evaluate


def close(a, b, tol=1e-6):
    return a == pytest.approx(b, rel=tol, abs=tol)


# -- hand-worked (the reproducers) --------------------------------------


def test_catboost_relevance_border_by_hand():
    # labels in [0, 1], as CatBoost's ERR and PFound need them; scores 6..1.
    # Relevant means label > 0.5: the rows ranked 4th (0.75) and 5th (1.0)
    y, s = [0, 0.25, 0.5, 0.75, 1, 0], [6, 5, 4, 3, 2, 1]
    q = [0] * 6
    got = evaluate(y, s, query_id=q, compat="catboost",
                   metrics=["MAP:top=10", "PrecisionAt:top=3", "RecallAt:top=3", "MRR"])
    assert got["MAP:top=10"] == pytest.approx((1 / 4 + 2 / 5) / 2)  # min(R, k, n) = 2
    assert got["PrecisionAt:top=3"] == 0.0
    assert got["RecallAt:top=3"] == 0.0
    assert got["MRR"] == pytest.approx(1 / 4)
    # the same through the functions
    assert skrank.average_precision_score(y, s, k=10, compat="catboost") == (
        pytest.approx(0.325))
    assert skrank.reciprocal_rank_score(y, s, compat="catboost") == pytest.approx(0.25)
    # a label of exactly 0.5 is not relevant (the border is strict)
    assert skrank.precision_at_k_score([0.5, 1], [2, 1], k=1, compat="catboost") == 0.0


def test_catboost_map_precision_recall_ignore_the_weights_by_hand():
    # query 0: [1, 1, 0] -> P@2 = 1; query 1: [1, 0, 0] -> P@2 = 1/2
    y, s = [1, 1, 0, 1, 0, 0], [3, 2, 1, 3, 2, 1]
    q, w = [0, 0, 0, 1, 1, 1], [1, 1, 1, 3, 3, 3]
    assert skrank.precision_at_k_score(y, s, k=2, query_id=q, sample_weight=w,
                                       compat="catboost") == 0.75  # (1 + 1/2) / 2
    # NDCG does weigh its queries: (1 * 1 + 3 * 1) / 4 with both ideal
    got = evaluate(y, s, query_id=q, sample_weight=w, compat="catboost",
                   metrics=["PrecisionAt:top=2", "MRR", "NDCG"])
    assert got["PrecisionAt:top=2"] == 0.75
    assert got["MRR"] == 1.0 and got["NDCG"] == 1.0
    # MRR is weighted: query 1's first relevant row is 2nd now
    y2 = [1, 1, 0, 0, 1, 0]
    assert skrank.reciprocal_rank_score(y2, s, query_id=q, sample_weight=w,
                                        compat="catboost") == (1 + 3 / 2) / 4


def test_ranx_added_metrics_by_hand():
    y, s = [1, 0, 2], [3, 2, 1]  # in score order
    got = evaluate(y, s, compat="ranx",
                   metrics=["rbp.95", "rbp@8", "dcg", "dcg_burges@2", "bpref"])
    assert got["rbp.95"] == pytest.approx(0.05 * (1 + 2 * 0.95 ** 2))  # graded gain
    assert got["rbp@8"] == pytest.approx(0.2 * (1 + 2 * 0.8 ** 2))  # ranx: p = 0.8
    assert got["dcg"] == pytest.approx(1 + 2 / np.log2(4))
    assert got["dcg_burges@2"] == pytest.approx(1.0)  # 2^1 - 1, then 0
    assert got["bpref"] == pytest.approx((1 + 0) / 2)  # 1 - min(1, 2) / min(2, 1)
    # qrels are integers in ranx: 0.5 is 0, 1.7 is 1
    assert skrank.dcg_score([0.5, 1.7], [2, 1], compat="ranx") == pytest.approx(
        1 / np.log2(3))


def test_refusals_name_the_preset_and_the_rule():
    with pytest.raises(ValueError, match=r"compat='sklearn'.*one row.*query 'b'"):
        skrank.ndcg_score([1, 0, 1], [3, 2, 1], query_id=["a", "a", "b"],
                          compat="sklearn")
    with pytest.raises(ValueError, match=r"compat='sklearn'.*one item per row"):
        skrank.dcg_score([[1], [0]], [[0.5], [0.2]], compat="sklearn")
    with pytest.raises(ValueError, match=r"compat='xgboost'.*map.*binary labels"):
        evaluate([2, 0, 1], [3, 2, 1], metrics=["map"], compat="xgboost")
    with pytest.raises(ValueError, match=r"compat='xgboost'.*up to 31"):
        skrank.ndcg_score([32, 0], [2, 1], compat="xgboost")
    with pytest.raises(ValueError, match=r"compat='lightgbm'.*integer grades"):
        skrank.ndcg_score([0.5, 0], [2, 1], compat="lightgbm")
    with pytest.raises(ValueError, match=r"compat='torchmetrics'.*\[0, 1\]"):
        skrank.average_precision_score([2, 0], [2, 1], compat="torchmetrics")
    with pytest.raises(ValueError, match=r"compat='ranx'.*bpref.*query 7"):
        evaluate([1, 1, 0, 1], [3, 2, 1, 1], query_id=[7, 7, 8, 9], metrics=["bpref"],
                 compat="ranx")
    # the scorers go through the same rules
    with pytest.raises(ValueError, match=r"compat='xgboost'.*binary"):
        evaluate([2, 0], [2, 1], metrics=["pre@2", "ndcg"], compat="xgboost")
    # explicit options lift the rules that depend on them: XGBoost's linear gain
    assert skrank.ndcg_score([32, 0], [2, 1], compat="xgboost", gain="linear") == 1.0


def test_the_rules_leave_valid_input_alone():
    # 2-D input with two items per row, and query ids of several types
    assert skrank.ndcg_score([[1, 0], [0, 1]], [[2, 1], [2, 1]], compat="sklearn") == (
        pytest.approx((1 + 1 / np.log2(3)) / 2))
    assert skrank.average_precision_score([1, 0, 1, 0], [4, 3, 2, 1],
                                          query_id=[1.5, 1.5, 2.5, 2.5],
                                          compat="xgboost") == pytest.approx(1.0)


# -- against the peers themselves -----------------------------------------------


def _catboost_case(rng, kind):
    """Grouped rows (CatBoost wants each group contiguous), one weight per query."""
    sizes = rng.integers(1, 9, rng.integers(1, 6))
    n = int(sizes.sum())
    group = np.repeat(np.arange(sizes.size), sizes)
    if kind == "fraction":  # in [0, 1], as ERR and PFound need
        y = rng.integers(0, 5, n) / 4
    elif kind == "graded":
        y = rng.integers(0, 4, n).astype(np.float64)
    else:
        y = rng.integers(0, 2, n).astype(np.float64)
    s = rng.integers(0, 4, n).astype(np.float64)  # heavy ties
    weight = rng.integers(1, 5, sizes.size).astype(np.float64)[group]
    return y, s, group, weight


@pytest.mark.peers
@pytest.mark.parametrize("kind", ["fraction", "graded", "binary"])
def test_catboost_border_and_query_weights(kind):
    pytest.importorskip("catboost", reason="CatBoost is not installed")
    from catboost.utils import eval_metric

    names = ["MAP:top=3", "MAP", "PrecisionAt:top=2", "RecallAt:top=3", "MRR",
             "MRR:top=2", "NDCG:top=3", "DCG"]
    if kind == "fraction":
        names += ["ERR", "PFound"]
    rng = np.random.default_rng(["fraction", "graded", "binary"].index(kind))
    for case in range(60):
        y, s, group, weight = _catboost_case(rng, kind)
        weighted = case % 2 == 1
        got = evaluate(y, s, query_id=group, metrics=names, compat="catboost",
                       sample_weight=weight if weighted else None)
        for name in names:
            want = eval_metric(y, s, name, group_id=group,
                               group_weight=weight if weighted else None)[0]
            assert close(got[name], want), (case, name, y, s, group, weight)
        # the single functions read the rows as evaluate does
        if weighted:
            assert close(
                skrank.precision_at_k_score(y, s, k=2, query_id=group,
                                            sample_weight=weight, compat="catboost"),
                got["PrecisionAt:top=2"])


@pytest.mark.peers
def test_lightgbm_map_border():
    lgb = pytest.importorskip("lightgbm", reason="LightGBM is not installed")
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 9, 12)
    n = int(sizes.sum())
    y = rng.integers(0, 5, n) / 4  # fractional: LightGBM's map reads label > 0.5
    y[:2] = [1.0, 0.0]
    s = rng.normal(size=n)
    group = np.repeat(np.arange(sizes.size), sizes)
    result = {}
    dataset = lgb.Dataset(np.zeros((n, 1)), label=y, group=sizes, init_score=s)
    lgb.train({"objective": "regression", "learning_rate": 1e-300, "verbose": -1,
               "metric": ["map"], "eval_at": [1, 3, 10]},
              dataset, 1, valid_sets=[dataset], valid_names=["d"],
              callbacks=[lgb.record_evaluation(result)])
    got = evaluate(y, s, query_id=group, metrics=["map@1", "map@3", "map@10"],
                   compat="lightgbm")
    for name, value in got.items():
        assert close(value, result["d"][name][0]), name


@pytest.mark.peers
def test_lightgbm_refuses_what_the_preset_refuses():
    lgb = pytest.importorskip("lightgbm", reason="LightGBM is not installed")

    def lightgbm_ndcg(y):
        dataset = lgb.Dataset(np.zeros((2, 1)), label=y, group=[2],
                              init_score=[2.0, 1.0])
        lgb.train({"objective": "regression", "learning_rate": 1e-300,
                   "verbose": -1, "metric": ["ndcg"], "eval_at": [2]},
                  dataset, 1, valid_sets=[dataset])

    for y in ([0.5, 0.0], [31.0, 0.0]):
        with pytest.raises(lgb.basic.LightGBMError):
            lightgbm_ndcg(y)
        with pytest.raises(ValueError, match="compat='lightgbm'"):
            skrank.ndcg_score(y, [2, 1], compat="lightgbm")
    lightgbm_ndcg([30.0, 0.0])  # the largest grade both take
    skrank.ndcg_score([30, 0], [2, 1], compat="lightgbm")


def _xgboost_eval(y, s, names, **params):
    import xgboost as xgb

    matrix = xgb.DMatrix(np.zeros((len(y), 1)), label=np.asarray(y, float),
                         base_margin=np.asarray(s, float))
    matrix.set_group([len(y)])
    result = {}
    xgb.train({"objective": "reg:squarederror", "eta": 0, "eval_metric": names,
               "base_score": 0, **params},
              matrix, 1, evals=[(matrix, "d")], evals_result=result, verbose_eval=False)
    return {name: values[0] for name, values in result["d"].items()}


@pytest.mark.peers
def test_xgboost_refuses_what_the_preset_refuses():
    xgb = pytest.importorskip("xgboost", reason="XGBoost is not installed")
    s = [4.0, 3.0, 2.0, 1.0]
    for names, y in ((["map"], [2, 0, 1, 0]), (["pre@2"], [2, 0, 1, 0]),
                     (["map@2-"], [0.5, 0, 1, 0]), (["ndcg"], [32, 0, 1, 0]),
                     (["ndcg@3"], [0.5, 0, 1, 0])):
        with pytest.raises(xgb.core.XGBoostError):
            _xgboost_eval(y, s, names)
        with pytest.raises(ValueError, match="compat='xgboost'"):
            evaluate(y, s, metrics=names, compat="xgboost")
    # what XGBoost takes, the preset takes, with XGBoost's value
    for names, y, params, options in (
        (["ndcg"], [31, 0, 1, 0], {}, {}),
        (["ndcg", "ndcg@2"], [0.5, 0, 1.5, 0], {"ndcg_exp_gain": False},
         {"gain": "linear"}),
    ):
        want = _xgboost_eval(y, s, names, **params)
        got = evaluate(y, s, metrics=names, compat="xgboost", **options)
        for name in names:
            assert close(got[name], want[name]), name


@pytest.mark.peers
def test_sklearn_refuses_what_the_preset_refuses():
    from sklearn import metrics

    one_row = ([[1.0]], [[0.5]])
    for name in ("ndcg_score", "dcg_score", "coverage_error", "label_ranking_loss"):
        with pytest.raises(ValueError):
            getattr(metrics, name)(*one_row)
        with pytest.raises(ValueError, match=f"compat='sklearn'.*{name}"):
            evaluate(*one_row, metrics=[name], compat="sklearn")
    # one query of one row among others, 1-D with query_id: sklearn per query
    with pytest.raises(ValueError, match="query 2 has one row"):
        skrank.ndcg_score([1, 0, 1], [2, 1, 1], query_id=[1, 1, 2], compat="sklearn")
    with pytest.raises(ValueError):
        metrics.average_precision_score(np.array([2, 0, 1]), np.array([3, 2, 1]))
    with pytest.raises(ValueError, match="compat='sklearn'.*binary"):
        skrank.average_precision_score([2, 0, 1], [3, 2, 1], compat="sklearn")
    # label_ranking_average_precision_score takes a one-item row: so does the preset
    assert skrank.label_ranking_average_precision_score(
        *one_row, compat="sklearn") == metrics.label_ranking_average_precision_score(
        *one_row)


@pytest.mark.peers
def test_torchmetrics_refuses_what_the_preset_refuses():
    pytest.importorskip("torch", reason="torch is not installed")
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    import torch
    from torchmetrics.functional import retrieval as tm

    preds, y = [0.9, 0.8, 0.7], [2.0, 0.0, 1.0]
    for name, function in (("map", tm.retrieval_average_precision),
                           ("mrr", tm.retrieval_reciprocal_rank),
                           ("precision@2", tm.retrieval_precision),
                           ("recall@2", tm.retrieval_recall),
                           ("hit_rate@2", tm.retrieval_hit_rate),
                           ("r_precision", tm.retrieval_r_precision)):
        with pytest.raises(ValueError):
            function(torch.tensor(preds), torch.tensor(y))
        with pytest.raises(ValueError, match="compat='torchmetrics'"):
            evaluate(y, preds, metrics=[name], compat="torchmetrics")
    # nDCG takes grades, in torchmetrics and under the preset
    want = float(tm.retrieval_normalized_dcg(torch.tensor(preds), torch.tensor(y)))
    assert close(skrank.ndcg_score(y, preds, compat="torchmetrics"), want)


def _ranx_dicts(y, s, q):
    qrels, run = {}, {}
    for i, (label, score, query) in enumerate(zip(y, s, q)):
        qrels.setdefault(str(query), {})[f"d{i}"] = label
        run.setdefault(str(query), {})[f"d{i}"] = float(score)
    return qrels, run


@pytest.mark.peers
@pytest.mark.parametrize("labels", ["integer", "fractional"])
def test_ranx_bpref_dcg_rbp(labels):
    ranx = pytest.importorskip("ranx", reason="ranx is not installed")
    rng = np.random.default_rng(7 if labels == "integer" else 8)
    sizes = rng.integers(2, 15, 14)
    # zero-padded ids, the query without a relevant row last: with the ids
    # 1, 4, ..., 40 ranx 0.3.21 gave one query of this data bpref 0 among the
    # others, and 0.32 scored alone (the value by hand); not investigated
    # further, as this test is about the presets
    q = np.repeat(np.array([f"q{i:02d}" for i in range(sizes.size)]), sizes)
    n = q.size
    y = rng.integers(0, 4, n).astype(np.float64)
    if labels == "fractional":  # ranx casts qrels to int: 1.7 is 1, 0.5 is 0
        y = y + rng.choice([0.0, 0.5, 0.7], n)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    y[starts] = 0.0  # every query has a judged non-relevant row (bpref)
    y[q == q[-1]] = 0.0  # a query with no relevant row
    s = rng.normal(size=n)
    order = rng.permutation(n)
    y, s, q = y[order], s[order], q[order]
    qrels, run = _ranx_dicts(y, s, q)
    names = ["bpref", "dcg", "dcg@5", "dcg_burges", "dcg_burges@3", "rbp.95",
             "rbp.5", "rbp@8", "ndcg@5", "map"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names,
                             make_comparable=True)
    got = evaluate(y, s, query_id=q, metrics=names, compat="ranx")
    for name in names:
        assert close(got[name], want[name]), name


@pytest.mark.peers
def test_ranx_bpref_nan_is_refused():
    ranx = pytest.importorskip("ranx", reason="ranx is not installed")
    y, s, q = [1, 2, 1, 0], [0.9, 0.8, 0.7, 0.6], ["a", "a", "b", "b"]
    qrels, run = _ranx_dicts(y, s, q)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["bpref", "map"],
                             return_mean=False, make_comparable=True)
    assert np.isnan(want["bpref"][0])  # query a: no judged non-relevant row
    with pytest.raises(ValueError, match="compat='ranx'.*bpref.*query 'a'"):
        evaluate(y, s, query_id=q, metrics=["bpref"], compat="ranx")


@pytest.mark.peers
def test_trec_eval_reads_relevance_as_integers(tmp_path):
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if binary is None:
        pytest.skip("no trec_eval binary (set TREC_EVAL=path to one built from NIST's sources)")
    y = [0.5, 1.7, 0.0, 2.2, 0.9, 3.0]  # trec_eval reads 0, 1, 0, 2, 0, 3
    s = [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]
    q = ["q1", "q1", "q1", "q2", "q2", "q2"]
    docs = [f"d{i}" for i in range(len(y))]
    (tmp_path / "qrels").write_text("".join(
        f"{query} 0 {doc} {label}\n" for query, doc, label in zip(q, docs, y)))
    (tmp_path / "run").write_text("".join(
        f"{query} Q0 {doc} {i + 1} {score} tag\n"
        for i, (query, doc, score) in enumerate(zip(q, docs, s))))
    measures = ["map", "ndcg", "ndcg_cut_2", "P_2", "recip_rank"]
    printed = subprocess.run(
        [binary, *(f"-m{m}" for m in ("map", "ndcg", "ndcg_cut.2", "P.2", "recip_rank")),
         str(tmp_path / "qrels"), str(tmp_path / "run")],
        capture_output=True, text=True, check=True).stdout
    want = {line.split()[0]: float(line.split()[2]) for line in printed.splitlines()
            if line.split()[1] == "all"}
    got = evaluate(y, s, query_id=q, metrics=measures, compat="trec_eval")
    for name in measures:
        assert close(got[name], want[name], tol=1e-4), name  # trec_eval prints 4 digits


def test_scorers_read_the_rows_as_the_preset_does():
    from sklearn.linear_model import LinearRegression

    y = np.array([0, 0.25, 0.5, 0.75, 1, 0, 1, 1, 0])
    X = np.arange(9, 0, -1.0)[:, None]  # predictions rank the rows in input order
    q = np.array([0] * 6 + [1] * 3)
    w = np.array([1.0] * 6 + [3.0] * 3)
    model = LinearRegression().fit(X, X[:, 0])
    names = ["PrecisionAt:top=2", "MAP:top=10", "NDCG"]
    many = skrank.get_scorer(names, compat="catboost")(model, X, y, query_id=q,
                                                       sample_weight=w)
    want = evaluate(y, model.predict(X), query_id=q, metrics=names, compat="catboost",
                    sample_weight=w)
    assert many == pytest.approx(want)
    # query 0: P@2 = 0 (labels 0 and 0.25); query 1: 1; unweighted
    assert many["PrecisionAt:top=2"] == pytest.approx(0.5)
    assert many["MAP:top=10"] == pytest.approx((0.325 + 1) / 2)


def test_explain_difference_refuses_rows_a_preset_reads_differently():
    # explain_difference changes options on the same rows; CatBoost's MAP would
    # read these labels (border 0.5) and weights (ignored) differently
    y, s = [0, 0.25, 0.5, 0.75, 1, 0], [6, 5, 4, 3, 2, 1]
    with pytest.raises(ValueError, match=r"compat='catboost'.*above 0.5"):
        skrank.explain_difference(y, s, metric="map@10", a={}, b="catboost")
    with pytest.raises(ValueError, match=r"compat='catboost'.*ignores the weights"):
        skrank.explain_difference([0, 1, 0, 1], [4, 3, 2, 1], metric="map@10",
                                  a={}, b="catboost", sample_weight=[1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"compat='sklearn'.*one row"):
        skrank.explain_difference([1], [1.0], metric="ndcg", a="sklearn", b={})
    # rows both sides read as given: the usual report
    result = skrank.explain_difference([0, 1, 0, 1], [4, 3, 2, 1], metric="map@10",
                                       a={}, b="catboost")
    assert result.value_b == pytest.approx((1 / 2 + 2 / 4) / 2)
