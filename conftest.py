"""Doctests (in skrank/, the README and docs/) that import a missing optional package skip.

The README's ``pip install -e ".[test]"`` leaves out the peers and the
optional packages some examples use (Dask, LightGBM, ...). Their examples
are skipped **block by block**, not page by page (``tests/_doctest_blocks.py``):

* a block is a run of ``>>>`` examples with nothing but blank lines between
  them: one literal block of a page, or the examples between two paragraphs
  of prose (of a docstring, too);
* the examples of a block that imports a missing module are skipped (doctest's
  ``SKIP`` option), and so are the later examples that use a name a skipped
  example binds; every other example of the page still runs;
* a page (or docstring) whose examples are all skipped is reported as a
  skipped test, with the missing package and the extra that installs it.
"""

import pytest

from tests._doctest_blocks import all_skipped, skip_blocks_needing
from tests._needs import first_missing, reason


def pytest_collection_modifyitems(config, items):
    for item in items:
        doctest = getattr(item, "dtest", None)  # doctest items only
        if doctest is None:
            continue
        missing = skip_blocks_needing(doctest, first_missing)
        if missing is not None and all_skipped(doctest):
            item.add_marker(pytest.mark.skip(reason=reason(missing)))
