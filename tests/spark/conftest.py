"""A local SparkSession for the tests of skrank.spark, or a skip saying what is missing.

pyspark (the ``spark`` extra) and a Java runtime are needed; without either
the tests that use the ``spark`` fixture are skipped with the reason.
"""

import importlib.util
import shutil
import subprocess

import pytest


def _missing():
    """Why no local SparkSession can start here, or None."""
    if importlib.util.find_spec("pyspark") is None:
        return 'pyspark is not installed (pip install -e ".[spark]"; CI installs every extra)'
    java = shutil.which("java")
    if java is None:
        return "no Java runtime on the PATH (pyspark needs Java 17 or later)"
    try:
        subprocess.run([java, "-version"], capture_output=True, check=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"`java -version` failed ({exc}): pyspark needs a working Java runtime"
    return None


@pytest.fixture(scope="session")
def spark():
    reason = _missing()
    if reason is not None:
        pytest.skip(reason)
    import warnings

    from pyspark.sql import SparkSession

    with warnings.catch_warnings():
        # pyspark's own notice about the installed pandas version
        warnings.filterwarnings("ignore", "PySpark does not yet fully support",
                                FutureWarning)
        session = (
            SparkSession.builder.master("local[2]")
            .appName("skrank-tests")
            .config("spark.sql.shuffle.partitions", "3")
            .config("spark.default.parallelism", "2")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("OFF")
    yield session
    session.stop()
