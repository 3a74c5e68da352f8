"""Every script in examples/ runs to the end as a plain script (as in CI).

Scripts whose name starts with "_" are helpers, not examples. Each example
runs in a fresh interpreter from an empty directory, with a non-interactive
matplotlib backend and no ``SKRANK_EXAMPLE_PLOT``, as a user runs it: its
figure must go to the temporary folder, and the directory stay empty (a
demo run from a checkout must not leave a PNG in the repository).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"
EXAMPLES = sorted(
    path for path in EXAMPLES_DIR.glob("*.py") if not path.name.startswith("_")
)


def test_examples_are_found():
    names = {path.name for path in EXAMPLES}
    assert {"tune_ranking_model.py", "cross_validate_metrics.py",
            "query_id_column.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_example_runs(path, tmp_path):
    here, temporary = tmp_path / "here", tmp_path / "tmp"
    here.mkdir()
    temporary.mkdir()
    env = {**os.environ, "MPLBACKEND": "Agg", "TMPDIR": str(temporary)}
    env.pop("SKRANK_EXAMPLE_PLOT", None)
    # the repository first, so the examples import this checkout of skrank
    root = str(EXAMPLES_DIR.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, str(path)], cwd=here, env=env, capture_output=True,
        text=True, timeout=300,
    )
    assert result.returncode == 0, (
        f"{path.name} exited with {result.returncode}:\n{result.stderr[-4000:]}"
    )
    assert result.stdout.strip(), f"{path.name} printed nothing"
    if result.stdout.startswith("This example needs "):  # an optional package is missing
        pytest.skip(result.stdout.strip())
    # redirected output is for files and programs: no progress bars (\r, \b, ...)
    controls = set(result.stdout) & {chr(c) for c in range(32) if chr(c) not in "\n\t"}
    assert not controls, f"{path.name} wrote control characters {sorted(controls)}"
    assert not list(here.glob("*.png")), f"{path.name} wrote a figure where it was run"
    if "plot saved to" in result.stdout:  # a figure was promised: is it a PNG?
        plot = Path(result.stdout.split("plot saved to ", 1)[1].splitlines()[0])
        assert plot.name == f"{path.stem}.png" and temporary in plot.parents
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
