"""A page's doctests skip block by block when one block needs a missing package.

``conftest.py`` marks the examples that cannot run (``tests/_doctest_blocks.py``);
before issue 44 one Dask block skipped every doctest of the clicks page
under the README's ``pip install -e ".[test]"``. The pages here are
synthetic: the missing package is one that surely does not exist.
"""

import doctest
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests._doctest_blocks import all_skipped, blocks, skip_blocks_needing
from tests._needs import first_missing

ROOT = Path(__file__).resolve().parents[1]
GONE = "skrank_surely_missing_package"

PAGE = f"""\
A page
======

The first block runs:

>>> import skrank
>>> total = 1 + 1

The second needs a package that is not installed:

>>> import {GONE} as gone
>>> import skrank.metrics
>>> made = gone.make()

This one does not, and runs (``skrank`` is still there):

>>> total
2
>>> skrank.ndcg_score([1, 0], [2, 1])
1.0

This one uses what the skipped block made, so it is skipped too:

>>> made.value
42
>>> also = made.other()

and so is one that uses what that one would have made:

>>> also
7
"""


def _doctest(text):
    return doctest.DocTestParser().get_doctest(text, {}, "page", "page.rst", 0)


def test_blocks_are_runs_of_examples_between_prose():
    test = _doctest(PAGE)
    sizes = [len(block) for block in blocks(test)]
    assert sizes == [2, 3, 2, 2, 1]


def test_the_examples_of_a_block_with_a_missing_import_and_its_users_skip():
    test = _doctest(PAGE)
    assert skip_blocks_needing(test, first_missing) == GONE
    skipped = [doctest.SKIP in example.options for example in test.examples]
    #          block 1       block 2 (gone)      block 3       made...      also
    assert skipped == [False, False, True, True, True, False, False, True, True, True]
    assert not all_skipped(test)


def test_importorskip_of_a_missing_package_skips_its_block_and_users():
    test = _doctest(f">>> import pytest\n>>> gone = pytest.importorskip('{GONE}')\n\n"
                    "Prose.\n\n>>> 2 * 2\n4\n\nMore prose.\n\n>>> gone.x\n1\n")
    assert skip_blocks_needing(test, first_missing) == GONE
    assert [doctest.SKIP in e.options for e in test.examples] == [True, True, False, True]


def test_a_page_without_a_missing_package_is_left_alone():
    test = _doctest(">>> import numpy\n>>> 1\n1\n")
    assert skip_blocks_needing(test, first_missing) is None
    assert not any(example.options for example in test.examples)


def _run_pytest(tmp_path, text):
    """pytest on one page, with the repository's conftest as a plugin."""
    (tmp_path / "page.rst").write_text(text)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider",
         "-p", "no:randomly", "--doctest-glob=*.rst", "-rs", "-q", "page.rst"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )


def test_pytest_runs_the_other_blocks_of_a_page(tmp_path):
    result = _run_pytest(tmp_path, PAGE)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def test_the_blocks_that_run_can_fail(tmp_path):
    # the check above can fail: a wrong value in a block that runs is reported
    result = _run_pytest(tmp_path, PAGE.replace(">>> total\n2", ">>> total\n3"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in result.stdout


def test_a_page_whose_every_block_is_skipped_says_which_package(tmp_path):
    page = textwrap.dedent(f"""\
        Only one block:

        >>> import {GONE}
        >>> {GONE}.x
        1
        """)
    result = _run_pytest(tmp_path, page)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout
    assert f"{GONE} is not installed" in result.stdout


def test_the_clicks_page_runs_without_dask_but_its_dask_block():
    # the README's ".[test]" has no Dask: the clicks page still runs, all but
    # its Dask block (every example of the page was skipped before issue 44)
    env = {**os.environ, "SKRANK_TEST_HIDE": "dask,distributed",
           "PYTHONPATH": os.pathsep.join(
               filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "docs/user_guide/clicks.rst", "-q", "-rs",
         "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "tests._hide_packages"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout  # page-level skipping said "1 skipped"


def test_hidden_packages_look_missing():
    env = {**os.environ, "SKRANK_TEST_HIDE": "numpy",
           "PYTHONPATH": os.pathsep.join(
               filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    code = ("import tests._hide_packages, importlib.util\n"
            "assert importlib.util.find_spec('numpy') is None\n"
            "try:\n    import numpy\nexcept ModuleNotFoundError:\n    print('hidden')\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "hidden", result.stderr
