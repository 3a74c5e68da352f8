"""A run and qrels for the judged@k cross-check with ir_measures (plain Python).

Scores are distinct within a query (ir_measures breaks ties by document
id, ascending; trec_eval by id, descending), lists are short and long,
judgments have negative, zero and positive grades, a query is missing
from the run and one from the qrels.
"""

import random


def judged_case():
    rng = random.Random(49)
    qrels, run = {}, {}
    for q in range(8):
        qid = f"q{q}"
        pool = [f"d{j}" for j in range(15)]
        judged = rng.sample(pool, rng.randint(1, 12))
        qrels[qid] = {d: rng.choice([-1, 0, 0, 1, 2]) for d in judged}
        n = [1, 2, 3, 7, 12, 15, 4, 9][q]
        docs = rng.sample(pool, n)
        scores = rng.sample(range(1000), n)
        run[qid] = {d: float(s) / 7 for d, s in zip(docs, scores)}
    del run["q6"]  # a qrels query the run lacks
    run["x1"] = {"d1": 1.0, "d2": 0.5}  # a run query the qrels lack
    return qrels, run


CUTOFFS = (1, 3, 5, 10, None)
