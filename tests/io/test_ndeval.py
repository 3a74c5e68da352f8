"""evaluate_run and `skrank evaluate` with ndeval's measures, against the ndeval binary."""

import csv
import io
import json
import math
import subprocess
import sys

import pytest

import skrank
from tests._ndeval import needs_ndeval, random_collection, run_ndeval, write_files

NAMES = ["ERR-IA@5", "ERR-IA@20", "nERR-IA@10", "alpha-DCG@20", "alpha-nDCG@5",
         "alpha-nDCG@20", "NRBP", "nNRBP", "MAP-IA", "P-IA@10", "strec@5", "strec@20"]


@pytest.mark.peers
@pytest.mark.parametrize("seed, complete, alpha, beta", [
    (0, False, 0.5, 0.5), (1, True, 0.4, 0.6), (2, True, 0.8, 0.3)])
def test_evaluate_run_equals_ndeval_per_topic_and_on_the_mean(tmp_path, seed, complete,
                                                              alpha, beta):
    binary = needs_ndeval()
    qrels, run = random_collection(seed, ties=True)  # ties: ndeval breaks them by docno
    qrels += [(99, 1, "zz1", 1), (99, 2, "zz2", 1)]  # a qrels topic the run lacks
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    out = run_ndeval(binary, qrels_path, run_path, alpha=alpha, beta=beta,
                     complete=complete)
    result = skrank.evaluate_run(str(qrels_path), str(run_path), NAMES, compat="ndeval",
                                 complete_qrels=complete, alpha=alpha, beta=beta)
    assert ("99" in result.query_ids) == complete
    for name in NAMES:
        for topic, value in zip(result.per_query[name].query_id,
                                result.per_query[name].value):
            expected = out.get(topic, {}).get(name, 0.0)  # -c: a missing topic is 0
            if name == "nNRBP" and math.isnan(expected):
                assert value == 0.0  # ndeval's -nan: the documented departure
            else:
                assert value == pytest.approx(expected, abs=6e-7), (name, topic)
        if name != "nNRBP":  # ndeval's mean is nan with a topic without relevant docs
            assert result.mean[name] == pytest.approx(out["amean"][name], abs=6e-7), name


def test_any_cutoff_and_skrank_names(tmp_path):
    qrels, run = random_collection(3)
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    a = skrank.evaluate_run(str(qrels_path), str(run_path), ["alpha-nDCG@37", "strec@3"],
                            compat="ndeval")
    b = skrank.evaluate_run(str(qrels_path), str(run_path),
                            ["alpha_ndcg@37", "s_recall@3"], compat="ndeval")
    assert list(a.mean.values()) == list(b.mean.values())


@pytest.mark.peers
def test_the_command_prints_ndeval_means(tmp_path):
    binary = needs_ndeval()
    qrels, run = random_collection(4, ties=True)
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    out = run_ndeval(binary, qrels_path, run_path, alpha=0.3, complete=True)
    done = subprocess.run(
        [sys.executable, "-m", "skrank", "evaluate", str(qrels_path), str(run_path),
         "-m", "alpha-nDCG@20", "-m", "MAP-IA", "--compat", "ndeval", "-c",
         "--alpha", "0.3", "--format", "csv"],
        capture_output=True, text=True, check=True)
    means = {line.split(",")[1]: float(line.split(",")[3])
             for line in done.stdout.splitlines()[1:]}
    assert means["alpha-nDCG@20"] == pytest.approx(out["amean"]["alpha-nDCG@20"], abs=6e-7)
    assert means["MAP-IA"] == pytest.approx(out["amean"]["MAP-IA"], abs=6e-7)


def test_mixing_with_trec_eval_measures_is_refused(tmp_path):
    qrels, run = random_collection(5)
    qrels_path, run_path = write_files(tmp_path, qrels, run)
    with pytest.raises(ValueError, match="only for intent-aware"):
        skrank.evaluate_run(str(qrels_path), str(run_path), ["alpha-nDCG@20", "map"],
                            compat="ndeval")


def test_without_compat_ties_are_the_expectation(tmp_path):
    # x (relevant) and y tie: ndeval -traditional puts y first, the expectation
    # is the mean of both orders
    (tmp_path / "q").write_text("1 1 x 1\n1 1 y 0\n")
    (tmp_path / "r").write_text("1 Q0 x 1 1e-30 r\n1 Q0 y 2 1e-30 r\n")
    ndeval = skrank.evaluate_run(str(tmp_path / "q"), str(tmp_path / "r"),
                                 ["alpha-nDCG@5"], compat="ndeval")
    average = skrank.evaluate_run(str(tmp_path / "q"), str(tmp_path / "r"),
                                  ["alpha-nDCG@5"])
    d2 = 1 / math.log2(3)
    assert ndeval.mean["alpha-nDCG@5"] == pytest.approx(d2)
    assert average.mean["alpha-nDCG@5"] == pytest.approx((1 + d2) / 2)


def _command(*args):
    return subprocess.run([sys.executable, "-m", "skrank", "evaluate", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_the_command_writes_ndeval_measures_as_json_and_csv(tmp_path):
    # x is relevant to intent 1, y to intent 2: the run finds both, in order
    (tmp_path / "q").write_text("1 1 x 1\n1 2 y 1\n2 1 z 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 2 r\n1 Q0 y 2 1 r\n2 Q0 w 1 2 r\n2 Q0 z 2 1 r\n")
    done = _command(tmp_path / "q", tmp_path / "r", "-m", "strec@1", "-m", "strec@2",
                    "--compat", "ndeval", "--format", "json")
    assert done.returncode == 0, done.stderr
    # topic 1: one of two intents at rank 1, both by rank 2; topic 2: z at rank 2
    assert json.loads(done.stdout)["mean"] == {"strec@1": 0.25, "strec@2": 1.0}
    done = _command(tmp_path / "q", tmp_path / "r", "-m", "strec@1", "-q",
                    "--compat", "ndeval", "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(row["measure"], row["query"], float(row["value"])) for row in rows] == [
        ("strec@1", "1", 0.5), ("strec@1", "2", 0.0), ("strec@1", "all", 0.25)]


@pytest.mark.parametrize("args, message", [
    (["-m", "alpha-nDCG@5", "--compat", "ndeval", "--alpha", "2"], "`alpha` must be"),
    (["-m", "alpha-nDCG@5", "-m", "map", "--compat", "ndeval"], "only for intent-aware"),
])
def test_the_command_refuses_bad_ndeval_options(tmp_path, args, message):
    (tmp_path / "q").write_text("1 1 x 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 2 r\n")
    done = _command(tmp_path / "q", tmp_path / "r", *args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
