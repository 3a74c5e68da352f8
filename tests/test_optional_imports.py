"""Every optional feature, with its optional package hidden.

skrank's runtime dependencies are numpy, scipy and scikit-learn. A feature
that needs more (pandas, matplotlib, pyarrow, Dask, ...) must either work
without it (a slower path) or raise an ImportError that names the package
and the command that installs it, never a bare ``ModuleNotFoundError``.

Packages are hidden in-process by setting ``sys.modules[name] = None`` (an
import then fails), and in a subprocess by an import blocker, which
imitates an install of the runtime dependencies alone.
"""

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import skrank
from skrank._core._optional import OPTIONAL, import_optional, install_hint

ROOT = Path(__file__).resolve().parents[1]


def hide(monkeypatch, *names):
    """Make ``import name`` (and its submodules) fail until the test ends."""
    for name in names:
        for key in [k for k in list(sys.modules) if k == name or k.startswith(name + ".")]:
            monkeypatch.setitem(sys.modules, key, None)
        monkeypatch.setitem(sys.modules, name, None)


BLOCKER = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = set(sys.argv[1].split(","))

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, Blocker())
""")


def run_blocked(code, blocked, cwd):
    """Run ``code`` in a new interpreter where ``blocked`` packages can't be imported."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-c", BLOCKER + code, ",".join(blocked)], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def hint_pattern(package, extra):
    """What every install hint of ``package`` contains."""
    return rf"needs {package}.*pip install .*{package}.*pip install -e \"\.\[{extra}\]\""


Y = [1, 0, 1, 0, 0, 1, 0, 1]
SCORE = [0.9, 0.8, 0.7, 0.1, 0.5, 0.4, 0.3, 0.2]
QID = ["a", "a", "a", "a", "b", "b", "b", "b"]


# ------------------------------------------------------------- the helper --

def test_hint_names_the_package_the_extra_and_the_caller():
    message = install_hint("pandas", "load_digits_retrieval(as_frame=True)")
    assert message.startswith("load_digits_retrieval(as_frame=True) needs pandas")
    assert "`pip install pandas`" in message
    assert '`pip install -e ".[pandas]"`' in message


def test_hint_of_a_submodule_names_its_package():
    message = install_hint("dask.dataframe", "skrank.dask.evaluate")
    assert "needs dask," in message
    assert '`pip install "dask[dataframe]" distributed`' in message


def test_every_optional_package_has_an_extra_in_pyproject():
    pyproject = (ROOT / "pyproject.toml").read_text()
    for package, (_, extra) in OPTIONAL.items():
        assert f"\n{extra} = [" in pyproject, (package, extra)


def test_import_optional_raises_importerror_with_hint(monkeypatch):
    hide(monkeypatch, "pandas")
    with pytest.raises(ImportError, match=hint_pattern("pandas", "pandas")) as info:
        import_optional("pandas", "this call")
    assert info.value.name == "pandas"
    assert "this call needs pandas" in str(info.value)


def test_import_optional_returns_the_module():
    assert import_optional("math", "x").sqrt(9.0) == 3.0


# ------------------------------------------------------------------ pandas --

def test_digits_as_frame_without_pandas(monkeypatch):
    hide(monkeypatch, "pandas")
    with pytest.raises(ImportError, match=hint_pattern("pandas", "pandas")) as info:
        skrank.load_digits_retrieval(n_queries=5, n_candidates=4, as_frame=True)
    assert "load_digits_retrieval(as_frame=True) needs pandas" in str(info.value)
    data = skrank.load_digits_retrieval(n_queries=5, n_candidates=4)  # numpy: fine
    assert data.data.shape == (20, 20)


def test_run_evaluation_to_frame_without_pandas(monkeypatch):
    hide(monkeypatch, "pandas")
    result = skrank.evaluate_run({"q1": {"d1": 1}, "q2": {"d2": 1}},
                                 {"q1": {"d1": 2.0, "d3": 1.0}, "q2": {"d3": 1.0}},
                                 ["recip_rank"])
    assert result.mean == {"recip_rank": 0.5}  # (1/1 + 0) / 2, without pandas
    with pytest.raises(ImportError, match=hint_pattern("pandas", "pandas")) as info:
        result.to_frame()
    assert "RunEvaluationResult.to_frame() needs pandas" in str(info.value)


def test_comparison_to_frame_without_pandas(monkeypatch):
    hide(monkeypatch, "pandas")
    result = skrank.compare(Y, {"one": SCORE, "two": SCORE[::-1]}, query_id=QID,
                            metrics=["map"], n_resamples=50, random_state=0)
    assert "map" in repr(result)
    with pytest.raises(ImportError, match=hint_pattern("pandas", "pandas")):
        result.to_frame()


