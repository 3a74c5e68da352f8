"""skrank.clicks on 1e7 rows: IPS evaluate against skrank.evaluate, EM against one lexsort.

    python benchmarks/bench_clicks.py                    # 1e7 rows, 3 repeats
    python benchmarks/bench_clicks.py --rows 1e6 --repeats 2
    python benchmarks/bench_clicks.py --part evaluate    # or: --part em

Two parts (issue 36's speed goals), each timed in one process, taking
turns with its reference, ``--repeats`` times; the minimum of each is
reported, with the ratio, in wall-clock and CPU time (the steadier of the
two on a shared machine); ``evaluate`` also prints each click call's
per-round ratios (range and median), apart for the call that ran right
after ``skrank.evaluate``, and the calls' system time and minor faults
(``resource.getrusage``).

* ``evaluate``: bench_data's base case (``q10-binary-noties-int``: lists
  of 10 rows in random row order, int64 ids; 1e7 rows are 1e6 lists).
  Positions are a logging ranker's ranks (a noisy copy of the labels),
  clicks follow the position-based model (examination 1/position, a
  relevant row clicked when examined, a non-relevant one with
  probability 0.1). ``skrank.clicks.evaluate(metrics=["dcg@10",
  "precision@10", "arp"])`` with each form of propensity (a
  :class:`PositionBias`, a callable, a per-row array) against
  ``skrank.evaluate`` on the labels with ``["dcg@10", "precision@10"]``
  (skrank.evaluate has no ``arp``; its third metric would be another
  kernel on the same layout). Goal: at most 1.5x.
* ``em``: ``estimate_position_bias(method="em", n_resamples=0)`` on
  ``--rows`` impressions: 1e4 queries of 10 documents, each impression a
  noisy ranking of its query's documents by relevance (so documents move
  between positions), PBM clicks with theta = 1/k**0.8. Against one
  ``np.lexsort`` of the rows by (query, document, position). Goal: under
  30 s at 1e7. The bootstrap (``n_resamples``) refits EM once per
  resample and is not timed here.
"""

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_data  # noqa: E402

from skrank import evaluate as label_evaluate  # noqa: E402
from skrank.clicks import PositionBias, estimate_position_bias  # noqa: E402
from skrank.clicks import evaluate as click_evaluate  # noqa: E402


def evaluate_data(rows, seed=0):
    """bench_data's base case, with the logger's positions and PBM clicks."""
    arrays = bench_data.generate(bench_data.Config(rows), seed=seed)
    rng = np.random.default_rng(seed + 1)
    codes = arrays["codes"]
    logger = arrays["y_true"] + rng.standard_normal(rows)
    order = np.lexsort((-logger, codes))
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    sizes = np.diff(np.r_[starts, rows])
    position = np.empty(rows, dtype=np.int64)
    position[order] = np.arange(rows) - np.repeat(starts, sizes) + 1
    examined = rng.random(rows) < 1.0 / position
    attractive = np.where(arrays["y_true"] > 0, True, rng.random(rows) < 0.1)
    arrays["click"] = (examined & attractive).astype(np.int64)
    arrays["position"] = position
    return arrays


def em_data(rows, n_queries=10_000, n_docs=10, seed=0):
    """Impressions of noisy rankings of each query's documents, PBM clicks."""
    rng = np.random.default_rng(seed)
    theta = 1.0 / np.arange(1, n_docs + 1) ** 0.8
    n_lists = rows // n_docs
    list_query = rng.integers(0, n_queries, n_lists)
    gamma = rng.beta(1, 3, (n_queries, n_docs))
    noisy = gamma[list_query] * 3 + rng.standard_normal((n_lists, n_docs))
    shown = np.argsort(-noisy, axis=1)
    position = np.empty_like(shown)
    np.put_along_axis(position, shown, np.arange(1, n_docs + 1)[None, :], axis=1)
    query = np.repeat(list_query, n_docs)
    doc = np.tile(np.arange(n_docs), n_lists)
    position = position.ravel()
    click = (rng.random(query.shape[0]) < theta[position - 1] * gamma[query, doc])
    return {"click": click.astype(np.int64), "position": position, "query": query,
            "list": np.repeat(np.arange(n_lists), n_docs), "doc": doc, "theta": theta}


