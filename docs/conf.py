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
# the examples save their figure to a file when run as scripts; on the
# gallery pages sphinx-gallery shows the figure, so no file (and no path)
os.environ["SKRANK_EXAMPLE_PLOT"] = ""

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
    "sphinx-mathjax-offline",  # MathJax served from _static: formulas need no network
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
    "navbar_align": "left",
    "navbar_end": ["navbar-icon-links"],
    "navbar_persistent": ["search-button"],
    "header_links_before_dropdown": 5,
    "show_prev_next": False,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
}
# Pages outside a section (the home page, quick start, changelog) have no
# sibling pages: no primary sidebar there rather than an empty one.
html_sidebars = {
    "index": [],
    "quick_start": [],
    "changelog": [],
}
html_static_path = ["_static"]
html_css_files = ["skrank.css"]
html_show_sourcelink = False

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*",  # run every example
    "ignore_pattern": r"(^|/)_[^/]*\.py$",  # private scripts, if any
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "capture_repr": (),
    "matplotlib_animations": False,
    "show_memory": False,
    "plot_gallery": "True",
}


# The table of scorer names on the model-selection page is made from the
# registry at build time (skrank.get_scorer_names()), so it lists exactly
# the names this version accepts.
def _write_scorer_table():
    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 25 75",
        "",
        "   * - name",
        "     - the scorer it gives (``@k`` shown as ``@10``)",
    ]
    for name in skrank.get_scorer_names():
        scorer = skrank.get_scorer(name.replace("@k", "@10"))
        lines += [f"   * - ``{name}``", f"     - ``{scorer!r}``"]
    out = Path(__file__).parent / "generated" / "scorer_names.inc"
    out.parent.mkdir(exist_ok=True)
    text = "\n".join(lines) + "\n"
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


_write_scorer_table()


# The presets of the compatibility page come from the one table in the code
# (skrank._core._presets.PRESETS), as describe_convention() does.
def _write_presets():
    from skrank._core._presets import presets_rst

    out = Path(__file__).parent / "generated" / "presets.inc"
    out.parent.mkdir(exist_ok=True)
    text = presets_rst()
    if not out.exists() or out.read_text() != text:
        out.write_text(text)


_write_presets()


# docutils turns any "word@word.word" into an e-mail link, so metric names
# such as nDCG@10 or recall@10 became mailto: links, in the pages and in the
# docstrings numpydoc renders. skrank's documentation has no e-mail address:
# every mailto: reference goes back to plain text, on every page.
from docutils import nodes  # noqa: E402
from sphinx.transforms import SphinxTransform  # noqa: E402


class NoMailtoLinks(SphinxTransform):
    """Replace each ``mailto:`` reference with its text."""

    default_priority = 100

    def apply(self, **kwargs):
        for ref in list(self.document.findall(nodes.reference)):
            if ref.get("refuri", "").startswith("mailto:"):
                ref.replace_self(nodes.Text(ref.astext()))


def setup(app):
    app.add_transform(NoMailtoLinks)
