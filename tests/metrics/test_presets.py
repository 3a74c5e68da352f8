"""Convention presets give each peer's own number: the peers themselves are the reference.

Each test runs the peer (LightGBM's and XGBoost's built-in eval metrics on
the given scores, CatBoost's ``eval_metric``, scikit-learn per query, ranx,
torchmetrics, pytrec_eval) and compares skrank with ``compat=`` to it. A
missing peer skips its tests. The data has graded and binary labels, heavy
ties, float32-only ties, queries of 1 to 300 rows, queries without a
relevant row, shuffled rows, and string and integer ids.
"""

import warnings

import numpy as np
import pytest

import skrank
from skrank import describe_convention, evaluate
from skrank._core._presets import PRESETS
from skrank.metrics._registry import METRICS

SIZES = [1, 2, 3, 7, 40, 300, 5, 12, 60, 1, 9, 25]


def make_data(seed, *, graded=True, ties="heavy", string_ids=False):
    """Rows shuffled across queries; labels, scores and ids as described above."""
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(len(SIZES)), SIZES)
    n = query.shape[0]
    label = rng.integers(0, 4 if graded else 2, n).astype(np.float64)
    label[query == 2] = 0  # a query without a relevant row
    label[query == 9] = 0  # a one-row query without one
    if ties == "heavy":
        score = rng.integers(0, 4, n).astype(np.float64) - 1.0  # -1..2
    elif ties == "float32":  # distinct in float64, tied in float32
        base = rng.integers(0, 6, n).astype(np.float64) + 0.5
        score = base + rng.integers(0, 3, n) * 1e-9
    else:
        score = rng.normal(size=n)
    shuffle = rng.permutation(n)
    query, label, score = query[shuffle], label[shuffle], score[shuffle]
    ids = np.array([f"q{v:02d}" for v in query]) if string_ids else query * 7 + 3
    return label, score, ids


DATASETS = [
    pytest.param(dict(graded=True, ties="heavy"), id="graded-heavy"),
    pytest.param(dict(graded=False, ties="heavy", string_ids=True), id="binary-heavy-str"),
    pytest.param(dict(graded=True, ties="float32"), id="graded-float32"),
    pytest.param(dict(graded=False, ties="none", string_ids=True), id="binary-noties-str"),
]


