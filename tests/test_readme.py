"""The README: one screen of set-up, and a tour whose blocks each run alone.

Every ``python`` block runs in a fresh namespace, as a reader would paste it
into a new interpreter: a block that leans on a name from an earlier block
fails here. Doctest blocks (``>>>``) run the same way, each on its own, and
also under ``--doctest-glob=README.md``. The shell block of the TREC tour
runs in an empty folder. A block whose optional package (LightGBM, Dask) is
not installed is skipped, with that reason.
"""

import doctest
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TEXT = README.read_text()
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", TEXT, flags=re.S)
SHELL_BLOCKS = re.findall(r"```bash\n(.*?)```", TEXT, flags=re.S)
TREC_BLOCKS = [block for block in SHELL_BLOCKS if "skrank evaluate" in block]


def _top_level_modules(block):
    code = "\n".join(
        line[4:] if line.startswith((">>> ", "... ")) else line
        for line in block.splitlines()
    )
    names = re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", code, flags=re.M)
    return sorted(set(names))


def _skip_if_missing(block):
    for name in _top_level_modules(block):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed (an optional package of this block)")


def _block_id(block):
    first = next(line for line in block.splitlines() if line.strip())
    return first.strip()[:40]


@pytest.fixture(autouse=True)
def _routing_off_afterwards():
    yield
    sklearn.set_config(enable_metadata_routing=False)


@pytest.mark.parametrize(
    "number", range(len(PYTHON_BLOCKS)),
    ids=[f"{i}:{_block_id(b)}" for i, b in enumerate(PYTHON_BLOCKS)],
)
def test_python_block_runs_alone(number):
    block = PYTHON_BLOCKS[number]
    _skip_if_missing(block)
    namespace = {"__name__": "__readme__"}  # nothing from the other blocks
    name = f"README.md python block {number}"
    if ">>>" in block:
        parser = doctest.DocTestParser()
        test = parser.get_doctest(block, namespace, name, str(README), 0)
        runner = doctest.DocTestRunner(
            optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        )
        report = []
        runner.run(test, out=report.append)
        failed = f"{name} failed:\n" + "".join(report)
        assert test.examples and runner.failures == 0, failed
    else:
        exec(compile(block, name, "exec"), namespace)


def test_a_block_that_needs_an_earlier_one_fails_here():
    # the check above can fail: a name made by another block is not there
    with pytest.raises(NameError):
        exec(compile("selector.best_k_", "<snippet>", "exec"), {"__name__": "x"})


def test_a_block_whose_package_is_missing_is_skipped_with_the_name():
    block = ">>> import numpy\n>>> from skrank_no_such_package import x\n"
    with pytest.raises(pytest.skip.Exception, match="skrank_no_such_package"):
        _skip_if_missing(block)
    _skip_if_missing("import numpy\nfrom sklearn.base import clone\n")  # installed


@pytest.mark.parametrize("number", range(len(TREC_BLOCKS)))
def test_trec_command_block_runs_in_an_empty_folder(number, tmp_path):
    # the installed ``skrank`` command of this interpreter, on this checkout
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                       os.environ.get("PYTHONPATH")]))}
    if not (Path(bin_dir) / "skrank").exists():
        pytest.skip("the skrank command is not installed beside this interpreter")
    result = subprocess.run(
        ["bash", "-e", "-c", TREC_BLOCKS[number]], cwd=tmp_path, env=env,
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "map" in result.stdout and "P_2" in result.stdout


def test_readme_fits_on_a_page():
    # a page or two: the set-up, one short block per face, then the links
    assert len(TEXT.splitlines()) <= 300


def test_readme_tours_every_face():
    tour = TEXT[TEXT.index("## A short tour"):]
    faces = ["skrank.evaluate(", "get_scorer(", "GridSearchCV", "FAPCutoffClassifier(",
             "QueryGroupRanker(", "skrank evaluate ", "skrank.dask.evaluate(",
             "skrank.spark.evaluate", "--stream", 'compat="lightgbm"',
             "explain_difference(", "RankingAccumulator(", "evaluate_by(",
             "skrank.clicks.evaluate(", "estimate_position_bias(",
             "skrank.diversity.", "expected_exposure(", "novelty_score(", "judged@",
             "judge_agreement("]
    for face in faces:
        assert face in tour, face


def test_readme_shows_the_two_setup_commands():
    setup = TEXT[:TEXT.index("## A short tour")]
    assert 'pip install -e ".[test]"' in setup
    assert "python examples/tune_ranking_model.py" in setup
    assert "python -m pytest" in setup


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python -m pytest\s*$", ci, flags=re.M)


def test_readme_links_point_to_files_that_exist():
    for target in re.findall(r"\]\(([^)#]+)\)", TEXT):
        if "://" not in target:
            assert (ROOT / target).exists(), target
