"""Run TREC Fair Ranking 2021's ``metrics.py`` (qrs_exposure, qr_awrf) on rows.

The track's code (github.com/fair-trec/trec2021-fair-public, unchanged) needs
pandas and scipy; it runs in the Python named by ``$SKRANK_TREC_FAIR_PYTHON``
(default ``/tmp/fairvenv/bin/python``, made by ``python3 -m venv
/tmp/fairvenv && /tmp/fairvenv/bin/pip install pandas scipy``) with
``metrics.py`` unpacked from ``/work/shared/tools/trec2021-fair-metrics-src.tar.gz``
(or found in ``$SKRANK_TREC_FAIR``). Without them, :func:`available` is
False and the tests compare with the values recorded in ``test_groups.py``.

    python -m tests.fairness.trec_fair_reference   # prints the recorded cases again
"""

import json
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path

import numpy as np

TARBALL = Path("/work/shared/tools/trec2021-fair-metrics-src.tar.gz")
_UNPACKED = Path(tempfile.gettempdir()) / "skrank-trec-fair"

# runs inside the side environment: reads the case as JSON on stdin
_DRIVER = """
import json, sys
import numpy as np, pandas as pd
sys.path.insert(0, sys.argv[1])
import metrics
case = json.load(sys.stdin)
align = pd.DataFrame(case["align"]).T.fillna(0.0)[case["groups"]]
out = {}
for qid, samples in case["rankings"].items():
    seq = pd.DataFrame([(s, d) for s, docs in enumerate(samples) for d in docs],
                       columns=["seq_no", "page_id"])
    exposure = metrics.qrs_exposure(seq, align)
    awrf = metrics.qr_awrf(pd.Series(samples[0]), align,
                           np.asarray(case["target"], dtype=float))
    out[qid] = {"exposure": [float(exposure[g]) for g in case["groups"]],
                "awrf": float(awrf)}
print(json.dumps(out))
"""


def _folder():
    folder = os.environ.get("SKRANK_TREC_FAIR")
    if folder and (Path(folder) / "metrics.py").exists():
        return Path(folder)
    folder = _UNPACKED / "trec2021-fair"
    if not (folder / "metrics.py").exists() and TARBALL.exists():
        _UNPACKED.mkdir(exist_ok=True)
        with tarfile.open(TARBALL) as archive:
            archive.extractall(_UNPACKED)
    return folder if (folder / "metrics.py").exists() else None


def _python():
    return os.environ.get("SKRANK_TREC_FAIR_PYTHON", "/tmp/fairvenv/bin/python")


def available():
    if _folder() is None or not Path(_python()).exists():
        return False
    check = subprocess.run([_python(), "-c", "import pandas, scipy"], capture_output=True)
    return check.returncode == 0


def run_trec_fair(samples, group, query_id, target):
    """Per query ``{qid: {"exposure": [...], "awrf": float}}``; groups sorted.

    ``samples`` (n_rows, n_samples): scores without ties in a query, one
    ranking per column; AWRF is computed on the first column's ranking.
    """
    samples = np.asarray(samples, dtype=float).reshape(len(group), -1)
    query_id = np.asarray(query_id)
    groups = sorted(set(group))
    rankings = {}
    for q in np.unique(query_id):
        rows = np.flatnonzero(query_id == q)
        rankings[str(q)] = [
            [f"d{i}" for i in rows[np.argsort(-samples[rows, s], kind="stable")]]
            for s in range(samples.shape[1])
        ]
    case = {
        "align": {f"d{i}": {g: 1.0} for i, g in enumerate(group)},
        "groups": groups, "rankings": rankings,
        "target": [target[g] for g in groups],
    }
    out = subprocess.run([_python(), "-c", _DRIVER, str(_folder())],
                         input=json.dumps(case), capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def random_rows(seed, n_queries=4, n_samples=1, n_groups=3):
    """Rows of several queries with group labels and scores that never tie."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 9, size=n_queries)
    query_id = np.repeat(np.arange(n_queries), sizes)
    group = np.array(list("abcde"[:n_groups]))[rng.integers(0, n_groups, len(query_id))]
    score = rng.permutation(query_id.shape[0] * n_samples).reshape(-1, n_samples)
    return score.astype(float), group, query_id


if __name__ == "__main__":  # the recorded cases of test_groups.py
    for seed, n_samples in [(0, 1), (1, 3)]:
        s, g, q = random_rows(seed, n_samples=n_samples)
        print(seed, n_samples, run_trec_fair(s, g, q, {"a": 0.5, "b": 0.3, "c": 0.2}))
