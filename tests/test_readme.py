"""The README's code blocks run as a new user would paste them."""

import re
from pathlib import Path

import pytest
import sklearn

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = [
    block
    for block in re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    if ">>>" not in block  # doctest blocks run under --doctest-glob
]


def test_readme_blocks_run_in_order():
    # as pasted one after another into one session: later blocks may use
    # names (``selector``, ``X``) that earlier blocks made
    namespace = {"__name__": "__readme__"}
    try:
        for number, block in enumerate(BLOCKS):
            try:
                exec(compile(block, f"README.md block {number}", "exec"), namespace)
            except Exception as exc:
                pytest.fail(f"README python block {number} failed: {exc!r}\n{block}")
    finally:
        sklearn.set_config(enable_metadata_routing=False)


def test_readme_shows_the_two_setup_commands():
    text = README.read_text()
    assert "python examples/tune_ranking_model.py" in text
    assert "python -m pytest" in text
