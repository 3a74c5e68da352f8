"""The Python that skrank.spark's jobs start on a local session (spark/_workers.py).

pyspark starts its workers with ``python3`` from the PATH unless told
otherwise; from a virtual environment's interpreter run by its path (not
activated), that is another Python, and the workers failed with
``ModuleNotFoundError: No module named 'pyarrow'``.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from skrank.spark._workers import driver_python_for_local_workers, missing_module_error

from .conftest import _missing

ROOT = Path(__file__).resolve().parents[2]


def fake_frame(master="local[2]", python="python3", conf=None):
    context = SimpleNamespace(master=master, pythonExec=python,
                              getConf=lambda: dict(conf or {}))
    return SimpleNamespace(sparkSession=SimpleNamespace(sparkContext=context)), context


def test_a_local_session_runs_the_drivers_python_inside_the_block(monkeypatch):
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    for master in ("local", "local[2]", "local[*]", "local-cluster[2,1,1024]"):
        df, context = fake_frame(master)
        with driver_python_for_local_workers(df):
            assert context.pythonExec == sys.executable
        assert context.pythonExec == "python3"  # the user's own jobs: unchanged


@pytest.mark.parametrize("case", ["environment", "conf", "context", "cluster"])
def test_an_interpreter_the_user_chose_or_a_cluster_is_left_alone(monkeypatch, case):
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    if case == "environment":
        monkeypatch.setenv("PYSPARK_PYTHON", "/opt/python/bin/python3")
    chosen = "/opt/python/bin/python3"
    df, context = fake_frame(
        master="spark://host:7077" if case == "cluster" else "local[2]",
        python=chosen if case == "context" else "python3",
        conf={"spark.pyspark.python": chosen} if case == "conf" else {},
    )
    before = context.pythonExec
    with driver_python_for_local_workers(df):
        assert context.pythonExec == before


def test_a_session_without_a_context_is_left_alone():
    # Spark Connect: no SparkContext on the driver
    class Connect:
        @property
        def sparkContext(self):
            raise RuntimeError("not supported in Spark Connect")

    with driver_python_for_local_workers(SimpleNamespace(sparkSession=Connect())):
        pass


def test_a_worker_without_a_module_is_an_importerror_naming_its_python():
    text = ("PythonException: An exception was thrown from the Python worker.\n"
            "Traceback (most recent call last):\n  File \"worker.py\", line 1\n"
            "ModuleNotFoundError: No module named 'pyarrow'\n")
    df, _ = fake_frame(master="yarn", python="/usr/bin/python3")
    error = missing_module_error(text, df)
    assert isinstance(error, ImportError) and error.name == "pyarrow"
    assert "could not import pyarrow" in str(error)
    assert "`/usr/bin/python3`" in str(error) and "PYSPARK_PYTHON" in str(error)
    assert missing_module_error("ValueError: `y_score` holds NaN", df) is None


CHECK = "import sys; print(sys.version_info[:2]); import pyarrow"


def _python_without_pyarrow():
    """Another Python of this minor version that cannot import pyarrow, or None."""
    candidates = [getattr(sys, "_base_executable", None), "/usr/bin/python3",
                  "/usr/local/bin/python3"]
    for candidate in filter(None, candidates):
        if not os.path.isfile(candidate) or os.path.samefile(candidate, sys.executable):
            continue
        check = subprocess.run(
            [candidate, "-c", CHECK],
            capture_output=True, text=True, timeout=60,
        )
        same_version = check.stdout.strip() == str(tuple(sys.version_info[:2]))
        if check.returncode != 0 and same_version:
            return candidate
    return None


SCRIPT = textwrap.dedent("""
    import warnings
    warnings.filterwarnings("ignore")
    from pyspark.sql import SparkSession
    import skrank.spark

    spark = (SparkSession.builder.master("local[1]")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("OFF")
    df = spark.createDataFrame(
        [("a", 1, 0.9), ("a", 0, 0.5), ("b", 0, 0.8), ("b", 1, 0.7)],
        ["qid", "label", "score"])
    print("result:", skrank.spark.evaluate(df, metrics=["mrr"]))
    spark.stop()
""")


@pytest.mark.slow
def test_a_venvs_python_run_by_its_path_scores_on_a_local_session(tmp_path):
    reason = _missing()
    if reason is not None:
        pytest.skip(reason)
    other = _python_without_pyarrow()
    if other is None:
        pytest.skip("no other Python of this version without pyarrow for the PATH")
    # the PATH's python3 is a Python without pyarrow, as for a venv not activated
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(other)
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT),
                                                      env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    # mrr: query a 1 (relevant first), query b 1/2 (relevant second)
    assert "result: {'mrr': 0.75}" in done.stdout, done.stderr[-3000:]
