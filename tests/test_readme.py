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


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(block):
    try:
        exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})
    finally:
        sklearn.set_config(enable_metadata_routing=False)


def test_readme_shows_the_two_setup_commands():
    text = README.read_text()
    assert "python examples/tune_ranking_model.py" in text
    assert "python -m pytest" in text
