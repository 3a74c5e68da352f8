"""Which Python the Python workers of a Spark session run.

pyspark starts the executors' Python workers with the interpreter named by
``PYSPARK_PYTHON`` when the SparkContext was made, else with ``python3``
from the PATH. Run from a virtual environment's interpreter that is not
activated (``/path/to/venv/bin/python script.py``), the workers of a local
session are then another Python, without pyarrow or skrank, and fail with
``ModuleNotFoundError`` inside Spark's traceback.

For a local master every worker runs on the driver's machine, where the
driver's interpreter exists: while :func:`skrank.spark.evaluate` builds
and runs its jobs, they use ``sys.executable`` unless the user chose an
interpreter. On a cluster the workers' Python is the cluster's business; a
worker that cannot import a module gets an error that says so
(:func:`missing_module_error`).
"""

import contextlib
import os
import re
import sys

#: pyspark's interpreter for the workers when ``PYSPARK_PYTHON`` is unset
_PYSPARK_DEFAULT = "python3"


def _local_context(df):
    """The SparkContext behind ``df`` when its master is local, else None."""
    try:
        context = df.sparkSession.sparkContext
        master = str(context.master)
        context.pythonExec  # noqa: B018 - a classic (not Spark Connect) context
    except Exception:  # noqa: BLE001 - Spark Connect and other sessions: no context
        return None
    return context if master.startswith("local") else None


def _user_chose_python(context):
    """Whether the user named the workers' interpreter (environment or conf)."""
    if os.environ.get("PYSPARK_PYTHON") or context.pythonExec != _PYSPARK_DEFAULT:
        return True
    try:
        return bool(context.getConf().get("spark.pyspark.python"))
    except Exception:  # noqa: BLE001 - no conf to read: assume the user chose
        return True


@contextlib.contextmanager
def driver_python_for_local_workers(df):
    """While the block runs, jobs on ``df``'s local session start ``sys.executable``.

    Only for a local master (``local``, ``local[n]``, ``local-cluster[...]``)
    whose user set neither ``PYSPARK_PYTHON`` nor ``spark.pyspark.python``;
    otherwise nothing changes. pyspark reads the interpreter when a job's
    Python function is wrapped, so the jobs built inside the block (the
    lazy frame of ``per_query=True`` too) keep it; the session is restored
    for the user's own jobs when the block ends.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The frame whose session runs the jobs.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from skrank.spark._workers import driver_python_for_local_workers
    >>> context = SimpleNamespace(master="local[2]", pythonExec="python3",
    ...                           getConf=lambda: {})
    >>> df = SimpleNamespace(sparkSession=SimpleNamespace(sparkContext=context))
    >>> with driver_python_for_local_workers(df):
    ...     context.pythonExec == sys.executable
    True
    >>> context.pythonExec
    'python3'
    """
    context = _local_context(df)
    if context is None or _user_chose_python(context):
        yield
        return
    saved = context.pythonExec
    context.pythonExec = sys.executable
    try:
        yield
    finally:
        context.pythonExec = saved


def missing_module_error(text, df):
    """An ImportError for a worker's ``ModuleNotFoundError`` in ``text``, or None.

    Parameters
    ----------
    text : str
        The text of the exception Spark raised on the driver.
    df : pyspark.sql.DataFrame
        The frame whose session ran the job (it names the interpreter).

    Returns
    -------
    error : ImportError or None
        Its message names the module and the interpreter the workers ran,
        and says how to choose another.

    Examples
    --------
    >>> from skrank.spark._workers import missing_module_error
    >>> error = missing_module_error("ModuleNotFoundError: No module named 'pyarrow'",
    ...                              None)
    >>> print(error)  # doctest: +NORMALIZE_WHITESPACE
    Spark's Python workers could not import pyarrow, which skrank.spark.evaluate
    needs on the executors: they run `python3` (pyspark's default: python3 from
    the PATH); set the environment variable PYSPARK_PYTHON, before the
    SparkSession starts, to a Python that has skrank and its dependencies
    (pyarrow, pandas, numpy).
    """
    found = re.findall(r"ModuleNotFoundError: No module named '([^']+)'", text)
    if not found:
        return None
    try:
        python = df.sparkSession.sparkContext.pythonExec
    except Exception:  # noqa: BLE001 - no context to read
        python = os.environ.get("PYSPARK_PYTHON") or _PYSPARK_DEFAULT
    how = ""
    if python == _PYSPARK_DEFAULT:
        how = " (pyspark's default: python3 from the PATH)"
    return ImportError(
        f"Spark's Python workers could not import {found[-1]}, which "
        f"skrank.spark.evaluate needs on the executors: they run `{python}`{how}; "
        "set the environment variable PYSPARK_PYTHON, before the SparkSession "
        "starts, to a Python that has skrank and its dependencies (pyarrow, "
        "pandas, numpy).",
        name=found[-1],
    )
