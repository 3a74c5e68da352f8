"""Skip a test whose optional package or peer is missing, saying which and how to get it.

``pip install -e ".[test]"`` installs what the core tests need; the peers
(trec_eval, ranx, LightGBM, ...) and the other optional packages come with
``".[all]"``, which CI installs, so every test runs there.
"""

import importlib.util

import pytest

#: top-level module -> the extra of pyproject.toml that installs it
EXTRA = {
    "pandas": "pandas",
    "matplotlib": "plot",
    "pyarrow": "frames",
    "polars": "frames",
    "narwhals": "frames",
    "dask": "dask",
    "distributed": "dask",
    "pyspark": "spark",
    "pytrec_eval": "peers",
    "ranx": "peers",
    "lightgbm": "peers",
    "xgboost": "peers",
    "catboost": "peers",
    "torch": "peers",
    "torchmetrics": "peers",
    "sphinx": "docs",
    "docutils": "docs",
}


def reason(module):
    """Why a test that imports ``module`` is skipped."""
    top = module.partition(".")[0]
    extra = EXTRA.get(top, "all")
    return (f"{top} is not installed (pip install -e \".[{extra}]\"; "
            "CI installs every extra)")


def needs(module, minversion=None):
    """``pytest.importorskip(module)`` with the reason above."""
    return pytest.importorskip(module, minversion=minversion, reason=reason(module))


def first_missing(modules):
    """The first of ``modules`` that is not installed, or None."""
    for name in modules:
        if importlib.util.find_spec(name.partition(".")[0]) is None:
            return name
    return None
