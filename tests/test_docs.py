"""The documentation site covers the public API and the example gallery.

The site itself is built by ``.ci/run`` with warnings as errors; these
checks are the cheap part: every public name has an autosummary entry, and
every example script carries the title sphinx-gallery needs.
"""

import re
from pathlib import Path

import pytest

import skrank

ROOT = Path(__file__).resolve().parents[1]
API = (ROOT / "docs" / "api.rst").read_text()


def _documented_names():
    names = set()
    for block in re.findall(r"\.\. autosummary::\n((?:   .*\n|\n)+)", API):
        names.update(
            line.strip() for line in block.splitlines()
            if line.strip() and not line.strip().startswith(":")
        )
    return names


@pytest.mark.parametrize("name", skrank.__all__)
def test_every_public_name_has_a_page(name):
    assert name in _documented_names(), f"add {name} to docs/api.rst"


@pytest.mark.parametrize(
    "path", sorted(p for p in (ROOT / "examples").glob("*.py") if not p.name.startswith("_")),
    ids=lambda p: p.name,
)
def test_every_example_has_a_gallery_title(path):
    # sphx-gallery: a module docstring whose first line is underlined with "="
    match = re.match(r'"""\n(.+)\n(=+)\n', path.read_text())
    assert match and len(match.group(2)) >= len(match.group(1)), path.name