def grouped(label, score, ids):
    """Rows sorted by query (stably: the input order within a query), and group sizes."""
    _, codes = np.unique(ids, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    return label[order], score[order], np.bincount(codes[order]), codes[order]


def close(a, b, tol=1e-6):
    return a == pytest.approx(b, rel=tol, abs=tol)


# -- the table ---------------------------------------------------------------


def test_every_preset_metric_is_a_registry_metric():
    for convention in PRESETS.values():
        for stem, metric in convention.metrics.items():
            assert stem in METRICS and metric.stem == stem


def test_each_metric_function_declares_its_registry_stem():
    # the preset step reads the stem off the function itself, not from a
    # table another module fills on import (issue 44)
    from skrank.metrics._presets_apply import stem_of

    for stem, spec in METRICS.items():
        assert stem_of(spec.func) == stem
    assert stem_of(skrank.fap_curve) is None  # a curve: no peer has it


def test_a_spec_naming_another_stem_than_its_function_is_refused():
    from skrank.metrics._registry import MetricSpec

    with pytest.raises(ValueError, match="declares the stem 'ndcg'"):
        MetricSpec("dcg", skrank.ndcg_score, True, lambda ranked, k: None)
    MetricSpec("mine", lambda y, s, *, query_id=None: 0.0, False,
               lambda ranked, k: None)  # a function without a stem: any name


def test_the_preset_module_keeps_no_table_that_others_fill():
    import skrank.metrics._presets_apply as module

    tables = [name for name, value in vars(module).items()
              if isinstance(value, (dict, list, set)) and not name.startswith("__")]
    assert tables == []


def test_a_function_without_a_stem_refuses_a_preset_saying_so():
    with pytest.raises(ValueError, match="LightGBM has no metric 'fap_curve'"):
        skrank.fap_curve([1, 0], [2, 1], compat="lightgbm")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_metric_is_reached_through_its_function(name):
    # the function of each metric a peer has runs under its preset: had the
    # function's stem not been found, the preset would say it lacks the metric
    y, s, q = [1, 0, 0, 1], [0.9, 0.8, 0.7, 0.6], [1, 1, 2, 2]
    for stem in PRESETS[name].metrics:
        value = METRICS[stem].func(y, s, query_id=q, compat=name)
        assert np.isfinite(value), stem


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_describe_convention_is_readable(name):
    text = repr(describe_convention(name))
    assert text.startswith(f"compat={name!r}")
    for stem in PRESETS[name].metrics:
        assert stem in text


def test_unknown_preset_and_missing_metric_are_clear_errors():
    with pytest.raises(ValueError, match="`compat`"):
        skrank.ndcg_score([1, 0], [1, 0], compat="lgbm")
    with pytest.raises(ValueError, match=r"LightGBM has no metric 'mrr'.*ndcg"):
        skrank.reciprocal_rank_score([1, 0], [1, 0], compat="lightgbm")
    with pytest.raises(ValueError, match=r"XGBoost has no metric 'recall'.*pre@"):
        evaluate([1, 0], [1, 0], metrics=["recall@5"], compat="xgboost")
    with pytest.raises(ValueError, match="has no metric"):
        skrank.fap_curve([1, 0], [1, 0], compat="sklearn")


def test_explicit_options_override_the_preset():
    y, s, q = make_data(0)
    linear = skrank.ndcg_score(y, s, query_id=q, k=10, compat="xgboost", gain="linear")
    by_hand = skrank.ndcg_score(
        y, s, query_id=q, k=10, gain="linear", ties="input", no_relevant="one",
        score_dtype="float32",
    )
    assert linear == by_hand
    minus = evaluate(y, s, query_id=q, metrics=["ndcg@10"], compat="xgboost",
                     no_relevant="zero")["ndcg@10"]
    assert minus == evaluate(y, s, query_id=q, metrics=["ndcg@10-"],
                             compat="xgboost")["ndcg@10-"]


def test_evaluate_equals_the_functions_under_a_preset():
    y, s, q = make_data(1, graded=False)
    for name in PRESETS:
        convention = PRESETS[name]
        for stem, metric in convention.metrics.items():
            spec = METRICS[stem]
            if spec.response_method != "auto" or stem == "gauc" and name != "catboost":
                continue
            key = f"{stem}@5" if spec.takes_k else stem
            kwargs = {"k": 5} if spec.takes_k else {}
            if name == "ranx" and stem == "rbp":  # ranx's rbp.5 is p=0.5, no cutoff
                key, kwargs = "rbp.5", {"p": 0.5}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = _value_or_refusal(
                    lambda: evaluate(y, s, query_id=q, metrics=[key], compat=name)[key])
                want = _value_or_refusal(lambda: spec.func(
                    y, s, query_id=q, compat=name, **kwargs, **spec.options))
            if isinstance(want, str):  # the peer refuses these rows: both say so
                assert got == want, (name, key)
            else:
                assert close(got, want), (name, key)


def _value_or_refusal(compute):
    try:
        return compute()
    except ValueError as error:
        assert str(error).startswith("compat=")
        return str(error)


# -- new conventions, from their definitions -----------------------------------


def test_pessimistic_and_optimistic_ties_order_by_label():
    y, s = [1, 0, 2, 0], [1.0, 1.0, 1.0, 0.0]
    # pessimistic: 0, 1, 2 then the last row; optimistic: 2, 1, 0
    assert skrank.dcg_score(y, s, gain="linear", ties="pessimistic") == pytest.approx(
        0 + 1 / np.log2(3) + 2 / np.log2(4))
    assert skrank.dcg_score(y, s, gain="linear", ties="optimistic") == pytest.approx(
        2 + 1 / np.log2(3))


def test_position_discount_and_min_precision():
    assert skrank.dcg_score([0, 1, 1], [3, 2, 1], gain="linear",
                            discount="position") == pytest.approx(1 / 2 + 1 / 3)
    assert skrank.precision_at_k_score([1, 0, 1], [3, 2, 1], k=10,
                                       normalize="min") == pytest.approx(2 / 3)


def test_threshold_average_precision_is_sklearns():
    from sklearn.metrics import average_precision_score

    rng = np.random.default_rng(3)
    for _ in range(20):
        y = rng.integers(0, 2, 30)
        y[0] = 1
        s = rng.integers(0, 5, 30)
        assert close(
            skrank.average_precision_score(y, s, tie_blocks="threshold"),
            average_precision_score(y, s),
        )


def test_score_conventions():
    # 1 + 1e-9 and 1 are equal in float32: averaged, they tie
    y, s = [0, 1], [1.0 + 1e-9, 1.0]
    assert skrank.precision_at_k_score(y, s, k=1) == 0.0
    assert skrank.precision_at_k_score(y, s, k=1, score_dtype="float32") == 0.5
    # a relevant row scored 0 is not a hit, but counts in R
    y, s = [1, 1, 0], [0.0, 0.5, 0.2]
    assert skrank.recall_at_k_score(y, s, k=3, retrieved="positive") == 0.5
    assert skrank.gauc_score([1, 1, 0, 1], [1, 2, 3, 3], query_id=[1, 1, 2, 2],
                             one_class="zero", weighting="uniform") == 0.25
    # (query 1 has one class: 0; query 2 ties its two rows: 1/2)


# -- the peers themselves ------------------------------------------------------


@pytest.mark.peers
@pytest.mark.parametrize("data", DATASETS)
def test_lightgbm(data):
    lgb = pytest.importorskip("lightgbm", reason="LightGBM is not installed")
    y, s, q = make_data(10, **data)
    gy, gs, sizes, _ = grouped(y, s, q)
    X = np.zeros((gy.shape[0], 1))
    result = {}
    dataset = lgb.Dataset(X, label=gy, group=sizes, init_score=gs)
    lgb.train(
        {"objective": "lambdarank", "learning_rate": 1e-300, "verbose": -1,
         "metric": ["ndcg", "map"], "eval_at": [1, 3, 10, 1000]},
        dataset, 1, valid_sets=[dataset], valid_names=["d"],
        callbacks=[lgb.record_evaluation(result)],
    )
    for name, values in result["d"].items():
        got = evaluate(y, s, query_id=q, metrics=[name], compat="lightgbm")[name]
        assert close(got, values[0]), name


@pytest.mark.peers
def test_lightgbm_weights_queries_by_their_mean_row_weight():
    lgb = pytest.importorskip("lightgbm", reason="LightGBM is not installed")
    y, s, q = make_data(19, graded=True, ties="none")
    # every query with a relevant row: LightGBM adds the others unweighted
    # (see describe_convention("lightgbm")), which skrank does not copy
    has = {v: (y[q == v] > 0).any() for v in np.unique(q)}
    keep = np.array([has[v] for v in q])
    y, s, q = y[keep], s[keep], q[keep]
    weight = np.random.default_rng(19).random(y.shape[0]) + 0.1
    _, codes = np.unique(q, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    result = {}
    dataset = lgb.Dataset(np.zeros((y.shape[0], 1)), label=y[order],
                          group=np.bincount(codes), init_score=s[order],
                          weight=weight[order])
    lgb.train(
        {"objective": "lambdarank", "learning_rate": 1e-300, "verbose": -1,
         "metric": ["ndcg"], "eval_at": [3]},
        dataset, 1, valid_sets=[dataset], valid_names=["d"],
        callbacks=[lgb.record_evaluation(result)],
    )
    got = skrank.ndcg_score(y, s, query_id=q, k=3, compat="lightgbm",
                            sample_weight=weight)
    assert close(got, result["d"]["ndcg@3"][0])  # LightGBM's weights are float32


@pytest.mark.peers
@pytest.mark.parametrize("data", DATASETS)
def test_xgboost(data):
    xgb = pytest.importorskip("xgboost", reason="XGBoost is not installed")
    y, s, q = make_data(11, **data)
    if data["graded"]:
        names = ["ndcg", "ndcg@3", "ndcg@10-", "ndcg@1000"]
    else:
        names = ["ndcg@5", "map", "map@3", "map@10-", "pre", "pre@3", "pre@100"]
    gy, gs, sizes, _ = grouped(y, s, q)
    matrix = xgb.DMatrix(np.zeros((gy.shape[0], 1)), label=gy, base_margin=gs)
    matrix.set_group(sizes)
    result = {}
    xgb.train(
        {"objective": "rank:ndcg", "eta": 0, "eval_metric": names, "base_score": 0},
        matrix, 1, evals=[(matrix, "d")], evals_result=result, verbose_eval=False,
    )
    got = evaluate(y, s, query_id=q, metrics=names, compat="xgboost")
    for name in names:
        assert close(got[name], result["d"][name][0]), name
    # the function with the preset: the bare name's cutoff 32
    assert close(skrank.ndcg_score(y, s, query_id=q, compat="xgboost"),
                 got.get("ndcg", skrank.ndcg_score(y, s, query_id=q, compat="xgboost", k=32)))


@pytest.mark.peers
def test_xgboost_linear_gain_is_an_override():
    xgb = pytest.importorskip("xgboost", reason="XGBoost is not installed")
    y, s, q = make_data(18, graded=True, ties="float32")
    gy, gs, sizes, _ = grouped(y, s, q)
    matrix = xgb.DMatrix(np.zeros((gy.shape[0], 1)), label=gy, base_margin=gs)
    matrix.set_group(sizes)
    result = {}
    xgb.train(
        {"objective": "rank:ndcg", "eta": 0, "eval_metric": ["ndcg@5", "ndcg@5-"],
         "base_score": 0, "ndcg_exp_gain": False},
        matrix, 1, evals=[(matrix, "d")], evals_result=result, verbose_eval=False,
    )
    got = evaluate(y, s, query_id=q, metrics=["ndcg@5", "ndcg@5-"], compat="xgboost",
                   gain="linear")
    assert close(got["ndcg@5"], result["d"]["ndcg@5"][0])
    assert close(got["ndcg@5-"], result["d"]["ndcg@5-"][0])
    assert close(skrank.ndcg_score(y, s, query_id=q, k=5, compat="xgboost",
                                   gain="linear", no_relevant="zero"),
                 result["d"]["ndcg@5-"][0])


@pytest.mark.peers
@pytest.mark.parametrize("data", DATASETS)
def test_catboost(data):
    pytest.importorskip("catboost", reason="CatBoost is not installed")
    from catboost.utils import eval_metric

    y, s, q = make_data(12, **data)
    gy, gs, _, codes = grouped(y, s, q)
    names = ["NDCG:top=5", "NDCG", "DCG:top=3", "NDCG:top=5;type=Exp",
             "NDCG:top=10;denominator=Position"]
    if not data["graded"]:
        names += ["MAP:top=5", "MAP:top=500", "PrecisionAt:top=5",
                  "PrecisionAt:top=100", "RecallAt:top=5", "MRR", "MRR:top=3",
                  "QueryAUC"]
    got = evaluate(y, s, query_id=q, metrics=names, compat="catboost")
    for name in names:
        assert close(got[name], eval_metric(gy, gs, name, group_id=codes)[0]), name


def _per_query(y, s, q):
    for value in np.unique(q):
        rows = q == value
        yield y[rows], s[rows]


@pytest.mark.peers
@pytest.mark.parametrize("data", DATASETS)
def test_sklearn(data):
    from sklearn.metrics import average_precision_score, dcg_score, ndcg_score

    y, s, q = make_data(13, **data)
    # scikit-learn refuses one-row queries for nDCG: leave them out for both
    sizes = {v: np.sum(q == v) for v in np.unique(q)}
    keep = np.array([sizes[v] > 1 for v in q])
    y, s, q = y[keep], s[keep], q[keep]
    for k in (None, 5):
        want = np.mean([ndcg_score([a], [b], k=k) for a, b in _per_query(y, s, q)])
        assert close(skrank.ndcg_score(y, s, query_id=q, k=k, compat="sklearn"), want)
        want = np.mean([dcg_score([a], [b], k=k) for a, b in _per_query(y, s, q)])
        assert close(skrank.dcg_score(y, s, query_id=q, k=k, compat="sklearn"), want)
    if not data["graded"]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no positive class in some queries
            want = np.mean([average_precision_score(a, b) for a, b in _per_query(y, s, q)])
        got = evaluate(y, s, query_id=q, metrics=["average_precision_score"],
                       compat="sklearn")
        assert close(got["average_precision_score"], want)


def _run_dicts(y, s, q):
    qrels, run = {}, {}
    for i, (label, score, query) in enumerate(zip(y, s, q)):
        qrels.setdefault(str(query), {})[f"d{i}"] = int(label)
        run.setdefault(str(query), {})[f"d{i}"] = float(score)
    return qrels, run


@pytest.mark.peers
@pytest.mark.parametrize("data", [
    pytest.param(dict(graded=True, ties="none"), id="graded"),
    pytest.param(dict(graded=False, ties="none", string_ids=True), id="binary-str"),
])
def test_ranx(data):
    ranx = pytest.importorskip("ranx", reason="ranx is not installed")
    y, s, q = make_data(14, **data)
    qrels, run = _run_dicts(y, s, q)
    names = ["ndcg@5", "ndcg", "ndcg_burges@5", "map@10", "map", "precision@5",
             "recall@10", "mrr", "hit_rate@3", "hits@5", "r-precision", "f1@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), names, make_comparable=True)
    got = evaluate(y, s, query_id=q, metrics=names, compat="ranx")
    for name in names:
        assert close(got[name], want[name]), name


@pytest.mark.peers
@pytest.mark.parametrize("data", DATASETS)
def test_torchmetrics(data):
    pytest.importorskip("torch", reason="torch is not installed")
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    import torch
    from torchmetrics.functional import retrieval as tm

    y, s, q = make_data(15, **data)
    s = s - 0.5  # some rows score <= 0
    functions = {
        "retrieval_normalized_dcg": (tm.retrieval_normalized_dcg, True),
        "retrieval_average_precision": (tm.retrieval_average_precision, False),
        "retrieval_reciprocal_rank": (tm.retrieval_reciprocal_rank, False),
        "retrieval_precision": (tm.retrieval_precision, False),
        "retrieval_recall": (tm.retrieval_recall, False),
        "retrieval_hit_rate": (tm.retrieval_hit_rate, False),
    }
    if data["ties"] != "none":  # torch's order of tied rows is undefined outside nDCG
        functions = {"retrieval_normalized_dcg": functions["retrieval_normalized_dcg"]}
    for name, (function, graded) in functions.items():
        labels = y if graded else (y > 0).astype(np.float64)
        for k in (None, 5):
            values = []
            for a, b in _per_query(labels, s, q):
                preds = torch.tensor(b, dtype=torch.float64)
                target = torch.tensor(a if graded else a.astype(bool))
                if not a.any():
                    values.append(0.0)  # empty_target_action="neg"
                    continue
                values.append(float(function(preds, target, top_k=k)))
            if k is not None:
                got = _torch_function(name)(labels, s, query_id=q, k=k,
                                            compat="torchmetrics")
            elif name == "retrieval_precision":  # top_k=None: every row counts
                got = evaluate(labels, s, query_id=q, metrics=[name],
                               compat="torchmetrics", normalize="min")[name]
            else:
                got = evaluate(labels, s, query_id=q, metrics=[name],
                               compat="torchmetrics")[name]
            assert close(got, np.mean(values)), (name, k)


def _torch_function(name):
    stem = next(stem for stem, metric in PRESETS["torchmetrics"].metrics.items()
                if name in metric.names)
    return METRICS[stem].func


@pytest.mark.peers
@pytest.mark.parametrize("data", [
    pytest.param(dict(graded=True, ties="none"), id="graded"),
    pytest.param(dict(graded=False, ties="none", string_ids=True), id="binary-str"),
])
def test_pytrec_eval(data):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval is not installed")
    y, s, q = make_data(16, **data)
    qrels, run = _run_dicts(y, s, q)
    measures = {"ndcg": "ndcg", "ndcg_cut_5": "ndcg_cut_5", "map": "map",
                "map_cut_10": "map_cut_10", "P_5": "P_5", "recall_10": "recall_10",
                "recip_rank": "recip_rank", "Rprec": "Rprec"}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {"ndcg", "ndcg_cut.5", "map", "map_cut.10", "P.5", "recall.10",
                "recip_rank", "Rprec"})
    per_query = evaluator.evaluate(run)
    got = evaluate(y, s, query_id=q, metrics=list(measures), compat="trec_eval",
                   score_dtype="float32")
    for name, measure in measures.items():
        want = np.mean([values[measure] for values in per_query.values()])
        assert close(got[name], want), name


# -- scorers -------------------------------------------------------------------


def test_scorers_take_a_preset():
    from sklearn.linear_model import LinearRegression

    y, s, q = make_data(20, graded=False)
    X = s[:, None]
    model = LinearRegression().fit(X, s)  # its predictions rank as s does
    scores = model.predict(X)
    scorer = skrank.get_scorer("ndcg@5", compat="lightgbm")
    assert scorer(model, X, y, query_id=q) == skrank.ndcg_score(
        y, scores, query_id=q, k=5, compat="lightgbm")
    scorer = skrank.make_ranking_scorer("ndcg@5-", compat="xgboost")
    assert scorer(model, X, y, query_id=q) == skrank.ndcg_score(
        y, scores, query_id=q, k=5, compat="xgboost", no_relevant="zero")
    scorer = skrank.make_ranking_scorer("ndcg@5", compat="xgboost", gain="linear")
    assert scorer(model, X, y, query_id=q) == skrank.ndcg_score(
        y, scores, query_id=q, k=5, compat="xgboost", gain="linear")
    names = ["NDCG:top=5", "MAP:top=3", "QueryAUC"]
    many = skrank.get_scorer(names, compat="catboost")(model, X, y, query_id=q)
    assert many == evaluate(y, scores, query_id=q, metrics=names, compat="catboost")
    with pytest.raises(ValueError, match="LightGBM has no metric 'mrr'"):
        skrank.get_scorer("mrr", compat="lightgbm")


# -- evaluate_run and the command ---------------------------------------------

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 2}, "q3": {"d9": 0}}
RUN = {"q1": {"d1": 0.9, "d2": 0.9, "d3": 0.1}, "q2": {"d4": 1.0, "d5": 1.0},
       "q3": {"d9": 1.0}}
