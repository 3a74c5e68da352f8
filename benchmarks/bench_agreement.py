"""judge_agreement and system_agreement against one evaluate_run per system.

    python benchmarks/bench_agreement.py                     # 10 systems x 10,000 queries
    python benchmarks/bench_agreement.py --queries 2000 --repeats 2

Data as in issue 49: 10 systems' runs of 10,000 queries, 50 retrieved
documents each (DataFrames: query_id, doc_id, score), and two sets of
graded judgments (0-2) of 30 documents per query, the second a noisier copy
of the first (an LLM's beside a person's). The baseline is what a user
would otherwise run: ``evaluate_run(qrels_a, run, ["ndcg@10"])`` once per
system. ``system_agreement`` scores every run under both sets (twice the
baseline's scoring) and draws 1,000 bootstrap resamples; it reads each run
and each set of judgments once. ``judge_agreement`` joins the two sets.

The contenders take turns, ``--repeats`` rounds, in one process; the
fastest run of each is reported with its ratio to the baseline, in wall
clock and CPU time. The machine may be shared: compare ratios from one run,
and quote the range over rounds (printed as median (fastest-slowest)).
(The data generator lives here, not in ``bench_data.py``: no other script
uses it.)
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402


def agreement_data(n_queries, n_systems, n_retrieved=50, n_judged=30, n_docs=200, seed=0):
    """``(runs, qrels_a, qrels_b)`` as pandas DataFrames."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(n_queries), n_judged)
    judged = np.argsort(rng.random((n_queries, n_docs)), axis=1)[:, :n_judged].ravel()
    grade = rng.choice([0, 1, 2], size=query.shape[0], p=[0.7, 0.2, 0.1])
    noisy = np.clip(grade + rng.choice([-1, 0, 1], size=grade.shape[0], p=[0.1, 0.8, 0.1]),
                    0, 2)
    qids = np.array([f"q{q}" for q in range(n_queries)], dtype=object)
    docs = np.array([f"d{d}" for d in range(n_docs)], dtype=object)
    qrels_a = pd.DataFrame({"query_id": qids[query], "doc_id": docs[judged],
                            "relevance": grade.astype(float)})
    qrels_b = qrels_a.assign(relevance=noisy.astype(float))
    # a document's "true" grade; systems of falling quality add more noise to it
    truth = np.zeros((n_queries, n_docs))
    truth[query, judged] = grade
    runs = {}
    run_query = np.repeat(np.arange(n_queries), n_retrieved)
    for s in range(n_systems):
        score = truth + rng.normal(0, 0.5 + 0.3 * s, truth.shape)
        top = np.argsort(-score, axis=1)[:, :n_retrieved].ravel()
        runs[f"system{s}"] = pd.DataFrame({
            "query_id": qids[run_query], "doc_id": docs[top],
            "score": score[run_query, top]})
    return runs, qrels_a, qrels_b


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)

    from skrank import evaluate_run
    from skrank.stats import judge_agreement, system_agreement

    runs, qrels_a, qrels_b = agreement_data(args.queries, args.systems)
    calls = {
        "evaluate_run per system": lambda: [evaluate_run(qrels_a, run, ["ndcg@10"])
                                            for run in runs.values()],
        "system_agreement": lambda: system_agreement(
            runs, qrels_a, qrels_b, metric="ndcg@10", n_resamples=args.resamples,
            random_state=0),
        "judge_agreement": lambda: judge_agreement(qrels_a, qrels_b),
    }
    timings = bench_common.alternate(calls, args.repeats)
    base = timings["evaluate_run per system"]
    lines = [f"{args.systems} systems x {args.queries:,} queries (50 retrieved, 30 judged "
             f"per query), ndcg@10, {args.resamples:,} resamples; {args.repeats} rounds"]
    for name, t in timings.items():
        lines.append(f"  {name:<24} {t.spread():>26} s   {t.best / base.best:5.2f}x wall  "
                     f"{t.cpu_best / base.cpu_best:5.2f}x CPU")
    ratios = [a / b for a, b in zip(timings["system_agreement"].wall, base.wall)]
    lines.append(f"system_agreement / baseline per round: {min(ratios):.2f}-{max(ratios):.2f}")
    data = {"queries": args.queries, "systems": args.systems, "resamples": args.resamples,
            "seconds": {name: t.as_dict() for name, t in timings.items()}}
    bench_common.publish(args, "\n".join(lines), data, preformatted=True,
                         title="judge and system agreement (`bench_agreement.py`)")


if __name__ == "__main__":
    main()
