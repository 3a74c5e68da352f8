"""NIST's ndeval 4.5 as a test oracle: write qrels and run files, run it, read its CSV.

The binary is built from the source kept in ``/work/shared/tools`` (or
named by the ``NDEVAL`` environment variable); tests that need it skip,
saying why, when it is not there.
"""

import csv
import io
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np

_BUILD = Path("/work/shared/tools/build_ndeval.sh")


def ndeval_binary():
    """The path of the ndeval binary, or None."""
    path = os.environ.get("NDEVAL")
    if path and Path(path).exists():
        return path
    cached = Path.home() / ".cache/ndeval-4.5/bin/ndeval"
    if cached.exists():
        return str(cached)
    if _BUILD.exists() and shutil.which("cc"):
        done = subprocess.run(["bash", str(_BUILD)], capture_output=True, text=True)
        if done.returncode == 0 and Path(done.stdout.strip()).exists():
            return done.stdout.strip()
    return None


def needs_ndeval():
    import pytest

    path = ndeval_binary()
    if path is None:
        pytest.skip("ndeval is not built (set NDEVAL, or build it with "
                    "/work/shared/tools/build_ndeval.sh)")
    return path


def random_collection(seed, *, n_topics=6, n_subtopics=4, n_docs=30, ties=False):
    """Random qrels and run: lists of (topic, subtopic, docno, judgment) and
    (topic, docno, score). Some qrels docs are not retrieved, some run docs
    are not judged, one topic has no relevant document and one run topic
    is not judged."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for topic in range(1, n_topics + 1):
        docs = [f"d{rng.integers(10**6):06d}" for _ in range(n_docs)]
        docs = sorted(set(docs))
        judged = [d for d in docs if rng.random() < 0.7]
        for doc in judged:
            for sub in range(1, n_subtopics + 1):
                if topic == 2:
                    grade = 0  # a topic without relevant documents
                else:
                    grade = int(rng.random() < 0.25) * int(rng.integers(1, 3))
                if grade or rng.random() < 0.3:
                    qrels.append((topic, sub, doc, grade))
        retrieved = [d for d in docs if rng.random() < 0.8]
        if ties:
            scores = rng.integers(0, 4, size=len(retrieved)) / 4.0 + 0.5
        else:
            scores = rng.permutation(len(retrieved)) + 1.0 + rng.random()
        run.extend((topic, d, float(s)) for d, s in zip(retrieved, scores))
    # a run topic without judgments
    run.extend((n_topics + 5, f"x{i}", float(i + 1)) for i in range(3))
    return qrels, run


def write_files(tmp_path, qrels, run):
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels))
    lines = []
    for topic in sorted({t for t, _, _ in run}):
        docs = sorted((r for r in run if r[0] == topic), key=lambda r: (-r[2], r[1]))
        lines += [f"{t} Q0 {d} {i} {s!r} run\n" for i, (t, d, s) in enumerate(docs, 1)]
    run_path.write_text("".join(lines))
    return qrels_path, run_path


def run_ndeval(binary, qrels_path, run_path, *, alpha=0.5, beta=0.5, complete=False):
    """ndeval's output: {topic (str; "amean"): {measure: value}}."""
    command = [binary, "-alpha", repr(alpha), "-beta", repr(beta), "-traditional"]
    if complete:
        command.append("-c")
    done = subprocess.run(command + [str(qrels_path), str(run_path)],
                          capture_output=True, text=True, check=True)
    rows = csv.DictReader(io.StringIO(done.stdout))
    return {row["topic"]: {k: float(v) for k, v in row.items()
                           if k not in ("runid", "topic")} for row in rows}


def as_arrays(qrels, run):
    """The pair as skrank's arrays: one row per (topic, doc) of either file;
    unretrieved judged docs score -1 (for ``retrieved="positive"``), run
    scores are made positive. Columns: the subtopics in ascending order."""
    subtopics = sorted({s for _, s, _, _ in qrels})
    column = {s: j for j, s in enumerate(subtopics)}
    grades, scores = {}, {}
    for t, s, d, g in qrels:
        grades.setdefault((t, d), np.zeros(len(subtopics)))[column[s]] = g
    low = min(sc for _, _, sc in run)
    for t, d, sc in run:
        scores[(t, d)] = sc - low + 1.0
    judged_topics = {t for t, _, _, _ in qrels}
    keys = sorted(set(grades) | {k for k in scores if k[0] in judged_topics})
    y_true = np.array([grades.get(k, np.zeros(len(subtopics))) for k in keys])
    y_score = np.array([scores.get(k, -1.0) for k in keys])
    query = np.array([k[0] for k in keys])
    doc = np.array([k[1] for k in keys])
    return y_true, y_score, query, doc
