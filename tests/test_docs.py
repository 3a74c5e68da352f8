"""The documentation site covers the public API and the example gallery.

The site itself is built by ``.ci/run`` with warnings as errors; these
checks are the cheap part: every public name has an autosummary entry, and
every example script carries the title sphinx-gallery needs.
"""

import re
from pathlib import Path

import pytest

import skrank

from ._needs import needs

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


# --- the built site: no mailto: links, no build-machine paths ---------------

import html as html_module  # noqa: E402


def _conf_transform():
    """The NoMailtoLinks transform of docs/conf.py, without running conf.py."""
    import ast

    needs("docutils")

    source = (ROOT / "docs" / "conf.py").read_text()
    tree = ast.parse(source)
    wanted = [
        node for node in tree.body
        if (isinstance(node, ast.ClassDef) and node.name == "NoMailtoLinks")
        or (isinstance(node, ast.ImportFrom) and node.module in {"docutils",
                                                                 "sphinx.transforms"})
    ]
    namespace = {}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), "docs/conf.py", "exec"),
         namespace)
    return namespace["NoMailtoLinks"]


def _build_page(tmp_path, text, transform=None):
    sphinx_application = needs("sphinx.application")
    src = tmp_path / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text("extensions = []\n")
    (src / "index.rst").write_text(text)
    app = sphinx_application.Sphinx(
        str(src), str(src), str(tmp_path / "out"), str(tmp_path / "doctrees"), "html",
        status=None, warning=None, freshenv=True,
    )
    if transform is not None:
        app.add_transform(transform)
    app.build()
    # docutils writes "@" as "&#64;"
    return html_module.unescape((tmp_path / "out" / "index.html").read_text())


PAGE = """Metrics
=======

Tune on nDCG@10, then check recall@10 and FAP@10.
"""


def test_metric_names_are_not_mailto_links(tmp_path):
    html = _build_page(tmp_path / "fixed", PAGE, _conf_transform())
    assert "mailto:" not in html
    assert "nDCG@10" in html and "recall@10" in html


def test_without_the_transform_docutils_makes_mailto_links(tmp_path):
    # the check above can fail: plain docutils links the names
    html = _build_page(tmp_path / "plain", PAGE)
    assert html.count("mailto:") == 3


BUILT = ROOT / "docs" / "_build" / "html"
MAILTO_LINK = re.compile(r"""href\s*=\s*["']mailto:""", flags=re.I)
MACHINE_PATH = re.compile(r"plot saved to /|/tmp/|/home/|/root/")


def check_built_site(site=BUILT):
    """What a reader of the built site must not meet; raises AssertionError.

    No ``mailto:`` link, no path of the machine that built it, MathJax from
    the site itself (formulas without network), and no "Section Navigation"
    sidebar without a link. ``.ci/run`` calls this after the build.
    """
    site = Path(site)
    pages = sorted(site.rglob("*.html"))
    assert pages, f"no HTML pages under {site}"
    bad = []
    for page in pages:
        name = page.relative_to(site)
        text = page.read_text(errors="replace")
        if MAILTO_LINK.search(text):  # a link, not the word (the changelog names it)
            bad.append(f"{name}: a mailto: link")
        if MACHINE_PATH.search(text):
            bad.append(f"{name}: a path of the build machine")
        scripts = re.findall(r'<script[^>]*src="([^"]*mathjax[^"]*)"', text, flags=re.I)
        for src in scripts:
            if "://" in src or src.startswith("//"):
                bad.append(f"{name}: MathJax from the network ({src})")
        nav = text.find('aria-label="Section Navigation"')
        if nav != -1 and "toctree-l1" not in text[nav:text.find("</nav>", nav)]:
            bad.append(f"{name}: an empty Section Navigation sidebar")
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file(), "no local MathJax"
    assert not bad, "\n".join(bad)


@pytest.mark.skipif(not BUILT.is_dir(),
                    reason="the site is not built (.ci/run builds it)")
def test_built_site_reads_right():
    check_built_site()


def test_the_site_check_can_fail(tmp_path):
    (tmp_path / "_static" / "mathjax").mkdir(parents=True)
    (tmp_path / "_static" / "mathjax" / "tex-chtml.js").write_text("")
    (tmp_path / "a.html").write_text(
        '<a href="mailto:nDCG@10">nDCG@10</a> plot saved to /tmp/x.png'
        '<script src="https://cdn.example/mathjax/tex-chtml.js"></script>'
        '<nav aria-label="Section Navigation"><ul></ul></nav>'
    )
    with pytest.raises(AssertionError) as info:
        check_built_site(tmp_path)
    problems = ["mailto", "build machine", "MathJax from the network", "empty Section"]
    for problem in problems:
        assert problem in str(info.value)
    (tmp_path / "a.html").write_text(
        '<script src="_static/mathjax/tex-chtml.js"></script>'
        '<nav aria-label="Section Navigation"><li class="toctree-l1">x</li></nav>'
    )
    check_built_site(tmp_path)


def test_examples_import_no_helper_module():
    # a gallery script runs when downloaded alone
    for path in (ROOT / "examples").glob("*.py"):
        text = path.read_text()
        imports = re.findall(r"^\s*(?:from|import)\s+(\w+)", text, flags=re.M)
        local = {p.stem for p in (ROOT / "examples").glob("*.py")}
        assert not set(imports) & local, path.name
        assert not [name for name in imports if name.startswith("_")], path.name


# --- examples that cannot run where the site is built -----------------------
# The Spark example stops with SystemExit(0) without pyspark or Java; inside
# Sphinx that ended the whole build with status 0 and no HTML. docs/conf.py
# runs each example's guard first and leaves out of the run those it stops.

import importlib.util  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402

