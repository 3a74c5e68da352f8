"""Optional dependencies: one lazy import, one install hint.

skrank's runtime dependencies are numpy, scipy and scikit-learn. Everything
else (pandas, matplotlib, pyarrow, Dask, ...) is imported when a feature
needs it, through :func:`import_optional`, so that a missing package gives
an ``ImportError`` saying what needed it and what to install, never a bare
``ModuleNotFoundError: No module named 'pandas'``.
"""

import importlib

#: top-level module -> (what ``pip install`` takes, the skrank extra holding it)
OPTIONAL = {
    "pandas": ("pandas", "pandas"),
    "matplotlib": ("matplotlib", "plot"),
    "pyarrow": ("pyarrow", "io"),
    "dask": ('"dask[dataframe]" distributed', "dask"),
    "distributed": ('"dask[dataframe]" distributed', "dask"),
    "polars": ("polars", "frames"),
    "narwhals": ("narwhals", "frames"),
    "pyspark": ('"pyspark[sql]"', "spark"),
}


def install_hint(module, needed_by):
    """The message of the ImportError raised when ``module`` is missing.

    Parameters
    ----------
    module : str
        The module to import, such as ``"pandas"`` or ``"dask.dataframe"``;
        its top-level package names the hint.
    needed_by : str
        What needs it, as the user called it (``"RunEvaluationResult.to_frame()"``).

    Returns
    -------
    message : str

    Examples
    --------
    >>> from skrank._core._optional import install_hint
    >>> print(install_hint("pandas", "to_frame()"))
    to_frame() needs pandas, an optional dependency of skrank: install it with
    `pip install pandas` (or, in a checkout of skrank, `pip install -e ".[pandas]"`).
    """
    top = module.partition(".")[0]
    package, extra = OPTIONAL.get(top, (top, None))
    checkout = "" if extra is None else (
        f' (or, in a checkout of skrank, `pip install -e ".[{extra}]"`)'
    )
    return (
        f"{needed_by} needs {top}, an optional dependency of skrank: install it "
        f"with `pip install {package}`{checkout}."
    )


def import_optional(module, needed_by):
    """Import ``module``, or raise an ImportError with an install hint.

    Parameters
    ----------
    module : str
        Module to import (``"pandas"``, ``"matplotlib.pyplot"``,
        ``"dask.dataframe"``, ...).
    needed_by : str
        What needs it, named in the message.

    Returns
    -------
    module : module

    Raises
    ------
    ImportError
        When the module (or one it needs) cannot be imported; its message is
        :func:`install_hint` followed by the original error, and its ``name``
        is the missing module.

    Examples
    --------
    >>> from skrank._core._optional import import_optional
    >>> import_optional("math", "this example").sqrt(4.0)
    2.0
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = getattr(exc, "name", None) or module
        raise ImportError(
            f"{install_hint(module, needed_by)}\n({type(exc).__name__}: {exc})",
            name=missing,
        ) from exc
