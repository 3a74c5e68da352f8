"""Run expeval (Diaz et al.'s reference implementation) on rows, per query.

expeval reads TREC files: qrels ``qid group docno rel`` and a run
``qid sample docno rank score run`` (one permutation per sample, no ties).
:func:`run_expeval` writes the rows as those files and parses its
per-query output (``-U``: unnormalised; printed with 6 decimals).

expeval is found in the directory ``$SKRANK_EXPEVAL`` (holding
``expeval.py``), or unpacked from the source tarball
``/work/shared/tools/expeval-src.tar.gz`` (github.com/diazf/expeval,
unchanged). Without either, :func:`available` is False and the tests
compare with the values recorded in ``test_exposure.py``.

    python -m tests.fairness.expeval_reference   # prints the recorded cases again
"""

import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

TARBALL = Path("/work/shared/tools/expeval-src.tar.gz")
_UNPACKED = Path(tempfile.gettempdir()) / "skrank-expeval"


def _script():
    folder = os.environ.get("SKRANK_EXPEVAL")
    if folder and (Path(folder) / "expeval.py").exists():
        return Path(folder) / "expeval.py"
    script = _UNPACKED / "expeval" / "expeval.py"
    if not script.exists() and TARBALL.exists():
        _UNPACKED.mkdir(exist_ok=True)
        with tarfile.open(TARBALL) as archive:
            archive.extractall(_UNPACKED)
    return script if script.exists() else None


def available():
    return _script() is not None


def run_expeval(y_true, samples, query_id, *, options=()):
    """Per query ``{qid: {"ee_l", "ee_d", "ee_r"}}`` from expeval's output.

    ``samples`` is (n_rows, n_samples) of scores without ties inside a
    query; each column becomes one sample of the run, ranked by it.
    """
    y_true = np.asarray(y_true)
    samples = np.asarray(samples, dtype=float).reshape(len(y_true), -1)
    query_id = np.asarray(query_id)
    with tempfile.TemporaryDirectory() as folder:
        qrels = Path(folder) / "qrels"
        run = Path(folder) / "run"
        qrels.write_text("".join(
            f"{q} 0 d{i} {int(g)}\n" for i, (q, g) in enumerate(zip(query_id, y_true))))
        lines = []
        for q in np.unique(query_id):
            rows = np.flatnonzero(query_id == q)
            for s in range(samples.shape[1]):
                ranked = rows[np.argsort(-samples[rows, s], kind="stable")]
                lines += [f"{q} {s} d{i} {r} {samples[i, s]:.6f} run\n"
                          for r, i in enumerate(ranked, start=1)]
        run.write_text("".join(lines))
        out = subprocess.run(
            [sys.executable, str(_script()), "-U", *options, str(qrels), str(run)],
            capture_output=True, text=True, check=True,
        ).stdout
    names = {"difference": "ee_l", "disparity": "ee_d", "relevance": "ee_r"}
    result = {}
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        result.setdefault(qid, {})[names[name]] = float(value)
    return result


def random_rows(seed, n_queries=5, n_samples=1, max_grade=3):
    """Rows of several queries, graded, with scores that never tie."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, size=n_queries)
    query_id = np.repeat(np.arange(n_queries), sizes)
    y_true = rng.integers(0, max_grade + 1, size=query_id.shape[0])
    score = rng.permutation(query_id.shape[0] * n_samples).reshape(-1, n_samples)
    return y_true, score.astype(float), query_id


if __name__ == "__main__":  # the recorded cases of test_exposure.py
    for seed, n_samples, max_grade, options in [
        (0, 1, 3, ()), (1, 3, 1, ("-C",)), (2, 1, 2, ("-u", "rbp", "-p", "0.8")),
    ]:
        y, s, q = random_rows(seed, n_samples=n_samples, max_grade=max_grade)
        print(seed, n_samples, max_grade, options, run_expeval(y, s, q, options=options))
