"""The public API and the shape of the package tree.

Every public name imports from ``skrank`` and from its subpackage (the same
object), and imports run one way: ``_core`` <- ``metrics`` <- the faces
built on them (model selection, plots, statistics, I/O, Dask, the command
line).
"""

import ast
import importlib
from pathlib import Path

import pytest

import skrank

PACKAGE = Path(skrank.__file__).parent
SUBPACKAGES = ["metrics", "model_selection", "plot", "stats", "datasets", "io"]

# which parts of skrank each part may import (besides itself)
ALLOWED = {
    "_core": set(),
    "metrics": {"_core"},
    "datasets": {"_core"},
    "stats": {"_core", "metrics", "plot"},  # result.plot() draws a plot Display
    "model_selection": {"_core", "metrics"},
    "plot": {"_core", "metrics", "model_selection"},
    "io": {"_core", "metrics", "stats"},
    "dask": {"_core", "metrics", "stats"},
    "spark": {"_core", "metrics"},
    # the click scorer stands on model selection's QueryScorer (never the reverse)
    "clicks": {"_core", "metrics", "plot", "model_selection"},
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
                 "SegmentEvaluation", "SegmentDifference", "QueryValues",
                 "RunEvaluation", "DifferenceExplanation"]:
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
