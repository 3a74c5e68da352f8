"""evaluate_run's measure names: under compat='trec_eval', skrank's name is trec_eval's measure."""

import os
import shutil
import subprocess

import numpy as np
import pytest

from skrank import evaluate_run
from skrank.cli._cli import main

from ._trec_data import awkward_case

#: skrank's name -> trec_eval's own name for the same measure
PAIRS = [("ndcg@10", "ndcg_cut_10"), ("ndcg", "ndcg"), ("map", "map"),
         ("map@5", "map_cut_5"), ("precision@5", "P_5"), ("recall@10", "recall_10"),
         ("mrr", "recip_rank"), ("r_precision", "Rprec"), ("hit_rate@1", "success_1"),
         ("bpref", "bpref"), ("hits", "num_rel_ret")]


@pytest.mark.parametrize("seed", range(6))
def test_under_trec_eval_skrank_names_give_trec_evals_numbers(seed):
    qrels, run = awkward_case(seed)
    names = [name for pair in PAIRS for name in pair]
    got = evaluate_run(qrels, run, names, compat="trec_eval")
    for ours, theirs in PAIRS:
        assert got.mean[ours] == got.mean[theirs], (seed, ours)
        np.testing.assert_array_equal(got.per_query[ours].value,
                                      got.per_query[theirs].value)


def test_without_a_preset_each_name_keeps_its_own_definition():
    # skrank's ndcg@10 has exponential gain, trec_eval's ndcg_cut_10 linear:
    # q1's run ranks grades 1, 2 (ideal 2, 1)
    qrels = {"q1": {"a": 1, "b": 2}}
    run = {"q1": {"a": 2.0, "b": 1.0}}
    got = evaluate_run(qrels, run, ["ndcg@10", "ndcg_cut_10"]).mean
    log3 = np.log2(3)
    assert got["ndcg_cut_10"] == pytest.approx((1 + 2 / log3) / (2 + 1 / log3))
    assert got["ndcg@10"] == pytest.approx((1 + 3 / log3) / (3 + 1 / log3))
    # the same files under the preset: trec_eval's number for both names
    same = evaluate_run(qrels, run, ["ndcg@10", "ndcg_cut_10"], compat="trec_eval").mean
    assert same["ndcg@10"] == same["ndcg_cut_10"] == got["ndcg_cut_10"]


def test_a_metric_trec_eval_lacks_is_refused_under_its_preset():
    qrels, run = awkward_case(0)
    with pytest.raises(ValueError, match="trec_eval has no metric 'fap'"):
        evaluate_run(qrels, run, ["fap"], compat="trec_eval")
    # a metric it has, at a cutoff it has no name for: the preset's options
    got = evaluate_run(qrels, run, ["precision", "num_ret", "mrr@3"], compat="trec_eval")
    assert set(got.mean) == {"precision", "num_ret", "mrr@3"}


def _write(tmp_path, qrels, run):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(
        f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(
        f"{q} Q0 {d} {i + 1} {s!r} tag\n"
        for q, docs in run.items() for i, (d, s) in enumerate(docs.items())))
    return str(qrels_path), str(run_path)


def test_the_command_prints_one_number_for_both_names(tmp_path, capsys):
    qrels, run = _write(tmp_path, *awkward_case(3))
    assert main(["evaluate", qrels, run, "--compat", "trec_eval", "--format", "trec",
                 "-m", "ndcg@10", "-m", "ndcg_cut_10", "-m", "precision@5", "-m", "P_5"]) == 0
    values = {line.split()[0]: line.split()[2]
              for line in capsys.readouterr().out.splitlines()}
    assert values["ndcg@10"] == values["ndcg_cut_10"]
    assert values["precision@5"] == values["P_5"]


def test_a_typo_in_the_command_gets_trec_evals_name(tmp_path, capsys):
    qrels, run = _write(tmp_path, *awkward_case(3))
    assert main(["evaluate", qrels, run, "--compat", "trec_eval", "-m", "ndgc_cut_10"]) == 2
    err = capsys.readouterr().err
    assert "Did you mean 'ndcg_cut_10'" in err and "'ndcg@10'" not in err


def test_skrank_names_match_the_trec_eval_binary(tmp_path):
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not binary:
        pytest.skip("no trec_eval binary (set TREC_EVAL=path to one built from NIST's sources)")
    for seed in range(5):
        qrels, run = awkward_case(40 + seed)
        del qrels["q_missing_from_run"]  # trec_eval 10.0 without -c stops there
        qrels_path, run_path = _write(tmp_path, qrels, run)
        out = subprocess.run([binary, "-m", "ndcg_cut.10", "-m", "P.5", "-m", "recip_rank",
                              qrels_path, run_path],
                             capture_output=True, check=True, text=True).stdout
        want = {line.split()[0]: line.split()[2] for line in out.splitlines()}
        got = evaluate_run(qrels_path, run_path, ["ndcg@10", "precision@5", "mrr"],
                           compat="trec_eval").mean
        assert f"{got['ndcg@10']:.4f}" == want["ndcg_cut_10"], seed
        assert f"{got['precision@5']:.4f}" == want["P_5"], seed
        assert f"{got['mrr']:.4f}" == want["recip_rank"], seed
