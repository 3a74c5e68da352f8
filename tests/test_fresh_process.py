"""First calls in a fresh interpreter: no result may depend on what was imported before.

Issue 44: ``skrank.ndcg_score(..., compat="lightgbm")`` failed as a fresh
process's first call, because the preset step read a table that the metric
registry filled when imported; the test suite had always imported the
registry before. Here every checked thing runs in its own new interpreter:

* each README ``python`` block (one subprocess per block), and each docs
  page's doctests, the README's included (one ``pytest`` subprocess per page,
  which also reports that no skrank module was imported before the page's
  first example);
* every module of skrank imported under a watch that reports a module-level
  dict, list or set changed by another module's import (the bug's shape);
* every public metric function called with each ``compat=`` preset that has
  its metric, as the very first thing a process does: one process per
  (function, preset) pair. The functions a preset lacks are called in one
  process per preset (only the first is a first call; their answer is an
  error, the same in any order). :func:`skrank.evaluate` and a multi-metric
  scorer (``get_scorer(names, compat=...).evaluate_scores``) with all of a
  preset's metrics are first calls in two more processes per preset.

The expected values come from the test process itself, where the registry
is imported (the condition that hid the bug), from arithmetic written here,
and from scikit-learn's own metrics for ``compat="sklearn"``. About 90
interpreters start (a bare first call takes about 0.3 s, a page's pytest
run 1-5 s): about a minute of CPU time in all, the per-pair processes a
few at a time.
"""

import doctest
import inspect
import json
import math
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import skrank
import skrank.metrics._registry  # noqa: F401 (imported here, never in the children)
from skrank._core._presets import PRESETS
from skrank.metrics._registry import METRICS

from ._fresh_calls import outcome
from ._needs import first_missing

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
PAGES = sorted(
    path.relative_to(ROOT).as_posix()
    for path in [ROOT / "README.md", ROOT / "docs" / "quick_start.rst",
                 *sorted((ROOT / "docs" / "user_guide").glob("*.rst"))]
    if doctest.DocTestParser().get_examples(path.read_text())
)
# every query has relevant and irrelevant rows and at least two rows: the
# input every preset's rules accept (binary, integer grades, two rows, ...)
DATA = {"y_true": [1, 0, 1, 0, 1, 0], "y_score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
        "query_id": [1, 1, 1, 2, 2, 2]}


def _env():
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "MPLBACKEND": "Agg"}


