"""``rbp``: one rule for the name in every face (issue 37).

Under ``compat="trec_eval"`` the name ``rbp`` is trec_eval 10.0's measure
(persistence 0.9, each grade over the query's top grade when that is
above 1) in :func:`skrank.evaluate`, the metric function, the scorers,
:func:`skrank.evaluate_run`, :func:`skrank.explain_difference`, ``skrank
explain`` and ``skrank evaluate``. Without a preset, arrays keep skrank's
RBP (persistence 0.8, binary gain), while the TREC faces, which take
trec_eval's printed names as they are, keep trec_eval's. Expected values
come from brute-force definitions written here, from the trec_eval binary
(``TREC_EVAL``) and from the numbers of issue 37.
"""

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

import skrank
from skrank import evaluate, evaluate_run, explain_difference, rbp_score
from skrank.io._explain import explain_run

from .test_trec_measures import _binary, _skrank


# ------------------------------------------------------------ definitions --

def _read(qrels_path, run_path):
    """``(judgments, rankings)``: {q: {doc: grade}} and {q: [doc, ...]} in trec_eval's
    order (score descending, then document id descending), queries of both files."""
    judgments, lines = {}, {}
    with open(qrels_path, "rb") as f:
        for line in f:
            q, _, doc, grade = line.split()
            judgments.setdefault(q, {})[doc] = int(grade)
    with open(run_path, "rb") as f:
        for line in f:
            q, _, doc, _, score, _ = line.split()
            lines.setdefault(q, []).append((float(score), doc))
    rankings = {q: [doc for _, doc in sorted(docs, reverse=True)]
                for q, docs in lines.items() if q in judgments}
    return judgments, rankings


def trec_rbp(ranking, judged, p=0.9):
    """trec_eval 10.0's rbp (m_rbp.c): (1 - p) sum over ranks i of gain_i p**(i - 1);
    gain = grade / top grade of the query's judgments when the top passes 1, else the
    grade; an unjudged document gains 0."""
    grades = [g for g in judged.values() if g >= 0]
    top = max(grades, default=0)
    scale = top if top > 1 else 1
    total = 0.0
    for i, doc in enumerate(ranking):
        grade = judged.get(doc, 0)
        if grade > 0:
            total += grade / scale * p ** i
    return (1 - p) * total


def skrank_rbp(relevance_in_rank_order, p=0.8):
    """skrank's RBP: (1 - p) sum of p**(i - 1) over the relevant ranks (binary gain)."""
    return (1 - p) * sum(p ** i for i, rel in enumerate(relevance_in_rank_order) if rel > 0)


def _rows(judgments, rankings):
    """The files as rows for the array faces: the retrieved documents in trec_eval's
    order with decreasing scores, then the judged ones not retrieved (score -inf)."""
    y, s, q = [], [], []
    for query in sorted(rankings):
        ranking, judged = rankings[query], judgments[query]
        for i, doc in enumerate(ranking):
            y.append(max(judged.get(doc, 0), 0))
            s.append(float(len(ranking) - i))
            q.append(query.decode())
        for doc, grade in judged.items():
            if doc not in ranking:
                y.append(max(grade, 0))
                s.append(-np.inf)
                q.append(query.decode())
    return np.array(y, dtype=float), np.array(s), np.array(q)


def _printed(output):
    """{(measure, query): value} of trec_eval's printed lines."""
    out = {}
    for line in output.splitlines():
        name, query, value = line.split()
        out[(name.decode(), query.decode())] = value.decode()
    return out


def _graded_files(tmp_path, seed):
    """Random graded qrels (grades -1 to 4) and a run without ties, with unjudged
    retrieved documents and judged documents the run did not retrieve."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for query in range(1, 9):
        docs = [f"d{i}" for i in range(rng.integers(3, 25))]
        for doc in docs:
            if rng.random() < 0.7:
                grade = int(rng.choice([-1, 0, 0, 1, 2, 3, 4]))
                qrels.append(f"q{query} 0 {doc} {grade}")
        retrieved = [doc for doc in docs if rng.random() < 0.8] or docs[:1]
        scores = rng.permutation(len(retrieved)) + 1.0
        run += [f"q{query} Q0 {doc} 0 {score:g} tag" for doc, score in zip(retrieved, scores)]
    # every query needs a judgment for both tools to evaluate it
    qrels += [f"q{query} 0 extra 1" for query in range(1, 9)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return str(tmp_path / "qrels"), str(tmp_path / "run")


class _FirstColumn:
    """An estimator whose prediction is its input's first column."""

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


# ------------------------------------------------- trec_eval's own test files --

def test_the_issues_numbers_from_the_definition(trec_test_files):
    judgments, rankings = _read(*trec_test_files)
    values = [trec_rbp(rankings[q], judgments[q]) for q in sorted(rankings)]
    assert [round(v, 4) for v in values] == [0.1861, 0.7628, 0.0212]
    assert round(float(np.mean(values)), 4) == 0.3234