def test_read_trec_files_without_pandas(monkeypatch, tmp_path):
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    hide(monkeypatch, "pandas")
    with pytest.raises(ImportError, match=r"needs pandas.*pip install"):
        skrank.read_qrels(path)


def test_metrics_with_string_ids_without_pandas(monkeypatch):
    expected = skrank.average_precision_score(Y, SCORE, query_id=QID)
    hide(monkeypatch, "pandas")
    assert skrank.average_precision_score(Y, SCORE, query_id=QID) == expected
    assert skrank.average_precision_score(
        Y, SCORE, query_id=np.array(QID, dtype=object)
    ) == expected


# -------------------------------------------------------------- matplotlib --

@pytest.mark.parametrize("display", ["FAPCurveDisplay", "PrecisionRecallAtKDisplay"])
def test_displays_without_matplotlib(monkeypatch, display):
    hide(monkeypatch, "matplotlib")
    cls = getattr(skrank, display)
    with pytest.raises(ImportError, match=hint_pattern("matplotlib", "plot")) as info:
        cls.from_predictions(Y, SCORE, query_id=QID)
    assert f"{display}.plot needs matplotlib" in str(info.value)


def test_cutoff_selector_without_matplotlib(monkeypatch):
    hide(monkeypatch, "matplotlib")
    from sklearn.linear_model import LogisticRegression

    data = skrank.load_digits_retrieval(n_queries=30, n_candidates=10)
    selector = skrank.FAPCutoffClassifier(LogisticRegression(max_iter=500), cv=3)
    selector.fit(data.data, data.target, query_id=data.query_id)
    assert selector.predict(data.data, query_id=data.query_id).shape == data.target.shape


# ----------------------------------------------------------------- pyarrow --

def test_trec_files_without_pyarrow(tmp_path):
    # in a subprocess: pandas, once imported with pyarrow, needs it for its strings
    pytest.importorskip("pandas", reason="the pandas reader replaces pyarrow's")
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n")
    (tmp_path / "run").write_text(
        "q1 Q0 d2 1 2.0 sys\nq1 Q0 d1 2 1.0 sys\nq2 Q0 d3 1 5.0 sys\n"
    )
    code = textwrap.dedent("""
        import skrank
        from skrank.cli._cli import main
        result = skrank.evaluate_run("qrels", "run", ["map", "recip_rank"])
        print(result.mean["map"], result.mean["recip_rank"])
        print(" ".join(skrank.read_run("run")["doc_id"]))
        main(["evaluate", "qrels", "run", "-m", "map"])
    """)
    out = run_blocked(code, ["pyarrow"], tmp_path).splitlines()
    # q1: d1 relevant at rank 2 -> AP 1/2, RR 1/2; q2: d3 at rank 1 -> 1, 1
    assert [float(v) for v in out[0].split()] == [0.75, 0.75]
    assert out[1] == "d2 d1 d3"
    assert out[-1].split()[0] == "map" and out[-1].split()[-1] == "0.7500"


# -------------------------------------------------------- dask, distributed --

def test_dask_evaluate_without_dask(monkeypatch):
    hide(monkeypatch, "dask", "distributed")
    import skrank.dask

    with pytest.raises(ImportError, match=hint_pattern("dask", "dask")) as info:
        skrank.dask.evaluate(None)
    assert "skrank.dask.evaluate needs dask" in str(info.value)


def test_dask_evaluate_by_without_dask_names_itself(monkeypatch):
    hide(monkeypatch, "dask", "distributed")
    import skrank.dask

    with pytest.raises(ImportError, match=hint_pattern("dask", "dask")) as info:
        skrank.dask.evaluate_by(None, ["map"], by="device")
    assert str(info.value).startswith("skrank.dask.evaluate_by needs dask,")


def test_dask_evaluate_without_distributed(monkeypatch):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
    import skrank.dask

    rows = pd.DataFrame({"qid": QID, "label": Y, "score": SCORE})
    frame = dd.from_pandas(rows, npartitions=2)
    hide(monkeypatch, "distributed")  # the local scheduler needs no cluster
    assert skrank.dask.evaluate(frame, ["map"]) == pytest.approx(
        {"map": skrank.average_precision_score(Y, SCORE, query_id=QID)}
    )


# ------------------------------------------------------- polars, narwhals --

def test_dataframe_inputs_without_narwhals(monkeypatch):
    pd = pytest.importorskip("pandas")
    expected = skrank.ndcg_score(Y, SCORE, query_id=QID, k=2)
    hide(monkeypatch, "narwhals.stable")
    y, score, qid = pd.Series(Y), pd.Series(SCORE), pd.Series(QID)
    assert skrank.ndcg_score(y, score, query_id=qid, k=2) == expected
    try:
        import polars as pl
    except ImportError:
        return
    assert skrank.ndcg_score(pl.Series(Y), pl.Series(SCORE), query_id=pl.Series(QID),
                             k=2) == expected


