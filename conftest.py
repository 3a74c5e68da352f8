"""Doctests (in skrank/, the README and docs/) that import a missing optional package skip.

The README's ``pip install -e ".[test]"`` leaves out the peers and the
optional packages some examples use (Dask, LightGBM, ...); a doctest that
imports one is skipped with the reason, as the tests in tests/ are.
"""

import re

import pytest

from tests._needs import first_missing, reason

_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_][\w.]*)", flags=re.M)


def pytest_collection_modifyitems(config, items):
    for item in items:
        doctest = getattr(item, "dtest", None)  # doctest items only
        if doctest is None:
            continue
        source = "\n".join(example.source for example in doctest.examples)
        missing = first_missing(_IMPORT.findall(source))
        if missing is not None:
            item.add_marker(pytest.mark.skip(reason=reason(missing)))