SPARK_EXAMPLE = ROOT / "examples" / "evaluate_click_log_spark.py"


def _conf_functions(*names):
    """Functions of docs/conf.py (and the imports they use), without running conf.py."""
    import ast

    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    wanted = [
        node for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name in names)
        or isinstance(node, (ast.Import, ast.ImportFrom))
        and not getattr(node, "module", "") in {"docutils", "sphinx.transforms"}
    ]
    namespace = {}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), "docs/conf.py", "exec"),
         namespace)
    return [namespace[name] for name in names]


def test_an_example_stopped_by_its_guard_is_found_with_the_reason(monkeypatch,
                                                                  tmp_path):
    (cannot_run,) = _conf_functions("example_cannot_run")
    assert cannot_run(ROOT / "examples" / "tune_ranking_model.py") is None  # no guard
    monkeypatch.setitem(sys.modules, "pyspark", None)  # pyspark not installed
    if importlib.util.find_spec("pyarrow") is None:  # the guard imports it first
        monkeypatch.setitem(sys.modules, "pyarrow", types.ModuleType("pyarrow"))
    assert cannot_run(SPARK_EXAMPLE) == (
        'This example needs pyspark: pip install "pyspark[sql]"')
    monkeypatch.undo()
    if importlib.util.find_spec("pyspark") is None:
        return  # the Java check needs pyspark installed
    monkeypatch.setenv("PATH", str(tmp_path))  # pyspark, but no java on the PATH
    assert cannot_run(SPARK_EXAMPLE) == (
        "This example needs a Java runtime (17 or later) for Spark.")


def test_a_guard_that_passes_lets_the_example_run(tmp_path):
    (cannot_run,) = _conf_functions("example_cannot_run")
    example = tmp_path / "example.py"
    example.write_text(
        '"""\nTitle\n=====\n"""\ntry:\n    import math  # noqa: F401\n'
        'except ImportError:\n    print("This example needs math")\n'
        "    raise SystemExit(0)\n\n# %%\n"
        "raise SystemExit(1)  # a cell: not the guard\n"
    )
    assert cannot_run(example) is None


def test_the_page_of_an_example_not_run_says_so_under_its_title():
    note, under_title = _conf_functions("not_run_note", "with_note_under_title")
    page = ".. _label:\n\n\nEvaluate on Spark\n=================\n\nText.\n"
    text = under_title(page, note('This example needs pyspark: pip install "x[sql]"'))
    title_end = text.index("=================\n") + len("=================\n")
    assert text[title_end:].lstrip().startswith(".. note::")
    assert "was not run when this site was built" in text
    assert text.rstrip().endswith("Text.")


def test_without_pyspark_the_gallery_runs_every_example_but_the_spark_one(tmp_path):
    # the whole of docs/conf.py, in an interpreter where pyspark cannot be imported
    needs("sphinx")
    code = (
        "import re, runpy, sys; sys.modules['pyspark'] = None\n"
        f"conf = runpy.run_path({str(ROOT / 'docs' / 'conf.py')!r})\n"
        "pattern = conf['sphinx_gallery_conf']['filename_pattern']\n"
        f"for path in sorted(__import__('pathlib').Path({str(ROOT / 'examples')!r})"
        ".glob('*.py')):\n"
        "    print(path.name, bool(re.search(pattern, str(path))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path,
                          env={**os.environ, "MPLBACKEND": "Agg"})
    assert done.returncode == 0, done.stderr[-3000:]
    run = dict(line.split() for line in done.stdout.splitlines())
    assert run.pop(SPARK_EXAMPLE.name) == "False"
    assert run and set(run.values()) == {"True"}, run


# --- the compatibility page's preset tables ---------------------------------

def presets_rst():
    """The page's tables, from the renderer in docs/_ext (not part of skrank)."""
    import importlib.util

    path = ROOT / "docs" / "_ext" / "presets_page.py"
    spec = importlib.util.spec_from_file_location("presets_page", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.presets_rst()


def test_preset_tables_have_no_empty_list_in_a_cell():
    # a cell holding "-" is a bullet list with one empty item in rst: the page
    # showed 28 empty bullets where a metric has no option of its own
    docutils_core = needs("docutils.core")
    from docutils import nodes

    from skrank._core._presets import PRESETS

    tree = docutils_core.publish_doctree(
        presets_rst(), settings_overrides={"report_level": 5, "halt_level": 5})
    tables = list(tree.findall(nodes.table))
    assert len(tables) == len(PRESETS)
    cells = [entry for table in tables for entry in table.findall(nodes.entry)]
    assert cells and all(entry.astext().strip() for entry in cells)
    assert not [entry for entry in cells if any(entry.findall(nodes.bullet_list))]


def test_no_example_of_the_guides_hides_its_output():
    # a skipped doctest shows no output on the page (describe_convention("catboost")
    # printed nothing on the compatibility page)
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.rst"))]
    skipped = [
        f"{page.relative_to(ROOT)}: {line.strip()}"
        for page in pages
        if "_build" not in page.parts and "auto_examples" not in page.parts
        for line in page.read_text().splitlines()
        if line.lstrip().startswith(">>>") and "+SKIP" in line
    ]
    assert not skipped, "\n".join(skipped)


def test_function_names_in_tables_are_not_broken_mid_name():
    # cells may break long literals anywhere, but a cross-referenced name
    # (which_metric's "gauc_score()") broke mid-word; the stylesheet keeps it whole
    css = (ROOT / "docs" / "_static" / "skrank.css").read_text()
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)  # no comments
    rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", css))
    xref = [body for selector, body in rules.items()
            if "table td a code.xref" in " ".join(selector.split())]
    assert xref and "white-space: nowrap" in xref[0]
    assert "overflow-wrap: normal" in xref[0]
