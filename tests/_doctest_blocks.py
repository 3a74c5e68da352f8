"""Skip a doctest's examples block by block when a block needs a missing package.

A page's doctests (a docs page, the README, one docstring) are ONE pytest
item, so skipping the item for one block that imports Dask would skip every
example of the page. Instead, the examples that cannot run are marked with
doctest's own ``SKIP`` option, and the others still run:

* a **block** is a run of ``>>>`` examples with nothing but blank lines
  between them (one literal block of a page, or one run of examples between
  two paragraphs of prose);
* every example of a block that imports a missing module
  (``import dask.dataframe``, ``from lightgbm import ...``,
  ``pytest.importorskip("lightgbm")``) is skipped;
* so is every later example that uses a name a skipped example binds
  (``ddf`` made in a Dask block and used further down), and what it binds
  is then missing too (``import skrank.dask`` does not take ``skrank``
  away from the examples when an earlier example that ran imported it).

When every example of the item is skipped, pytest reports the item as
skipped; :func:`skip_blocks_needing` returns the first missing module so that
the report can name it.
"""

import ast
import doctest
import re

_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_][\w.]*)", flags=re.M)
# pytest.importorskip("lightgbm") in a page: an import of that package too
_IMPORT_OR_SKIP = re.compile(r"importorskip\(\s*[\"']([A-Za-z_][\w.]*)[\"']")


def imported_modules(source):
    """The modules a piece of example source imports (``importorskip`` included)."""
    return _IMPORT.findall(source) + _IMPORT_OR_SKIP.findall(source)


def _end_line(example):
    """The line after an example's source and expected output (0-based)."""
    return example.lineno + example.source.count("\n") + example.want.count("\n")


def blocks(test):
    """The examples of a :class:`doctest.DocTest`, grouped into blocks (lists)."""
    lines = (test.docstring or "").splitlines()
    grouped = []
    for example in test.examples:
        if grouped:
            previous = grouped[-1][-1]
            between = lines[_end_line(previous):example.lineno]
            if all(not line.strip() for line in between):
                grouped[-1].append(example)
                continue
        grouped.append([example])
    return grouped


def _names(source):
    """``(bound, used, packages)`` names of an example's source.

    ``packages``: the top-level names ``import a.b`` binds, which hold the
    same package whatever submodule is imported (``import skrank.dask``
    leaves ``skrank`` usable when Dask is missing). All empty if the source
    does not parse.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set(), set()
    bound, used, packages = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, (ast.Store, ast.Del)) else used).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if isinstance(node, ast.Import) and alias.asname is None:
                    packages.add(alias.name.partition(".")[0])
                else:
                    bound.add(alias.asname or alias.name)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
    return bound, used, packages


def skip_blocks_needing(test, first_missing):
    """Mark with ``SKIP`` the examples of ``test`` that need a missing module.

    ``first_missing(modules)`` returns the first of the module names that is
    not installed, or None. Returns the first missing module found (None if
    every block can run); the examples of ``test`` are changed in place.
    """
    found = None
    unbound = set()  # names a skipped example would have bound
    ran = set()  # packages an example that runs has imported
    for block in blocks(test):
        missing = first_missing(imported_modules("\n".join(e.source for e in block)))
        if missing is not None:
            found = found or missing
        for example in block:
            bound, used, packages = _names(example.source)
            if missing is not None or used & unbound:
                example.options[doctest.SKIP] = True
                unbound |= bound | (packages - ran)
            else:
                unbound -= bound | packages  # (re)bound by an example that runs
                ran |= packages
    return found


def all_skipped(test):
    """Whether every example of ``test`` is skipped."""
    return all(example.options.get(doctest.SKIP, False) for example in test.examples)
