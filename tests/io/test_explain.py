"""``skrank explain QRELS RUN``: a trec_eval side is trec_eval's number on the files."""

import os
import shutil
import subprocess

import numpy as np
import pytest

from skrank import evaluate, evaluate_run
from skrank.cli._cli import main
from skrank.io._explain import explain_run

from ._trec_data import awkward_case


def _write(tmp_path, qrels, run, name=""):
    """TREC files from dicts of dicts; run lines in the dict's order."""
    qrels_path, run_path = tmp_path / f"qrels{name}", tmp_path / f"run{name}"
    qrels_path.write_text("".join(
        f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(
        f"{q} Q0 {d} {i + 1} {s!r} tag\n"
        for q, docs in run.items() for i, (d, s) in enumerate(docs.items())))
    return str(qrels_path), str(run_path)


def test_a_relevant_document_the_run_missed_counts_in_r(tmp_path):
    # d2 is relevant and never retrieved: trec_eval's AP is (1/1) / R = 1/2;
    # the run's lines alone hold one relevant row, AP 1
    qrels, run = _write(tmp_path, {"q1": {"d1": 1, "d2": 1}}, {"q1": {"d1": 1.0}})
    result = explain_run(qrels, run, metric="map", a="trec_eval", b="lightgbm")
    assert result.value_a == 1 / 2
    assert result.value_b == 1.0
    assert result.steps[0]["option"] == "rows"
    assert result.steps[0]["change"] == 1.0 - 1 / 2
    assert sum(step["change"] for step in result.steps) == pytest.approx(
        result.value_b - result.value_a)


def test_tied_scores_go_by_document_id_descending(tmp_path):
    # d1 (not relevant) comes first in the file, d2 (relevant) ties with it:
    # trec_eval ranks d2 first (ids descending), AP 1; file order gives 1/2
    qrels, run = _write(tmp_path, {"q1": {"d1": 0, "d2": 1}},
                        {"q1": {"d1": 1.0, "d2": 1.0}})
    result = explain_run(qrels, run, metric="map", a="lightgbm", b="trec_eval")
    assert result.value_a == 1 / 2
    assert result.value_b == 1.0
    assert result.steps[-1]["option"] == "rows"


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", ["ndcg@10", "map", "precision@5", "ndcg_cut_5",
                                    "recall@10", "mrr"])
def test_the_trec_eval_side_is_evaluate_runs_number(tmp_path, seed, metric):
    qrels, run = _write(tmp_path, *awkward_case(seed))
    for a, b in (("trec_eval", "ranx"), ("ranx", "trec_eval")):
        result = explain_run(qrels, run, metric=metric, a=a, b=b)
        want = evaluate_run(qrels, run, [metric], compat="trec_eval").mean[metric]
        got = result.value_a if a == "trec_eval" else result.value_b
        assert got == want
        other = result.value_b if a == "trec_eval" else result.value_a
        y, s, q, _ = _rows(qrels, run)
        assert other == pytest.approx(
            evaluate(y, s, query_id=q, metrics=[metric.replace("ndcg_cut_5", "ndcg@5")],
                     compat="ranx")[metric.replace("ndcg_cut_5", "ndcg@5")])
        assert sum(step["change"] for step in result.steps) == pytest.approx(
            result.value_b - result.value_a)


def _rows(qrels, run):
    from skrank.io._evaluate import run_rows

    return run_rows(qrels, run)


def test_trec_eval_on_both_sides_has_no_step(tmp_path):
    qrels, run = _write(tmp_path, *awkward_case(7))
    result = explain_run(qrels, run, metric="ndcg@10", a="trec_eval", b="trec_eval")
    want = evaluate_run(qrels, run, ["ndcg_cut_10"], compat="trec_eval").mean
    assert result.steps == [] and result.value_a == result.value_b == want["ndcg_cut_10"]


def _trec_eval_binary():
    binary = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not binary:
        pytest.skip("no trec_eval binary (set TREC_EVAL=path to one built from NIST's sources)")
    return binary


@pytest.mark.parametrize("metric, trec_name", [
    ("ndcg@10", "ndcg_cut_10"), ("map", "map"), ("P_5", "P_5"), ("recall@10", "recall_10"),
])
def test_the_trec_eval_side_is_the_trec_eval_binarys_number(tmp_path, capsys, metric,
                                                           trec_name):
    binary = _trec_eval_binary()
    family = trec_name.rsplit("_", 1)[0] if trec_name[-1].isdigit() else trec_name
    for seed in range(5):
        qrels, run = awkward_case(20 + seed)
        # trec_eval 10.0 without -c stops at a qrels query the run lacks
        del qrels["q_missing_from_run"]
        qrels, run = _write(tmp_path, qrels, run, name=str(seed))
        out = subprocess.run([binary, "-m", family, qrels, run],
                             capture_output=True, check=True, text=True).stdout
        want = {line.split()[0]: line.split()[2] for line in out.splitlines()}
        result = explain_run(qrels, run, metric=metric, a="trec_eval", b="ranx")
        assert f"{result.value_a:.4f}" == want[trec_name], (seed, metric)
        # the command prints that number first
        assert main(["explain", qrels, run, "-m", metric, "--b", "ranx"]) == 0
        first = capsys.readouterr().out.splitlines()[0]
        assert first.startswith(f"{metric}: {result.value_a:.6g} under trec_eval, ")


@pytest.mark.parametrize("qrels, run, a, b, first", [
    # d2 relevant, never retrieved: AP (1/1) / 2
    ({"q1": {"d1": 1, "d2": 1}}, {"q1": {"d1": 1.0}}, "trec_eval", "lightgbm",
     "map: 0.5 under trec_eval, 1 under lightgbm"),
    # tied with d1 and after it in the file, d2 ranks first (ids descending): AP 1
    ({"q1": {"d1": 0, "d2": 1}}, {"q1": {"d1": 1.0, "d2": 1.0}}, "lightgbm", "trec_eval",
     "map: 0.5 under lightgbm, 1 under trec_eval"),
])
def test_the_command_prints_trec_evals_map(tmp_path, capsys, qrels, run, a, b, first):
    qrels, run = _write(tmp_path, qrels, run)
    assert main(["explain", qrels, run, "-m", "map", "--a", a, "--b", b]) == 0
    assert capsys.readouterr().out.startswith(first)