def race(calls, repeats, rounds=None, first_stays=False):
    """Best wall-clock and CPU seconds of each call, run in turns.

    The order turns from round to round; with ``first_stays`` the first
    call opens every round and the others turn, so each of them runs right
    after it once every ``len(calls) - 1`` rounds. On the shared 2-core
    host of issue 45, at 1e7 rows, whichever click call ran right after
    ``skrank.evaluate`` took 0.1-0.4 s more system time than the same call
    after another click call: the kernel clearing fresh huge pages, slow
    for the pages beyond those the previous call had just freed (the VM
    hands free pages back to its host), and the click call then needed
    more memory at its peak than ``skrank.evaluate``. ``rounds``, a list,
    gets each round's ``{name: (wall, cpu, system, minor faults, previous
    call)}``.
    """
    wall = {name: [] for name in calls}
    cpu = {name: [] for name in calls}
    names = list(calls)
    previous = None
    for round_ in range(repeats):
        if first_stays:
            turn = round_ % (len(names) - 1)
            order = names[:1] + names[1 + turn:] + names[1:1 + turn]
        else:
            turn = round_ % len(names)
            order = names[turn:] + names[:turn]
        record = {}
        for name in order:
            call = calls[name]
            before = resource.getrusage(resource.RUSAGE_SELF)
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
            after = resource.getrusage(resource.RUSAGE_SELF)
            record[name] = (wall[name][-1], cpu[name][-1], after.ru_stime - before.ru_stime,
                            after.ru_minflt - before.ru_minflt, previous)
            previous = name
        if rounds is not None:
            rounds.append(record)
    return ({name: min(v) for name, v in wall.items()},
            {name: min(v) for name, v in cpu.items()})


def report(title, wall, cpu, reference, goal):
    print(title)
    for name in wall:
        print(f"  {name:<50} {wall[name]:8.3f} s wall {cpu[name]:8.3f} s CPU   "
              f"{wall[name] / wall[reference]:5.2f}x / {cpu[name] / cpu[reference]:5.2f}x")
    print(f"  goal: {goal}")


def report_rounds(rounds, reference):
    """Per-round ratios to ``reference``: right after it, and after another call."""
    print("  per round, ratio to the reference's time in the same round (wall / CPU): "
          "range (median)")
    for name in rounds[0]:
        if name == reference:
            continue
        line = f"  {name:<50}"
        for label, after in (("right after it", True), ("after another", False)):
            ratios = [(r[name][0] / r[reference][0], r[name][1] / r[reference][1])
                      for r in rounds if (r[name][4] == reference) == after]
            if not ratios:
                continue
            w, c = np.array(ratios).T
            line += (f"  {label} ({len(ratios)}): {w.min():.2f}-{w.max():.2f} "
                     f"({np.median(w):.2f}) / {c.min():.2f}-{c.max():.2f} ({np.median(c):.2f})")
        print(line)
    print("  system time and minor faults per call, median over rounds:")
    for name in rounds[0]:
        system = np.median([r[name][2] for r in rounds])
        faults = np.median([r[name][3] for r in rounds])
        print(f"  {name:<50} {system:6.3f} s system  {faults:9,.0f} faults")


def bench_evaluate(rows, repeats):
    data = evaluate_data(rows)
    bias = PositionBias(1.0 / np.arange(1, 11))
    forms = {  # the three forms of propensity, the same values
        "PositionBias": bias,
        "callable": lambda k: 1.0 / k,
        "per-row array": 1.0 / data["position"],  # as read from a log
    }

    def clicks(propensity):
        return lambda: click_evaluate(
            data["click"], data["y_score"], position=data["position"],
            list_id=data["query_id"], propensity=propensity,
            metrics=["dcg@10", "precision@10", "arp"])

    calls = {
        "skrank.evaluate(dcg@10, precision@10)": lambda: label_evaluate(
            data["y_true"], data["y_score"], query_id=data["query_id"],
            metrics=["dcg@10", "precision@10"]),
    }
    calls.update({f"clicks.evaluate(3 metrics), {form}": clicks(propensity)
                  for form, propensity in forms.items()})
    rounds = []
    wall, cpu = race(calls, repeats, rounds, first_stays=True)
    reference = "skrank.evaluate(dcg@10, precision@10)"
    report(f"evaluate: {rows:,} rows, {rows // 10:,} lists; best of {repeats}",
           wall, cpu, reference, "clicks.evaluate at most 1.5x skrank.evaluate, every round")
    report_rounds(rounds, reference)


def bench_em(rows, repeats):
    data = em_data(rows)
    result = {}

    def em():
        result["bias"] = estimate_position_bias(
            data["click"], data["position"], list_id=data["list"],
            query_id=data["query"], doc_id=data["doc"], method="em", n_resamples=0)

    calls = {
        "np.lexsort((position, doc, query))": lambda: np.lexsort(
            (data["position"], data["doc"], data["query"])),
        "estimate_position_bias(method='em')": em,
    }
    wall, cpu = race(calls, repeats)
    report(f"em: {rows:,} impressions, 10,000 queries x 10 documents; best of "
           f"{repeats}", wall, cpu, "np.lexsort((position, doc, query))",
           "EM under 30 s")
    truth = data["theta"] / data["theta"][0]
    error = result["bias"].propensity / truth - 1
    print(f"  largest relative error of theta(1..10): {np.abs(error).max():.4f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--part", choices=("evaluate", "em", "all"), default="all")
    args = parser.parse_args()
    rows = int(args.rows)
    if args.part in ("evaluate", "all"):
        bench_evaluate(rows, args.repeats)
    if args.part in ("em", "all"):
        bench_em(rows, args.repeats)


if __name__ == "__main__":
    main()