def test_the_definition_equals_the_binary(trec_test_files):
    binary = _binary()
    judgments, rankings = _read(*trec_test_files)
    for p, measure, printed in ((0.9, "rbp", "rbp"), (0.95, "rbp.p=0.95", "rbp_p=0.95")):
        lines = _printed(subprocess.run([binary, "-q", "-m", measure, *trec_test_files],
                                        capture_output=True, check=True).stdout)
        values = [trec_rbp(rankings[q], judgments[q], p) for q in sorted(rankings)]
        for q, value in zip(sorted(rankings), values):
            assert f"{value:.4f}" == lines[(printed, q.decode())]
        assert f"{np.mean(values):.4f}" == lines[(printed, "all")]


@pytest.mark.parametrize("compat", ["trec_eval", None])
def test_evaluate_run(trec_test_files, compat):
    judgments, rankings = _read(*trec_test_files)
    if compat is None:  # trec_eval's rbp too, but the run's ties need trec_eval's rule
        with pytest.raises(ValueError, match="tied scores"):
            evaluate_run(*trec_test_files, ["rbp"])
        return
    got = evaluate_run(*trec_test_files, ["rbp", "rbp_p=0.95"], compat=compat)
    queries = sorted(rankings)
    assert got.query_ids.tolist() == [q.decode() for q in queries]
    want = [trec_rbp(rankings[q], judgments[q]) for q in queries]
    np.testing.assert_allclose(got.per_query["rbp"].value, want, rtol=1e-12)
    assert got.mean["rbp"] == pytest.approx(np.mean(want), rel=1e-12)
    want = [trec_rbp(rankings[q], judgments[q], 0.95) for q in queries]
    np.testing.assert_allclose(got.per_query["rbp_p=0.95"].value, want, rtol=1e-12)


def test_the_command_prints_the_binarys_lines(trec_test_files):
    binary = _binary()
    for measure in (["-m", "rbp"], ["-m", "rbp.p=0.95"], ["-m", "rbp_p=0.95"]):
        want = subprocess.run([binary, "-q", *measure[:1], measure[1].replace("_p=", ".p="),
                               *trec_test_files], capture_output=True, check=True).stdout
        got = _skrank(["-q", *measure, "--compat", "trec_eval", "--format", "trec",
                       *trec_test_files])
        assert got.returncode == 0, got.stderr
        assert got.stdout.splitlines() == want.splitlines(), measure


def test_the_array_faces_under_the_preset(trec_test_files):
    judgments, rankings = _read(*trec_test_files)
    y, s, q = _rows(judgments, rankings)
    queries = sorted(rankings)
    want = np.array([trec_rbp(rankings[x], judgments[x]) for x in queries])
    want_95 = np.array([trec_rbp(rankings[x], judgments[x], 0.95) for x in queries])

    per_query = evaluate(y, s, query_id=q, metrics=["rbp", "rbp_p=0.95", "rbp.p=0.95"],
                         compat="trec_eval", aggregate=None)
    np.testing.assert_allclose(per_query["rbp"].value, want, rtol=1e-12)
    np.testing.assert_allclose(per_query["rbp_p=0.95"].value, want_95, rtol=1e-12)
    np.testing.assert_allclose(per_query["rbp.p=0.95"].value, want_95, rtol=1e-12)
    mean = want.mean()
    assert evaluate(y, s, query_id=q, metrics=["rbp"], compat="trec_eval")["rbp"] == \
        pytest.approx(mean, rel=1e-12)
    assert rbp_score(y, s, query_id=q, compat="trec_eval") == pytest.approx(mean, rel=1e-12)

    X = s[:, None]
    model = _FirstColumn()
    for scorer in (skrank.make_ranking_scorer("rbp", compat="trec_eval"),
                   skrank.get_scorer("rbp", compat="trec_eval")):
        assert scorer(model, X, y, query_id=q) == pytest.approx(mean, rel=1e-12)

    # explain_difference: the trec_eval side is trec_eval's rbp, the other skrank's
    path = explain_difference(y, s, query_id=q, metric="rbp", a="trec_eval", b={})
    assert path.value_a == pytest.approx(mean, rel=1e-12)
    ours = [skrank_rbp([judgments[x].get(d, 0) for d in rankings[x]]) for x in queries]
    assert path.value_b == pytest.approx(np.mean(ours), rel=1e-12)