# the run's lines as rows (in order), labelled by the qrels
ROWS = dict(y_true=[1, 0, 2, 2, 0, 0], y_score=[0.9, 0.9, 0.1, 1.0, 1.0, 1.0],
            query_id=["q1", "q1", "q1", "q2", "q2", "q3"])


def test_evaluate_run_under_a_preset_scores_the_runs_lines():
    result = skrank.evaluate_run(QRELS, RUN, ["ndcg@2", "map@2"], compat="lightgbm")
    want = evaluate(ROWS["y_true"], ROWS["y_score"], query_id=ROWS["query_id"],
                    metrics=["ndcg@2", "map@2"], compat="lightgbm")
    assert result.mean == pytest.approx(want)
    assert result.n_without_relevant == 1
    explicit = skrank.evaluate_run(QRELS, RUN, ["ndcg@2-"], compat="xgboost",
                                   no_relevant="skip")
    assert explicit.mean["ndcg@2-"] == pytest.approx(evaluate(
        ROWS["y_true"], ROWS["y_score"], query_id=ROWS["query_id"],
        metrics=["ndcg@2"], compat="xgboost", no_relevant="skip")["ndcg@2"])
    with pytest.raises(ValueError, match="max_docs"):
        skrank.evaluate_run(QRELS, RUN, ["ndcg@2"], compat="lightgbm", max_docs=2)
    # trec_eval's path is unchanged: ties by docno descending (d2 before d1,
    # d5 before d4), q3 without a relevant document scores 0
    assert skrank.evaluate_run(QRELS, RUN, ["map"], compat="trec_eval").mean["map"] == (
        pytest.approx(((1 / 2 + 2 / 3) / 2 + 1 / 2 + 0) / 3))


