"""One resolution of a metric name under a preset (``skrank/metrics/_names.py``)."""

import numpy as np
import pytest

from skrank import evaluate, evaluate_run, explain_difference, get_scorer
from skrank._core._presets import PRESETS, peer_name_for
from skrank.metrics._names import resolve_metric_name


def _data(seed=0, n_queries=12):
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), 7)
    y = (rng.random(q.shape[0]) < 0.4).astype(float)  # 0/1: every metric takes it
    y[q == 0] = 0  # a query without a relevant row
    s = rng.integers(0, 4, q.shape[0]).astype(float)  # ties
    return y, s, q


def _every_peer_name():
    for convention in PRESETS.values():
        for metric in convention.metrics.values():
            for name in metric.names:
                yield convention.name, name.replace("{k}", "3")
        for alias in convention.aliases:
            yield convention.name, alias


@pytest.mark.parametrize("preset, name", list(_every_peer_name()))
def test_explain_takes_every_peer_name_the_preset_table_knows(preset, name):
    y, s, q = _data()
    result = explain_difference(y, s, query_id=q, metric=name, a={}, b=preset)
    want = evaluate(y, s, query_id=q, metrics=[name], compat=preset)[name]
    np.testing.assert_equal(result.value_b, want)


@pytest.mark.parametrize("name, a, b, name_a, name_b", [
    # the names of the issue, each read by each side as that side's metric
    ("ndcg@3-", "sklearn", "xgboost", "ndcg@3", "ndcg@3-"),
    ("NDCG:top=3", "catboost", "lightgbm", "NDCG:top=3", "ndcg@3"),
    ("pre@3", "ranx", "xgboost", "precision@3", "pre@3"),
    ("P_3", "trec_eval", "ranx", "P_3", "precision@3"),
    ("ndcg_cut_10", "sklearn", "lightgbm", "ndcg@10", "ndcg@10"),
])
def test_explain_reads_a_peer_name_on_both_sides(name, a, b, name_a, name_b):
    y, s, q = _data(1)
    result = explain_difference(y, s, query_id=q, metric=name, a=a, b=b)
    assert result.value_a == evaluate(y, s, query_id=q, metrics=[name_a], compat=a)[name_a]
    assert result.value_b == evaluate(y, s, query_id=q, metrics=[name_b], compat=b)[name_b]


def test_a_peer_name_that_fixes_options_of_a_peer_on_neither_side_is_refused():
    y, s, q = _data()
    with pytest.raises(ValueError, match="XGBoost's name for 'ndcg' with no_relevant"):
        explain_difference(y, s, query_id=q, metric="ndcg@3-", a="sklearn", b="lightgbm")
    with pytest.raises(ValueError, match="compat='catboost' only"):
        explain_difference(y, s, query_id=q, metric="NDCG:top=3;type=Exp", a={},
                           b="sklearn")


def test_under_a_preset_skranks_name_and_the_peers_give_one_number():
    y, s, q = _data(2)
    pairs = {"trec_eval": [("ndcg@10", "ndcg_cut_10"), ("map@5", "map_cut_5"),
                           ("precision@5", "P_5"), ("mrr", "recip_rank"),
                           ("r_precision", "Rprec"), ("hit_rate@1", "success_1")],
             "catboost": [("ndcg@3", "NDCG:top=3"), ("map", "MAP")],
             "xgboost": [("precision@3", "pre@3")]}
    for preset, names in pairs.items():
        for ours, theirs in names:
            got = evaluate(y, s, query_id=q, metrics=[ours, theirs], compat=preset)
            assert got[ours] == got[theirs], (preset, ours)


def test_peer_name_for_a_stem_and_cutoff():
    trec = PRESETS["trec_eval"]
    assert peer_name_for(trec, "ndcg", 10) == "ndcg_cut_10"
    assert peer_name_for(trec, "ndcg", None) == "ndcg"
    assert peer_name_for(trec, "precision", 5) == "P_5"
    assert peer_name_for(trec, "precision", None) is None  # trec_eval's P needs a cutoff
    assert peer_name_for(trec, "mrr", 10) is None  # recip_rank has none
    assert peer_name_for(trec, "fap", None) is None
    assert resolve_metric_name("ndcg@10", "trec_eval").peer_name == "ndcg_cut_10"
    assert resolve_metric_name("ndcg@10").options == {}


@pytest.mark.parametrize("call", [
    lambda name: evaluate([1, 0], [2, 1], metrics=[name], compat="trec_eval"),
    lambda name: evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name]),
    lambda name: evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name],
                              compat="trec_eval"),
])
def test_a_trec_eval_style_typo_gets_trec_evals_names(call):
    with pytest.raises(ValueError, match="Did you mean 'ndcg_cut_10'") as info:
        call("ndgc_cut_10")
    assert "'ndcg@10'" not in str(info.value)
    with pytest.raises(ValueError, match="Did you mean 'recip_rank'"):
        call("recip_rnak")
    # a typo in skrank's style still gets skrank's names
    with pytest.raises(ValueError, match="Did you mean 'precision@10'"):
        call("p@10")


def test_a_peers_typo_gets_the_peers_names():
    with pytest.raises(ValueError, match="Did you mean 'NDCG:top=5'"):
        evaluate([1, 0], [2, 1], metrics=["NDGC:top=5"], compat="catboost")
    with pytest.raises(ValueError, match="Did you mean 'ndcg@10-'"):
        evaluate([1, 0], [2, 1], metrics=["ndgc@10-"], compat="xgboost")
    # without a preset skrank's names are the only ones accepted, and the
    # message says where the peer's name is
    with pytest.raises(ValueError, match="Did you mean 'ndcg@10'.*accepted under "
                                         "compat='trec_eval'"):
        evaluate([1, 0], [2, 1], metrics=["ndcg_cut_10"])


@pytest.mark.parametrize("call", [
    lambda name: evaluate([1, 0], [2, 1], metrics=[name]),
    lambda name: get_scorer(name),
    lambda name: evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, [name]),
    lambda name: explain_difference([1, 0], [2, 1], metric=name),
])
@pytest.mark.parametrize("name", ["ndcg@-1", "ndcg@0", "ndcg@1.5"])
def test_a_cutoff_that_is_not_a_positive_integer_says_so(call, name):
    with pytest.raises(ValueError, match="must be a positive integer") as info:
        call(name)
    assert "Did you mean" not in str(info.value)
