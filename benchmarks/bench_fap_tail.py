"""fap_curve over the whole list (max_k=None) on long-tailed query sizes.

``FAPCutoffClassifier.fit`` asks :func:`skrank.fap_curve` for the curve up to
the longest query. Queries shorter than k add a closed-form tail to every
later cutoff; this script times that against the curve up to k = 20 on the
same arrays (the ratio is what to compare: both in one process, taking
turns, minimum of ``--repeats`` runs), with one ``np.lexsort`` of the rows
as the floor.

    python benchmarks/bench_fap_tail.py            # the three mixes below
    python benchmarks/bench_fap_tail.py --repeats 5

Mixes (rows in random order, binary labels at rate 0.2, float64 scores):

* ``one-long``: 100,000 queries of 20 rows and one of 100,000 rows (2.1 M
  rows), the case of issue 16;
* ``zipf-1e6``: 1e6 rows, sizes from a Zipf law (exponent 1.8) truncated at
  10,000 rows, as ``bench_data.py``'s ``zipf``;
* ``zipf-heavy``: 2e6 rows, Zipf exponent 1.5 truncated at 200,000 rows.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_common  # noqa: E402
from bench_data import shuffled_rows, zipf_sizes  # noqa: E402


def mixes(seed=0):
    rng = np.random.default_rng(seed)
    yield "one-long", np.r_[np.full(100_000, 20), 100_000]
    yield "zipf-1e6", zipf_sizes(1_000_000, rng, 1.8, 10_000)
    yield "zipf-heavy", zipf_sizes(2_000_000, rng, 1.5, 200_000)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mixes", nargs="+", default=None, metavar="MIX",
                        help="only these mixes (one-long, zipf-1e6, zipf-heavy)")
    bench_common.add_results_options(parser)
    args = parser.parse_args(argv)
    import skrank

    print(f"skrank from {Path(skrank.__file__).parent}")
    lines = [
        "## `fap_curve` over the whole list on long-tailed query sizes "
        "(`bench_fap_tail.py`)", "",
        f"Minimum of {args.repeats} runs, the three taking turns.", "",
        "| mix | rows | queries | longest | floor (s) | max_k=20 (s) | max_k=None (s) "
        "| None / 20 | None / floor |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    print("\n".join(lines[4:]))
    data = {"repeats": args.repeats, "mixes": {}}
    for name, sizes in mixes():
        if args.mixes and name not in args.mixes:
            continue
        y, s, q = shuffled_rows(sizes)
        skrank.fap_curve(y[:1000], s[:1000], query_id=q[:1000])  # warm-up
        timings = bench_common.alternate({
            "floor": lambda: np.lexsort((-s, q)),
            "max_k=20": lambda: skrank.fap_curve(y, s, query_id=q, max_k=20),
            "max_k=None": lambda: skrank.fap_curve(y, s, query_id=q),
        }, args.repeats)
        floor, short, whole = (timings[k].best for k in timings)
        line = (f"| {name} | {q.shape[0]:,} | {sizes.shape[0]:,} | "
                f"{int(sizes.max()):,} | {floor:.3f} | {short:.3f} | {whole:.3f} | "
                f"{whole / short:.2f}x | {whole / floor:.2f}x |")
        print(line, flush=True)
        lines.append(line)
        data["mixes"][name] = {k: t.as_dict() for k, t in timings.items()}
    bench_common.publish(args, "\n".join(lines), data, echo=False)


if __name__ == "__main__":
    main()
