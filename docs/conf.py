"""Sphinx configuration of skrank's documentation site.

Build with ``python -m sphinx -W -b html docs docs/_build/html`` (warnings
are errors). The example gallery is made by sphinx-gallery from the scripts
in ``examples/``, which it runs, so figures and printed output are real.
"""

import os
import re
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

# An example that needs what this machine lacks (pyspark and Java for the
# Spark one: the docs extra does not bring them) stops at its top with
# "This example needs ..." and SystemExit(0). Inside Sphinx that exit would
# end the whole build, with status 0 and no HTML. So each example's guard
# (its statements before the first "# %%" cell, up to the last one that can
# raise SystemExit) runs here first; an example it stops is not run by
# sphinx-gallery, and its page shows the code with a note saying why.
def example_cannot_run(path):
    """What the guard of the example at ``path`` prints when it stops, or None."""
    import ast
    import contextlib
    import io

    source = Path(path).read_text()
    lines = source.splitlines()
    cells = [i + 1 for i, line in enumerate(lines) if line.startswith("# %%")]
    first_cell = cells[0] if cells else len(lines) + 1
    preamble = [node for node in ast.parse(source).body if node.end_lineno < first_cell]
    exits = [i for i, node in enumerate(preamble)
             if any(isinstance(sub, ast.Raise) and "SystemExit" in ast.unparse(sub)
                    for sub in ast.walk(node))]
    if not exits:
        return None
    guard = ast.Module(body=preamble[:exits[-1] + 1], type_ignores=[])
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(guard, str(path), "exec"), {"__name__": "__main__"})
    except SystemExit:
        said = " ".join(printed.getvalue().split())
        return said or "it stopped before its first cell"
    return None


def not_run_note(reason):
    """The note at the top of the page of an example that was not run."""
    # as the script printed it: straight quotes, no markup
    if "`" in reason:
        said = re.sub(r"([\\*_|])", r"\\\1", reason.replace("`", "'"))
    else:
        said = f"``{reason}``"
    return (
        ".. note::\n\n"
        "   **This example was not run when this site was built**, so its output\n"
        "   and figures are missing below. The machine that built it said:\n"
        f"   {said}\n"
    )


NOT_RUN = {
    path.name: reason
    for path in sorted((ROOT / "examples").glob("*.py"))
    if not path.name.startswith("_") and (reason := example_cannot_run(path))
}
_not_run = "|".join(re.escape(name) for name in NOT_RUN)

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    # run every example but those whose guard stopped them (NOT_RUN)
    "filename_pattern": rf"^(?!.*[\\/](?:{_not_run})$)" if NOT_RUN else r".*",
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
# (skrank._core._presets.PRESETS), as describe_convention() does; the
# renderer of the tables is docs/_ext/presets_page.py.
def _write_presets():
    sys.path.insert(0, str(Path(__file__).parent / "_ext"))
    from presets_page import presets_rst

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


def add_not_run_notes(app, docname, source):
    """``source-read``: the note under the title of each example page not run."""
    stem = docname.rpartition("/")[2]
    if not docname.startswith("auto_examples/") or f"{stem}.py" not in NOT_RUN:
        return
    source[0] = with_note_under_title(source[0], not_run_note(NOT_RUN[f"{stem}.py"]))


def with_note_under_title(text, note):
    """``text`` (a page's reStructuredText) with ``note`` after its first title."""
    lines = text.split("\n")
    for i in range(1, len(lines)):
        title, underline = lines[i - 1].strip(), lines[i]
        if title and set(underline) == {"="} and len(underline) >= len(title):
            return "\n".join(lines[:i + 1] + ["", note] + lines[i + 1:])
    return note + "\n" + text


def setup(app):
    app.add_transform(NoMailtoLinks)
    app.connect("source-read", add_not_run_notes)
    from sphinx.util import logging

    for name, reason in NOT_RUN.items():
        logging.getLogger(__name__).info(f"examples/{name} is not run: {reason}")