def _fresh(args, *, stdin=None, timeout=300):
    """``python args`` in a new interpreter from the repository's root."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=_env(), input=stdin,
        capture_output=True, text=True, timeout=timeout,
    )


def _first_calls(calls):
    """Outcomes of ``[(function, kwargs)]`` called in order by one fresh process."""
    result = _fresh(["-c", "from tests._fresh_calls import main; main()",
                     json.dumps(calls)])
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _each_first(calls):
    """The outcome of each call as the first of its own fresh process.

    The processes run a few at a time (they are independent); each makes
    exactly one call.
    """
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        return [outcomes[0] for outcomes in pool.map(lambda c: _first_calls([c]), calls)]


def _metric_functions_taking_compat():
    """The public metric functions ``metric(y_true, y_score, ..., compat=)``."""
    found = []
    for name in skrank.metrics.__all__:
        value = getattr(skrank.metrics, name)
        parameters = inspect.signature(value).parameters if inspect.isfunction(
            value) else {}
        if "y_true" in parameters and "compat" in parameters and name != "evaluate":
            found.append(name)
    return sorted(found)


# -- the README's blocks and the docs pages -------------------------------------

# the README block's code, or its doctest, run alone in this interpreter
_RUN_BLOCK = """\
import doctest, sys
block = sys.stdin.read()
if ">>>" in block:
    test = doctest.DocTestParser().get_doctest(block, {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    if runner.failures or not test.examples:
        sys.exit("".join(report) or "no examples")
else:
    exec(compile(block, "README block", "exec"), {"__name__": "__main__"})
"""


def _modules(block):
    code = "\n".join(line[4:] if line.startswith((">>> ", "... ")) else line
                     for line in block.splitlines())
    return re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][\w.]*)", code, flags=re.M)


@pytest.mark.parametrize("number", range(len(PYTHON_BLOCKS)))
def test_readme_block_runs_in_a_fresh_interpreter(number):
    block = PYTHON_BLOCKS[number]
    missing = first_missing(_modules(block))
    if missing is not None:
        pytest.skip(f"{missing} is not installed (an optional package of this block)")
    result = _fresh(["-c", _RUN_BLOCK], stdin=block)
    assert result.returncode == 0, f"README python block {number}:\n{result.stderr}"


@pytest.mark.parametrize("page", PAGES)
def test_page_doctests_run_in_a_fresh_interpreter(page):
    # the repository's pytest set-up (NUMBER, per-block skips) on one page
    result = _fresh(["-m", "pytest", page, "-q", "-p", "no:cacheprovider",
                     "-p", "no:randomly", "-p", "tests._fresh_plugin"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"\b1 (passed|skipped)\b", result.stdout), result.stdout
    assert "skrank modules before the first test: none" in result.stdout


def test_the_page_check_can_fail(tmp_path):
    # a page whose example is wrong fails in the subprocess, and is reported
    page = tmp_path / "wrong.rst"
    page.write_text(">>> import skrank\n"
                    ">>> skrank.precision_at_k_score([1, 0], [2, 1], k=1)\n0.5\n")
    result = _fresh(["-m", "pytest", str(page), "-q", "-p", "no:cacheprovider",
                     "-p", "no:randomly", "-p", "tests._fresh_plugin",
                     "--rootdir", str(ROOT), "-c", str(ROOT / "setup.cfg")])
    assert result.returncode == 1 and "1 failed" in result.stdout, result.stdout


# -- no module fills another's table when imported ---------------------------------


def test_no_module_fills_a_table_of_another_when_imported():
    # every module of skrank imported with a watch on their module-level
    # dicts, lists and sets (tests/_import_watch.py); before issue 44 the
    # registry's import filled the preset step's table of stems
    result = _fresh(["-m", "tests._import_watch", "skrank"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_the_import_watch_finds_a_table_filled_from_elsewhere(tmp_path):
    package = tmp_path / "watched_package"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("TABLE = {}\nOWN = []\nOWN.append(1)  # its own\n")
    (package / "b.py").write_text("from .a import TABLE\nTABLE['x'] = 1\n")
    env = {**_env(), "PYTHONPATH": os.pathsep.join([str(tmp_path), _env()["PYTHONPATH"]])}
    result = subprocess.run(
        [sys.executable, "-m", "tests._import_watch", "watched_package"], cwd=ROOT,
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [["watched_package.a", "TABLE",
                                          "watched_package.b"]]


# -- every metric function under every preset, as a first call ------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_each_metric_under_the_preset_is_a_working_first_call(preset):
    convention = PRESETS[preset]
    calls = [(METRICS[stem].func.__name__, {**DATA, "compat": preset})
             for stem in convention.metrics]
    names = list(convention.metrics)
    # and evaluate and a multi-metric scorer with the same metrics
    many = [("evaluate", {**DATA, "compat": preset, "metrics": names}),
            ("scorer", {**DATA, "compat": preset, "metrics": names})]
    *fresh, evaluated, scored = _each_first(calls + many)  # one process each
    for (function, kwargs), got in zip(calls, fresh):
        assert "error" not in got, (function, got)
        assert got == outcome(function, kwargs), function  # the registry imported
    # every value of evaluate and of the scorer equals the metric's function's
    assert evaluated == outcome("evaluate",
                                {**DATA, "compat": preset, "metrics": names})
    for stem, (_, got) in zip(names, zip(calls, fresh)):
        assert evaluated["value"][stem] == got["value"], stem
        sign = 1.0 if METRICS[stem].greater_is_better else -1.0
        assert float(scored["value"][stem]) == sign * float(got["value"]), stem


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_metric_the_preset_lacks_is_refused_alike_in_a_fresh_process(preset):
    has = {METRICS[stem].func.__name__ for stem in PRESETS[preset].metrics}
    calls = [(name, {**DATA, "compat": preset})
             for name in _metric_functions_taking_compat() if name not in has]
    fresh = _first_calls(calls)
    for (function, kwargs), got in zip(calls, fresh):
        assert got == outcome(function, kwargs), function
        assert got["error"].startswith("ValueError: "), (function, got)
        assert f"{PRESETS[preset].peer} has no metric" in got["error"], (function, got)


def test_the_issue_one_liner_gives_the_hand_worked_value_under_every_preset():
    # binary labels without ties: every preset's nDCG@3 is the same number
    # query 1: relevance 1, 0, 1 in score order; query 2: 0, 1
    ndcg_1 = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    ndcg_2 = (1 / math.log2(3)) / 1
    expected = (ndcg_1 + ndcg_2) / 2
    data = {"y_true": [1, 0, 1, 0, 1], "y_score": [0.9, 0.8, 0.7, 0.6, 0.5],
            "query_id": [1, 1, 1, 2, 2], "k": 3}
    presets = sorted(PRESETS)
    fresh = _each_first([("ndcg_score", {**data, "compat": p}) for p in presets])
    for preset, got in zip(presets, fresh):
        assert float(got["value"]) == pytest.approx(expected, rel=1e-12), preset


def test_sklearn_preset_first_calls_equal_scikit_learn():
    # scikit-learn's own functions, one query (one 2-D row) at a time
    metrics = pytest.importorskip("sklearn.metrics")
    y = np.array(DATA["y_true"]).reshape(2, 3)
    s = np.array(DATA["y_score"]).reshape(2, 3)
    expected = {
        "ndcg_score": np.mean([metrics.ndcg_score(y[i:i + 1], s[i:i + 1])
                               for i in range(2)]),
        "dcg_score": np.mean([metrics.dcg_score(y[i:i + 1], s[i:i + 1])
                              for i in range(2)]),
        "average_precision_score": np.mean([metrics.average_precision_score(y[i], s[i])
                                            for i in range(2)]),
        "coverage_error": metrics.coverage_error(y, s),
        "label_ranking_loss": metrics.label_ranking_loss(y, s),
        "label_ranking_average_precision_score":
            metrics.label_ranking_average_precision_score(y, s),
    }
    fresh = _each_first([(function, {**DATA, "compat": "sklearn"})
                         for function in expected])
    for (function, value), got in zip(expected.items(), fresh):
        assert float(got["value"]) == pytest.approx(value, rel=1e-12), function


def test_every_registry_function_is_a_metric_function_taking_compat():
    # the list the refusals above are taken from misses no registry metric
    functions = set(_metric_functions_taking_compat())
    assert {spec.func.__name__ for spec in METRICS.values()} <= functions
    assert "fap_curve" in functions  # and holds the functions without a stem


def test_a_first_call_check_can_fail():
    # a child that is not fresh says so, and the outcome of a wrong call is
    # an error, not a value
    result = _fresh(["-c", "import skrank.metrics; "
                     "from tests._fresh_calls import main; main()", "[]"])
    assert result.returncode != 0 and "not a fresh process" in result.stderr
    (got,) = _first_calls([("ndcg_score", {**DATA, "compat": "no_such_peer"})])
    assert got["error"].startswith("ValueError: `compat` must be")
