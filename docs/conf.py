"""Sphinx configuration of skrank's documentation site.

Build with ``python -m sphinx -W -b html docs docs/_build/html`` (warnings
are errors). The example gallery is made by sphinx-gallery from the scripts
in ``examples/``, which it runs, so figures and printed output are real.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # document this checkout of skrank
os.environ.setdefault("MPLBACKEND", "Agg")

import skrank  # noqa: E402

project = "skrank"
author = "The skrank developers"
copyright = "2026, The skrank developers"
release = skrank.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5",
                    "auto_examples/*.json", "auto_examples/*.codeobj.json"]
root_doc = "index"

autosummary_generate = True
autodoc_default_options = {"members": False, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

intersphinx_mapping = {}  # no network at build time: links are written out

html_theme = "pydata_sphinx_theme"
html_title = f"skrank {release}"
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "show_prev_next": False,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path = []
html_show_sourcelink = False

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*",  # run every example
    "ignore_pattern": r"(^|/)_[^/]*\.py$",  # helpers the examples import (_table, _plot)
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "capture_repr": (),
    "matplotlib_animations": False,
    "show_memory": False,
    "plot_gallery": "True",
}
