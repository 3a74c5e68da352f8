"""The public API and the shape of the package tree.

Every public name imports from ``skrank`` and from its subpackage (the same
object), and imports run one way: ``_core`` <- ``metrics`` <- the faces
built on them (model selection, plots, statistics, I/O, Dask, the command
line).
"""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import skrank

PACKAGE = Path(skrank.__file__).parent
SUBPACKAGES = ["metrics", "model_selection", "plot", "stats", "datasets", "io", "fairness",
               "recsys"]

# which parts of skrank each part may import (besides itself)
ALLOWED = {
    "_core": set(),
    "metrics": {"_core"},
    "datasets": {"_core"},
    "stats": {"_core", "metrics", "plot", "io"},  # result.plot() draws a plot Display;
    # system_agreement and judge_agreement score runs and read qrels through io
    "fairness": {"_core", "metrics"},
    # compare_candidates hands a search's per-query values to stats' paired
    # tests (stats never imports model_selection: no module circle)
    "model_selection": {"_core", "metrics", "stats"},
    "plot": {"_core", "metrics", "model_selection"},
    "io": {"_core", "metrics"},
    # the command: io reads and scores the runs, stats compares them
    "cli": {"_core", "metrics", "stats", "io"},
    "dask": {"_core", "metrics", "stats", "clicks", "fairness"},
    "fairness": {"_core", "metrics"},
    "spark": {"_core", "metrics"},
    # the intent-aware measures: a public namespace over metrics' functions
    "diversity": {"metrics"},
    # the click scorer stands on model selection's QueryScorer (never the
    # reverse); clicks.compare returns stats' ComparisonResult
    "clicks": {"_core", "metrics", "plot", "model_selection", "stats"},
    # beyond-accuracy metrics of recommendation lists; the recsys scorer
    # stands on model selection's QueryScorer, as the click scorer does
    # (model_selection above metrics: explain_list_difference returns
    # metrics' DifferenceExplanationResult)
    "recsys": {"_core", "metrics", "model_selection"},
}