def test_the_command_takes_every_preset(tmp_path, capsys):
    from skrank.cli._cli import _PRESETS, main

    assert _PRESETS == tuple(PRESETS)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items()
                             for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {s} tag\n" for q, docs in RUN.items()
                           for i, (d, s) in enumerate(docs.items())))
    assert main(["evaluate", str(qrels), str(run), "-m", "ndcg@2", "--format", "json",
                 "--compat", "lightgbm"]) == 0
    import json

    printed = json.loads(capsys.readouterr().out)
    assert printed["mean"]["ndcg@2"] == pytest.approx(skrank.evaluate_run(
        QRELS, RUN, ["ndcg@2"], compat="lightgbm").mean["ndcg@2"])
    assert main(["explain", str(qrels), str(run), "-m", "ndcg@2", "--a", "ranx",
                 "--b", "lightgbm"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ndcg@2:") and "no_relevant: 'zero' -> 'one'" in out
    # q3 has one row, on which scikit-learn's ndcg_score raises: so does its side
    assert main(["explain", str(qrels), str(run), "-m", "ndcg@2", "--a", "sklearn",
                 "--b", "lightgbm"]) == 2
    assert "compat='sklearn'" in capsys.readouterr().err
    assert main(["explain", str(qrels), str(run), "-m", "mrr", "--a", "sklearn"]) == 2
    assert "has no metric 'mrr'" in capsys.readouterr().err


# -- the faces built on evaluate -----------------------------------------------


def test_evaluate_by_follows_the_preset():
    y, s, q = make_data(21, graded=False)
    by = np.where(np.isin(q, q[:40]), "a", "b")
    result = skrank.evaluate_by(y, s, query_id=q, by=by, metrics=["ndcg@5"],
                                compat="lightgbm", n_resamples=50)
    per_query = evaluate(y, s, query_id=q, metrics=["ndcg@5"], compat="lightgbm",
                         aggregate=None)["ndcg@5"]
    # the overall line is the preset's mean (LightGBM: every query counts)
    assert f"ndcg@5 {np.mean(per_query.value):.4f}" in repr(result)


def test_the_accumulator_refuses_a_preset_clearly():
    with pytest.raises(ValueError, match=r"`compat`.*ties='input', gain='exponential'"):
        skrank.RankingAccumulator(["ndcg@5"], compat="lightgbm")
    with pytest.raises(ValueError, match="`score_dtype`"):
        skrank.RankingAccumulator(["ndcg@5"], score_dtype="float32")


@pytest.mark.peers
@pytest.mark.slow
def test_spark():
    pytest.importorskip("pyspark", reason="pyspark is not installed")
    import shutil

    if shutil.which("java") is None:
        pytest.skip("Spark needs a Java runtime")
    from pyspark.mllib.evaluation import RankingMetrics
    from pyspark.sql import SparkSession

    y, s, q = make_data(17, graded=False, ties="none", string_ids=True)
    rows = []
    for query in np.unique(q):
        inside = np.flatnonzero(q == query)
        order = inside[np.argsort(-s[inside], kind="stable")]
        rows.append(([int(i) for i in order], [int(i) for i in inside[y[inside] > 0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spark = SparkSession.builder.master("local[1]").getOrCreate()
        metrics = RankingMetrics(spark.sparkContext.parallelize(rows))
        want = {"meanAveragePrecision": metrics.meanAveragePrecision}
        for k in (1, 3, 10, 500):
            want[f"precisionAt({k})"] = metrics.precisionAt(k)
            want[f"ndcgAt({k})"] = metrics.ndcgAt(k)
            want[f"recallAt({k})"] = metrics.recallAt(k)
            want[f"meanAveragePrecisionAt({k})"] = metrics.meanAveragePrecisionAt(k)
    got = evaluate(y, s, query_id=q, metrics=list(want), compat="spark")
    for name, value in want.items():
        assert close(got[name], value), name


@pytest.mark.peers
def test_query_group_ranker_logs_lightgbms_own_number():
    lgb = pytest.importorskip("lightgbm", reason="LightGBM is not installed")
    from skrank.datasets import load_digits_retrieval

    data = load_digits_retrieval(n_queries=40, n_candidates=20)
    X, y, q = data.data, data.target, data.query_id
    y = np.where(np.arange(y.shape[0]) % 7 == 0, 0, y)  # some queries lose relevant rows
    y[q == 3] = 0

    def logged(**params):
        ranker = skrank.QueryGroupRanker(
            lgb.LGBMRanker(n_estimators=4, verbose=-1, **params.pop("lgb")),
            validation_fraction=0.4, random_state=0, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ranker.fit(X, y, query_id=q)
        return list(ranker.estimator_.evals_result_.values())[0]

    own = logged(lgb={"metric": "ndcg", "eval_at": [5]})["ndcg@5"]
    ours = logged(lgb={"metric": "None"}, eval_metric=["ndcg@5"], compat="lightgbm")
    np.testing.assert_allclose(ours["ndcg@5"], own, rtol=1e-9)
    with pytest.raises(ValueError, match="LightGBM has no metric 'mrr'"):
        skrank.QueryGroupRanker(lgb.LGBMRanker(), validation_fraction=0.3,
                                eval_metric=["mrr"], compat="lightgbm").fit(X, y, query_id=q)


# -- one preset applied to one call: preset_request ------------------------------


def test_preset_request_fills_what_the_caller_did_not_give():
    from skrank._core._presets import preset_request

    request = preset_request("xgboost", "precision")
    assert request.k == 32  # XGBoost's "pre" is pre@32
    assert request.options == {"ties": "input", "score_dtype": "float32",
                               "gain": "exponential", "no_relevant": "zero",
                               "normalize": "min"}
    assert request.peer_name == "pre"
    assert request.peer is not None and request.peer.rules == ("binary",)


def test_preset_request_keeps_what_the_caller_gave_none_included():
    from skrank._core._presets import preset_request

    request = preset_request("xgboost", "precision",
                             {"k": None, "ties": "average", "normalize": "k"},
                             takes={"ties", "normalize", "no_relevant"})
    assert request.k is None  # an explicit k=None is the whole list
    # the caller's win; the preset's options the metric does not take go
    assert request.options == {"ties": "average", "normalize": "k",
                               "no_relevant": "zero"}


def test_preset_request_adds_the_options_of_the_peers_name():
    from skrank._core._presets import preset_request

    request = preset_request("xgboost", "ndcg", {"k": 5}, extra={"no_relevant": "zero"})
    assert (request.k, request.options["no_relevant"]) == (5, "zero")
    assert preset_request("xgboost", "ndcg", {"k": 5}).options["no_relevant"] == "one"


def test_preset_request_refuses_a_metric_the_peer_lacks():
    from skrank._core._presets import preset_request

    with pytest.raises(ValueError, match="LightGBM has no metric 'mrr'"):
        preset_request("lightgbm", "mrr")


def _beyond_xgboosts_cutoff():
    # one query of 40 rows in score order: relevant are the first 4 and the last 4
    y = [1] * 4 + [0] * 32 + [1] * 4
    return y, list(range(40, 0, -1))


def test_skranks_bare_name_and_the_peers_give_one_number_everywhere():
    # under XGBoost, "precision" is "pre" (pre@32): 4 hits in the top 32,
    # divided by min(32, 40); the whole list would give 8 / 40
    y, s = _beyond_xgboosts_cutoff()
    expected = 4 / 32
    assert skrank.precision_at_k_score(y, s, compat="xgboost") == expected
    assert evaluate(y, s, metrics=["precision", "pre", "pre@32"], compat="xgboost") == {
        "precision": expected, "pre": expected, "pre@32": expected}
    scorer = skrank.get_scorer(["precision", "pre"], compat="xgboost")
    assert scorer.evaluate_scores(y, s, [0] * 40) == {"precision": expected,
                                                      "pre": expected}
    explained = skrank.explain_difference(y, s, metric="precision", a="xgboost",
                                          b="trec_eval")
    assert explained.value_a == expected
    assert explained.value_b == 8 / 40  # trec_eval's P without a cutoff: the list


def test_an_explicit_cutoff_of_none_wins_over_the_peers_in_every_scorer():
    # k=None given on purpose is the whole list, in one scorer or many: 8 / 40
    y, s = _beyond_xgboosts_cutoff()
    single = skrank.make_ranking_scorer(skrank.precision_at_k_score, k=None,
                                        compat="xgboost")
    many = skrank.make_ranking_scorer({"p": single, "n": "ndcg"})
    assert single.evaluate_scores(y, s, [0] * 40) == {repr(single): 8 / 40}
    assert many.evaluate_scores(y, s, [0] * 40)["p"] == 8 / 40
