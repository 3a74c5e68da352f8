"""A pytest plugin that makes installed packages look missing (``tests/test_doctest_blocks.py``).

Loaded with ``-p tests._hide_packages`` in a pytest subprocess; the packages
named in the ``SKRANK_TEST_HIDE`` environment variable (comma-separated
top-level names) are then not found (``importlib.util.find_spec`` gives
None) and cannot be imported, as under the README's ``pip install -e
".[test]"``, which leaves the optional packages out.
"""

import importlib.abc
import importlib.util
import os
import sys

HIDDEN = frozenset(filter(None, os.environ.get("SKRANK_TEST_HIDE", "").split(",")))
_find_spec = importlib.util.find_spec


def _hidden(name):
    return name.partition(".")[0] in HIDDEN


def find_spec(name, package=None):
    return None if _hidden(name) else _find_spec(name, package)


class _Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if _hidden(name):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden)", name=name)
        return None


importlib.util.find_spec = find_spec
sys.meta_path.insert(0, _Hide())