def test_everything_without_polars(monkeypatch):
    expected = skrank.evaluate(Y, SCORE, query_id=QID)
    hide(monkeypatch, "polars")
    assert skrank.evaluate(Y, SCORE, query_id=QID) == expected


# --------------------------------------------------------------- examples --

@pytest.mark.parametrize("example, package", [
    ("query_id_column.py", "pandas"),
    ("choose_cutoff.py", "pandas"),
    ("tune_lightgbm_ranker.py", "lightgbm"),
    ("evaluate_click_log_dask.py", "dask"),
    ("evaluate_click_log_dask.py", "pyarrow"),
])
def test_example_without_its_package_says_so_and_exits_cleanly(example, package, tmp_path):
    path = str(ROOT / "examples" / example)
    code = f"import runpy; runpy.run_path({path!r}, run_name='__main__')"
    out = run_blocked(code, [package], tmp_path)  # exit status 0, checked there
    assert out.splitlines() == [out.strip()]  # one line
    # the first package the example misses: the blocked one, or one not installed
    order = ["dask", "distributed", "pyarrow"] if "dask" in example else [package]
    first = next(name for name in order
                 if name == package or importlib.util.find_spec(name) is None)
    assert out.startswith(f"This example needs {first}: pip install ")


# ------------------------------------------------ a runtime-only install --

BLOCKED = ["pandas", "matplotlib", "pyarrow", "dask", "distributed", "polars",
           "lightgbm", "xgboost", "catboost", "ranx", "pytrec_eval", "torch"]

RUNTIME_ONLY = textwrap.dedent("""
    import sys

    import numpy as np
    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_validate

    import skrank
    import skrank.dask

    data = skrank.load_digits_retrieval(n_queries=40, n_candidates=10)
    X, y, qid = data.data, data.target, data.query_id.astype(str)
    print("evaluate", sorted(skrank.evaluate(y, X[:, 17], query_id=qid)))
    sklearn.set_config(enable_metadata_routing=True)
    scores = cross_validate(LogisticRegression(max_iter=500), X, y, cv=GroupKFold(3),
                            scoring=skrank.get_scorer("ndcg@5"),
                            params={"query_id": qid, "groups": qid})
    sklearn.set_config(enable_metadata_routing=False)
    print("scorer", scores["test_score"].shape)
    selector = skrank.FAPCutoffClassifier(LogisticRegression(max_iter=500), cv=3)
    print("selector", selector.fit(X, y, query_id=qid).best_k_ >= 1)
    print("compare", type(skrank.compare(y, {"a": X[:, 17], "b": X[:, 16]},
                                        query_id=qid, n_resamples=50)).__name__)
    result = skrank.evaluate_run({"q1": {"d1": 1}}, {"q1": {"d1": 1.0, "d2": 2.0}})
    print("evaluate_run", result.mean["map"])

    def hint(call):
        try:
            call()
        except ImportError as exc:
            assert "pip install" in str(exc), str(exc)
            assert type(exc) is ImportError, type(exc)
            return "hint"
        return "no error"

    print("as_frame", hint(lambda: skrank.load_digits_retrieval(as_frame=True)))
    print("to_frame", hint(result.to_frame))
    print("display", hint(lambda: skrank.FAPCurveDisplay.from_predictions(
        y, X[:, 17], query_id=qid)))
    print("dask", hint(lambda: skrank.dask.evaluate(None)))
    print("loaded", sorted({m.partition(".")[0] for m in sys.modules} & BLOCKED))
""")


def test_runtime_only_install(tmp_path):
    out = run_blocked(RUNTIME_ONLY, BLOCKED, tmp_path)
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    assert lines["scorer"] == "(3,)"
    assert lines["selector"] == "True"
    assert lines["compare"] == "ComparisonResult"
    assert float(lines["evaluate_run"]) == 0.5  # d1 relevant at rank 2
    for feature in ["as_frame", "to_frame", "display", "dask"]:
        assert lines[feature] == "hint", feature
    assert lines["loaded"] == "[]"


@pytest.mark.parametrize("reader", ["read_qrels", "read_run"])
def test_trec_readers_as_dataframes_name_pandas(reader, tmp_path, monkeypatch):
    path = tmp_path / "file"
    path.write_text("q1 0 d1 1\n" if reader == "read_qrels" else "q1 Q0 d1 1 1 r\n")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=rf"{reader}\(\) needs pandas.*pip install"):
        getattr(skrank, reader)(path)