def _skrank_imports(path):
    """The top-level skrank parts a module imports (relative or absolute)."""
    parts = path.relative_to(PACKAGE).parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(parts[:-1])[: len(parts) - node.level]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "skrank":
                target = node.module.split(".")[1:]
            else:
                continue
            if not target:  # "from .. import x" at the top: x is the part
                target = [alias.name for alias in node.names][:1]
            found.add(target[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names = alias.name.split(".")
                if names[0] == "skrank" and len(names) > 1:
                    found.add(names[1])
    return found


def test_every_public_name_imports_from_skrank_and_its_subpackage():
    seen = set()
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"skrank.{sub}")
        for name in module.__all__:
            assert getattr(skrank, name) is getattr(module, name), name
            seen.add(name)
    missing = set(skrank.__all__) - seen
    # names of the top level only: none besides those of the subpackages
    # and the areas that live in their own subpackage (io, dask)
    for name in missing:
        assert getattr(skrank, name) is not None
    assert sorted(skrank.__all__) == sorted(set(skrank.__all__))


def test_one_public_list_gives_the_lazy_imports_and_all():
    # skrank._PUBLIC is the one list: each subpackage's own __all__ is its
    # entry there, and the top level's __all__ is every entry
    for sub, names in skrank._PUBLIC.items():
        module = importlib.import_module(f"skrank.{sub}")
        assert sorted(module.__all__) == sorted(names), sub
    assert skrank.__all__ == sorted(n for names in skrank._PUBLIC.values() for n in names)
    assert set(skrank._PUBLIC) <= set(skrank._SUBPACKAGES)


def test_every_class_a_public_function_returns_is_exported():
    # the result classes of compare (with and without by=), evaluate_by,
    # evaluate(aggregate=None), evaluate_run and explain_difference
    for name in ["ComparisonResult", "ComparisonTable", "SegmentComparisonResult",
                 "SegmentEvaluationResult", "SegmentDifferenceResult", "QueryValues",
                 "RunEvaluationResult", "DifferenceExplanationResult"]:
        assert name in skrank.__all__, name
    result = skrank.compare([1, 0, 1, 0], {"a": [2, 1, 2, 1], "b": [1, 2, 1, 2]},
                            query_id=[1, 1, 2, 2], metrics=["mrr"], n_resamples=10)
    assert type(result) is skrank.ComparisonResult
    assert type(result.tests) is skrank.ComparisonTable


@pytest.mark.parametrize(
    "name",
    ["hits_score", "coverage_error", "label_ranking_loss",
     "label_ranking_average_precision_score"],
)
def test_seed_metrics_are_public(name):
    # ranx's hits and scikit-learn's multilabel ranking metrics (issue 22)
    import skrank.metrics

    assert name in skrank.__all__ and name in skrank.metrics.__all__
    assert getattr(skrank, name) is getattr(skrank.metrics, name)


def test_no_private_module_at_the_top_level():
    loose = sorted(
        path.name for path in PACKAGE.glob("*.py")
        if path.name not in ("__init__.py", "__main__.py")
    )
    assert loose == [], f"put {loose} in a subpackage"


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_imports_run_one_way(part):
    folder = PACKAGE / part
    if not folder.is_dir():
        pytest.skip(f"skrank/{part} does not exist yet")
    for path in folder.rglob("*.py"):
        used = _skrank_imports(path) - {part}
        assert used <= ALLOWED[part], (
            f"{path.relative_to(PACKAGE)} imports {sorted(used - ALLOWED[part])}"
        )


# --- the shape of the source (issue 35): no circles, short modules, few -----
# --- private names across subpackages, no reading of other frames ----------

def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_graph():
    """{module: {imported skrank module}} and the private names crossing subpackages."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges, private = {}, set()
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):  # functions' imports too
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == "skrank":
                target = node.module
            else:
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                edges.setdefault(name, set()).add(full if full in modules else target)
                ours, theirs = name.split(".")[1:2], target.split(".")[1:2]
                if alias.name.startswith("_") and full not in modules and ours != theirs:
                    private.add((alias.name, target, name))
    return modules, edges, private


def test_no_import_circle():
    modules, edges, _ = _import_graph()
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(edges.get(module, ())):
            if target not in modules or target == module:
                continue
            if state.get(target) == "open":
                cycle = path[path.index(target):] + [target]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(modules):
        if module not in state:
            visit(module, [module])


def test_the_circle_check_can_fail(monkeypatch):
    modules, edges, private = _import_graph()
    edges["skrank._core._layout"] = edges.get("skrank._core._layout", set()) | {
        "skrank.metrics._gain"}
    monkeypatch.setattr(sys.modules[__name__], "_import_graph",
                        lambda: (modules, edges, private))
    with pytest.raises(AssertionError, match="import circle"):
        test_no_import_circle()


def test_no_module_over_700_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > 700}
    assert not long, f"split these modules by idea: {long}"


def test_few_private_names_cross_subpackages():
    # a helper that serves two rooms lives below both, under a name without
    # a leading underscore; what is left are kernels borrowed by the faces
    _, _, private = _import_graph()
    names = sorted({name for name, _, _ in private})
    assert len(names) <= 15, names


def test_no_code_reads_other_frames_locals():
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        assert "f_locals" not in text, path
        assert "currentframe" not in text, path


def test_result_classes_end_in_result_and_old_names_still_import():
    # one naming style for what a function returns; the names of the first
    # faces stay importable from skrank and from their subpackage
    import skrank.clicks
    import skrank.io
    import skrank.metrics
    import skrank.stats

    old = {"SegmentEvaluation": skrank.stats, "SegmentDifference": skrank.stats,
           "RunEvaluation": skrank.io, "DifferenceExplanation": skrank.metrics}
    for name, sub in old.items():
        assert getattr(skrank, name) is getattr(skrank, name + "Result")
        assert getattr(sub, name) is getattr(sub, name + "Result")
        assert name not in skrank.__all__
    returned = [skrank.ComparisonResult, skrank.SegmentComparisonResult,
                skrank.SegmentEvaluationResult, skrank.SegmentDifferenceResult,
                skrank.RunEvaluationResult, skrank.DifferenceExplanationResult,
                skrank.clicks.ClickEvaluationResult, skrank.clicks.SlateEstimateResult]
    assert all(cls.__name__.endswith("Result") for cls in returned)


def test_skrank_metrics_imports_its_names_on_first_use():
    # skrank.metrics' names load on first use (the command imports single
    # kernel modules, which runs the package's __init__ first); the names
    # are the same objects, listed by dir() and taken by a star import
    code = (
        "import sys, skrank.metrics._cutoff\n"
        "print(sorted(m for m in ('skrank.metrics._registry', 'skrank.metrics._fap')"
        " if m in sys.modules))\n"
        "import skrank.metrics as m\n"
        "from skrank.metrics._fap import fap_score\n"
        "assert m.fap_score is fap_score and set(m.__all__) <= set(dir(m))\n"
        "namespace = {}\n"
        "exec('from skrank.metrics import *', namespace)\n"
        "assert sorted(k for k in namespace if not k.startswith('__')) == sorted(m.__all__)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "ok"]
    import skrank.metrics

    with pytest.raises(AttributeError, match="no attribute 'ndcg'"):
        skrank.metrics.ndcg  # noqa: B018
