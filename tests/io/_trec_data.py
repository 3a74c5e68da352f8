"""Awkward random qrels and runs for the cross-checks against pytrec_eval."""

import numpy as np


def awkward_case(seed, n_queries=6, graded=True):
    """(qrels, run) dicts: ties, unjudged and unretrieved documents, a query
    with no relevant document, a run query missing from the qrels, a qrels
    query missing from the run."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q:02d}"
        docs = [f"d{rng.integers(0, 10**6):06d}" for _ in range(rng.integers(5, 40))]
        docs = list(dict.fromkeys(docs))
        judged = [d for d in docs if rng.random() < 0.7]
        extra = [f"x{q}_{i}" for i in range(rng.integers(0, 8))]  # never retrieved
        top = 3 if graded else 1
        grades = {d: int(rng.integers(0, top + 1)) for d in judged + extra}
        if q == 1:
            grades = {d: 0 for d in grades}  # no relevant document
        if grades:
            qrels[qid] = grades
        scores = rng.integers(0, 6, size=len(docs)).astype(float)  # many ties
        if q % 2:
            scores = rng.normal(size=len(docs)).round(2)
        run[qid] = {d: float(s) for d, s in zip(docs, scores)}
    run["zz_not_judged"] = {"a": 1.0, "b": 0.5}
    qrels["q_missing_from_run"] = {"m1": 1, "m2": 0}
    return qrels, run
