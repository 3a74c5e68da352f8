"""A pytest plugin for ``tests/test_fresh_process.py``: was skrank imported first?

Loaded with ``-p tests._fresh_plugin`` in the pytest subprocess that runs one
page's doctests; it prints which ``skrank`` modules were already imported
when collection ended (none, in a fresh process: the page's first example is
then the first use of skrank).
"""

import sys

_LOADED = []


def pytest_collection_finish(session):
    _LOADED[:] = sorted(m for m in sys.modules if m.partition(".")[0] == "skrank")


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(
        f"skrank modules before the first test: {', '.join(_LOADED) or 'none'}"
    )
