"""trec_eval's relstring: a string per query of the top documents' relevance.

Expected lines come from the trec_eval 10.0 binary (``TREC_EVAL``) on its
own test files and on random hostile files; expected strings from the
definition (m_relstring.c's rule, written out here): one character a
retrieved document in rank order, the grade 0-9, ``>`` above 9, ``-``
outside the qrels, ``.`` judged negative; no "all" line.
"""

import subprocess

import numpy as np
import pytest

from skrank import evaluate_run
from skrank.cli._cli import main

from .test_trec_hostile import _hostile_files
from .test_trec_measures import _binary, _skrank

TREC = ["--compat", "trec_eval", "--format", "trec"]


def _binary_lines(args):
    return subprocess.run([_binary(), *args], capture_output=True, check=True).stdout


@pytest.mark.parametrize("measures", [
    ["-m", "relstring"], ["-m", "relstring.5"], ["-m", "relstring_5"], ["-m", "relstring.0"],
    ["-m", "relstring.2.5"], ["-m", "all_trec"], ["-m", "all_trec", "-m", "relstring.20"],
    ["-m", "relstring", "-m", "P.5", "-m", "runid", "-m", "num_q"],
])
@pytest.mark.parametrize("per_query", [["-q"], []])
def test_trec_evals_own_files_line_for_line(trec_test_files, measures, per_query):
    # the binary takes only its -m form (relstring.5); it prints relstring_5
    theirs = [m.replace("relstring_", "relstring.") for m in measures]
    want = _binary_lines([*per_query, *theirs, *trec_test_files])
    got = _skrank([*per_query, *measures, *TREC, *trec_test_files])
    assert got.returncode == 0, got.stderr
    assert got.stdout == want  # without -q: no relstring line at all, as there


@pytest.mark.parametrize("flags", [["-J"], ["-M", "4"], ["-l", "2"], ["-c"]])
def test_trec_evals_own_files_under_its_options(trec_test_files, flags):
    want = _binary_lines(["-q", *flags, "-m", "relstring.12", "-m", "map", *trec_test_files])
    got = _skrank(["-q", *flags, "-m", "relstring.12", "-m", "map", *TREC, *trec_test_files])
    assert got.returncode == 0, got.stderr
    assert got.stdout == want


@pytest.mark.parametrize("seed", range(8))
def test_hostile_files(tmp_path, seed):
    _binary()
    rng = np.random.default_rng(900 + seed)
    qrels, run = _hostile_files(rng)
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    # -c: trec_eval's stand-in document for a query the run lacks shows in
    # relstring_3 as "-" (a documented difference: skrank shows ""), so -c is
    # checked with the plain name, which trec_eval clears to ""
    for flags, name in (([], "relstring.3"), (["-J"], "relstring.3"), (["-l", "2"], "relstring"),
                        (["-M", "2"], "relstring.4"), (["-c"], "relstring")):
        want = subprocess.run([_binary(), "-q", *flags, "-m", name, *files], capture_output=True)
        if want.returncode != 0:  # trec_eval refuses the files: nothing to compare
            continue
        got = _skrank(["-q", *flags, "-m", name, *TREC, *files])
        assert got.returncode == 0, (flags, got.stderr)
        assert got.stdout == want.stdout, flags


# one query: d1 grade 2, d4 not in the qrels, d2 grade 0, d6 judged -1 (in the
# pool, not judged), d3 grade 1, d7 grade 12; d5 judged, not retrieved
QRELS = {"q": {"d1": 2, "d2": 0, "d3": 1, "d5": 1, "d6": -1, "d7": 12}}
RUN = {"q": {"d1": 6.0, "d4": 5.0, "d2": 4.0, "d6": 3.0, "d3": 2.0, "d7": 1.0}}


def test_strings_worked_by_hand():
    got = evaluate_run(QRELS, RUN, ["relstring"], compat="trec_eval")
    assert got.per_query_text == {"relstring": got.per_query_text["relstring"]}
    assert got.per_query_text["relstring"].tolist() == ["2-0.1>"]
    assert got.mean == {} and got.per_query == {}  # a string has no mean
    short = evaluate_run(QRELS, RUN, ["relstring.3"]).per_query_text
    assert short["relstring_3"].tolist() == ["2-0"]
    assert evaluate_run(QRELS, RUN, ["relstring_0"]).per_query_text["relstring_0"].tolist() \
        == [""]
    # -J drops d4 (not in the qrels) and d6 (negative judgment)
    judged = evaluate_run(QRELS, RUN, ["relstring"], judged_docs_only=True).per_query_text
    assert judged["relstring"].tolist() == ["201>"]
    # a query of the qrels the run lacks, with -c: nothing retrieved
    qrels = {**QRELS, "r": {"x": 1}}
    missing = evaluate_run(qrels, RUN, ["relstring"], complete_qrels=True)
    assert missing.query_ids.tolist() == ["q", "r"]
    assert missing.per_query_text["relstring"].tolist() == ["2-0.1>", ""]


def test_the_strings_in_the_frame():
    pytest.importorskip("pandas")
    frame = evaluate_run(QRELS, RUN, ["relstring.2", "P_2"]).to_frame()
    assert frame["relstring_2"].tolist() == ["2-"] and frame["P_2"].tolist() == [0.5]


def test_ties_without_trec_evals_rule():
    # a tie block inside the string whose documents differ has no one string
    tied = {"q": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}}
    qrels = {"q": {"d1": 1, "d2": 1, "d3": 0, "d4": 0}}
    with pytest.raises(ValueError, match="tied scores"):
        evaluate_run(qrels, tied, ["relstring"])
    # the same string whatever the order: both tied documents grade 0
    qrels = {"q": {"d1": 1, "d2": 0, "d3": 0, "d4": 1}}
    assert evaluate_run(qrels, tied, ["relstring"]).per_query_text["relstring"].tolist() \
        == ["1001"]
    # a tie past the string's end does not matter
    qrels = {"q": {"d1": 1, "d2": 1, "d3": 0, "d4": 0}}
    assert evaluate_run(qrels, tied, ["relstring.1"]).per_query_text["relstring_1"].tolist() \
        == ["1"]
    # trec_eval's rule (document id, descending) gives the one string it prints
    got = evaluate_run(qrels, tied, ["relstring"], compat="trec_eval").per_query_text
    assert got["relstring"].tolist() == ["1010"]


@pytest.mark.parametrize("name", ["relstring.5,7", "relstring.x", "relstring.-1",
                                  "relstring.", "relstring.inf"])
def test_malformed_parameters_are_refused(name):
    with pytest.raises(ValueError, match="relstring takes one parameter"):
        evaluate_run(QRELS, RUN, [name])


def test_the_command_needs_the_trec_format(tmp_path, capsys):
    (tmp_path / "q").write_text("q 0 d1 1\n")
    (tmp_path / "r").write_text("q Q0 d1 1 2 tag\nq Q0 d2 2 1 tag\n")
    files = [str(tmp_path / "q"), str(tmp_path / "r")]
    for fmt in ("table", "json", "csv"):
        assert main(["evaluate", "-q", "-m", "relstring", "--format", fmt, *files]) == 2
        assert "need --format trec" in capsys.readouterr().err
    assert main(["evaluate", "-q", "-m", "relstring", "-m", "P_2", "--format", "trec",
                 *files]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "P_2                   \tq\t0.5000", "relstring             \tq\t'1-'",
        "P_2                   \tall\t0.5000"]
