"""judged@k (ir_measures' Judged@k) in evaluate_run, and RunEvaluationResult.unjudged."""

import numpy as np
import pytest

from skrank import evaluate_run

from ._judged_data import CUTOFFS, judged_case

# ir_measures 0.4.3, tests/io/make_judged_reference.py: Judged@k per query
# (q6 is a qrels query the run lacks: ir_measures scores it 0, as
# complete_qrels=True does) and the mean over the eight queries
IR_MEASURES = {
    1: ([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0], 0.125),
    3: ([0.0, 0.5, 0.0, 0.0, 0.666666666667, 0.0, 0.0, 1.0], 0.270833333333),
    5: ([0.0, 0.5, 0.0, 0.0, 0.6, 0.2, 0.0, 0.8], 0.2625),
    10: ([0.0, 0.5, 0.0, 0.142857142857, 0.4, 0.4, 0.0, 0.777777777778], 0.277579365079),
    None: ([0.0, 0.5, 0.0, 0.142857142857, 0.333333333333, 0.266666666667, 0.0,
            0.777777777778], 0.252579365079),
}


def _name(k):
    return "judged" if k is None else f"judged@{k}"


@pytest.mark.parametrize("compat", [None, "trec_eval"])
def test_judged_equals_ir_measures(compat):
    assert set(IR_MEASURES) == set(CUTOFFS)
    qrels, run = judged_case()
    names = [_name(k) for k in CUTOFFS]
    full = evaluate_run(qrels, run, names, compat=compat, complete_qrels=True)
    assert list(full.query_ids) == [f"q{i}" for i in range(8)]
    common = evaluate_run(qrels, run, names, compat=compat)  # q6 is not evaluated
    assert "q6" not in common.query_ids
    for k in CUTOFFS:
        per_query, mean = IR_MEASURES[k]
        np.testing.assert_allclose(full.per_query[_name(k)].value, per_query, atol=1e-11)
        assert full.mean[_name(k)] == pytest.approx(mean, abs=1e-11)
        kept = np.delete(per_query, 6)
        np.testing.assert_allclose(common.per_query[_name(k)].value, kept, atol=1e-11)
        assert common.mean[_name(k)] == pytest.approx(np.mean(kept), abs=1e-11)


def test_judged_by_hand_on_short_lists():
    # q1: judged d1 (grade 1), d2 (0), d9 (-1: a line of the qrels, judged)
    qrels = {"q1": {"d1": 1, "d2": 0, "d9": -1}, "q2": {"d4": 2}}
    run = {"q1": ["d1", "d5", "d2", "d9"], "q2": ["d7", "d4"]}
    result = evaluate_run(qrels, run, ["judged@1", "judged@2", "judged@10", "Judged@3"])
    v = {name: values.value for name, values in result.per_query.items()}
    np.testing.assert_allclose(v["judged@1"], [1 / 1, 0 / 1])
    np.testing.assert_allclose(v["judged@2"], [1 / 2, 1 / 2])
    np.testing.assert_allclose(v["judged@10"], [3 / 4, 1 / 2])  # ÷ min(10, retrieved)
    np.testing.assert_allclose(v["Judged@3"], [2 / 3, 1 / 2])   # ir_measures' spelling


def test_judged_with_ties_is_the_expected_share():
    # d1 (judged) ties with d2, d3 (not) at the top: judged@1 over the three
    # orders is 1/3, judged@2 is (2 places x 1/3) / 2 = 1/3; with the
    # judged d4 below, judged@4 = 2/4
    qrels = {"q": {"d1": 1, "d4": 0}}
    run = {"q": {"d1": 1.0, "d2": 1.0, "d3": 1.0, "d4": 0.5}}
    result = evaluate_run(qrels, run, ["judged@1", "judged@2", "judged@4"])
    assert result.mean["judged@1"] == pytest.approx(1 / 3)
    assert result.mean["judged@2"] == pytest.approx(1 / 3)
    assert result.mean["judged@4"] == pytest.approx(2 / 4)
    # trec_eval's order: by document id, descending (d3, d2, d1): d1 third
    trec = evaluate_run(qrels, run, ["judged@2", "judged@3"], compat="trec_eval")
    assert trec.mean == {"judged@2": 0.0, "judged@3": pytest.approx(1 / 3)}
    # judged_docs_only: every ranked document is judged
    assert evaluate_run(qrels, run, ["judged@2"], judged_docs_only=True).mean == \
        {"judged@2": 1.0}


