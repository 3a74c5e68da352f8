"""The ``skrank`` command, run as a subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ._trec_data import awkward_case
from .._needs import needs

pytrec_eval = needs("pytrec_eval")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("trec")
    qrels, run = awkward_case(5)
    _, other = awkward_case(5)
    other = {q: {d: -s for d, s in docs.items()} for q, docs in other.items()}
    (root / "qrels").write_text("".join(
        f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    for name, table in (("run", run), ("other", other)):
        (root / name).write_text("".join(
            f"{q} Q0 {d} {i} {s!r} {name}\n"
            for q, docs in table.items() for i, (d, s) in enumerate(docs.items())))
    return root, qrels, run


def _skrank(*args):
    return subprocess.run([sys.executable, "-m", "skrank", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_trec_format_per_query_matches_trec_eval(files):
    root, qrels, run = files
    done = _skrank("evaluate", root / "qrels", root / "run", "-m", "map", "-m",
                   "P.5,10", "-m", "ndcg_cut_10", "-m", "bpref", "-m", "num_rel_ret",
                   "-q", "--format", "trec", "--compat", "trec_eval")
    assert done.returncode == 0, done.stderr
    names = ["map", "P_5", "P_10", "ndcg_cut_10", "bpref", "num_rel_ret"]
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "P", "ndcg_cut", "bpref", "num_rel_ret"}).evaluate(run)
    seen = 0
    for line in done.stdout.splitlines():
        name, query, value = line.split("\t")
        name = name.strip()
        if query == "all":
            expected = [reference[q][name] for q in reference]
            expected = sum(expected) if name == "num_rel_ret" else sum(expected) / len(expected)
        else:
            expected = reference[query][name]
        text = str(int(expected)) if name == "num_rel_ret" else f"{expected:.4f}"
        assert value == text, line
        seen += 1
    assert seen == len(names) * (len(reference) + 1)


def test_trec_format_runid_and_num_q_open_the_all_lines(files):
    # trec_eval prints them on "all" lines only, before the means
    root, qrels, run = files
    done = _skrank("evaluate", root / "qrels", root / "run", "-m", "runid", "-m",
                   "num_q", "-m", "map", "-q", "--format", "trec", "--compat", "trec_eval")
    assert done.returncode == 0, done.stderr
    lines = [line.split("\t") for line in done.stdout.splitlines()]
    assert all(name.strip() == "map" for name, query, _ in lines if query != "all")
    assert [(n.strip(), q) for n, q, _ in lines[-3:]] == [
        ("runid", "all"), ("num_q", "all"), ("map", "all")]
    evaluated = set(qrels) & set(run)  # without -c: the run's judged queries
    assert lines[-3][2] == "run" and lines[-2][2] == str(len(evaluated))
    assert lines[0][0] == f"{'map':<22}"  # names padded to 22 characters, as there
    done = _skrank("evaluate", root / "qrels", root / "run", "-m", "runid")
    assert done.returncode == 2 and "--format trec" in done.stderr
    # num_q is a measure of its own (a count), in every format
    done = _skrank("evaluate", root / "qrels", root / "run", "-m", "num_q", "--format", "json")
    assert done.returncode == 0 and f'"num_q": {float(len(evaluated))}' in done.stdout


def test_json_and_csv(files):
    root, _, _ = files
    done = _skrank("evaluate", root / "qrels", root / "run", "-m", "map",
                   "--format", "json", "-q")
    data = json.loads(done.stdout)
    assert set(data) == {"run", "tag", "mean", "per_query"} and data["tag"] == "run"
    done = _skrank("evaluate", root / "qrels", root / "run", "-m", "map", "--format", "csv")
    lines = done.stdout.splitlines()
    assert lines[0] == "run,measure,query,value" and lines[1].split(",")[2] == "all"


def test_several_runs_give_a_comparison_table(files):
    root, _, _ = files
    done = _skrank("evaluate", root / "qrels", root / "run", root / "other", "-m", "map")
    assert done.returncode == 0, done.stderr
    assert "paired tests" in done.stdout and "p_rand_holm" in done.stdout


def test_help_shows_examples():
    done = _skrank("evaluate", "--help")
    assert done.returncode == 0 and "examples:" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["evaluate", "{root}/qrels", "{root}/absent", "-m", "map"], "no such file"),
    (["evaluate", "{root}/qrels", "{root}/run", "-m", "nope"], "Unknown measure"),
    (["evaluate", "{root}/qrels"], "the following arguments are required"),
    (["evaluate", "{root}/qrels", "{root}/run", "--format", "xml"], "invalid choice"),
])
def test_bad_input_one_line_and_status_2(files, args, message):
    root, _, _ = files
    done = _skrank(*[a.format(root=root) for a in args])
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and message in done.stderr


def _imported_by_the_command(root, options, modules):
    """Which of ``modules`` one ``skrank evaluate`` run (in a fresh process) imports."""
    code = (
        "import sys; from skrank.cli._cli import main; "
        f"main(['evaluate', {str(root / 'qrels')!r}, {str(root / 'run')!r}, *{options!r}]); "
        f"print('imported:', [m for m in {modules!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert "imported: " in done.stdout, done.stdout + done.stderr
    return done.stdout.strip().rsplit("imported: ", 1)[1]


def test_evaluating_one_run_does_not_import_scikit_learn(files):
    # importing scikit-learn takes seconds; one run needs numpy only
    root, _, _ = files
    options = ["-m", "map", "-m", "P_10", "--format", "trec"]
    assert _imported_by_the_command(root, options, ("sklearn", "scipy")) == "[]"


@pytest.mark.parametrize("stream", [False, True])
def test_with_pyarrow_the_command_imports_neither_pandas_nor_pyarrow_compute(files, stream):
    # pandas' import alone is about 0.4 s of the command, pyarrow.compute's
    # 30 ms; pyarrow's reader, join and tie-breaking by document id get by
    # without them
    needs("pyarrow")
    root, _, _ = files
    options = ["-m", "map", "-m", "bpref", "-m", "ndcg_cut_10", "--compat", "trec_eval",
               "--format", "trec", *(["--stream"] if stream else [])]
    assert _imported_by_the_command(root, options, ("pandas", "pyarrow.compute")) == "[]"


def test_trec_eval_names_leave_skranks_metric_registry_unloaded(files):
    # the registry and the dozen metric families behind skrank.metrics'
    # public names are about 25 ms of the command's start; trec_eval's names
    # need a few kernels only. A name of skrank's loads the registry.
    root, _, _ = files
    unloaded = ("skrank.metrics._registry", "skrank.metrics._evaluate", "skrank.metrics._fap")
    options = ["-m", "map", "-m", "P.5,10", "-m", "ndcg_cut_10", "-m", "bpref"]
    assert _imported_by_the_command(root, options, unloaded) == "[]"
    loaded = _imported_by_the_command(root, ["-m", "ndcg@10"], ("skrank.metrics._registry",))
    assert loaded == "['skrank.metrics._registry']"


def test_the_command_keeps_its_bytecode_even_under_python_b(tmp_path):
    # a copy of the sources, without bytecode, shadows the installed package
    import shutil

    import skrank

    source = Path(skrank.__file__).parent
    shutil.copytree(source, tmp_path / "skrank",
                    ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-B", "-m", "skrank", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "skrank" / "cli" / "__pycache__").glob("_cli.*.pyc"))
    assert list((tmp_path / "skrank" / "io" / "__pycache__").glob("_evaluate.*.pyc"))
    # the package itself was imported before the command's entry point: -B held
    assert not list((tmp_path / "skrank" / "__pycache__").glob("__init__.*.pyc"))


def test_the_entry_point_restores_the_bytecode_setting(monkeypatch):
    import skrank.cli._cli as cli
    from skrank.__main__ import main

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(cli, "run", lambda: sys.dont_write_bytecode)
    assert main() is True  # the command itself runs with the user's setting
    assert sys.dont_write_bytecode is True


def _pool_after(root, entry):
    # the pool is printed from inside main(): run() ends the process after it
    code = (
        "import sys; import skrank.cli._cli as cli; "
        f"sys.argv = ['skrank', 'evaluate', {str(root / 'qrels')!r}, {str(root / 'run')!r}, "
        "'-m', 'map']; "
        "command = cli.main\n"
        "def main(*args):\n"
        "    status = command(*args)\n"
        "    import pyarrow as pa; print('pool:', pa.default_memory_pool().backend_name)\n"
        "    return status\n"
        f"cli.main = main; cli.{entry}"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert "pool: " in done.stdout, done.stdout + done.stderr
    return done.stdout.strip().rsplit("pool: ", 1)[1]


def test_the_command_uses_the_system_allocator_and_main_leaves_it_alone(files):
    # the command's own process reuses freed memory at once (fewer fresh pages
    # touched); main(), which other code may call in its process, sets nothing
    pa = needs("pyarrow")
    root, _, _ = files
    assert _pool_after(root, "run()") == "system"
    assert _pool_after(root, "main(sys.argv[1:])") == pa.default_memory_pool().backend_name


def test_the_console_script_enters_through_the_bytecode_keeping_entry_point():
    from importlib.metadata import entry_points

    import skrank.__main__

    (script,) = entry_points(group="console_scripts", name="skrank")
    assert script.load() is skrank.__main__.main


def _run_in_a_process(root, args):
    # run() as the console script calls it, with output after it that must not appear
    code = (
        "import sys; import skrank.cli._cli as cli; "
        f"sys.argv = ['skrank'] + {args!r}; "
        "print('first line', flush=False); status = cli.run(); "
        "print('after run()', status)"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=root)


def test_run_ends_the_process_with_the_status_and_the_output_flushed(files):
    root, _, _ = files
    done = _run_in_a_process(root, ["evaluate", "-q", "qrels", "run", "-m", "map"])
    assert done.returncode == 0, done.stderr
    expected = subprocess.run(
        [sys.executable, "-c", "import sys, skrank.cli._cli as cli; "
         "sys.exit(cli.main(['evaluate', '-q', 'qrels', 'run', '-m', 'map']))"],
        capture_output=True, text=True, timeout=120, cwd=root)
    assert done.stdout == "first line\n" + expected.stdout  # all of it, nothing after
    assert "after run()" not in done.stdout
    failed = _run_in_a_process(root, ["evaluate", "qrels", "no-such-run"])
    assert failed.returncode == 2
    assert failed.stdout == "first line\n"
    assert "skrank: error:" in failed.stderr and "after run()" not in failed.stdout


@pytest.mark.parametrize("reason", ["coverage", "closed output"])
def test_run_returns_the_status_for_the_usual_exit(monkeypatch, reason):
    import io

    import skrank.cli._cli as cli

    monkeypatch.setattr(sys, "argv", ["skrank", "--version"])
    monkeypatch.setattr(cli, "main", lambda: 3)
    if reason == "coverage":
        monkeypatch.setitem(sys.modules, "coverage", sys)
    else:
        class Gone(io.StringIO):
            def flush(self):
                raise BrokenPipeError(32, "Broken pipe")

        monkeypatch.setattr(sys, "stdout", Gone())
    assert cli.run() == 3  # the process goes on (pytest's own)