def test_explain_on_the_files(trec_test_files):
    judgments, rankings = _read(*trec_test_files)
    queries = sorted(rankings)
    for metric, p in (("rbp", 0.9), ("rbp_p=0.95", 0.95), ("rbp.p=0.95", 0.95)):
        result = explain_run(*trec_test_files, metric=metric, a="trec_eval", b="ranx")
        want = np.mean([trec_rbp(rankings[x], judgments[x], p) for x in queries])
        assert result.value_a == pytest.approx(want, rel=1e-12), metric
        got = subprocess.run([sys.executable, "-m", "skrank", "explain", *trec_test_files,
                              "-m", metric, "--a", "trec_eval", "--b", "ranx"],
                             capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        assert got.stdout.startswith(f"{metric}: {want:.6g} under trec_eval")


# --------------------------------------------------------------- graded files --

@pytest.mark.parametrize("seed", range(3))
def test_graded_files_every_face(tmp_path, seed):
    qrels, run = _graded_files(tmp_path, seed)
    judgments, rankings = _read(qrels, run)
    queries = sorted(rankings)
    want = np.array([trec_rbp(rankings[x], judgments[x]) for x in queries])
    # the top grade is above 1 in some query: the scaling is exercised
    assert any(max(judgments[x].values()) > 1 for x in queries)

    for compat in ("trec_eval", None):  # evaluate_run: trec_eval's rbp either way
        got = evaluate_run(qrels, run, ["rbp"], compat=compat)
        np.testing.assert_allclose(got.per_query["rbp"].value, want, rtol=1e-12)
    y, s, q = _rows(judgments, rankings)
    got = evaluate(y, s, query_id=q, metrics=["rbp"], compat="trec_eval", aggregate=None)
    np.testing.assert_allclose(got["rbp"].value, want, rtol=1e-12)
    assert explain_difference(y, s, query_id=q, metric="rbp", a="trec_eval",
                              b="ranx").value_a == pytest.approx(want.mean(), rel=1e-12)
    # the accumulator takes no preset: the same number from the preset's options
    accumulator = skrank.RankingAccumulator(metrics=["rbp"], p=0.9, gain="scaled",
                                            no_relevant="zero")
    accumulator.update(y, s, query_id=q)
    assert accumulator.result()["rbp"] == pytest.approx(want.mean(), rel=1e-12)
    # so does the Dask face (its synchronous scheduler here)
    if importlib.util.find_spec("dask") is not None:
        import dask
        import dask.dataframe as dd
        import pandas as pd

        from skrank.dask import evaluate as dask_evaluate

        frame = dd.from_pandas(pd.DataFrame({"qid": q, "label": y, "score": s}),
                               npartitions=3)
        with dask.config.set(scheduler="synchronous"):
            got = dask_evaluate(frame, metrics=["rbp"], p=0.9, gain="scaled",
                                no_relevant="zero")
        assert got["rbp"] == pytest.approx(want.mean(), rel=1e-12)

    try:
        binary = _binary()
    except pytest.skip.Exception:
        return
    # without a preset, the command's rbp is trec_eval's too (no ties here)
    got = _skrank(["-q", "-m", "rbp.p=0.95", "--format", "trec", qrels, run])
    assert got.returncode == 0, got.stderr
    want_95 = subprocess.run([binary, "-q", "-m", "rbp.p=0.95", qrels, run],
                             capture_output=True, check=True).stdout
    assert got.stdout.splitlines() == want_95.splitlines()
    got = _skrank(["-q", "-m", "rbp", "--compat", "trec_eval", "--format", "trec", qrels, run])
    want_09 = subprocess.run([binary, "-q", "-m", "rbp", qrels, run],
                             capture_output=True, check=True).stdout
    assert got.stdout.splitlines() == want_09.splitlines()
    for x, value in zip(queries, want):
        assert f"{value:.4f}" == _printed(want_09)[("rbp", x.decode())]


# ------------------------------------------------------------ skrank's default --

def test_skranks_rbp_under_the_default(tmp_path):
    qrels, run = _graded_files(tmp_path, 7)
    judgments, rankings = _read(qrels, run)
    queries = sorted(rankings)
    y, s, q = _rows(judgments, rankings)
    relevant = [x for x in queries if any(g > 0 for g in judgments[x].values())]
    want = {x: skrank_rbp([judgments[x].get(d, 0) for d in rankings[x]]) for x in queries}
    per_query = evaluate(y, s, query_id=q, metrics=["rbp"], aggregate=None)["rbp"]
    np.testing.assert_allclose(per_query.value, [want[x] for x in queries], rtol=1e-12)
    mean = np.mean([want[x] for x in relevant])  # no_relevant="skip" by default
    assert evaluate(y, s, query_id=q, metrics=["rbp"])["rbp"] == pytest.approx(mean)
    assert rbp_score(y, s, query_id=q) == pytest.approx(mean)
    model = _FirstColumn()
    assert skrank.get_scorer("rbp")(model, s[:, None], y, query_id=q) == pytest.approx(mean)
    # trec_eval's rbp is not what the default computes on graded rows
    trec = np.mean([trec_rbp(rankings[x], judgments[x]) for x in queries])
    assert evaluate(y, s, query_id=q, metrics=["rbp"], no_relevant="zero")["rbp"] != \
        pytest.approx(trec)


def test_a_trec_eval_rbp_name_outside_its_preset_says_where_it_belongs():
    with pytest.raises(ValueError, match="compat='trec_eval'"):
        evaluate([1, 0], [2, 1], metrics=["rbp_p=0.95"])