def test_judged_cutoff_must_be_positive():
    with pytest.raises(ValueError, match="Measure 'judged@0': the cutoff"):
        evaluate_run({"q": ["d"]}, {"q": ["d"]}, ["judged@0"])


def test_unjudged_lists_the_holes_of_the_top_k():
    qrels, run = judged_case()
    result = evaluate_run(qrels, run, ["judged@5"])
    holes = result.unjudged(k=5)
    # by hand from the definition: each query's top 5 by score, minus the judged
    for qid in result.query_ids:
        top = sorted(run[qid], key=run[qid].get, reverse=True)[:5]
        expected = [d for d in top if d not in qrels[qid]]
        assert holes.get(qid, []) == expected, qid
        share = 1 - len(expected) / len(top)
        assert result.per_query["judged@5"].value[list(result.query_ids).index(qid)] == \
            pytest.approx(share)
    assert all(holes.values())  # only queries with a hole
    assert list(holes) == [q for q in result.query_ids if q in holes]


def test_unjudged_with_ties_lists_the_straddling_block():
    qrels = {"q": {"d1": 1}}
    run = {"q": {"d1": 2.0, "d2": 1.0, "d3": 1.0, "d4": 0.5}}
    assert evaluate_run(qrels, run, ["judged@2"]).unjudged(k=2) == {"q": ["d3", "d2"]}
    trec = evaluate_run(qrels, run, ["judged@2"], compat="trec_eval")
    assert trec.unjudged(k=2) == {"q": ["d3"]}  # trec_eval's order: d3 before d2
    assert evaluate_run(qrels, run, ["judged@2"], max_docs=1).unjudged(k=2) == {}
    assert evaluate_run(qrels, run, ["judged@2"],
                        judged_docs_only=True).unjudged(k=2) == {}


def test_unjudged_reads_files_again(tmp_path):
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("q1 0 d1 1\nq2 0 d9 0\n")
    run_path.write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq2 Q0 d9 1 5 t\n")
    result = evaluate_run(str(qrels_path), str(run_path), ["judged@10"])
    assert result.mean["judged@10"] == pytest.approx((1 / 2 + 1) / 2)
    assert result.unjudged(k=10) == {"q1": ["d2"]}


def test_unjudged_k_is_checked():
    result = evaluate_run({"q": ["d"]}, {"q": ["d"]}, ["judged@1"])
    with pytest.raises(ValueError, match="`k` must be a positive integer"):
        result.unjudged(k=0)


def test_judged_under_another_preset_is_refused():
    with pytest.raises(ValueError, match="'judged@1' needs the qrels beside the run"):
        evaluate_run({"q": ["d"]}, {"q": ["d"]}, ["judged@1"], compat="ranx")


def test_the_command_prints_judged(tmp_path):
    import subprocess
    import sys

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d9 0\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq2 Q0 d9 1 5 t\n")
    done = subprocess.run(
        [sys.executable, "-m", "skrank", "evaluate", str(tmp_path / "qrels"),
         str(tmp_path / "run"), "-m", "judged@10", "-q", "--format", "trec"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines()]
    assert lines == [["judged@10", "q1", "0.5000"], ["judged@10", "q2", "1.0000"],
                     ["judged@10", "all", "0.7500"]]


def test_the_command_writes_judged_as_json_and_refuses_a_zero_cutoff(tmp_path):
    import json
    import subprocess
    import sys

    (tmp_path / "qrels").write_text("q1 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\nq1 Q0 d3 3 1 t\n")
    command = [sys.executable, "-m", "skrank", "evaluate", str(tmp_path / "qrels"),
               str(tmp_path / "run")]
    done = subprocess.run(command + ["-m", "judged@2", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mean"] == {"judged@2": 0.5}  # d1 judged, d2 not
    done = subprocess.run(command + ["-m", "judged@0"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2
    assert "judged@0" in done.stderr and "Traceback" not in done.stderr
